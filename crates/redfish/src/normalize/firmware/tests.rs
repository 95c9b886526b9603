use super::*;
use driftgate_snapshot::Facts;
use serde_json::json;

fn adapter(value: Value) -> AdapterInventory {
    AdapterInventory {
        adapter: value,
        ..AdapterInventory::default()
    }
}

fn facts_and_links(firmware: &[Value], adapters: &[AdapterInventory]) -> (Facts, FirmwareLinks) {
    let (out, links) = normalized(firmware, adapters);
    assert!(out.problems.is_empty(), "{:?}", out.problems);
    (out.facts, links)
}

fn normalized(firmware: &[Value], adapters: &[AdapterInventory]) -> (Normalized, FirmwareLinks) {
    let mut out = Normalized::default();
    let links = firmware_facts(firmware, adapters, (&[], &[], Vendor::Generic), &mut out);
    (out, links)
}

fn version(facts: &Facts, component: &str) -> Option<String> {
    facts
        .get(format!("firmware/{component}/version").as_str())
        .map(ToString::to_string)
}

/// iLO 6: numbered members, two identical ConnectX-6 cards told apart only by their
/// `Oem.Hpe.DeviceContext`, an empty slot answering `"-*"`.
fn hpe_inventory() -> Vec<Value> {
    let member = |id: &str, name: &str, context: &str, version: &str, state: &str| {
        json!({"@odata.id": format!("/redfish/v1/UpdateService/FirmwareInventory/{id}/"), "Id": id,
               "Name": name, "Version": version, "Updateable": true,
               "Oem": {"Hpe": {"@odata.type": "#HpeiLOSoftwareInventory.v2_1_0.HpeiLOSoftwareInventory",
                               "DeviceClass": "5b1e9a2c-0b45-4d5b-9c1d-3a6f0f0e2b11", "DeviceContext": context,
                               "Targets": ["0b0d5e5e-7a2f-4c3a-9f8e-2b1c7d6e5f40"]}},
               "Status": {"Health": "OK", "State": state}})
    };
    vec![
        member("1", "iLO 6", "System Board", "1.59 Jun 12 2024", "Enabled"),
        member(
            "16",
            "Mellanox ConnectX-6 Dx",
            "Slot 4",
            "22.39.1002",
            "Enabled",
        ),
        member(
            "19",
            "Mellanox ConnectX-6 Dx",
            "Slot 1",
            "22.39.1002",
            "Enabled",
        ),
        member("21", "Embedded Video Controller", "Slot 3", "-*", "Absent"),
        member("22", "NVMe Backplane", "Box 2", "1.20", "Disabled"),
    ]
}

#[test]
fn numbered_members_are_keyed_by_name_and_device_context_and_absent_ones_skipped() {
    let (facts, _) = facts_and_links(&hpe_inventory(), &[]);
    assert_eq!(
        version(&facts, "mellanox_connectx-6_dx@slot_1").as_deref(),
        Some("\"22.39.1002\"")
    );
    assert_eq!(
        version(&facts, "mellanox_connectx-6_dx@slot_4").as_deref(),
        Some("\"22.39.1002\"")
    );
    assert!(version(&facts, "ilo_6@system_board").is_some());
    assert_eq!(
        facts.len(),
        3,
        "absent and disabled members are skipped: {facts:?}"
    );
    assert!(!facts.keys().any(|k| k.as_str().contains("/16/")));
}

#[test]
fn renumbering_changes_no_key() {
    let mut renumbered = hpe_inventory();
    for (index, item) in renumbered.iter_mut().enumerate() {
        item["Id"] = json!((40 + index).to_string());
    }
    renumbered.reverse();
    let (before, _) = facts_and_links(&hpe_inventory(), &[]);
    let (after, _) = facts_and_links(&renumbered, &[]);
    assert_eq!(before, after);
}

#[test]
fn numbered_members_that_read_the_same_get_distinct_keys_in_a_stable_order() {
    let same =
        |id: &str, version: &str| json!({"Id": id, "Name": "Intel E810", "Version": version});
    let (facts, _) = facts_and_links(&[same("7", "4.40"), same("3", "4.30")], &[]);
    assert_eq!(version(&facts, "intel_e810").as_deref(), Some("\"4.30\""));
    assert_eq!(version(&facts, "intel_e810-2").as_deref(), Some("\"4.40\""));
    let (facts, _) = facts_and_links(&[json!({"Id": "9", "Version": "1"})], &[]);
    assert_eq!(version(&facts, "firmware-9").as_deref(), Some("\"1\""));
}

#[test]
fn hpe_members_link_to_the_adapter_in_their_slot() {
    let adapters = [
        adapter(
            json!({"@odata.id": "/redfish/v1/Chassis/1/NetworkAdapters/DE07A000", "Id": "DE07A000",
                        "Location": {"PartLocation": {"LocationType": "Slot", "LocationOrdinalValue": 1, "ServiceLabel": "PCI-E Slot 1"}}}),
        ),
        adapter(
            json!({"@odata.id": "/redfish/v1/Chassis/1/NetworkAdapters/DE07C000/", "Id": "DE07C000",
                        "Location": {"PartLocation": {"LocationType": "Slot", "LocationOrdinalValue": 4, "ServiceLabel": "PCI-E Slot 4"}}}),
        ),
        adapter(
            json!({"@odata.id": "/redfish/v1/Chassis/1/NetworkAdapters/DE081000", "Id": "DE081000"}),
        ),
        adapter(
            json!({"@odata.id": "/redfish/v1/Chassis/1/NetworkAdapters/DC080000", "Id": "DC080000",
                        "Location": {"PartLocation": {"LocationType": "Embedded", "ServiceLabel": "Embedded LOM"}}}),
        ),
        adapter(
            json!({"@odata.id": "/redfish/v1/Chassis/1/NetworkAdapters/DE083000", "Id": "DE083000",
                        "Location": {"PartLocation": {"LocationType": "Slot", "LocationOrdinalValue": 4}}}),
        ),
    ];
    let mut firmware = hpe_inventory();
    firmware.push(
        json!({"Id": "30", "Name": "HPE Ethernet 1Gb 4-port 366FLR", "Version": "1.3153.0",
        "Oem": {"Hpe": {"DeviceContext": "Embedded LOM"}}, "Status": {"State": "Enabled"}}),
    );
    let (_, links) = facts_and_links(&firmware, &adapters);
    assert_eq!(
        links.component_of("/redfish/v1/Chassis/1/NetworkAdapters/DC080000", &[], &[]),
        Some("hpe_ethernet_1gb_4-port_366flr@embedded_lom")
    );
    assert_eq!(
        links.component_of("/redfish/v1/Chassis/1/NetworkAdapters/DE083000", &[], &[]),
        Some("mellanox_connectx-6_dx@slot_4"),
        "a slot's ordinal"
    );
    assert_eq!(
        links.component_of("/redfish/v1/Chassis/1/NetworkAdapters/DE07A000/", &[], &[]),
        Some("mellanox_connectx-6_dx@slot_1")
    );
    assert_eq!(
        links.component_of("/redfish/v1/Chassis/1/NetworkAdapters/DE07C000", &[], &[]),
        Some("mellanox_connectx-6_dx@slot_4")
    );
    assert_eq!(
        links.component_of("/redfish/v1/Chassis/1/NetworkAdapters/DE081000", &[], &[]),
        None
    );
}

#[test]
fn dell_fqdds_keep_their_keys_and_link_to_their_adapter() {
    let firmware = [
        json!({"Id": "Current-108089-21.80.16.95__NIC.Slot.3-1-1", "Version": "21.80.16.95", "Status": {"State": "Enabled"}}),
        json!({"Id": "Installed-108089-21.80.16.95__NIC.Slot.3-2-1", "Version": "21.80.16.95"}),
        json!({"Id": "Installed-108089-21.80.16.95__NIC.Slot.3-1-1", "Version": "21.80.16.96"}),
        json!({"Id": "Previous-108089-21.60.1__NIC.Slot.3-1-1", "Version": "21.60.1"}),
        json!({"Id": "Installed-0-24.40.10.00__NIC.Slot.31-1", "Version": "24.40"}),
    ];
    let adapters = [adapter(
        json!({"@odata.id": "/redfish/v1/Chassis/System.Embedded.1/NetworkAdapters/NIC.Slot.3", "Id": "NIC.Slot.3"}),
    )];
    let (facts, links) = facts_and_links(&firmware, &adapters);
    assert_eq!(
        version(&facts, "nic.slot.3-1-1").as_deref(),
        Some("\"21.80.16.96\"")
    );
    assert_eq!(
        version(&facts, "nic.slot.3-2-1").as_deref(),
        Some("\"21.80.16.95\"")
    );
    assert_eq!(
        links.component_of(
            "/redfish/v1/Chassis/System.Embedded.1/NetworkAdapters/NIC.Slot.3",
            &[],
            &[]
        ),
        Some("nic.slot.3-1-1")
    );
}

#[test]
fn a_dell_port_runs_the_entry_of_its_own_function_fqdd() {
    let firmware = [
        json!({"Id": "Installed-1-21.80.9__NIC.Embedded.1-1-1", "Version": "21.80.9"}),
        json!({"Id": "Installed-1-21.81.3__NIC.Embedded.2-1-1", "Version": "21.81.3"}),
    ];
    let uri = "/redfish/v1/Chassis/System.Embedded.1/NetworkAdapters/NIC.Embedded.1";
    let adapters = [adapter(json!({"@odata.id": uri, "Id": "NIC.Embedded.1"}))];
    let (_, links) = facts_and_links(&firmware, &adapters);
    assert_eq!(
        links.component_of(uri, &["NIC.Embedded.2-1-1", "NIC.Embedded.2-1"], &[]),
        Some("nic.embedded.2-1-1")
    );
    assert_eq!(
        links.component_of(uri, &["NIC.Embedded.1-1-1"], &[]),
        Some("nic.embedded.1-1-1")
    );
    assert_eq!(
        links.component_of(uri, &["NIC.Slot.9-1-1"], &[]),
        Some("nic.embedded.1-1-1")
    );
}

#[test]
fn related_items_link_a_member_to_its_adapter_its_ports_or_its_only_chassis() {
    let firmware = [
        json!({"Id": "CX7_0", "Version": "28.39", "RelatedItem": [{"@odata.id": "/redfish/v1/Chassis/Card1/NetworkAdapters/CX7/Ports/0"}]}),
        json!({"Id": "BF3", "Version": "32.41", "RelatedItem": [{"@odata.id": "/redfish/v1/Chassis/DPU"}]}),
        json!({"Id": "Shared", "Version": "1", "RelatedItem": [{"@odata.id": "/redfish/v1/Chassis/Multi"}]}),
        json!({"Id": "BMC", "Version": "1.45", "RelatedItem": [{"@odata.id": "/redfish/v1/Managers/BMC"}]}),
    ];
    let adapters = [
        adapter(json!({"@odata.id": "/redfish/v1/Chassis/Card1/NetworkAdapters/CX7", "Id": "CX7"})),
        adapter(json!({"@odata.id": "/redfish/v1/Chassis/DPU/NetworkAdapters/NIC0", "Id": "NIC0"})),
        adapter(json!({"@odata.id": "/redfish/v1/Chassis/Multi/NetworkAdapters/A", "Id": "A"})),
        adapter(json!({"@odata.id": "/redfish/v1/Chassis/Multi/NetworkAdapters/B", "Id": "B"})),
    ];
    let (_, links) = facts_and_links(&firmware, &adapters);
    assert_eq!(
        links.component_of("/redfish/v1/Chassis/Card1/NetworkAdapters/CX7", &[], &[]),
        Some("cx7_0")
    );
    assert_eq!(
        links.component_of("/redfish/v1/Chassis/DPU/NetworkAdapters/NIC0", &[], &[]),
        Some("bf3")
    );
    assert_eq!(
        links.component_of("/redfish/v1/Chassis/Multi/NetworkAdapters/A", &[], &[]),
        None
    );
}

#[test]
fn lenovo_slot_names_link_to_the_adapter_in_that_slot() {
    let firmware = [
        json!({"Id": "Slot_1.Bundle", "Name": "Mellanox ConnectX-6 Lx", "Version": "26.39.1002", "Status": {"State": "Enabled"}}),
        json!({"Id": "UEFI", "Name": "UEFI", "Version": "ESE122T"}),
    ];
    let adapters = [adapter(
        json!({"@odata.id": "/redfish/v1/Chassis/1/NetworkAdapters/slot-1", "Id": "slot-1",
               "Location": {"PartLocation": {"ServiceLabel": "Slot 1", "LocationType": "Slot"}}}),
    )];
    let (facts, links) = facts_and_links(&firmware, &adapters);
    assert!(version(&facts, "slot_1.bundle").is_some());
    assert_eq!(
        links.component_of("/redfish/v1/Chassis/1/NetworkAdapters/slot-1", &[], &[]),
        Some("slot_1.bundle")
    );
}

#[test]
fn a_mistyped_state_related_item_or_device_context_is_named() {
    use crate::crawl::Inventory;
    let inventory = Inventory {
        firmware: vec![
            json!({"@odata.id": "/redfish/v1/UpdateService/FirmwareInventory/3", "Id": "3",
            "Name": "NIC", "Version": "-*", "Status": {"State": 0},
            "RelatedItem": {"@odata.id": "/redfish/v1/Chassis/1"},
            "Oem": {"Hpe": {"DeviceContext": ["Slot 1"]}}}),
            json!({"@odata.id": "/redfish/v1/UpdateService/FirmwareInventory/4", "Id": "4",
            "Version": "1", "Status": {"State": null}, "RelatedItem": ["/redfish/v1/Chassis/1"]}),
        ],
        ..Inventory::default()
    };
    let mut problems: Vec<String> = crate::shape::check(&inventory)
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(problems.len(), 2, "a null State is absent: {problems:?}");
    // `RelatedItem` is checked on its own: normalization weighs it by the ports it may tie.
    problems.extend(
        inventory
            .firmware
            .iter()
            .flat_map(crate::shape::related_item)
            .map(|problem| problem.to_string()),
    );
    let named = |what: &str| problems.iter().any(|p| p.contains(what));
    assert!(named("FirmwareInventory/3: Status/State"), "{problems:?}");
    assert!(named("FirmwareInventory/3: RelatedItem"), "{problems:?}");
    assert!(
        named("FirmwareInventory/3: Oem/Hpe/DeviceContext"),
        "{problems:?}"
    );
    assert!(named("FirmwareInventory/4: RelatedItem/0"), "{problems:?}");
    assert_eq!(problems.len(), 4, "{problems:?}");
}

/// Cisco CIMC 4.1's inventory: `RelatedItem` a URI string on the BIOS, CIMC and disk entries,
/// an array on the VIC's.
fn cimc_inventory(vic_related: Value) -> Vec<Value> {
    let member = |id: &str, version: &str, related: Value| {
        json!({"@odata.id": format!("/redfish/v1/UpdateService/FirmwareInventory/{id}"),
               "Id": id, "Name": id, "Version": version, "RelatedItem": related})
    };
    vec![
        member(
            "BIOS",
            "C220M5.4.1.3i.0.0713210713",
            json!("/redfish/v1/Systems/WZP2340A1B2"),
        ),
        member("CIMC", "4.1(3d)", json!("/redfish/v1/Managers/CIMC")),
        member(
            "HDD-model-ST1200MM0009",
            "CN03",
            json!("/redfish/v1/Systems/WZP2340A1B2/Storage/MRAID/Drives/1"),
        ),
        member("UCSC-MLOM-C25Q-04-slot-MLOM", "4.4(1b)", vic_related),
    ]
}

const VIC: &str = "/redfish/v1/Chassis/1/NetworkAdapters/UCSC-MLOM-C25Q-04_FCH2337A1B2";

#[test]
fn a_string_related_item_on_an_entry_tied_to_no_nic_is_a_note_and_its_version_is_kept() {
    let adapters = [adapter(
        json!({"@odata.id": VIC, "Id": "UCSC-MLOM-C25Q-04_FCH2337A1B2"}),
    )];
    let (out, links) = normalized(&cimc_inventory(json!([{"@odata.id": VIC}])), &adapters);
    assert!(out.problems.is_empty(), "{:?}", out.problems);
    assert!(links.doubts(VIC).is_empty());
    for (uri, component) in [
        ("FirmwareInventory/BIOS", "bios"),
        ("FirmwareInventory/CIMC", "cimc"),
        (
            "FirmwareInventory/HDD-model-ST1200MM0009",
            "hdd-model-st1200mm0009",
        ),
    ] {
        assert!(
            out.notes.iter().any(|note| note
                .contains(&format!("{uri}: RelatedItem is the string"))
                && note.contains("expected an array of links")
                && note.contains("to no NIC port")),
            "{uri}: {:?}",
            out.notes
        );
        assert!(version(&out.facts, component).is_some(), "{component}");
    }
    assert_eq!(out.notes.len(), 3, "{:?}", out.notes);
    assert_eq!(
        links.component_of(VIC, &[], &[]),
        Some("ucsc-mlom-c25q-04-slot-mlom")
    );
}

#[test]
fn a_malformed_related_item_that_may_tie_a_nic_is_a_doubt_on_that_adapter() {
    let adapters = [
        adapter(json!({"@odata.id": VIC, "Id": "UCSC-MLOM-C25Q-04_FCH2337A1B2"})),
        adapter(json!({"@odata.id": "/redfish/v1/Chassis/1/NetworkAdapters/OTHER", "Id": "OTHER"})),
    ];
    let doubted = |vic_related: Value| {
        let (out, links) = normalized(&cimc_inventory(vic_related), &adapters);
        assert_eq!(
            out.notes.len(),
            3,
            "the BIOS, CIMC and disk: {:?}",
            out.notes
        );
        (
            links.doubts(VIC).to_vec(),
            links
                .doubts("/redfish/v1/Chassis/1/NetworkAdapters/OTHER")
                .len(),
        )
    };
    // The VIC's own entry, its one link a string: which firmware the VIC's ports run depends
    // on it.
    let (vic, other) = doubted(json!(VIC));
    assert_eq!(vic.len(), 1, "{vic:?}");
    assert!(
        vic[0].contains("FirmwareInventory/UCSC-MLOM-C25Q-04-slot-MLOM: RelatedItem is the string"),
        "{vic:?}"
    );
    assert_eq!(other, 0, "a string names one adapter");
    // An array with one good link and one string: tied as read.
    let (vic, _) = doubted(json!([{"@odata.id": VIC}, "/redfish/v1/Chassis/1"]));
    assert!(vic[0].contains("RelatedItem/1 is the string"), "{vic:?}");
    // A part that names nothing readable could be any adapter's.
    let (vic, other) = doubted(json!([{"@odata.id": 7}]));
    assert_eq!((vic.len(), other), (1, 1), "{vic:?}");
}

#[test]
fn an_unreadable_related_item_without_adapters_is_a_note() {
    let (out, _) = normalized(&cimc_inventory(json!(5)), &[]);
    assert!(out.problems.is_empty(), "{:?}", out.problems);
    assert!(
        out.notes
            .iter()
            .any(|note| note.contains("UCSC-MLOM-C25Q-04-slot-MLOM: RelatedItem is the number 5")),
        "{:?}",
        out.notes
    );
}

#[test]
fn a_malformed_related_item_of_a_member_not_captured_is_a_note() {
    let absent = json!({"@odata.id": "/redfish/v1/UpdateService/FirmwareInventory/NIC2",
        "Id": "NIC2", "Version": "-*", "Status": {"State": "Absent"}, "RelatedItem": VIC});
    let adapters = [adapter(json!({"@odata.id": VIC}))];
    let (out, links) = normalized(&[absent], &adapters);
    assert!(links.doubts(VIC).is_empty());
    assert!(
        out.notes
            .iter()
            .any(|note| note.contains("NIC2: RelatedItem is the string")
                && note.contains("not captured")),
        "{:?}",
        out.notes
    );
}

#[test]
fn an_adapter_s_own_firmware_beats_its_chassis_and_a_manager_s_is_never_a_nic_s() {
    let uri = "/redfish/v1/Chassis/1/NetworkAdapters/NIC0";
    let adapters = [adapter(json!({"@odata.id": uri, "Id": "NIC0",
        "Location": {"PartLocation": {"LocationType": "Slot", "LocationOrdinalValue": 2}}}))];
    let cpld = json!({"Id": "CPLD", "Version": "0.9", "RelatedItem": [{"@odata.id": "/redfish/v1/Chassis/1"}]});
    let own = json!({"Id": "NIC0", "Version": "28.39", "RelatedItem": [{"@odata.id": uri}]});
    let slot = json!({"Id": "Slot_2.Bundle", "Version": "28.39"});
    let bmc = json!({"Id": "AAA_BMC", "Version": "1.45", "RelatedItem": [
        {"@odata.id": "/redfish/v1/Managers/1"}, {"@odata.id": uri}]});
    let host = json!({"Id": "AAA_BIOS", "Version": "2.1", "RelatedItem": [
        {"@odata.id": "/redfish/v1/Systems/1"}, {"@odata.id": "/redfish/v1/Chassis/1"}]});
    let linked = |firmware: &[Value]| {
        let (_, links) = facts_and_links(firmware, &adapters);
        links.component_of(uri, &[], &[]).map(str::to_owned)
    };
    // `cpld` sorts before `nic0`, yet the chassis is the last resort.
    assert_eq!(
        linked(&[cpld.clone(), own.clone(), bmc.clone(), host.clone()]).as_deref(),
        Some("nic0")
    );
    assert_eq!(
        linked(&[cpld.clone(), slot.clone(), bmc.clone()]).as_deref(),
        Some("slot_2.bundle")
    );
    // A BMC that relates every member to its system as well still links the adapter's own.
    let everything_related = json!({"Id": "NIC0", "Version": "28.39", "RelatedItem": [
        {"@odata.id": "/redfish/v1/Systems/1"}, {"@odata.id": uri}]});
    assert_eq!(
        linked(&[cpld.clone(), everything_related, host.clone()]).as_deref(),
        Some("nic0")
    );
    assert_eq!(
        linked(&[cpld.clone(), bmc.clone(), host.clone()]).as_deref(),
        Some("cpld")
    );
    assert_eq!(
        linked(&[bmc, host]),
        None,
        "the BMC's and the host's firmware"
    );
}

#[test]
fn two_members_claiming_one_component_are_a_problem_naming_both() {
    let inventory = "/redfish/v1/UpdateService/FirmwareInventory";
    let member = |id: &str, version: &str| json!({"@odata.id": format!("{inventory}/{id}"), "Id": id, "Version": version});
    let (out, _) = normalized(
        &[
            member("Installed-1-22.31__NIC.Slot.1-1-1", "22.31"),
            member("Installed-1-22.36__NIC.Slot.1-1-1", "22.36"),
        ],
        &[],
    );
    assert_eq!(out.problems.len(), 1, "{:?}", out.problems);
    assert!(
        out.problems[0].contains("Installed-1-22.31__NIC.Slot.1-1-1")
            && out.problems[0].contains("Installed-1-22.36__NIC.Slot.1-1-1")
            && out.problems[0].contains("nic.slot.1-1-1"),
        "{:?}",
        out.problems
    );
    let (out, _) = normalized(&[member("BMC", "1.1"), member("bmc", "1.1")], &[]);
    assert_eq!(out.problems.len(), 1, "{:?}", out.problems);
    assert!(
        out.problems[0].contains("\"BMC\"") && out.problems[0].contains("\"bmc\""),
        "{:?}",
        out.problems
    );
    // Dell's pair of one FQDD is no collision: `Installed-` wins.
    let (out, _) = normalized(
        &[
            member("Current-1-22.31__NIC.Slot.1-1-1", "22.31"),
            member("Installed-1-22.36__NIC.Slot.1-1-1", "22.36"),
        ],
        &[],
    );
    assert!(out.problems.is_empty(), "{:?}", out.problems);
    assert_eq!(
        out.facts
            .get("firmware/nic.slot.1-1-1/version")
            .map(ToString::to_string)
            .as_deref(),
        Some("\"22.36\"")
    );
}

#[test]
fn a_member_with_nothing_but_a_number_is_keyed_by_its_uri_name_or_noted_as_positional() {
    let inventory = "/redfish/v1/UpdateService/FirmwareInventory";
    let (out, _) = normalized(
        &[json!({"@odata.id": format!("{inventory}/CPLD_0"), "Id": "7", "Version": "3"})],
        &[],
    );
    assert!(
        out.facts.contains_key("firmware/cpld_0/version"),
        "{:?}",
        out.facts
    );
    assert!(out.notes.is_empty(), "{:?}", out.notes);
    let (out, _) = normalized(
        &[json!({"@odata.id": format!("{inventory}/9"), "Id": "9", "Version": "1"})],
        &[],
    );
    assert!(out.facts.contains_key("firmware/firmware-9/version"));
    assert_eq!(out.notes.len(), 1, "{:?}", out.notes);
    assert!(
        out.notes[0].contains(&format!("{inventory}/9")) && out.notes[0].contains("position"),
        "{:?}",
        out.notes
    );
}

#[test]
fn a_version_bump_on_one_of_two_identical_cards_swaps_no_keys() {
    let inventory = "/redfish/v1/UpdateService/FirmwareInventory";
    let card = |id: &str, version: &str| {
        json!({"@odata.id": format!("{inventory}/{id}"), "Id": id, "Name": "Intel E810",
               "SoftwareId": "0x8086", "Version": version})
    };
    let (before, _) = facts_and_links(&[card("3", "4.30"), card("7", "4.40")], &[]);
    let (after, _) = facts_and_links(&[card("3", "4.50"), card("7", "4.40")], &[]);
    assert_eq!(
        version(&before, "intel_e810@0x8086").as_deref(),
        Some("\"4.30\"")
    );
    assert_eq!(
        version(&after, "intel_e810@0x8086").as_deref(),
        Some("\"4.50\"")
    );
    assert_eq!(
        version(&after, "intel_e810@0x8086-2").as_deref(),
        Some("\"4.40\""),
        "the card at /7 keeps its key"
    );
}

#[test]
fn a_dell_image_uploaded_but_not_installed_is_neither_a_version_nor_a_collision() {
    let firmware = [
        json!({"Id": "Current-108089-21.80.16.95__NIC.Integrated.1-1-1", "Version": "21.80.16.95"}),
        json!({"Id": "Installed-108089-21.80.16.95__NIC.Integrated.1-1-1", "Version": "21.80.16.95"}),
        json!({"Id": "Available-108089-22.00.1__NIC.Integrated.1-1-1", "Version": "22.00.1"}),
    ];
    let mut out = super::super::Normalized::default();
    super::firmware_facts(&firmware, &[], (&[], &[], Vendor::Generic), &mut out);
    assert!(out.problems.is_empty(), "{:?}", out.problems);
    assert_eq!(
        out.facts
            .get("firmware/nic.integrated.1-1-1/version")
            .map(ToString::to_string)
            .as_deref(),
        Some("\"21.80.16.95\"")
    );
}

/// An entry whose `RelatedItem` is `related`, in one of five adapters of one chassis (so the
/// chassis stands for none of them).
fn related_entry(id: &str, related: &str) -> Value {
    json!({"@odata.id": format!("/redfish/v1/UpdateService/FirmwareInventory/{id}"), "Id": id,
           "Version": "22.31.1014", "RelatedItem": [{"@odata.id": related}],
           "Status": {"State": "Enabled"}})
}

fn five_adapters(edit: impl Fn(&str, &mut Value)) -> Vec<AdapterInventory> {
    (1..=5)
        .map(|n| {
            let uri = format!("/redfish/v1/Chassis/1/NetworkAdapters/NIC{n}");
            let mut value = json!({"@odata.id": uri, "Id": format!("NIC{n}")});
            edit(&uri, &mut value);
            AdapterInventory {
                adapter: value,
                functions: vec![crate::crawl::FunctionInventory {
                    function: json!({"@odata.id": format!("{uri}/NetworkDeviceFunctions/1"), "Id": "1"}),
                    ..Default::default()
                }],
                ..AdapterInventory::default()
            }
        })
        .collect()
}

#[test]
fn a_related_item_naming_a_part_of_the_adapter_in_any_spelling_is_the_adapters() {
    let adapters = five_adapters(|_, _| {});
    let firmware = [
        related_entry(
            "A",
            "/redfish/v1/Chassis/1/NetworkAdapters/NIC1#/Controllers/0",
        ),
        related_entry("B", "/redfish/v1/chassis/1/networkadapters/nic2/"),
        related_entry(
            "C",
            "https://bmc.example/redfish/v1/Chassis/1/NetworkAdapters/NIC3/Ports/1",
        ),
        // NIC4's name is the start of no other: NIC40 is not below NIC4.
        related_entry("D", "/redfish/v1/Chassis/1/NetworkAdapters/NIC40"),
    ];
    let (_, links) = facts_and_links(&firmware, &adapters);
    let of = |n: u32| {
        links.component_of(
            &format!("/redfish/v1/Chassis/1/NetworkAdapters/NIC{n}"),
            &[],
            &[],
        )
    };
    assert_eq!(of(1), Some("a"));
    assert_eq!(of(2), Some("b"));
    assert_eq!(of(3), Some("c"));
    assert_eq!(of(4), None);
}

#[test]
fn an_entry_related_to_a_pcie_device_or_function_the_nic_owns_is_the_nics() {
    let adapters = five_adapters(|uri, adapter| {
        if uri.ends_with("NIC1") {
            adapter["Controllers"] = json!([{"Links": {"PCIeDevices": [
                {"@odata.id": "/redfish/v1/Chassis/1/PCIeDevices/NIC1"}]}}]);
        }
    });
    let pcie = [
        // NIC2's function is named only by its PCIe function, under the system.
        json!({"@odata.id": "/redfish/v1/Systems/1/PCIeDevices/3/PCIeFunctions/0",
               "Links": {"PCIeDevice": {"@odata.id": "/redfish/v1/Systems/1/PCIeDevices/3"},
                         "NetworkDeviceFunctions": [{"@odata.id": "/redfish/v1/Chassis/1/NetworkAdapters/NIC2/NetworkDeviceFunctions/1"}]}}),
        json!({"@odata.id": "/redfish/v1/Systems/1/PCIeDevices/3", "FirmwareVersion": "-*"}),
        json!({"@odata.id": "/redfish/v1/Chassis/1/PCIeDevices/NIC1", "FirmwareVersion": "16.35.2000"}),
    ];
    let firmware = [
        related_entry("DEV", "/redfish/v1/Chassis/1/PCIeDevices/NIC1"),
        related_entry("FN", "/redfish/v1/Systems/1/PCIeDevices/3/PCIeFunctions/0"),
        // A BMC entry naming the same device still runs the BMC.
        json!({"Id": "BMC", "Version": "1.0", "Status": {"State": "Enabled"},
               "RelatedItem": [{"@odata.id": "/redfish/v1/Managers/1"}, {"@odata.id": "/redfish/v1/Chassis/1/PCIeDevices/NIC1"}]}),
    ];
    let mut out = Normalized::default();
    let links = firmware_facts(
        &firmware,
        &adapters,
        (&pcie, &[], Vendor::Generic),
        &mut out,
    );
    let nic = |n: u32| format!("/redfish/v1/Chassis/1/NetworkAdapters/NIC{n}");
    assert_eq!(links.component_of(&nic(1), &[], &[]), Some("dev"));
    let function = format!("{}/NetworkDeviceFunctions/1", nic(2));
    assert_eq!(
        links.component_of(&nic(2), &[], std::slice::from_ref(&function)),
        Some("fn"),
        "the function's own entry"
    );
    assert_eq!(
        links.component_of(&nic(2), &[], &[]),
        Some("fn"),
        "and so the adapter's"
    );
    assert_eq!(links.pcie_version(&nic(1), &[]), Some("16.35.2000"));
    assert_eq!(
        links.pcie_version(&nic(2), &[function]),
        None,
        "\"-*\" is no version"
    );
    assert_eq!(out.placeholders.count(), 1);
}

#[test]
fn an_assembly_names_its_adapter_only_when_no_other_adapter_shares_it() {
    let adapters = five_adapters(|uri, adapter| {
        let assembly = if uri.ends_with("NIC1") {
            "/redfish/v1/Chassis/1/Assembly#/Assemblies/3"
        } else {
            "/redfish/v1/Chassis/1/Assembly"
        };
        adapter["Assembly"] = json!({"@odata.id": assembly});
    });
    let firmware = [
        related_entry("OWN", "/redfish/v1/Chassis/1/Assembly#/Assemblies/3"),
        related_entry("SHARED", "/redfish/v1/Chassis/1/Assembly"),
    ];
    let (_, links) = facts_and_links(&firmware, &adapters);
    assert_eq!(
        links.component_of("/redfish/v1/Chassis/1/NetworkAdapters/NIC1", &[], &[]),
        Some("own")
    );
    assert_eq!(
        links.component_of("/redfish/v1/Chassis/1/NetworkAdapters/NIC2", &[], &[]),
        None,
        "four adapters name the chassis assembly: it is none of theirs"
    );
}

#[test]
fn placeholder_versions_are_no_firmware_and_are_counted() {
    let firmware = [
        json!({"@odata.id": "/fw/BMC", "Id": "BMC", "Version": "nil", "Status": {"State": "Enabled"}}),
        json!({"@odata.id": "/fw/NIC", "Id": "NIC", "Version": " N/A ", "Status": {"State": "Enabled"}}),
        json!({"@odata.id": "/fw/BIOS", "Id": "BIOS", "Version": "1.4.2", "Status": {"State": "Enabled"}}),
    ];
    let (out, _) = normalized(&firmware, &[]);
    assert_eq!(out.facts.len(), 1, "{:?}", out.facts);
    assert_eq!(version(&out.facts, "bios").as_deref(), Some("\"1.4.2\""));
    assert_eq!(out.placeholders.count(), 2);
    assert!(out.placeholders.to_string().contains("/fw/BMC Version"));
}

#[test]
fn a_vendor_list_of_adapters_gives_each_port_mac_its_version() {
    let systems = [SystemInventory {
        vendor_adapters: vec![
            json!({"@odata.id": "/redfish/v1/Systems/1/BaseNetworkAdapters/1",
                   "Firmware": {"Current": {"VersionString": "16.32.1010"}},
                   "PhysicalPorts": [{"MacAddress": "98:03:9B:6E:2A:10"}, {"MacAddress": null}]}),
            json!({"@odata.id": "/redfish/v1/Systems/1/BaseNetworkAdapters/2",
                   "Firmware": {"Current": {"VersionString": "N/A"}},
                   "PhysicalPorts": [{"MacAddress": "80:30:e0:2c:92:a4"}]}),
        ],
        ..SystemInventory::default()
    }];
    let mut out = Normalized::default();
    let links = firmware_facts(&[], &[], (&[], &systems, Vendor::Hpe), &mut out);
    let versions: Vec<(String, &str)> = links
        .vendor_versions()
        .iter()
        .map(|(mac, version)| (mac.to_string(), version.as_str()))
        .collect();
    assert_eq!(versions, [("98:03:9b:6e:2a:10".to_owned(), "16.32.1010")]);
    assert_eq!(out.placeholders.count(), 1);
    // Another vendor keeps no such list.
    let links = firmware_facts(
        &[],
        &[],
        (&[], &systems, Vendor::Dell),
        &mut Normalized::default(),
    );
    assert!(links.vendor_versions().is_empty());
}

#[test]
fn a_cisco_vic_entry_named_after_its_slot_is_the_adapters_and_only_on_cisco() {
    // CIMC 4.1 (C240 M5SX): the VIC's entry names the adapter's model and slot, the adapter's
    // controller says `SlotID:MLOM`; neither carries a link to the other.
    let inventory = [
        json!({"@odata.id": "/redfish/v1/UpdateService/FirmwareInventory/CIMC", "Id": "CIMC",
               "Name": "CIMC", "Version": "4.1(3d)"}),
        json!({"@odata.id": "/redfish/v1/UpdateService/FirmwareInventory/UCS_VIC_1387-slot-MLOM",
               "Id": "UCS_VIC_1387-slot-MLOM", "Name": "UCS_VIC_1387-slot-MLOM", "Version": "4.4(3a)"}),
        json!({"@odata.id": "/redfish/v1/UpdateService/FirmwareInventory/XL710-slot-4",
               "Id": "XL710-slot-4", "Name": "XL710-slot-4", "Version": "0x80008c1a"}),
    ];
    let uri = "/redfish/v1/Chassis/1/NetworkAdapters/UCSC-MLOM-C40Q-03_FCH2345ABCD";
    let vic = [adapter(json!({
        "@odata.id": uri, "Id": "UCSC-MLOM-C40Q-03_FCH2345ABCD", "Name": "UCS VIC 1387",
        "Controllers": [{"Location": {"PartLocation": {"LocationType": "Slot", "ServiceLabel": "SlotID:MLOM"}}}]
    }))];
    let links = |vendor| {
        let mut out = Normalized::default();
        let links = firmware_facts(&inventory, &vic, (&[], &[], vendor), &mut out);
        links.component_of(uri, &[], &[]).map(str::to_owned)
    };
    assert_eq!(
        links(Vendor::Cisco).as_deref(),
        Some("ucs_vic_1387-slot-mlom")
    );
    assert_eq!(links(Vendor::Generic), None);
}
