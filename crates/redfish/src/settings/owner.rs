//! Which system a reset applies a resource's staged values with: the BIOS's is the system it
//! was read from; a NIC's is the one system its chassis names in `Links.ComputerSystems` that
//! names the chassis back in `Links.Chassis` (both ways: either side alone is one claim of
//! the BMC). Two such systems, or none, is no owner: the reset is refused naming them, never
//! sent to the first one listed.

use crate::client::sent_path;
use crate::crawl::{ChassisOf, SystemInventory, linked};

/// The owner of a system's BIOS: the system, as read.
pub(super) fn of_bios(system: &SystemInventory) -> Result<String, String> {
    system
        .uri
        .clone()
        .ok_or_else(|| "its system was not read on its own (inline in a collection)".to_owned())
}

/// The one system `chassis` and its systems link both ways.
pub(super) fn of_chassis(
    chassis: &ChassisOf,
    systems: &[SystemInventory],
) -> Result<String, String> {
    let Some(uri) = chassis.uri.as_deref() else {
        return Err("its chassis was not read on its own (inline in a collection)".to_owned());
    };
    // A link no client could send names nothing: two of them are not one system.
    let named: Vec<String> = chassis.systems.iter().filter_map(|s| key(s)).collect();
    let this = key(uri);
    let both: Vec<&str> = systems
        .iter()
        .filter_map(|system| system.uri.as_deref().map(|u| (u, system)))
        .filter(|(system_uri, system)| {
            key(system_uri).is_some_and(|k| named.contains(&k))
                && this.is_some()
                && linked(&system.system, "Chassis")
                    .iter()
                    .any(|c| key(c) == this)
        })
        .map(|(system_uri, _)| system_uri)
        .collect();
    match both.as_slice() {
        [one] => Ok((*one).to_owned()),
        [] => Err(format!(
            "no system owns its chassis {uri}: the chassis names {} in Links.ComputerSystems, and no system read names it back in Links.Chassis",
            list(&chassis.systems)
        )),
        several => Err(format!(
            "its chassis {uri} belongs to several systems ({}): which one applies it is not guessed",
            several.join(", ")
        )),
    }
}

/// A URI as it is sent, for comparing two of them.
fn key(uri: &str) -> Option<String> {
    sent_path(uri).ok()
}

fn list(uris: &[String]) -> String {
    if uris.is_empty() {
        "no system".to_owned()
    } else {
        uris.join(", ")
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;

    fn system(uri: &str, chassis: &[&str]) -> SystemInventory {
        let links: Vec<Value> = chassis.iter().map(|c| json!({"@odata.id": c})).collect();
        SystemInventory {
            system: json!({"@odata.id": uri, "Links": {"Chassis": links}}),
            uri: Some(uri.to_owned()),
            ..SystemInventory::default()
        }
    }

    #[test]
    fn the_owner_links_its_chassis_both_ways_and_is_the_only_one() {
        let chassis = ChassisOf {
            uri: Some("/redfish/v1/Chassis/1".into()),
            systems: vec![
                "/redfish/v1/Systems/1".into(),
                "/redfish/v1/Systems/2/".into(),
            ],
        };
        let other = system("/redfish/v1/Systems/Other.1", &["/redfish/v1/Chassis/9"]);
        let one = system("/redfish/v1/Systems/1", &["/redfish/v1/Chassis/1/"]);
        assert_eq!(
            of_chassis(&chassis, &[other.clone(), one.clone()]),
            Ok("/redfish/v1/Systems/1".to_owned())
        );
        // Named by the chassis only, or by the system only: not an owner.
        let claims = system("/redfish/v1/Systems/3", &["/redfish/v1/Chassis/1"]);
        let none = of_chassis(&chassis, &[other.clone(), claims.clone()]).unwrap_err();
        assert!(
            none.contains("no system owns its chassis /redfish/v1/Chassis/1"),
            "{none}"
        );
        let two = system("/redfish/v1/Systems/2", &["/redfish/v1/Chassis/1"]);
        let several = of_chassis(&chassis, &[one, two, claims]).unwrap_err();
        assert!(
            several.contains("several systems (/redfish/v1/Systems/1, /redfish/v1/Systems/2)"),
            "{several}"
        );
    }

    #[test]
    fn two_links_no_client_could_send_are_not_one_system() {
        // A chassis naming a system by a URI refused as a write path, and a system read at
        // another such URI: neither names the other.
        let chassis = ChassisOf {
            uri: Some("/redfish/v1/Chassis/1".into()),
            systems: vec!["/redfish/v1/Systems/a%2Fb".into()],
        };
        let odd = system("/redfish/v1/Systems/x%2Fy", &["/redfish/v1/Chassis/1"]);
        assert!(of_chassis(&chassis, &[odd]).is_err());
    }
}
