//! Lenovo XCC: ports may carry their MAC only in `Oem.Lenovo.PhysicalPortMacAddress`
//! (`946DAE53CB9B` or `58:a2:e1:72:dd:b1`; NVIDIA/nv-redfish), and NIC HII settings are
//! folded into BIOS attributes whose names carry the port's MAC.
//!
//! No public sample of those BIOS attribute names was found, so the recognition is
//! deliberately general: an attribute whose name holds a 12-hex-digit token (delimited by
//! `_` or the ends of the name) belongs to the port with that MAC. It is kept under
//! `nic/<mac>/bmc/hii/<name without the MAC>`, and a name mentioning DCBX or LLDP also gives
//! `dcbx_mode` or `lldp/nic_agent`.

use serde_json::Value;

use crate::collect::nic::{NicFacts, scalar};
use crate::model::{DcbxMode, MacAddr};
use crate::snapshot::{Facts, path_segment};

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

/// NIC facts from BIOS attributes that name a port's MAC.
pub fn bios_facts(bios: &Value, secret: &dyn Fn(&str, &Value) -> bool, facts: &mut Facts) {
    let Some(attributes) = bios["Attributes"].as_object() else {
        return;
    };
    for (name, value) in attributes
        .iter()
        .filter(|(name, value)| !secret(name, value))
    {
        let (Some((mac, rest)), Some(_)) = (split_mac(name), scalar(value)) else {
            continue;
        };
        let mut nic = NicFacts::new(facts, crate::collect::nic::Side::Bmc, &mac.to_string());
        nic.set_scalar(&format!("hii/{}", path_segment(&rest)), value);
        let upper = rest.to_ascii_uppercase();
        if let Some(text) = value.as_str() {
            if upper.contains("DCBX") && !upper.contains("WILLING") {
                nic.set("dcbx_mode", DcbxMode::parse(text).as_str());
            } else if upper.contains("LLDP") {
                nic.set("lldp/nic_agent", text.to_ascii_lowercase());
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
        bios_facts(
            &bios,
            &|name: &str, _: &Value| name.contains("Password"),
            &mut facts,
        );
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
}
