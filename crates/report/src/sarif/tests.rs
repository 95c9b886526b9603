//! SARIF logs of the shipped examples (insta snapshots), each validated against the SARIF
//! 2.1.0 schema committed under `tests/fixtures/reports/sarif/`; locations, fingerprints,
//! suppressions and incomplete hosts.

use std::collections::BTreeMap;

use serde_json::Value;

use super::{FINGERPRINT_KEY, INCOMPLETE_RULE, MAX_RESULTS, RESULTS_OMITTED, SCHEMA_URI};
use crate::document::BaselineLines;
use crate::document::{FLEET_REPORT_SCHEMA_ID, FleetFinding, FleetReport, HostCounts, HostResult};
use crate::document::{GATE_REPORT_SCHEMA_ID, GateReport, HostOutcome, RunSummary, Step};
use crate::format::{Document, Extras, Format};
use crate::testing::{self, judge, renamed};
use driftgate_compare::testing::{edited, example, set, three_way};
use driftgate_compare::{Finding, FindingKind, Report, Severity, Verdict};
use driftgate_snapshot::fact_lines;
use driftgate_snapshot::{FactPath, SourceStatus, VerifiedSnapshot};

const COMMIT: &str = "0123456789abcdef0123456789abcdef01234567";
const DCBX_MODE: &str = "nic/00:0a:f7:12:34:56/bmc/function/00:0a:f7:12:34:56/dcbx_mode";

fn schema() -> jsonschema::Validator {
    let path = concat!(
        concat!(env!("CARGO_MANIFEST_DIR"), "/../.."),
        "/tests/fixtures/reports/sarif/sarif-schema-2.1.0.json"
    );
    let schema: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    jsonschema::options()
        .should_validate_formats(true)
        .build(&schema)
        .expect("the SARIF schema compiles")
}

/// Renders `document` as SARIF, checks it against the schema and parses it back.
fn sarif(document: Document<'_>, extras: &Extras) -> (String, Value) {
    let mut out = Vec::new();
    crate::render(document, Format::Sarif, extras, &mut out).unwrap();
    let text = String::from_utf8(out).unwrap();
    let log: Value = serde_json::from_str(&text).unwrap();
    let errors: Vec<String> = schema()
        .iter_errors(&log)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{errors:#?}\n{text}");
    (text, log)
}

/// The lines of `snapshot` as if it were committed at `baselines/<fleet>/<host>.json`.
fn lines_of(fleet: &str, snapshot: &VerifiedSnapshot) -> BaselineLines {
    let s = snapshot.snapshot();
    BaselineLines {
        path: format!("baselines/{fleet}/{}.json", s.host),
        commit: COMMIT.into(),
        lines: fact_lines(&s.to_canonical_json()),
        repository: "/srv/baselines".into(),
    }
}

fn extras(lines: &[(&str, BaselineLines)]) -> Extras {
    Extras {
        baseline_lines: lines
            .iter()
            .map(|(h, l)| ((*h).to_owned(), l.clone()))
            .collect(),
        ..Extras::default()
    }
}

fn results(log: &Value) -> &Vec<Value> {
    log["runs"][0]["results"].as_array().unwrap()
}

fn result<'a>(log: &'a Value, host: &str, rule: &str, path: &str) -> &'a Value {
    results(log)
        .iter()
        .find(|r| {
            r["ruleId"] == rule
                && r["properties"]["host"] == host
                && r["properties"]["path"] == path
        })
        .unwrap_or_else(|| panic!("no {rule} result for {host} {path}"))
}

fn start_line(result: &Value) -> u64 {
    result["locations"][0]["physicalLocation"]["region"]["startLine"]
        .as_u64()
        .unwrap()
}

/// A snapshot with the tool version in place of the crate's, so a new version changes no
/// snapshot.
fn redact_version(text: &str) -> String {
    text.replace(
        &format!("\"{}\"", env!("CARGO_PKG_VERSION")),
        "\"<version>\"",
    )
}

macro_rules! snapshot {
    ($name:expr, $value:expr) => {
        insta::with_settings!({ snapshot_path => "../snapshots", prepend_module_to_snapshot => false }, {
            insta::assert_snapshot!($name, redact_version(&$value));
        })
    };
}

#[test]
fn check_blocked() {
    let baseline = example("baseline.json");
    let report = judge(&example("post-update.json"), Some(&baseline));
    let extras = extras(&[("azl-node01", lines_of("azure-local", &baseline))]);
    let (text, log) = sarif(Document::Check(&report, &[]), &extras);

    let run = &log["runs"][0];
    assert_eq!(run["properties"]["verdict"], "BLOCK");
    assert_eq!(
        run["properties"]["hosts"],
        serde_json::json!([{"host": "azl-node01", "fleet": "", "cluster": "", "verdict": "BLOCK"}])
    );
    assert_eq!(run["properties"]["counts"]["block"], 1);
    assert_eq!(run["invocations"][0]["exitCode"], 1);
    assert_eq!(run["invocations"][0]["executionSuccessful"], true);
    assert_eq!(run["versionControlProvenance"][0]["revisionId"], COMMIT);
    assert_eq!(
        run["originalUriBaseIds"]["%SRCROOT%"]["uri"],
        "file:///srv/baselines/"
    );
    assert_eq!(results(&log).len(), report.findings.len());

    // Every rule a result names is described once, with the finding's why.
    let rules = run["tool"]["driver"]["rules"].as_array().unwrap();
    for r in results(&log) {
        let rule = &rules[usize::try_from(r["ruleIndex"].as_u64().unwrap()).unwrap()];
        assert_eq!(rule["id"], r["ruleId"]);
    }
    let dcbx = result(&log, "azl-node01", "dcbx-mode", DCBX_MODE);
    assert_eq!(dcbx["level"], "error");
    let rule = rules.iter().find(|r| r["id"] == "dcbx-mode").unwrap();
    let why = &report
        .findings
        .iter()
        .find(|f| f.id == "dcbx-mode")
        .unwrap()
        .why;
    assert_eq!(rule["fullDescription"]["text"], why.as_str());
    assert_eq!(rule["defaultConfiguration"]["level"], "error");

    // The fact's key line in the baseline as committed.
    let canonical = baseline.snapshot().to_canonical_json();
    let line = canonical
        .lines()
        .position(|l| l.starts_with(&format!("    \"{DCBX_MODE}\":")))
        .unwrap()
        + 1;
    assert_eq!(start_line(dcbx), u64::try_from(line).unwrap());
    let artifact = &dcbx["locations"][0]["physicalLocation"]["artifactLocation"];
    assert_eq!(artifact["uri"], "baselines/azure-local/azl-node01.json");
    assert_eq!(artifact["uriBaseId"], "%SRCROOT%");
    let message = dcbx["message"]["text"].as_str().unwrap();
    assert!(
        message.starts_with(&format!("azl-node01: {DCBX_MODE}: \"ieee\" → \"disabled\"")),
        "{message}"
    );
    assert!(
        message.contains("NIC firmware of this port: \"229.0.166.0\" → \"229.1.123.0\""),
        "{message}"
    );
    // Info findings are notes.
    let info = results(&log)
        .iter()
        .find(|r| r["properties"]["severity"] == "info")
        .unwrap();
    assert_eq!(info["level"], "note");
    snapshot!("sarif_check_blocked", text);
}

#[test]
fn check_incomplete() {
    let baseline = example("baseline.json");
    let partial = edited(&baseline, "partial.json", |s| {
        s.facts.retain(|path, _| !path.as_str().contains("/os/"));
        s.sources[1].status = SourceStatus::Failed;
        s.sources[1].error = Some("ssh://admin@azl-node01: connection refused".into());
    });
    let report = judge(&partial, Some(&baseline));
    assert_eq!(report.verdict, Verdict::Incomplete);
    let extras = extras(&[("azl-node01", lines_of("azure-local", &baseline))]);
    let (text, log) = sarif(Document::Check(&report, &[]), &extras);
    let run = &log["runs"][0];
    assert_eq!(run["invocations"][0]["executionSuccessful"], false);
    assert_eq!(run["invocations"][0]["exitCode"], 3);
    assert_eq!(run["invocations"][0]["exitCodeDescription"], "INCOMPLETE");
    let incomplete: Vec<&Value> = results(&log)
        .iter()
        .filter(|r| r["ruleId"] == INCOMPLETE_RULE)
        .collect();
    assert_eq!(incomplete.len(), 1, "one error result per incomplete host");
    let r = incomplete[0];
    assert_eq!(r["level"], "error");
    assert_eq!(start_line(r), 1, "at the baseline file's first line");
    assert!(
        r["message"]["text"]
            .as_str()
            .unwrap()
            .contains("connection refused"),
        "{r}"
    );
    assert_eq!(r["properties"]["sources"][0]["name"], "windows");
    assert_eq!(r["properties"]["sources"][0]["status"], "failed");
    // Code scanning closes the alerts of what was not read: the result and its rule say so.
    let says = "code scanning shows their open alerts as fixed";
    assert!(r["message"]["text"].as_str().unwrap().contains(says), "{r}");
    let rule =
        &run["tool"]["driver"]["rules"][usize::try_from(r["ruleIndex"].as_u64().unwrap()).unwrap()];
    assert!(
        rule["help"]["text"].as_str().unwrap().contains(says),
        "{rule}"
    );
    snapshot!("sarif_check_incomplete", text);
}

fn gate_host(report: Report, post: &VerifiedSnapshot) -> HostOutcome {
    testing::gate_host(report, post, "<run-dir>/post-1/azl-node01.json", 4_210)
}

fn gate_post(hosts: Vec<HostOutcome>) -> GateReport {
    GateReport {
        schema: GATE_REPORT_SCHEMA_ID.into(),
        tool: "driftgate test".into(),
        run: RunSummary {
            id: "CHG-1042".into(),
            dir: "<run-dir>".into(),
            step: Step::Post,
            attempt: Some(1),
            started_at: "2026-12-01T12:00:00Z".into(),
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

#[test]
fn gate_post_blocked_by_the_update() {
    let (baseline, pre, post) = (
        example("baseline.json"),
        example("pre-update.json"),
        example("post-update.json"),
    );
    let report = three_way(&post, &baseline, &pre, Vec::new());
    let gate = gate_post(vec![gate_host(report, &post)]);
    let extras = extras(&[("azl-node01", lines_of("azure-local", &baseline))]);
    let (text, log) = sarif(Document::Gate(&gate), &extras);
    let run = &log["runs"][0];
    assert_eq!(run["properties"]["kind"], "gate-post");
    assert_eq!(run["properties"]["run"], "CHG-1042");
    assert_eq!(
        run["invocations"][0]["startTimeUtc"],
        "2026-12-01T12:00:00Z"
    );
    let dcbx = result(&log, "azl-node01", "dcbx-mode", DCBX_MODE);
    assert_eq!(dcbx["properties"]["origin"], "update");
    assert_eq!(dcbx["properties"]["fleet"], "azure-local");
    assert_eq!(dcbx["properties"]["cluster"], "azl-cluster-a");
    snapshot!("sarif_gate_post", text);
}

fn fleet_host(name: &str, report: Report) -> HostResult {
    HostResult {
        host: name.into(),
        fleet: "azure-local".into(),
        cluster: Some("azl".into()),
        verdict: report.verdict,
        counts: report.counts,
        failure: None,
        capture_ms: 1_000,
        snapshot_file: Some(format!("out/snapshots/{name}.json")),
        last_success_at: Some("2026-12-01T02:00:00Z".into()),
        report: report.into(),
    }
}

/// Three nodes of a cluster: node01 after the update that reset its DCBX, node02 with an
/// allowed change of its BIOS profile, node03 clean; their cluster findings.
fn fleet_with_cluster_and_allowed() -> (FleetReport, Extras) {
    let base = example("baseline.json");
    let post = example("post-update.json");
    let n2_base = renamed(&base, "azl-node02", "56:78");
    let n2 = edited(&n2_base, "azl-node02.json", |s| {
        set(s, "bios/SysProfile", "Custom".into());
    });
    let n3 = renamed(&base, "azl-node03", "9a:bc");
    let n2_report = testing::judge_allowing(
        &n2,
        Some(&n2_base),
        "[[allow]]\npath = \"bios/SysProfile\"\nvalue = \"Custom\"\nreason = \"tuned for the \\\"gold\\\" image <b>\"\nticket = \"CHG-7\"\n",
    );
    assert!(!n2_report.allowed.is_empty(), "the change is allowed");
    let findings: Vec<FleetFinding> = testing::fleet_findings("cluster-azl");
    assert!(!findings.is_empty(), "node01 disagrees with the others");
    let mut hosts = vec![
        fleet_host("azl-node01", judge(&post, Some(&base))),
        fleet_host("azl-node02", n2_report),
        fleet_host("azl-node03", judge(&n3, Some(&n3))),
    ];
    testing::block_by_findings(&mut hosts, &findings);
    let report = testing::fleet_report("driftgate test", hosts, findings);
    let extras = extras(&[
        ("azl-node01", lines_of("azure-local", &base)),
        ("azl-node02", lines_of("azure-local", &n2_base)),
        ("azl-node03", lines_of("azure-local", &n3)),
    ]);
    (report, extras)
}

#[test]
fn fleet_with_a_cluster_finding_and_an_allowed_change() {
    let (fleet, extras) = fleet_with_cluster_and_allowed();
    let (text, log) = sarif(Document::Fleet(&fleet), &extras);
    let run = &log["runs"][0];
    assert_eq!(run["properties"]["kind"], "fleet");
    assert_eq!(
        run["properties"]["counts"],
        serde_json::to_value(fleet.counts).unwrap()
    );
    let verdicts: BTreeMap<&str, &str> = run["properties"]["hosts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| (h["host"].as_str().unwrap(), h["verdict"].as_str().unwrap()))
        .collect();
    for h in &fleet.hosts {
        assert_eq!(
            verdicts[h.host.as_str()],
            h.verdict.as_upper(),
            "{}",
            h.host
        );
    }
    assert_eq!(run["invocations"][0]["endTimeUtc"], "2026-12-01T02:03:10Z");

    // The allowed change is a suppressed result with the allowance's reason, escaped as JSON.
    let allowed = result(&log, "azl-node02", "bios-attributes", "bios/SysProfile");
    let suppression = &allowed["suppressions"][0];
    assert_eq!(suppression["kind"], "external");
    assert_eq!(
        suppression["justification"],
        "tuned for the \"gold\" image <b> (CHG-7)"
    );
    assert_eq!(suppression["properties"]["ticket"], "CHG-7");
    assert!(text.contains(r#"tuned for the \"gold\" image <b>"#));
    // GitHub ignores `suppressions`: the allowed change is a note, flagged, never an error.
    assert_eq!(allowed["level"], "note");
    assert_eq!(allowed["properties"]["allowed"], true);
    for r in results(&log)
        .iter()
        .filter(|r| r.get("suppressions").is_some())
    {
        assert_eq!(r["level"], "note", "{r}");
        assert_eq!(r["properties"]["allowed"], true, "{r}");
    }
    let not_allowed = result(&log, "azl-node01", "dcbx-mode", DCBX_MODE);
    assert!(not_allowed["properties"].get("allowed").is_none());

    // A cluster finding is located at its first host's baseline file.
    let cluster = results(&log)
        .iter()
        .find(|r| r["ruleId"].as_str().unwrap().starts_with("cluster/"))
        .unwrap();
    let first = cluster["properties"]["hosts"][0].as_str().unwrap();
    let artifact = &cluster["locations"][0]["physicalLocation"]["artifactLocation"];
    assert_eq!(
        artifact["uri"],
        format!("baselines/azure-local/{first}.json")
    );
    assert_eq!(cluster["properties"]["cluster"], "azl");
    // A port named by its name is found by the rest of its path when only one fact has it;
    // the OS side of two ports has no single fact: the file's first line.
    let by_path = |path: &str| {
        results(&log)
            .iter()
            .find(|r| r["ruleId"] == "cluster/dcbx-mode" && r["properties"]["path"] == path)
            .unwrap_or_else(|| panic!("no cluster finding on {path}"))
    };
    // A function is named across nodes by the BMC's name for it, and keyed in each file by
    // its MAC, which the lines alone cannot tell: the file's first line.
    assert!(
        extras.baseline_lines["azl-node01"]
            .lines
            .contains_key(DCBX_MODE)
    );
    assert_eq!(
        start_line(by_path(
            "nic/NIC.Slot.3-1/bmc/function/NIC.Slot.3-1-1/dcbx_mode"
        )),
        1
    );
    assert_eq!(
        start_line(by_path("nic/SLOT 3 Port 1/os/dcbx_support/current")),
        1
    );
    snapshot!("sarif_fleet_cluster_allowed", text);
}

#[test]
fn fingerprints_are_stable_and_differ_by_host_rule_and_path() {
    let baseline = example("baseline.json");
    let report = judge(&example("post-update.json"), Some(&baseline));
    let with_lines = extras(&[("azl-node01", lines_of("azure-local", &baseline))]);
    let (first, log) = sarif(Document::Check(&report, &[]), &with_lines);
    let (second, _) = sarif(Document::Check(&report, &[]), &with_lines);
    assert_eq!(first, second, "the same run gives the same bytes");
    // Without lines the locations change, the fingerprints do not.
    let (_, without) = sarif(Document::Check(&report, &[]), &Extras::default());
    let prints = |log: &Value| -> Vec<String> {
        results(log)
            .iter()
            .map(|r| {
                r["partialFingerprints"][FINGERPRINT_KEY]
                    .as_str()
                    .unwrap()
                    .to_owned()
            })
            .collect()
    };
    assert_eq!(prints(&log), prints(&without));
    let mut unique = prints(&log);
    unique.sort();
    unique.dedup();
    assert_eq!(
        unique.len(),
        results(&log).len(),
        "no two findings share one"
    );
    assert_ne!(
        super::fingerprint(&["host", "azl-node01", "dcbx-mode", "a"]),
        super::fingerprint(&["host", "azl-node02", "dcbx-mode", "a"])
    );
    assert_ne!(
        super::fingerprint(&["h", "r", "ab"]),
        super::fingerprint(&["h", "ra", "b"]),
        "the parts are separated"
    );
}

#[test]
fn without_baseline_lines_every_result_still_has_a_location() {
    let baseline = example("baseline.json");
    let report = judge(&example("post-update.json"), Some(&baseline));
    let (_, log) = sarif(Document::Check(&report, &[]), &Extras::default());
    assert!(log["runs"][0].get("versionControlProvenance").is_none());
    for r in results(&log) {
        let artifact = &r["locations"][0]["physicalLocation"]["artifactLocation"];
        // The baseline file as given on the command line, at its first line.
        assert_eq!(artifact["uri"], "examples/azure-local-dcbx/baseline.json");
        assert!(artifact.get("uriBaseId").is_none());
        assert_eq!(start_line(r), 1);
    }
    // A fact the baseline lacks points at the file's first line.
    let mut lines = lines_of("azure-local", &baseline);
    lines.lines.remove(DCBX_MODE);
    let (_, log) = sarif(
        Document::Check(&report, &[]),
        &extras(&[("azl-node01", lines)]),
    );
    assert_eq!(
        start_line(result(&log, "azl-node01", "dcbx-mode", DCBX_MODE)),
        1
    );
}

#[test]
fn file_paths_become_uri_references() {
    assert_eq!(
        super::location::path_uri("out dir/a#1?.json").as_deref(),
        Some("out%20dir/a%231%3F.json")
    );
    assert_eq!(
        super::location::path_uri("../a/./b%.json").as_deref(),
        Some("../a/./b%25.json")
    );
    assert_eq!(
        super::location::path_uri("/tmp/x y/b.json").as_deref(),
        Some("file:///tmp/x%20y/b.json")
    );
    assert_eq!(
        super::location::directory_uri("/srv/base lines").as_deref(),
        Some("file:///srv/base%20lines/")
    );
    assert_eq!(super::location::directory_uri(""), None);
    assert_eq!(super::location::directory_uri("relative"), None);
}

#[test]
fn captured_strings_are_escaped_by_the_serializer() {
    let baseline = example("baseline.json");
    let hostile = "</script>\"\n\u{1b}[31m";
    let post = edited(&baseline, "post.json", |s| {
        set(s, "bios/SysProfile", hostile.into());
    });
    let report = judge(&post, Some(&baseline));
    let (text, log) = sarif(Document::Check(&report, &[]), &Extras::default());
    assert!(!text.contains('\u{1b}'), "control characters are escaped");
    let r = result(&log, "azl-node01", "bios-attributes", "bios/SysProfile");
    assert_eq!(r["properties"]["new"], hostile);
}

#[test]
fn the_schema_rejects_what_code_scanning_would() {
    let validator = schema();
    let baseline = example("baseline.json");
    let report = judge(&example("post-update.json"), Some(&baseline));
    let (_, log) = sarif(Document::Check(&report, &[]), &Extras::default());
    assert!(validator.is_valid(&log));
    type Breaking = fn(&mut Value);
    let broken: [(&str, Breaking); 4] = [
        ("a result without a message", |log| {
            log["runs"][0]["results"][0]
                .as_object_mut()
                .unwrap()
                .remove("message");
        }),
        ("an unknown level", |log| {
            log["runs"][0]["results"][0]["level"] = "fatal".into();
        }),
        ("line 0", |log| {
            log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["startLine"] =
                0.into();
        }),
        ("another version", |log| {
            log["version"] = "2.0.0".into();
        }),
    ];
    for (what, breaking) in broken {
        let mut bad = log.clone();
        breaking(&mut bad);
        assert!(!validator.is_valid(&bad), "{what} must be rejected");
    }
}

#[test]
fn stale_missing_and_orphan_findings_and_a_timed_out_host_all_have_a_location() {
    let base = example("baseline.json");
    let n4 = renamed(&base, "azl-node04", "9a:bc");
    let mut timed_out = fleet_host("azl-node04", judge(&n4, Some(&n4)));
    timed_out.verdict = Verdict::Incomplete;
    timed_out.failure =
        Some("redfish https://bmc-azl-node04: the host deadline of 30 s passed".into());
    let newcomer = renamed(&base, "azl-node05", "de:f0");
    let fleet_findings = testing::fleet_findings("stale-azure-local");
    let hosts = vec![timed_out, fleet_host("azl-node05", judge(&newcomer, None))];
    let report = FleetReport {
        schema: FLEET_REPORT_SCHEMA_ID.into(),
        tool: "driftgate test".into(),
        started_at: "2026-12-01T02:00:00Z".into(),
        finished_at: "2026-12-01T02:03:10Z".into(),
        shards: vec!["1/2".into(), "2/2".into()],
        selections: Vec::new(),
        verdict: Verdict::Incomplete,
        strict: false,
        counts: HostCounts {
            total: 2,
            pass: 1,
            incomplete: 1,
            ..HostCounts::default()
        },
        hosts,
        findings: fleet_findings,
        records_trusted: false,
    };
    let lines = extras(&[("azl-node04", lines_of("azure-local", &n4))]);
    let (_, log) = sarif(Document::Fleet(&report), &lines);
    assert_eq!(log["runs"][0]["properties"]["run"], "1/2, 2/2");
    let at_file = |rule: &str| -> (String, u64) {
        let r = results(&log)
            .iter()
            .find(|r| r["ruleId"] == rule)
            .unwrap_or_else(|| panic!("no {rule} result"));
        let artifact = &r["locations"][0]["physicalLocation"]["artifactLocation"];
        (artifact["uri"].as_str().unwrap().to_owned(), start_line(r))
    };
    let node04 = ("baselines/azure-local/azl-node04.json".to_owned(), 1);
    assert_eq!(at_file(INCOMPLETE_RULE), node04);
    assert_eq!(at_file("fleet/stale-baseline"), node04);
    assert_eq!(at_file("fleet/stale-capture"), node04);
    // No baseline yet: where the fleet's layout puts it.
    assert_eq!(
        at_file("fleet/missing-baseline"),
        ("baselines/azure-local/azl-node05.json".to_owned(), 1)
    );
    // An orphan names its own file, encoded.
    assert_eq!(
        at_file("fleet/orphan-baseline"),
        ("baselines/azure-local/old%20node.json".to_owned(), 1)
    );
    let incomplete = results(&log)
        .iter()
        .find(|r| r["ruleId"] == INCOMPLETE_RULE)
        .unwrap();
    assert!(
        incomplete["message"]["text"]
            .as_str()
            .unwrap()
            .contains("deadline of 30 s"),
        "{incomplete}"
    );
}

/// The fingerprint of each result, by rule, host (or first host) and path.
fn fingerprints(log: &Value) -> BTreeMap<(String, String, String), Vec<String>> {
    let mut prints: BTreeMap<(String, String, String), Vec<String>> = BTreeMap::new();
    for r in results(log) {
        let host = r["properties"]["host"]
            .as_str()
            .or_else(|| r["properties"]["hosts"][0].as_str())
            .unwrap_or_default();
        prints
            .entry((
                r["ruleId"].as_str().unwrap().to_owned(),
                host.to_owned(),
                r["properties"]["path"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned(),
            ))
            .or_default()
            .push(
                r["partialFingerprints"][FINGERPRINT_KEY]
                    .as_str()
                    .unwrap()
                    .to_owned(),
            );
    }
    prints
}

#[test]
fn an_allowed_change_keeps_the_fingerprint_it_has_when_not_allowed() {
    let (fleet, extras) = fleet_with_cluster_and_allowed();
    let (_, with) = sarif(Document::Fleet(&fleet), &extras);
    let mut unallowed = fleet.clone();
    let node02 = unallowed
        .hosts
        .iter_mut()
        .find(|h| h.host == "azl-node02")
        .unwrap();
    let node02 = node02.report.to_mut().unwrap();
    let allowed = std::mem::take(&mut node02.allowed);
    node02
        .findings
        .extend(allowed.into_iter().map(|a| a.finding));
    let (_, without) = sarif(Document::Fleet(&unallowed), &extras);
    let key = (
        "bios-attributes".to_owned(),
        "azl-node02".to_owned(),
        "bios/SysProfile".to_owned(),
    );
    assert_eq!(fingerprints(&with)[&key], fingerprints(&without)[&key]);
    let r = result(&without, "azl-node02", "bios-attributes", "bios/SysProfile");
    assert_ne!(r["level"], "note", "not allowed: at its rule's level");
    assert!(r.get("suppressions").is_none());
}

#[test]
fn a_cluster_finding_keeps_its_fingerprint_when_another_node_disagrees() {
    let (fleet, extras) = fleet_with_cluster_and_allowed();
    let (_, before) = sarif(Document::Fleet(&fleet), &extras);
    let mut more = fleet.clone();
    let index = more
        .findings
        .iter()
        .position(|f| f.cluster.is_some())
        .unwrap();
    more.findings[index].hosts.push("azl-node03".into());
    more.findings[index]
        .values
        .push(serde_json::json!("disabled"));
    let (_, after) = sarif(Document::Fleet(&more), &extras);
    assert_eq!(fingerprints(&before), fingerprints(&after));

    // Another cluster with the same disagreement is another alert.
    let mut other = fleet.clone();
    other.findings[index].cluster = Some("azl-b".into());
    let (_, other) = sarif(Document::Fleet(&other), &extras);
    assert_ne!(fingerprints(&before), fingerprints(&other));
}

#[test]
fn two_kinds_of_finding_of_one_rule_and_path_are_two_alerts() {
    let baseline = example("baseline.json");
    let mut report = judge(&example("post-update.json"), Some(&baseline));
    let changed: Finding = report
        .findings
        .iter()
        .find(|f| f.id == "dcbx-mode" && f.path.as_str() == DCBX_MODE)
        .unwrap()
        .clone();
    assert_eq!(changed.kind, FindingKind::Changed);
    report.findings.push(Finding {
        kind: FindingKind::Expectation,
        expected: Some("ieee".into()),
        ..changed.clone()
    });
    let (_, log) = sarif(Document::Check(&report, &[]), &Extras::default());
    let prints = &fingerprints(&log)[&(
        "dcbx-mode".to_owned(),
        "azl-node01".to_owned(),
        DCBX_MODE.to_owned(),
    )];
    assert_eq!(prints.len(), 2);
    assert_ne!(prints[0], prints[1], "a change and an expectation");
    // A removal is the same drift in another form: the same alert as the change.
    let removed = Finding {
        kind: FindingKind::Removed,
        new: None,
        ..changed.clone()
    };
    assert_eq!(
        super::finding_fingerprint("azl-node01", &changed),
        super::finding_fingerprint("azl-node01", &removed)
    );
}

#[test]
fn under_strict_a_warning_is_an_error() {
    let baseline = example("baseline.json");
    let mut report = judge(&example("post-update.json"), Some(&baseline));
    // A rule that warns: the dcbx-mode findings, made warnings.
    for f in report.findings.iter_mut().filter(|f| f.id == "dcbx-mode") {
        f.severity = Severity::Warn;
    }
    let warned: Vec<String> = report
        .findings
        .iter()
        .filter(|f| f.id == "dcbx-mode")
        .map(|f| f.path.to_string())
        .collect();
    assert!(!warned.is_empty(), "the example has a warning");
    let (_, lenient) = sarif(Document::Check(&report, &[]), &Extras::default());
    report.strict = true;
    let (_, strict) = sarif(Document::Check(&report, &[]), &Extras::default());
    for path in &warned {
        let level = |log: &Value| {
            results(log)
                .iter()
                .find(|r| r["ruleId"] == "dcbx-mode" && r["properties"]["path"] == path.as_str())
                .unwrap()["level"]
                .clone()
        };
        assert_eq!(level(&lenient), "warning", "{path}");
        assert_eq!(level(&strict), "error", "{path}");
    }
    // Info stays a note.
    assert!(
        results(&strict)
            .iter()
            .filter(|r| r["properties"]["severity"] == "info")
            .all(|r| r["level"] == "note")
    );
}

#[test]
fn a_rule_without_a_why_describes_itself_in_full_by_its_short_description() {
    let baseline = example("baseline.json");
    let mut report = judge(&example("post-update.json"), Some(&baseline));
    for f in report.findings.iter_mut().filter(|f| f.id == "dcbx-mode") {
        f.why = " ".into();
    }
    let (_, log) = sarif(Document::Check(&report, &[]), &Extras::default());
    let rules = log["runs"][0]["tool"]["driver"]["rules"]
        .as_array()
        .unwrap();
    let rule = rules.iter().find(|r| r["id"] == "dcbx-mode").unwrap();
    assert!(
        !rule["shortDescription"]["text"]
            .as_str()
            .unwrap()
            .is_empty()
    );
    assert_eq!(rule["fullDescription"], rule["shortDescription"]);
    // A rule with a why keeps it.
    let other = rules.iter().find(|r| r["id"] != "dcbx-mode").unwrap();
    assert_ne!(other["fullDescription"], other["shortDescription"]);
}

#[test]
fn the_log_names_the_schema_the_tests_validate_against() {
    let baseline = example("baseline.json");
    let report = judge(&example("post-update.json"), Some(&baseline));
    let (_, log) = sarif(Document::Check(&report, &[]), &Extras::default());
    assert_eq!(log["$schema"], SCHEMA_URI);
    let readme = std::fs::read_to_string(concat!(
        concat!(env!("CARGO_MANIFEST_DIR"), "/../.."),
        "/tests/fixtures/reports/sarif/README.md"
    ))
    .unwrap();
    assert!(
        readme.contains(SCHEMA_URI),
        "the fixtures README says the committed schema is the one at {SCHEMA_URI}"
    );
    assert!(
        SCHEMA_URI.contains("/cs01/"),
        "the committed schema is the Committee Specification 01's"
    );
}

/// `n` findings of `rule` on `host`'s facts `bios/<prefix>NNNNN`, from `template`.
fn many(
    template: &Finding,
    rule: &str,
    severity: Severity,
    prefix: &str,
    n: usize,
) -> Vec<Finding> {
    (0..n)
        .map(|i| Finding {
            id: rule.to_owned(),
            severity,
            path: FactPath::new(format!("bios/{prefix}{i:05}")).unwrap(),
            ..template.clone()
        })
        .collect()
}

#[test]
fn a_run_keeps_the_most_severe_results_code_scanning_accepts() {
    let base = example("baseline.json");
    let post = example("post-update.json");
    let mut judged_a = judge(&post, Some(&base));
    let template = judged_a.findings[0].clone();
    judged_a.findings = many(&template, "w-rule", Severity::Warn, "W", 20_000);
    judged_a
        .findings
        .extend(many(&template, "i-rule", Severity::Info, "I", 10));
    let node_a = fleet_host("azl-a", judged_a);
    let mut judged_z = judge(&post, Some(&base));
    judged_z.findings = many(&template, "b-rule", Severity::Block, "B", 10_000);
    let mut node_z = fleet_host("azl-z", judged_z);
    node_z.verdict = Verdict::Block;
    let total = 30_010;
    assert!(total > MAX_RESULTS);
    let fleet = FleetReport {
        schema: FLEET_REPORT_SCHEMA_ID.into(),
        tool: "driftgate test".into(),
        started_at: "2026-12-01T02:00:00Z".into(),
        finished_at: "2026-12-01T02:03:10Z".into(),
        shards: Vec::new(),
        selections: Vec::new(),
        verdict: Verdict::Block,
        strict: false,
        counts: HostCounts {
            total: 2,
            warn: 1,
            block: 1,
            ..HostCounts::default()
        },
        hosts: vec![node_a, node_z],
        findings: Vec::new(),
        records_trusted: false,
    };
    let (_, log) = sarif(Document::Fleet(&fleet), &Extras::default());
    let run = &log["runs"][0];
    let kept = results(&log);
    assert_eq!(kept.len(), MAX_RESULTS);
    let omitted = total - MAX_RESULTS;
    assert_eq!(run["properties"]["results_omitted"], omitted);
    let notes = run["invocations"][0]["toolExecutionNotifications"]
        .as_array()
        .expect("a notification says results were left out");
    assert_eq!(notes.len(), 1);
    assert_eq!(notes[0]["descriptor"]["id"], RESULTS_OMITTED);
    assert_eq!(notes[0]["level"], "warning");
    assert!(
        notes[0]["message"]["text"]
            .as_str()
            .unwrap()
            .starts_with(&format!("{omitted} results left out")),
        "{}",
        notes[0]
    );

    // Every error, then the warnings first by host, rule and path; no note.
    let count = |level: &str| kept.iter().filter(|r| r["level"] == level).count();
    assert_eq!(count("error"), 10_000);
    assert_eq!(count("warning"), MAX_RESULTS - 10_000);
    assert_eq!(count("note"), 0);
    let paths: Vec<&str> = kept
        .iter()
        .filter(|r| r["level"] == "warning")
        .map(|r| r["properties"]["path"].as_str().unwrap())
        .collect();
    assert_eq!(paths.first(), Some(&"bios/W00000"));
    assert_eq!(paths.last(), Some(&"bios/W14999"));
    // Still in the order of host, rule and path; only the rules of kept results.
    assert_eq!(kept[0]["properties"]["host"], "azl-a");
    assert_eq!(kept[MAX_RESULTS - 1]["properties"]["host"], "azl-z");
    let rules: Vec<&str> = run["tool"]["driver"]["rules"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    assert_eq!(rules, ["b-rule", "w-rule"]);

    // Under the limit: nothing left out, no notification.
    let (_, small) = sarif(
        Document::Check(&fleet.hosts[1].report.get().unwrap(), &[]),
        &Extras::default(),
    );
    assert_eq!(small["runs"][0]["properties"]["results_omitted"], 0);
    assert!(
        small["runs"][0]["invocations"][0]
            .get("toolExecutionNotifications")
            .is_none()
    );
}
