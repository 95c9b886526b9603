use serde_json::{Value, json};

use super::*;

/// A VIC 1457 adapter as CIMC 4.1 serves it (C240 M5), with `LldpEnabled` and the
/// port-channel mode given.
fn adapter(lldp: bool, port_channel: bool) -> Value {
    json!({
        "Id": "UCSC-MLOM-C25Q-04_FCH2345ABCD",
        "Controllers": [{"Location": {"PartLocation": {"LocationType": "Slot", "ServiceLabel": "SlotID:MLOM"}}}],
        "Oem": {"Cisco": {
            "@odata.type": "#CiscoUCSExtensions.v1_0_0.CiscoUCSExtensions",
            "BaseMac": "70:0F:6A:11:22:30",
            "VicConfiguration": {
                "AzureQosEnabled": true, "ConfigurationPending": false, "FipEnabled": false,
                "LldpEnabled": lldp, "NivEnabled": false, "PhysicalNicModeEnabled": false,
                "PortChannelEnabled": port_channel
            }
        }}
    })
}

/// A vNIC's `VnicConfiguration` with RoCEv2 and trusted CoS given.
fn vnic(uplink: u64, rocev2: bool, trusted: bool) -> Value {
    json!({"Oem": {"Cisco": {"VnicConfiguration": {
        "ClassOfService": 5,
        "EthConfiguration": {
            "Features": {"Rocev2Enabled": rocev2, "VxlanEnabled": false},
            "TrustedClassOfServiceEnabled": trusted,
            "RdmaProfile": {"QueuePairs": 256, "MemoryRegions": 131_072, "ResourceGroups": 32, "ClassOfService": 5}
        },
        "UplinkPort": uplink,
        "VlanMode": "Trunk"
    }}}})
}

fn leaves_of(fill: impl FnOnce(&mut Leaves)) -> Vec<(String, String)> {
    let mut leaves = Leaves::default();
    fill(&mut leaves);
    leaves
        .iter()
        .map(|(leaf, value)| (leaf.to_owned(), value.to_string()))
        .collect()
}

#[test]
fn the_vic_configuration_is_a_fact_of_every_port_and_lldp_is_the_nic_agent() {
    let facts = leaves_of(|leaves| adapter_facts(&adapter(true, false), leaves));
    let expected = [
        ("fcoe/fip", "false"),
        ("lldp/nic_agent", "true"),
        ("qos/azure_stack_host", "true"),
        ("settings_pending", "false"),
        ("uplink/niv", "false"),
        ("uplink/physical_nic_mode", "false"),
        ("uplink/port_channel", "false"),
    ];
    assert_eq!(
        facts,
        expected.map(|(l, v)| (l.to_owned(), v.to_owned())),
        "{facts:?}"
    );
}

#[test]
fn a_vnic_says_its_rdma_trusted_cos_cos_vlan_mode_uplink_and_roce_profile() {
    let facts = leaves_of(|leaves| function_facts(&vnic(1, true, true), leaves));
    let expected = [
        ("cos", "5"),
        ("rdma/cos", "5"),
        ("rdma/memory_regions", "131072"),
        ("rdma/queue_pairs", "256"),
        ("rdma/resource_groups", "32"),
        ("rdma_enabled", "true"),
        ("rdma_protocol", "\"rocev2\""),
        ("trusted_cos", "true"),
        ("uplink_port", "1"),
        ("vlan_mode", "\"trunk\""),
    ];
    assert_eq!(
        facts,
        expected.map(|(l, v)| (l.to_owned(), v.to_owned())),
        "{facts:?}"
    );
    // RoCEv2 off is a setting too: the VIC still supports it.
    let off = leaves_of(|leaves| function_facts(&vnic(1, false, false), leaves));
    assert!(off.contains(&("rdma_enabled".to_owned(), "false".to_owned())));
    assert!(off.contains(&("rdma_protocol".to_owned(), "\"rocev2\"".to_owned())));
    assert!(off.contains(&("trusted_cos".to_owned(), "false".to_owned())));
}

#[test]
fn a_vhba_has_its_cos_and_uplink_and_no_rdma() {
    // fc0 of a VIC 1457 on CIMC 4.1: no EthConfiguration.
    let fc = json!({"Oem": {"Cisco": {"VnicConfiguration": {
        "ClassOfService": 3, "PCIOrder": "0.2", "UplinkPort": 0,
        "VHBAConfiguration": {"MaxDataFieldSize": 2112}
    }}}});
    let facts = leaves_of(|leaves| function_facts(&fc, leaves));
    assert_eq!(
        facts,
        [
            ("cos".to_owned(), "3".to_owned()),
            ("uplink_port".to_owned(), "0".to_owned())
        ]
    );
}

#[test]
fn another_vendors_function_has_no_cisco_facts() {
    let facts = leaves_of(|leaves| function_facts(&json!({"Oem": {"Dell": {}}}), leaves));
    assert!(facts.is_empty(), "{facts:?}");
}

fn ports(count: u64) -> Vec<Value> {
    (1..=count)
        .map(|n| json!({"Id": format!("Port-{n}"), "PhysicalPortNumber": n.to_string()}))
        .collect()
}

#[test]
fn the_uplink_names_the_port_by_number_and_a_port_channel_by_its_first_port() {
    let four = ports(4);
    let members: Vec<&Value> = four.iter().collect();
    let on = |uplink, channel| {
        uplink_port(
            &adapter(false, channel),
            &vnic(uplink, false, false),
            &members,
        )
    };
    // Independent uplinks: uplink n is port n + 1.
    assert_eq!(on(0, false), Some(0));
    assert_eq!(on(1, false), Some(1));
    assert_eq!(on(3, false), Some(3));
    assert_eq!(on(4, false), None, "no fifth port");
    // Port channels of a four-port VIC 1457: uplink 1 is ports 3 and 4 (CIMC assigns Port-3).
    assert_eq!(on(0, true), Some(0));
    assert_eq!(on(1, true), Some(2));
    // A two-port VIC has one port per uplink whatever the mode.
    let two = ports(2);
    let members: Vec<&Value> = two.iter().collect();
    assert_eq!(
        uplink_port(&adapter(false, true), &vnic(1, false, false), &members),
        Some(1)
    );
    // Numbered by Id only, and no uplink at all.
    let bare = [json!({"Id": "Port-1"}), json!({"Id": "Port-2"})];
    let members: Vec<&Value> = bare.iter().collect();
    assert_eq!(
        uplink_port(&adapter(false, false), &vnic(1, false, false), &members),
        Some(1)
    );
    assert_eq!(
        uplink_port(&adapter(false, false), &json!({}), &members),
        None
    );
}

#[test]
fn the_vic_firmware_entry_is_named_after_the_adapter_slot_or_its_id() {
    let vic = adapter(false, false);
    for (id, ours) in [
        ("UCS_VIC_1457-slot-MLOM", true),
        ("UCSC-MLOM-C25Q-04-slot-MLOM", true),
        ("slot-MLOM", true),
        ("UCSC-MLOM-C25Q-04_FCH2345ABCD", true),
        ("XXV710-DA2-slot-3", false),
        ("X550-LOM-slot-L", false),
        ("CIMC", false),
        ("UCSC-RAID-M5-slot-MRAID", false),
    ] {
        assert_eq!(
            names_adapter_firmware(&json!({"Id": id}), &vic),
            ours,
            "{id}"
        );
    }
    let slot_two = json!({"Id": "UCSC-PCIE-C25Q-04_FCH1", "Controllers": [
        {"Location": {"PartLocation": {"ServiceLabel": "SlotID:2"}}}]});
    assert!(names_adapter_firmware(
        &json!({"Id": "UCS_VIC_1455-slot-2"}),
        &slot_two
    ));
    assert!(!names_adapter_firmware(
        &json!({"Id": "UCS_VIC_1455-slot-12"}),
        &slot_two
    ));
}

#[test]
fn every_property_read_is_checked_with_its_type() {
    let mut adapter_paths = Vec::new();
    check_adapter(&mut |path, kind| adapter_paths.push((path.join("."), kind)));
    for (property, _) in ADAPTER {
        assert!(
            adapter_paths.contains(&(format!("Oem.Cisco.VicConfiguration.{property}"), Kind::Bool)),
            "{property}: {adapter_paths:?}"
        );
    }
    let mut function_paths = Vec::new();
    check_function(&mut |path, kind| function_paths.push((path.join("."), kind)));
    for (path, kind) in [
        (
            "Oem.Cisco.VnicConfiguration.EthConfiguration.TrustedClassOfServiceEnabled",
            Kind::Bool,
        ),
        (
            "Oem.Cisco.VnicConfiguration.EthConfiguration.Features.Rocev2Enabled",
            Kind::Bool,
        ),
        ("Oem.Cisco.VnicConfiguration.UplinkPort", Kind::Integer),
        ("Oem.Cisco.VnicConfiguration.ClassOfService", Kind::Integer),
        ("Oem.Cisco.VnicConfiguration.VlanMode", Kind::Text),
        (
            "Oem.Cisco.VnicConfiguration.EthConfiguration.RdmaProfile.QueuePairs",
            Kind::Integer,
        ),
    ] {
        assert!(
            function_paths.contains(&(path.to_owned(), kind)),
            "{path}: {function_paths:?}"
        );
    }
}
