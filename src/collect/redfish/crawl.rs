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
//!
//! What a link leads to is checked for its type ([`super::odata_type`]): a collection of the
//! members it promises, members of that type, a `Bios` behind `Bios`, a settings object of the
//! type of what it stages. A resource of another type (a collection listing itself or the
//! service root) is recorded and not read as the one promised, so it never becomes a port; a
//! member listed twice is recorded and read once.

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use futures::future::join_all;
use serde_json::Value;
use tokio::sync::{OnceCell, Semaphore};

use super::fetch::{Fetch, FetchError};
use super::links::{self, ShapeError, uri_of};
use super::odata_type::{self, Expect, TypeName};
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
    let root = crawler.get(ROOT).await.filter(|root| {
        let root_type = Expect::one(&TypeName::SERVICE_ROOT);
        crawler.is_typed(ROOT, root, root_type, || "the service root".to_owned())
    });
    let inventory = match root {
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
    // A problem met through each of several links (a registry every port names) is one.
    errors.dedup();
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

    /// Records a property of the wrong type.
    fn wrong(&self, problem: ShapeError) {
        self.errors
            .lock()
            .expect("no panic while holding the lock")
            .push(FetchError::Shape(problem));
    }

    /// Whether `resource` (read from `uri` through the link `via` names) is what `expect`
    /// says; a resource of another type is recorded, and not to be read as the one promised.
    fn is_typed(
        &self,
        uri: &str,
        resource: &Value,
        expect: Expect,
        via: impl FnOnce() -> String,
    ) -> bool {
        match odata_type::check(uri, resource, expect, via) {
            Ok(()) => true,
            Err(problem) => {
                self.wrong(problem);
                false
            }
        }
    }

    /// The link at `path` of `resource`; one of the wrong shape is recorded and not followed.
    fn link<'v>(&self, resource: &'v Value, path: &[&str]) -> Option<&'v str> {
        let uri = uri_of(resource, "(a resource without @odata.id)");
        links::link(uri, resource, path).unwrap_or_else(|problem| {
            self.wrong(problem);
            None
        })
    }

    /// What the link at `path` of `resource` leads to, when it is what `expect` says.
    async fn follow(&self, resource: &Value, path: &[&str], expect: Expect) -> Option<Value> {
        let uri = self.link(resource, path)?;
        let value = self.get(uri).await?;
        self.is_typed(uri, &value, expect, || link_name(resource, path))
            .then_some(value)
    }

    /// The member URIs of the collection page at `uri`, each listed for the first time in
    /// `listed`. A `Members` that is not an array, a member that is not a link, and a member
    /// listed again are recorded.
    fn member_uris(&self, uri: &str, page: &Value, listed: &mut Listed) -> Vec<String> {
        let members = match &page["Members"] {
            Value::Null => return Vec::new(),
            Value::Array(members) => members,
            other => {
                self.wrong(ShapeError::new(uri, "Members", "an array of links", other));
                return Vec::new();
            }
        };
        listed.count += members.len();
        members
            .iter()
            .enumerate()
            .filter_map(|(index, member)| match links::link_target(member) {
                Some(target) => self
                    .listed_once(listed, uri, index, target)
                    .then(|| target.to_owned()),
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
            .collect()
    }

    /// Whether `member`, at `Members/index` of the page at `uri`, is listed there for the first
    /// time; a member listed again is recorded: a collection that says one port twice is not
    /// the list of ports its BMC has.
    fn listed_once(&self, listed: &mut Listed, uri: &str, index: usize, member: &str) -> bool {
        let key = member.trim_end_matches('/');
        let Some((page, first)) = listed.first.get(key) else {
            listed.first.insert(key.to_owned(), (uri.to_owned(), index));
            return true;
        };
        let at = if page == uri {
            format!("Members/{first}")
        } else {
            format!("Members/{first} of {page}")
        };
        self.wrong(ShapeError {
            uri: uri.to_owned(),
            property: format!("Members/{index}"),
            expected: format!("each member listed once (it is {at})"),
            found: format!("{member} again"),
        });
        false
    }

    /// The members inline in an expanded collection page at `uri`, each listed once and of the
    /// type `member`.
    fn inline_members(
        &self,
        uri: &str,
        page: &Value,
        member: &'static TypeName,
        listed: &mut Listed,
    ) -> Vec<Value> {
        let Some(members) = page["Members"].as_array() else {
            return Vec::new();
        };
        listed.count += members.len();
        members
            .iter()
            .enumerate()
            .filter(|(index, resource)| {
                let id = links::link_target(resource);
                id.is_none_or(|id| self.listed_once(listed, uri, *index, id))
                    && self.is_typed(id.unwrap_or(uri), resource, Expect::one(member), || {
                        format!("Members/{index} of {uri}")
                    })
            })
            .map(|(_, resource)| resource.clone())
            .collect()
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

    /// The members of type `member` of the collection that the link `name` of `resource`
    /// leads to, expanded in one request when the service can. Each member is read once
    /// however often it is listed, and only as what it is: a page or member of another type
    /// (the collection itself, the service root) is recorded and left out.
    async fn members(&self, resource: &Value, name: &str, member: &'static TypeName) -> Vec<Value> {
        let Some(uri) = self.link(resource, &[name]) else {
            return Vec::new();
        };
        let via = || link_name(resource, &[name]);
        let collection_type = Expect::CollectionOf(*member);
        let mut listed = Listed::default();
        if self.expand.load(Ordering::Relaxed) {
            match self.fetch_raw(&format!("{uri}?$expand=.($levels=1)")).await {
                Ok(collection) if expanded(&collection) => {
                    if !self.is_typed(uri, &collection, collection_type, via) {
                        return Vec::new();
                    }
                    let mut members = self.inline_members(uri, &collection, member, &mut listed);
                    for (page_uri, page) in self.next_pages(uri, &collection).await {
                        if !self.is_typed(&page_uri, &page, collection_type, via) {
                            continue;
                        }
                        if expanded(&page) {
                            members.extend(self.inline_members(
                                &page_uri,
                                &page,
                                member,
                                &mut listed,
                            ));
                        } else {
                            let uris = self.member_uris(&page_uri, &page, &mut listed);
                            members.extend(self.get_members(uris, member, &listed).await);
                        }
                    }
                    self.check_count(uri, &collection, listed.count);
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
        if !self.is_typed(uri, &collection, collection_type, via) {
            return Vec::new();
        }
        let mut uris = self.member_uris(uri, &collection, &mut listed);
        for (page_uri, page) in self.next_pages(uri, &collection).await {
            if self.is_typed(&page_uri, &page, collection_type, via) {
                uris.extend(self.member_uris(&page_uri, &page, &mut listed));
            }
        }
        self.check_count(uri, &collection, listed.count);
        self.get_members(uris, member, &listed).await
    }

    /// The members at `uris` that are of the type `member`, as `listed` lists them.
    async fn get_members(
        &self,
        uris: Vec<String>,
        member: &'static TypeName,
        listed: &Listed,
    ) -> Vec<Value> {
        let read = join_all(uris.iter().map(|uri| self.get(uri))).await;
        uris.iter()
            .zip(read)
            .filter_map(|(uri, resource)| {
                let resource = resource?;
                let via = || listed.place_of(uri);
                self.is_typed(uri, &resource, Expect::one(member), via)
                    .then_some(resource)
            })
            .collect()
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
        let systems = self
            .members(root, "Systems", &TypeName::COMPUTER_SYSTEM)
            .await;
        join_all(systems.into_iter().map(|system| self.system(root, system))).await
    }

    async fn system(&self, root: &Value, system: Value) -> SystemInventory {
        let interfaces = self
            .members(&system, "EthernetInterfaces", &TypeName::ETHERNET_INTERFACE)
            .await;
        let bios = self
            .follow(&system, &["Bios"], Expect::one(&TypeName::BIOS))
            .await;
        let (bios_pending, bios_registry) = match &bios {
            Some(bios) => futures::join!(
                self.pending_settings(bios, Expect::one(&TypeName::BIOS)),
                self.registry(root, bios)
            ),
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

    /// The `@Redfish.Settings` object of `resource`: values pending until the next reset. It
    /// stages the resource itself, so it is of the resource's type (`expect`).
    async fn pending_settings(&self, resource: &Value, expect: Expect) -> Option<Value> {
        self.follow(resource, &["@Redfish.Settings", "SettingsObject"], expect)
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

    async fn adapters(&self, root: &Value) -> Vec<AdapterInventory> {
        let chassis = self.members(root, "Chassis", &TypeName::CHASSIS).await;
        let per_chassis = join_all(
            chassis
                .iter()
                .map(|c| self.members(c, "NetworkAdapters", &TypeName::NETWORK_ADAPTER)),
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
            self.pending_settings(&adapter, Expect::one(&TypeName::NETWORK_ADAPTER)),
            self.members(&adapter, "Ports", &TypeName::PORT),
            self.members(&adapter, "NetworkPorts", &TypeName::NETWORK_PORT),
            self.members(
                &adapter,
                "NetworkDeviceFunctions",
                &TypeName::NETWORK_DEVICE_FUNCTION
            )
        );
        let typed_ports = ports.iter().map(|port| (port, &TypeName::PORT)).chain(
            network_ports
                .iter()
                .map(|port| (port, &TypeName::NETWORK_PORT)),
        );
        let (functions, port_pending) = futures::join!(
            join_all(
                functions
                    .into_iter()
                    .map(|function| self.function(root, function)),
            ),
            join_all(typed_ports.map(|(port, kind)| async move {
                let pending = self.pending_settings(port, Expect::one(kind)).await?;
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
        let oem = vendors::function_attributes(Vendor::detect(root));
        let oem_attributes = match oem {
            Some(oem) => {
                self.follow(&function, oem.link, Expect::OneOf(oem.types))
                    .await
            }
            None => None,
        };
        let ((oem_pending, oem_registry), pending) = futures::join!(
            async {
                match (&oem_attributes, oem) {
                    (Some(attributes), Some(oem)) => futures::join!(
                        self.pending_settings(attributes, Expect::OneOf(oem.types)),
                        self.registry(root, attributes)
                    ),
                    _ => (None, None),
                }
            },
            self.pending_settings(&function, Expect::one(&TypeName::NETWORK_DEVICE_FUNCTION))
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
        let update = Expect::one(&TypeName::UPDATE_SERVICE);
        let Some(service) = self.follow(root, &["UpdateService"], update).await else {
            return Vec::new();
        };
        self.members(&service, "FirmwareInventory", &TypeName::SOFTWARE_INVENTORY)
            .await
    }
}

/// The members a collection lists, each once, and where each is listed first.
#[derive(Default)]
struct Listed {
    /// How many entries its pages list, repeats included (what `Members@odata.count` counts).
    count: usize,
    /// Each member's URI (without a trailing `/`): the page and index it is listed at first.
    first: HashMap<String, (String, usize)>,
}

impl Listed {
    /// Where `member` is listed first, for messages: `Members/2 of /redfish/v1/Chassis`.
    fn place_of(&self, member: &str) -> String {
        match self.first.get(member.trim_end_matches('/')) {
            Some((page, index)) => format!("Members/{index} of {page}"),
            None => "a Members entry".to_owned(),
        }
    }
}

/// The link at `path` of `resource`, for messages: `Bios of /redfish/v1/Systems/1`.
fn link_name(resource: &Value, path: &[&str]) -> String {
    format!(
        "{} of {}",
        path.join("/"),
        uri_of(resource, "(a resource without @odata.id)")
    )
}

/// Whether a collection body holds its members inline (an `$expand` answer).
fn expanded(collection: &Value) -> bool {
    collection["Members"].as_array().is_some_and(|members| {
        members
            .iter()
            .all(|m| m.as_object().is_some_and(|o| o.len() > 1))
    })
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
