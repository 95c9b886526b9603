//! The crawl: what a configuration capture needs from a Redfish service, nothing more.
//!
//! Service root → `Systems` (EthernetInterfaces, Bios and its pending settings and attribute
//! registry), `Chassis` → `NetworkAdapters` → `Ports`, `NetworkPorts`,
//! `NetworkDeviceFunctions` (and the vendor's NIC attribute resource its module names, e.g.
//! Dell's `DellNetworkAttributes`, with their pending `Settings` and attribute registry),
//! `UpdateService/FirmwareInventory`, the PCIe devices and functions that tie a NIC to its
//! firmware (`pcie.rs`), and the vendor's own list of a system's adapters where its module
//! names one (HPE iLO 5's `BaseNetworkAdapters`). Collections follow
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
//!
//! This file is the walk: which resources a capture reads, from the service root down.
//! `crawler.rs` holds how one resource is read (a permit per GET, remembered, checked for its
//! type), `collections.rs` how a collection's members are (pages, `$expand`, each member once,
//! `Members@odata.count`), `registry.rs` how an attribute registry is found, `pcie.rs` which
//! PCIe resources the firmware links need.

mod collections;
mod crawler;
mod pcie;
mod registry;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use futures::future::join_all;
use serde_json::Value;
use tokio::sync::Semaphore;

use super::attributes::{KnownRegistries, Registry};
use super::fetch::{Fetch, FetchError};
use super::odata_type::{Expect, TypeName};
use super::vendors::{self, Vendor};
use crawler::Crawler;

/// How much of each attribute registry a crawl reads.
#[derive(Debug, Clone, Copy)]
pub enum Registries<'a> {
    /// All of it, as served: for a write (`fix`) or a saved copy.
    Whole,
    /// What judging reads of it, a registry the run read already (the same text another BMC
    /// served) taken from those it knows.
    Judged(&'a KnownRegistries),
}

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
    /// The PCIe devices and functions that tie a NIC to its firmware (see `pcie.rs`), each
    /// once.
    pub pcie: Vec<Value>,
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
    pub bios_registry: Option<Arc<Registry>>,
    /// The vendor's own list of the system's network adapters, where it keeps one (HPE iLO 5
    /// `BaseNetworkAdapters`): it may hold the only version of a NIC's firmware.
    pub vendor_adapters: Vec<Value>,
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
    /// Their attribute registry, when the service publishes it: it types secrets. Shared:
    /// every function that names the same registry holds the one read.
    pub oem_registry: Option<Arc<Registry>>,
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
    /// Worth saying, not an error: what could not be read of the PCIe resources that only
    /// help name a port's firmware, and how many such links were not followed.
    pub notes: Vec<String>,
}

/// Crawls the service behind `fetch` with at most `limit` requests in flight; `keep`: every
/// resource read is returned in [`Crawl::fetched`] (for `--save-mockup`); `registries`: how
/// much of each attribute registry is built (whole for a write or a saved copy).
pub async fn crawl<F: Fetch>(
    fetch: &F,
    limit: usize,
    keep: bool,
    registries: Registries<'_>,
) -> Crawl {
    crawl_from(fetch, limit, keep, registries, None).await
}

/// [`crawl`], from the service root `root` already read without a login (a look before the
/// host's turn) when it is given. A root that is no JSON object or names no `Systems` is read
/// again: a service may show less to who has not logged in, and what it hid must not read as
/// removed.
pub async fn crawl_from<F: Fetch>(
    fetch: &F,
    limit: usize,
    keep: bool,
    registries: Registries<'_>,
    root: Option<&[u8]>,
) -> Crawl {
    let permits = Semaphore::new(limit.max(1));
    let crawler = Crawler::new(fetch, keep, registries, &permits, false);
    let given =
        root.and_then(|body| crawler.given(ROOT, body, |root| root.get("Systems").is_some()));
    let root = match given {
        Some(root) => Some(root),
        None => crawler.get(ROOT).await,
    };
    let root = root.filter(|root| {
        let root_type = Expect::one(&TypeName::SERVICE_ROOT);
        crawler.is_typed(ROOT, root, root_type, || "the service root".to_owned())
    });
    let mut notes = Vec::new();
    let mut side_fetched = BTreeMap::new();
    let inventory = match root {
        Some(root) => {
            let expand = expand_supported(&root);
            crawler.expand.store(expand, Ordering::Relaxed);
            // The PCIe resources only help name a port's firmware: what goes wrong reading them
            // (a stale `RelatedItem`, a device of another type) is said, and makes no fact
            // unread, so a side crawl of its own keeps its failures apart from the capture's.
            let side = Crawler::new(fetch, keep, registries, &permits, expand);
            let (systems, (adapters, firmware, pcie)) =
                futures::join!(crawler.systems(&root), async {
                    let (adapters, firmware) =
                        futures::join!(crawler.adapters(&root), crawler.firmware(&root));
                    let pcie = side.pcie(&adapters, &firmware).await;
                    (adapters, firmware, pcie)
                });
            let (pcie, capped) = pcie;
            let (side_errors, fetched) = side.into_errors();
            side_fetched = fetched;
            notes.extend(capped);
            notes.extend(side_errors.iter().map(|error| {
                format!(
                    "{error} (reading the PCIe resources that tie a NIC to its firmware; the \
                     ports it would name keep the links they have, or say the BMC links none)"
                )
            }));
            Some(Inventory {
                root,
                systems,
                adapters,
                firmware,
                pcie,
            })
        }
        None => None,
    };
    let (errors, mut fetched) = crawler.into_errors();
    fetched.extend(side_fetched);
    Crawl {
        inventory,
        fetched,
        errors,
        notes,
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
    /// `Systems`: each computer system with its interfaces and BIOS.
    async fn systems(&self, root: &Value) -> Vec<SystemInventory> {
        let systems = self
            .members(root, "Systems", &TypeName::COMPUTER_SYSTEM)
            .await;
        join_all(systems.into_iter().map(|system| self.system(root, system))).await
    }

    /// One system: its `EthernetInterfaces`, its `Bios` with the pending settings and registry.
    async fn system(&self, root: &Value, system: Value) -> SystemInventory {
        let interfaces = self
            .members(&system, "EthernetInterfaces", &TypeName::ETHERNET_INTERFACE)
            .await;
        let bios = self
            .follow(&system, &["Bios"], Expect::one(&TypeName::BIOS))
            .await;
        let ((bios_pending, bios_registry), vendor_adapters) = futures::join!(
            async {
                match &bios {
                    Some(bios) => futures::join!(
                        self.pending_settings(bios, Expect::one(&TypeName::BIOS)),
                        self.registry(root, bios)
                    ),
                    None => (None, None),
                }
            },
            async {
                // Which vendor collection to follow is the vendor module's knowledge.
                match vendors::system_adapters(Vendor::detect(root)) {
                    Some(oem) => self.members_at(&system, oem.link, oem.member).await,
                    None => Vec::new(),
                }
            }
        );
        SystemInventory {
            system,
            interfaces,
            bios,
            bios_pending,
            bios_registry,
            vendor_adapters,
        }
    }

    /// The `@Redfish.Settings` object of `resource`: values pending until the next reset. It
    /// stages the resource itself, so it is of the resource's type (`expect`).
    async fn pending_settings(&self, resource: &Value, expect: Expect) -> Option<Value> {
        self.follow(resource, &["@Redfish.Settings", "SettingsObject"], expect)
            .await
    }

    /// `Chassis` → `NetworkAdapters`: each adapter of each chassis.
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

    /// One adapter: its ports (both schemas), functions and the settings pending on each.
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

    /// One function, with the vendor's NIC attribute resource where its module names one.
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

    /// `UpdateService/FirmwareInventory`.
    async fn firmware(&self, root: &Value) -> Vec<Value> {
        let update = Expect::one(&TypeName::UPDATE_SERVICE);
        let Some(service) = self.follow(root, &["UpdateService"], update).await else {
            return Vec::new();
        };
        self.members(&service, "FirmwareInventory", &TypeName::SOFTWARE_INVENTORY)
            .await
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::sync::Mutex;

    use super::*;
    use driftgate_model::mockup_dir::MockupDir;

    /// A mockup that counts the GETs of each URI.
    struct Counting {
        inner: MockupDir,
        gets: Mutex<BTreeMap<String, usize>>,
    }

    impl Fetch for Counting {
        fn target(&self) -> String {
            self.inner.target()
        }

        async fn get_body(&self, uri: &str) -> Result<Vec<u8>, FetchError> {
            *self.gets.lock().unwrap().entry(uri.to_owned()).or_default() += 1;
            self.inner.get_body(uri).await
        }
    }

    #[tokio::test]
    async fn a_resource_linked_from_every_port_is_read_once_per_crawl() {
        let dir = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
            .join("examples/azure-local-dcbx/recorded/baseline/bmc");
        let counting = Counting {
            inner: MockupDir::open(&dir).unwrap(),
            gets: Mutex::new(BTreeMap::new()),
        };
        let crawl = crawl(
            &counting,
            4,
            false,
            Registries::Judged(&KnownRegistries::default()),
        )
        .await;
        assert!(crawl.errors.is_empty(), "{:?}", crawl.errors);
        let gets = counting.gets.into_inner().unwrap();
        // The BIOS and every port's NIC attributes name their registry through `Registries`.
        assert_eq!(gets.get("/redfish/v1/Registries"), Some(&1), "{gets:?}");
        let repeated: Vec<_> = gets.iter().filter(|(_, n)| **n > 1).collect();
        assert!(repeated.is_empty(), "read more than once: {repeated:?}");
    }

    #[tokio::test]
    async fn a_root_read_before_the_crawl_is_not_read_again_unless_it_names_no_systems() {
        let dir = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
            .join("examples/azure-local-dcbx/recorded/baseline/bmc");
        let mockup = MockupDir::open(&dir).unwrap();
        let root = mockup.get_body(ROOT).await.unwrap();
        let mut hidden: Value = serde_json::from_slice(&root).unwrap();
        hidden.as_object_mut().unwrap().remove("Systems");
        let hidden = serde_json::to_vec(&hidden).unwrap();
        let judged = KnownRegistries::default();
        let mut crawls = Vec::new();
        // The root as read, one that hides its systems from who has not logged in, one that is
        // no resource, one cut short, and none.
        let cut = &root[..root.len() / 2];
        for given in [
            Some(&root[..]),
            Some(&hidden[..]),
            Some(&b"[1]"[..]),
            Some(cut),
            None,
        ] {
            let counting = Counting {
                inner: MockupDir::open(&dir).unwrap(),
                gets: Mutex::new(BTreeMap::new()),
            };
            let crawl = crawl_from(&counting, 4, true, Registries::Judged(&judged), given).await;
            assert!(crawl.errors.is_empty(), "{:?}", crawl.errors);
            let gets = counting.gets.into_inner().unwrap();
            crawls.push((gets.get(ROOT).copied(), gets.len(), crawl));
        }
        let (reads, uris): (Vec<_>, Vec<_>) = crawls.iter().map(|(r, n, _)| (*r, *n)).unzip();
        assert_eq!(reads, [None, Some(1), Some(1), Some(1), Some(1)]);
        assert_eq!(uris[0] + 1, uris[4]);
        // The same inventory and the same saved root either way.
        let whole = &crawls[4].2;
        for (_, _, crawl) in &crawls {
            assert_eq!(
                format!("{:?}", crawl.inventory),
                format!("{:?}", whole.inventory)
            );
            assert_eq!(crawl.fetched, whole.fetched);
        }
    }

    fn fixture(name: &str) -> std::path::PathBuf {
        std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
            .join("tests/fixtures/redfish")
            .join(name)
    }

    async fn counted(name: &str) -> (Crawl, BTreeMap<String, usize>) {
        let counting = Counting {
            inner: MockupDir::open(&fixture(name)).unwrap(),
            gets: Mutex::new(BTreeMap::new()),
        };
        let crawl = crawl(
            &counting,
            4,
            false,
            Registries::Judged(&KnownRegistries::default()),
        )
        .await;
        (crawl, counting.gets.into_inner().unwrap())
    }

    #[tokio::test]
    async fn only_the_pcie_resources_a_firmware_link_needs_are_read_each_once() {
        let (crawl, gets) = counted("pcie-linked-firmware").await;
        assert!(crawl.errors.is_empty(), "{:?}", crawl.errors);
        let pcie: Vec<&str> = gets
            .keys()
            .map(String::as_str)
            .filter(|uri| uri.contains("PCIe"))
            .collect();
        assert_eq!(
            pcie,
            [
                // Linked from NIC1's controller and NIC4's.
                "/redfish/v1/Chassis/1/PCIeDevices/NIC1",
                // NIC2's function's PCIe function, and its device.
                "/redfish/v1/Chassis/1/PCIeDevices/NIC2",
                "/redfish/v1/Chassis/1/PCIeDevices/NIC2/PCIeFunctions/1",
                "/redfish/v1/Chassis/1/PCIeDevices/NIC4",
                // Named only by an inventory entry: its functions lead back to NIC3.
                "/redfish/v1/Systems/1/PCIeDevices/NIC3",
                "/redfish/v1/Systems/1/PCIeDevices/NIC3/PCIeFunctions/0",
            ],
            "never a whole PCIeDevices collection"
        );
        assert!(gets.values().all(|n| *n == 1), "{gets:?}");
        assert_eq!(crawl.inventory.unwrap().pcie.len(), 6);
    }

    #[tokio::test]
    async fn hpe_base_network_adapters_are_read_from_the_systems_oem_link() {
        let (crawl, gets) = counted("hpe-ilo5-base-network-adapters").await;
        assert!(crawl.errors.is_empty(), "{:?}", crawl.errors);
        let inventory = crawl.inventory.unwrap();
        assert_eq!(inventory.systems[0].vendor_adapters.len(), 2);
        assert!(gets.contains_key("/redfish/v1/Systems/1/BaseNetworkAdapters/"));
        // Another vendor's service is not asked for them.
        let (crawl, gets) = counted("pcie-linked-firmware").await;
        assert!(
            crawl.inventory.unwrap().systems[0]
                .vendor_adapters
                .is_empty()
        );
        assert!(!gets.keys().any(|uri| uri.contains("BaseNetworkAdapters")));
    }
}
