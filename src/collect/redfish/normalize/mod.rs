//! Normalization: a crawled [`Inventory`] → facts. Pure: no I/O, no clock.
//!
//! Ports are keyed by permanent MAC (`nic/<mac>/bmc/…`), the join key with what the OS
//! reports; a port whose MAC the service does not give keeps a name-based key
//! (`nic/port-<id>/bmc/…`). Firmware is keyed by component, BIOS by attribute name. Standard
//! Redfish properties are mapped here; vendor OEM data in [`super::vendors`].

use serde_json::Value;

use super::crawl::{Inventory, link};
use super::vendors::Vendor;
use crate::model::MacAddr;
use crate::snapshot::Facts;

mod firmware;
mod ports;
mod system;

/// What normalization made of a crawl.
#[derive(Debug, Clone, Default)]
pub struct Normalized {
    /// The facts.
    pub facts: Facts,
    /// Worth saying, not an error: a port keyed without a MAC and why, one adapter seen
    /// through two chassis.
    pub notes: Vec<String>,
    /// What makes the capture partial, naming the URIs: two resources that claim the same
    /// fact with different values.
    pub problems: Vec<String>,
}

/// The facts of a crawled service.
pub fn normalize(inventory: &Inventory) -> Normalized {
    let vendor = Vendor::detect(&inventory.root);
    let mut out = Normalized::default();
    let links = firmware::firmware_facts(
        &inventory.firmware,
        &inventory.adapters,
        vendor,
        &mut out.facts,
    );
    for adapter in &inventory.adapters {
        ports::adapter_facts(adapter, vendor, &links, &mut out);
    }
    for system in &inventory.systems {
        system::system_facts(system, vendor, &mut out.facts);
    }
    out
}

pub(super) fn mac_of(value: &Value) -> Option<MacAddr> {
    value
        .as_str()
        .and_then(MacAddr::parse)
        .filter(|mac| !mac.is_zero())
}

/// The permanent MAC of a device function (its current MAC when no permanent one is given).
pub(super) fn function_mac(function: &Value) -> Option<MacAddr> {
    mac_of(&function["Ethernet"]["PermanentMACAddress"])
        .or_else(|| mac_of(&function["Ethernet"]["MACAddress"]))
}

/// The port a device function is assigned to.
pub(super) fn function_port(function: &Value) -> Option<&str> {
    link(function, &["Links", "PhysicalPortAssignment"])
        .or_else(|| function["AssignablePhysicalPorts"][0]["@odata.id"].as_str())
}

pub(super) fn id_of(resource: &Value) -> String {
    resource["Id"]
        .as_str()
        .map(str::to_owned)
        .or_else(|| {
            resource["@odata.id"]
                .as_str()
                .and_then(|u| u.trim_end_matches('/').rsplit('/').next())
                .map(str::to_owned)
        })
        .unwrap_or_else(|| "unknown".to_owned())
}

#[cfg(test)]
mod tests;
