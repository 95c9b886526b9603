//! Vendor OEM mappings, one module per vendor, each pure and data-driven where it can be.
//! A service of an unknown vendor still yields every standard fact.

mod checks;
mod cisco;
mod dell;
mod hpe;
mod lenovo;
mod nvidia;
mod oem;
mod vocabulary;

use serde_json::Value;

use super::attributes::Registry;
use driftgate_model::MacAddr;
use driftgate_snapshot::Facts;

pub(crate) use checks::{
    check_adapter, check_function, check_function_attributes, check_port, check_system_adapter,
};
pub(crate) use oem::{OemOf, keep_read, oem_facts};
pub(crate) use vocabulary::{
    Bios, Kind, Leaves, OemAttributes, OemCollection, SystemAdapterFirmware, Vendor, on_off,
    unknown_dcb_note,
};

/// The vendor's resource of NIC (HII) attributes that the crawl follows from a network device
/// function (with its pending `Settings` and attribute registry): vendor knowledge stays
/// here, the crawl only asks (nv-redfish's `oem/<vendor>` pattern).
pub(crate) fn function_attributes(vendor: Vendor) -> Option<OemAttributes> {
    match vendor {
        Vendor::Dell => Some(dell::ATTRIBUTES),
        Vendor::Cisco | Vendor::Hpe | Vendor::Lenovo | Vendor::Nvidia | Vendor::Generic => None,
    }
}

/// The vendor's collection of the system's network adapters that the crawl follows from each
/// system, when the vendor keeps one: it may hold the only firmware version of a NIC.
pub(crate) fn system_adapters(vendor: Vendor) -> Option<OemCollection> {
    match vendor {
        Vendor::Hpe => Some(hpe::BASE_NETWORK_ADAPTERS),
        Vendor::Cisco | Vendor::Dell | Vendor::Lenovo | Vendor::Nvidia | Vendor::Generic => None,
    }
}

/// The NIC firmware version a member of [`system_adapters`] reports, with the MAC of each of
/// its ports (the join key with the standard ports); `None` without a version. A placeholder
/// version is no version and is counted as `property` of the member.
pub(crate) fn system_adapter_firmware(
    vendor: Vendor,
    adapter: &Value,
) -> Option<SystemAdapterFirmware<'_>> {
    match vendor {
        Vendor::Hpe => hpe::base_adapter_firmware(adapter),
        Vendor::Cisco | Vendor::Dell | Vendor::Lenovo | Vendor::Nvidia | Vendor::Generic => None,
    }
}

/// A port's MAC from its OEM block, when the standard properties lack it.
pub(crate) fn port_mac(vendor: Vendor, port: &Value) -> Option<MacAddr> {
    match vendor {
        Vendor::Lenovo => lenovo::port_mac(port),
        _ => None,
    }
}

/// OEM facts of an adapter (or of its pending settings object) that hold for each of its
/// ports.
pub(crate) fn adapter_facts(vendor: Vendor, adapter: &Value, leaves: &mut Leaves) {
    match vendor {
        Vendor::Hpe => hpe::adapter_facts(adapter, leaves),
        Vendor::Nvidia => nvidia::adapter_facts(adapter, leaves),
        Vendor::Cisco => cisco::adapter_facts(adapter, leaves),
        Vendor::Dell | Vendor::Lenovo | Vendor::Generic => {}
    }
}

/// OEM facts of a port (`Port` or `NetworkPort` resource).
pub(crate) fn port_facts(vendor: Vendor, port: &Value, leaves: &mut Leaves) {
    if vendor == Vendor::Hpe {
        hpe::port_facts(port, leaves);
    }
}

/// OEM facts of a network device function (or of its pending settings) from its own `Oem`
/// block (Cisco's `VnicConfiguration`).
pub(crate) fn function_oem_facts(vendor: Vendor, function: &Value, leaves: &mut Leaves) {
    if vendor == Vendor::Cisco {
        cisco::function_facts(function, leaves);
    }
}

/// The port (an index into `ports`, the adapter's NetworkPorts and Ports) the vendor's OEM
/// data assigns a network device function to, for a function no standard link assigns.
pub(crate) fn function_port(
    vendor: Vendor,
    adapter: &Value,
    function: &Value,
    ports: &[&Value],
) -> Option<usize> {
    match vendor {
        Vendor::Cisco => cisco::uplink_port(adapter, function, ports),
        _ => None,
    }
}

/// Where a network device function is in the hardware, as its vendor names it apart from
/// its `Id` (which is a name the BMC gives it, and a BMC update may change): Dell's
/// `Oem.Dell.DellNIC.FQDD` (`NIC.Slot.5-1`: slot, port, partition).
pub(crate) fn function_position(vendor: Vendor, function: &Value) -> Option<&str> {
    match vendor {
        Vendor::Dell => function["Oem"]["Dell"]["DellNIC"]["FQDD"].as_str(),
        _ => None,
    }
}

/// Whether a firmware inventory member is `adapter`'s by the vendor's naming of its entries
/// (Cisco's `…-slot-MLOM`), where the standard links and slots say nothing.
pub(crate) fn names_adapter_firmware(vendor: Vendor, item: &Value, adapter: &Value) -> bool {
    vendor == Vendor::Cisco && cisco::names_adapter_firmware(item, adapter)
}

/// OEM facts of a network device function (`function`, whose hardware position places
/// per-port attributes: Dell's `Oem.Dell.DellNIC.FQDD`, else its `Id`, which iDRAC makes the
/// same FQDD) from its vendor attribute resource (current or pending) that
/// [`function_attributes`] named; `registry` is that resource's attribute registry, which
/// types secrets and classifies the attributes not normalized; what the operator should know
/// goes to `notes`.
pub(crate) fn function_facts(
    vendor: Vendor,
    function: &Value,
    attributes: &Value,
    registry: Option<&Registry>,
    leaves: &mut Leaves,
    notes: &mut Vec<String>,
) {
    if vendor == Vendor::Dell {
        let fqdd = function_position(vendor, function)
            .or_else(|| function["Id"].as_str())
            .unwrap_or("");
        dell::function_facts(fqdd, attributes, registry, leaves, notes);
    }
}

/// OEM facts folded into BIOS attributes; returns the names of the attributes it placed
/// elsewhere, which are then not `bios/…` facts; values it cannot place go to `problems`,
/// what the operator should know to `notes`.
pub(crate) fn bios_facts(
    vendor: Vendor,
    bios: Bios<'_>,
    facts: &mut Facts,
    problems: &mut Vec<String>,
    notes: &mut Vec<String>,
) -> std::collections::BTreeSet<String> {
    if vendor == Vendor::Lenovo {
        lenovo::bios_facts(bios, facts, problems, notes)
    } else {
        std::collections::BTreeSet::new()
    }
}
