//! The computer systems' Ethernet interfaces → `nic/<mac>/bmc/interface`: what the system
//! calls the port with that MAC.
//!
//! The value is the interface's `Id` when that is a name (`NIC.Slot.3-1-1`); an interface
//! numbered by the BMC (`EthernetInterfaces/1`) writes none, since a renumbering would change
//! it and the MAC in the key already says which port it is. Several interfaces can show one
//! MAC: a VLAN or a team made of a port lists the interfaces it is built on in
//! `Links.RelatedInterfaces` (the DMTF mockup's `VLAN1` on `12446A3B0411`). The port is named
//! by an interface built on no other, then by the first `Id` in natural order — never by the
//! order the service lists them in.

use std::collections::BTreeMap;

use serde_json::Value;

use super::identity::{is_numbered, natural};
use super::properties::{id_of, mac_of};
use crate::crawl::SystemInventory;
use driftgate_model::MacAddr;
use driftgate_snapshot::Facts;
use driftgate_snapshot::nic::{NicFacts, Side};

/// `nic/<mac>/bmc/interface` of every MAC the systems' interfaces show.
pub(super) fn interface_facts(systems: &[SystemInventory], facts: &mut Facts) {
    let mut named: BTreeMap<MacAddr, Vec<&Value>> = BTreeMap::new();
    for interface in systems.iter().flat_map(|system| &system.interfaces) {
        let mac =
            mac_of(&interface["PermanentMACAddress"]).or_else(|| mac_of(&interface["MACAddress"]));
        if let Some(mac) = mac.filter(|_| !is_numbered(&id_of(interface))) {
            named.entry(mac).or_default().push(interface);
        }
    }
    for (mac, interfaces) in named {
        let name = interfaces
            .iter()
            .map(|interface| {
                (
                    built_on_others(interface),
                    natural(&id_of(interface)),
                    interface,
                )
            })
            .min_by(|a, b| (a.0, &a.1).cmp(&(b.0, &b.1)))
            .map(|(_, _, interface)| id_of(interface));
        if let Some(name) = name {
            NicFacts::new(facts, Side::Bmc, &mac.to_string()).set("interface", name.as_str());
        }
    }
}

/// Whether an interface is made of others (a VLAN, a team): it names them in
/// `Links.RelatedInterfaces`.
fn built_on_others(interface: &Value) -> bool {
    interface["Links"]["RelatedInterfaces"]
        .as_array()
        .is_some_and(|related| !related.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn interfaces(list: Vec<Value>) -> Facts {
        let mut facts = Facts::default();
        let system = SystemInventory {
            interfaces: list,
            ..SystemInventory::default()
        };
        interface_facts(&[system], &mut facts);
        facts
    }

    fn interface_of(facts: &Facts, mac: &str) -> Option<String> {
        let value = facts.get(format!("nic/{mac}/bmc/interface").as_str())?;
        value.as_text().map(str::to_owned)
    }

    #[test]
    fn a_port_is_named_by_its_base_interface_whatever_the_listing_order() {
        let port = json!({"Id": "12446A3B0411", "MACAddress": "12:44:6A:3B:04:11",
            "Links": {"AffiliatedInterfaces": [{"@odata.id": "/redfish/v1/Systems/1/EthernetInterfaces/VLAN1"}]}});
        let vlan = json!({"Id": "VLAN1", "MACAddress": "12:44:6A:3B:04:11",
            "Links": {"RelatedInterfaces": [{"@odata.id": "/redfish/v1/Systems/1/EthernetInterfaces/12446A3B0411"}]}});
        for list in [vec![port.clone(), vlan.clone()], vec![vlan, port]] {
            let facts = interfaces(list);
            assert_eq!(
                interface_of(&facts, "12:44:6a:3b:04:11").as_deref(),
                Some("12446A3B0411")
            );
        }
    }

    #[test]
    fn a_numbered_interface_names_no_port_and_ties_go_to_the_first_name() {
        let facts = interfaces(vec![
            json!({"Id": "1", "PermanentMACAddress": "02:00:00:00:00:01"}),
            json!({"Id": "eth10", "MACAddress": "02:00:00:00:00:02"}),
            json!({"Id": "eth2", "MACAddress": "02:00:00:00:00:02"}),
            json!({"Id": "2", "MACAddress": "02:00:00:00:00:02"}),
        ]);
        assert_eq!(interface_of(&facts, "02:00:00:00:00:01"), None);
        assert_eq!(
            interface_of(&facts, "02:00:00:00:00:02").as_deref(),
            Some("eth2")
        );
    }
}
