//! Finding the attribute registry a resource names, through the service root's `Registries`.

use serde_json::Value;

use super::collections::Listed;
use super::crawler::{Crawler, link_name};
use crate::redfish::fetch::Fetch;
use crate::redfish::links::ShapeError;
use crate::redfish::odata_type::{Expect, TypeName};

impl<F: Fetch> Crawler<'_, F> {
    /// The attribute registry `resource["AttributeRegistry"]` names, found through the
    /// root's `Registries`. A service that lists no such registry (or no `Registries` at
    /// all) is not an incomplete capture: names and values are checked anyway. One that
    /// lists it but serves it broken is: the registry is what recognises a `Password`
    /// attribute with an innocent name, so the failure is recorded naming the URI (fail
    /// closed) instead of filtering by names alone and calling the source complete.
    ///
    /// The registry file's `Location[].Uri` may lie outside `/redfish/v1` (XCC-like
    /// `/registries/BiosAttributeRegistry.json`) or be a full URL: it is read all the same
    /// on the service's own origin (the live client and the mockup folder both resolve it);
    /// one on another origin is refused by the live client, an error naming the URI.
    pub(super) async fn registry(&self, root: &Value, resource: &Value) -> Option<Value> {
        let name = resource["AttributeRegistry"].as_str()?;
        let base = name.split(".v").next().unwrap_or(name);
        let collection = self.link(root, &["Registries"])?;
        let registries = self.get_once(collection).await?;
        let file_type = &TypeName::MESSAGE_REGISTRY_FILE;
        let collection_type = Expect::CollectionOf(*file_type);
        if !self.is_typed(collection, &registries, collection_type, || {
            link_name(root, &["Registries"])
        }) {
            return None;
        }
        // iDRAC names `NetworkAttributeRegistry_<FQDD>` in the resource and lists it as
        // `NetworkAttributesRegistry_<FQDD>`.
        let dell_alias =
            name.replacen("NetworkAttributeRegistry_", "NetworkAttributesRegistry_", 1);
        let mut listed = Listed::default();
        let entries = self.member_uris(collection, &registries, &mut listed);
        let entry = entries.into_iter().find(|uri| {
            let id = uri.rsplit('/').next().unwrap_or("");
            id == name || id == dell_alias || id.split(".v").next() == Some(base)
        })?;
        let file = self.get_once(&entry).await?;
        if !self.is_typed(&entry, &file, Expect::one(file_type), || {
            listed.place_of(&entry)
        }) {
            return None;
        }
        let location = match &file["Location"] {
            Value::Array(locations) => locations
                .iter()
                .find(|l| {
                    l["Language"]
                        .as_str()
                        .is_some_and(|l| l.eq_ignore_ascii_case("en"))
                })
                .or_else(|| locations.first()),
            _ => None,
        };
        let Some(uri) = location.and_then(|l| l["Uri"].as_str()) else {
            self.wrong(ShapeError::new(
                &entry,
                "Location",
                "an array of locations, one with a string Uri",
                &file["Location"],
            ));
            return None;
        };
        let registry = self.get_once(uri).await?;
        let registry_type = Expect::one(&TypeName::ATTRIBUTE_REGISTRY);
        if !self.is_typed(uri, &registry, registry_type, || {
            format!("the Location Uri of {entry}")
        }) {
            return None;
        }
        if !registry["RegistryEntries"]["Attributes"].is_array() {
            self.wrong(ShapeError::new(
                uri,
                "RegistryEntries/Attributes",
                "an array of attribute entries",
                &registry["RegistryEntries"]["Attributes"],
            ));
            return None;
        }
        Some(registry)
    }
}
