//! A baseline promoted by an older driftgate against a capture of today: facts that only moved
//! (functions keyed by MAC, capability flags filed as capabilities) are no drift.

use crate::common;

use common::{driftgate, root};

#[test]
fn a_baseline_from_before_issue_61_compares_clean_with_todays_capture_of_the_same_host() {
    let example = root().join("examples/azure-local-dcbx/recorded/baseline");
    let old = root().join("tests/fixtures/compare/before-issue-61/azl-node01-baseline.json");
    let text = std::fs::read_to_string(&old).unwrap();
    assert!(
        text.contains("/bmc/function/NIC.Slot.3-1-1/hii/DCBXSupport"),
        "the fixture is the old layout"
    );
    let dir = tempfile::tempdir().unwrap();
    let now = dir.path().join("now.json");
    driftgate()
        .args(["capture", "--host", "azl-node01", "--source"])
        .arg(format!("redfish=mockup:{}", example.join("bmc").display()))
        .arg("--source")
        .arg(format!("windows=dir:{}", example.join("windows").display()))
        .arg("--out")
        .arg(&now)
        .assert()
        .code(0);
    let captured = std::fs::read_to_string(&now).unwrap();
    assert!(
        captured.contains("/bmc/function/00:0a:f7:12:34:56/hii/capability/dcb/DCBXSupport"),
        "today's layout"
    );
    let output = driftgate()
        .args(["check", "--strict", "--snapshot"])
        .arg(&now)
        .arg("--baseline")
        .arg(&old)
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{out}");
    assert!(out.starts_with("PASS azl-node01: no findings"), "{out}");
}
