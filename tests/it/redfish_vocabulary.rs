//! Settings judged by what their names mean, for any vendor (issue 61): the OEM properties of a
//! vendor driftgate has no module for (`tests/fixtures/redfish/acme-oem`), and the read-only
//! capability flags of a Mellanox card on Dell (`tests/fixtures/redfish/dell-dcb-capabilities`),
//! each changed as a firmware update would change it and judged by `check --baseline`.

use crate::common;

use common::attribute_classes::update_firmware;
use common::capture::capture;
use common::mockups::{Judged, Mockup, check_mockups};
use common::root;
use serde_json::Value;

const ACME: &str = "tests/fixtures/redfish/acme-oem";
const ACME_ADAPTER: &str = "/redfish/v1/Chassis/1/NetworkAdapters/A1";
const ACME_PORT: &str = "nic/02:ac:3e:00:00:01/bmc";

const DELL: &str = "tests/fixtures/redfish/dell-dcb-capabilities";
const DELL_ATTRIBUTES: &str = "/redfish/v1/Chassis/System.Embedded.1/NetworkAdapters/NIC.Slot.7/NetworkDeviceFunctions/NIC.Slot.7-1-1/Oem/Dell/DellNetworkAttributes/NIC.Slot.7-1-1";
const DELL_PORT: &str = "nic/0c:42:a1:7e:0b:70";
const DELL_FUNCTION: &str = "nic/0c:42:a1:7e:0b:70/bmc/function/0c:42:a1:7e:0b:70";

/// The fixture `fixture` after a firmware update that also makes `edit`, judged against the
/// fixture as it is.
fn updated(fixture: &str, edit: impl FnOnce(&mut Mockup)) -> Judged {
    let before = root().join(fixture);
    let mut mockup = Mockup::load(&before);
    assert!(!update_firmware(&mut mockup).is_empty(), "{fixture}");
    edit(&mut mockup);
    let after = tempfile::tempdir().unwrap();
    mockup.write(after.path());
    check_mockups(&before, after.path(), false)
}

/// The resource `uri` of `mockup`.
fn resource<'m>(mockup: &'m mut Mockup, uri: &str) -> &'m mut Value {
    mockup
        .resources
        .get_mut(uri)
        .unwrap_or_else(|| panic!("no {uri}"))
}

/// `(severity, id)` of a finding.
fn judged_as(finding: &Value) -> (&str, &str) {
    (
        finding["severity"].as_str().unwrap(),
        finding["id"].as_str().unwrap(),
    )
}

#[test]
fn an_unseen_vendor_s_nic_lldp_agent_switched_on_by_a_firmware_update_blocks_naming_the_port() {
    let judged = updated(ACME, |mockup| {
        resource(mockup, ACME_ADAPTER)["Oem"]["Acme"]["NicConfig"]["LldpAgentEnabled"] =
            true.into();
    });
    assert_eq!(judged.code, 1, "{}", judged.text);
    let path = format!("{ACME_PORT}/oem/dcb/Acme/NicConfig/LldpAgentEnabled");
    let finding = judged.finding(&path);
    assert_eq!(judged_as(finding), ("block", "bmc-oem-dcb"));
    assert_eq!(
        (&finding["old"], &finding["new"]),
        (&false.into(), &true.into())
    );
    // The port's own firmware is named beside it.
    let firmware = finding["firmware"].as_array().unwrap();
    assert!(
        firmware
            .iter()
            .any(|f| f["this_port"] == true && f["path"] == format!("{ACME_PORT}/firmware/version")),
        "{finding:#}"
    );
    assert!(
        judged.text.contains("02:ac:3e:00:00:01") && judged.text.contains("LldpAgentEnabled"),
        "{}",
        judged.text
    );
    // RoCE on the port and trusted CoS on the function are DCB settings too.
    for (edit, path) in [
        (
            ("/Ports/1", "PortConfig", "Rocev2Enabled"),
            format!("{ACME_PORT}/oem/dcb/Acme/PortConfig/Rocev2Enabled"),
        ),
        (
            (
                "/NetworkDeviceFunctions/1",
                "FunctionConfig",
                "TrustedCosEnabled",
            ),
            format!(
                "{ACME_PORT}/function/02:ac:3e:00:00:01/oem/dcb/Acme/FunctionConfig/TrustedCosEnabled"
            ),
        ),
    ] {
        let (member, object, property) = edit;
        let judged = updated(ACME, |mockup| {
            let uri = format!("{ACME_ADAPTER}{member}");
            resource(mockup, &uri)["Oem"]["Acme"][object][property] = false.into();
        });
        assert_eq!(judged.code, 1, "{property}: {}", judged.text);
        assert_eq!(judged_as(judged.finding(&path)), ("block", "bmc-oem-dcb"));
    }
}

#[test]
fn an_unseen_vendor_s_other_oem_setting_only_warns_and_its_link_state_is_silent() {
    let judged = updated(ACME, |mockup| {
        let adapter = resource(mockup, ACME_ADAPTER);
        adapter["Oem"]["Acme"]["NicConfig"]["BootRetries"] = 5.into();
        // An embedded resource's counters are no settings: not read.
        adapter["Oem"]["Acme"]["Metrics"]["RxPauseFrames"] = 9000.into();
        let port = resource(mockup, &format!("{ACME_ADAPTER}/Ports/1"));
        port["Oem"]["Acme"]["PortConfig"]["LinkStatus"] = "Down".into();
    });
    assert_eq!(judged.code, 0, "{}", judged.text);
    let finding = judged.finding(&format!("{ACME_PORT}/oem/Acme/NicConfig/BootRetries"));
    assert_eq!(judged_as(finding), ("warn", "bmc-oem-properties"));
    let findings = judged.findings();
    assert!(
        findings
            .iter()
            .all(|f| !f.contains("LinkStatus") && !f.contains("RxPauseFrames")),
        "{findings:#?}"
    );
    assert_eq!(judged.json["verdict"], "warn", "{}", judged.text);
}

#[test]
fn the_capture_says_which_oem_properties_it_judged_dcb_settings_and_why() {
    let captured = capture(
        &format!("redfish=mockup:{}", root().join(ACME).display()),
        &[],
        false,
    );
    assert_eq!((captured.code, captured.status()), (0, "complete"));
    assert!(
        captured.stderr.contains(
            "/redfish/v1/Chassis/1/NetworkAdapters/A1: Oem/Acme/NicConfig/LldpAgentEnabled is \
             judged a DCB setting because its name \"NicConfig LldpAgentEnabled\" says LLDP"
        ),
        "{}",
        captured.stderr
    );
    // A capability flag reports what the NIC can do: no DCB setting to report.
    assert!(
        !captured.stderr.contains("PriorityFlowControl"),
        "{}",
        captured.stderr
    );
    let facts = captured.snapshot["facts"].as_object().unwrap();
    assert_eq!(
        facts[&format!("{ACME_PORT}/oem/capability/dcb/Acme/NicConfig/PriorityFlowControl")],
        "Available"
    );
    assert!(!facts.keys().any(|path| path.contains("RxPauseFrames")));
}

#[test]
fn read_only_capability_flags_are_not_announced_as_dcb_settings_driftgate_does_not_know() {
    let captured = capture(
        &format!("redfish=mockup:{}", root().join(DELL).display()),
        &[],
        false,
    );
    assert_eq!((captured.code, captured.status()), (0, "complete"));
    assert!(
        !captured.stderr.contains("judged a DCB setting"),
        "{}",
        captured.stderr
    );
    let facts = captured.snapshot["facts"].as_object().unwrap();
    // With a registry entry (`DCBXSupport`) and without one (`PriorityFlowControl`).
    for name in [
        "DCBXSupport",
        "PriorityFlowControl",
        "EnhancedTransmissionSelection",
    ] {
        assert_eq!(
            facts[&format!("{DELL_FUNCTION}/hii/capability/dcb/{name}")],
            "Available",
            "{name}"
        );
    }
    assert_eq!(
        facts[&format!("{DELL_FUNCTION}/hii/capability/SRIOVSupport")],
        "Available"
    );
}

#[test]
fn a_dcb_capability_lost_with_a_firmware_update_blocks_naming_the_port_and_the_capability() {
    for name in ["DCBXSupport", "PriorityFlowControl"] {
        let judged = updated(DELL, |mockup| {
            resource(mockup, DELL_ATTRIBUTES)["Attributes"][name] = "Unavailable".into();
        });
        assert_eq!(judged.code, 1, "{name}: {}", judged.text);
        let path = format!("{DELL_FUNCTION}/hii/capability/dcb/{name}");
        let finding = judged.finding(&path);
        assert_eq!(judged_as(finding), ("block", "bmc-dcb-capability-lost"));
        assert!(
            finding["message"]
                .as_str()
                .unwrap()
                .starts_with("a DCB capability lost"),
            "{finding:#}"
        );
        assert!(
            judged.text.contains(DELL_PORT.trim_start_matches("nic/"))
                && judged.text.contains(name),
            "{}",
            judged.text
        );
    }
}

#[test]
fn a_capability_gained_or_one_that_is_not_dcb_does_not_block() {
    // The update alone.
    let judged = updated(DELL, |_| {});
    assert_eq!(judged.code, 0, "{}", judged.text);
    assert_eq!(judged.json["verdict"], "pass", "{}", judged.text);
    // FCoE offload gained: info; SR-IOV lost: a capability, not DCB: a warning.
    let judged = updated(DELL, |mockup| {
        let attributes = &mut resource(mockup, DELL_ATTRIBUTES)["Attributes"];
        attributes["FCoEOffloadSupport"] = "Available".into();
        attributes["SRIOVSupport"] = "Unavailable".into();
    });
    assert_eq!(judged.code, 0, "{}", judged.text);
    let gained = judged.finding(&format!(
        "{DELL_FUNCTION}/hii/capability/dcb/FCoEOffloadSupport"
    ));
    assert_eq!(judged_as(gained), ("info", "bmc-dcb-capability-lost"));
    let other = judged.finding(&format!("{DELL_FUNCTION}/hii/capability/SRIOVSupport"));
    assert_eq!(judged_as(other), ("warn", "bmc-capability"));
}
