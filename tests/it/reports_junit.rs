//! `--report junit=FILE` end to end: the real binary over the shipped examples, a gate run and
//! a fleet check, each file validated with `xmllint` against the Jenkins xunit and Ant JUnit
//! schemas (`tests/fixtures/reports/junit/`); broken samples the schemas must reject; a
//! capture whose strings would break XML.

use crate::common;

use common::fleet::{FleetLab, Host, State};
use common::gate::Lab;
use common::junit::{assert_valid, fixture, verdicts, xmllint};
use common::{driftgate, example, stdout_of};

use driftgate_snapshot::{FactPath, FactValue, HostName, Snapshot, SourceRecord, SourceStatus};

fn check(dir: &tempfile::TempDir, snapshot: &str, baseline: Option<&str>) -> (i32, String) {
    let file = dir.path().join("junit.xml");
    let mut cmd = driftgate();
    cmd.args(["check", "--snapshot", snapshot]);
    if let Some(baseline) = baseline {
        cmd.args(["--baseline", baseline]);
    }
    cmd.arg("--report").arg(format!("junit={}", file.display()));
    let (code, _) = stdout_of(&mut cmd);
    (code, assert_valid(&file))
}

#[test]
fn a_blocked_check_is_one_failure_per_blocking_finding_and_validates() {
    let dir = tempfile::tempdir().unwrap();
    let (code, xml) = check(
        &dir,
        &example("azure-local-dcbx/post-update.json"),
        Some(&example("azure-local-dcbx/baseline.json")),
    );
    assert_eq!(code, 1, "{xml}");
    assert_eq!(
        verdicts(&xml),
        [("azl-node01".to_owned(), "BLOCK".to_owned())]
    );
    let json = {
        let mut cmd = driftgate();
        cmd.args(["check", "--format", "json", "--snapshot"])
            .arg(example("azure-local-dcbx/post-update.json"))
            .arg("--baseline")
            .arg(example("azure-local-dcbx/baseline.json"));
        let (_, out) = stdout_of(&mut cmd);
        serde_json::from_str::<serde_json::Value>(&out).unwrap()
    };
    let blocking = json["counts"]["block"].as_u64().unwrap() as usize;
    assert!(blocking > 0);
    assert_eq!(xml.matches("<failure ").count(), blocking, "{xml}");
    assert!(
        xml.contains(r#"<failure type="dcbx-mode""#),
        "the DCBX reset fails under its rule: {xml}"
    );
}

#[test]
fn a_passing_check_has_no_failure_and_validates() {
    let dir = tempfile::tempdir().unwrap();
    let (code, xml) = check(
        &dir,
        &example("benign-firmware-update/post-update.json"),
        Some(&example("benign-firmware-update/baseline.json")),
    );
    assert_eq!(code, 0, "{xml}");
    assert!(
        !xml.contains("<failure") && !xml.contains("<error"),
        "{xml}"
    );
    assert!(xml.contains(r#"<testcase name="capture""#), "{xml}");
}

#[test]
fn a_gate_post_after_the_dcbx_reset_validates_and_fails_the_host() {
    let lab = Lab::new();
    lab.gate(&["pre", "--run", "CHG-3001", "azl-node01"])
        .expect(0);
    lab.state("post-update");
    let file = lab.dir.path().join("gate.xml");
    lab.gate(&[
        "post",
        "--run",
        "CHG-3001",
        "--report",
        &format!("junit={}", file.display()),
    ])
    .expect(1);
    let xml = assert_valid(&file);
    assert_eq!(
        verdicts(&xml),
        [("azl-node01".to_owned(), "BLOCK".to_owned())]
    );
    assert!(
        xml.contains(r#"<property name="run" value="CHG-3001"/>"#),
        "{xml}"
    );
    assert!(xml.contains("Origin: changed by the update"), "{xml}");
}

#[test]
fn a_fleet_check_validates_and_agrees_with_the_json_report() {
    let lab = FleetLab::new(
        &[
            Host::new("azl-node01", State::Recorded("baseline")).in_cluster("azl-a"),
            Host::new("azl-node02", State::Recorded("baseline")).in_cluster("azl-a"),
            Host::new("azl-node03", State::Recorded("post-update")).in_cluster("azl-a"),
            Host::new("azl-node04", State::Unreachable),
            Host::new("azl-node05", State::Recorded("baseline")),
        ],
        &["azl-node01", "azl-node02", "azl-node03", "azl-node04"],
    );
    let file = lab.path("fleet.xml");
    let report = lab
        .check(&[
            "--format",
            "json",
            "--report",
            &format!("junit={}", file.display()),
        ])
        .expect(3)
        .json();
    let xml = assert_valid(&file);
    let expected: Vec<(String, String)> = report["hosts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| {
            (
                h["host"].as_str().unwrap().to_owned(),
                h["verdict"].as_str().unwrap().to_uppercase(),
            )
        })
        .collect();
    let mut expected = expected;
    expected.sort();
    assert_eq!(verdicts(&xml), expected, "{xml}");
    // The unreachable host is an error naming its source; the fleet's findings have a suite.
    let doc = roxmltree::Document::parse(&xml).unwrap();
    let node04 = doc
        .descendants()
        .find(|n| n.has_tag_name("testsuite") && n.attribute("name") == Some("azl-node04"))
        .unwrap();
    let error = node04
        .descendants()
        .find(|n| n.has_tag_name("error"))
        .expect("the unreachable host errs");
    assert!(
        error.attribute("message").unwrap().contains("redfish"),
        "{xml}"
    );
    assert!(
        doc.descendants()
            .any(|n| n.has_tag_name("testsuite") && n.attribute("name") == Some("fleet")),
        "{xml}"
    );
    assert!(xml.contains("fleet/missing-baseline azl-node05"), "{xml}");
}

#[test]
fn the_schemas_reject_the_broken_samples_and_accept_the_control() {
    for schema in ["junit-10.xsd", "JUnit.xsd"] {
        xmllint(schema, &fixture("valid.xml")).unwrap_or_else(|e| panic!("{schema}: {e}"));
        let missing = xmllint(schema, &fixture("missing-tests-attribute.xml"))
            .expect_err("a testsuite without `tests` is rejected");
        assert!(missing.contains("tests"), "{schema}: {missing}");
        let wrong = xmllint(schema, &fixture("wrong-element.xml"))
            .expect_err("an unknown element is rejected");
        assert!(wrong.contains("failed"), "{schema}: {wrong}");
    }
}

#[test]
fn capture_strings_that_would_break_xml_stay_well_formed_and_valid() {
    let hostile = "SLOT 3 <Port 1> & ]]> \u{1}\u{7f}";
    let mut facts = driftgate_snapshot::Facts::new();
    facts.insert(
        FactPath::new("nic/00:0a:f7:12:34:56/os/name").unwrap(),
        FactValue::from(hostile),
    );
    facts.insert(
        FactPath::new("host/qos/flow_control/priority/3").unwrap(),
        FactValue::from(true),
    );
    let snapshot = |sources: Vec<SourceRecord>| Snapshot {
        host: HostName::new("azl-node01").unwrap(),
        captured_at: "2026-12-01T02:00:00Z".parse().unwrap(),
        tool: "driftgate test".into(),
        sources,
        facts: facts.clone(),
    };
    let dir = tempfile::tempdir().unwrap();
    let now = dir.path().join("now.json");
    std::fs::write(
        &now,
        snapshot(vec![SourceRecord {
            name: "windows".into(),
            target: "ssh://azl-node01".into(),
            status: SourceStatus::Failed,
            error: Some(format!("remote said: {hostile}")),
        }])
        .to_canonical_json(),
    )
    .unwrap();
    let (code, xml) = check(&dir, now.to_str().unwrap(), None);
    assert_eq!(code, 3, "{xml}");
    // XML cannot carry the U+0001; the DEL it could, but a CI log would play it.
    assert!(!xml.contains('\u{1}') && !xml.contains('\u{7f}'), "{xml}");
    let doc = roxmltree::Document::parse(&xml).unwrap();
    let error = doc.descendants().find(|n| n.has_tag_name("error")).unwrap();
    assert!(
        error
            .text()
            .unwrap()
            .contains("SLOT 3 <Port 1> & ]]> \\u{1}\\u{7f}"),
        "{xml}"
    );
}
