//! Finding the attribute registry a resource names, through the service root's `Registries`.

use std::sync::Arc;

use serde_json::Value;

use super::Registries;
use super::collections::Listed;
use super::crawler::{Crawler, link_name, not_a_resource};
use crate::attributes::Registry;
use crate::fetch::{Body, Fetch, RegistryBody};
use crate::links::ShapeError;
use crate::odata_type::{Expect, TypeName};

/// How many registry files named like the beginning of a registry's name are read to find it
/// when none is listed under its name (see [`Crawler::registry`]).
const FAMILY_FILES_READ: usize = 2;

/// The last segment of a registry file's URI in `Registries`: its `Id`, as services name them.
fn id_of(uri: &str) -> &str {
    uri.rsplit('/').next().unwrap_or("")
}

impl<F: Fetch> Crawler<'_, F> {
    /// The attribute registry `name` (a resource's `AttributeRegistry`), found through the
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
    ///
    /// A registry listed under no file of its name may be in a file named like the beginning
    /// of it (sushy-tools); at most [`FAMILY_FILES_READ`] such files are read (one served
    /// broken is recorded, as it may be the one), and the one whose registry has the very `Id`
    /// asked for is taken.
    pub(super) async fn registry(&self, root: &Value, name: Option<&str>) -> Option<Arc<Registry>> {
        let name = name?;
        let base = name.split(".v").next().unwrap_or(name);
        let collection = self.link(root, &["Registries"])?;
        let registries = self.get_once(collection, Body::Whole).await?;
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
        if let Some(entry) = entries.iter().find(|uri| {
            let id = id_of(uri);
            id == name || id == dell_alias || id.split(".v").next() == Some(base)
        }) {
            return self.registry_file(entry, &listed).await;
        }
        // sushy-tools' BIOS names `BiosAttributeRegistryP89.v1_0_0` and lists the file
        // `BiosAttributeRegistry.v1_0_0`: a platform suffix the file's name leaves out. A file
        // whose name begins the one asked for may hold it; its registry's own `Id` decides.
        // Longest name first and only a few, so a service listing many registries is not read
        // whole for a registry it does not have.
        let mut family: Vec<(usize, &str)> = entries
            .iter()
            .filter_map(|uri| {
                let stem = id_of(uri).split(".v").next().unwrap_or("");
                (!stem.is_empty() && base.starts_with(stem)).then_some((stem.len(), uri.as_str()))
            })
            .collect();
        family.sort_by_key(|(len, _)| std::cmp::Reverse(*len));
        for (_, entry) in family.into_iter().take(FAMILY_FILES_READ) {
            if let Some(registry) = self.registry_file(entry, &listed).await
                && registry.id() == Some(name)
            {
                return Some(registry);
            }
        }
        None
    }

    /// The attribute registry the registry file `entry` (listed in `Registries`, as `listed`
    /// says where) locates; what cannot be read or has the wrong shape is recorded.
    async fn registry_file(&self, entry: &str, listed: &Listed) -> Option<Arc<Registry>> {
        let file_type = &TypeName::MESSAGE_REGISTRY_FILE;
        let file = self.get_once(entry, Body::Whole).await?;
        if !self.is_typed(entry, &file, Expect::one(file_type), || {
            listed.place_of(entry)
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
                entry,
                "Location",
                "an array of locations, one with a string Uri",
                &file["Location"],
            ));
            return None;
        };
        let via = || format!("the Location Uri of {entry}");
        self.registry_once(uri, async {
            let registry = match self.registries {
                // Kept whole for a write or a saved copy.
                Registries::Whole => self.get_as(uri, Body::Whole).await?,
                Registries::Judged(known) => match self.get_registry(uri, known).await? {
                    RegistryBody::Read {
                        odata_type,
                        registry,
                    } => {
                        let head = serde_json::json!({ "@odata.type": &*odata_type });
                        return self
                            .is_typed(uri, &head, Self::REGISTRY, via)
                            .then_some(registry);
                    }
                    RegistryBody::Parsed(registry) => {
                        if let Some(problem) = not_a_resource(uri, &registry) {
                            self.wrong(problem);
                            return None;
                        }
                        registry
                    }
                },
            };
            if !self.is_typed(uri, &registry, Self::REGISTRY, via) {
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
            let keep = matches!(self.registries, Registries::Whole);
            Some(Arc::new(Registry::new(registry, keep)))
        })
        .await
    }

    /// What a registry file's location leads to.
    const REGISTRY: Expect = Expect::one(&TypeName::ATTRIBUTE_REGISTRY);
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::sync::Mutex;

    use serde_json::{Value, json};
    use tokio::sync::Semaphore;

    use super::super::Registries;
    use super::super::crawler::Crawler;
    use crate::attributes::KnownRegistries;
    use crate::fetch::{Fetch, FetchError};

    /// Resources by URI, each GET counted.
    struct Service {
        resources: BTreeMap<String, Value>,
        gets: Mutex<Vec<String>>,
    }

    impl Fetch for Service {
        fn target(&self) -> String {
            "test".to_owned()
        }

        async fn get_body(&self, uri: &str) -> Result<Vec<u8>, FetchError> {
            self.gets.lock().unwrap().push(uri.to_owned());
            self.resources
                .get(uri)
                .map(|body| serde_json::to_vec(body).expect("a value is JSON"))
                .ok_or_else(|| FetchError::Status {
                    uri: uri.to_owned(),
                    status: 404,
                    detail: String::new(),
                })
        }
    }

    const ROOT: &str = "/redfish/v1";

    /// sushy-tools' registries: the file `BiosAttributeRegistry.v1_0_0` locates the registry
    /// `BiosAttributeRegistryP89.v1_0_0`; `others` are more files, each locating a registry
    /// with the same Id as the file.
    fn sushy_like(others: &[&'static str]) -> Service {
        let mut resources = BTreeMap::new();
        let mut file = |id: &'static str, location: &str, registry_id: &str| {
            let uri = format!("{ROOT}/Registries/{id}");
            resources.insert(
                uri.clone(),
                json!({"@odata.id": uri, "@odata.type": "#MessageRegistryFile.v1_1_0.MessageRegistryFile",
                       "Id": id, "Location": [{"Language": "en", "Uri": location}]}),
            );
            resources.insert(
                location.to_owned(),
                json!({"@odata.id": location, "@odata.type": "#AttributeRegistry.v1_1_1.AttributeRegistry",
                       "Id": registry_id, "RegistryEntries": {"Attributes": []}}),
            );
            uri
        };
        let mut members = vec![file(
            "BiosAttributeRegistry.v1_0_0",
            "/redfish/v1/Systems/Bios/BiosRegistry",
            "BiosAttributeRegistryP89.v1_0_0",
        )];
        for id in others {
            members.push(file(id, &format!("/registries/{id}.json"), id));
        }
        resources.insert(
            "/redfish/v1/Registries".to_owned(),
            json!({"@odata.id": "/redfish/v1/Registries",
                   "@odata.type": "#MessageRegistryFileCollection.MessageRegistryFileCollection",
                   "Members": members.iter().map(|m| json!({"@odata.id": m})).collect::<Vec<_>>()}),
        );
        Service {
            resources,
            gets: Mutex::new(Vec::new()),
        }
    }

    /// The registry `name` as the crawl finds it in `service` (read whole, as it was served),
    /// the crawl's errors and its GETs.
    async fn lookup(service: &Service, name: &str) -> (Option<Value>, Vec<String>, Vec<String>) {
        let permits = Semaphore::new(1);
        let crawler = Crawler::new(service, false, Registries::Whole, &permits, false);
        let root =
            json!({"@odata.id": ROOT, "Registries": {"@odata.id": "/redfish/v1/Registries"}});
        let bios = json!({"@odata.id": "/redfish/v1/Systems/1/BIOS", "AttributeRegistry": name});
        let registry = crawler
            .registry(&root, bios["AttributeRegistry"].as_str())
            .await;
        let (errors, _) = crawler.into_errors();
        let gets = service.gets.lock().unwrap().clone();
        (
            registry.map(|registry| registry.served().cloned().expect("read whole")),
            errors.iter().map(ToString::to_string).collect(),
            gets,
        )
    }

    #[tokio::test]
    async fn a_registry_every_port_names_is_read_parsed_and_held_once_per_bmc_and_run() {
        let service = sushy_like(&["NetworkAttributesRegistry.v1_0_0"]);
        let known = KnownRegistries::default();
        let permits = Semaphore::new(4);
        let crawler = Crawler::new(&service, false, Registries::Judged(&known), &permits, false);
        let root =
            json!({"@odata.id": ROOT, "Registries": {"@odata.id": "/redfish/v1/Registries"}});
        // Sixteen ports' attribute resources naming one registry, looked up at once.
        let ports: Vec<Value> = (0..16)
            .map(|n| {
                json!({"@odata.id": format!("/redfish/v1/Port/{n}"),
                            "AttributeRegistry": "NetworkAttributesRegistry.v1_0_0"})
            })
            .collect();
        let found = futures::future::join_all(
            ports
                .iter()
                .map(|p| crawler.registry(&root, p["AttributeRegistry"].as_str())),
        )
        .await;
        let found: Vec<std::sync::Arc<_>> = found.into_iter().map(Option::unwrap).collect();
        // One body, parsed once: every port holds the same one, not a copy.
        assert!(found.iter().all(|r| std::sync::Arc::ptr_eq(r, &found[0])));
        let gets = service.gets.lock().unwrap().clone();
        let registry = "/registries/NetworkAttributesRegistry.v1_0_0.json";
        assert_eq!(
            gets.iter().filter(|g| *g == registry).count(),
            1,
            "{gets:?}"
        );
        assert_eq!(
            gets.len(),
            3,
            "the collection, the file, the registry: {gets:?}"
        );
        assert_eq!(known.read_count(), 1);
        // Another BMC of the run serving the same registry: GET as its own, read only once.
        let other = sushy_like(&["NetworkAttributesRegistry.v1_0_0"]);
        let crawler = Crawler::new(&other, false, Registries::Judged(&known), &permits, false);
        let again = crawler
            .registry(&root, ports[0]["AttributeRegistry"].as_str())
            .await
            .unwrap();
        assert!(std::sync::Arc::ptr_eq(&again, &found[0]));
        assert!(other.gets.lock().unwrap().contains(&registry.to_owned()));
        assert_eq!(known.read_count(), 1);
    }

    #[tokio::test]
    async fn a_registry_listed_under_a_shorter_name_of_its_family_is_found_by_its_id() {
        let service = sushy_like(&["Bios", "ManagerAttributeRegistry.v1_0_0"]);
        let (registry, errors, gets) = lookup(&service, "BiosAttributeRegistryP89.v1_0_0").await;
        assert!(errors.is_empty(), "{errors:?}");
        let registry = registry.expect("sushy's registry is found");
        assert_eq!(
            registry["@odata.id"],
            "/redfish/v1/Systems/Bios/BiosRegistry"
        );
        // The longest name of the family first; the manager's registry is no candidate.
        assert_eq!(
            gets,
            [
                "/redfish/v1/Registries",
                "/redfish/v1/Registries/BiosAttributeRegistry.v1_0_0",
                "/redfish/v1/Systems/Bios/BiosRegistry",
            ]
        );
    }

    #[tokio::test]
    async fn a_family_file_whose_registry_has_another_id_is_not_taken_and_few_are_read() {
        let service = sushy_like(&["Bios", "BiosAttribute", "BiosAttributeRegistryP8"]);
        let (registry, errors, gets) = lookup(&service, "BiosAttributeRegistryP80.v1_0_0").await;
        assert!(errors.is_empty(), "{errors:?}");
        assert!(registry.is_none(), "{registry:?}");
        // Two files of the family, each with its registry: not all four.
        assert_eq!(gets.len(), 1 + 2 * 2, "{gets:?}");
        assert!(gets.contains(&"/registries/BiosAttributeRegistryP8.json".to_owned()));
    }

    #[tokio::test]
    async fn a_registry_listed_under_its_own_name_is_read_without_the_family() {
        let service = sushy_like(&["BiosAttributeRegistryP89.v1_0_0"]);
        let (registry, errors, gets) = lookup(&service, "BiosAttributeRegistryP89.v1_0_0").await;
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(
            registry.expect("found")["@odata.id"],
            "/registries/BiosAttributeRegistryP89.v1_0_0.json"
        );
        assert_eq!(gets.len(), 3, "{gets:?}");
    }
}
