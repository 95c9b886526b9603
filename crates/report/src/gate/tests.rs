//! Gate reports built by hand from judged example snapshots, rendered as text and Markdown.
//! Volatile fields (times, digests, the run directory, the tool version) are replaced by
//! placeholders before rendering.

use crate::document::{
    GATE_REPORT_SCHEMA_ID, GateReport, HostOutcome, Promotion, PromotionOutcome, RunSummary, Step,
};
use driftgate_compare::testing::{edited, example, set, three_way};
use driftgate_compare::{Allowance, JudgeOptions, Policy, Report, is_firmware_version, stories};
use driftgate_snapshot::{SourceStatus, VerifiedSnapshot};

/// The seed-1 host captured (mockup and recorded Windows output) with DCBX disable staged on
/// the NIC for the next reboot.
fn pending_dcbx_disable() -> VerifiedSnapshot {
    use driftgate_collect::{CaptureOptions, NoReporter, SourceSpec, capture_host};
    let fixture = concat!(
        concat!(env!("CARGO_MANIFEST_DIR"), "/../.."),
        "/tests/fixtures/redfish/pending-dcbx-disable"
    );
    let sources = [
        format!("redfish=mockup:{fixture}"),
        format!("windows=dir:{fixture}/windows"),
    ]
    .map(|s| SourceSpec::parse(&s).unwrap());
    let captured = tokio::runtime::Runtime::new()
        .unwrap()
        .block_on(capture_host(
            "azl-node01".parse().unwrap(),
            &sources,
            &CaptureOptions::default(),
            &NoReporter,
        ));
    assert!(
        captured.snapshot.is_complete(),
        "{:?}",
        captured.snapshot.sources
    );
    VerifiedSnapshot::parse(&captured.snapshot.to_canonical_json(), "post.json").unwrap()
}

fn redacted(mut report: Report) -> Report {
    report.tool = "<tool>".into();
    for summary in [
        Some(&mut report.snapshot),
        report.baseline.as_mut(),
        report.pre.as_mut(),
    ]
    .into_iter()
    .flatten()
    {
        summary.digest = "sha256:<digest>".into();
        summary.captured_at = "<captured>".into();
    }
    report
}

fn host(report: Report, post: &VerifiedSnapshot, step: Step) -> HostOutcome {
    let report = redacted(report);
    let dir = match step {
        Step::Pre => "pre",
        Step::Post => "post-1",
    };
    HostOutcome {
        host: report.snapshot.host.clone(),
        fleet: "azure-local".into(),
        cluster: Some("azl-cluster-a".into()),
        verdict: report.verdict,
        stories: stories(&report, &post.snapshot().facts),
        report,
        snapshot_file: format!("<run-dir>/{dir}/azl-node01.json"),
        capture_ms: 0,
        notes: Vec::new(),
        fixes: Vec::new(),
    }
}

fn gate(step: Step, hosts: Vec<HostOutcome>, allowances: Vec<Allowance>) -> GateReport {
    let verdict = hosts
        .iter()
        .map(|h| h.verdict)
        .max_by_key(|v| match v {
            driftgate_compare::Verdict::Pass => 0,
            driftgate_compare::Verdict::Warn => 1,
            driftgate_compare::Verdict::Block => 2,
            driftgate_compare::Verdict::Incomplete => 3,
        })
        .unwrap_or(driftgate_compare::Verdict::Pass);
    GateReport {
        schema: GATE_REPORT_SCHEMA_ID.into(),
        tool: "<tool>".into(),
        run: RunSummary {
            id: "CHG-1042".into(),
            dir: "<run-dir>".into(),
            step,
            attempt: (step == Step::Post).then_some(1),
            started_at: "<started>".into(),
            policy_digest: "sha256:<policy>".into(),
        },
        verdict,
        strict: false,
        hosts,
        allowances,
        expired_allowances: Vec::new(),
        warnings: Vec::new(),
        promotion: None,
    }
}

fn seed_one_post() -> GateReport {
    let post = example("post-update.json");
    let report = three_way(
        &post,
        &example("baseline.json"),
        &example("pre-update.json"),
        Vec::new(),
    );
    let mut gate = gate(
        Step::Post,
        vec![host(report, &post, Step::Post)],
        Vec::new(),
    );
    gate.promotion = Some(PromotionOutcome::Skipped {
        reason: "the post verdict is BLOCK; only a passing post is promoted".into(),
    });
    gate
}

fn passing_post_with_promotion() -> GateReport {
    let baseline = example("baseline.json");
    let updated = example("post-update.json");
    let post = edited(&baseline, "post.json", |s| {
        for (path, value) in &updated.snapshot().facts {
            if is_firmware_version(path.as_str()) {
                s.facts.insert(path.clone(), value.clone());
            }
        }
    });
    let report = three_way(&post, &baseline, &example("pre-update.json"), Vec::new());
    let mut gate = gate(
        Step::Post,
        vec![host(report, &post, Step::Post)],
        Vec::new(),
    );
    gate.promotion = Some(PromotionOutcome::Promoted(Promotion {
        commit: Some("0123456789abcdef0123456789abcdef01234567".into()),
        reference: Some("refs/heads/main".into()),
        files: vec!["baselines/azure-local/azl-node01.json".into()],
    }));
    gate
}

const BANDWIDTH: &str = "host/qos/traffic_class/smb_direct/bandwidth";

fn pre_with_drift() -> GateReport {
    let baseline = example("baseline.json");
    let pre = edited(&baseline, "<run-dir>/pre/azl-node01.json", |s| {
        set(s, BANDWIDTH, 40.into());
    });
    let expired = Allowance {
        expires: Some("2026-11-01".parse().unwrap()),
        reason: Some("old maintenance window".into()),
        ..Allowance::parse_arg("bios/SysProfile").unwrap()
    };
    let report = driftgate_compare::judge(
        &pre,
        Some(&baseline),
        &Policy::builtin(),
        &JudgeOptions::default(),
    );
    let mut gate = gate(Step::Pre, vec![host(report, &pre, Step::Pre)], Vec::new());
    gate.run.attempt = None;
    gate.expired_allowances = vec![Allowance {
        given_at: "allow.toml:7".into(),
        ..expired
    }];
    // As the gate words them: the expired allowance is one of the warnings.
    gate.warnings = vec![
        "allowance bios/SysProfile (allow.toml:7) expired on 2026-11-01: ignored".into(),
        "policy file driftgate.toml changed since the baseline was promoted".into(),
    ];
    gate
}

fn allowed_change() -> GateReport {
    let (baseline, pre, post) = (
        example("baseline.json"),
        example("pre-update.json"),
        example("post-update.json"),
    );
    let pre = edited(&pre, "pre.json", |s| {
        set(s, "bios/SysProfile", "Custom".into())
    });
    let post = edited(&post, "post.json", |s| {
        set(s, "bios/SysProfile", "Custom".into())
    });
    let allowances = driftgate_compare::allow::parse_allow_file(
        r#"[[allow]]
path = "nic/*/bmc/function/*/dcbx_mode"
value = "disabled"
reason = "storage moved to the switched fabric with static DCB"
ticket = "CHG-1042"
expires = "2026-12-31"

[[allow]]
path = "nic/*/os/**"
reason = "follows from the DCBX change"
ticket = "CHG-1042"
"#,
        "allow.toml",
    )
    .unwrap();
    let report = three_way(&post, &baseline, &pre, allowances.clone());
    gate(
        Step::Post,
        vec![host(report, &post, Step::Post)],
        allowances,
    )
}

fn incomplete_host() -> GateReport {
    let (baseline, pre) = (example("baseline.json"), example("pre-update.json"));
    let post = edited(&example("post-update.json"), "post.json", |s| {
        s.facts.retain(|path, _| !path.as_str().contains("/os/"));
        s.sources[1].status = SourceStatus::Failed;
        s.sources[1].error = Some("ssh://admin@azl-node01: connection refused".into());
    });
    let report = three_way(&post, &baseline, &pre, Vec::new());
    let mut gate = gate(
        Step::Post,
        vec![host(report, &post, Step::Post)],
        Vec::new(),
    );
    gate.promotion = Some(PromotionOutcome::Skipped {
        reason: "the post verdict is INCOMPLETE; only a passing post is promoted".into(),
    });
    gate
}

/// An insta snapshot under `crates/report/src/snapshots/`, beside the check reports'.
macro_rules! snapshot {
    ($name:expr, $value:expr) => {
        insta::with_settings!({ snapshot_path => "../snapshots", prepend_module_to_snapshot => false }, {
            insta::assert_snapshot!($name, $value);
        })
    };
}

fn text(report: &GateReport) -> String {
    let mut out = Vec::new();
    super::text(report, &mut out).unwrap();
    anstream::adapter::strip_str(&String::from_utf8(out).unwrap()).to_string()
}

fn markdown(report: &GateReport) -> String {
    let mut out = Vec::new();
    super::markdown(report, &mut out).unwrap();
    String::from_utf8(out).unwrap()
}

#[test]
fn seed_one_blocked_post() {
    let report = seed_one_post();
    let text = text(&report);
    assert!(
        text.starts_with("BLOCK gate post run CHG-1042 (post 1): 1 of 1 hosts blocked\n"),
        "{text}"
    );
    assert!(text.contains(
        "    NIC.Slot.3 229.0.166.0 → 229.1.123.0 changed nic/00:0a:f7:12:34:56/bmc/function/00:0a:f7:12:34:56/dcbx_mode (function NIC.Slot.3-1-1) \"ieee\" → \"disabled\"\n"
    ), "{text}");
    assert_eq!(
        text.matches("NIC firmware of this port").count(),
        2,
        "once per port"
    );
    snapshot!("gate_seed_one_blocked_post_text", text);
    snapshot!("gate_seed_one_blocked_post_markdown", markdown(&report));
}

#[test]
fn passing_post_promoted() {
    let report = passing_post_with_promotion();
    let text = text(&report);
    assert!(
        text.starts_with("PASS gate post run CHG-1042 (post 1): 1 of 1 hosts passed\n"),
        "{text}"
    );
    assert!(text.contains("promoted: commit 0123456789abcdef"), "{text}");
    snapshot!("gate_passing_post_promoted_text", text);
    snapshot!("gate_passing_post_promoted_markdown", markdown(&report));
}

#[test]
fn pre_with_pre_existing_drift() {
    let report = pre_with_drift();
    let text = text(&report);
    assert!(
        text.starts_with("BLOCK gate pre run CHG-1042: 1 of 1 hosts blocked\n")
            || text.starts_with("WARN gate pre run CHG-1042"),
        "{text}"
    );
    assert!(
        text.contains("allowance bios/SysProfile (allow.toml:7) expired on 2026-11-01: ignored"),
        "{text}"
    );
    let markdown = markdown(&report);
    for rendered in [&text, &markdown] {
        assert_eq!(rendered.matches("expired").count(), 1, "{rendered}");
    }
    snapshot!("gate_pre_with_drift_text", text);
    snapshot!("gate_pre_with_drift_markdown", markdown);
}

#[test]
fn allowed_change_and_pre_existing_drift_at_post() {
    let report = allowed_change();
    let text = text(&report);
    assert!(!text.contains("BLOCK"), "{text}");
    assert!(text.contains("pre-existing drift (1)"), "{text}");
    assert!(text.contains("allowed (28)"), "{text}");
    assert!(text.contains("(given at allow.toml:2): reason \"storage moved to the switched fabric with static DCB\", ticket CHG-1042, expires 2026-12-31"), "{text}");
    snapshot!("gate_allowed_change_text", text);
    snapshot!("gate_allowed_change_markdown", markdown(&report));
}

#[test]
fn incomplete_post() {
    let report = incomplete_host();
    let text = text(&report);
    assert!(
        text.starts_with("INCOMPLETE gate post run CHG-1042 (post 1): 1 of 1 hosts incomplete\n"),
        "{text}"
    );
    assert!(
        text.contains("ssh://admin@azl-node01: connection refused"),
        "{text}"
    );
    snapshot!("gate_incomplete_post_text", text);
    snapshot!("gate_incomplete_post_markdown", markdown(&report));
}

#[test]
fn a_staged_change_is_labelled_with_the_reboot_in_both_formats() {
    let post = pending_dcbx_disable();
    let report = three_way(
        &post,
        &example("baseline.json"),
        &example("pre-update.json"),
        Vec::new(),
    );
    let report = gate(
        Step::Post,
        vec![host(report, &post, Step::Post)],
        Vec::new(),
    );
    let label = "takes effect at the next reboot — run `gate post` again after it";
    let text = text(&report);
    let staged = text
        .lines()
        .find(|line| line.contains("/pending/") && line.contains("[dcbx-mode]"))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(staged.ends_with(label), "{staged}");
    let md = markdown(&report).replace('\\', "");
    assert!(md.contains(label), "{md}");
}

#[test]
fn a_long_markdown_report_is_summarized_under_the_limit() {
    let mut report = seed_one_post();
    let one = report.hosts[0].clone();
    report.hosts = vec![one; 400];
    let md = markdown(&report);
    assert!(md.len() < super::MARKDOWN_LIMIT, "{}", md.len());
    assert!(md.contains("more hosts not shown"), "hosts left out say so");
    assert!(
        md.ends_with("only a passing post is promoted\n"),
        "the tail is kept"
    );

    report.hosts.truncate(30);
    let md = markdown(&report);
    assert!(md.len() < super::MARKDOWN_LIMIT, "{}", md.len());
    assert!(
        md.contains("findings (summarized"),
        "stories lose their lists first"
    );
    assert!(!md.contains("more hosts not shown"));
}

#[test]
fn a_json_gate_report_validates_against_the_published_schema() {
    let schema: serde_json::Value =
        serde_json::from_str(&crate::schemas::render("gate-report").unwrap()).unwrap();
    let validator = jsonschema::validator_for(&schema).expect("the gate report schema compiles");
    for report in [
        seed_one_post(),
        passing_post_with_promotion(),
        pre_with_drift(),
        allowed_change(),
        incomplete_host(),
    ] {
        let mut out = Vec::new();
        super::json(&report, &mut out).unwrap();
        let json: serde_json::Value = serde_json::from_slice(&out).unwrap();
        let errors: Vec<String> = validator
            .iter_errors(&json)
            .map(|e| e.to_string())
            .collect();
        assert!(errors.is_empty(), "{errors:#?}");
        assert_eq!(json["schema"], "driftgate.gate-report/v1");
    }
    // The schema refuses what is not a gate report.
    assert!(!validator.is_valid(&serde_json::json!({"schema": "driftgate.gate-report/v1"})));
}

#[test]
fn pre_existing_drift_names_the_firmware_changed_before_pre_and_expected_lists_the_updates_only() {
    // Before the update (baseline → pre) the NIC and BIOS firmware changed and DCBX was
    // disabled on port 1; the update (pre → post) moved the NIC firmware on.
    const DCBX: &str = "nic/00:0a:f7:12:34:56/bmc/function/00:0a:f7:12:34:56/dcbx_mode";
    let pre = edited(&example("baseline.json"), "pre.json", |s| {
        set(s, DCBX, "disabled".into());
    });
    let baseline = edited(&example("baseline.json"), "baseline.json", |s| {
        set(s, "firmware/nic.slot.3-1-1/version", "228.0.1.0".into());
        set(s, "firmware/bios.setup.1-1/version", "2.18.0".into());
    });
    let post = edited(&example("post-update.json"), "post.json", |s| {
        set(s, "firmware/bios.setup.1-1/version", "2.19.1".into());
    });
    let report = three_way(&post, &baseline, &pre, Vec::new());
    let gate = gate(
        Step::Post,
        vec![host(report, &post, Step::Post)],
        Vec::new(),
    );
    // Escapes aside: the escaping has tests of its own.
    for out in [text(&gate), markdown(&gate).replace('\\', "")] {
        let at = out
            .find("re-existing drift")
            .expect("a pre-existing section");
        let stories = &out[..at];
        assert!(
            stories.contains("229.0.166.0 → 229.1.123.0 changed"),
            "the update's story names pre → post: {stories}"
        );
        assert!(
            !stories.contains("228.0.1.0") && !stories.contains("2.18.0"),
            "stories name the update's firmware only: {stories}"
        );
        let drift = &out[at..];
        let drift = &drift[..drift.find("xpected: ").expect("an expected section")];
        assert!(
            drift
                .lines()
                .any(|l| l.contains("NIC firmware of this port: ")
                    && l.contains("228.0.1.0\" → \"229.0.166.0")),
            "baseline → pre: {drift}"
        );
        assert!(!drift.contains("229.1.123.0"), "not the update's: {drift}");
        assert!(
            drift.contains("1 other firmware change on this host (between the baseline and pre)"),
            "{drift}"
        );
        assert!(out.contains("xpected: 4 firmware changes"), "{out}");
        let expected = &out[out.find("xpected: 4 firmware changes").unwrap()..];
        assert!(
            !expected.contains("228.0.1.0") && !expected.contains("2.18.0"),
            "pre → post only: {expected}"
        );
    }
}

#[test]
fn two_thousand_hosts_with_long_tails_stay_under_the_limit_worst_first() {
    use driftgate_compare::Verdict;
    let mut report = seed_one_post();
    let blocked = report.hosts[0].clone();
    assert_eq!(blocked.verdict, Verdict::Block);
    let mut passed = blocked.clone();
    passed.verdict = Verdict::Pass;
    passed.stories.clear();
    report.hosts = (0..2_000)
        .map(|i| {
            // Blocked hosts sort last by name: truncation must still keep them.
            let (mut h, name) = if i % 100 == 0 {
                (blocked.clone(), format!("zz-blocked-{i:04}"))
            } else {
                (passed.clone(), format!("aa-passed-{i:04}"))
            };
            h.snapshot_file = format!("<run-dir>/post-1/{name}.json");
            h.host = name.parse().unwrap();
            h
        })
        .collect();
    report.warnings = (0..500)
        .map(|i| format!("warning {i}: {}", "long text ".repeat(100)))
        .collect();
    report.promotion = Some(PromotionOutcome::Promoted(Promotion {
        files: (0..2_000)
            .map(|i| format!("baselines/azure-local/host-{i:04}.json"))
            .collect(),
        commit: Some("0123456789abcdef0123456789abcdef01234567".into()),
        reference: Some("refs/heads/main".into()),
    }));
    let md = markdown(&report);
    assert!(md.len() < super::MARKDOWN_LIMIT, "{}", md.len());
    assert!(
        md.contains(
            "_1900 more hosts not in this table (1900 PASS); the JSON report has every host._"
        ),
        "{}",
        &md[..4000]
    );
    let table: Vec<&str> = md
        .lines()
        .filter(|l| l.starts_with("| zz") || l.starts_with("| aa"))
        .collect();
    assert_eq!(table.len(), 100);
    assert!(
        table[..20].iter().all(|l| l.starts_with("| zz-blocked")),
        "{table:#?}"
    );
    let note = md
        .lines()
        .find(|l| l.contains("more hosts not shown"))
        .expect("the hosts left out are counted");
    let left: usize = note
        .trim_start_matches('_')
        .split(' ')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    let details = md.matches("\n### **").count();
    assert_eq!(details + left, 2_000, "{note}");
    assert_eq!(
        md.matches("- Captured: `<run-dir>/post-1/zz-blocked-")
            .count(),
        details.min(20),
        "blocked hosts keep their details first"
    );
    assert!(md.contains("- _… and 480 more warnings (the JSON report has them all)_"));
    assert!(md.contains("- _… and 1950 more files (the JSON report has them all)_"));
    assert!(md.lines().all(|l| l.len() < 1_000), "warnings are cut");
}

#[test]
fn hostile_capture_values_render_inert() {
    use crate::markdown::inert::{BACKTICKS, HOSTILE, assert_inert};
    let mut report = incomplete_host();
    report.warnings = vec![HOSTILE.into(), BACKTICKS.into()];
    report.hosts[0].notes = vec![HOSTILE.into()];
    report.hosts[0].report.incomplete_sources[0].error = Some(BACKTICKS.into());
    report.hosts[0].fleet = HOSTILE.into();
    report.hosts[0].snapshot_file = BACKTICKS.into();
    let md = markdown(&report);
    assert_inert(&md, &[HOSTILE, BACKTICKS]);
    assert!(md.contains("| azl-node01 | \\[x\\]"), "{md}");
}
