//! Vendor OEM mappings, one module per vendor, each pure and data-driven where it can be.
//! A service of an unknown vendor still yields every standard fact.

mod cisco;
mod dell;
mod hpe;
mod lenovo;
mod nvidia;
mod oem;

use std::collections::BTreeMap;

use serde_json::Value;

use super::attributes::{Recognised, Registry};
use super::odata_type::TypeName;
use driftgate_model::MacAddr;
use driftgate_snapshot::nic::{is_placeholder, scalar};
use driftgate_snapshot::{FactValue, Facts};

pub use oem::{OemOf, keep_read, oem_facts};

/// Who made the BMC, decided once from the service root.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Vendor {
    /// Cisco UCS CIMC (C-series) and Cisco IMC.
    Cisco,
    /// Dell iDRAC.
    Dell,
    /// HPE iLO.
    Hpe,
    /// Lenovo XCC.
    Lenovo,
    /// NVIDIA BMC.
    Nvidia,
    /// Anything else: standard properties only.
    Generic,
}

impl Vendor {
    /// The root's `Vendor`, else the key of its `Oem` block, else [`Vendor::Generic`].
    pub fn detect(root: &Value) -> Vendor {
        let named = |name: &str| match name.to_ascii_lowercase().as_str() {
            "cisco" | "cisco systems inc." | "cisco systems inc" => Some(Vendor::Cisco),
            "dell" | "dell inc." => Some(Vendor::Dell),
            "hpe" | "hp" | "hewlett packard enterprise" => Some(Vendor::Hpe),
            "lenovo" => Some(Vendor::Lenovo),
            "nvidia" => Some(Vendor::Nvidia),
            _ => None,
        };
        root["Vendor"]
            .as_str()
            .and_then(named)
            .or_else(|| {
                root["Oem"]
                    .as_object()
                    .and_then(|oem| oem.keys().find_map(|k| named(k)))
            })
            .unwrap_or(Vendor::Generic)
    }
}

/// The facts of one scope (a port, or one function of it) by leaf, before the port's key is
/// known: normalization joins ports and functions first and keys them afterwards, and
/// compares a scope's pending leaves with its current ones.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Leaves {
    values: BTreeMap<String, FactValue>,
    /// The leaves whose value was a placeholder (`"N/A"`…): absent, and counted for the
    /// capture's note on a source that answers mostly placeholders.
    placeholders: Vec<String>,
}

impl Leaves {
    /// Sets `leaf`.
    pub fn set(&mut self, leaf: &str, value: impl Into<FactValue>) {
        self.values.insert(leaf.to_owned(), value.into());
    }

    /// Sets `leaf` when `value` is a JSON scalar other than a placeholder (which is recorded).
    pub fn set_scalar(&mut self, leaf: &str, value: &Value) {
        match scalar(value) {
            Some(value) => self.set(leaf, value),
            None if is_placeholder(value) => self.placeholder(leaf),
            None => {}
        }
    }

    /// The text of `value` when it is a string other than a placeholder; a placeholder is
    /// recorded as `leaf`'s and gives `None`, like any other non-text.
    pub fn text<'v>(&mut self, leaf: &str, value: &'v Value) -> Option<&'v str> {
        if is_placeholder(value) {
            self.placeholder(leaf);
            return None;
        }
        value.as_str()
    }

    /// `leaf`'s value was a placeholder: no fact, one more placeholder seen.
    pub fn placeholder(&mut self, leaf: &str) {
        self.placeholders.push(leaf.to_owned());
    }

    /// The leaves whose value was a placeholder, in the order seen.
    pub fn placeholders(&self) -> &[String] {
        &self.placeholders
    }

    /// Whether `leaf` has a value.
    pub fn has(&self, leaf: &str) -> bool {
        self.values.contains_key(leaf)
    }

    /// The value of `leaf`.
    #[cfg(test)]
    pub fn get(&self, leaf: &str) -> Option<&FactValue> {
        self.values.get(leaf)
    }

    /// Every leaf with its value, sorted.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &FactValue)> {
        self.values
            .iter()
            .map(|(leaf, value)| (leaf.as_str(), value))
    }

    /// The leaves of `pending` (what a `@Redfish.Settings` object stages) that differ from
    /// the current ones in `self`, under `pending/`: a staged value equal to the current one
    /// changes nothing at the next reset and is no fact, nor is a staged version (`firmware/…`).
    /// Its placeholders count too.
    pub fn add_pending(&mut self, pending: &Leaves) {
        for (leaf, value) in &pending.values {
            // A version is what the firmware reports, never staged: a settings object that
            // repeats an older one must not read as a firmware change at the next reset.
            let version = leaf.starts_with("firmware/") || leaf.contains("/firmware/");
            if !version && self.values.get(leaf) != Some(value) {
                self.values.insert(format!("pending/{leaf}"), value.clone());
            }
        }
        self.placeholders.extend(
            pending
                .placeholders
                .iter()
                .map(|leaf| format!("pending/{leaf}")),
        );
    }
}

/// A vendor's resource of NIC (HII) attributes, linked from a network device function.
#[derive(Debug, Clone, Copy)]
pub struct OemAttributes {
    /// Where in the function the link is.
    pub link: &'static [&'static str],
    /// The types the resource and its pending `Settings` may have.
    pub types: &'static [TypeName],
}

/// The vendor's resource of NIC (HII) attributes that the crawl follows from a network device
/// function (with its pending `Settings` and attribute registry): vendor knowledge stays
/// here, the crawl only asks (nv-redfish's `oem/<vendor>` pattern).
pub fn function_attributes(vendor: Vendor) -> Option<OemAttributes> {
    match vendor {
        Vendor::Dell => Some(dell::ATTRIBUTES),
        Vendor::Cisco | Vendor::Hpe | Vendor::Lenovo | Vendor::Nvidia | Vendor::Generic => None,
    }
}

/// A vendor's collection of a system's network adapters beside the standard `NetworkAdapters`
/// (HPE iLO 5's `BaseNetworkAdapters`): where the system links it, what its members are.
#[derive(Debug, Clone, Copy)]
pub struct OemCollection {
    /// Where in the system resource the link is.
    pub link: &'static [&'static str],
    /// The type of its members.
    pub member: &'static TypeName,
}

/// The vendor's collection of the system's network adapters that the crawl follows from each
/// system, when the vendor keeps one: it may hold the only firmware version of a NIC.
pub fn system_adapters(vendor: Vendor) -> Option<OemCollection> {
    match vendor {
        Vendor::Hpe => Some(hpe::BASE_NETWORK_ADAPTERS),
        Vendor::Cisco | Vendor::Dell | Vendor::Lenovo | Vendor::Nvidia | Vendor::Generic => None,
    }
}

/// The NIC firmware version a member of [`system_adapters`] reports, with the MAC of each of
/// its ports (the join key with the standard ports); `None` without a version. A placeholder
/// version is no version and is counted as `property` of the member.
pub fn system_adapter_firmware(
    vendor: Vendor,
    adapter: &Value,
) -> Option<SystemAdapterFirmware<'_>> {
    match vendor {
        Vendor::Hpe => hpe::base_adapter_firmware(adapter),
        Vendor::Cisco | Vendor::Dell | Vendor::Lenovo | Vendor::Nvidia | Vendor::Generic => None,
    }
}

/// What [`system_adapter_firmware`] reads from one vendor adapter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SystemAdapterFirmware<'v> {
    /// The MACs of its ports.
    pub macs: Vec<MacAddr>,
    /// The version, or `None` when the vendor answered a placeholder.
    pub version: Option<&'v str>,
    /// Where the version is in the member (for the placeholder count).
    pub property: &'static str,
}

/// A port's MAC from its OEM block, when the standard properties lack it.
pub fn port_mac(vendor: Vendor, port: &Value) -> Option<MacAddr> {
    match vendor {
        Vendor::Lenovo => lenovo::port_mac(port),
        _ => None,
    }
}

/// OEM facts of an adapter (or of its pending settings object) that hold for each of its
/// ports.
pub fn adapter_facts(vendor: Vendor, adapter: &Value, leaves: &mut Leaves) {
    match vendor {
        Vendor::Hpe => hpe::adapter_facts(adapter, leaves),
        Vendor::Nvidia => nvidia::adapter_facts(adapter, leaves),
        Vendor::Cisco => cisco::adapter_facts(adapter, leaves),
        Vendor::Dell | Vendor::Lenovo | Vendor::Generic => {}
    }
}

/// OEM facts of a port (`Port` or `NetworkPort` resource).
pub fn port_facts(vendor: Vendor, port: &Value, leaves: &mut Leaves) {
    if vendor == Vendor::Hpe {
        hpe::port_facts(port, leaves);
    }
}

/// OEM facts of a network device function (or of its pending settings) from its own `Oem`
/// block (Cisco's `VnicConfiguration`).
pub fn function_oem_facts(vendor: Vendor, function: &Value, leaves: &mut Leaves) {
    if vendor == Vendor::Cisco {
        cisco::function_facts(function, leaves);
    }
}

/// The port (an index into `ports`, the adapter's NetworkPorts and Ports) the vendor's OEM
/// data assigns a network device function to, for a function no standard link assigns.
pub fn function_port(
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
pub fn function_position(vendor: Vendor, function: &Value) -> Option<&str> {
    match vendor {
        Vendor::Dell => function["Oem"]["Dell"]["DellNIC"]["FQDD"].as_str(),
        _ => None,
    }
}

/// Whether a firmware inventory member is `adapter`'s by the vendor's naming of its entries
/// (Cisco's `…-slot-MLOM`), where the standard links and slots say nothing.
pub fn names_adapter_firmware(vendor: Vendor, item: &Value, adapter: &Value) -> bool {
    vendor == Vendor::Cisco && cisco::names_adapter_firmware(item, adapter)
}

/// OEM facts of a network device function (`function`, whose hardware position places
/// per-port attributes: Dell's `Oem.Dell.DellNIC.FQDD`, else its `Id`, which iDRAC makes the
/// same FQDD) from its vendor attribute resource (current or pending) that
/// [`function_attributes`] named; `registry` is that resource's attribute registry, which
/// types secrets and classifies the attributes not normalized; what the operator should know
/// goes to `notes`.
pub fn function_facts(
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

/// The note of an attribute (of the resource `uri`) that [`crate::attributes`]
/// recognised as a DCB setting by its text rather than by a spelling a vendor module
/// normalizes: it blocks when it changes, and its spelling is worth reporting.
pub fn unknown_dcb_note(uri: &str, name: &str, recognised: &Recognised<'_>) -> String {
    format!(
        "{uri}: Attributes/{name} is judged a DCB setting because {recognised}: driftgate does \
         not know this spelling, so a change of it blocks (rule `bmc-hii-dcb` or `bios-dcb`); \
         please report the attribute's name and registry entry so that it can be normalized"
    )
}

/// An agent's `Enabled`/`Disabled` (any case) as the boolean `lldp/nic_agent` and the other
/// on/off leaves carry; `None` outside that vocabulary (a shape problem, see [`Kind::OnOff`]).
pub fn on_off(text: &str) -> Option<bool> {
    if text.eq_ignore_ascii_case("enabled") {
        Some(true)
    } else if text.eq_ignore_ascii_case("disabled") {
        Some(false)
    } else {
        None
    }
}

/// A system's BIOS as normalization reads it.
#[derive(Clone, Copy)]
pub struct Bios<'a> {
    /// The `Bios` resource.
    pub current: &'a Value,
    /// Its staged values (`@Redfish.Settings`), when it has some.
    pub pending: Option<&'a Value>,
    /// Its attribute registry, when the service publishes it.
    pub registry: Option<&'a Registry>,
    /// Whether an attribute with its value is a secret.
    pub secret: &'a dyn Fn(&str, &Value) -> bool,
}

/// OEM facts folded into BIOS attributes; returns the names of the attributes it placed
/// elsewhere, which are then not `bios/…` facts; values it cannot place go to `problems`,
/// what the operator should know to `notes`.
pub fn bios_facts(
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

/// The type an OEM property must have (for the shape check in `super::shape`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A string.
    Text,
    /// A boolean.
    Bool,
    /// An integer.
    Integer,
    /// An array.
    Array,
    /// An object.
    Object,
    /// A MAC address string.
    Mac,
    /// `Enabled` or `Disabled` (any case): see [`on_off`].
    OnOff,
    /// An LLDP agent mode: `Off`, `Mandatory` or `All` ([`driftgate_model::LldpAgentMode`]).
    LldpMode,
}

/// Calls `check` with each OEM property of an adapter (or its pending settings) that
/// [`adapter_facts`] reads, and the type it must have.
pub fn check_adapter(vendor: Vendor, check: &mut dyn FnMut(&[&str], Kind)) {
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

/// Calls `check` with each property of a [`system_adapters`] member that
/// [`system_adapter_firmware`] reads, and the type it must have.
pub fn check_system_adapter(vendor: Vendor, check: &mut dyn FnMut(&[&str], Kind)) {
    if vendor == Vendor::Hpe {
        check(&["Firmware", "Current", "VersionString"], Kind::Text);
        check(&["PhysicalPorts"], Kind::Array);
    }
}

/// Calls `check` with each OEM property of a port that [`port_mac`] and [`port_facts`] read.
pub fn check_port(vendor: Vendor, check: &mut dyn FnMut(&[&str], Kind)) {
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
/// settings) that [`function_oem_facts`], [`function_port`] and [`function_position`] read,
/// and the type it must have.
pub fn check_function(vendor: Vendor, check: &mut dyn FnMut(&[&str], Kind)) {
    match vendor {
        Vendor::Cisco => cisco::check_function(check),
        Vendor::Dell => check(&["Oem", "Dell", "DellNIC", "FQDD"], Kind::Text),
        _ => {}
    }
}

/// Calls `check` with each attribute of a device function's OEM attribute resource that
/// [`function_facts`] maps, and the type it must have.
pub fn check_function_attributes(vendor: Vendor, check: &mut dyn FnMut(&[&str], Kind)) {
    if vendor == Vendor::Dell {
        for (name, kind) in dell::mapped_attributes() {
            check(&["Attributes", name], kind);
        }
    }
}
