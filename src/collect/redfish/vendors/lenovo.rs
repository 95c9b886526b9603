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
//! Each such attribute has one home, under `nic/<mac>/bmc/`: `firmware/hii/<…>` for a
//! version ([`crate::collect::redfish::attributes::is_firmware_version`]), else `hii/<…>`;
//! a name mentioning DCBX or LLDP also gives `dcbx_mode` or `lldp/nic_agent`. Pending values
//! that differ from the current ones go under `pending/…`. None of them is also a `bios/` fact.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value};

use crate::collect::nic::{NicFacts, Side, scalar};
use crate::collect::redfish::attributes::is_firmware_version;
use crate::model::{DcbxMode, MacAddr};
use crate::snapshot::{Facts, path_segment};

/// The name ending of the attribute whose value is the port's MAC.
const PERMANENT_MAC: &str = "_permanentmacaddress";

/// The MAC Lenovo puts in the port's OEM block.
pub fn port_mac(port: &Value) -> Option<MacAddr> {
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

/// NIC facts from BIOS attributes that belong to a port (`pending` holds the BIOS's staged
/// values); returns the names of the attributes placed under a port.
pub fn bios_facts(
    bios: &Value,
    pending: Option<&Value>,
    secret: &dyn Fn(&str, &Value) -> bool,
    facts: &mut Facts,
) -> BTreeSet<String> {
    let mut claimed = BTreeSet::new();
    let Some(attributes) = bios["Attributes"].as_object() else {
        return claimed;
    };
    let prefixes = mac_prefixes(attributes);
    let staged = pending.and_then(|p| p["Attributes"].as_object());
    for (name, value) in attributes {
        let Some((mac, rest)) = port_of(name, &prefixes) else {
            continue;
        };
        claimed.insert(name.clone());
        if secret(name, value) {
            continue;
        }
        let mut nic = NicFacts::new(facts, Side::Bmc, &mac.to_string());
        port_attribute(&mut nic, "", &rest, value);
        let staged = staged.and_then(|s| s.get(name));
        if let Some(staged) = staged.filter(|s| *s != value && !secret(name, s)) {
            port_attribute(&mut nic, "pending/", &rest, staged);
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
                let mut nic = NicFacts::new(facts, Side::Bmc, &mac.to_string());
                port_attribute(&mut nic, "pending/", &rest, value);
            }
        }
    }
    claimed
}

/// One port attribute under `<scope>hii/…` (or `<scope>firmware/hii/…` for a version), with
/// its normalized DCBX or LLDP fact.
fn port_attribute(nic: &mut NicFacts<'_>, scope: &str, rest: &str, value: &Value) {
    if scalar(value).is_none() {
        return;
    }
    if is_firmware_version(rest) {
        // A version is reported, never staged.
        if scope.is_empty() {
            nic.set_scalar(&format!("firmware/hii/{}", path_segment(rest)), value);
        }
        return;
    }
    nic.set_scalar(&format!("{scope}hii/{}", path_segment(rest)), value);
    let upper = rest.to_ascii_uppercase();
    if let Some(text) = value.as_str() {
        if upper.contains("DCBX") && !upper.contains("WILLING") {
            nic.set(&format!("{scope}dcbx_mode"), DcbxMode::parse(text).as_str());
        } else if upper.contains("LLDP") {
            nic.set(&format!("{scope}lldp/nic_agent"), text.to_ascii_lowercase());
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
        let claimed = bios_facts(
            &bios,
            None,
            &|name: &str, _: &Value| name.contains("Password"),
            &mut facts,
        );
        assert_eq!(claimed.len(), 3, "{claimed:?}");
        let get = |leaf: &str| {
            facts
                .get(format!("nic/94:6d:ae:53:cb:9b/bmc/{leaf}").as_str())
                .map(ToString::to_string)
        };
        assert_eq!(get("dcbx_mode").as_deref(), Some("\"disabled\""));
        assert_eq!(get("lldp/nic_agent").as_deref(), Some("\"enabled\""));
        assert_eq!(get("hii/Slot1_DCBXMode").as_deref(), Some("\"Disabled\""));
        assert_eq!(facts.len(), 4, "{facts:?}");
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
        let claimed = bios_facts(
            &bios,
            Some(&pending),
            &|_: &str, _: &Value| false,
            &mut facts,
        );
        let one = |leaf: &str| {
            facts
                .get(format!("nic/94:6d:ae:53:cb:9b/bmc/{leaf}").as_str())
                .map(ToString::to_string)
        };
        assert_eq!(
            one("hii/PCIE_SLOT_1_Port1_DCBXMode").as_deref(),
            Some("\"IEEE\"")
        );
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
}
