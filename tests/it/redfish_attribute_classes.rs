//! BIOS and NIC (HII) attributes driftgate does not normalize, classified the same way for
//! every vendor: an attribute that reports a version is firmware, one that reports a value
//! that changes by itself (the link, a speed, a clock) is status and ignored, one whose
//! registry text says DCB (DCBX, PFC, ETS, LLDP, flow control) blocks when it changes. Run over
//! every mockup the tests know (`common::mockups::every_mockup`) and over the fixtures
//! `dell-unknown-dcb` (iDRAC's DellNetworkAttributes and their registry) and
//! `lenovo-xcc-unknown-dcb` (XCC's BIOS-folded port attributes and their registry).

use crate::common;

use std::collections::BTreeSet;

use common::attribute_classes::{
    adds_nothing, change_volatile_values, pre_existing, registries, registry_of, reports_version,
    update_firmware,
};
use common::capture::capture;
use common::mockups::{Mockup, check_mockups, every_mockup};
use common::root;
use serde_json::Value;

/// The attribute names whose facts a capture of `dir` placed under firmware: the last segment
/// of `…/firmware/hii/<name>` and `firmware/bios/attribute/<name>`.
fn firmware_attributes(snapshot: &Value) -> BTreeSet<String> {
    snapshot["facts"]
        .as_object()
        .unwrap()
        .keys()
        .filter(|path| {
            path.contains("/firmware/hii/") || path.starts_with("firmware/bios/attribute/")
        })
        .map(|path| path.rsplit('/').next().unwrap().to_owned())
        .collect()
}

#[test]
fn every_version_attribute_of_every_registry_is_firmware_and_no_writable_one_is() {
    let mut firmware = BTreeSet::new();
    let mut problems = Vec::new();
    for (mockup_name, dir) in every_mockup() {
        let mockup = Mockup::load(&dir);
        let registries = registries(&mockup);
        if registries.is_empty() {
            continue;
        }
        let captured = capture(&format!("redfish=mockup:{}", dir.display()), &[], false);
        assert_eq!(
            captured.status(),
            "complete",
            "{mockup_name}: {}",
            captured.stderr
        );
        let placed = firmware_attributes(&captured.snapshot);
        // Each attribute the service reports, judged by the registry its resource names.
        for (uri, body) in &mockup.resources {
            let Some(attributes) = body["Attributes"].as_object() else {
                continue;
            };
            let Some(registry) = registry_of(&mockup, &registries, uri) else {
                continue;
            };
            for (name, value) in attributes {
                let Some(entry) = registry.entries.get(name) else {
                    continue;
                };
                let version = reports_version(name, entry);
                let writable = entry.get("ReadOnly") != Some(&Value::Bool(true));
                if version && !value.is_null() && !placed.contains(name) {
                    problems.push(format!(
                        "{mockup_name}: {name} ({uri}) reports a version but is not firmware"
                    ));
                }
                if writable && placed.contains(name) {
                    problems.push(format!(
                        "{mockup_name}: {name} ({uri}) is writable but captured as firmware"
                    ));
                }
                if placed.contains(name) {
                    firmware.insert(name.clone());
                }
            }
        }
    }
    assert!(problems.is_empty(), "{problems:#?}");
    // The set, for review: every attribute of the shared captures and the fixtures that is
    // captured as firmware.
    assert_eq!(
        firmware.iter().map(String::as_str).collect::<Vec<_>>(),
        EXPECTED_FIRMWARE,
        "{firmware:#?}"
    );
}

/// Every attribute of the shared captures and the fixtures captured as firmware: iDRAC 9's NIC
/// image versions (`Broadcom_NCSI` is "APE FW"), its BIOS's CPLD, ME, TPM, microcode and UEFI
/// compliance versions, XCC's port versions, and the fixtures' unknown spellings.
const EXPECTED_FIRMWARE: &[&str] = &[
    "Broadcom_CCMVersion",
    "Broadcom_MBAVersion",
    "Broadcom_NCSI",
    "Broadcom_RDMAVersion",
    "ControllerBIOSVersion",
    "EFIVersion",
    "FamilyVersion",
    "PCIE_SLOT_1_Port1_EFIVersion",
    "PCIE_SLOT_1_Port1_FirmwareVersion",
    "PCIE_SLOT_1_Port2_EFIVersion",
    "PCIE_SLOT_1_Port2_FirmwareVersion",
    "PCIE_SLOT_2_Port1_FirmwareVersion",
    "PCIE_SLOT_2_Port1_MBAVersion",
    "Proc1Microcode",
    "Proc2Microcode",
    "SystemBiosVersion",
    "SystemCpldVersion",
    "SystemInformation_UEFIVersion",
    "SystemMeVersion",
    "TpmFirmware",
    "UefiComplianceVersion",
    "Vendor_BootCode",
    "Vendor_Bundle",
    "Vendor_NCSI",
    "Vendor_PXE",
];

#[test]
fn volatile_values_changing_by_themselves_stay_silent_under_strict_on_every_mockup() {
    let mut changed_anywhere = BTreeSet::new();
    let mut loud = Vec::new();
    for (mockup_name, dir) in every_mockup() {
        let mut mockup = Mockup::load(&dir);
        let changed = change_volatile_values(&mut mockup);
        if changed.is_empty() {
            continue;
        }
        let after = tempfile::tempdir().unwrap();
        mockup.write(after.path());
        let judged = check_mockups(&dir, after.path(), true);
        if let Err(said) = adds_nothing(&pre_existing(&dir), &judged) {
            loud.push(format!("{mockup_name}: {said}"));
        }
        changed_anywhere.extend(changed);
    }
    assert!(loud.is_empty(), "{loud:#?}");
    // What was changed, among others: the link's state and speed, a temperature, clocks.
    for name in [
        "LinkStatus",
        "LnkSpeed",
        "Vendor_NegotiatedLinkSpeed",
        "Vendor_PortTemperature",
        "Vendor_LastLinkChange",
        "PCIE_SLOT_2_Port1_LinkStatus",
        "PCIE_SLOT_2_Port1_CurrentLinkSpeed",
        "SystemInformation_LastBootTime",
    ] {
        assert!(
            changed_anywhere.contains(name),
            "{name}: {changed_anywhere:#?}"
        );
    }
}

const DELL_DCB: &str = "tests/fixtures/redfish/dell-unknown-dcb";
const DELL_ATTRIBUTES: &str = "/redfish/v1/Chassis/System.Embedded.1/NetworkAdapters/NIC.Slot.4/NetworkDeviceFunctions/NIC.Slot.4-1-1/Oem/Dell/DellNetworkAttributes/NIC.Slot.4-1-1";
const DELL_FUNCTION: &str = "nic/b0:26:28:4c:5e:10/bmc/function/b0:26:28:4c:5e:10";
const LENOVO_DCB: &str = "tests/fixtures/redfish/lenovo-xcc-unknown-dcb";
const LENOVO_PORT: &str = "nic/94:6d:ae:60:11:20/bmc";

/// The fixture `fixture` with `attribute` of the resource `resource` (current and staged) set
/// to `value`, written to a temporary folder; judged against the fixture as it is.
fn judge_changed(
    fixture: &str,
    resources: &[&str],
    attribute: &str,
    value: Value,
    strict: bool,
) -> common::mockups::Judged {
    let before = root().join(fixture);
    let mut mockup = Mockup::load(&before);
    for resource in resources {
        let body = mockup
            .resources
            .get_mut(*resource)
            .unwrap_or_else(|| panic!("{fixture}: no {resource}"));
        assert!(
            body["Attributes"][attribute].is_string() || body["Attributes"][attribute].is_number(),
            "{resource}: {attribute}"
        );
        body["Attributes"][attribute] = value.clone();
    }
    let after = tempfile::tempdir().unwrap();
    mockup.write(after.path());
    check_mockups(&before, after.path(), strict)
}

#[test]
fn a_nic_setting_named_like_no_known_spelling_but_dcbx_in_its_registry_blocks_when_it_changes() {
    // iDRAC: `DisplayName: "DCBX Protocol"`.
    let judged = judge_changed(
        DELL_DCB,
        &[DELL_ATTRIBUTES],
        "Vendor_QosAgentMode",
        "Disabled".into(),
        false,
    );
    assert_eq!(judged.code, 1, "{}", judged.text);
    let path = format!("{DELL_FUNCTION}/hii/dcb/Vendor_QosAgentMode");
    let finding = judged.finding(&path);
    assert_eq!(
        (
            &finding["severity"],
            &finding["id"],
            &finding["old"],
            &finding["new"]
        ),
        (
            &"block".into(),
            &"bmc-hii-dcb".into(),
            &"IEEE".into(),
            &"Disabled".into()
        )
    );
    assert!(
        judged.text.contains(&path) && judged.text.contains("bmc-hii-dcb"),
        "{}",
        judged.text
    );
    assert!(
        judged.text.contains("registry") && judged.text.contains("please report"),
        "the finding says it was recognised by its registry text and asks for the spelling: {}",
        judged.text
    );
    // The capture names what recognised it: the registry's display name.
    let captured = capture(
        &format!("redfish=mockup:{}", root().join(DELL_DCB).display()),
        &[],
        false,
    );
    assert!(
        captured.stderr.contains(
            "Attributes/Vendor_QosAgentMode is judged a DCB setting because its registry \
             DisplayName \"DCBX Protocol\" says DCBX"
        ),
        "{}",
        captured.stderr
    );
    for (attribute, value, code, leaf, severity, rule) in [
        // `HelpText` naming priority flow control.
        (
            "Vendor_LosslessTraffic",
            Value::from("Disabled"),
            1,
            "hii/dcb/Vendor_LosslessTraffic",
            "block",
            "bmc-hii-dcb",
        ),
        // A writable DCBX version choice is a setting, not firmware.
        (
            "Vendor_DCBXVersion",
            "CEE".into(),
            1,
            "hii/dcb/Vendor_DCBXVersion",
            "block",
            "bmc-hii-dcb",
        ),
        // Help text that "Sets" how many "packets" says neither ETS nor anything DCB: it warns
        // as any setting driftgate does not normalize.
        (
            "Vendor_InterruptModeration",
            128.into(),
            0,
            "hii/Vendor_InterruptModeration",
            "warn",
            "bmc-hii-attributes",
        ),
        // A read-only capability (`…PFCSupport`) is no setting: a DCB one lost blocks.
        (
            "Vendor_PFCSupport",
            "Unavailable".into(),
            1,
            "hii/capability/dcb/Vendor_PFCSupport",
            "block",
            "bmc-dcb-capability-lost",
        ),
        // Changed otherwise, it warns.
        (
            "Vendor_PFCSupport",
            "Partial".into(),
            0,
            "hii/capability/dcb/Vendor_PFCSupport",
            "warn",
            "bmc-dcb-capability-lost",
        ),
    ] {
        let judged = judge_changed(DELL_DCB, &[DELL_ATTRIBUTES], attribute, value, false);
        assert_eq!(judged.code, code, "{attribute}: {}", judged.text);
        let finding = judged.finding(&format!("{DELL_FUNCTION}/{leaf}"));
        assert_eq!(
            (&finding["severity"], &finding["id"]),
            (&severity.into(), &rule.into()),
            "{attribute}"
        );
    }
}

#[test]
fn a_lenovo_port_attribute_with_dcb_in_its_registry_blocks_and_the_capture_asks_for_its_spelling() {
    let bios = [
        "/redfish/v1/Systems/1/Bios",
        "/redfish/v1/Systems/1/Bios/Pending",
    ];
    let judged = judge_changed(
        LENOVO_DCB,
        &bios,
        "PCIE_SLOT_2_Port1_QosAgentMode",
        "Disabled".into(),
        false,
    );
    assert_eq!(judged.code, 1, "{}", judged.text);
    let finding = judged.finding(&format!(
        "{LENOVO_PORT}/hii/dcb/PCIE_SLOT_2_Port1_QosAgentMode"
    ));
    assert_eq!(
        (
            &finding["severity"],
            &finding["id"],
            &finding["old"],
            &finding["new"]
        ),
        (
            &"block".into(),
            &"bmc-hii-dcb".into(),
            &"IEEE".into(),
            &"Disabled".into()
        )
    );
    // `HelpText` naming ETS.
    let judged = judge_changed(
        LENOVO_DCB,
        &bios,
        "PCIE_SLOT_2_Port1_TrafficClassBandwidth",
        "100,0,0,0,0,0,0,0".into(),
        false,
    );
    assert_eq!(judged.code, 1, "{}", judged.text);
    judged.finding(&format!(
        "{LENOVO_PORT}/hii/dcb/PCIE_SLOT_2_Port1_TrafficClassBandwidth"
    ));
    // A BIOS setting of no port whose display name says flow control.
    let judged = judge_changed(
        LENOVO_DCB,
        &bios,
        "DevicesandIOPorts_OnboardLANFlowControl",
        "Disabled".into(),
        false,
    );
    assert_eq!(judged.code, 1, "{}", judged.text);
    let finding = judged.finding("bios/dcb/DevicesandIOPorts_OnboardLANFlowControl");
    assert_eq!(
        (&finding["severity"], &finding["id"]),
        (&"block".into(), &"bios-dcb".into())
    );
    // The known spelling is still the typed fact.
    let judged = judge_changed(
        LENOVO_DCB,
        &bios,
        "PCIE_SLOT_2_Port1_DCBXMode",
        "Disabled".into(),
        false,
    );
    let finding = judged.finding(&format!("{LENOVO_PORT}/dcbx_mode"));
    assert_eq!(
        (&finding["id"], &finding["new"]),
        (&"dcbx-mode".into(), &"disabled".into())
    );
    // Each capture says which attribute was recognised by what, and asks for its spelling.
    let captured = capture(
        &format!("redfish=mockup:{}", root().join(LENOVO_DCB).display()),
        &[],
        false,
    );
    assert!(
        captured.stderr.contains("PCIE_SLOT_2_Port1_QosAgentMode")
            && captured.stderr.contains("DisplayName \"DCBX Protocol\"")
            && captured.stderr.contains("report"),
        "{}",
        captured.stderr
    );
}

#[test]
fn a_firmware_only_update_of_every_mockup_passes_strict() {
    let mut failed = Vec::new();
    for (mockup_name, dir) in every_mockup() {
        let mut mockup = Mockup::load(&dir);
        let bumped = update_firmware(&mut mockup);
        if bumped.is_empty() {
            continue;
        }
        let after = tempfile::tempdir().unwrap();
        mockup.write(after.path());
        let judged = check_mockups(&dir, after.path(), true);
        if let Err(said) = adds_nothing(&pre_existing(&dir), &judged) {
            failed.push(format!("{mockup_name}: {said}"));
        }
    }
    assert!(failed.is_empty(), "{failed:#?}");
}
