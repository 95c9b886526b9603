use super::*;
use crate::attributes::Registry;
use crate::crawl::{AdapterInventory, FunctionInventory, Inventory, SystemInventory};
use driftgate_snapshot::FactValue;
use serde_json::json;

fn facts_of(inventory: &Inventory) -> Facts {
    normalize(inventory).facts
}

fn get<'a>(facts: &'a Facts, path: &str) -> Option<&'a FactValue> {
    facts.get(path)
}

#[test]
fn standard_ports_are_keyed_by_mac_and_current_port_schema_wins() {
    let adapter = AdapterInventory {
        adapter: json!({"Id": "Slot1", "Controllers": [{"ControllerCapabilities": {"DataCenterBridging": {"Capable": true}, "NPAR": {"NparEnabled": false}}}]}),
        adapter_pending: None,
        port_pending: Default::default(),
        network_ports: vec![
            json!({"@odata.id": "/redfish/v1/Chassis/1/NetworkAdapters/Slot1/NetworkPorts/1", "Id": "1",
            "AssociatedNetworkAddresses": ["AA:BB:CC:DD:EE:01"], "FlowControlConfiguration": "TX", "FlowControlStatus": "None"}),
        ],
        ports: vec![
            json!({"@odata.id": "/redfish/v1/Chassis/1/NetworkAdapters/Slot1/Ports/1", "Id": "1",
            "Ethernet": {"AssociatedMACAddresses": ["aa:bb:cc:dd:ee:01"], "FlowControlConfiguration": "TX_RX", "FlowControlStatus": null,
                         "LLDPEnabled": true, "LLDPReceive": {"ChassisId": "2c:23:3a:48:2f:5d", "ManagementVlanId": 4095}}}),
            json!({"@odata.id": "/redfish/v1/Chassis/1/NetworkAdapters/Slot1/Ports/2", "Id": "2", "PortId": "2", "Ethernet": {}}),
        ],
        functions: vec![FunctionInventory {
            function: json!({"Id": "F2", "Ethernet": {"PermanentMACAddress": "00:00:00:00:00:00", "MACAddress": "aa:bb:cc:dd:ee:02"},
                             "Links": {"PhysicalPortAssignment": {"@odata.id": "/redfish/v1/Chassis/1/NetworkAdapters/Slot1/Ports/2"}}}),
            oem_attributes: None,
            oem_pending: None,
            oem_registry: None,
            oem_attributes_uri: None,
            pending: None,
        }],
        chassis: Default::default(),
    };
    let facts = facts_of(&Inventory {
        root: json!({}),
        adapters: vec![adapter],
        ..Inventory::default()
    });
    let one = "nic/aa:bb:cc:dd:ee:01/bmc";
    assert_eq!(
        get(&facts, &format!("{one}/flow_control/configured")),
        Some(&"tx_rx".into())
    );
    assert_eq!(
        get(&facts, &format!("{one}/flow_control/status")),
        Some(&"none".into()),
        "a null in Port keeps the NetworkPort value"
    );
    assert_eq!(
        get(&facts, &format!("{one}/dcb_capable")),
        Some(&true.into())
    );
    assert_eq!(
        get(&facts, &format!("{one}/lldp/enabled")),
        Some(&true.into())
    );
    assert_eq!(
        get(&facts, &format!("{one}/lldp/receive/ChassisId")),
        Some(&"2c:23:3a:48:2f:5d".into())
    );
    // Port 2 has no MAC of its own: its function's (the all-zero permanent MAC is ignored).
    // It is named by its hardware PortId; port 1 has nothing but the BMC's number, no name.
    assert_eq!(
        get(&facts, "nic/aa:bb:cc:dd:ee:02/bmc/port"),
        Some(&"2".into())
    );
    assert_eq!(get(&facts, &format!("{one}/port")), None);
    assert_eq!(
        get(&facts, &format!("{one}/adapter")),
        Some(&"Slot1".into())
    );
}

#[test]
fn a_port_without_any_mac_keeps_a_name_based_key() {
    let adapter = AdapterInventory {
        adapter: json!({"Id": "A"}),
        port_pending: Default::default(),
        network_ports: vec![json!({"Id": "NIC.Slot.9-1", "FlowControlConfiguration": "RX"})],
        ..AdapterInventory::default()
    };
    let facts = facts_of(&Inventory {
        root: json!({}),
        adapters: vec![adapter],
        ..Inventory::default()
    });
    assert_eq!(
        get(
            &facts,
            "nic/port-a-nic.slot.9-1/bmc/flow_control/configured"
        ),
        Some(&"rx".into())
    );
}

#[test]
fn bios_secrets_are_dropped_by_name_and_by_registry_type() {
    let system = SystemInventory {
        bios: Some(
            json!({"Attributes": {"SysProfile": "PerfOptimized", "SetupPassword": null, "AdminPin": "4711", "OemToken": "t", "Cores": 32}}),
        ),
        bios_pending: Some(json!({"Attributes": {"SysProfile": "PerfPerWattOptimizedOs"}})),
        bios_registry: Some(
            Registry::new(
                json!({"RegistryEntries": {"Attributes": [
                {"AttributeName": "AdminPin", "Type": "Password"}]}}),
                false,
            )
            .into(),
        ),
        ..SystemInventory::default()
    };
    let facts = facts_of(&Inventory {
        root: json!({}),
        systems: vec![system],
        ..Inventory::default()
    });
    assert_eq!(
        get(&facts, "bios/SysProfile"),
        Some(&"PerfOptimized".into())
    );
    assert_eq!(get(&facts, "bios/Cores"), Some(&32.into()));
    assert_eq!(
        get(&facts, "bios/pending/SysProfile"),
        Some(&"PerfPerWattOptimizedOs".into())
    );
    for secret in ["bios/SetupPassword", "bios/AdminPin", "bios/OemToken"] {
        assert_eq!(get(&facts, secret), None, "{secret}");
    }
}

#[test]
fn withheld_attributes_are_named_by_resource_without_values() {
    let bios = "/redfish/v1/Systems/1/Bios";
    let function = "/redfish/v1/Chassis/1/NetworkAdapters/S/NetworkDeviceFunctions/F/Oem/Dell/DellNetworkAttributes/F";
    let system = SystemInventory {
        bios: Some(json!({"@odata.id": bios,
            "Attributes": {"SysProfile": "Perf", "AdminPassWord": "hunter2", "ServiceNote": "x", "PassWordStatus": "Unlocked"}})),
        bios_pending: Some(
            json!({"@odata.id": format!("{bios}/Settings"), "Attributes": {"SysProfile": "Perf"}}),
        ),
        bios_registry: Some(std::sync::Arc::new(Registry::new(
            json!({"RegistryEntries": {"Attributes": [
            {"AttributeName": "ServiceNote", "Type": "String", "WriteOnly": true}]}}),
            false,
        ))),
        ..SystemInventory::default()
    };
    let adapter = AdapterInventory {
        functions: vec![FunctionInventory {
            function: json!({"Id": "F"}),
            oem_attributes: Some(
                json!({"@odata.id": function, "Attributes": {"Pa_Ss_Wd": "s3cr3t", "Broadcom_DCBX": "Enabled_IEEE"}}),
            ),
            ..FunctionInventory::default()
        }],
        ..AdapterInventory::default()
    };
    let out = normalize(&Inventory {
        root: json!({}),
        systems: vec![system],
        adapters: vec![adapter],
        ..Inventory::default()
    });
    let shown: Vec<String> = out.withheld.iter().map(ToString::to_string).collect();
    assert_eq!(
        shown,
        [
            format!("{bios}: AdminPassWord, ServiceNote"),
            format!("{function}: Pa_Ss_Wd"),
        ]
    );
    assert_eq!(get(&out.facts, "bios/AdminPassWord"), None);
    assert_eq!(get(&out.facts, "bios/ServiceNote"), None);
    assert_eq!(
        get(&out.facts, "bios/PassWordStatus"),
        Some(&"Unlocked".into())
    );
}

#[test]
fn firmware_prefers_installed_and_ignores_previous() {
    let firmware = vec![
        json!({"Id": "Current-159-1.8.2__BIOS.Setup.1-1", "Version": "1.8.2"}),
        json!({"Id": "Installed-159-1.8.3__BIOS.Setup.1-1", "Version": "1.8.3"}),
        json!({"Id": "Previous-159-1.2.4__BIOS.Setup.1-1", "Version": "1.2.4"}),
        json!({"Id": "BMC", "Version": "1.45"}),
        json!({"Id": "Empty", "Version": ""}),
    ];
    let facts = facts_of(&Inventory {
        root: json!({}),
        firmware,
        ..Inventory::default()
    });
    assert_eq!(
        get(&facts, "firmware/bios.setup.1-1/version"),
        Some(&"1.8.3".into())
    );
    assert_eq!(get(&facts, "firmware/bmc/version"), Some(&"1.45".into()));
    assert_eq!(facts.len(), 2);
}

#[test]
fn vendors_are_detected_once_from_the_root() {
    assert_eq!(Vendor::detect(&json!({"Vendor": "Dell"})), Vendor::Dell);
    assert_eq!(Vendor::detect(&json!({"Oem": {"Hpe": {}}})), Vendor::Hpe);
    assert_eq!(
        Vendor::detect(&json!({"Oem": {"Lenovo": {}}})),
        Vendor::Lenovo
    );
    assert_eq!(Vendor::detect(&json!({"Vendor": "NVIDIA"})), Vendor::Nvidia);
    // CIMC's root says `Cisco Systems Inc.`.
    for root in [
        json!({"Vendor": "Cisco Systems Inc."}),
        json!({"Vendor": "Cisco"}),
        json!({"Oem": {"Cisco": {}}}),
    ] {
        assert_eq!(Vendor::detect(&root), Vendor::Cisco, "{root}");
    }
    assert_eq!(
        Vendor::detect(&json!({"Vendor": "Contoso"})),
        Vendor::Generic
    );
}

fn port_adapter(uri: &str, id: &str, mac: &str, flow: &str) -> AdapterInventory {
    AdapterInventory {
        adapter: json!({"@odata.id": uri, "Id": id}),
        ports: vec![json!({"@odata.id": format!("{uri}/Ports/1"), "Id": "1",
            "Ethernet": {"AssociatedMACAddresses": [mac], "FlowControlConfiguration": flow}})],
        ..AdapterInventory::default()
    }
}

/// One adapter reached through chassis A (flow control `TX_RX`) and chassis B (`flow_control`).
fn two_chassis_showing(flow_control: &str) -> Normalized {
    normalize(&Inventory {
        root: json!({}),
        adapters: vec![
            port_adapter(
                "/redfish/v1/Chassis/A/NetworkAdapters/X",
                "X",
                "02:00:00:00:00:01",
                "TX_RX",
            ),
            port_adapter(
                "/redfish/v1/Chassis/B/NetworkAdapters/X",
                "X",
                "02:00:00:00:00:01",
                flow_control,
            ),
        ],
        ..Inventory::default()
    })
}

#[test]
fn one_adapter_through_two_chassis_is_kept_once_with_a_note() {
    let out = two_chassis_showing("TX_RX");
    assert!(out.problems.is_empty(), "{:?}", out.problems);
    assert_eq!(out.notes.len(), 1, "{:?}", out.notes);
    assert!(
        out.notes[0].contains("/Chassis/B/NetworkAdapters/X repeats what /redfish/v1/Chassis/A/"),
        "{}",
        out.notes[0]
    );
    assert_eq!(
        get(
            &out.facts,
            "nic/02:00:00:00:00:01/bmc/flow_control/configured"
        ),
        Some(&"tx_rx".into())
    );
}

#[test]
fn the_same_fact_with_different_values_from_two_resources_is_a_problem_naming_both() {
    let out = two_chassis_showing("None");
    assert_eq!(out.problems.len(), 1, "{:?}", out.problems);
    let problem = &out.problems[0];
    for needle in [
        "nic/02:00:00:00:00:01/bmc/flow_control/configured",
        "/redfish/v1/Chassis/A/NetworkAdapters/X/Ports/1",
        "/redfish/v1/Chassis/B/NetworkAdapters/X/Ports/1",
    ] {
        assert!(problem.contains(needle), "{needle}: {problem}");
    }
    assert!(out.notes.is_empty(), "{:?}", out.notes);
}

#[test]
fn two_ports_claiming_one_mac_are_a_problem() {
    let uri = "/redfish/v1/Chassis/1/NetworkAdapters/X";
    let out = normalize(&Inventory {
        root: json!({}),
        adapters: vec![AdapterInventory {
            adapter: json!({"@odata.id": uri, "Id": "X"}),
            ports: vec![
                json!({"@odata.id": format!("{uri}/Ports/1"), "Id": "1", "Ethernet": {"AssociatedMACAddresses": ["02:00:00:00:00:09"]}}),
                json!({"@odata.id": format!("{uri}/Ports/2"), "Id": "2", "Ethernet": {"AssociatedMACAddresses": ["02:00:00:00:00:09"]}}),
            ],
            ..AdapterInventory::default()
        }],
        ..Inventory::default()
    });
    // Numbered without a PortId, the ports have no name to collide on: the key itself does.
    assert_eq!(out.problems.len(), 1, "{:?}", out.problems);
    for needle in [
        "nic/02:00:00:00:00:09: ".to_owned(),
        format!("{uri}/Ports/1 and {uri}/Ports/2 are two ports of one adapter that claim one MAC"),
    ] {
        assert!(
            out.problems[0].contains(&needle),
            "{needle}: {:?}",
            out.problems
        );
    }
}

#[test]
fn npar_partitions_keep_their_own_facts_under_the_lowest_numbered_mac() {
    let uri = "/redfish/v1/Chassis/1/NetworkAdapters/N";
    let function = |part: u32| FunctionInventory {
        function: json!({"@odata.id": format!("{uri}/NetworkDeviceFunctions/F{part}"), "Id": format!("F{part}"),
            "Ethernet": {"PermanentMACAddress": format!("02:00:00:00:01:{part:02}")},
            "Links": {"PhysicalNetworkPortAssignment": {"@odata.id": format!("{uri}/Ports/1")}}}),
        ..FunctionInventory::default()
    };
    let out = normalize(&Inventory {
        root: json!({}),
        adapters: vec![AdapterInventory {
            adapter: json!({"@odata.id": uri, "Id": "N"}),
            ports: vec![json!({"@odata.id": format!("{uri}/Ports/1"), "Id": "1", "PortId": "1"})],
            // By MAC, lowest first, whatever their names: F1 keys the port.
            functions: vec![function(10), function(2), function(1)],
            ..AdapterInventory::default()
        }],
        ..Inventory::default()
    });
    assert!(out.problems.is_empty(), "{:?}", out.problems);
    let key = "nic/02:00:00:00:01:01/bmc";
    assert_eq!(get(&out.facts, &format!("{key}/port")), Some(&"1".into()));
    for part in [1, 2, 10] {
        let function = format!("{key}/function/02:00:00:00:01:{part:02}");
        assert_eq!(
            get(&out.facts, &format!("{function}/mac")),
            Some(&format!("02:00:00:00:01:{part:02}").as_str().into()),
            "F{part}"
        );
        assert_eq!(
            get(&out.facts, &format!("{function}/id")),
            Some(&format!("F{part}").as_str().into()),
            "F{part}: the BMC's name, an identity fact"
        );
    }
}

#[test]
fn a_function_on_no_port_with_a_mac_is_its_own_port() {
    let out = normalize(&Inventory {
        root: json!({}),
        adapters: vec![AdapterInventory {
            adapter: json!({"@odata.id": "/a", "Id": "A"}),
            functions: vec![
                FunctionInventory {
                    function: json!({"@odata.id": "/a/f/1", "Id": "1", "Ethernet": {"MACAddress": "02:00:00:00:00:31"}}),
                    ..FunctionInventory::default()
                },
                FunctionInventory {
                    function: json!({"@odata.id": "/a/f/2", "Id": "2"}),
                    ..FunctionInventory::default()
                },
            ],
            ..AdapterInventory::default()
        }],
        ..Inventory::default()
    });
    // A numbered function is named by its MAC; without one, by its number, with a note.
    assert_eq!(
        get(
            &out.facts,
            "nic/02:00:00:00:00:31/bmc/function/02:00:00:00:00:31/mac"
        ),
        Some(&"02:00:00:00:00:31".into())
    );
    assert_eq!(
        get(&out.facts, "nic/port-a-2/bmc/adapter"),
        Some(&"A".into())
    );
    // One note for the port's key, one for the function's.
    assert_eq!(out.notes.len(), 2, "{:?}", out.notes);
    assert!(
        out.notes[1].contains("/a/f/2: keyed nic/port-a-2/bmc/function/2 by the BMC's name"),
        "{}",
        out.notes[1]
    );
    for needle in [
        "/a/f/2",
        "named by the BMC's number 2 alone",
        "if the BMC renumbers",
    ] {
        assert!(out.notes[0].contains(needle), "{needle}: {}", out.notes[0]);
    }
}

#[test]
fn pending_port_and_function_values_are_facts_only_where_they_differ() {
    let uri = "/redfish/v1/Chassis/1/NetworkAdapters/P";
    let port_uri = format!("{uri}/Ports/1");
    let out = normalize(&Inventory {
        root: json!({}),
        adapters: vec![AdapterInventory {
            adapter: json!({"@odata.id": uri, "Id": "P"}),
            ports: vec![json!({"@odata.id": port_uri, "Id": "1",
                "Ethernet": {"AssociatedMACAddresses": ["02:00:00:00:00:41"], "FlowControlConfiguration": "TX_RX", "LLDPEnabled": false}})],
            port_pending: [(
                port_uri.clone(),
                json!({"Ethernet": {"FlowControlConfiguration": "TX_RX", "LLDPEnabled": true}}),
            )]
            .into(),
            functions: vec![FunctionInventory {
                function: json!({"@odata.id": format!("{uri}/NetworkDeviceFunctions/1"), "Id": "1",
                    "Ethernet": {"AdditionalProtocols": ["RoCEv2"]},
                    "Links": {"PhysicalNetworkPortAssignment": {"@odata.id": port_uri}}}),
                pending: Some(json!({"Ethernet": {"AdditionalProtocols": ["TCP"]}})),
                ..FunctionInventory::default()
            }],
            ..AdapterInventory::default()
        }],
        ..Inventory::default()
    });
    let key = "nic/02:00:00:00:00:41/bmc";
    assert_eq!(
        get(&out.facts, &format!("{key}/pending/lldp/enabled")),
        Some(&true.into())
    );
    assert_eq!(
        get(
            &out.facts,
            &format!("{key}/pending/flow_control/configured")
        ),
        None,
        "equal to the current value"
    );
    assert_eq!(
        get(&out.facts, &format!("{key}/function/1/rdma_protocol")),
        Some(&"rocev2".into())
    );
    assert_eq!(
        get(
            &out.facts,
            &format!("{key}/function/1/pending/rdma_enabled")
        ),
        Some(&false.into())
    );
}

#[test]
fn keys_do_not_depend_on_the_order_resources_are_listed_in() {
    let uri = "/redfish/v1/Chassis/1/NetworkAdapters/O";
    let function = |port: u32, part: u32| FunctionInventory {
        function: json!({"@odata.id": format!("{uri}/NetworkDeviceFunctions/{port}-{part}"), "Id": format!("{port}-{part}"),
            "Ethernet": {"PermanentMACAddress": format!("02:00:00:00:0{port}:0{part}")},
            "Links": {"PhysicalPortAssignment": {"@odata.id": format!("{uri}/NetworkPorts/{port}")},
                      "PhysicalNetworkPortAssignment": {"@odata.id": format!("{uri}/Ports/P{port}")}}}),
        ..FunctionInventory::default()
    };
    let port = |port: &str| {
        json!({"@odata.id": format!("{uri}/Ports/{port}"), "Id": port,
        "Ethernet": {"FlowControlConfiguration": "TX_RX"}})
    };
    let network_port = |port: u32| {
        json!({"@odata.id": format!("{uri}/NetworkPorts/{port}"), "Id": format!("{port}"),
        "FlowControlConfiguration": "RX", "FlowControlStatus": "RX"})
    };
    // A third function links Port P2 and Port P2b: two Ports in one group.
    let twin = FunctionInventory {
        function: json!({"@odata.id": format!("{uri}/NetworkDeviceFunctions/2-3"), "Id": "2-3",
            "Links": {"PhysicalPortAssignment": {"@odata.id": format!("{uri}/Ports/P2b")},
                      "PhysicalNetworkPortAssignment": {"@odata.id": format!("{uri}/Ports/P2")}}}),
        ..FunctionInventory::default()
    };
    let adapter = AdapterInventory {
        adapter: json!({"@odata.id": uri, "Id": "O"}),
        ports: vec![port("P1"), port("P2"), port("P2b")],
        network_ports: vec![network_port(1), network_port(2)],
        functions: vec![
            function(1, 1),
            function(1, 2),
            function(2, 1),
            function(2, 2),
            twin,
        ],
        ..AdapterInventory::default()
    };
    let mut reversed = adapter.clone();
    reversed.ports.reverse();
    reversed.network_ports.reverse();
    reversed.functions.reverse();
    let facts = |adapter: AdapterInventory| {
        normalize(&Inventory {
            root: json!({}),
            adapters: vec![adapter],
            ..Inventory::default()
        })
    };
    let (one, two) = (facts(adapter), facts(reversed));
    assert!(one.problems.is_empty(), "{:?}", one.problems);
    assert_eq!(one.facts, two.facts);
    let sorted = |notes: &[String]| {
        let mut notes = notes.to_vec();
        notes.sort();
        notes
    };
    assert_eq!(sorted(&one.notes), sorted(&two.notes));
    // The Port and NetworkPort (different Ids) are one port through the function's links.
    let key = "nic/02:00:00:00:01:01/bmc";
    assert_eq!(get(&one.facts, &format!("{key}/port")), Some(&"P1".into()));
    assert_eq!(
        get(&one.facts, &format!("{key}/flow_control/configured")),
        Some(&"tx_rx".into())
    );
    assert_eq!(
        get(&one.facts, &format!("{key}/flow_control/status")),
        Some(&"rx".into())
    );
    // Two Ports in one group: the lowest-numbered one names it, whatever the order.
    assert_eq!(
        get(&one.facts, "nic/02:00:00:00:02:01/bmc/port"),
        Some(&"P2".into())
    );
    // The Port wins, and the disagreement is said: both URIs, the property, both values.
    let note = one
        .notes
        .iter()
        .find(|note| note.contains(&format!("{uri}/Ports/P1 ")))
        .unwrap_or_else(|| panic!("no note on Ports/P1: {:?}", one.notes));
    for needle in [
        format!("{uri}/NetworkPorts/1"),
        "FlowControlConfiguration".to_owned(),
        "\"tx_rx\"".to_owned(),
        "\"rx\"".to_owned(),
    ] {
        assert!(note.contains(&needle), "{needle}: {note}");
    }
}

#[test]
fn a_function_assignable_to_several_ports_is_on_none_of_them() {
    let uri = "/redfish/v1/Chassis/1/NetworkAdapters/S";
    let out = normalize(&Inventory {
        root: json!({}),
        adapters: vec![AdapterInventory {
            adapter: json!({"@odata.id": uri, "Id": "S"}),
            ports: vec![
                json!({"@odata.id": format!("{uri}/Ports/1"), "Id": "1", "PortId": "1"}),
                json!({"@odata.id": format!("{uri}/Ports/2"), "Id": "2", "PortId": "2"}),
            ],
            functions: vec![FunctionInventory {
                function: json!({"@odata.id": format!("{uri}/NetworkDeviceFunctions/F"), "Id": "F",
                    "Ethernet": {"PermanentMACAddress": "02:00:00:00:00:51"},
                    "AssignablePhysicalNetworkPorts": [
                        {"@odata.id": format!("{uri}/Ports/1")}, {"@odata.id": format!("{uri}/Ports/2")}]}),
                ..FunctionInventory::default()
            }],
            ..AdapterInventory::default()
        }],
        ..Inventory::default()
    });
    assert!(out.problems.is_empty(), "{:?}", out.problems);
    let key = "nic/02:00:00:00:00:51/bmc";
    assert_eq!(get(&out.facts, &format!("{key}/port")), None, "on no port");
    assert_eq!(
        get(&out.facts, &format!("{key}/function/02:00:00:00:00:51/mac")),
        Some(&"02:00:00:00:00:51".into())
    );
    assert_eq!(get(&out.facts, "nic/port-s-1/bmc/port"), Some(&"1".into()));
    assert_eq!(get(&out.facts, "nic/port-s-2/bmc/port"), Some(&"2".into()));
    let note = out
        .notes
        .iter()
        .find(|note| note.contains("assignable"))
        .unwrap_or_else(|| panic!("{:?}", out.notes));
    for needle in [
        format!("{uri}/NetworkDeviceFunctions/F"),
        format!("{uri}/Ports/1"),
        format!("{uri}/Ports/2"),
    ] {
        assert!(note.contains(&needle), "{needle}: {note}");
    }
}

#[test]
fn staged_controllers_are_read_at_the_index_of_the_current_one() {
    let uri = "/redfish/v1/Chassis/1/NetworkAdapters/C";
    let caps = |dcb: bool| json!({"DataCenterBridging": {"Capable": dcb}});
    let out = normalize(&Inventory {
        root: json!({}),
        adapters: vec![AdapterInventory {
            adapter: json!({"@odata.id": uri, "Id": "C", "Controllers": [
                {"ControllerCapabilities": caps(true), "Links": {"Ports": [{"@odata.id": format!("{uri}/Ports/1")}]}},
                {"ControllerCapabilities": caps(false), "Links": {"Ports": [{"@odata.id": format!("{uri}/Ports/2")}]}}]}),
            // The Settings object lists the controllers without Links, values unchanged.
            adapter_pending: Some(json!({"Controllers": [
                {"ControllerCapabilities": caps(true)}, {"ControllerCapabilities": caps(false)}]})),
            ports: vec![
                json!({"@odata.id": format!("{uri}/Ports/1"), "Id": "1", "Ethernet": {"AssociatedMACAddresses": ["02:00:00:00:00:61"]}}),
                json!({"@odata.id": format!("{uri}/Ports/2"), "Id": "2", "Ethernet": {"AssociatedMACAddresses": ["02:00:00:00:00:62"]}}),
            ],
            ..AdapterInventory::default()
        }],
        ..Inventory::default()
    });
    let two = "nic/02:00:00:00:00:62/bmc";
    assert_eq!(
        get(&out.facts, &format!("{two}/dcb_capable")),
        Some(&false.into())
    );
    let pending: Vec<_> = out
        .facts
        .iter()
        .filter(|(path, _)| path.as_str().contains("/pending/"))
        .collect();
    assert!(pending.is_empty(), "nothing is staged: {pending:?}");
}

#[test]
fn mac_less_ports_of_two_adapters_sharing_an_id_are_qualified_by_chassis() {
    let adapter = |chassis: &str, flow: &str| AdapterInventory {
        adapter: json!({"@odata.id": format!("/redfish/v1/Chassis/{chassis}/NetworkAdapters/1"), "Id": "1"}),
        ports: vec![
            json!({"@odata.id": format!("/redfish/v1/Chassis/{chassis}/NetworkAdapters/1/Ports/1"),
            "Id": "1", "Ethernet": {"FlowControlConfiguration": flow}}),
        ],
        ..AdapterInventory::default()
    };
    let out = normalize(&Inventory {
        root: json!({}),
        adapters: vec![adapter("A", "TX"), adapter("B", "RX")],
        ..Inventory::default()
    });
    assert!(out.problems.is_empty(), "{:?}", out.problems);
    assert_eq!(
        get(&out.facts, "nic/port-a-1-1/bmc/flow_control/configured"),
        Some(&"tx".into())
    );
    assert_eq!(
        get(&out.facts, "nic/port-b-1-1/bmc/flow_control/configured"),
        Some(&"rx".into())
    );
    // A unique adapter Id keeps the short key.
    let alone = normalize(&Inventory {
        root: json!({}),
        adapters: vec![adapter("A", "TX")],
        ..Inventory::default()
    });
    assert_eq!(
        get(&alone.facts, "nic/port-1-1/bmc/flow_control/configured"),
        Some(&"tx".into())
    );
}

#[test]
fn group_ports_joins_many_ports_by_id_and_mac() {
    // A BMC-controlled list: joined through indexes, not pair by pair.
    let uri = "/redfish/v1/Chassis/1/NetworkAdapters/M";
    let count = 2000;
    let mac = |i: usize| format!("02:00:00:{:02x}:{:02x}:01", i / 256, i % 256);
    let network_ports = (0..count)
        .map(|i| {
            json!({"@odata.id": format!("{uri}/NetworkPorts/{i}"), "Id": format!("n{i}"),
            "AssociatedNetworkAddresses": [mac(i)], "FlowControlStatus": "RX"})
        })
        .collect();
    let ports = (0..count)
        .map(|i| {
            json!({"@odata.id": format!("{uri}/Ports/{i}"), "Id": format!("p{i}"),
            "Ethernet": {"AssociatedMACAddresses": [mac(i)]}})
        })
        .collect();
    let started = std::time::Instant::now();
    let out = normalize(&Inventory {
        root: json!({}),
        adapters: vec![AdapterInventory {
            adapter: json!({"@odata.id": uri, "Id": "M"}),
            ports,
            network_ports,
            ..AdapterInventory::default()
        }],
        ..Inventory::default()
    });
    assert!(out.problems.is_empty(), "{:?}", &out.problems[..1]);
    assert_eq!(
        get(&out.facts, &format!("nic/{}/bmc/port", mac(1234))),
        Some(&"p1234".into())
    );
    assert_eq!(
        get(
            &out.facts,
            &format!("nic/{}/bmc/flow_control/status", mac(1234))
        ),
        Some(&"rx".into())
    );
    assert!(
        started.elapsed() < std::time::Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
}

#[test]
fn functions_that_give_one_mac_keep_the_bmc_s_names_and_say_so() {
    let uri = "/redfish/v1/Chassis/1/NetworkAdapters/N";
    let function = |name: &str| FunctionInventory {
        function: json!({"@odata.id": format!("{uri}/NetworkDeviceFunctions/{name}"), "Id": name,
            "NetDevFuncType": "Ethernet",
            "Ethernet": {"PermanentMACAddress": "02:00:00:00:07:01"},
            "Links": {"PhysicalNetworkPortAssignment": {"@odata.id": format!("{uri}/Ports/1")}}}),
        ..FunctionInventory::default()
    };
    let out = normalize(&Inventory {
        root: json!({}),
        adapters: vec![AdapterInventory {
            adapter: json!({"@odata.id": uri, "Id": "N"}),
            ports: vec![json!({"@odata.id": format!("{uri}/Ports/1"), "Id": "1", "PortId": "1"})],
            functions: vec![function("eth0f1"), function("eth0f0")],
            ..AdapterInventory::default()
        }],
        ..Inventory::default()
    });
    assert!(out.problems.is_empty(), "{:?}", out.problems);
    let key = "nic/02:00:00:00:07:01/bmc";
    for name in ["eth0f0", "eth0f1"] {
        assert_eq!(
            get(&out.facts, &format!("{key}/function/{name}/function_type")),
            Some(&"ethernet".into()),
            "{name}"
        );
        assert!(
            out.notes.iter().any(|n| n.contains(&format!(
                "{uri}/NetworkDeviceFunctions/{name}: keyed {key}/function/{name} by the BMC's name"
            ))),
            "{name}: {:?}",
            out.notes
        );
    }
}
