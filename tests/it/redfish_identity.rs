//! Identity holds under renumbering: a BMC that renumbers its collections (a firmware update,
//! a reset of the BMC) changes no fact.
//!
//! Renumbering is what BMCs do (`common::renumbering`): every member whose `Id` is a bare
//! number (`Ports/1`, `NetworkDeviceFunctions/0`, `FirmwareInventory/16`, `Systems/1`,
//! `Chassis/1`, `EthernetInterfaces/1`) gets another number (the numbers of a collection
//! permuted and offset: `1, 2` → `3, 2`… never its own), every member named by a stable name (a
//! Dell FQDD `NIC.Slot.3-1-1`, `BMC`, `UEFI`, Lenovo's `slot-1`) keeps it, and every collection
//! (adapters, ports, functions, firmware entries, systems, chassis, interfaces) is listed in
//! reverse order. Each mockup of `common::mockups::every_mockup` is captured before and after:
//! the facts must be the same, and `driftgate diff --strict` of the two must pass with no
//! finding.
//!
//! What cannot hold, and is not hidden: a member numbered by the BMC that carries nothing
//! stable of its own has no identity but its number. The capture keeps the number and says so
//! in a note (`the_identities_a_renumbering_cannot_keep_are_said`): a numbered function with no
//! MAC, a numbered port with no `PortId`, `PhysicalPortNumber` or MAC, a numbered adapter with
//! no location label or serial number, a numbered firmware member with no name, context or
//! `SoftwareId`, and two firmware members identical in all of those (their `-2` suffix follows
//! their URIs). None of the mockups has one.

use crate::common;

use std::path::Path;

use common::capture::{Captured, capture};
use common::driftgate;
use common::mockups::{Mockup, every_mockup};
use serde_json::Value;

fn capture_dir(dir: &Path) -> Captured {
    capture(&format!("redfish=mockup:{}", dir.display()), &[], false)
}

#[test]
fn a_renumbered_bmc_has_the_same_facts_and_passes_strict() {
    let scratch = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    for (index, (name, dir)) in every_mockup().into_iter().enumerate() {
        let before = capture_dir(&dir);
        let mut mockup = Mockup::load(&dir);
        let renamed = mockup.renumber();
        let renumbered = scratch.path().join(format!("{index}"));
        mockup.write(&renumbered);
        let after = capture_dir(&renumbered);
        assert_eq!(
            (after.code, after.status()),
            (before.code, before.status()),
            "{name}: {}",
            after.error()
        );
        let facts = |captured: &Captured| captured.snapshot["facts"].clone();
        if facts(&before) != facts(&after) {
            failures.push(format!(
                "{name}: renumbering ({} members) changed facts:\n{}",
                renamed.len(),
                differences(&facts(&before), &facts(&after))
            ));
            continue;
        }
        let old = scratch.path().join(format!("{index}.before.json"));
        let new = scratch.path().join(format!("{index}.after.json"));
        std::fs::write(&old, &before.text).unwrap();
        std::fs::write(&new, &after.text).unwrap();
        let output = driftgate()
            .args(["diff", "--strict", "--format", "json"])
            .arg(&old)
            .arg(&new)
            .output()
            .unwrap();
        let report: Value = serde_json::from_slice(&output.stdout)
            .unwrap_or_else(|e| panic!("{name}: {e}: {}", String::from_utf8_lossy(&output.stderr)));
        let expected = if before.code == 0 { 0 } else { 3 };
        assert_eq!(output.status.code(), Some(expected), "{name}: {report:#}");
        assert_eq!(
            report["findings"],
            Value::Array(vec![]),
            "{name}: {report:#}"
        );
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The facts that differ, one per line: `path: before → after`.
fn differences(before: &Value, after: &Value) -> String {
    let (before, after) = (before.as_object().unwrap(), after.as_object().unwrap());
    let mut lines = Vec::new();
    for (path, value) in before {
        match after.get(path) {
            Some(new) if new == value => {}
            Some(new) => lines.push(format!("  {path}: {value} → {new}")),
            None => lines.push(format!("  {path}: {value} → (gone)")),
        }
    }
    for (path, value) in after {
        if !before.contains_key(path) {
            lines.push(format!("  {path}: (new) → {value}"));
        }
    }
    lines.join("\n")
}

/// The cases where a renumbering does change a key, each said by the capture rather than
/// hidden: a port with no MAC, on an adapter and with a port of its own that the BMC names by
/// number alone (no location, serial number, `PortId` or `PhysicalPortNumber`); and two
/// firmware members alike in name, context and `SoftwareId` (two identical cards whose BMC
/// gives no slot), told apart by their URIs alone.
#[test]
fn the_identities_a_renumbering_cannot_keep_are_said() {
    let scratch = tempfile::tempdir().unwrap();
    let fixtures = common::root().join("tests/fixtures/redfish");
    let mut bare = Mockup::load(&fixtures.join("controller-firmware-only"));
    let port = "/redfish/v1/Chassis/1/NetworkAdapters/1/Ports/2";
    bare.resources.get_mut(port).unwrap()["Ethernet"]
        .as_object_mut()
        .unwrap()
        .remove("AssociatedMACAddresses");
    let before = scratch.path().join("bare");
    bare.write(&before);
    let captured = capture_dir(&before);
    assert_eq!(captured.status(), "complete", "{}", captured.error());
    assert_eq!(
        captured.snapshot["facts"]["nic/port-1-2/bmc/flow_control/configured"],
        "tx_rx"
    );
    for said in [
        format!("{port}: no MAC"),
        "keyed nic/port-1-2".to_owned(),
        "named by the BMC's numbers 1 and 2 alone".to_owned(),
        "the key changes if the BMC renumbers".to_owned(),
    ] {
        assert!(
            captured.stderr.contains(&said),
            "{said}: {}",
            captured.stderr
        );
    }
    bare.renumber();
    let after = scratch.path().join("bare-renumbered");
    bare.write(&after);
    let renumbered = capture_dir(&after);
    assert_eq!(
        renumbered.snapshot["facts"]["nic/port-2-3/bmc/flow_control/configured"], "tx_rx",
        "the key the note warned of moved with the numbers"
    );

    let mut twins = Mockup::load(&fixtures.join("hpe-ilo6"));
    let inventory = "/redfish/v1/UpdateService/FirmwareInventory";
    for member in ["16", "19"] {
        let body = twins
            .resources
            .get_mut(&format!("{inventory}/{member}"))
            .unwrap();
        body["Oem"]["Hpe"]
            .as_object_mut()
            .unwrap()
            .remove("DeviceContext");
    }
    let dir = scratch.path().join("twins");
    twins.write(&dir);
    let captured = capture_dir(&dir);
    let facts = &captured.snapshot["facts"];
    assert_eq!(
        facts["firmware/mellanox_connectx-6_dx/version"],
        "22.39.1002"
    );
    assert_eq!(
        facts["firmware/mellanox_connectx-6_dx-2/version"],
        "22.39.1002"
    );
    for said in [
        format!("firmware inventory members {inventory}/16, {inventory}/19 read the same"),
        "in the order of their URIs, which swaps if the BMC renumbers them".to_owned(),
    ] {
        assert!(
            captured.stderr.contains(&said),
            "{said}: {}",
            captured.stderr
        );
    }
}
