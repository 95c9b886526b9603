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

use super::crawl::Inventory;
use super::vendors::Vendor;
use driftgate_snapshot::{FactPath, Facts};

mod firmware;
mod identity;
mod interfaces;
mod normalized;
mod pcie;
mod ports;
mod properties;
mod system;
mod withheld;

pub use normalized::Normalized;
pub(crate) use properties::id_of;
pub use withheld::Withheld;

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

#[cfg(test)]
mod tests;
