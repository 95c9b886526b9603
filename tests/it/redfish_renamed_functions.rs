//! A renamed function is the same function: a BMC that renames its network device functions
//! (a firmware update of the BMC: `eth0f0` → `p0f0`, `1.1` → `F1`, `NetworkDeviceFunction1` ↔
//! `2`) changes no setting, so `check --strict` of the renamed capture against the first
//! passes; the one thing that says so is the BMC's name for the function, the identity fact
//! `function/<key>/id` (rule `bmc-function-identity`, info).
//!
//! Run on every fixture with functions: the public captures of an iDRAC9
//! (`shared-libredfish-dell-functions`), an iDRAC9 with BlueField DPUs
//! (`shared-libredfish-dell-multi-dpu-functions`) and DMTF's SmartNIC service
//! (`shared-dmtf-smartnic-functions`), trimmed; Lenovo XCC (`lenovo-xcc-functions`); NVIDIA
//! DGX (`dgx-standard-ports`); and the project's Dell, HPE and standard-schema fixtures. (DMTF's
//! `public-rackmount1` has no network device functions to rename.) A snapshot written before
//! functions were keyed by MAC (the examples' baseline, Id-keyed) compares with a capture of
//! today without a finding.

use crate::common;

use std::path::{Path, PathBuf};

use common::mockups::{Mockup, check_mockups};
use common::renaming::Renaming;
use common::{driftgate, root};
use serde_json::Value;

/// Every fixture whose adapters have network device functions.
fn fixtures_with_functions() -> Vec<(String, PathBuf)> {
    let fixtures = root().join("tests/fixtures/redfish");
    let mut all: Vec<(String, PathBuf)> = std::fs::read_dir(&fixtures)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|dir| {
            let mockup = Mockup::load(dir);
            mockup.collections().iter().any(|uri| {
                uri.ends_with("/NetworkDeviceFunctions") && !mockup.members(uri).is_empty()
            })
        })
        .map(|dir| {
            let name = dir.file_name().unwrap().to_string_lossy().into_owned();
            (name, dir)
        })
        .collect();
    all.sort();
    all
}

#[test]
fn a_bmc_that_renames_its_functions_changes_no_setting_under_strict() {
    let fixtures = fixtures_with_functions();
    let names: Vec<&str> = fixtures.iter().map(|(name, _)| name.as_str()).collect();
    for needed in [
        "shared-libredfish-dell-functions",
        "shared-libredfish-dell-multi-dpu-functions",
        "shared-dmtf-smartnic-functions",
        "lenovo-xcc-functions",
        "dgx-standard-ports",
    ] {
        assert!(names.contains(&needed), "{needed} has functions: {names:?}");
    }
    let scratch = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    for (name, dir) in &fixtures {
        // What holds of the capture itself (an invariant) holds whatever the names: only
        // what the renaming adds counts.
        let control = check_mockups(dir, dir, true);
        let (unchanged, unchanged_code) = (control.findings(), control.code);
        for renaming in [Renaming::Fresh, Renaming::Rotated] {
            let mut mockup = Mockup::load(dir);
            let renamed = mockup.rename_functions(renaming);
            if renamed.is_empty() {
                continue;
            }
            let after = scratch.path().join(format!("{name}-{renaming:?}"));
            mockup.write(&after);
            let judged = check_mockups(dir, &after, true);
            let unexpected: Vec<String> = judged
                .findings()
                .into_iter()
                .filter(|f| !(f.starts_with("info bmc-function-identity ") && f.contains("/id: ")))
                .filter(|f| !unchanged.contains(f))
                .collect();
            if judged.code != unchanged_code || !unexpected.is_empty() {
                failures.push(format!(
                    "{name}, {renaming:?} ({renamed:?}): exit {}:\n  {}",
                    judged.code,
                    unexpected.join("\n  ")
                ));
            }
            // A rename is said, as the identity of the function it is.
            let ids = judged
                .findings()
                .into_iter()
                .filter(|f| f.contains("/id: "))
                .count();
            let named = renamed
                .iter()
                .filter(|(old, _)| !is_number(old.rsplit('/').next().unwrap()))
                .count();
            if matches!(renaming, Renaming::Fresh) && named > 0 && ids == 0 {
                failures.push(format!("{name}: {named} functions renamed, none said"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn is_number(name: &str) -> bool {
    !name.is_empty() && name.bytes().all(|b| b.is_ascii_digit())
}

/// What a message that names a renamed function says: the port and the BMC's new name, and the
/// key.
#[test]
fn a_renamed_function_is_said_with_its_port_and_both_names() {
    let dir = root().join("tests/fixtures/redfish/lenovo-xcc-functions");
    let scratch = tempfile::tempdir().unwrap();
    let mut mockup = Mockup::load(&dir);
    mockup.rename_functions(Renaming::Fresh);
    let after = scratch.path().join("renamed");
    mockup.write(&after);
    let judged = check_mockups(&dir, &after, true);
    assert_eq!(judged.code, 0, "{}", judged.text);
    let path = "nic/94:6d:ae:53:cb:9b/bmc/function/94:6d:ae:53:cb:9b/id";
    let finding = judged.finding(path);
    assert_eq!(finding["severity"], "info");
    assert_eq!(finding["old"], "1.1");
    assert_eq!(finding["new"], "F2");
    assert_eq!(
        judged.baseline["nic/94:6d:ae:53:cb:9b/bmc/function/94:6d:ae:53:cb:9b/function_type"],
        "ethernet"
    );
}

/// A snapshot written before functions were keyed by MAC names them by the BMC's `Id`
/// (`function/NIC.Slot.3-1-1/…`): read, it is keyed as a capture of today, so the examples'
/// baseline compares with today's capture of the same BMC without a function gone and a new one.
#[test]
fn an_id_keyed_snapshot_compares_with_a_mac_keyed_capture() {
    let example = root().join("examples/azure-local-dcbx");
    let old: Value =
        serde_json::from_str(&std::fs::read_to_string(example.join("baseline.json")).unwrap())
            .unwrap();
    let function = "nic/00:0a:f7:12:34:56/bmc/function/NIC.Slot.3-1-1/dcbx_mode";
    assert_eq!(old["facts"][function], "ieee", "the example is Id-keyed");
    let scratch = tempfile::tempdir().unwrap();
    let now = scratch.path().join("now.json");
    let captured = common::capture::capture(
        &format!(
            "redfish=mockup:{}",
            example.join("recorded/baseline/bmc").display()
        ),
        &[],
        false,
    );
    assert_eq!(captured.status(), "complete", "{}", captured.stderr);
    let key = "nic/00:0a:f7:12:34:56/bmc/function/00:0a:f7:12:34:56";
    assert_eq!(
        captured.snapshot["facts"][format!("{key}/dcbx_mode")],
        "ieee"
    );
    assert_eq!(
        captured.snapshot["facts"][format!("{key}/id")],
        "NIC.Slot.3-1-1"
    );
    std::fs::write(&now, &captured.text).unwrap();
    let report = diff(&example.join("baseline.json"), &now);
    let bmc: Vec<&Value> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["path"].as_str().is_some_and(|p| p.contains("/bmc/")))
        .collect();
    assert!(bmc.is_empty(), "{bmc:#?}");
}

/// `driftgate diff --format json` of two snapshot files.
fn diff(old: &Path, new: &Path) -> Value {
    let output = driftgate()
        .args(["diff", "--format", "json"])
        .arg(old)
        .arg(new)
        .output()
        .unwrap();
    serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&output.stderr)))
}
