//! What a firmware gate sees of a BMC: two captures of the same service, before and after,
//! judged with the built-in policy. Each "after" is a copy of a fixture in
//! `tests/fixtures/redfish/` (DMTF mockup layout, the real shapes of iLO, Lenovo XCC and the
//! standard schema) changed the way a firmware update or a staged setting changes it.

use crate::common;

use std::path::Path;

use common::mockups::check_mockups;
use common::{copy_dir, root};
use serde_json::Value;

/// A copy of the fixture `name`, with `edit` applied to the bodies it names
/// (`(resource path below the fixture, JSON pointer, new value)`).
fn fixture_copy(name: &str, edits: &[(&str, &str, Value)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(
        &root().join("tests/fixtures/redfish").join(name),
        dir.path(),
    );
    for (resource, pointer, value) in edits {
        let file = dir.path().join(resource).join("index.json");
        let mut body: Value =
            serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        *body
            .pointer_mut(pointer)
            .unwrap_or_else(|| panic!("{resource}: no {pointer}")) = value.clone();
        std::fs::write(&file, serde_json::to_string_pretty(&body).unwrap()).unwrap();
    }
    dir
}

/// `check` of the "after" capture against the "before" one: the exit code and the text
/// and JSON reports.
fn judge(before: &Path, after: &Path, strict: bool) -> (i32, String, Value) {
    let judged = check_mockups(before, after, strict);
    (judged.code, judged.text, judged.json)
}

fn finding<'a>(report: &'a Value, path: &str) -> &'a Value {
    report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["path"] == path)
        .unwrap_or_else(|| panic!("no finding on {path}: {report:#}"))
}

/// Judges the fixture `name` against `before` (its agent off): the fact at `path` turning
/// from false to true blocks under `bmc-lldp`. Returns the JSON report.
fn assert_agent_switched_on_blocks(before: &tempfile::TempDir, name: &str, path: &str) -> Value {
    let after = root().join("tests/fixtures/redfish").join(name);
    let (code, text, report) = judge(before.path(), &after, false);
    assert_eq!(code, 1, "{text}");
    let lldp = finding(&report, path);
    assert_eq!(
        (&lldp["severity"], &lldp["id"], &lldp["old"], &lldp["new"]),
        (
            &"block".into(),
            &"bmc-lldp".into(),
            &false.into(),
            &true.into()
        )
    );
    report
}

const ILO_PORT: &str = "redfish/v1/Chassis/1/NetworkAdapters/DE083000/Ports/1";

#[test]
fn a_flow_control_reset_staged_in_a_port_settings_resource_blocks_until_the_next_reboot() {
    // Before: the port's Settings resource stages nothing new (its value is the current one).
    let before = fixture_copy(
        "ilo-port-settings",
        &[(
            &format!("{ILO_PORT}/Settings"),
            "/Ethernet/FlowControlConfiguration",
            "TX_RX".into(),
        )],
    );
    let after = root().join("tests/fixtures/redfish/ilo-port-settings");
    let (code, text, report) = judge(before.path(), &after, false);
    assert_eq!(code, 1, "{text}");
    let staged = finding(
        &report,
        "nic/02:1f:0e:00:00:01/bmc/pending/flow_control/configured",
    );
    assert_eq!(staged["severity"], "block");
    assert_eq!(staged["pending"], true);
    assert_eq!(staged["id"], "bmc-flow-control");
    assert!(text.contains("takes effect at the next reboot"), "{text}");
}

#[test]
fn a_nic_firmware_bump_seen_only_in_the_controller_is_named_in_its_ports_finding() {
    let adapter = "redfish/v1/Chassis/1/NetworkAdapters/1";
    let before = root().join("tests/fixtures/redfish/controller-firmware-only");
    let after = fixture_copy(
        "controller-firmware-only",
        &[
            (
                adapter,
                "/Controllers/0/FirmwarePackageVersion",
                "7.11.0".into(),
            ),
            (
                adapter,
                "/Controllers/1/FirmwarePackageVersion",
                "7.13.0".into(),
            ),
            (
                &format!("{adapter}/Ports/1"),
                "/Ethernet/FlowControlConfiguration",
                "None".into(),
            ),
        ],
    );
    let (code, text, report) = judge(&before, after.path(), false);
    assert_eq!(code, 1, "{text}");
    let port = "nic/02:e5:00:00:00:01";
    let changed = finding(&report, &format!("{port}/bmc/flow_control/configured"));
    let firmware = changed["firmware"].as_array().unwrap();
    assert_eq!(firmware[0]["path"], format!("{port}/bmc/firmware/version"));
    assert_eq!(
        (
            &firmware[0]["old"],
            &firmware[0]["new"],
            &firmware[0]["this_port"]
        ),
        (&"7.10.6".into(), &"7.11.0".into(), &true.into())
    );
    // The other controller's port changed firmware too, and comes after, as the rest.
    assert!(
        firmware[1..]
            .iter()
            .all(|f| f["this_port"] == false && f["new"] == "7.13.0"),
        "{firmware:?}"
    );
    assert!(
        text.contains(&format!(
            "NIC firmware of this port: \"7.10.6\" → \"7.11.0\" ({port}/bmc/firmware/version); 1 other"
        )),
        "{text}"
    );
}

#[test]
fn the_nic_firmware_lldp_agent_switched_on_blocks() {
    let off = |resource: &str| {
        (
            resource.to_owned(),
            "/Ethernet/LLDPEnabled",
            Value::from(false),
        )
    };
    let (port, settings) = (off(ILO_PORT), off(&format!("{ILO_PORT}/Settings")));
    let before = fixture_copy(
        "ilo-port-settings",
        &[
            (&port.0, port.1, port.2),
            (&settings.0, settings.1, settings.2),
        ],
    );
    assert_agent_switched_on_blocks(
        &before,
        "ilo-port-settings",
        "nic/02:1f:0e:00:00:01/bmc/lldp/enabled",
    );
}

#[test]
fn a_firmware_only_update_with_vendor_version_attributes_passes_under_strict() {
    let inventory = "redfish/v1/UpdateService/FirmwareInventory";
    let bios = "redfish/v1/Systems/1/Bios";
    let before = root().join("tests/fixtures/redfish/lenovo-xcc");
    let after = fixture_copy(
        "lenovo-xcc",
        &[
            (
                &format!("{inventory}/Slot_1.Bundle"),
                "/Version",
                "26.41.1000".into(),
            ),
            (
                &format!("{inventory}/UEFI"),
                "/Version",
                "ESE124T 3.20".into(),
            ),
            (
                "redfish/v1/Chassis/1/NetworkAdapters/slot-1",
                "/Controllers/0/FirmwarePackageVersion",
                "26.41.1000".into(),
            ),
            (
                bios,
                "/Attributes/PCIE_SLOT_1_Port1_FirmwareVersion",
                "26.41.1000".into(),
            ),
            (
                bios,
                "/Attributes/PCIE_SLOT_1_Port2_FirmwareVersion",
                "26.41.1000".into(),
            ),
            (
                bios,
                "/Attributes/PCIE_SLOT_1_Port1_EFIVersion",
                "14.34.12".into(),
            ),
        ],
    );
    let (code, text, report) = judge(&before, after.path(), true);
    assert_eq!(code, 0, "{text}");
    assert_eq!(report["verdict"], "pass");
    let findings = report["findings"].as_array().unwrap();
    assert!(
        findings.len() >= 6 && findings.iter().all(|f| f["severity"] == "info"),
        "{findings:#?}"
    );
}

#[test]
fn a_lenovo_nic_lldp_agent_folded_into_bios_switched_on_blocks_under_its_port() {
    let bios = "redfish/v1/Systems/1/Bios";
    let agent = "/Attributes/PCIE_SLOT_1_Port1_LLDPAgent";
    let before = fixture_copy(
        "lenovo-xcc",
        &[
            (bios, agent, "Disabled".into()),
            (&format!("{bios}/Pending"), agent, "Disabled".into()),
        ],
    );
    let report = assert_agent_switched_on_blocks(
        &before,
        "lenovo-xcc",
        "nic/94:6d:ae:53:cb:9b/bmc/lldp/nic_agent",
    );
    // One change, one finding: the attribute is not also a raw `hii/` or `bios/` fact.
    assert_eq!(
        report["findings"].as_array().unwrap().len(),
        1,
        "{report:#}"
    );
}
