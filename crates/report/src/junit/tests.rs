//! JUnit documents of the shipped examples (insta snapshots), each checked against both JUnit
//! schemas with `xmllint`; escaping of what a capture controls; counts and strictness.

use std::io::Write as _;
use std::path::PathBuf;
use std::process::Command;

use crate::document::{FleetFinding, FleetReport, HostResult};
use crate::document::{GATE_REPORT_SCHEMA_ID, GateReport, HostOutcome, RunSummary, Step};
use crate::format::{Document, Extras, Format};
use crate::testing::{self, renamed};
use crate::view::View;
use driftgate_compare::testing::{edited, example, set, three_way};
use driftgate_compare::{JudgeOptions, Policy, Report, Verdict};
use driftgate_snapshot::{HostName, SourceStatus, VerifiedSnapshot};

fn shipped(file: &str) -> VerifiedSnapshot {
    let path = format!("{}/{file}", concat!(env!("CARGO_MANIFEST_DIR"), "/../.."));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    VerifiedSnapshot::parse(&text, file).unwrap()
}

/// The tool's version would change every snapshot at each release.
fn versionless(mut report: Report) -> Report {
    report.tool = "driftgate <version>".into();
    report
}

fn judge(snapshot: &VerifiedSnapshot, baseline: Option<&VerifiedSnapshot>) -> Report {
    versionless(driftgate_compare::judge(
        snapshot,
        baseline,
        &Policy::builtin(),
        &JudgeOptions::default(),
    ))
}

fn junit<'a>(document: impl Into<Document<'a>>) -> String {
    let mut out = Vec::new();
    crate::render(document, Format::Junit, &Extras::default(), &mut out).unwrap();
    String::from_utf8(out).unwrap()
}

fn xsd(name: &str) -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .join("tests/fixtures/reports/junit")
        .join(name)
}

/// `xmllint --noout --schema XSD -` over `xml`: `Err` with what xmllint said.
fn xmllint(schema: &str, xml: &str) -> Result<(), String> {
    let mut child = Command::new("xmllint")
        .arg("--noout")
        .arg("--schema")
        .arg(xsd(schema))
        .arg("-")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| {
            panic!("xmllint (libxml2-utils) is needed: run `bash scripts/test-deps.sh` ({e})")
        });
    child
        .stdin
        .take()
        .unwrap()
        .write_all(xml.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    if out.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

/// Valid for Jenkins' xunit (`junit-10.xsd`), and below the root for Ant's schema (whose
/// `testsuites` has no attributes, where Jenkins' has `name`, `tests`, …).
fn assert_valid(xml: &str) {
    xmllint("junit-10.xsd", xml).unwrap_or_else(|e| panic!("junit-10.xsd: {e}\n{xml}"));
    let start = xml.find("<testsuites ").expect("a testsuites element");
    let end = start + xml[start..].find('>').expect("its start tag ends");
    let ant = format!("{}<testsuites>{}", &xml[..start], &xml[end + 1..]);
    xmllint("JUnit.xsd", &ant).unwrap_or_else(|e| panic!("JUnit.xsd: {e}\n{ant}"));
}

macro_rules! snapshot {
    ($name:expr, $value:expr) => {
        insta::with_settings!({ snapshot_path => "../snapshots", prepend_module_to_snapshot => false }, {
            insta::assert_snapshot!($name, $value);
        })
    };
}

fn gate_host(report: Report, post: &VerifiedSnapshot, capture_ms: u64) -> HostOutcome {
    testing::gate_host(
        versionless(report),
        post,
        "runs/CHG-1042/post-1/azl-node01.json",
        capture_ms,
    )
}

fn gate_post(hosts: Vec<HostOutcome>) -> GateReport {
    GateReport {
        schema: GATE_REPORT_SCHEMA_ID.into(),
        tool: "driftgate <version>".into(),
        run: RunSummary {
            id: "CHG-1042".into(),
            dir: "runs/CHG-1042".into(),
            step: Step::Post,
            attempt: Some(1),
            started_at: "2026-12-01T12:40:00Z".into(),
            policy_digest: "sha256:<policy>".into(),
        },
        verdict: Verdict::worst_of(hosts.iter().map(|h| h.verdict)),
        strict: false,
        hosts,
        allowances: Vec::new(),
        expired_allowances: Vec::new(),
        warnings: Vec::new(),
        promotion: None,
    }
}

fn fleet_host(name: &str, cluster: Option<&str>, report: Report, ms: u64) -> HostResult {
    let report = versionless(report);
    HostResult {
        host: name.into(),
        fleet: "lab".into(),
        cluster: cluster.map(Into::into),
        verdict: report.verdict,
        counts: report.counts,
        failure: None,
        capture_ms: ms,
        snapshot_file: Some(format!("out/snapshots/{name}.json")),
        last_success_at: Some(report.snapshot.captured_at.clone()),
        report: report.into(),
    }
}

/// Three nodes of cluster `azl` (node01 after the update that reset its DCBX: a cluster
/// finding), node02 with an allowed change, an ESXi host and one that timed out.
fn small_fleet() -> FleetReport {
    let base = shipped("examples/azure-local-dcbx/baseline.json");
    let post = shipped("examples/azure-local-dcbx/post-update.json");
    let (n2, n3) = (
        renamed(&base, "azl-node02", "56:78"),
        renamed(&base, "azl-node03", "9a:bc"),
    );
    let n2_now = edited(&n2, "azl-node02.json", |s| {
        set(s, "bios/SysProfile", "Custom".into());
    });
    let allowed = testing::judge_allowing(
        &n2_now,
        Some(&n2),
        "[[allow]]\npath = \"bios/SysProfile\"\nvalue = \"Custom\"\nreason = \"performance profile for the benchmark week\"\nticket = \"CHG-2001\"\n",
    );
    assert_eq!(allowed.allowed.len(), 1, "{:?}", allowed.findings);
    let azl = Some("azl");
    let n4 = renamed(&base, "azl-node04", "de:f0");
    let unread = edited(&n4, "azl-node04.json", |s| {
        s.facts.clear();
        for source in &mut s.sources {
            source.status = SourceStatus::Failed;
            source.error = Some("the host deadline of 30 s passed".into());
        }
    });
    let mut timed_out = fleet_host("azl-node04", None, judge(&unread, None), 30_000);
    timed_out.verdict = Verdict::Incomplete;
    timed_out.snapshot_file = None;
    timed_out.last_success_at = Some("2026-11-20T02:00:00Z".into());
    timed_out.failure = Some(
        "redfish https://bmc-azl-node04: the host deadline of 30 s passed (GET /redfish/v1/Chassis)".into(),
    );
    let esx = judge(
        &shipped("examples/esxi-mscs-psp/current.json"),
        Some(&shipped("examples/esxi-mscs-psp/baseline.json")),
    );
    let mut hosts = vec![
        fleet_host("azl-node01", azl, judge(&post, Some(&base)), 4_210),
        fleet_host("azl-node02", azl, allowed, 3_950),
        fleet_host("azl-node03", azl, judge(&n3, Some(&n3)), 12_480),
        timed_out,
        fleet_host("esx01", Some("mscs"), esx.clone(), 820),
        fleet_host("esx02", Some("mscs"), esx, 790),
    ];
    let mut findings: Vec<FleetFinding> = testing::fleet_findings("cluster-azl");
    assert!(!findings.is_empty(), "node01 disagrees with its cluster");
    findings.push(FleetFinding {
        rule: "fleet/missing-baseline".into(),
        severity: driftgate_compare::Severity::Warn,
        cluster: None,
        hosts: vec!["azl-node03".into()],
        path: None,
        values: Vec::new(),
        majority: None,
        message: "azl-node03 has no baseline in the store".into(),
    });
    testing::block_by_findings(&mut hosts, &findings);
    FleetReport {
        tool: "driftgate <version>".into(),
        finished_at: "2026-12-01T02:03:10.500Z".into(),
        ..testing::fleet_report("", hosts, findings)
    }
}

#[test]
fn a_passing_check() {
    let report = judge(
        &shipped("examples/benign-firmware-update/post-update.json"),
        Some(&shipped("examples/benign-firmware-update/baseline.json")),
    );
    assert_eq!(report.verdict, Verdict::Pass);
    let xml = junit(Document::Check(&report, &[]));
    assert_valid(&xml);
    assert!(xml.contains(r#"failures="0" errors="0""#), "{xml}");
    snapshot!("junit_check_pass", xml);
}

#[test]
fn a_blocked_post_update_check() {
    let report = judge(
        &shipped("examples/azure-local-dcbx/post-update.json"),
        Some(&shipped("examples/azure-local-dcbx/baseline.json")),
    );
    let xml = junit(Document::Check(&report, &[]));
    assert_valid(&xml);
    // One failure per blocking finding: each is its own test case (rule and path).
    let failures = xml.matches("<failure ").count();
    assert_eq!(failures, report.counts.block, "{xml}");
    assert!(
        xml.contains(&format!(
            r#"<testsuites name="driftgate" tests="{}" failures="{failures}""#,
            xml.matches("<testcase ").count()
        )),
        "{xml}"
    );
    snapshot!("junit_check_block", xml);
}

#[test]
fn an_incomplete_host_is_an_error_naming_the_source() {
    let report = judge(
        &shipped("tests/fixtures/azl-node01-windows-failed.json"),
        None,
    );
    assert_eq!(report.verdict, Verdict::Incomplete);
    let xml = junit(Document::Check(&report, &[]));
    assert_valid(&xml);
    let doc = roxmltree::Document::parse(&xml).unwrap();
    let error = doc
        .descendants()
        .find(|n| n.has_tag_name("error"))
        .expect("an error element");
    assert_eq!(
        error.parent().unwrap().attribute("name"),
        Some("capture"),
        "{xml}"
    );
    assert!(
        error.attribute("message").unwrap().contains("windows"),
        "{xml}"
    );
    // Nothing over a partial capture passes: the invariants are skipped, not passed.
    let passed = doc
        .descendants()
        .filter(|n| n.has_tag_name("testcase") && !n.has_children())
        .count();
    assert_eq!(passed, 0, "{xml}");
    snapshot!("junit_check_incomplete", xml);
}

#[test]
fn a_gate_post_with_a_blocked_and_an_incomplete_host() {
    let (baseline, pre, post) = (
        example("baseline.json"),
        example("pre-update.json"),
        example("post-update.json"),
    );
    let blocked = three_way(&post, &baseline, &pre, Vec::new());
    let node02 = |s: &VerifiedSnapshot, origin: &str| {
        edited(s, origin, |s| s.host = HostName::new("azl-node02").unwrap())
    };
    let failed = edited(&node02(&post, "post.json"), "post.json", |s| {
        s.facts.retain(|path, _| !path.as_str().contains("/os/"));
        s.sources[1].status = SourceStatus::Failed;
        s.sources[1].error = Some("ssh://admin@azl-node02: connection refused".into());
    });
    let incomplete = three_way(
        &failed,
        &node02(&baseline, "baseline.json"),
        &node02(&pre, "pre.json"),
        Vec::new(),
    );
    let gate = gate_post(vec![
        gate_host(blocked, &post, 5_120),
        gate_host(incomplete, &failed, 31_002),
    ]);
    let xml = junit(&gate);
    assert_valid(&xml);
    assert!(
        xml.contains(r#"<property name="verdict" value="BLOCK"/>"#),
        "{xml}"
    );
    assert!(
        xml.contains(r#"<property name="verdict" value="INCOMPLETE"/>"#),
        "{xml}"
    );
    assert!(xml.contains("connection refused"), "{xml}");
    assert!(xml.contains("Origin: changed by the update"), "{xml}");
    snapshot!("junit_gate_post", xml);
}

#[test]
fn a_small_fleet_with_a_cluster_finding_and_an_allowed_change() {
    let fleet = small_fleet();
    let xml = junit(&fleet);
    assert_valid(&xml);
    let doc = roxmltree::Document::parse(&xml).unwrap();
    let suites: Vec<&str> = doc
        .descendants()
        .filter(|n| n.has_tag_name("testsuite"))
        .filter_map(|n| n.attribute("name"))
        .collect();
    assert_eq!(
        suites,
        [
            "azl-node01",
            "azl-node02",
            "azl-node03",
            "azl-node04",
            "esx01",
            "esx02",
            "fleet"
        ]
    );
    // Every host states its verdict, and they add up to the fleet's counts.
    let verdicts: Vec<&str> = doc
        .descendants()
        .filter(|n| n.has_tag_name("property") && n.attribute("name") == Some("verdict"))
        .filter_map(|n| n.attribute("value"))
        .collect();
    let c = fleet.counts;
    for (word, n) in [
        ("PASS", c.pass),
        ("WARN", c.warn),
        ("BLOCK", c.block),
        ("INCOMPLETE", c.incomplete),
    ] {
        assert_eq!(
            verdicts.iter().filter(|v| **v == word).count(),
            n,
            "{word}: {xml}"
        );
    }
    let skipped = doc
        .descendants()
        .find(|n| n.has_tag_name("skipped") && n.attribute("type") == Some("allowed"))
        .expect("the allowed change is skipped");
    assert!(
        skipped
            .attribute("message")
            .unwrap()
            .contains("performance profile for the benchmark week"),
        "{xml}"
    );
    let fleet_suite = doc
        .descendants()
        .find(|n| n.has_tag_name("testsuite") && n.attribute("name") == Some("fleet"))
        .unwrap();
    assert!(
        fleet_suite.descendants().any(|n| n.has_tag_name("failure")
            && n.attribute("type")
                .is_some_and(|t| t.starts_with("cluster/"))),
        "{xml}"
    );
    assert_eq!(fleet_suite.attribute("time"), Some("190.500"), "{xml}");
    // A cluster no finding names agrees: it passes.
    let consistent = fleet_suite
        .descendants()
        .find(|n| n.attribute("name") == Some("cluster-consistency mscs"))
        .expect("the mscs cluster passes");
    assert!(!consistent.has_children(), "{xml}");
    assert!(
        !xml.contains("cluster-consistency azl"),
        "azl disagrees: {xml}"
    );
    snapshot!("junit_fleet_small", xml);
}

#[test]
fn what_a_capture_controls_is_escaped_and_stays_well_formed() {
    let hostile = "a<b & c]]> \"q\" \u{1}\u{1b}[31m end";
    let base = shipped("examples/azure-local-dcbx/baseline.json");
    let now = edited(&base, "hostile.json", |s| {
        set(s, "nic/00:0a:f7:12:34:56/bmc/dcbx_mode", hostile.into());
        s.sources[0].status = SourceStatus::Partial;
        s.sources[0].error = Some(format!("BMC said: {hostile}"));
    });
    let report = judge(&now, Some(&base));
    let xml = junit(Document::Check(&report, &[]));
    assert!(!xml.contains('\u{1}') && !xml.contains('\u{1b}'), "{xml}");
    assert!(!xml.contains("c]]>"), "{xml}");
    let doc = roxmltree::Document::parse(&xml).unwrap_or_else(|e| panic!("{e}\n{xml}"));
    let shown = "a<b & c]]> \"q\" \\u{1}\\u{1b}[31m end";
    let failure = doc
        .descendants()
        .find(|n| n.has_tag_name("failure") && n.attribute("type") == Some("dcbx-mode"))
        .expect("the changed DCBX mode fails");
    // A fact value is written as JSON, which escapes control characters itself.
    let text = failure.text().unwrap();
    assert!(
        text.contains(r#"a<b & c]]> \"q\" \u0001\u001b[31m end"#),
        "{xml}"
    );
    let error = doc.descendants().find(|n| n.has_tag_name("error")).unwrap();
    assert!(error.text().unwrap().contains(shown), "{xml}");
    assert_valid(&xml);
}

#[test]
fn under_strict_a_warning_fails_and_otherwise_it_is_output() {
    let base = shipped("examples/azure-local-dcbx/baseline.json");
    let now = edited(&base, "now.json", |s| {
        set(s, "bios/SysProfile", "Custom".into());
    });
    let mut report = judge(&now, Some(&base));
    assert_eq!(report.verdict, Verdict::Warn);
    let xml = junit(Document::Check(&report, &[]));
    assert!(!xml.contains("<failure"), "{xml}");
    assert!(
        xml.contains("WARN unmatched bios/SysProfile") || xml.contains("WARN "),
        "{xml}"
    );
    report = versionless(driftgate_compare::judge(
        &now,
        Some(&base),
        &Policy::builtin(),
        &JudgeOptions {
            strict: true,
            ..JudgeOptions::default()
        },
    ));
    let xml = junit(Document::Check(&report, &[]));
    assert_eq!(xml.matches("<failure ").count(), 1, "{xml}");
    assert!(xml.contains("made to block by --strict"), "{xml}");
    assert_valid(&xml);
}

#[test]
fn the_schemas_reject_a_broken_document() {
    for (file, schema) in [
        ("missing-tests-attribute.xml", "junit-10.xsd"),
        ("wrong-element.xml", "junit-10.xsd"),
        ("missing-tests-attribute.xml", "JUnit.xsd"),
        ("wrong-element.xml", "JUnit.xsd"),
    ] {
        let text = std::fs::read_to_string(xsd(file)).unwrap();
        assert!(xmllint(schema, &text).is_err(), "{schema} accepted {file}");
    }
}

#[test]
fn timestamps_are_utc_without_a_zone_and_times_are_seconds() {
    let at = |t: &str| Some(t.parse::<jiff::Timestamp>().unwrap());
    assert_eq!(
        super::timestamp(at("2026-12-01T14:30:25+02:00"), "unused"),
        "2026-12-01T12:30:25"
    );
    assert_eq!(
        super::timestamp(at("2026-12-01T12:30:25.999Z"), "unused"),
        "2026-12-01T12:30:25"
    );
    // A time the view could not parse is kept as the document has it.
    assert_eq!(super::timestamp(None, "yesterday"), "yesterday");
    let fleet = small_fleet();
    let view = View::of(Document::Fleet(&fleet));
    let took = super::duration(&view).unwrap();
    assert_eq!(took, super::xml::Seconds::from_ms(190_500));
    assert_eq!(took.text(), "190.500");
    assert_eq!(super::xml::Seconds::from_ms(4_210).text(), "4.210");
    assert_eq!(
        super::xml::Seconds::between(
            at("2026-12-01T02:00:01Z").unwrap(),
            at("2026-12-01T02:00:00Z").unwrap()
        ),
        None,
        "an end before the start is no duration"
    );
}

/// A site policy whose own drift rule and expectation hold over the benign update, with one
/// invariant switched off.
const SITE_POLICY: &str = r#"
[[rule]]
id = "site-bios"
path = "bios/Sys*"
on_change = "block"
why = "The site pins the system profile."

[[rule]]
id = "site-smb-priority"
path = "host/qos/policy/smb_direct/priority"
expect = 3
why = "SMB Direct runs on priority 3."

[invariants]
pfc-not-operational = "ignore"
"#;

#[test]
fn every_rule_that_applied_and_held_is_a_passing_test_case() {
    let policy = Policy::with_file(SITE_POLICY, "site.toml").unwrap();
    let report = versionless(driftgate_compare::judge(
        &shipped("examples/benign-firmware-update/post-update.json"),
        Some(&shipped("examples/benign-firmware-update/baseline.json")),
        &policy,
        &JudgeOptions::default(),
    ));
    assert_eq!(report.verdict, Verdict::Pass);
    let xml = junit(Document::Check(&report, &[]));
    assert_valid(&xml);
    let doc = roxmltree::Document::parse(&xml).unwrap();
    let case = |name: &str| {
        doc.descendants()
            .find(|n| n.has_tag_name("testcase") && n.attribute("name") == Some(name))
    };
    for held in ["site-bios", "site-smb-priority", "dcbx-capability-lost"] {
        let case = case(held).unwrap_or_else(|| panic!("no test case {held}:\n{xml}"));
        assert!(!case.has_children(), "{held} passes:\n{xml}");
    }
    // Set to `ignore`, the invariant did not run: no test case claims it held.
    assert!(case("pfc-not-operational").is_none(), "{xml}");
    // The facts each checked: one BIOS fact matches `bios/Sys*`, one the literal expectation.
    assert!(
        xml.contains("PASS site-bios: drift rule (block) over 1 fact\n"),
        "{xml}"
    );
    assert!(
        xml.contains("PASS site-smb-priority: expectation (block) over 1 fact\n"),
        "{xml}"
    );
    // The same rules over an incomplete capture are not judged.
    let failed = shipped("tests/fixtures/azl-node01-windows-failed.json");
    let report = versionless(driftgate_compare::judge(
        &failed,
        None,
        &policy,
        &JudgeOptions::default(),
    ));
    let xml = junit(Document::Check(&report, &[]));
    assert_valid(&xml);
    assert!(!xml.contains(r#"name="pfc-not-operational""#), "{xml}");
    assert!(
        xml.contains(r#"<testcase name="dcbx-capability-lost""#)
            && xml.contains(r#"type="not-judged""#),
        "{xml}"
    );
}

#[test]
fn a_report_without_its_rules_lists_the_invariants_as_before() {
    let mut report = judge(
        &shipped("examples/benign-firmware-update/post-update.json"),
        Some(&shipped("examples/benign-firmware-update/baseline.json")),
    );
    report.rules.clear();
    let xml = junit(Document::Check(&report, &[]));
    assert_valid(&xml);
    for invariant in driftgate_compare::INVARIANTS {
        assert!(
            xml.contains(&format!(r#"<testcase name="{}""#, invariant.id)),
            "{}:\n{xml}",
            invariant.id
        );
    }
    assert!(!xml.contains(": invariant ("), "{xml}");
}
