//! `--report sarif=FILE` end to end against real git baseline stores: every log is valid
//! SARIF 2.1.0 (the schema under `tests/fixtures/reports/sarif/`), results point at the
//! line of the fact in the baseline file as committed, and fingerprints hold across runs.

use crate::common;

use std::path::{Path, PathBuf};

use common::fleet::{FleetLab, Host, State};
use common::gate::{Ran, run};
use common::sarif::{key_line, location, read_valid, result, results, validator};
use common::{driftgate, example, git};
use serde_json::Value;

const HOST: &str = "azl-node01";
const BASELINE_FILE: &str = "baselines/azure-local/azl-node01.json";
const DCBX_MODE: &str = "nic/00:0a:f7:12:34:56/bmc/function/00:0a:f7:12:34:56/dcbx_mode";
const DCBX_MODE_PORT2: &str = "nic/00:0a:f7:12:34:57/bmc/function/00:0a:f7:12:34:57/dcbx_mode";

/// A store with the seed-1 baseline of azl-node01 promoted into fleet `azure-local`.
fn store() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let store = dir.path().join("store");
    driftgate()
        .args(["baseline", "init"])
        .arg(&store)
        .assert()
        .code(0);
    driftgate()
        .arg("--repo")
        .arg(&store)
        .args(["baseline", "promote", "--fleet", "azure-local"])
        .arg(example("azure-local-dcbx/baseline.json"))
        .assert()
        .code(0);
    (dir, store)
}

/// `check` of the post-update snapshot against the host's baseline in `store`, SARIF to
/// `file`.
fn check(store: &Path, file: &Path) -> Ran {
    run(driftgate()
        .arg("--repo")
        .arg(store)
        .args(["check", "--snapshot"])
        .arg(example("azure-local-dcbx/post-update.json"))
        .args(["--baseline", &format!("baseline:{HOST}"), "--report"])
        .arg(format!("sarif={}", file.display())))
}

#[test]
fn a_check_result_points_at_the_facts_line_in_the_committed_baseline() {
    let (dir, store) = store();
    let file = dir.path().join("check.sarif");
    check(&store, &file).expect(1);
    let log = read_valid(&file);
    let run = &log["runs"][0];
    assert_eq!(run["properties"]["verdict"], "BLOCK");
    assert_eq!(run["properties"]["hosts"][0]["host"], HOST);
    assert_eq!(run["properties"]["hosts"][0]["verdict"], "BLOCK");
    assert_eq!(run["invocations"][0]["exitCode"], 1);

    let commit = git(&store, &["rev-parse", "HEAD"]).trim().to_owned();
    assert_eq!(run["versionControlProvenance"][0]["revisionId"], commit);
    let committed = git(&store, &["show", &format!("{commit}:{BASELINE_FILE}")]);
    // The example baseline keys its functions by the BMC's Id, as written before functions
    // were keyed by MAC: a finding on a function points at the line it was written at.
    for (fact, written) in [
        (
            DCBX_MODE,
            "nic/00:0a:f7:12:34:56/bmc/function/NIC.Slot.3-1-1/dcbx_mode",
        ),
        (
            DCBX_MODE_PORT2,
            "nic/00:0a:f7:12:34:57/bmc/function/NIC.Slot.3-2-1/dcbx_mode",
        ),
    ] {
        let (uri, line) = location(result(&log, HOST, "dcbx-mode", Some(fact)));
        assert_eq!(uri, BASELINE_FILE);
        assert_eq!(line, key_line(&committed, written), "{fact}");
    }
    // Every result has a location in the baseline file (code scanning rejects one without).
    for r in results(&log) {
        let (uri, line) = location(r);
        assert_eq!(uri, BASELINE_FILE, "{r}");
        assert!(line >= 1);
    }
}

#[test]
fn fingerprints_are_the_same_every_night_and_differ_by_path() {
    let (dir, store) = store();
    let (first, second) = (dir.path().join("1.sarif"), dir.path().join("2.sarif"));
    check(&store, &first).expect(1);
    check(&store, &second).expect(1);
    let (a, b) = (read_valid(&first), read_valid(&second));
    let print = |log: &Value, fact: &str| {
        result(log, HOST, "dcbx-mode", Some(fact))["partialFingerprints"]["driftgateFinding/v1"]
            .as_str()
            .expect("a fingerprint")
            .to_owned()
    };
    assert_eq!(print(&a, DCBX_MODE), print(&b, DCBX_MODE));
    assert_ne!(print(&a, DCBX_MODE), print(&a, DCBX_MODE_PORT2));
    assert_eq!(
        std::fs::read(&first).unwrap(),
        std::fs::read(&second).unwrap(),
        "the same judgement gives the same bytes"
    );
}

#[test]
fn a_fleet_check_reports_every_hosts_verdict_incomplete_hosts_and_cluster_findings() {
    let lab = FleetLab::new(
        &[
            Host::new("azl-node01", State::Recorded("baseline")).in_cluster("azl-a"),
            Host::new("azl-node02", State::Recorded("baseline")).in_cluster("azl-a"),
            Host::new("azl-node03", State::Recorded("post-update")).in_cluster("azl-a"),
            Host::new("azl-node04", State::Unreachable),
        ],
        &["azl-node01", "azl-node02", "azl-node03", "azl-node04"],
    );
    let file = lab.path("fleet.sarif");
    let fleet = lab
        .check(&[
            "--format",
            "json",
            "--report",
            &format!("sarif={}", file.display()),
        ])
        .expect(3)
        .json();
    let log = read_valid(&file);
    let run = &log["runs"][0];
    assert_eq!(run["properties"]["counts"], fleet["counts"]);
    let verdicts = |hosts: &Value| -> Vec<(String, String)> {
        hosts
            .as_array()
            .expect("hosts")
            .iter()
            .map(|h| {
                (
                    h["host"].as_str().expect("host").to_owned(),
                    h["verdict"].as_str().expect("verdict").to_uppercase(),
                )
            })
            .collect()
    };
    assert_eq!(
        verdicts(&run["properties"]["hosts"]),
        verdicts(&fleet["hosts"])
    );
    assert_eq!(run["invocations"][0]["executionSuccessful"], false);

    // The unreachable host: one error result at its baseline file's first line.
    let incomplete = result(&log, "azl-node04", "capture/incomplete", None);
    assert_eq!(incomplete["level"], "error");
    assert_eq!(
        location(incomplete),
        ("baselines/azure-local/azl-node04.json".to_owned(), 1)
    );
    // Its drift alerts are not in the log: the message says code scanning closes them.
    let text = incomplete["message"]["text"].as_str().expect("a message");
    assert!(
        text.contains("code scanning shows their open alerts as fixed"),
        "{text}"
    );

    // The drifted node: its own findings, and the cluster's disagreement at its baseline.
    let commit = git(&lab.store, &["rev-parse", "HEAD"]).trim().to_owned();
    let node03 = "baselines/azure-local/azl-node03.json";
    let committed = git(&lab.store, &["show", &format!("{commit}:{node03}")]);
    let (uri, line) = location(result(&log, "azl-node03", "dcbx-mode", Some(DCBX_MODE)));
    assert_eq!(uri, node03);
    assert_eq!(line, key_line(&committed, DCBX_MODE));
    let cluster = results(&log)
        .iter()
        .find(|r| {
            r["ruleId"]
                .as_str()
                .is_some_and(|id| id.starts_with("cluster/"))
        })
        .expect("a cluster finding");
    assert_eq!(cluster["properties"]["hosts"][0], "azl-node03");
    assert_eq!(location(cluster).0, node03);
}

#[test]
fn the_validator_rejects_a_log_code_scanning_would_reject() {
    let (dir, store) = store();
    let file = dir.path().join("check.sarif");
    check(&store, &file).expect(1);
    let log = read_valid(&file);
    let validator = validator();
    let mut no_location_file = log.clone();
    no_location_file["runs"][0]["results"][0]["locations"][0]["physicalLocation"]
        .as_object_mut()
        .expect("a physical location")
        .remove("artifactLocation");
    let mut string_line = log.clone();
    string_line["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["startLine"] =
        "12".into();
    let mut bad_uri = log;
    bad_uri["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] =
        "baselines/a b.json".into();
    for (what, bad) in [
        ("a location without a file", no_location_file),
        ("a line that is a string", string_line),
        ("a URI with a space", bad_uri),
    ] {
        assert!(!validator.is_valid(&bad), "{what} must be rejected");
    }
}
