use super::*;
use crate::crawl::{AdapterInventory, FunctionInventory, Inventory, SystemInventory};
use crate::links::describe;
use serde_json::json;

fn problems(inventory: &Inventory) -> Vec<String> {
    check(inventory).iter().map(ToString::to_string).collect()
}

#[test]
fn links_must_be_objects_with_a_string_odata_id_and_null_is_absent() {
    let root = json!({"@odata.id": "/redfish/v1", "Systems": "/redfish/v1/Systems",
        "Chassis": {"@odata.id": 5}, "UpdateService": null, "Links": "x",
        "Managers": {"@odata.id": "/redfish/v1/Managers#/x"}});
    let error = link("/redfish/v1", &root, &["Systems"])
        .unwrap_err()
        .to_string();
    assert_eq!(
        error,
        "/redfish/v1: Systems is the string \"/redfish/v1/Systems\", expected a link (an object with a string @odata.id)"
    );
    assert!(link("/redfish/v1", &root, &["Chassis"]).is_err());
    assert_eq!(link("/redfish/v1", &root, &["UpdateService"]), Ok(None));
    assert_eq!(link("/redfish/v1", &root, &["Absent"]), Ok(None));
    assert_eq!(
        link("/redfish/v1", &root, &["Managers"]),
        Ok(Some("/redfish/v1/Managers"))
    );
    let error = link("/redfish/v1", &root, &["Links", "Sessions"]).unwrap_err();
    assert_eq!(
        (error.property.as_str(), error.expected.as_str()),
        ("Links", "an object")
    );
}

#[test]
fn wrong_types_are_named_and_nulls_are_not() {
    let port =
        |uri: &str, ethernet: Value| json!({"@odata.id": uri, "Id": "1", "Ethernet": ethernet});
    let inventory = Inventory {
        root: json!({}),
        adapters: vec![AdapterInventory {
            adapter: json!({"@odata.id": "/a", "Controllers": [{"ControllerCapabilities": {"DataCenterBridging": {"Capable": "yes"}, "NPAR": null},
                                                              "Links": {"PCIeDevices": {"@odata.id": "/d"}}}]}),
            ports: vec![
                port(
                    "/a/p1",
                    json!({"FlowControlStatus": null, "FlowControlConfiguration": "TX_RX", "AssociatedMACAddresses": ["aa:bb:cc:dd:ee:01", null], "LLDPEnabled": null}),
                ),
                port(
                    "/a/p2",
                    json!({"FlowControlStatus": "Both", "AssociatedMACAddresses": "aa:bb:cc:dd:ee:02", "LLDPEnabled": "true"}),
                ),
            ],
            functions: vec![FunctionInventory {
                function: json!({"@odata.id": "/a/f1", "Ethernet": {"MACAddress": ["aa:bb:cc:dd:ee:01"], "PermanentMACAddress": null},
                                 "Links": {"PhysicalPortAssignment": "/a/p1", "PCIeFunction": "/d/f"}}),
                oem_attributes: Some(
                    json!({"@odata.id": "/a/f1/dell", "Attributes": {"X": {"nested": 1}, "Y": null}}),
                ),
                oem_pending: Some(json!({"@odata.id": "/a/f1/dell/settings", "Attributes": null})),
                oem_registry: None,
                oem_attributes_uri: None,
                pending: None,
            }],
            ..AdapterInventory::default()
        }],
        systems: vec![SystemInventory {
            interfaces: vec![
                json!({"@odata.id": "/s/e1", "MACAddress": "", "PermanentMACAddress": "not-a-mac"}),
            ],
            bios: Some(json!({"@odata.id": "/s/bios", "Attributes": ["SysProfile"]})),
            ..SystemInventory::default()
        }],
        firmware: vec![
            json!({"@odata.id": "/fw/1", "Version": 2}),
            json!({"@odata.id": "/fw/2", "Version": null}),
        ],
        pcie: vec![
            json!({"@odata.id": "/d", "FirmwareVersion": 22, "Links": {"NetworkDeviceFunctions": ["/a/f1"], "PCIeDevice": null}}),
        ],
    };
    assert_eq!(
        problems(&inventory),
        [
            "/a: Controllers/0/ControllerCapabilities/DataCenterBridging/Capable is the string \"yes\", expected a boolean",
            "/a: Controllers/0/Links/PCIeDevices is an object, expected an array of links",
            "/a/p2: Ethernet/AssociatedMACAddresses is the string \"aa:bb:cc:dd:ee:02\", expected an array of MAC address strings",
            "/a/p2: Ethernet/FlowControlStatus is the string \"Both\", expected one of \"None\", \"TX\", \"RX\", \"TX_RX\"",
            "/a/p2: Ethernet/LLDPEnabled is the string \"true\", expected a boolean",
            "/a/f1: Ethernet/MACAddress is an array, expected a MAC address string",
            "/a/f1: Links/PhysicalPortAssignment is the string \"/a/p1\", expected a link (an object with a string @odata.id)",
            "/a/f1: Links/PCIeFunction is the string \"/d/f\", expected a link (an object with a string @odata.id)",
            "/a/f1/dell: Attributes/X is an object, expected a string, number, boolean or null",
            "/s/e1: PermanentMACAddress is the string \"not-a-mac\", expected a MAC address string",
            "/s/bios: Attributes is an array, expected an object of attributes",
            "/fw/1: Version is the number 2, expected a string",
        ]
    );
    // The PCIe resources only help name a port's firmware: their problems are said apart.
    let pcie: Vec<String> = check_pcie(&inventory)
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(
        pcie,
        [
            "/d: FirmwareVersion is the number 22, expected a string",
            "/d: Links/NetworkDeviceFunctions/0 is the string \"/a/f1\", expected a link (an object with a string @odata.id)",
        ]
    );
}

#[test]
fn vendor_oem_properties_are_checked_for_their_vendor_only() {
    let adapter = |oem: Value| AdapterInventory {
        adapter: json!({"@odata.id": "/a", "Oem": oem}),
        ports: vec![
            json!({"@odata.id": "/a/p", "Oem": {"Lenovo": {"PhysicalPortMacAddress": 946}}}),
        ],
        ..AdapterInventory::default()
    };
    let inventory = |vendor: &str, oem: Value| Inventory {
        root: json!({"Vendor": vendor}),
        adapters: vec![adapter(oem)],
        ..Inventory::default()
    };
    assert_eq!(
        problems(&inventory("Lenovo", json!({}))),
        [
            "/a/p: Oem/Lenovo/PhysicalPortMacAddress is the number 946, expected a MAC address string"
        ]
    );
    assert_eq!(
        problems(&inventory(
            "NVIDIA",
            json!({"Nvidia": {"LLDP": {"DCBXModeEnabled": "on", "TXMode": null}}})
        )),
        ["/a: Oem/Nvidia/LLDP/DCBXModeEnabled is the string \"on\", expected a boolean"]
    );
    assert_eq!(
        problems(&inventory(
            "HPE",
            json!({"Hpe": {"Controllers": [{"RDMASupport": "RoCE"}]}})
        )),
        ["/a: Oem/Hpe/Controllers/0/RDMASupport is the string \"RoCE\", expected an array"]
    );
    assert!(problems(&inventory("Generic", json!({"Nvidia": {"LLDP": 1}}))).is_empty());
}

#[test]
fn long_strings_are_shortened_in_messages() {
    let text = describe(&json!("x".repeat(100)));
    assert!(text.ends_with("\"…") && text.len() < 60, "{text}");
    assert_eq!(describe(&json!(null)), "null");
    assert_eq!(describe(&json!(true)), "the boolean true");
}

#[test]
fn a_mistyped_vendor_is_named() {
    let inventory = Inventory {
        root: json!({"@odata.id": "/redfish/v1", "Vendor": ["Dell"], "Oem": "Dell"}),
        ..Inventory::default()
    };
    assert_eq!(
        problems(&inventory),
        [
            "/redfish/v1: Vendor is an array, expected a string",
            "/redfish/v1: Oem is the string \"Dell\", expected an object"
        ]
    );
}

#[test]
fn network_port_addresses_may_be_wwns_but_must_be_strings() {
    let inventory = |addresses: Value| Inventory {
        adapters: vec![AdapterInventory {
            port_pending: Default::default(),
            network_ports: vec![
                json!({"@odata.id": "/a/np", "AssociatedNetworkAddresses": addresses}),
            ],
            ..AdapterInventory::default()
        }],
        ..Inventory::default()
    };
    assert!(problems(&inventory(json!(["20:00:00:25:B5:00:00:0F", null]))).is_empty());
    assert_eq!(
        problems(&inventory(json!(["00:0A:F7:12:34:56", 5]))),
        ["/a/np: AssociatedNetworkAddresses/1 is the number 5, expected an address string"]
    );
}

#[test]
fn port_links_controller_firmware_and_protocols_are_checked() {
    let inventory = Inventory {
        root: json!({}),
        adapters: vec![AdapterInventory {
            adapter: json!({"@odata.id": "/a", "Controllers": [
                {"FirmwarePackageVersion": 28, "Links": {"Ports": [{"@odata.id": "/a/p1"}], "NetworkDeviceFunctions": {"@odata.id": "/a/f1"}}},
                {"FirmwarePackageVersion": null, "Links": {"NetworkPorts": ["/a/p1"]}}
            ]}),
            ports: vec![
                json!({"@odata.id": "/a/p1", "Id": "1", "Ethernet": {"AssociatedMACAddresses": ["02:00:00:00:00:01"]}}),
            ],
            port_pending: [(
                "/a/p1".to_owned(),
                json!({"@odata.id": "/a/p1/settings", "Ethernet": {"FlowControlConfiguration": "Both"}}),
            )]
            .into(),
            functions: vec![FunctionInventory {
                function: json!({"@odata.id": "/a/f1",
                    "Links": {"PhysicalNetworkPortAssignment": "/a/p1"},
                    "AssignablePhysicalNetworkPorts": {"@odata.id": "/a/p1"},
                    "AssignablePhysicalPorts": [{"@odata.id": "/a/np1"}, "/a/np2"],
                    "Ethernet": {"AdditionalProtocols": "RoCEv2"}}),
                pending: Some(
                    json!({"@odata.id": "/a/f1/settings", "Ethernet": {"AdditionalProtocols": [1]}}),
                ),
                ..FunctionInventory::default()
            }],
            ..AdapterInventory::default()
        }],
        ..Inventory::default()
    };
    assert_eq!(
        problems(&inventory),
        [
            "/a: Controllers/0/FirmwarePackageVersion is the number 28, expected a string",
            "/a: Controllers/0/Links/NetworkDeviceFunctions is an object, expected an array of links",
            "/a: Controllers/1/Links/NetworkPorts/0 is the string \"/a/p1\", expected a link (an object with a string @odata.id)",
            "/a/p1/settings: Ethernet/FlowControlConfiguration is the string \"Both\", expected one of \"None\", \"TX\", \"RX\", \"TX_RX\"",
            "/a/f1: Links/PhysicalNetworkPortAssignment is the string \"/a/p1\", expected a link (an object with a string @odata.id)",
            "/a/f1: AssignablePhysicalPorts/1 is the string \"/a/np2\", expected a link (an object with a string @odata.id)",
            "/a/f1: AssignablePhysicalNetworkPorts is an object, expected an array of links",
            "/a/f1: Ethernet/AdditionalProtocols is the string \"RoCEv2\", expected an array of strings",
            "/a/f1/settings: Ethernet/AdditionalProtocols/0 is the number 1, expected a string",
        ]
    );
}

#[test]
fn on_off_attributes_and_lldp_modes_must_be_in_their_vocabulary() {
    let dell = Inventory {
        root: json!({"Vendor": "Dell"}),
        adapters: vec![AdapterInventory {
            adapter: json!({"@odata.id": "/a"}),
            functions: vec![FunctionInventory {
                function: json!({"@odata.id": "/a/f", "Id": "NIC.Slot.7-1-1"}),
                oem_attributes: Some(json!({"@odata.id": "/a/f/attrs", "Attributes": {
                    "LldpPort1": "Auto", "LldpPort2": "Disabled", "Broadcom_LLDPNearestBridge": "enabled"}})),
                ..FunctionInventory::default()
            }],
            ..AdapterInventory::default()
        }],
        ..Inventory::default()
    };
    assert_eq!(
        problems(&dell),
        [
            "/a/f/attrs: Attributes/LldpPort1 is the string \"Auto\", expected \"Enabled\" or \"Disabled\""
        ]
    );
    let nvidia = Inventory {
        root: json!({"Vendor": "NVIDIA"}),
        adapters: vec![AdapterInventory {
            adapter: json!({"@odata.id": "/a", "Oem": {"Nvidia": {"LLDP": {"TXMode": "All", "RXMode": "Sometimes"}}}}),
            ..AdapterInventory::default()
        }],
        ..Inventory::default()
    };
    assert_eq!(
        problems(&nvidia),
        [
            "/a: Oem/Nvidia/LLDP/RXMode is the string \"Sometimes\", expected one of \"Off\", \"Mandatory\", \"All\""
        ]
    );
}

#[test]
fn related_item_is_checked_apart_and_names_feed_only_numbered_members() {
    let inventory = Inventory {
        firmware: vec![
            // Cisco CIMC 4.1: a URI string where the array of links belongs.
            json!({"@odata.id": "/fw/CIMC", "Id": "CIMC", "Name": ["CIMC"], "SoftwareId": 4,
                   "Version": "4.1(3d)", "RelatedItem": "/redfish/v1/Managers/CIMC"}),
            // Numbered by position: its Name is what names it.
            json!({"@odata.id": "/fw/16", "Id": "16", "Name": 16, "Version": "22.39"}),
        ],
        ..Inventory::default()
    };
    assert_eq!(
        problems(&inventory),
        ["/fw/16: Name is the number 16, expected a string"],
        "the CIMC member's RelatedItem, Name and SoftwareId are no problem of the capture"
    );
    let unjudged: Vec<String> = check_unjudged(&inventory)
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(
        unjudged,
        [
            "/fw/CIMC: Name is an array, expected a string",
            "/fw/CIMC: SoftwareId is the number 4, expected a string",
        ]
    );
    let related: Vec<String> = inventory
        .firmware
        .iter()
        .flat_map(related_item)
        .map(|problem| problem.to_string())
        .collect();
    assert_eq!(
        related,
        [
            "/fw/CIMC: RelatedItem is the string \"/redfish/v1/Managers/CIMC\", expected an array of links"
        ]
    );
}
