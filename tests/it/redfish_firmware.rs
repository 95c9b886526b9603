//! Redfish firmware inventory, BIOS and "nothing captured", end to end over fixtures in the
//! shapes of HPE iLO 6 and Lenovo XCC (`tests/fixtures/redfish/`), offline and over HTTP, and
//! over the real captures of `tests/fixtures/public/redfish`.

use crate::common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use common::capture::capture;
use common::simulator::Simulator;
use common::{copy_dir, public_data, root};
use serde_json::Value;

fn fixture(name: &str) -> PathBuf {
    root().join("tests/fixtures/redfish").join(name)
}

fn offline(dir: &Path) -> common::capture::Captured {
    capture(&format!("redfish=mockup:{}", dir.display()), &[], false)
}

fn facts(captured: &common::capture::Captured) -> &serde_json::Map<String, Value> {
    captured.snapshot["facts"]
        .as_object()
        .expect("a snapshot has facts")
}

/// The facts whose path starts with `prefix`.
fn under<'a>(
    captured: &'a common::capture::Captured,
    prefix: &str,
) -> BTreeMap<&'a str, &'a Value> {
    facts(captured)
        .iter()
        .filter(|(path, _)| path.starts_with(prefix))
        .map(|(path, value)| (path.as_str(), value))
        .collect()
}

fn edit(file: &Path, change: impl FnOnce(&mut Value)) {
    let mut body: Value = serde_json::from_slice(&std::fs::read(file).unwrap()).unwrap();
    change(&mut body);
    std::fs::write(file, serde_json::to_vec_pretty(&body).unwrap()).unwrap();
}

#[test]
fn hpe_numbered_inventory_is_keyed_by_name_and_slot_and_absent_entries_are_skipped() {
    let captured = offline(&fixture("hpe-ilo6"));
    assert_eq!(
        (captured.code, captured.status()),
        (0, "complete"),
        "{}",
        captured.error()
    );
    let firmware = under(&captured, "firmware/");
    let keys: Vec<&str> = firmware.keys().copied().collect();
    assert_eq!(
        keys,
        [
            "firmware/ilo_6@system_board/version",
            "firmware/mellanox_connectx-6_dx@slot_1/version",
            "firmware/mellanox_connectx-6_dx@slot_4/version",
            "firmware/system_rom@system_board/version",
        ]
    );
    assert!(
        !firmware.values().any(|v| v.as_str() == Some("-*")),
        "an absent entry's \"-*\" is no version: {firmware:?}"
    );
}

#[test]
fn hpe_renumbering_changes_no_firmware_fact() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&fixture("hpe-ilo6"), dir.path());
    // The BMC numbers the two ConnectX cards the other way round after a reset.
    let inventory = dir
        .path()
        .join("redfish/v1/UpdateService/FirmwareInventory");
    let (a, b) = (inventory.join("16"), inventory.join("19"));
    std::fs::rename(&a, inventory.join("tmp")).unwrap();
    std::fs::rename(&b, &a).unwrap();
    std::fs::rename(inventory.join("tmp"), &b).unwrap();
    for (folder, id) in [(&a, "16"), (&b, "19")] {
        edit(&folder.join("index.json"), |body| {
            body["Id"] = id.into();
            body["@odata.id"] = format!("/redfish/v1/UpdateService/FirmwareInventory/{id}/").into();
        });
    }
    let before = offline(&fixture("hpe-ilo6"));
    let after = offline(dir.path());
    assert_eq!(after.status(), "complete", "{}", after.error());
    assert_eq!(under(&before, "firmware/"), under(&after, "firmware/"));
    // And a real change of one card shows as that card's.
    edit(&a.join("index.json"), |body| {
        body["Version"] = "22.41.1000".into()
    });
    let bumped = offline(dir.path());
    assert_eq!(
        facts(&bumped)["firmware/mellanox_connectx-6_dx@slot_1/version"],
        "22.41.1000"
    );
    assert_eq!(
        facts(&bumped)["firmware/mellanox_connectx-6_dx@slot_4/version"],
        "22.39.1002"
    );
}

#[test]
fn two_inventory_members_claiming_one_component_make_the_capture_partial_naming_both() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&fixture("hpe-ilo6"), dir.path());
    let inventory = dir
        .path()
        .join("redfish/v1/UpdateService/FirmwareInventory");
    for (id, version) in [("BMC", "1.59"), ("bmc", "1.61")] {
        let uri = format!("/redfish/v1/UpdateService/FirmwareInventory/{id}");
        std::fs::create_dir_all(inventory.join(id)).unwrap();
        std::fs::write(
            inventory.join(id).join("index.json"),
            serde_json::to_vec_pretty(&serde_json::json!({
                "@odata.type": "#SoftwareInventory.v1_10_0.SoftwareInventory",
                "@odata.id": uri, "Id": id, "Name": "Management Controller",
                "Version": version, "Status": {"State": "Enabled", "Health": "OK"}}))
            .unwrap(),
        )
        .unwrap();
        edit(&inventory.join("index.json"), |body| {
            body["Members"]
                .as_array_mut()
                .unwrap()
                .push(serde_json::json!({"@odata.id": uri}));
            body["Members@odata.count"] = body["Members"].as_array().unwrap().len().into();
        });
    }
    let captured = offline(dir.path());
    captured.assert_incomplete("partial", "FirmwareInventory/BMC");
    assert!(
        captured.error().contains("FirmwareInventory/bmc") && captured.error().contains("`bmc`"),
        "{}",
        captured.error()
    );
}

#[test]
fn hpe_pending_bios_values_equal_to_the_current_ones_are_no_facts() {
    let captured = offline(&fixture("hpe-ilo6"));
    let pending = under(&captured, "bios/pending/");
    assert_eq!(
        pending.keys().copied().collect::<Vec<_>>(),
        ["bios/pending/WorkloadProfile"],
        "iLO stages every attribute; only the changed one is pending"
    );
}

#[test]
fn lenovo_port_attributes_have_one_home_and_versions_are_firmware() {
    let captured = offline(&fixture("lenovo-xcc"));
    assert_eq!(
        (captured.code, captured.status()),
        (0, "complete"),
        "{}",
        captured.error()
    );
    let port = "nic/94:6d:ae:53:cb:9b/bmc";
    let facts = facts(&captured);
    // Joined by the value of the `…_PermanentMACAddress` sibling, not only a MAC in the name;
    // `…_DCBXMode` is `dcbx_mode` only (not also raw), and `…_DCBXVersionSupport: "CEE"`
    // (a neighbour's name containing DCBX) overrides nothing.
    assert!(!facts.contains_key(&format!("{port}/hii/PCIE_SLOT_1_Port1_DCBXMode")));
    assert_eq!(facts[&format!("{port}/dcbx_mode")], "ieee");
    assert_eq!(
        facts[&format!("{port}/hii/capability/dcb/PCIE_SLOT_1_Port1_DCBXVersionSupport")],
        "CEE"
    );
    // The NIC's own agent is on: `…_LLDPNearestBridge: "Disabled"` does not hide it; an LLDP
    // setting driftgate does not normalize, it fails safe (`hii/dcb/`).
    assert_eq!(facts[&format!("{port}/lldp/nic_agent")], true);
    assert_eq!(
        facts[&format!("{port}/hii/dcb/PCIE_SLOT_1_Port1_LLDPNearestBridge")],
        "Disabled"
    );
    assert_eq!(facts[&format!("{port}/pending/dcbx_mode")], "disabled");
    assert_eq!(
        facts[&format!("{port}/firmware/hii/PCIE_SLOT_1_Port1_FirmwareVersion")],
        "26.39.1002"
    );
    assert!(facts.contains_key(&format!("{port}/firmware/hii/PCIE_SLOT_1_Port1_EFIVersion")));
    assert_eq!(facts[&format!("{port}/hii/Mellanox_NumberOfVFs")], 8);
    // Each attribute once: never also under bios/, a version never as a setting.
    let bios: Vec<&str> = under(&captured, "bios/").keys().copied().collect();
    assert_eq!(
        bios,
        [
            "bios/DevicesandIOPorts_COMPort1",
            "bios/DevicesandIOPorts_SRIOV",
            "bios/OperatingModes_ChooseOperatingMode",
        ]
    );
    let bios_file = fixture("lenovo-xcc").join("redfish/v1/Systems/1/Bios/index.json");
    let bios_body: Value = serde_json::from_slice(&std::fs::read(bios_file).unwrap()).unwrap();
    for name in bios_body["Attributes"].as_object().unwrap().keys() {
        let homes = facts
            .keys()
            .filter(|p| !p.contains("/pending/") && p.ends_with(&format!("/{name}")))
            .count();
        assert!(homes <= 1, "{name} has {homes} homes");
    }
    for port in ["94:6d:ae:53:cb:9b", "94:6d:ae:53:cb:9c"] {
        let mellanox = facts
            .keys()
            .filter(|p| p.contains(port) && p.contains("Mellanox"))
            .count();
        assert_eq!(mellanox, 1, "{port}");
    }
    assert!(
        !facts
            .keys()
            .any(|p| p.contains("/hii/") && p.ends_with("Version") && !p.contains("/firmware/")),
        "{facts:?}"
    );
    // The registry served outside /redfish/v1 was read: it types the innocent-looking
    // `DevicesandIOPorts_OnboardDeviceLabel` as a password.
    assert!(!captured.text.contains("OnboardDeviceLabel"));
    assert!(!captured.text.contains("3f9c2a"));
}

#[test]
fn lenovo_inventory_skips_absent_slots() {
    let captured = offline(&fixture("lenovo-xcc"));
    let keys: Vec<&str> = under(&captured, "firmware/").keys().copied().collect();
    assert!(keys.contains(&"firmware/slot_1.bundle/version"), "{keys:?}");
    assert!(!keys.iter().any(|k| k.contains("slot_3")), "{keys:?}");
}

#[test]
fn a_registry_outside_redfish_v1_is_read_over_http_on_the_same_origin_only() {
    let offline = offline(&fixture("lenovo-xcc"));
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&fixture("lenovo-xcc"), dir.path());
    let server = Simulator::start(dir.path(), &["--auth", "session"]);
    let live = capture(&format!("redfish={}", server.url), &[], true);
    assert_eq!(
        (live.code, live.status()),
        (0, "complete"),
        "{}",
        live.error()
    );
    assert_eq!(offline.snapshot["facts"], live.snapshot["facts"]);
    // A full URL on the same origin is the same registry.
    let registry_file = dir
        .path()
        .join("redfish/v1/Registries/BiosAttributeRegistry.1.0.0/index.json");
    let url = server.url.clone();
    edit(&registry_file, |body| {
        body["Location"][0]["Uri"] = format!("{url}/registries/BiosAttributeRegistry.json").into();
    });
    let full = capture(&format!("redfish={}", server.url), &[], true);
    assert_eq!(full.status(), "complete", "{}", full.error());
    assert_eq!(offline.snapshot["facts"], full.snapshot["facts"]);
    // Another origin is never asked (the credentials would follow): partial, naming it.
    let elsewhere = "https://registry.example.net/registries/BiosAttributeRegistry.json";
    edit(&registry_file, |body| {
        body["Location"][0]["Uri"] = elsewhere.into()
    });
    let other = capture(&format!("redfish={}", server.url), &[], true);
    other.assert_incomplete("partial", elsewhere);
    assert!(
        other.error().contains("another origin"),
        "{}",
        other.error()
    );
}

#[test]
fn a_saved_mockup_keeps_a_registry_outside_redfish_v1() {
    let saved = tempfile::tempdir().unwrap();
    let first = capture(
        &format!("redfish=mockup:{}", fixture("lenovo-xcc").display()),
        &["--save-mockup", &saved.path().display().to_string()],
        false,
    );
    assert_eq!(first.status(), "complete", "{}", first.error());
    assert!(
        saved
            .path()
            .join("registries/BiosAttributeRegistry.json/index.json")
            .is_file()
    );
    let replay = offline(saved.path());
    assert_eq!(replay.status(), "complete", "{}", replay.error());
    assert_eq!(first.snapshot["facts"], replay.snapshot["facts"]);
}

#[test]
fn a_service_that_yields_nothing_is_failed_naming_what_was_looked_at() {
    let dir = fixture("empty-service");
    let captured = offline(&dir);
    captured.assert_incomplete(
        "failed",
        &format!("nothing found at mockup:{}", dir.display()),
    );
    for looked_at in [
        "/redfish/v1/Systems",
        "/redfish/v1/Chassis",
        "/redfish/v1/UpdateService",
        "0 firmware inventory entries",
    ] {
        assert!(captured.error().contains(looked_at), "{}", captured.error());
    }
    let server = Simulator::start(&dir, &[]);
    let live = capture(&format!("redfish={}", server.url), &[], true);
    live.assert_incomplete("failed", "nothing found at http://127.0.0.1:");
}

/// A copy of `empty-service` with one system whose only Ethernet interface carries a MAC.
fn identity_only() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&fixture("empty-service"), dir.path());
    let v1 = dir.path().join("redfish/v1");
    let write = |rel: &str, body: Value| {
        let file = v1.join(rel).join("index.json");
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, serde_json::to_vec_pretty(&body).unwrap()).unwrap();
    };
    edit(&v1.join("Systems/index.json"), |body| {
        body["Members"] = serde_json::json!([{"@odata.id": "/redfish/v1/Systems/1"}]);
        body["Members@odata.count"] = 1.into();
    });
    write(
        "Systems/1",
        serde_json::json!({"@odata.type": "#ComputerSystem.v1_20_0.ComputerSystem", "Id": "1",
            "Name": "System", "@odata.id": "/redfish/v1/Systems/1",
            "EthernetInterfaces": {"@odata.id": "/redfish/v1/Systems/1/EthernetInterfaces"}}),
    );
    write(
        "Systems/1/EthernetInterfaces",
        serde_json::json!({"@odata.type": "#EthernetInterfaceCollection.EthernetInterfaceCollection",
            "Name": "Ethernet Interfaces", "Members@odata.count": 1,
            "Members": [{"@odata.id": "/redfish/v1/Systems/1/EthernetInterfaces/1"}],
            "@odata.id": "/redfish/v1/Systems/1/EthernetInterfaces"}),
    );
    write(
        "Systems/1/EthernetInterfaces/1",
        serde_json::json!({"@odata.type": "#EthernetInterface.v1_12_0.EthernetInterface", "Id": "1",
            "Name": "NIC 1", "PermanentMACAddress": "02:5e:10:00:00:01",
            "MACAddress": "02:5e:10:00:00:01",
            "@odata.id": "/redfish/v1/Systems/1/EthernetInterfaces/1"}),
    );
    dir
}

#[test]
fn a_port_s_identity_alone_is_nothing_found() {
    let dir = identity_only();
    let captured = offline(dir.path());
    captured.assert_incomplete("failed", "nothing found at mockup:");
    assert!(
        captured.error().contains("1 Ethernet interfaces"),
        "{}",
        captured.error()
    );
}

#[test]
fn a_crawl_with_errors_and_no_facts_is_failed() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&fixture("empty-service"), dir.path());
    // The firmware inventory is gone: an error, and still nothing found.
    std::fs::remove_file(
        dir.path()
            .join("redfish/v1/UpdateService/FirmwareInventory/index.json"),
    )
    .unwrap();
    let captured = offline(dir.path());
    captured.assert_incomplete("failed", "nothing found at mockup:");
    assert!(
        captured.error().contains("FirmwareInventory"),
        "the error that explains it is kept: {}",
        captured.error()
    );
}

/// The Dell FQDD rule is unchanged: on every real iDRAC capture each firmware component is
/// the FQDD of an `Installed-`/`Current-` member, and every such FQDD with a version is one.
#[test]
fn dell_firmware_keys_on_the_shared_captures_are_their_fqdds() {
    let shared = public_data("redfish");
    for name in ["libredfish-dell", "libredfish-dell_multi_dpu"] {
        let dir = shared.join(name);
        let inventory = dir.join("redfish/v1/UpdateService/FirmwareInventory");
        let mut expected: Vec<String> = std::fs::read_dir(&inventory)
            .unwrap()
            .filter_map(|entry| {
                let file = entry.unwrap().path().join("index.json");
                let body: Value = serde_json::from_slice(&std::fs::read(file).ok()?).ok()?;
                let id = body["Id"].as_str()?;
                let (_, fqdd) = id.split_once("__")?;
                let running = id.starts_with("Installed-") || id.starts_with("Current-");
                let version = body["Version"].as_str().is_some_and(|v| !v.is_empty());
                (running && version)
                    .then(|| format!("firmware/{}/version", fqdd.to_ascii_lowercase()))
            })
            .collect();
        expected.sort();
        expected.dedup();
        let captured = offline(&dir);
        assert_eq!(
            captured.status(),
            "complete",
            "{name}: {}",
            captured.error()
        );
        let keys: Vec<String> = under(&captured, "firmware/")
            .keys()
            .filter(|k| !k.starts_with("firmware/bios/attribute/"))
            .map(|k| (*k).to_owned())
            .collect();
        assert_eq!(keys, expected, "{name}");
    }
}
