use super::*;
use crate::collect::redfish::crawl::{
    AdapterInventory, FunctionInventory, Inventory, SystemInventory,
};
use crate::snapshot::FactValue;
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
            json!({"@odata.id": "/redfish/v1/Chassis/1/NetworkAdapters/Slot1/Ports/2", "Id": "2", "Ethernet": {}}),
        ],
        functions: vec![FunctionInventory {
            function: json!({"Id": "F2", "Ethernet": {"PermanentMACAddress": "00:00:00:00:00:00", "MACAddress": "aa:bb:cc:dd:ee:02"},
                             "Links": {"PhysicalPortAssignment": {"@odata.id": "/redfish/v1/Chassis/1/NetworkAdapters/Slot1/Ports/2"}}}),
            oem_attributes: None,
            oem_pending: None,
            oem_registry: None,
            pending: None,
        }],
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
    assert_eq!(
        get(&facts, "nic/aa:bb:cc:dd:ee:02/bmc/port"),
        Some(&"2".into())
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
            json!({"RegistryEntries": {"Attributes": [{"AttributeName": "AdminPin", "Type": "Password"}]}}),
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
    assert_eq!(
        Vendor::detect(&json!({"Vendor": "Contoso"})),
        Vendor::Generic
    );
}
