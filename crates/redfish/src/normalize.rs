//! Normalization: a crawled [`Inventory`] → facts. Pure: no I/O, no clock.
//!
//! Ports are keyed by permanent MAC (`nic/<mac>/bmc/…`), the join key with what the OS
//! reports, found through any link of any schema generation (`ports`); each function of a
//! port has its own `nic/<mac>/bmc/function/<name>/…`; a port whose MAC the service gives
//! nowhere keeps a name-based key (`nic/port-<adapter>-<port>/bmc/…`, with the chassis Id in
//! front when two adapters of the crawl share a name) and a note. A function joins a port only
//! through a definite link (an assignment, or an `Assignable…` list of one port). Firmware is
//! keyed by component, BIOS by attribute name. Standard Redfish properties are mapped here;
//! vendor OEM data in `super::vendors`.
//!
//! No fact depends on the numbers a BMC gives the members of its collections or on the order
//! it lists them in, since a BMC renumbers them at will: names are `Id`s where those are names,
//! and for a member numbered by the BMC what the hardware says (`identity`: an adapter's
//! location, a port's `PortId`, a function's MAC; firmware's `<Name>@<context>`, `firmware`).
//! Where a numbered member has nothing stable, the key that needs it keeps the number and a
//! note says it can change; an identity fact is then left out.

use serde_json::Value;

use super::crawl::{Inventory, link};
use super::vendors::Vendor;
use driftgate_model::MacAddr;
use driftgate_model::placeholder::Placeholders;
use driftgate_snapshot::{FactPath, Facts};

mod firmware;
mod identity;
mod interfaces;
mod pcie;
mod ports;
mod system;
mod withheld;

pub use withheld::Withheld;

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
    /// The BIOS and NIC attributes kept out of the facts as secrets, by resource.
    pub withheld: Vec<Withheld>,
    /// The values the service answered with a placeholder (`"N/A"`, `"nil"`…), which are no
    /// facts: a source that answers mostly those says so.
    pub placeholders: Placeholders,
}

/// The facts of a crawled service.
pub fn normalize(inventory: &Inventory) -> Normalized {
    let vendor = Vendor::detect(&inventory.root);
    let mut out = Normalized::default();
    let links = firmware::firmware_facts(
        &inventory.firmware,
        &inventory.adapters,
        (&inventory.pcie, &inventory.systems, vendor),
        &mut out,
    );
    ports::adapters_facts(&inventory.adapters, vendor, &links, &mut out);
    interfaces::interface_facts(&inventory.systems, &mut out.facts);
    for system in &inventory.systems {
        system::system_facts(system, vendor, &mut out);
    }
    vendor_port_firmware(&links, &mut out.facts);
    out.withheld = withheld::withheld(inventory);
    out
}

/// The NIC firmware version the vendor's own list of adapters gives a port MAC (HPE iLO 5
/// `BaseNetworkAdapters`), for each port that has none from the standard resources: the
/// port's `bmc/firmware/version`, also for a port only the system's interfaces or that list
/// name.
fn vendor_port_firmware(links: &firmware::FirmwareLinks, facts: &mut Facts) {
    for (mac, version) in links.vendor_versions() {
        let path = FactPath::new(format!("nic/{mac}/bmc/firmware/version"))
            .expect("a MAC is a valid segment");
        if !facts.contains_key(path.as_str()) {
            facts.insert(path, version.as_str().into());
        }
    }
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

/// A link from a device function to a port.
pub(super) struct PortLink<'v> {
    /// The port's `@odata.id`, without a trailing `/`.
    pub uri: &'v str,
    /// Whether it names the port the function is on (an assignment, or the only assignable
    /// port) rather than one of several it could be assigned to.
    pub definite: bool,
}

/// The ports a device function links to, the one it is assigned to first:
/// `Links.PhysicalNetworkPortAssignment` (a Port, NetworkDeviceFunction v1.5+),
/// `Links.PhysicalPortAssignment` (a NetworkPort, deprecated in v1.5), then the
/// `AssignablePhysicalNetworkPorts` and `AssignablePhysicalPorts` arrays.
pub(super) fn function_ports(function: &Value) -> Vec<PortLink<'_>> {
    let mut links = Vec::new();
    for path in [
        &["Links", "PhysicalNetworkPortAssignment"][..],
        &["Links", "PhysicalPortAssignment"][..],
    ] {
        if let Some(uri) = link(function, path) {
            links.push(PortLink {
                uri: uri.trim_end_matches('/'),
                definite: true,
            });
        }
    }
    for array in ["AssignablePhysicalNetworkPorts", "AssignablePhysicalPorts"] {
        let Some(items) = function[array].as_array() else {
            continue;
        };
        for item in items {
            if let Some(uri) = item["@odata.id"].as_str() {
                links.push(PortLink {
                    uri: uri.split('#').next().unwrap_or(uri).trim_end_matches('/'),
                    definite: items.len() == 1,
                });
            }
        }
    }
    links
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
