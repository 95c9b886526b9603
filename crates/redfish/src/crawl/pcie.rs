//! The PCIe resources that tie a NIC to its firmware, and only those.
//!
//! Real BMCs relate a NIC's firmware inventory entry to the NIC's PCIe device or function
//! (`RelatedItem` → `…/PCIeDevices/<id>` or `…/PCIeFunctions/<id>`) more often than to its
//! `NetworkAdapter`, and a PCIe device may carry the NIC's `FirmwareVersion` itself. The
//! adapter names its devices in `Controllers[].Links.PCIeDevices` (and `Links.PCIeDevices`),
//! each network device function its PCIe function in `Links.PCIeFunction`; a PCIe function
//! names its device (`Links.PCIeDevice`) and its network device functions
//! (`Links.NetworkDeviceFunctions`). Shapes: NetworkAdapter.v1, NetworkDeviceFunction.v1,
//! PCIeDevice.v1, PCIeFunction.v1 (DMTF DSP8010; the OCP Ethernet NIC profile's examples).
//!
//! Read are: the devices and functions the adapters and their functions link, the devices and
//! functions inventory entries relate to, the device of each function read, and the functions
//! of a device only an inventory entry names (the way back to the adapter is then its
//! functions' `Links.NetworkDeviceFunctions`). Devices live under `Chassis/<id>/PCIeDevices`
//! or, in older generations, `Systems/<id>/PCIeDevices`: either is read where it is linked.
//! Never a whole `PCIeDevices` collection: a server lists dozens of devices that are no NIC.

use std::collections::{BTreeMap, BTreeSet};

use futures::future::join_all;
use serde_json::Value;

use super::crawler::{Crawler, link_name};
use crate::fetch::Fetch;
use crate::links::{lenient_targets, uri_key};
use crate::odata_type::{Expect, TypeName};

/// What a URI names in the PCIe model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum PcieKind {
    /// `…/PCIeDevices/<id>`.
    Device,
    /// `…/PCIeDevices/<id>/PCIeFunctions/<id>`.
    Function,
}

/// Whether `uri` names a PCIe device or function by its place in the model (segment names
/// compared without regard to case: iLO spells URIs in lower case in places).
pub(super) fn pcie_kind(uri: &str) -> Option<PcieKind> {
    let segments: Vec<&str> = uri
        .split('#')
        .next()
        .unwrap_or(uri)
        .trim_end_matches('/')
        .split('/')
        .collect();
    match segments.as_slice() {
        [.., collection, id] if !id.is_empty() => {
            if collection.eq_ignore_ascii_case("PCIeFunctions") {
                Some(PcieKind::Function)
            } else if collection.eq_ignore_ascii_case("PCIeDevices") {
                Some(PcieKind::Device)
            } else {
                None
            }
        }
        _ => None,
    }
}

/// At most this many PCIe resources are read per BMC: a server's NICs have a few each, and a
/// BMC that links thousands (hostile, or broken) must not turn a capture into a scan.
const MAX_PCIE: usize = 128;

/// PCIe resources to read: URI → (what it is, which link named it first, for messages).
#[derive(Default)]
struct Wanted {
    by_key: BTreeMap<String, (String, PcieKind, String)>,
    /// How many were wanted in all, those already read included.
    count: usize,
    /// How many links were not followed because [`MAX_PCIE`] were already wanted.
    refused: usize,
}

impl Wanted {
    /// `uri`, named by `via`, unless already wanted or [`MAX_PCIE`] are.
    fn add(&mut self, uri: &str, kind: PcieKind, via: impl FnOnce() -> String) {
        let uri = uri.split('#').next().unwrap_or(uri).trim_end_matches('/');
        let key = key_of(uri);
        if self.by_key.contains_key(&key) {
            return;
        }
        if self.count >= MAX_PCIE {
            self.refused += 1;
            return;
        }
        self.count += 1;
        self.by_key.insert(key, (uri.to_owned(), kind, via()));
    }
}

/// The PCIe links of the adapters and inventory entries a crawl read, taken as each is read
/// (their values are then held as text), in the order the crawl lists them.
#[derive(Default)]
pub(super) struct PcieLinks {
    /// Each link: its URI, what it names, and the link as the resource gives it (for messages).
    links: Vec<(String, PcieKind, String)>,
    /// The devices the adapters link, by key.
    from_adapters: BTreeSet<String>,
    /// The devices inventory entries relate to, by key.
    from_inventory: BTreeSet<String>,
}

impl PcieLinks {
    /// `other`'s links after these.
    pub(super) fn extend(&mut self, other: PcieLinks) {
        self.links.extend(other.links);
        self.from_adapters.extend(other.from_adapters);
        self.from_inventory.extend(other.from_inventory);
    }

    /// The resources of `each`, and their links, in their order.
    pub(super) fn gather<T>(each: Vec<(T, PcieLinks)>) -> (Vec<T>, PcieLinks) {
        let mut links = PcieLinks::default();
        let resources = each
            .into_iter()
            .map(|(resource, theirs)| {
                links.extend(theirs);
                resource
            })
            .collect();
        (resources, links)
    }
}

impl<F: Fetch> Crawler<'_, F> {
    /// The links to PCIe devices of the adapter `resource`.
    pub(super) fn adapter_pcie_links(&self, resource: &Value) -> PcieLinks {
        let mut into = PcieLinks::default();
        let controllers = resource["Controllers"].as_array().map_or(0, Vec::len);
        for index in 0..controllers {
            let index = index.to_string();
            let path = ["Controllers", index.as_str(), "Links", "PCIeDevices"];
            for uri in self.links(resource, &path) {
                into.from_adapters.insert(key_of(uri));
                into.links
                    .push((uri.to_owned(), PcieKind::Device, link_of(resource, &path)));
            }
        }
        let path = ["Links", "PCIeDevices"];
        for uri in self.links(resource, &path) {
            into.from_adapters.insert(key_of(uri));
            into.links
                .push((uri.to_owned(), PcieKind::Device, link_of(resource, &path)));
        }
        into
    }

    /// The link to its PCIe function of the network device function `function`.
    pub(super) fn function_pcie_links(&self, function: &Value) -> PcieLinks {
        let path = ["Links", "PCIeFunction"];
        PcieLinks {
            links: self
                .link(function, &path)
                .map(|uri| (uri.to_owned(), PcieKind::Function, link_of(function, &path)))
                .into_iter()
                .collect(),
            ..PcieLinks::default()
        }
    }

    /// The links to PCIe devices and functions of the inventory entries `firmware`, their
    /// `RelatedItem` read leniently (a URI string for a link, as Cisco CIMC 4.1 writes it): the
    /// shape of a `RelatedItem` is judged by normalization, by what its links would tie
    /// (`normalize::firmware`), which reads it the same way.
    pub(super) fn firmware_pcie_links(&self, firmware: &[Value]) -> PcieLinks {
        let mut into = PcieLinks::default();
        for item in firmware {
            let related = item.get("RelatedItem").unwrap_or(&Value::Null);
            for uri in lenient_targets(related).unwrap_or_default() {
                let uri = uri.split('#').next().unwrap_or(uri);
                if let Some(kind) = pcie_kind(uri) {
                    if kind == PcieKind::Device {
                        into.from_inventory.insert(key_of(uri));
                    }
                    into.links
                        .push((uri.to_owned(), kind, link_of(item, &["RelatedItem"])));
                }
            }
        }
        into
    }

    /// The PCIe devices and functions the firmware links `links` of the adapters and
    /// inventory entries need (see the module's documentation), each read once, at most
    /// [`MAX_PCIE`]; and a note when more were linked.
    pub(super) async fn pcie(&self, links: PcieLinks) -> (Vec<Value>, Vec<String>) {
        let mut wanted = Wanted::default();
        let PcieLinks {
            links,
            from_adapters,
            // Devices named only by an inventory entry: their functions lead back to an adapter.
            from_inventory,
        } = links;
        for (uri, kind, via) in links {
            wanted.add(&uri, kind, || via);
        }
        let mut read: BTreeMap<String, Value> = BTreeMap::new();
        let first = self
            .read_wanted(std::mem::take(&mut wanted.by_key), &read)
            .await;
        read.extend(first);
        // The device of each function read, and the functions of a device only the
        // inventory names.
        for resource in read.values() {
            if let Some(uri) = self.link(resource, &["Links", "PCIeDevice"]) {
                wanted.add(uri, PcieKind::Device, || {
                    link_of(resource, &["Links", "PCIeDevice"])
                });
            }
        }
        let devices: Vec<Value> = from_inventory
            .iter()
            .filter(|key| !from_adapters.contains(*key))
            .filter_map(|key| read.get(key).cloned())
            .collect();
        let listed = join_all(devices.iter().map(|device| async move {
            let members = if device["PCIeFunctions"].is_object() {
                self.members(device, "PCIeFunctions", &TypeName::PCIE_FUNCTION)
                    .await
            } else {
                Vec::new()
            };
            (device, members)
        }))
        .await;
        for (device, members) in listed {
            for function in members {
                if let Some(uri) = function["@odata.id"].as_str() {
                    read.entry(key_of(uri)).or_insert(function);
                }
            }
            // Older generations list them in `Links.PCIeFunctions` instead.
            for uri in self.links(device, &["Links", "PCIeFunctions"]) {
                wanted.add(uri, PcieKind::Function, || {
                    link_of(device, &["Links", "PCIeFunctions"])
                });
            }
        }
        let second = self
            .read_wanted(std::mem::take(&mut wanted.by_key), &read)
            .await;
        read.extend(second);
        let notes = (wanted.refused > 0)
            .then(|| {
                format!(
                    "{} more PCIe links (of adapters, functions and firmware inventory entries) \
                     were not followed: {MAX_PCIE} PCIe resources are read at most; a port they \
                     would tie to its firmware says the BMC links none",
                    wanted.refused
                )
            })
            .into_iter()
            .collect();
        (read.into_values().collect(), notes)
    }

    /// Reads each of `wanted` not in `read` yet, as the type its place promises.
    async fn read_wanted(
        &self,
        wanted: BTreeMap<String, (String, PcieKind, String)>,
        read: &BTreeMap<String, Value>,
    ) -> Vec<(String, Value)> {
        let todo: Vec<(String, (String, PcieKind, String))> = wanted
            .into_iter()
            .filter(|(key, _)| !read.contains_key(key))
            .collect();
        join_all(todo.into_iter().map(|(key, (uri, kind, via))| async move {
            let resource = self.get(&uri).await?;
            let expect = match kind {
                PcieKind::Device => Expect::one(&TypeName::PCIE_DEVICE),
                PcieKind::Function => Expect::one(&TypeName::PCIE_FUNCTION),
            };
            self.is_typed(&uri, &resource, expect, || via)
                .then_some((key, resource))
        }))
        .await
        .into_iter()
        .flatten()
        .collect()
    }
}

/// What identifies a resource among those read (iLO links one resource in two spellings).
fn key_of(uri: &str) -> String {
    uri_key(uri)
}

/// The link at `path` of `resource`, for messages.
fn link_of(resource: &Value, path: &[&str]) -> String {
    link_name(resource, path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pcie_uri_says_what_it_names() {
        for (uri, kind) in [
            (
                "/redfish/v1/Chassis/1/PCIeDevices/NIC1",
                Some(PcieKind::Device),
            ),
            (
                "/redfish/v1/Chassis/1/PCIeDevices/NIC1/",
                Some(PcieKind::Device),
            ),
            (
                "/redfish/v1/Systems/1/PCIeDevices/3-0",
                Some(PcieKind::Device),
            ),
            (
                "/redfish/v1/systems/1/pciedevices/3-0",
                Some(PcieKind::Device),
            ),
            (
                "/redfish/v1/Chassis/1/PCIeDevices/NIC1/PCIeFunctions/0",
                Some(PcieKind::Function),
            ),
            (
                "/redfish/v1/Chassis/1/PCIeDevices/NIC1/PCIeFunctions/0#/Oem",
                Some(PcieKind::Function),
            ),
            ("/redfish/v1/Chassis/1/PCIeDevices", None),
            ("/redfish/v1/Chassis/1/PCIeDevices/NIC1/PCIeFunctions", None),
            ("/redfish/v1/Chassis/1/NetworkAdapters/NIC1", None),
            ("", None),
        ] {
            assert_eq!(pcie_kind(uri), kind, "{uri}");
        }
    }
}
