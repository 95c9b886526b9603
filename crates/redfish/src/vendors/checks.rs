//! Which OEM properties each vendor module reads, and the type each must have: what the shape
//! check and the OEM reader (`oem.rs`) ask of the vendor modules.

use super::vocabulary::{Kind, Vendor};
use super::{cisco, dell};

/// Calls `check` with each OEM property of an adapter (or its pending settings) that
/// [`adapter_facts`](super::adapter_facts) reads, and the type it must have.
pub(crate) fn check_adapter(vendor: Vendor, check: &mut dyn FnMut(&[&str], Kind)) {
    match vendor {
        Vendor::Hpe => {
            check(&["Oem", "Hpe", "Controllers"], Kind::Array);
            check(
                &["Oem", "Hpe", "Controllers", "0", "RDMASupport"],
                Kind::Array,
            );
            let lldp = ["Oem", "Hpe", "Controllers", "0", "EmbeddedLLDPFunctions"];
            check(&lldp, Kind::Object);
            check(&[&lldp[..], &["Enabled"]].concat(), Kind::Bool);
        }
        Vendor::Nvidia => {
            check(&["Oem", "Nvidia", "LLDP"], Kind::Object);
            check(&["Oem", "Nvidia", "LLDP", "TXMode"], Kind::LldpMode);
            check(&["Oem", "Nvidia", "LLDP", "RXMode"], Kind::LldpMode);
            check(&["Oem", "Nvidia", "LLDP", "DCBXModeEnabled"], Kind::Bool);
        }
        Vendor::Cisco => cisco::check_adapter(check),
        Vendor::Dell | Vendor::Lenovo | Vendor::Generic => {}
    }
}

/// Calls `check` with each property of a [`system_adapters`](super::system_adapters) member that
/// [`system_adapter_firmware`](super::system_adapter_firmware) reads, and the type it must have.
pub(crate) fn check_system_adapter(vendor: Vendor, check: &mut dyn FnMut(&[&str], Kind)) {
    if vendor == Vendor::Hpe {
        check(&["Firmware", "Current", "VersionString"], Kind::Text);
        check(&["PhysicalPorts"], Kind::Array);
    }
}

/// Calls `check` with each OEM property of a port that [`port_mac`](super::port_mac) and [`port_facts`](super::port_facts) read.
pub(crate) fn check_port(vendor: Vendor, check: &mut dyn FnMut(&[&str], Kind)) {
    match vendor {
        Vendor::Lenovo => check(&["Oem", "Lenovo", "PhysicalPortMacAddress"], Kind::Mac),
        Vendor::Hpe => {
            // What the port received over LLDP: its DCB is read below, the rest is the
            // neighbour's identity (the standard `LLDPReceive`), no setting of this port.
            check(&["Oem", "Hpe", "LldpData"], Kind::Object);
            let dcb = ["Oem", "Hpe", "LldpData", "Receiving", "Dcb"];
            let at = |rest: &[&'static str]| [&dcb[..], rest].concat();
            check(&at(&["Version"]), Kind::Text);
            check(&at(&["Pfc", "EnabledTrafficClasses"]), Kind::Text);
            for table in [
                "BandwidthAssignmentTable",
                "TrafficSelectionAlgorithmTable",
                "PriorityAssignmentTable",
            ] {
                check(&at(&["Ets", table]), Kind::Array);
            }
        }
        Vendor::Cisco | Vendor::Dell | Vendor::Nvidia | Vendor::Generic => {}
    }
}

/// Calls `check` with each OEM property of a network device function (and of its pending
/// settings) that [`function_oem_facts`](super::function_oem_facts), [`function_port`](super::function_port) and [`function_position`](super::function_position) read,
/// and the type it must have.
pub(crate) fn check_function(vendor: Vendor, check: &mut dyn FnMut(&[&str], Kind)) {
    match vendor {
        Vendor::Cisco => cisco::check_function(check),
        Vendor::Dell => check(&["Oem", "Dell", "DellNIC", "FQDD"], Kind::Text),
        _ => {}
    }
}

/// Calls `check` with each attribute of a device function's OEM attribute resource that
/// [`function_facts`](super::function_facts) maps, and the type it must have.
pub(crate) fn check_function_attributes(vendor: Vendor, check: &mut dyn FnMut(&[&str], Kind)) {
    if vendor == Vendor::Dell {
        for (name, kind) in dell::mapped_attributes() {
            check(&["Attributes", name], kind);
        }
    }
}
