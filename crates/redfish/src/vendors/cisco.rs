//! Cisco UCS C-series CIMC (and the Cisco IMC of X-series blades): the VIC's settings sit in
//! `Oem.Cisco` blocks of the standard resources (`#CiscoUCSExtensions.v1_0_0`), as published
//! captures of CIMC 4.1–5.2 show (C220/C240/C225 M5–M6 with VIC 1387, 1457 and 14425):
//!
//! - the adapter's `Oem.Cisco.VicConfiguration` holds what the whole VIC does, so each of its
//!   ports carries it: `LldpEnabled` (the VIC's own LLDP/DCBX agent) as `lldp/nic_agent`,
//!   `AzureQosEnabled` (AzureStack-Host QoS: the traffic classes carved out for RDMA) as
//!   `qos/azure_stack_host`, `FipEnabled` (FCoE Initialization Protocol) as `fcoe/fip`,
//!   `PortChannelEnabled`, `PhysicalNicModeEnabled` and `NivEnabled` (how the uplinks are
//!   bundled and tagged) under `uplink/…`, and `ConfigurationPending` as `settings_pending`:
//!   CIMC stages a VIC change for the next host reboot without saying which values it staged,
//!   so the facts can say only that something is staged;
//! - each vNIC (a NetworkDeviceFunction) has `Oem.Cisco.VnicConfiguration`:
//!   `EthConfiguration.TrustedClassOfServiceEnabled` (whether the VIC keeps the host's CoS or
//!   rewrites it with the vNIC's) as `trusted_cos`, `ClassOfService` as `cos`, `VlanMode`
//!   (`Trunk`, `Access`) as `vlan_mode`, `UplinkPort` (the VIC uplink the vNIC is pinned to,
//!   from 0) as `uplink_port`, and `EthConfiguration.Features.Rocev2Enabled` as `rdma_enabled`
//!   with `rdma_protocol` `rocev2` (a VIC that reports the flag supports RoCEv2, the only
//!   version VIC 14xx runs). The RoCE profile (queue pairs, memory regions, resource groups,
//!   its class of service) is read from `EthConfiguration.RdmaProfile`: the CIMC XML API's
//!   `adaptorEthRdmaProfile` (`queuePairs`, `memoryRegions`, `resourceGroups`,
//!   `rdmaClassOfService`) in CIMC Redfish's spelling; no public Redfish capture with RoCE
//!   configured was found, so those four names are unconfirmed.
//!
//! `UplinkPort` also ties a vNIC to its physical port where the standard links are missing:
//! uplink `n` is port `n + 1`, and with `PortChannelEnabled` on a four-port VIC (1455/1457)
//! it is the port channel of ports `2n + 1` and `2n + 2`, which CIMC itself assigns to port
//! `2n + 1`. The VIC's firmware inventory entry is named after the adapter's slot
//! (`UCS_VIC_1387-slot-MLOM`, `UCSC-M-V100-04-slot-MLOM`, CIMC 3.x `slot-MLOM`, whose adapter
//! says `SlotID:MLOM`) or is the adapter's own `Id` (X-series).

use serde_json::Value;

use super::{Kind, Leaves};
use driftgate_model::RdmaProtocol;

/// Adapter-level facts of every port of a VIC, from `Oem.Cisco.VicConfiguration`.
pub(super) fn adapter_facts(adapter: &Value, nic: &mut Leaves) {
    let vic = &adapter["Oem"]["Cisco"]["VicConfiguration"];
    for (property, leaf) in ADAPTER {
        nic.set_scalar(leaf, &vic[property]);
    }
}

/// `VicConfiguration` property → leaf.
const ADAPTER: [(&str, &str); 7] = [
    ("LldpEnabled", "lldp/nic_agent"),
    ("AzureQosEnabled", "qos/azure_stack_host"),
    ("FipEnabled", "fcoe/fip"),
    ("PortChannelEnabled", "uplink/port_channel"),
    ("PhysicalNicModeEnabled", "uplink/physical_nic_mode"),
    ("NivEnabled", "uplink/niv"),
    ("ConfigurationPending", "settings_pending"),
];

/// `VnicConfiguration` numbers → leaf.
const VNIC_NUMBERS: [(&str, &str); 2] = [("ClassOfService", "cos"), ("UplinkPort", "uplink_port")];

/// `EthConfiguration.RdmaProfile` property → leaf.
const RDMA_PROFILE: [(&str, &str); 4] = [
    ("QueuePairs", "rdma/queue_pairs"),
    ("MemoryRegions", "rdma/memory_regions"),
    ("ResourceGroups", "rdma/resource_groups"),
    ("ClassOfService", "rdma/cos"),
];

/// Facts of one vNIC (a network device function, or its pending settings) from its
/// `Oem.Cisco.VnicConfiguration`.
pub(super) fn function_facts(function: &Value, leaves: &mut Leaves) {
    let vnic = &function["Oem"]["Cisco"]["VnicConfiguration"];
    let eth = &vnic["EthConfiguration"];
    leaves.set_scalar("trusted_cos", &eth["TrustedClassOfServiceEnabled"]);
    for (property, leaf) in VNIC_NUMBERS {
        leaves.set_scalar(leaf, &vnic[property]);
    }
    if let Some(mode) = leaves.text("vlan_mode", &vnic["VlanMode"]) {
        leaves.set("vlan_mode", mode.to_ascii_lowercase());
    }
    if let Some(enabled) = eth["Features"]["Rocev2Enabled"].as_bool() {
        leaves.set("rdma_enabled", enabled);
        leaves.set("rdma_protocol", RdmaProtocol::RoceV2.as_str());
    }
    for (property, leaf) in RDMA_PROFILE {
        leaves.set_scalar(leaf, &eth["RdmaProfile"][property]);
    }
}

/// The member of `ports` (an adapter's NetworkPorts and Ports) that a vNIC's `UplinkPort`
/// names, for a vNIC the standard links assign to no port (see the module documentation).
pub(super) fn uplink_port(adapter: &Value, function: &Value, ports: &[&Value]) -> Option<usize> {
    let uplink = function["Oem"]["Cisco"]["VnicConfiguration"]["UplinkPort"].as_u64()?;
    let numbers: Vec<Option<u64>> = ports.iter().map(|port| port_number(port)).collect();
    let mut distinct: Vec<u64> = numbers.iter().flatten().copied().collect();
    distinct.sort_unstable();
    distinct.dedup();
    let channel = adapter["Oem"]["Cisco"]["VicConfiguration"]["PortChannelEnabled"] == true;
    let number = if channel && distinct.len() == 4 {
        uplink.checked_mul(2)?.checked_add(1)?
    } else {
        uplink.checked_add(1)?
    };
    // A Port (current schema) is listed after the NetworkPorts: the last one of the number.
    numbers.iter().rposition(|n| *n == Some(number))
}

/// A VIC port's number from 1: NetworkPort `PhysicalPortNumber` (`"1"`), Port `PortId`, else
/// the number in its `Id` (`Port-1`).
fn port_number(port: &Value) -> Option<u64> {
    ["PhysicalPortNumber", "PortId"]
        .into_iter()
        .find_map(|property| port[property].as_str()?.trim().parse().ok())
        .or_else(|| {
            let id = port["Id"].as_str()?;
            let digits = id.trim_start_matches(|c: char| !c.is_ascii_digit());
            digits.parse().ok()
        })
}

/// Whether a firmware inventory member is the VIC `adapter`'s own: its `Id` is the adapter's
/// `Id`, or names the adapter's slot (`…-slot-MLOM`, `slot-MLOM` for `SlotID:MLOM`).
pub(super) fn names_adapter_firmware(item: &Value, adapter: &Value) -> bool {
    let Some(id) = item["Id"].as_str().map(str::to_ascii_lowercase) else {
        return false;
    };
    if adapter["Id"]
        .as_str()
        .is_some_and(|own| own.eq_ignore_ascii_case(&id))
    {
        return true;
    }
    adapter["Controllers"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|controller| controller["Location"]["PartLocation"]["ServiceLabel"].as_str())
        .filter_map(slot_label)
        .any(|slot| id == format!("slot-{slot}") || id.ends_with(&format!("-slot-{slot}")))
}

/// The slot of a CIMC service label, lower-cased: `SlotID:MLOM` → `mlom`.
fn slot_label(label: &str) -> Option<String> {
    let (key, slot) = label.split_once(':')?;
    let slot = slot.trim();
    (key.trim().eq_ignore_ascii_case("slotid") && !slot.is_empty())
        .then(|| slot.to_ascii_lowercase())
}

/// Each OEM property of an adapter that [`adapter_facts`] and [`names_adapter_firmware`] read,
/// with its type.
pub(super) fn check_adapter(check: &mut dyn FnMut(&[&str], Kind)) {
    let vic = ["Oem", "Cisco", "VicConfiguration"];
    check(&vic, Kind::Object);
    for (property, _) in ADAPTER {
        check(&[&vic[..], &[property]].concat(), Kind::Bool);
    }
    check(
        &[
            "Controllers",
            "0",
            "Location",
            "PartLocation",
            "ServiceLabel",
        ],
        Kind::Text,
    );
}

/// Each OEM property of a network device function that [`function_facts`] and
/// [`uplink_port`] read, with its type.
pub(super) fn check_function(check: &mut dyn FnMut(&[&str], Kind)) {
    let vnic = ["Oem", "Cisco", "VnicConfiguration"];
    let at = |rest: &[&'static str]| [&vnic[..], rest].concat();
    check(&vnic, Kind::Object);
    check(&at(&["EthConfiguration"]), Kind::Object);
    check(
        &at(&["EthConfiguration", "TrustedClassOfServiceEnabled"]),
        Kind::Bool,
    );
    check(
        &at(&["EthConfiguration", "Features", "Rocev2Enabled"]),
        Kind::Bool,
    );
    for (property, _) in VNIC_NUMBERS {
        check(&at(&[property]), Kind::Integer);
    }
    check(&at(&["VlanMode"]), Kind::Text);
    check(&at(&["EthConfiguration", "RdmaProfile"]), Kind::Object);
    for (property, _) in RDMA_PROFILE {
        check(
            &at(&["EthConfiguration", "RdmaProfile", property]),
            Kind::Integer,
        );
    }
}

#[cfg(test)]
mod tests;
