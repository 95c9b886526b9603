//! The HTML page of the shipped examples (a check, a gate post, a small fleet with
//! timelines) as insta snapshots, with the inline CSS and script left out (they are the
//! same on every page); its conventions, its escaping and its size at 10,000 hosts.

use crate::document::{FleetFinding, FleetReport, HostResult};
use crate::document::{GATE_REPORT_SCHEMA_ID, GateReport, RunSummary, Step};
use crate::document::{SettingChange, TimelineEntry};
use crate::format::{Extras, Format};
use crate::render;
use crate::testing;
use driftgate_compare::testing::{edited, example, three_way};
use driftgate_compare::{JudgeOptions, Policy, Report, Severity, Verdict};
use driftgate_snapshot::{FactPath, HostName, VerifiedSnapshot};

const PSP: &str = "storage/nmp/naa.60050768028081713c0000000000007d/psp";

fn page(document: crate::format::Document<'_>, extras: &Extras) -> String {
    let mut out = Vec::new();
    render(document, Format::Html, extras, &mut out).unwrap();
    String::from_utf8(out).unwrap()
}

/// The page without its CSS, script and their hashes, which every page shares.
fn body(page: &str) -> String {
    let cut = |text: &str, open: &str, close: &str| {
        let start = text.find(open).expect(open) + open.len();
        let end = start + text[start..].find(close).expect(close);
        format!("{}…{}", &text[..start], &text[end..])
    };
    let page = cut(page, "<style>", "</style>");
    let page = cut(&page, "<script>", "</script>");
    let page = cut(&page, "Content-Security-Policy\" content=\"", "\">");
    // One tag a line, so a snapshot's diff is readable.
    page.replace("><", ">\n<")
}

macro_rules! snapshot {
    ($name:expr, $value:expr) => {
        insta::with_settings!({ snapshot_path => "../snapshots", prepend_module_to_snapshot => false }, {
            insta::assert_snapshot!($name, $value);
        })
    };
}

fn check() -> Report {
    let mut report = driftgate_compare::judge(
        &example("post-update.json"),
        Some(&example("baseline.json")),
        &Policy::builtin(),
        &JudgeOptions::default(),
    );
    report.tool = "<tool>".into();
    report
}

fn gate_post() -> GateReport {
    let post = example("post-update.json");
    let mut report = three_way(
        &post,
        &example("baseline.json"),
        &example("pre-update.json"),
        Vec::new(),
    );
    report.tool = "<tool>".into();
    let host = testing::gate_host(report, &post, "<run-dir>/post-1/azl-node01.json", 4_210);
    GateReport {
        schema: GATE_REPORT_SCHEMA_ID.into(),
        tool: "<tool>".into(),
        run: RunSummary {
            id: "CHG-1042".into(),
            dir: "<run-dir>".into(),
            step: Step::Post,
            attempt: Some(1),
            started_at: "2026-12-01T02:00:00Z".into(),
            policy_digest: "sha256:<policy>".into(),
        },
        verdict: host.verdict,
        strict: false,
        hosts: vec![host],
        allowances: Vec::new(),
        expired_allowances: Vec::new(),
        warnings: Vec::new(),
        promotion: None,
    }
}

fn esxi(file: &str) -> VerifiedSnapshot {
    let path = format!(
        "{}/examples/esxi-mscs-psp/{file}",
        concat!(env!("CARGO_MANIFEST_DIR"), "/../..")
    );
    let text = std::fs::read_to_string(&path).unwrap();
    VerifiedSnapshot::parse(&text, &format!("examples/esxi-mscs-psp/{file}")).unwrap()
}

fn renamed(from: &VerifiedSnapshot, host: &str) -> VerifiedSnapshot {
    edited(from, &format!("{host}.json"), |s| {
        s.host = HostName::new(host).unwrap();
    })
}

fn result(report: Report, cluster: Option<&str>, ms: u64) -> HostResult {
    let mut report = report;
    report.tool = "<tool>".into();
    HostResult {
        host: report.snapshot.host.to_string(),
        fleet: "lab".into(),
        cluster: cluster.map(Into::into),
        verdict: report.verdict,
        counts: report.counts,
        failure: None,
        capture_ms: ms,
        snapshot_file: None,
        last_success_at: (report.verdict != Verdict::Incomplete)
            .then(|| "2026-12-01T02:00:04Z".to_owned()),
        report: report.into(),
    }
}

fn fleet(hosts: Vec<HostResult>, findings: Vec<FleetFinding>) -> FleetReport {
    testing::fleet_report("<tool>", hosts, findings)
}

/// azl-node01 after the update that reset its DCBX, azl-node02 unchanged, esx01 with its
/// MSCS disk on Round Robin, azl-node04 timed out; a cluster finding.
fn small_fleet() -> FleetReport {
    let judge = |s: &VerifiedSnapshot, b: &VerifiedSnapshot| {
        driftgate_compare::judge(s, Some(b), &Policy::builtin(), &JudgeOptions::default())
    };
    let base = example("baseline.json");
    let n2 = renamed(&base, "azl-node02");
    let n4 = renamed(&base, "azl-node04");
    let mut timed_out = result(judge(&n4, &n4), Some("azl"), 30_000);
    timed_out.verdict = Verdict::Incomplete;
    timed_out.last_success_at = Some("2026-11-28T02:00:03Z".into());
    timed_out.failure = Some(
        "redfish https://bmc-azl-node04: the host deadline of 30 s passed (GET /redfish/v1/Chassis)"
            .into(),
    );
    let hosts = vec![
        result(
            judge(&example("post-update.json"), &base),
            Some("azl"),
            4_210,
        ),
        result(judge(&n2, &n2), Some("azl"), 3_950),
        timed_out,
        result(
            judge(&esxi("current.json"), &esxi("baseline.json")),
            Some("mscs"),
            820,
        ),
    ];
    let finding = FleetFinding {
        rule: "cluster/dcbx-mode".into(),
        severity: Severity::Block,
        cluster: Some("azl".into()),
        hosts: vec!["azl-node01".into()],
        path: Some("nic/*/bmc/function/*/dcbx_mode".into()),
        values: vec![serde_json::json!("disabled")],
        majority: None,
        message: "azl-node01 has dcbx_mode \"disabled\" where azl-node02 has \"ieee\"".into(),
    };
    fleet(hosts, vec![finding])
}

fn at(time: &str) -> jiff::Timestamp {
    time.parse().unwrap()
}

/// esx01's baseline: created, then its disk's PSP promoted to Round Robin by gate run
/// CHG-0999 with its HBA firmware, then a corrupt edit.
fn timelines() -> Extras {
    let change = |path: &str, severity, old: &str, new: &str| SettingChange {
        path: FactPath::new(path).unwrap(),
        severity,
        old: Some(old.into()),
        new: Some(new.into()),
    };
    let entry = |commit: &str, time: &str, summary: &str| TimelineEntry {
        commit: commit.into(),
        time: at(time),
        author: "Test Operator".into(),
        summary: summary.into(),
        run: None,
        first: false,
        removed: false,
        unreadable: None,
        changes: Vec::new(),
        firmware: Vec::new(),
    };
    let esx01 = vec![
        TimelineEntry {
            unreadable: Some("this version unreadable: not JSON at line 1".into()),
            ..entry("c0ffee3", "2026-11-20T09:00:00Z", "hand edit")
        },
        TimelineEntry {
            run: Some("CHG-0999".into()),
            changes: vec![change(PSP, Severity::Block, "VMW_PSP_MRU", "VMW_PSP_RR")],
            firmware: vec![change(
                "firmware/hba.slot.2/version",
                Severity::Info,
                "8.08.03",
                "8.08.17",
            )],
            ..entry(
                "b0a7d12",
                "2026-10-02T14:31:00Z",
                "baseline: promote esx01 (lab)",
            )
        },
        TimelineEntry {
            first: true,
            ..entry(
                "a11ce01",
                "2026-09-01T08:00:00Z",
                "baseline: promote esx01 (lab)",
            )
        },
    ];
    let mut extras = Extras::default();
    extras.timelines.insert("esx01".into(), esx01);
    extras
}

#[test]
fn html_of_a_check() {
    let report = check();
    // A check's findings by port are its stories, as a gate's.
    let stories =
        driftgate_compare::stories(&report, &example("post-update.json").snapshot().facts);
    let html = page(
        crate::Document::Check(&report, &stories),
        &Extras::default(),
    );
    assert!(html.contains("<p class=\"story\">NIC.Slot.3 229.0.166.0 → 229.1.123.0 changed"));
    snapshot!("html_check", body(&html));
}

#[test]
fn html_of_a_gate_post() {
    let gate = gate_post();
    snapshot!(
        "html_gate_post",
        body(&page((&gate).into(), &Extras::default()))
    );
}

#[test]
fn html_of_a_small_fleet_with_timelines() {
    let fleet = small_fleet();
    let html = page((&fleet).into(), &timelines());
    for (host, verdict) in [
        ("azl-node01", "BLOCK"),
        ("azl-node02", "PASS"),
        ("azl-node04", "INCOMPLETE"),
        ("esx01", "BLOCK"),
    ] {
        let row = format!("<tr data-host=\"{host}\" data-verdict=\"{verdict}\">");
        assert!(html.contains(&row), "{row}");
    }
    for (verdict, n) in [("BLOCK", 2), ("INCOMPLETE", 1), ("WARN", 0), ("PASS", 1)] {
        let count = format!("data-count=\"{verdict}\">{n}<");
        assert!(html.contains(&count), "{count}");
    }
    assert!(html.contains("gate run CHG-0999"));
    assert!(
        html.contains("&quot;VMW_PSP_MRU&quot; → &quot;VMW_PSP_RR&quot;")
            || html.contains("VMW_PSP_MRU → VMW_PSP_RR")
    );
    snapshot!("html_fleet", body(&html));
}

#[test]
fn allowed_changes_are_listed_under_the_allowance_that_matched_them() {
    let report = testing::judge_allowing(
        &example("post-update.json"),
        Some(&example("baseline.json")),
        r#"[[allow]]
path = "nic/*/bmc/function/*/dcbx_mode"
value = "disabled"
reason = "storage moved to the switched fabric"
ticket = "CHG-1042"
"#,
    );
    assert!(!report.allowed.is_empty());
    let html = page(crate::Document::Check(&report, &[]), &Extras::default());
    let title = format!("<h3>Allowed ({})</h3>", report.allowed.len());
    let allowed = &html[html.find(&title).unwrap_or_else(|| panic!("{title}"))..];
    let by = "<p class=\"allowance\">allowed by nic/*/bmc/function/*/dcbx_mode=&quot;disabled&quot; (given at allow.toml:2): reason &quot;storage moved to the switched fabric&quot;, ticket CHG-1042</p>";
    assert!(allowed[title.len()..].starts_with(by), "{allowed}");
    assert_eq!(html.matches(by).count(), 1, "one list per allowance");
    assert!(allowed.contains("[dcbx-mode]"), "{allowed}");
}

#[test]
fn the_script_and_the_style_are_allowed_by_their_hashes_and_nothing_else() {
    use base64::Engine as _;
    use sha2::Digest as _;
    let html = page(crate::Document::Check(&check(), &[]), &Extras::default());
    let inner = |open: &str, close: &str| {
        let start = html.find(open).unwrap() + open.len();
        let end = start + html[start..].find(close).unwrap();
        html[start..end].to_owned()
    };
    let hash = |text: &str| {
        base64::engine::general_purpose::STANDARD.encode(sha2::Sha256::digest(text.as_bytes()))
    };
    let csp = inner("Content-Security-Policy\" content=\"", "\"");
    assert!(csp.starts_with("default-src 'none'; "), "{csp}");
    let script = inner("<script>", "</script>");
    let style = inner("<style>", "</style>");
    assert!(
        csp.contains(&format!("script-src 'sha256-{}'", hash(&script))),
        "{csp}"
    );
    assert!(
        csp.contains(&format!("style-src 'sha256-{}'", hash(&style))),
        "{csp}"
    );
    // Self-contained: nothing is fetched.
    for outside in [
        "src=\"http",
        "href=\"http",
        "@import",
        "url(",
        "<link rel=\"stylesheet",
    ] {
        assert!(!html.contains(outside), "{outside}");
    }
    assert_eq!(html.matches("<script").count(), 1);
    assert_eq!(
        html,
        page(crate::Document::Check(&check(), &[]), &Extras::default()),
        "no clock"
    );
}

#[test]
fn capture_values_are_escaped_everywhere() {
    const EVIL: &str = "<script>window.__pwned=1</script><img src=x onerror=\"window.__pwned=2\">";
    let baseline = example("baseline.json");
    let post = edited(&example("post-update.json"), "post.json", |s| {
        s.facts
            .insert(FactPath::new("bios/AssetTag").unwrap(), EVIL.into());
        s.sources[0].target = EVIL.into();
    });
    let mut report = driftgate_compare::judge(
        &post,
        Some(&baseline),
        &Policy::builtin(),
        &JudgeOptions::default(),
    );
    report.snapshot.origin = EVIL.into();
    let mut result = result(report, Some(EVIL), 1);
    result.failure = Some(EVIL.into());
    result.fleet = EVIL.into();
    let fleet = fleet(vec![result], Vec::new());
    let mut extras = Extras::default();
    extras.timelines.insert(
        "azl-node01".into(),
        vec![TimelineEntry {
            commit: "abc1234".into(),
            time: at("2026-11-01T00:00:00Z"),
            author: EVIL.into(),
            summary: EVIL.into(),
            run: Some(EVIL.into()),
            first: false,
            removed: false,
            unreadable: Some(EVIL.into()),
            changes: vec![SettingChange {
                path: FactPath::new("bios/AssetTag").unwrap(),
                severity: Severity::Warn,
                old: None,
                new: Some(EVIL.into()),
            }],
            firmware: Vec::new(),
        }],
    );
    let html = page((&fleet).into(), &extras);
    assert_eq!(
        html.matches("<script").count(),
        1,
        "only the page's own script"
    );
    assert!(!html.contains("<img"));
    assert!(html.contains("&lt;script&gt;window.__pwned=1&lt;/script&gt;"));
    assert!(html.matches("&lt;img src=x onerror=").count() >= 6);
}

#[test]
fn ten_thousand_hosts_make_a_page_of_under_sixteen_megabytes() {
    let base = example("baseline.json");
    let post = example("post-update.json");
    let pass = driftgate_compare::judge(
        &base,
        Some(&base),
        &Policy::builtin(),
        &JudgeOptions::default(),
    );
    let block = driftgate_compare::judge(
        &post,
        Some(&base),
        &Policy::builtin(),
        &JudgeOptions::default(),
    );
    let hosts: Vec<HostResult> = (0..10_000)
        .map(|i| {
            // One host in ten blocked (with its findings), the rest passing.
            let mut report = if i % 10 == 0 {
                block.clone()
            } else {
                pass.clone()
            };
            report.snapshot.host = format!("node{i:05}");
            result(report, Some(&format!("c{:03}", i / 16)), 3_000 + i)
        })
        .collect();
    let fleet = fleet(hosts, Vec::new());
    let html = page((&fleet).into(), &Extras::default());
    assert_eq!(html.matches("<tr data-host=").count(), 10_000);
    assert!(html.contains("data-count=\"BLOCK\">1000<"));
    // Measured: 13.5 MB, of it 4.3 MB the table and 9 KB per blocked host's section (28
    // findings of the DCBX incident each). Headless Chromium opened it from a file in 3.5 s on
    // a loaded 2-core machine (12 s before sections off screen skipped layout), filtered it
    // in 22 ms and sorted it in 0.4 s.
    assert!(html.len() < 16_000_000, "{} bytes", html.len());
}

#[test]
fn problems_come_first_and_each_host_is_anchored_by_its_name() {
    let html = page((&small_fleet()).into(), &Extras::default());
    let order = |open: &str| -> Vec<String> {
        html.split(open)
            .skip(1)
            .map(|rest| rest[..rest.find('"').unwrap()].to_owned())
            .collect()
    };
    // Blocked, incomplete, then passing hosts, each by name; sections in the same order.
    let rows = ["azl-node01", "esx01", "azl-node04", "azl-node02"];
    assert_eq!(order("<tr data-host=\""), rows);
    let ids = ["host-azl-node01", "host-esx01", "host-azl-node04"];
    assert_eq!(order("<section class=\"host\" id=\""), ids);
    // Every link of the table goes to a section of the page.
    for id in order("<a href=\"#") {
        assert!(ids.contains(&id.as_str()), "{id}");
    }
    assert!(html.contains(
        "<td class=\"reason\" title=\"dcbx-mode on nic/00:0a:f7:12:34:56\">dcbx-mode on nic/00:0a:f7:12:34:56</td>"
    ));
    // A long reason is cut, whole in the title.
    let reason = "redfish https://bmc-azl-node04: the host deadline of 30 s passed (GET /redfish/v1/Chassis)";
    assert!(html.contains(&format!(
        "title=\"{reason}\">redfish https://bmc-azl-node04: the host deadline of 30 s passed (GET /redfish/v…</td>"
    )));
}

#[test]
fn anchors_are_valid_and_unique_whatever_a_document_names_its_hosts() {
    let hosts = [
        "Node1", "node1", "node1", "a b", "a~20b", "é\"<", "node1", "sim-0003",
    ];
    let ids = super::model::anchors(hosts.into_iter());
    assert_eq!(
        ids,
        [
            "host-Node1",
            "host-node1",
            "host-node1~~2",
            "host-a~20b",
            "host-a~7E20b",
            "host-~C3~A9~22~3C",
            "host-node1~~3",
            "host-sim-0003",
        ]
    );
    let distinct: std::collections::HashSet<&String> = ids.iter().collect();
    assert_eq!(distinct.len(), ids.len());
    assert!(ids.iter().all(|id| !id.contains(char::is_whitespace)));
}
