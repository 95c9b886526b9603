use super::*;
use serde_json::json;

fn facts_of(system: &SystemInventory, vendor: Vendor) -> Facts {
    let mut out = Normalized::default();
    system_facts(system, vendor, &mut out);
    assert!(out.problems.is_empty(), "{:?}", out.problems);
    out.facts
}

#[test]
fn pending_values_equal_to_the_current_ones_are_no_facts() {
    // iLO and XCC stage every attribute in `Bios/Settings`, changed or not.
    let system = SystemInventory {
        bios: Some(
            json!({"Attributes": {"WorkloadProfile": "Virtualization-MaxPerformance",
                                          "ProcHyperthreading": "Enabled", "Sriov": "Enabled"}}),
        ),
        bios_pending: Some(
            json!({"Attributes": {"WorkloadProfile": "Virtualization-MaxPerformance",
                                                  "ProcHyperthreading": "Disabled", "Sriov": "Enabled"}}),
        ),
        ..SystemInventory::default()
    };
    let facts = facts_of(&system, Vendor::Hpe);
    let pending: Vec<&str> = facts
        .keys()
        .map(FactPath::as_str)
        .filter(|p| p.starts_with("bios/pending/"))
        .collect();
    assert_eq!(pending, ["bios/pending/ProcHyperthreading"]);
    assert_eq!(facts.len(), 4, "{facts:?}");
}

#[test]
fn version_attributes_are_firmware_not_settings() {
    let system = SystemInventory {
        bios: Some(
            json!({"Attributes": {"SystemRomVersion": "U54 v2.16", "EmbNicEFIVersion": "3.2.1",
                                          "BootMode": "Uefi", "PrebootNetworkIpVersion": "IPv4"}}),
        ),
        bios_pending: Some(json!({"Attributes": {"EmbNicEFIVersion": "3.2.2"}})),
        ..SystemInventory::default()
    };
    let facts = facts_of(&system, Vendor::Generic);
    let paths: Vec<&str> = facts.keys().map(FactPath::as_str).collect();
    assert_eq!(
        paths,
        [
            "bios/BootMode",
            "bios/PrebootNetworkIpVersion",
            "firmware/bios/attribute/EmbNicEFIVersion",
            "firmware/bios/attribute/SystemRomVersion"
        ]
    );
}

#[test]
fn lenovo_port_attributes_have_one_home_under_their_port() {
    // Mapped attributes (`…_DCBXMode`, `…_LLDPAgent`) are their normalized leaf only.
    let system = SystemInventory {
        bios: Some(json!({"Attributes": {
            "PCIE_SLOT_1_Port1_PermanentMACAddress": "94:6D:AE:53:CB:9B",
            "PCIE_SLOT_1_Port1_Mellanox_DCBXMode": "IEEE",
            "PCIE_SLOT_1_Port1_FirmwareVersion": "26.39.1002",
            "Slot1_946DAE53CB9B_LLDPAgent": "Enabled",
            "OperatingModes_ChooseOperatingMode": "MaximumPerformance"}})),
        bios_pending: Some(
            json!({"Attributes": {"PCIE_SLOT_1_Port1_Mellanox_DCBXMode": "IEEE",
                                                  "OperatingModes_ChooseOperatingMode": "Efficiency"}}),
        ),
        ..SystemInventory::default()
    };
    let facts = facts_of(&system, Vendor::Lenovo);
    let paths: Vec<&str> = facts.keys().map(FactPath::as_str).collect();
    assert_eq!(
        paths,
        [
            "bios/OperatingModes_ChooseOperatingMode",
            "bios/pending/OperatingModes_ChooseOperatingMode",
            "nic/94:6d:ae:53:cb:9b/bmc/dcbx_mode",
            "nic/94:6d:ae:53:cb:9b/bmc/firmware/hii/PCIE_SLOT_1_Port1_FirmwareVersion",
            "nic/94:6d:ae:53:cb:9b/bmc/hii/PCIE_SLOT_1_Port1_PermanentMACAddress",
            "nic/94:6d:ae:53:cb:9b/bmc/lldp/nic_agent",
        ]
    );
}

#[test]
fn bios_attributes_go_where_the_registry_says_and_unknown_dcb_ones_are_noted() {
    // Entries of iDRAC 9's BIOS registry (tests/fixtures/public/redfish/libredfish-dell), and a
    // flow control setting no vendor module knows.
    let registry = json!({"RegistryEntries": {"Attributes": [
        {"AttributeName": "SysMemSpeed", "DisplayName": "System Memory Speed", "ReadOnly": true, "Type": "String"},
        {"AttributeName": "Proc1Microcode", "DisplayName": "Microcode", "ReadOnly": true, "Type": "String"},
        {"AttributeName": "LanFlowCtl", "DisplayName": "Embedded NIC Flow Control", "ReadOnly": false, "Type": "Enumeration"},
        {"AttributeName": "SysProfile", "DisplayName": "System Profile", "ReadOnly": false, "Type": "Enumeration"}
    ]}});
    let system = SystemInventory {
        bios: Some(
            json!({"@odata.id": "/redfish/v1/Systems/System.Embedded.1/Bios", "Attributes": {
            "SysMemSpeed": "3200 MT/s", "Proc1Microcode": "0xD00037B", "LanFlowCtl": "RxTx",
            "SysProfile": "PerfOptimized", "LastBootTime": "2026-11-30T01:58:12Z"}}),
        ),
        bios_pending: Some(json!({"Attributes": {
            "SysMemSpeed": "2933 MT/s", "Proc1Microcode": "0xD00037C", "LanFlowCtl": "Disabled"}})),
        bios_registry: Some(Registry::new(registry, false).into()),
        ..SystemInventory::default()
    };
    let mut out = Normalized::default();
    system_facts(&system, Vendor::Dell, &mut out);
    let paths: Vec<&str> = out.facts.keys().map(FactPath::as_str).collect();
    assert_eq!(
        paths,
        [
            "bios/SysMemSpeed",
            "bios/SysProfile",
            "bios/dcb/LanFlowCtl",
            "bios/pending/SysMemSpeed",
            "bios/pending/dcb/LanFlowCtl",
            "bios/status/LastBootTime",
            "firmware/bios/attribute/Proc1Microcode",
        ]
    );
    assert_eq!(out.notes.len(), 1, "{:?}", out.notes);
    assert!(
        out.notes[0].starts_with(
            "/redfish/v1/Systems/System.Embedded.1/Bios: Attributes/LanFlowCtl is judged a DCB \
             setting because its registry DisplayName \"Embedded NIC Flow Control\" says flow control"
        ),
        "{:?}",
        out.notes
    );
}
