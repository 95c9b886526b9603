//! The attribute registry a resource names, found the way a Redfish client finds it: through
//! the service root's `Registries` collection, a member's `Location`, then the registry itself.

use serde_json::Value;

/// The attribute registry `resource["AttributeRegistry"]` names, `get` serving this BMC's
/// resources by URI; `None` when the service lists none for it or serves it broken.
///
/// A member matches when its Id (the last segment of its URI, as the capture reads it) is the
/// name, or the name with iDRAC's spelling fixed (resources name
/// `NetworkAttributeRegistry_<FQDD>`, the collection lists `NetworkAttributesRegistry_<FQDD>`),
/// or has the same name before a `.v` version.
pub(super) fn attribute_registry(
    resource: &Value,
    get: impl Fn(&str) -> Option<Value>,
) -> Option<Value> {
    let name = resource["AttributeRegistry"].as_str()?;
    let base = name.split(".v").next().unwrap_or(name);
    let dell_alias = name.replacen("NetworkAttributeRegistry_", "NetworkAttributesRegistry_", 1);
    let root = get("/redfish/v1")?;
    let collection = get(root["Registries"]["@odata.id"].as_str()?)?;
    let file = collection["Members"]
        .as_array()?
        .iter()
        .filter_map(|member| member["@odata.id"].as_str())
        .find(|uri| {
            let id = uri.trim_end_matches('/').rsplit('/').next().unwrap_or("");
            id == name || id == dell_alias || id.split(".v").next() == Some(base)
        })
        .and_then(&get)?;
    let locations = file["Location"].as_array()?;
    let location = locations
        .iter()
        .find(|l| {
            l["Language"]
                .as_str()
                .is_some_and(|l| l.eq_ignore_ascii_case("en"))
        })
        .or_else(|| locations.first())?;
    let registry = get(path_of(location["Uri"].as_str()?))?;
    registry["RegistryEntries"]["Attributes"]
        .is_array()
        .then_some(registry)
}

/// The path of `uri`, which may be a full URL on the service's own origin.
fn path_of(uri: &str) -> &str {
    match uri.split_once("://") {
        Some((_, rest)) => rest.find('/').map_or("/", |at| &rest[at..]),
        None => uri,
    }
}

/// The entry of `registry` for the attribute `name`.
pub(super) fn entry<'r>(registry: &'r Value, name: &str) -> Option<&'r Value> {
    registry["RegistryEntries"]["Attributes"]
        .as_array()?
        .iter()
        .find(|entry| entry["AttributeName"] == name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tree::Mockup;

    #[test]
    fn the_recorded_idrac_serves_its_network_attribute_registries() {
        let mockup = Mockup::open(&crate::tests::recorded("post-update")).unwrap();
        let get = |uri: &str| mockup.resource(uri).map(|r| Value::clone(&r));
        let nic = get("/redfish/v1/Chassis/System.Embedded.1/NetworkAdapters/NIC.Slot.3/NetworkDeviceFunctions/NIC.Slot.3-2-1/Oem/Dell/DellNetworkAttributes/NIC.Slot.3-2-1").unwrap();
        let registry = attribute_registry(&nic, get).unwrap();
        assert_eq!(registry["Id"], "NetworkAttributesRegistry_NIC.Slot.3-2-1");
        // Every attribute the resource carries has its entry.
        for name in nic["Attributes"].as_object().unwrap().keys() {
            assert!(entry(&registry, name).is_some(), "{name}");
        }
        assert_eq!(
            path_of("https://bmc:443/registries/x.json"),
            "/registries/x.json"
        );
        assert_eq!(path_of("/redfish/v1/x"), "/redfish/v1/x");
    }
}
