//! Which system a reset applies a resource's staged values with: the BIOS's is the system it
//! was read from; a NIC's is the one system its chassis names in `Links.ComputerSystems` that
//! names the chassis back in `Links.Chassis` (both ways: either side alone is one claim of
//! the BMC). Two such systems, or none, is no owner: the reset is refused naming them, never
//! sent to the first one listed.

use serde_json::Value;

use crate::redfish::client::sent_path;
use crate::redfish::crawl::{ChassisOf, SystemInventory};
use crate::redfish::links::link_target;

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
    let named: Vec<Option<String>> = chassis.systems.iter().map(|s| key(s)).collect();
    let both: Vec<&str> = systems
        .iter()
        .filter_map(|system| system.uri.as_deref().map(|u| (u, system)))
        .filter(|(system_uri, system)| {
            named.contains(&key(system_uri))
                && linked(&system.system, "Chassis")
                    .iter()
                    .any(|c| key(c).is_some() && key(c) == key(uri))
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

fn linked(resource: &Value, name: &str) -> Vec<String> {
    resource["Links"][name]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|item| link_target(item).map(str::to_owned))
        .collect()
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
    use serde_json::json;

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
}
