//! SARIF logs of the shipped examples (insta snapshots), each validated against the SARIF
//! 2.1.0 schema committed under `tests/fixtures/reports/sarif/`; locations, fingerprints,
//! suppressions and incomplete hosts.

use std::collections::BTreeMap;

use serde_json::Value;

use super::{FINGERPRINT_KEY, INCOMPLETE_RULE};
use crate::baseline::{BaselineLines, fact_lines};
use crate::compare::testing::{edited, example, set, three_way};
use crate::compare::{self, JudgeOptions, Policy, Report, Severity, Verdict};
use crate::fleet::cluster::{ClusterFacts, consistency};
use crate::fleet::{FLEET_REPORT_SCHEMA_ID, FleetFinding, FleetReport, HostCounts, HostResult};
use crate::gate::{GATE_REPORT_SCHEMA_ID, GateReport, HostOutcome, RunSummary, Step};
use crate::report::{self, Document, Extras, Format};
use crate::snapshot::{FactPath, FactValue, HostName, Snapshot, SourceStatus, VerifiedSnapshot};

const COMMIT: &str = "0123456789abcdef0123456789abcdef01234567";
const DCBX_MODE: &str = "nic/00:0a:f7:12:34:56/bmc/function/NIC.Slot.3-1-1/dcbx_mode";

fn schema() -> jsonschema::Validator {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
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
    report::render(document, Format::Sarif, extras, &mut out).unwrap();
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

fn judge(snapshot: &VerifiedSnapshot, baseline: Option<&VerifiedSnapshot>) -> Report {
    compare::judge(
        snapshot,
        baseline,
        &Policy::builtin(),
        &JudgeOptions::default(),
    )
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
    let (text, log) = sarif(Document::Check(&report), &extras);

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
    let (text, log) = sarif(Document::Check(&report), &extras);
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
    snapshot!("sarif_check_incomplete", text);
}

fn gate_host(report: Report, post: &VerifiedSnapshot) -> HostOutcome {
    HostOutcome {
        host: report.snapshot.host.clone(),
        fleet: "azure-local".into(),
        cluster: Some("azl-cluster-a".into()),
        verdict: report.verdict,
        stories: compare::stories(&report, &post.snapshot().facts),
        report,
        snapshot_file: "<run-dir>/post-1/azl-node01.json".into(),
        capture_ms: 4_210,
        notes: Vec::new(),
    }
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

fn renamed(from: &VerifiedSnapshot, host: &str, mac: &str) -> VerifiedSnapshot {
    let mut snapshot: Snapshot = from.snapshot().clone();
    snapshot.host = HostName::new(host).unwrap();
    let swap = |text: &str| text.replace("00:0a:f7:12:34:", &format!("00:0a:f7:{mac}:"));
    snapshot.facts = snapshot
        .facts
        .iter()
        .map(|(p, v)| {
            let v = v
                .as_text()
                .map_or_else(|| v.clone(), |t| FactValue::from(swap(t)));
            (FactPath::new(swap(p.as_str())).unwrap(), v)
        })
        .collect();
    VerifiedSnapshot::parse(&snapshot.to_canonical_json(), &format!("{host}.json")).unwrap()
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
        report,
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
    let allow = compare::allow::parse_allow_file(
        "[[allow]]\npath = \"bios/SysProfile\"\nvalue = \"Custom\"\nreason = \"tuned for the \\\"gold\\\" image <b>\"\nticket = \"CHG-7\"\n",
        "allow.toml",
    )
    .unwrap();
    let n2_report = compare::judge(
        &n2,
        Some(&n2_base),
        &Policy::builtin(),
        &JudgeOptions {
            allowances: allow,
            ..JudgeOptions::default()
        },
    );
    assert!(!n2_report.allowed.is_empty(), "the change is allowed");
    let facts: Vec<(&str, ClusterFacts)> = [
        ("azl-node01", &post),
        ("azl-node02", &n2),
        ("azl-node03", &n3),
    ]
    .into_iter()
    .map(|(h, s)| (h, ClusterFacts::extract(s.snapshot())))
    .collect();
    let members: Vec<(&str, &ClusterFacts)> = facts.iter().map(|(h, f)| (*h, f)).collect();
    let findings: Vec<FleetFinding> = consistency("azl", &members);
    assert!(!findings.is_empty(), "node01 disagrees with the others");
    let mut hosts = vec![
        fleet_host("azl-node01", judge(&post, Some(&base))),
        fleet_host("azl-node02", n2_report),
        fleet_host("azl-node03", judge(&n3, Some(&n3))),
    ];
    for h in &mut hosts {
        for f in findings.iter().filter(|f| f.hosts.contains(&h.host)) {
            if f.severity == Severity::Block {
                h.verdict = h.verdict.worst(Verdict::Block);
            }
        }
    }
    let mut counts = HostCounts {
        total: hosts.len(),
        ..HostCounts::default()
    };
    for h in &hosts {
        match h.verdict {
            Verdict::Pass => counts.pass += 1,
            Verdict::Warn => counts.warn += 1,
            Verdict::Block => counts.block += 1,
            Verdict::Incomplete => counts.incomplete += 1,
        }
    }
    let report = FleetReport {
        schema: FLEET_REPORT_SCHEMA_ID.into(),
        tool: "driftgate test".into(),
        started_at: "2026-12-01T02:00:00Z".into(),
        finished_at: "2026-12-01T02:03:10Z".into(),
        shards: Vec::new(),
        selections: Vec::new(),
        verdict: Verdict::worst_of(hosts.iter().map(|h| h.verdict)),
        strict: false,
        counts,
        hosts,
        findings,
    };
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
    let node01 = &extras.baseline_lines["azl-node01"];
    assert_eq!(
        start_line(by_path(
            "nic/NIC.Slot.3-1/bmc/function/NIC.Slot.3-1-1/dcbx_mode"
        )),
        u64::from(node01.lines[DCBX_MODE])
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
    let (first, log) = sarif(Document::Check(&report), &with_lines);
    let (second, _) = sarif(Document::Check(&report), &with_lines);
    assert_eq!(first, second, "the same run gives the same bytes");
    // Without lines the locations change, the fingerprints do not.
    let (_, without) = sarif(Document::Check(&report), &Extras::default());
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
        super::fingerprint("azl-node01", "dcbx-mode", "a"),
        super::fingerprint("azl-node02", "dcbx-mode", "a")
    );
    assert_ne!(
        super::fingerprint("h", "r", "ab"),
        super::fingerprint("h", "ra", "b"),
        "the parts are separated"
    );
}

#[test]
fn without_baseline_lines_every_result_still_has_a_location() {
    let baseline = example("baseline.json");
    let report = judge(&example("post-update.json"), Some(&baseline));
    let (_, log) = sarif(Document::Check(&report), &Extras::default());
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
    let (_, log) = sarif(Document::Check(&report), &extras(&[("azl-node01", lines)]));
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
    let (text, log) = sarif(Document::Check(&report), &Extras::default());
    assert!(!text.contains('\u{1b}'), "control characters are escaped");
    let r = result(&log, "azl-node01", "bios-attributes", "bios/SysProfile");
    assert_eq!(r["properties"]["new"], hostile);
}

#[test]
fn the_schema_rejects_what_code_scanning_would() {
    let validator = schema();
    let baseline = example("baseline.json");
    let report = judge(&example("post-update.json"), Some(&baseline));
    let (_, log) = sarif(Document::Check(&report), &Extras::default());
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
    use crate::fleet::stale::{StaleInput, findings};
    let base = example("baseline.json");
    let n4 = renamed(&base, "azl-node04", "9a:bc");
    let mut timed_out = fleet_host("azl-node04", judge(&n4, Some(&n4)));
    timed_out.verdict = Verdict::Incomplete;
    timed_out.failure =
        Some("redfish https://bmc-azl-node04: the host deadline of 30 s passed".into());
    let newcomer = renamed(&base, "azl-node05", "de:f0");
    let at = |t: &str| t.parse().unwrap();
    let fleet_findings = findings(
        &[
            StaleInput {
                host: "azl-node04".into(),
                baseline_captured_at: Some(at("2026-10-01T02:00:00Z")),
                baseline_unread: false,
                last_good: Some(at("2026-10-20T02:00:00Z")),
            },
            StaleInput {
                host: "azl-node05".into(),
                baseline_captured_at: None,
                baseline_unread: false,
                last_good: Some(at("2026-12-01T02:00:00Z")),
            },
        ],
        &["baselines/azure-local/old node.json".to_owned()],
        Some(std::time::Duration::from_secs(30 * 86_400)),
        at("2026-12-01T02:00:00Z"),
    );
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
