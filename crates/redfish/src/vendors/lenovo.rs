//! Lenovo XCC: ports may carry their MAC only in `Oem.Lenovo.PhysicalPortMacAddress`
//! (`946DAE53CB9B` or `58:a2:e1:72:dd:b1`; NVIDIA/nv-redfish), and NIC HII settings are
//! folded into BIOS attributes.
//!
//! XCC names BIOS attributes `<menu>_<setting>` (`DevicesandIOPorts_COMPort1`,
//! `OperatingModes_ChooseOperatingMode`; NVIDIA/libredfish's Lenovo BIOS setup) and serves
//! their registry as `BiosAttributeRegistry.<version>` at
//! `/redfish/v1/schemas/registries/BiosAttributeRegistry.1.0.0.json` (Lenovo's XCC, XCC2 and
//! XCC3 REST API guides, "GET – BIOS attribute registries"; other builds serve it outside
//! `/redfish/v1`, which the crawl reads on the same origin). No public capture of the NIC-port menus was found, so the
//! recognition is deliberately general and the exact names are unconfirmed. An attribute
//! belongs to a port when
//!
//! - its name holds a 12-hex-digit token (delimited by `_` or the ends of the name), the
//!   port's MAC: it is kept as `hii/<name without the MAC>`; or
//! - it shares the prefix of a sibling `<prefix>_PermanentMACAddress` attribute whose value
//!   is a MAC (`PCIE_SLOT_1_Port1_PermanentMACAddress: "94:6D:AE:53:CB:9B"` makes every
//!   `PCIE_SLOT_1_Port1_*` attribute that port's): it is kept as `hii/<name>`.
//!
//! Each such attribute has one home, under `nic/<mac>/bmc/`: a name ending in a DCBX-mode
//! spelling (`…_DCBXMode`, `…_DCBX_Mode`, `…_DCBX`, any case) is `dcbx_mode` (through
//! [`DcbxMode::parse`], which keeps a value it does not know) and one ending in `_LLDPAgent`
//! is `lldp/nic_agent` (`Enabled`/`Disabled` → `true`/`false`, anything else a problem),
//! neither also kept raw; every other one is placed by its class
//! ([`crate::attributes`], judged with the BIOS attribute registry):
//! `firmware/hii/<…>` for a version, `hii/status/<…>` for a value that changes by itself,
//! `hii/dcb/<…>` for a DCB setting recognised by its text (`…_LLDPNearestBridge`, a display
//! name saying DCBX; the capture notes ask for the spelling), `hii/<…>` for any other setting
//! (`…_DCBXVersionSupport`, a capability). Two attributes of one port giving one leaf different
//! values are a problem naming both. Pending values that differ from the current ones go under
//! `pending/…`. None of them is also a `bios/` fact.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value};

use super::Bios;
use crate::attributes::{Class, Registry, classify, name_ends_with, with_value};
use driftgate_model::{DcbxMode, MacAddr};
use driftgate_snapshot::nic::{NicFacts, Side, scalar};
use driftgate_snapshot::{FactValue, Facts, path_segment};

/// The name ending of the attribute whose value is the port's MAC.
const PERMANENT_MAC: &str = "_permanentmacaddress";

/// The MAC Lenovo puts in the port's OEM block.
pub(super) fn port_mac(port: &Value) -> Option<MacAddr> {
    port["Oem"]["Lenovo"]["PhysicalPortMacAddress"]
        .as_str()
        .and_then(MacAddr::parse)
        .filter(|m| !m.is_zero())
}

/// The MAC token in an attribute name and the name without it.
fn split_mac(name: &str) -> Option<(MacAddr, String)> {
    let parts: Vec<&str> = name.split('_').collect();
    let index = parts
        .iter()
        .position(|p| p.len() == 12 && p.chars().all(|c| c.is_ascii_hexdigit()))?;
    let mac = MacAddr::parse(parts[index])?;
    let rest: Vec<&str> = parts
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != index)
        .map(|(_, p)| *p)
        .collect();
    Some((mac, rest.join("_")))
}

/// The prefixes of `<prefix>_PermanentMACAddress` attributes, with the MAC they hold.
fn mac_prefixes(attributes: &Map<String, Value>) -> BTreeMap<String, MacAddr> {
    attributes
        .iter()
        .filter_map(|(name, value)| {
            let cut = name.len().checked_sub(PERMANENT_MAC.len())?;
            let ending = name.get(cut..)?;
            if !ending.eq_ignore_ascii_case(PERMANENT_MAC) || cut == 0 {
                return None;
            }
            let mac = value
                .as_str()
                .and_then(MacAddr::parse)
                .filter(|m| !m.is_zero())?;
            Some((name[..cut].to_owned(), mac))
        })
        .collect()
}

/// The port an attribute belongs to and its name there: by a MAC token in its name, else by
/// the longest `<prefix>_` of a `…_PermanentMACAddress` sibling.
fn port_of(name: &str, prefixes: &BTreeMap<String, MacAddr>) -> Option<(MacAddr, String)> {
    split_mac(name).or_else(|| {
        prefixes
            .iter()
            .filter(|(prefix, _)| {
                name.len() > prefix.len()
                    && name.is_char_boundary(prefix.len())
                    && name[..prefix.len()].eq_ignore_ascii_case(prefix)
                    && name[prefix.len()..].starts_with('_')
            })
            .max_by_key(|(prefix, _)| prefix.len())
            .map(|(_, mac)| (*mac, name.to_owned()))
    })
}

/// NIC facts from BIOS attributes that belong to a port (`bios.pending` holds the BIOS's
/// staged values); returns the names of the attributes placed under a port. A mapped
/// attribute with a value outside its vocabulary, or two attributes of one port giving one
/// leaf different values, is a problem in `problems`; a DCB setting recognised by its text is
/// told in `notes`.
pub(super) fn bios_facts(
    bios: Bios<'_>,
    facts: &mut Facts,
    problems: &mut Vec<String>,
    notes: &mut Vec<String>,
) -> BTreeSet<String> {
    let mut claimed = BTreeSet::new();
    let Some(attributes) = bios.current["Attributes"].as_object() else {
        return claimed;
    };
    let prefixes = mac_prefixes(attributes);
    let staged = bios.pending.and_then(|p| p["Attributes"].as_object());
    let secret = bios.secret;
    let mut placer = Placer {
        facts,
        problems,
        notes,
        registry: bios.registry,
        mapped: BTreeMap::new(),
    };
    let current_uri = resource_uri(bios.current, "Bios");
    let staged_uri = bios.pending.map_or_else(
        || "Bios/Settings".to_owned(),
        |p| resource_uri(p, "Bios/Settings"),
    );
    for (name, value) in attributes {
        let Some((mac, rest)) = port_of(name, &prefixes) else {
            continue;
        };
        claimed.insert(name.clone());
        if secret(name, value) {
            continue;
        }
        placer.place(mac, "", name, &rest, value, &current_uri);
        let staged = staged.and_then(|s| s.get(name));
        if let Some(staged) = staged.filter(|s| *s != value && !secret(name, s)) {
            placer.place(mac, "pending/", name, &rest, staged, &staged_uri);
        }
    }
    // A staged value of a port attribute the current ones lack still belongs to the port.
    for (name, value) in staged.into_iter().flatten() {
        if claimed.contains(name) {
            continue;
        }
        if let Some((mac, rest)) = port_of(name, &prefixes) {
            claimed.insert(name.clone());
            if !secret(name, value) {
                placer.place(mac, "pending/", name, &rest, value, &staged_uri);
            }
        }
    }
    claimed
}

/// A resource's `@odata.id`, for problems, else what it is.
fn resource_uri(resource: &Value, otherwise: &str) -> String {
    resource["@odata.id"]
        .as_str()
        .unwrap_or(otherwise)
        .to_owned()
}

/// A port attribute Lenovo names exactly, mapped to a normalized leaf (and then not kept
/// raw: one change is one finding).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mapped {
    /// `…_DCBXMode` → `dcbx_mode`, through [`DcbxMode::parse`].
    DcbxMode,
    /// `…_LLDPAgent` → `lldp/nic_agent`, `Enabled`/`Disabled` → `true`/`false`.
    LldpAgent,
}

impl Mapped {
    /// The mapping of an attribute name (without its MAC token), by its last words, however
    /// joined: a DCBX-mode spelling (`…DCBXMode`, `…_DCBX_Mode`, `…_DCBX`) or `…LLDPAgent`;
    /// `…_DCBXVersionSupport` or `…_LLDPNearestBridge` are other settings, not mapped.
    fn of(rest: &str) -> Option<Self> {
        if ["dcbxmode", "dcbx"]
            .iter()
            .any(|spelling| name_ends_with(rest, spelling))
        {
            Some(Self::DcbxMode)
        } else if name_ends_with(rest, "lldpagent") {
            Some(Self::LldpAgent)
        } else {
            None
        }
    }

    fn leaf(self) -> &'static str {
        match self {
            Self::DcbxMode => "dcbx_mode",
            Self::LldpAgent => "lldp/nic_agent",
        }
    }

    /// The normalized value, or what was expected.
    fn normalize(self, value: &Value) -> Result<FactValue, &'static str> {
        let text = value.as_str().map(str::trim);
        match self {
            Self::DcbxMode => text
                .map(|t| DcbxMode::parse(t).as_str().into())
                .ok_or("a DCBX mode text"),
            Self::LldpAgent => text
                .and_then(super::on_off)
                .map(FactValue::from)
                .ok_or("\"Enabled\" or \"Disabled\""),
        }
    }
}

/// Places port attributes under their port, remembering which attribute gave each mapped
/// leaf so that two of one port that disagree are a problem rather than the last one winning.
struct Placer<'a> {
    facts: &'a mut Facts,
    problems: &'a mut Vec<String>,
    notes: &'a mut Vec<String>,
    registry: Option<&'a Registry>,
    /// (port, `<scope><leaf>`) → the attribute that gave it and its value.
    mapped: BTreeMap<(MacAddr, String), (String, FactValue)>,
}

impl Placer<'_> {
    /// One port attribute (`name`, `rest` without its MAC token) under `<scope>` and the home
    /// of its class, or its normalized leaf when [`Mapped`].
    fn place(
        &mut self,
        mac: MacAddr,
        scope: &str,
        name: &str,
        rest: &str,
        value: &Value,
        uri: &str,
    ) {
        if scalar(value).is_none() {
            return;
        }
        let mut nic = NicFacts::new(self.facts, Side::Bmc, &mac.to_string());
        let Some(mapped) = Mapped::of(rest) else {
            let entry = self.registry.and_then(|r| r.entry(name));
            let class = with_value(classify(rest, entry), rest, entry, value);
            let staged = !scope.is_empty();
            match class {
                // A version is reported, never staged.
                Class::Firmware if staged => return,
                Class::Dcb(recognised) if !staged => {
                    self.notes
                        .push(super::unknown_dcb_note(uri, name, &recognised));
                }
                _ => {}
            }
            nic.set_scalar(
                &format!("{scope}{}", class.hii_leaf(&path_segment(rest))),
                value,
            );
            return;
        };
        let normalized = match mapped.normalize(value) {
            Ok(normalized) => normalized,
            Err(expected) => {
                self.problems.push(format!(
                    "{uri}: Attributes/{name} is {value}, expected {expected} (for `{}`)",
                    mapped.leaf()
                ));
                return;
            }
        };
        let leaf = format!("{scope}{}", mapped.leaf());
        match self.mapped.get(&(mac, leaf.clone())) {
            Some((other, earlier)) if *earlier != normalized => {
                self.problems.push(format!(
                    "{uri}: Attributes/{other} ({earlier}) and Attributes/{name} ({normalized}) \
                     both give port {mac} its `{leaf}`: which one the NIC applies is unknown"
                ));
            }
            Some(_) => {}
            None => {
                nic.set(&leaf, normalized.clone());
                self.mapped
                    .insert((mac, leaf), (name.to_owned(), normalized));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attributes_naming_a_mac_become_nic_facts() {
        let bios = serde_json::json!({"Attributes": {
            "Slot1_946DAE53CB9B_DCBXMode": "Disabled",
            "Slot1_946DAE53CB9B_LLDPAgent": "Enabled",
            "Slot1_946DAE53CB9B_AdminPassword": "x",
            "OperatingModes_ChooseOperatingMode": "MaximumPerformance"
        }});
        let mut facts = Facts::new();
        let mut problems = Vec::new();
        let claimed = bios_facts(
            Bios {
                current: &bios,
                pending: None,
                registry: None,
                secret: &|name: &str, _: &Value| name.contains("Password"),
            },
            &mut facts,
            &mut problems,
            &mut Vec::new(),
        );
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(claimed.len(), 3, "{claimed:?}");
        let get = |leaf: &str| {
            facts
                .get(format!("nic/94:6d:ae:53:cb:9b/bmc/{leaf}").as_str())
                .map(ToString::to_string)
        };
        assert_eq!(get("dcbx_mode").as_deref(), Some("\"disabled\""));
        assert_eq!(get("lldp/nic_agent").as_deref(), Some("true"));
        assert_eq!(get("hii/Slot1_DCBXMode"), None, "mapped, so not kept raw");
        assert_eq!(facts.len(), 2, "{facts:?}");
        assert_eq!(
            port_mac(
                &serde_json::json!({"Oem": {"Lenovo": {"PhysicalPortMacAddress": "58:a2:e1:72:dd:b1"}}})
            ),
            MacAddr::parse("58a2e172ddb1")
        );
    }

    #[test]
    fn a_permanent_mac_sibling_claims_its_prefix_and_versions_are_firmware() {
        let bios = serde_json::json!({"Attributes": {
            "PCIE_SLOT_1_Port1_PermanentMACAddress": "94:6D:AE:53:CB:9B",
            "PCIE_SLOT_1_Port1_DCBXMode": "IEEE",
            "PCIE_SLOT_1_Port1_FirmwareVersion": "26.39.1002",
            "PCIE_SLOT_1_Port1_EFIVersion": "14.32.17",
            "PCIE_SLOT_1_Port10_PermanentMACAddress": "94:6D:AE:53:CB:A4",
            "PCIE_SLOT_1_Port10_LinkType": "Ethernet",
            "PCIE_SLOT_1_Port2_LinkType": "Ethernet",
            "OperatingModes_ChooseOperatingMode": "MaximumPerformance"
        }});
        let pending = serde_json::json!({"Attributes": {
            "PCIE_SLOT_1_Port1_DCBXMode": "Disabled",
            "PCIE_SLOT_1_Port10_LinkType": "Ethernet"
        }});
        let mut facts = Facts::new();
        let mut problems = Vec::new();
        let claimed = bios_facts(
            Bios {
                current: &bios,
                pending: Some(&pending),
                registry: None,
                secret: &|_: &str, _: &Value| false,
            },
            &mut facts,
            &mut problems,
            &mut Vec::new(),
        );
        assert!(problems.is_empty(), "{problems:?}");
        let one = |leaf: &str| {
            facts
                .get(format!("nic/94:6d:ae:53:cb:9b/bmc/{leaf}").as_str())
                .map(ToString::to_string)
        };
        assert_eq!(one("hii/PCIE_SLOT_1_Port1_DCBXMode"), None);
        assert_eq!(one("dcbx_mode").as_deref(), Some("\"ieee\""));
        assert_eq!(one("pending/dcbx_mode").as_deref(), Some("\"disabled\""));
        assert_eq!(
            one("firmware/hii/PCIE_SLOT_1_Port1_FirmwareVersion").as_deref(),
            Some("\"26.39.1002\"")
        );
        assert!(one("firmware/hii/PCIE_SLOT_1_Port1_EFIVersion").is_some());
        assert_eq!(one("hii/PCIE_SLOT_1_Port1_FirmwareVersion"), None);
        // `Port10_` is not `Port1_`'s, and equal pending values are no facts.
        assert!(facts.contains_key("nic/94:6d:ae:53:cb:a4/bmc/hii/PCIE_SLOT_1_Port10_LinkType"));
        assert!(
            !facts
                .contains_key("nic/94:6d:ae:53:cb:a4/bmc/pending/hii/PCIE_SLOT_1_Port10_LinkType")
        );
        assert!(!claimed.contains("PCIE_SLOT_1_Port2_LinkType"));
        assert!(!claimed.contains("OperatingModes_ChooseOperatingMode"));
        assert_eq!(claimed.len(), 6, "{claimed:?}");
    }

    /// The facts and problems of `attributes` (one port, by a `…_PermanentMACAddress` sibling).
    fn port(attributes: Value) -> (Facts, Vec<String>) {
        let bios = serde_json::json!({"@odata.id": "/redfish/v1/Systems/1/Bios", "Attributes": attributes});
        let mut facts = Facts::new();
        let mut problems = Vec::new();
        bios_facts(
            Bios {
                current: &bios,
                pending: None,
                registry: None,
                secret: &|_: &str, _: &Value| false,
            },
            &mut facts,
            &mut problems,
            &mut Vec::new(),
        );
        (facts, problems)
    }

    fn leaf(facts: &Facts, leaf: &str) -> Option<String> {
        facts
            .get(format!("nic/94:6d:ae:53:cb:9b/bmc/{leaf}").as_str())
            .map(ToString::to_string)
    }

    #[test]
    fn only_mode_and_agent_endings_are_mapped_and_the_lldp_agent_is_a_boolean() {
        // `…_DCBXVersionSupport` sorts after `…_DCBXMode` and `…_LLDPNearestBridge` after
        // `…_LLDPAgent`: neither may override them. The nearest-bridge agent is an LLDP
        // setting driftgate does not normalize: it fails safe (`hii/dcb/…`).
        let (facts, problems) = port(serde_json::json!({
            "PCIE_SLOT_1_Port1_PermanentMACAddress": "94:6D:AE:53:CB:9B",
            "PCIE_SLOT_1_Port1_DCBXMode": "IEEE",
            "PCIE_SLOT_1_Port1_DCBXVersionSupport": "CEE",
            "PCIE_SLOT_1_Port1_LLDPAgent": "Disabled",
            "PCIE_SLOT_1_Port1_LLDPNearestBridge": "Enabled"
        }));
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(leaf(&facts, "dcbx_mode").as_deref(), Some("\"ieee\""));
        assert_eq!(leaf(&facts, "lldp/nic_agent").as_deref(), Some("false"));
        assert_eq!(
            leaf(
                &facts,
                "hii/capability/dcb/PCIE_SLOT_1_Port1_DCBXVersionSupport"
            )
            .as_deref(),
            Some("\"CEE\"")
        );
        assert_eq!(
            leaf(&facts, "hii/dcb/PCIE_SLOT_1_Port1_LLDPNearestBridge").as_deref(),
            Some("\"Enabled\"")
        );
        assert_eq!(leaf(&facts, "hii/PCIE_SLOT_1_Port1_DCBXMode"), None);
        assert_eq!(leaf(&facts, "hii/PCIE_SLOT_1_Port1_LLDPAgent"), None);
    }

    #[test]
    fn other_spellings_of_the_dcbx_mode_are_the_dcbx_mode() {
        for name in [
            "PCIE_SLOT_1_Port1_DCBX_Mode",
            "PCIE_SLOT_1_Port1_DcbxMode",
            "PCIE_SLOT_1_PORT1_DCBXMODE",
            "PCIE_SLOT_1_Port1_DCBX",
            "Slot1_946DAE53CB9B_DCBX",
        ] {
            let (facts, problems) = port(serde_json::json!({
                "PCIE_SLOT_1_Port1_PermanentMACAddress": "94:6D:AE:53:CB:9B",
                name: "Disabled"
            }));
            assert!(problems.is_empty(), "{name}: {problems:?}");
            assert_eq!(
                leaf(&facts, "dcbx_mode").as_deref(),
                Some("\"disabled\""),
                "{name}"
            );
        }
        // An ending that only contains a spelling is not one.
        let (facts, _) = port(serde_json::json!({
            "PCIE_SLOT_1_Port1_PermanentMACAddress": "94:6D:AE:53:CB:9B",
            "PCIE_SLOT_1_Port1_DCBXModeSupport": "Available"
        }));
        assert_eq!(leaf(&facts, "dcbx_mode"), None);
    }

    #[test]
    fn port_attributes_go_where_the_bios_registry_says_and_unknown_dcb_ones_are_noted() {
        // XCC-like entries: display names a setup page shows.
        let registry = serde_json::json!({"RegistryEntries": {"Attributes": [
            {"AttributeName": "PCIE_SLOT_2_Port1_QosAgentMode", "DisplayName": "DCBX Protocol", "ReadOnly": false, "Type": "Enumeration"},
            {"AttributeName": "PCIE_SLOT_2_Port1_MBAVersion", "DisplayName": "MBA Version", "ReadOnly": true, "Type": "String"},
            {"AttributeName": "PCIE_SLOT_2_Port1_LinkStatus", "DisplayName": "Link Status", "ReadOnly": true, "Type": "Enumeration"}
        ]}});
        let registry = Registry::new(registry, false);
        let bios = serde_json::json!({"@odata.id": "/redfish/v1/Systems/1/Bios", "Attributes": {
            "PCIE_SLOT_2_Port1_PermanentMACAddress": "94:6D:AE:53:CB:9B",
            "PCIE_SLOT_2_Port1_QosAgentMode": "IEEE",
            "PCIE_SLOT_2_Port1_MBAVersion": "22.41.6",
            "PCIE_SLOT_2_Port1_LinkStatus": "Connected"
        }});
        let pending = serde_json::json!({"@odata.id": "/redfish/v1/Systems/1/Bios/Pending", "Attributes": {
            "PCIE_SLOT_2_Port1_QosAgentMode": "Disabled",
            "PCIE_SLOT_2_Port1_MBAVersion": "22.41.7"
        }});
        let (mut facts, mut problems, mut notes) = (Facts::new(), Vec::new(), Vec::new());
        bios_facts(
            Bios {
                current: &bios,
                pending: Some(&pending),
                registry: Some(&registry),
                secret: &|_: &str, _: &Value| false,
            },
            &mut facts,
            &mut problems,
            &mut notes,
        );
        assert!(problems.is_empty(), "{problems:?}");
        let get = |l: &str| leaf(&facts, l);
        assert_eq!(
            get("hii/dcb/PCIE_SLOT_2_Port1_QosAgentMode").as_deref(),
            Some("\"IEEE\"")
        );
        assert_eq!(
            get("pending/hii/dcb/PCIE_SLOT_2_Port1_QosAgentMode").as_deref(),
            Some("\"Disabled\"")
        );
        assert_eq!(
            get("firmware/hii/PCIE_SLOT_2_Port1_MBAVersion").as_deref(),
            Some("\"22.41.6\"")
        );
        assert!(
            !facts
                .keys()
                .any(|path| path.as_str().contains("pending/firmware")),
            "a version is never staged: {facts:?}"
        );
        assert_eq!(
            get("hii/status/PCIE_SLOT_2_Port1_LinkStatus").as_deref(),
            Some("\"Connected\"")
        );
        assert_eq!(
            notes.len(),
            1,
            "the current value is noted, not the staged one: {notes:?}"
        );
        assert!(
            notes[0].starts_with("/redfish/v1/Systems/1/Bios: Attributes/PCIE_SLOT_2_Port1_QosAgentMode is judged a DCB setting because its registry DisplayName \"DCBX Protocol\" says DCBX"),
            "{notes:?}"
        );
    }

    #[test]
    fn an_lldp_agent_outside_enabled_disabled_is_a_problem_naming_it() {
        let (facts, problems) = port(serde_json::json!({
            "PCIE_SLOT_1_Port1_PermanentMACAddress": "94:6D:AE:53:CB:9B",
            "PCIE_SLOT_1_Port1_LLDPAgent": "Auto"
        }));
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(
            problems[0]
                .contains("/redfish/v1/Systems/1/Bios: Attributes/PCIE_SLOT_1_Port1_LLDPAgent"),
            "{problems:?}"
        );
        assert_eq!(leaf(&facts, "lldp/nic_agent"), None);
    }

    #[test]
    fn two_attributes_of_one_port_giving_one_leaf_different_values_are_a_problem() {
        let (_, problems) = port(serde_json::json!({
            "PCIE_SLOT_1_Port1_PermanentMACAddress": "94:6D:AE:53:CB:9B",
            "PCIE_SLOT_1_Port1_DCBXMode": "IEEE",
            "Slot1_946DAE53CB9B_DCBXMode": "CEE"
        }));
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(
            problems[0].contains("PCIE_SLOT_1_Port1_DCBXMode")
                && problems[0].contains("Slot1_946DAE53CB9B_DCBXMode"),
            "{problems:?}"
        );
        // The same value twice says the same thing.
        let (_, problems) = port(serde_json::json!({
            "PCIE_SLOT_1_Port1_PermanentMACAddress": "94:6D:AE:53:CB:9B",
            "PCIE_SLOT_1_Port1_LLDPAgent": "Enabled",
            "Slot1_946DAE53CB9B_LLDPAgent": "enabled"
        }));
        assert!(problems.is_empty(), "{problems:?}");
    }
}
