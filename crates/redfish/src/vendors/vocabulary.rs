//! What the vendor modules and their dispatcher share: who made the BMC ([`Vendor`]), the
//! leaves of a scope ([`Leaves`]), what a vendor's OEM resources are, and the type an OEM
//! property must have ([`Kind`]).

use std::collections::BTreeMap;

use serde_json::Value;

use crate::attributes::{Recognised, Registry};
use crate::odata_type::TypeName;
use driftgate_model::MacAddr;
use driftgate_snapshot::FactValue;
use driftgate_snapshot::nic::{is_placeholder, scalar};

/// Who made the BMC, decided once from the service root.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Vendor {
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
    pub(crate) fn detect(root: &Value) -> Vendor {
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
pub(crate) struct Leaves {
    values: BTreeMap<String, FactValue>,
    /// The leaves whose value was a placeholder (`"N/A"`…): absent, and counted for the
    /// capture's note on a source that answers mostly placeholders.
    placeholders: Vec<String>,
}

impl Leaves {
    /// Sets `leaf`.
    pub(crate) fn set(&mut self, leaf: &str, value: impl Into<FactValue>) {
        self.values.insert(leaf.to_owned(), value.into());
    }

    /// Sets `leaf` when `value` is a JSON scalar other than a placeholder (which is recorded).
    pub(crate) fn set_scalar(&mut self, leaf: &str, value: &Value) {
        match scalar(value) {
            Some(value) => self.set(leaf, value),
            None if is_placeholder(value) => self.placeholder(leaf),
            None => {}
        }
    }

    /// The text of `value` when it is a string other than a placeholder; a placeholder is
    /// recorded as `leaf`'s and gives `None`, like any other non-text.
    pub(crate) fn text<'v>(&mut self, leaf: &str, value: &'v Value) -> Option<&'v str> {
        if is_placeholder(value) {
            self.placeholder(leaf);
            return None;
        }
        value.as_str()
    }

    /// `leaf`'s value was a placeholder: no fact, one more placeholder seen.
    pub(crate) fn placeholder(&mut self, leaf: &str) {
        self.placeholders.push(leaf.to_owned());
    }

    /// The leaves whose value was a placeholder, in the order seen.
    pub(crate) fn placeholders(&self) -> &[String] {
        &self.placeholders
    }

    /// Whether `leaf` has a value.
    pub(crate) fn has(&self, leaf: &str) -> bool {
        self.values.contains_key(leaf)
    }

    /// The value of `leaf`.
    #[cfg(test)]
    pub(crate) fn get(&self, leaf: &str) -> Option<&FactValue> {
        self.values.get(leaf)
    }

    /// Every leaf with its value, sorted.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (&str, &FactValue)> {
        self.values
            .iter()
            .map(|(leaf, value)| (leaf.as_str(), value))
    }

    /// The leaves of `pending` (what a `@Redfish.Settings` object stages) that differ from
    /// the current ones in `self`, under `pending/`: a staged value equal to the current one
    /// changes nothing at the next reset and is no fact, nor is a staged version (`firmware/…`).
    /// Its placeholders count too.
    pub(crate) fn add_pending(&mut self, pending: &Leaves) {
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
pub(crate) struct OemAttributes {
    /// Where in the function the link is.
    pub link: &'static [&'static str],
    /// The types the resource and its pending `Settings` may have.
    pub types: &'static [TypeName],
}

/// A vendor's collection of a system's network adapters beside the standard `NetworkAdapters`
/// (HPE iLO 5's `BaseNetworkAdapters`): where the system links it, what its members are.
#[derive(Debug, Clone, Copy)]
pub(crate) struct OemCollection {
    /// Where in the system resource the link is.
    pub link: &'static [&'static str],
    /// The type of its members.
    pub member: &'static TypeName,
}

/// What [`system_adapter_firmware`](super::system_adapter_firmware) reads from one vendor adapter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SystemAdapterFirmware<'v> {
    /// The MACs of its ports.
    pub macs: Vec<MacAddr>,
    /// The version, or `None` when the vendor answered a placeholder.
    pub version: Option<&'v str>,
    /// Where the version is in the member (for the placeholder count).
    pub property: &'static str,
}

/// The note of an attribute (of the resource `uri`) that [`crate::attributes`]
/// recognised as a DCB setting by its text rather than by a spelling a vendor module
/// normalizes: it blocks when it changes, and its spelling is worth reporting.
pub(crate) fn unknown_dcb_note(uri: &str, name: &str, recognised: &Recognised<'_>) -> String {
    format!(
        "{uri}: Attributes/{name} is judged a DCB setting because {recognised}: driftgate does \
         not know this spelling, so a change of it blocks (rule `bmc-hii-dcb` or `bios-dcb`); \
         please report the attribute's name and registry entry so that it can be normalized"
    )
}

/// An agent's `Enabled`/`Disabled` (any case) as the boolean `lldp/nic_agent` and the other
/// on/off leaves carry; `None` outside that vocabulary (a shape problem, see [`Kind::OnOff`]).
pub(crate) fn on_off(text: &str) -> Option<bool> {
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
pub(crate) struct Bios<'a> {
    /// The `Bios` resource.
    pub current: &'a Value,
    /// Its staged values (`@Redfish.Settings`), when it has some.
    pub pending: Option<&'a Value>,
    /// Its attribute registry, when the service publishes it.
    pub registry: Option<&'a Registry>,
    /// Whether an attribute with its value is a secret.
    pub secret: &'a dyn Fn(&str, &Value) -> bool,
}

/// The type an OEM property must have (for the shape check in `crate::shape`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
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
