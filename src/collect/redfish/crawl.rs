//! The crawl: what a configuration capture needs from a Redfish service, nothing more.
//!
//! Service root → `Systems` (EthernetInterfaces, Bios and its pending settings and attribute
//! registry), `Chassis` → `NetworkAdapters` → `Ports`, `NetworkPorts`,
//! `NetworkDeviceFunctions` (and the vendor's NIC attribute resource its module names, e.g.
//! Dell's `DellNetworkAttributes`, with their pending `Settings` and attribute registry),
//! `UpdateService/FirmwareInventory`. Collections follow
//! `Members@odata.nextLink`; `$expand` is used only when the service root says it works, and
//! dropped for the rest of the crawl when the service answers 501. Every GET waits for one of
//! `limit` permits: BMCs are slow and fragile.
//!
//! What the crawl follows is checked for its shape ([`super::links`]): a body that is not an
//! object, a link that is not `{"@odata.id": "…"}`, a `Members` that is not an array of links,
//! a non-string `Members@odata.nextLink`, a collection listing fewer members than its
//! `Members@odata.count`. Each is recorded as an error naming the URI and property, so the
//! capture is partial instead of silently smaller; absent and `null` mean "none".

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use futures::future::join_all;
use serde_json::Value;
use tokio::sync::{OnceCell, Semaphore};

use super::fetch::{Fetch, FetchError};
use super::links::{self, ShapeError, uri_of};
use super::vendors::{self, Vendor};

/// URI of the service root.
pub const ROOT: &str = "/redfish/v1";

/// What a crawl found, in the shape normalization needs.
#[derive(Debug, Clone, Default)]
pub struct Inventory {
    /// The service root.
    pub root: Value,
    /// Each computer system with its interfaces and BIOS.
    pub systems: Vec<SystemInventory>,
    /// Each network adapter of each chassis.
    pub adapters: Vec<AdapterInventory>,
    /// Firmware inventory entries.
    pub firmware: Vec<Value>,
}

/// One `Systems` member.
#[derive(Debug, Clone, Default)]
pub struct SystemInventory {
    /// The system resource.
    pub system: Value,
    /// Its `EthernetInterfaces` members.
    pub interfaces: Vec<Value>,
    /// Its `Bios` resource.
    pub bios: Option<Value>,
    /// The BIOS `@Redfish.Settings` object: values pending until the next reset.
    pub bios_pending: Option<Value>,
    /// The BIOS attribute registry, when the service publishes it.
    pub bios_registry: Option<Value>,
}

/// One `NetworkAdapters` member.
#[derive(Debug, Clone, Default)]
pub struct AdapterInventory {
    /// The adapter resource.
    pub adapter: Value,
    /// Its `@Redfish.Settings` object: values pending until the next reset.
    pub adapter_pending: Option<Value>,
    /// `Ports` members (current schema).
    pub ports: Vec<Value>,
    /// `NetworkPorts` members (deprecated, still served by iDRAC).
    pub network_ports: Vec<Value>,
    /// The `@Redfish.Settings` object of each port or network port that has one (values
    /// pending until the next reset), by the port's `@odata.id`.
    pub port_pending: BTreeMap<String, Value>,
    /// `NetworkDeviceFunctions` members with their OEM attributes.
    pub functions: Vec<FunctionInventory>,
}

/// One `NetworkDeviceFunctions` member.
#[derive(Debug, Clone, Default)]
pub struct FunctionInventory {
    /// The function resource.
    pub function: Value,
    /// Its `@Redfish.Settings` object: values pending until the next reset.
    pub pending: Option<Value>,
    /// The vendor's resource of NIC (HII) attributes of this function, where the vendor
    /// module names a link to one (Dell `DellNetworkAttributes`).
    pub oem_attributes: Option<Value>,
    /// Their pending `Settings`.
    pub oem_pending: Option<Value>,
    /// Their attribute registry, when the service publishes it: it types secrets.
    pub oem_registry: Option<Value>,
}

/// The result of a crawl.
#[derive(Debug, Clone, Default)]
pub struct Crawl {
    /// What was found; `None` when the service root could not be read.
    pub inventory: Option<Inventory>,
    /// Every resource read, by URI, when the crawl was asked to keep them (`--save-mockup`).
    pub fetched: BTreeMap<String, Value>,
    /// Every resource that could not be read, sorted by URI.
    pub errors: Vec<FetchError>,
}

struct Crawler<'a, F> {
    fetch: &'a F,
    // Whether every body is kept for `--save-mockup`: a copy of each resource (the attribute
    // registries are megabytes) is not made for a capture that does not save them.
    keep: bool,
    permits: Semaphore,
    expand: AtomicBool,
    fetched: Mutex<BTreeMap<String, Value>>,
    errors: Mutex<Vec<FetchError>>,
    // The registry lookups' answers (see `get_once`).
    answers: Mutex<BTreeMap<String, Arc<OnceCell<Option<Value>>>>>,
}

/// Crawls the service behind `fetch` with at most `limit` requests in flight; `keep`: every
/// resource read is returned in [`Crawl::fetched`] (for `--save-mockup`).
pub async fn crawl<F: Fetch>(fetch: &F, limit: usize, keep: bool) -> Crawl {
    let crawler = Crawler {
        fetch,
        keep,
        permits: Semaphore::new(limit.max(1)),
        expand: AtomicBool::new(false),
        fetched: Mutex::new(BTreeMap::new()),
        errors: Mutex::new(Vec::new()),
        answers: Mutex::new(BTreeMap::new()),
    };
    let inventory = match crawler.get(ROOT).await {
        Some(root) => {
            crawler
                .expand
                .store(expand_supported(&root), Ordering::Relaxed);
            let (systems, adapters, firmware) = futures::join!(
                crawler.systems(&root),
                crawler.adapters(&root),
                crawler.firmware(&root)
            );
            Some(Inventory {
                root,
                systems,
                adapters,
                firmware,
            })
        }
        None => None,
    };
    let mut errors = crawler
        .errors
        .into_inner()
        .expect("no panic while holding the lock");
    errors.sort_by_cached_key(ToString::to_string);
    Crawl {
        inventory,
        fetched: crawler
            .fetched
            .into_inner()
            .expect("no panic while holding the lock"),
        errors,
    }
}

/// Whether the root's `ProtocolFeaturesSupported.ExpandQuery` allows `$expand=.($levels=1)`.
fn expand_supported(root: &Value) -> bool {
    let expand = &root["ProtocolFeaturesSupported"]["ExpandQuery"];
    expand["Levels"].as_bool() == Some(true)
        && expand["MaxLevels"]
            .as_u64()
            .is_none_or(|levels| levels >= 1)
}

/// The `@odata.id` of `value[key]`, without a fragment.
pub fn link<'v>(value: &'v Value, path: &[&str]) -> Option<&'v str> {
    let mut node = value;
    for key in path {
        node = node.get(key)?;
    }
    node.get("@odata.id")?
        .as_str()
        .map(|uri| uri.split('#').next().unwrap_or(uri))
}

impl<F: Fetch> Crawler<'_, F> {
    /// GETs `uri`; a failure is recorded and yields `None`.
    async fn get(&self, uri: &str) -> Option<Value> {
        match self.fetch_raw(uri).await {
            Ok(value) => Some(value),
            Err(error) => {
                self.errors
                    .lock()
                    .expect("no panic while holding the lock")
                    .push(error);
                None
            }
        }
    }

    /// [`Self::get`] once per crawl however many resources ask (a second caller waits for the
    /// first one's answer): the attribute resources of every port name their registry through
    /// the same `Registries` collection, and a BMC is slow enough.
    async fn get_once(&self, uri: &str) -> Option<Value> {
        let answer = Arc::clone(
            self.answers
                .lock()
                .expect("no panic while holding the lock")
                .entry(uri.trim_end_matches('/').to_owned())
                .or_default(),
        );
        answer.get_or_init(|| self.get(uri)).await.clone()
    }

    /// GETs `uri` and remembers the body; the error is the caller's to judge.
    async fn fetch_raw(&self, uri: &str) -> Result<Value, FetchError> {
        let value = {
            let _permit = self
                .permits
                .acquire()
                .await
                .expect("the semaphore is never closed");
            self.fetch.get(uri).await?
        };
        // Every Redfish resource is a JSON object; anything else would read as "no properties".
        if !value.is_object() {
            return Err(FetchError::Shape(ShapeError::new(
                uri,
                "the body",
                "a JSON object (a Redfish resource)",
                &value,
            )));
        }
        if self.keep {
            let key = uri
                .split('?')
                .next()
                .unwrap_or(uri)
                .trim_end_matches('/')
                .to_owned();
            self.fetched
                .lock()
                .expect("no panic while holding the lock")
                .insert(key, value.clone());
        }
        Ok(value)
    }

    async fn get_all(&self, uris: Vec<String>) -> Vec<Value> {
        join_all(uris.iter().map(|uri| self.get(uri)))
            .await
            .into_iter()
            .flatten()
            .collect()
    }

    /// Records a property of the wrong type.
    fn wrong(&self, problem: ShapeError) {
        self.errors
            .lock()
            .expect("no panic while holding the lock")
            .push(FetchError::Shape(problem));
    }

    /// The link at `path` of `resource`; one of the wrong shape is recorded and not followed.
    fn link<'v>(&self, resource: &'v Value, path: &[&str]) -> Option<&'v str> {
        let uri = uri_of(resource, "(a resource without @odata.id)");
        links::link(uri, resource, path).unwrap_or_else(|problem| {
            self.wrong(problem);
            None
        })
    }

    /// The member URIs of the collection page at `uri`, and how many members it lists. A
    /// `Members` that is not an array, or a member that is not a link, is recorded.
    fn member_uris(&self, uri: &str, page: &Value) -> (Vec<String>, usize) {
        let members = match &page["Members"] {
            Value::Null => return (Vec::new(), 0),
            Value::Array(members) => members,
            other => {
                self.wrong(ShapeError::new(uri, "Members", "an array of links", other));
                return (Vec::new(), 0);
            }
        };
        let uris = members
            .iter()
            .enumerate()
            .filter_map(|(index, member)| match links::link_target(member) {
                Some(target) => Some(target.to_owned()),
                None => {
                    self.wrong(ShapeError::new(
                        uri,
                        &format!("Members/{index}"),
                        "a link (an object with a string @odata.id)",
                        member,
                    ));
                    None
                }
            })
            .collect();
        (uris, members.len())
    }

    /// A collection that lists fewer members than its `Members@odata.count`, on all its pages,
    /// is incomplete: the rest would vanish from the snapshot.
    fn check_count(&self, uri: &str, collection: &Value, listed: usize) {
        let count = &collection["Members@odata.count"];
        if count.is_null() {
            return;
        }
        let Some(count) = count.as_u64() else {
            return self.wrong(ShapeError::new(
                uri,
                "Members@odata.count",
                "a non-negative integer",
                count,
            ));
        };
        if count > listed as u64 {
            self.wrong(ShapeError {
                uri: uri.to_owned(),
                property: "Members".to_owned(),
                expected: format!(
                    "the {count} of Members@odata.count, or a Members@odata.nextLink to the rest"
                ),
                found: format!("a list of {listed}"),
            });
        }
    }

    /// The members of the collection at `uri`, expanded in one request when the service can.
    async fn members(&self, uri: Option<&str>) -> Vec<Value> {
        let Some(uri) = uri else { return Vec::new() };
        if self.expand.load(Ordering::Relaxed) {
            match self.fetch_raw(&format!("{uri}?$expand=.($levels=1)")).await {
                Ok(collection) if expanded(&collection) => {
                    let mut members = inline_members(&collection);
                    let mut listed = members.len();
                    for (page_uri, page) in self.next_pages(uri, &collection).await {
                        if expanded(&page) {
                            let inline = inline_members(&page);
                            listed += inline.len();
                            members.extend(inline);
                        } else {
                            let (uris, count) = self.member_uris(&page_uri, &page);
                            listed += count;
                            members.extend(self.get_all(uris).await);
                        }
                    }
                    self.check_count(uri, &collection, listed);
                    let mut fetched = self
                        .fetched
                        .lock()
                        .expect("no panic while holding the lock");
                    for member in members.iter().filter(|_| self.keep) {
                        if let Some(id) = member["@odata.id"].as_str() {
                            fetched.insert(id.trim_end_matches('/').to_owned(), member.clone());
                        }
                    }
                    return members;
                }
                Err(e) if e.status() == Some(501) => self.expand.store(false, Ordering::Relaxed),
                // Anything else: ask again without `$expand`; that answer decides.
                _ => {}
            }
        }
        let Some(collection) = self.get(uri).await else {
            return Vec::new();
        };
        let (mut uris, mut listed) = self.member_uris(uri, &collection);
        for (page_uri, page) in self.next_pages(uri, &collection).await {
            let (more, count) = self.member_uris(&page_uri, &page);
            uris.extend(more);
            listed += count;
        }
        self.check_count(uri, &collection, listed);
        self.get_all(uris).await
    }

    /// The next page a collection page at `uri` names: absent or `null` is the last page, a
    /// `Members@odata.nextLink` that is not a string is recorded (the rest is missing).
    fn next_link(&self, uri: &str, page: &Value) -> Option<String> {
        match &page["Members@odata.nextLink"] {
            Value::Null => None,
            Value::String(next) => Some(next.clone()),
            other => {
                self.wrong(ShapeError::new(
                    uri,
                    "Members@odata.nextLink",
                    "a string (the URI of the next page)",
                    other,
                ));
                None
            }
        }
    }

    /// Further pages of the collection at `uri`, with their URIs, following
    /// `Members@odata.nextLink` (at most 1000). A page seen twice, or more than 1000 pages, is
    /// an error: the collection would otherwise look complete without being so.
    async fn next_pages(&self, uri: &str, first: &Value) -> Vec<(String, Value)> {
        let mut pages = Vec::new();
        let mut seen = std::collections::BTreeSet::new();
        let mut next = self.next_link(uri, first);
        while let Some(uri) = next.take() {
            if !seen.insert(uri.clone()) || pages.len() >= 1000 {
                let reason = "Members@odata.nextLink loops (or passes 1000 pages); the collection is incomplete".to_owned();
                self.errors
                    .lock()
                    .expect("no panic while holding the lock")
                    .push(FetchError::Transport { uri, reason });
                break;
            }
            if let Some(page) = self.get(&uri).await {
                next = self.next_link(&uri, &page);
                pages.push((uri, page));
            }
        }
        pages
    }

    async fn systems(&self, root: &Value) -> Vec<SystemInventory> {
        let systems = self.members(self.link(root, &["Systems"])).await;
        join_all(systems.into_iter().map(|system| self.system(root, system))).await
    }

    async fn system(&self, root: &Value, system: Value) -> SystemInventory {
        let interfaces = self
            .members(self.link(&system, &["EthernetInterfaces"]))
            .await;
        let bios = match self.link(&system, &["Bios"]) {
            Some(uri) => self.get(uri).await,
            None => None,
        };
        let (bios_pending, bios_registry) = match &bios {
            Some(bios) => futures::join!(self.pending_settings(bios), self.registry(root, bios)),
            None => (None, None),
        };
        SystemInventory {
            system,
            interfaces,
            bios,
            bios_pending,
            bios_registry,
        }
    }

    /// The `@Redfish.Settings` object of `resource`: values pending until the next reset.
    async fn pending_settings(&self, resource: &Value) -> Option<Value> {
        self.get(self.link(resource, &["@Redfish.Settings", "SettingsObject"])?)
            .await
    }

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
    async fn registry(&self, root: &Value, resource: &Value) -> Option<Value> {
        let name = resource["AttributeRegistry"].as_str()?;
        let base = name.split(".v").next().unwrap_or(name);
        let collection = self.link(root, &["Registries"])?;
        let registries = self.get_once(collection).await?;
        // iDRAC names `NetworkAttributeRegistry_<FQDD>` in the resource and lists it as
        // `NetworkAttributesRegistry_<FQDD>`.
        let dell_alias =
            name.replacen("NetworkAttributeRegistry_", "NetworkAttributesRegistry_", 1);
        let (listed, _) = self.member_uris(collection, &registries);
        let entry = listed.into_iter().find(|uri| {
            let id = uri.rsplit('/').next().unwrap_or("");
            id == name || id == dell_alias || id.split(".v").next() == Some(base)
        })?;
        let file = self.get_once(&entry).await?;
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

    async fn adapters(&self, root: &Value) -> Vec<AdapterInventory> {
        let chassis = self.members(self.link(root, &["Chassis"])).await;
        let per_chassis = join_all(
            chassis
                .iter()
                .map(|c| self.members(self.link(c, &["NetworkAdapters"]))),
        )
        .await;
        join_all(
            per_chassis
                .into_iter()
                .flatten()
                .map(|adapter| self.adapter(root, adapter)),
        )
        .await
    }

    async fn adapter(&self, root: &Value, adapter: Value) -> AdapterInventory {
        let (adapter_pending, ports, network_ports, functions) = futures::join!(
            self.pending_settings(&adapter),
            self.members(self.link(&adapter, &["Ports"])),
            self.members(self.link(&adapter, &["NetworkPorts"])),
            self.members(self.link(&adapter, &["NetworkDeviceFunctions"]))
        );
        let (functions, port_pending) = futures::join!(
            join_all(
                functions
                    .into_iter()
                    .map(|function| self.function(root, function)),
            ),
            join_all(ports.iter().chain(&network_ports).map(|port| async move {
                let pending = self.pending_settings(port).await?;
                Some((
                    port["@odata.id"].as_str()?.trim_end_matches('/').to_owned(),
                    pending,
                ))
            }))
        );
        AdapterInventory {
            adapter,
            adapter_pending,
            ports,
            network_ports,
            port_pending: port_pending.into_iter().flatten().collect(),
            functions,
        }
    }

    async fn function(&self, root: &Value, function: Value) -> FunctionInventory {
        // Which OEM attribute resource to follow is the vendor module's knowledge.
        let oem_link = vendors::function_attributes_link(Vendor::detect(root));
        let oem_attributes = match oem_link.and_then(|path| self.link(&function, path)) {
            Some(uri) => self.get(uri).await,
            None => None,
        };
        let ((oem_pending, oem_registry), pending) = futures::join!(
            async {
                match &oem_attributes {
                    Some(attributes) => futures::join!(
                        self.pending_settings(attributes),
                        self.registry(root, attributes)
                    ),
                    None => (None, None),
                }
            },
            self.pending_settings(&function)
        );
        FunctionInventory {
            function,
            pending,
            oem_attributes,
            oem_pending,
            oem_registry,
        }
    }

    async fn firmware(&self, root: &Value) -> Vec<Value> {
        let Some(uri) = self.link(root, &["UpdateService"]) else {
            return Vec::new();
        };
        let Some(service) = self.get(uri).await else {
            return Vec::new();
        };
        self.members(self.link(&service, &["FirmwareInventory"]))
            .await
    }
}

/// Whether a collection body holds its members inline (an `$expand` answer).
fn expanded(collection: &Value) -> bool {
    collection["Members"].as_array().is_some_and(|members| {
        members
            .iter()
            .all(|m| m.as_object().is_some_and(|o| o.len() > 1))
    })
}

fn inline_members(collection: &Value) -> Vec<Value> {
    collection["Members"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::sync::Mutex;

    use super::*;
    use crate::collect::redfish::fetch::MockupDir;

    /// A mockup that counts the GETs of each URI.
    struct Counting {
        inner: MockupDir,
        gets: Mutex<BTreeMap<String, usize>>,
    }

    impl Fetch for Counting {
        fn target(&self) -> String {
            self.inner.target()
        }

        async fn get(&self, uri: &str) -> Result<Value, FetchError> {
            *self.gets.lock().unwrap().entry(uri.to_owned()).or_default() += 1;
            self.inner.get(uri).await
        }
    }

    #[tokio::test]
    async fn a_resource_linked_from_every_port_is_read_once_per_crawl() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("examples/azure-local-dcbx/recorded/baseline/bmc");
        let counting = Counting {
            inner: MockupDir::open(&dir).unwrap(),
            gets: Mutex::new(BTreeMap::new()),
        };
        let crawl = crawl(&counting, 4, false).await;
        assert!(crawl.errors.is_empty(), "{:?}", crawl.errors);
        let gets = counting.gets.into_inner().unwrap();
        // The BIOS and every port's NIC attributes name their registry through `Registries`.
        assert_eq!(gets.get("/redfish/v1/Registries"), Some(&1), "{gets:?}");
        let repeated: Vec<_> = gets.iter().filter(|(_, n)| **n > 1).collect();
        assert!(repeated.is_empty(), "read more than once: {repeated:?}");
    }
}
