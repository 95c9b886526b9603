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
//! PCIe resources the firmware links need, `compact_resource.rs` what is kept of a resource once the links
//! it gives are taken (its text, parsed again when its host is normalized).

mod collections;
mod compact_resource;
mod crawler;
mod inventory;
mod pcie;
mod registry;

use std::collections::BTreeMap;
use std::sync::atomic::Ordering;

use futures::future::join_all;
use serde_json::Value;
use tokio::sync::Semaphore;

use super::fetch::{Fetch, FetchError};
use super::odata_type::{Expect, TypeName};
use super::vendors::{self, Vendor};
pub use compact_resource::Held;
pub use crawler::Registries;
use crawler::{Crawler, Link};
pub use inventory::{AdapterInventory, ChassisOf, FunctionInventory, Inventory, SystemInventory};
use pcie::PcieLinks;

/// URI of the service root.
pub const ROOT: &str = "/redfish/v1";

/// The result of a crawl.
#[derive(Debug, Clone, Default)]
pub struct Crawl {
    /// What was found, held as text; `None` when the service root could not be read.
    pub inventory: Option<Inventory<Held>>,
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
    crawl_with(fetch, limit, keep, registries, root, true).await
}

/// [`crawl`] for a write (`fix`): every registry whole, and no `$expand`, so that each
/// resource is read from its own URI and a write is aimed from that, never from the
/// `@odata.id` a member inline in a collection claims.
pub async fn crawl_for_writes<F: Fetch>(fetch: &F, limit: usize) -> Crawl {
    crawl_with(fetch, limit, false, Registries::Whole, None, false).await
}

async fn crawl_with<F: Fetch>(
    fetch: &F,
    limit: usize,
    keep: bool,
    registries: Registries<'_>,
    root: Option<&[u8]>,
    expand_allowed: bool,
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
            let expand = expand_allowed && expand_supported(&root);
            crawler.expand.store(expand, Ordering::Relaxed);
            // The PCIe resources only help name a port's firmware: what goes wrong reading them
            // (a stale `RelatedItem`, a device of another type) is said, and makes no fact
            // unread, so a side crawl of its own keeps its failures apart from the capture's.
            let side = Crawler::new(fetch, keep, registries, &permits, expand);
            // Each resource is held as text once the crawl has followed its links, those to the
            // PCIe resources taken first.
            let (systems, (adapters, firmware, pcie)) =
                futures::join!(crawler.systems(&root), async {
                    let (adapters, (firmware, firmware_links)) = futures::join!(
                        crawler.adapters(&root, &side),
                        crawler.firmware(&root, &side)
                    );
                    let (adapters, mut links) = PcieLinks::gather(adapters);
                    links.extend(firmware_links);
                    (adapters, firmware, side.pcie(links).await)
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
                root: Held::new(root),
                systems,
                adapters,
                firmware,
                pcie: Held::all(pcie),
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

/// Where a resource links the `@Redfish.Settings` object that stages its pending values.
const SETTINGS: &[&str] = &["@Redfish.Settings", "SettingsObject"];

// Each step takes the links it follows from a resource, then holds the resource as text
// while they are read: the reads of a slow BMC last seconds.
impl<F: Fetch> Crawler<'_, F> {
    /// `Systems`: each computer system with its interfaces and BIOS.
    async fn systems(&self, root: &Value) -> Vec<SystemInventory<Held>> {
        let systems = self
            .members_read_at(self.link_at(root, &["Systems"]), &TypeName::COMPUTER_SYSTEM)
            .await;
        join_all(
            systems
                .into_iter()
                .map(|(uri, system)| self.system(root, uri, system)),
        )
        .await
    }

    /// One system read from `uri`: its `EthernetInterfaces`, its `Bios` with the pending
    /// settings and registry.
    async fn system(
        &self,
        root: &Value,
        uri: Option<String>,
        system: Value,
    ) -> SystemInventory<Held> {
        let interfaces = self.link_at(&system, &["EthernetInterfaces"]);
        let bios = self.link_at(&system, &["Bios"]);
        let bios_link = bios.as_ref().map(|link| link.uri.clone());
        // Which vendor collection to follow is the vendor module's knowledge.
        let vendor_adapters = vendors::system_adapters(Vendor::detect(root))
            .and_then(|oem| Some((self.link_at(&system, oem.link)?, oem.member)));
        let system = Held::new(system);
        let interfaces = self
            .members_of(interfaces, &TypeName::ETHERNET_INTERFACE)
            .await;
        let interfaces = Held::all(interfaces);
        let bios = self.follow(bios, Expect::one(&TypeName::BIOS)).await;
        let bios_links = bios.map(|bios| {
            (
                self.link_at(&bios, SETTINGS),
                registry_name(&bios),
                Held::new(bios),
            )
        });
        let bios_uri = bios_links.as_ref().and(bios_link);
        let ((bios, bios_pending, bios_registry), vendor_adapters) = futures::join!(
            async {
                match bios_links {
                    Some((pending, registry, bios)) => {
                        let (pending, registry) = futures::join!(
                            self.follow_held(pending, Expect::one(&TypeName::BIOS)),
                            self.registry(root, registry.as_deref())
                        );
                        (Some(bios), pending, registry)
                    }
                    None => (None, None, None),
                }
            },
            async {
                match vendor_adapters {
                    Some((link, member)) => Held::all(self.members_of(Some(link), member).await),
                    None => Vec::new(),
                }
            }
        );
        SystemInventory {
            system,
            uri,
            interfaces,
            bios,
            bios_uri,
            bios_pending,
            bios_registry,
            vendor_adapters,
        }
    }

    /// `Chassis` → `NetworkAdapters`: each adapter of each chassis, with the PCIe links the
    /// `side` crawl takes of it.
    async fn adapters(
        &self,
        root: &Value,
        side: &Crawler<'_, F>,
    ) -> Vec<(AdapterInventory<Held>, PcieLinks)> {
        let chassis: Vec<(ChassisOf, Option<Link>)> = self
            .members_read_at(self.link_at(root, &["Chassis"]), &TypeName::CHASSIS)
            .await
            .iter()
            .map(|(uri, chassis)| {
                let of = ChassisOf {
                    uri: uri.clone(),
                    systems: linked(chassis, "ComputerSystems"),
                };
                (of, self.link_at(chassis, &["NetworkAdapters"]))
            })
            .collect();
        let per_chassis = join_all(chassis.into_iter().map(|(of, adapters)| async move {
            let adapters = self.members_of(adapters, &TypeName::NETWORK_ADAPTER).await;
            adapters
                .into_iter()
                .map(move |adapter| (of.clone(), adapter))
        }))
        .await;
        join_all(
            per_chassis
                .into_iter()
                .flatten()
                .map(|(of, adapter)| self.adapter(root, of, adapter, side)),
        )
        .await
    }

    /// One adapter: its ports (both schemas), functions and the settings pending on each; and
    /// the PCIe links the `side` crawl takes of it and its functions.
    async fn adapter(
        &self,
        root: &Value,
        chassis: ChassisOf,
        adapter: Value,
        side: &Crawler<'_, F>,
    ) -> (AdapterInventory<Held>, PcieLinks) {
        let pending = self.link_at(&adapter, SETTINGS);
        let ports = self.link_at(&adapter, &["Ports"]);
        let network_ports = self.link_at(&adapter, &["NetworkPorts"]);
        let functions = self.link_at(&adapter, &["NetworkDeviceFunctions"]);
        let mut links = side.adapter_pcie_links(&adapter);
        let adapter = Held::new(adapter);
        let (adapter_pending, ports, network_ports, functions) = futures::join!(
            self.follow_held(pending, Expect::one(&TypeName::NETWORK_ADAPTER)),
            self.members_of(ports, &TypeName::PORT),
            self.members_of(network_ports, &TypeName::NETWORK_PORT),
            self.members_of(functions, &TypeName::NETWORK_DEVICE_FUNCTION)
        );
        let port_settings: Vec<(Option<String>, Option<Link>, &TypeName)> = ports
            .iter()
            .map(|port| (port, &TypeName::PORT))
            .chain(
                network_ports
                    .iter()
                    .map(|port| (port, &TypeName::NETWORK_PORT)),
            )
            .map(|(port, kind)| {
                let id = port["@odata.id"]
                    .as_str()
                    .map(|id| id.trim_end_matches('/').to_owned());
                (id, self.link_at(port, SETTINGS), kind)
            })
            .collect();
        let (ports, network_ports) = (Held::all(ports), Held::all(network_ports));
        let (functions, port_pending) = futures::join!(
            join_all(
                functions
                    .into_iter()
                    .map(|function| self.function(root, function, side)),
            ),
            join_all(
                port_settings
                    .into_iter()
                    .map(|(id, link, kind)| async move {
                        let pending = self.follow_held(link, Expect::one(kind)).await?;
                        Some((id?, pending))
                    })
            )
        );
        let (functions, function_links) = PcieLinks::gather(functions);
        links.extend(function_links);
        let adapter = AdapterInventory {
            adapter,
            chassis,
            adapter_pending,
            ports,
            network_ports,
            port_pending: port_pending.into_iter().flatten().collect(),
            functions,
        };
        (adapter, links)
    }

    /// One function, with the vendor's NIC attribute resource where its module names one; and
    /// the PCIe link the `side` crawl takes of it.
    async fn function(
        &self,
        root: &Value,
        function: Value,
        side: &Crawler<'_, F>,
    ) -> (FunctionInventory<Held>, PcieLinks) {
        // Which OEM attribute resource to follow is the vendor module's knowledge.
        let oem = vendors::function_attributes(Vendor::detect(root));
        let attributes = oem.and_then(|oem| self.link_at(&function, oem.link));
        let attributes_link = attributes.as_ref().map(|link| link.uri.clone());
        let pending = self.link_at(&function, SETTINGS);
        let links = side.function_pcie_links(&function);
        let function = Held::function(function);
        let oem_attributes = match oem {
            Some(oem) => self.follow(attributes, Expect::OneOf(oem.types)).await,
            None => None,
        };
        let oem_links = oem_attributes.as_ref().map(|attributes| {
            (
                self.link_at(attributes, SETTINGS),
                registry_name(attributes),
            )
        });
        let oem_attributes_uri = oem_attributes.as_ref().and(attributes_link);
        let oem_attributes = oem_attributes.map(Held::new);
        let ((oem_pending, oem_registry), pending) = futures::join!(
            async {
                match (oem_links, oem) {
                    (Some((pending, registry)), Some(oem)) => futures::join!(
                        self.follow_held(pending, Expect::OneOf(oem.types)),
                        self.registry(root, registry.as_deref())
                    ),
                    _ => (None, None),
                }
            },
            self.follow_held(pending, Expect::one(&TypeName::NETWORK_DEVICE_FUNCTION))
        );
        let function = FunctionInventory {
            function,
            pending,
            oem_attributes,
            oem_attributes_uri,
            oem_pending,
            oem_registry,
        };
        (function, links)
    }

    /// `UpdateService/FirmwareInventory`, with the PCIe links the `side` crawl takes of it.
    async fn firmware(&self, root: &Value, side: &Crawler<'_, F>) -> (Vec<Held>, PcieLinks) {
        let update = Expect::one(&TypeName::UPDATE_SERVICE);
        let service = self.link_at(root, &["UpdateService"]);
        let Some(service) = self.follow(service, update).await else {
            return (Vec::new(), PcieLinks::default());
        };
        let firmware = self
            .members(&service, "FirmwareInventory", &TypeName::SOFTWARE_INVENTORY)
            .await;
        let links = side.firmware_pcie_links(&firmware);
        (firmware.into_iter().map(Held::firmware).collect(), links)
    }

    /// [`Crawler::follow`], held as it arrives: a resource read beside a slower one (a
    /// registry) would otherwise wait for it as a value, several times the size of its text.
    async fn follow_held(&self, link: Option<Link>, expect: Expect) -> Option<Held> {
        self.follow(link, expect).await.map(Held::new)
    }
}

/// The targets of `resource`'s `Links.<name>` array, those that are links: what a reset's
/// owner is found by, never followed.
pub(crate) fn linked(resource: &Value, name: &str) -> Vec<String> {
    resource["Links"][name]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|item| super::links::link_target(item).map(str::to_owned))
        .collect()
}

/// The attribute registry `resource` names (`AttributeRegistry`).
fn registry_name(resource: &Value) -> Option<String> {
    resource["AttributeRegistry"].as_str().map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::sync::Mutex;

    use crate::attributes::KnownRegistries;

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
