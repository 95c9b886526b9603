//! The firmware inventory → `firmware/<component>/version`, and which component belongs to
//! which network adapter.
//!
//! `<component>` is the component's identity, never its position in the inventory, per
//! vendor:
//!
//! - **Dell iDRAC**: ids embed the version (`Installed-108089-21.80.16.95__NIC.Integrated.1-1-1`),
//!   so the component is the FQDD after `__`, lower-cased (`nic.integrated.1-1-1`).
//!   `Installed-` is what runs and wins over `Current-`; `Previous-` is history, not state.
//! - **HPE iLO 5/6** (and any service whose member `Id` is a bare number,
//!   `FirmwareInventory/16`): the number is a position that changes when the BMC
//!   renumbers, so the component is `<Name>@<context>`, lower-cased, the context being
//!   `Oem.Hpe.DeviceContext` (`"Slot 1"`), else the standard `Location.PartLocation.ServiceLabel`,
//!   else `SoftwareId`: `mellanox_connectx-6_dx@slot_1`. A member with neither name nor
//!   context is keyed by the last segment of its `@odata.id` when that is not a number, else
//!   `firmware-<position>` with a note saying so. Two members that still read the same
//!   (identical cards with no context) get `-2`, `-3`… in the order of their `SoftwareId`,
//!   `@odata.id` and position — never their version, so a firmware update of one card does
//!   not swap their keys. What remains: if the BMC renumbers two such members, their keys
//!   can swap; the capture says so in a note when members alike in `SoftwareId` too are
//!   told apart by their URIs alone.
//! - **Everything else** (Lenovo XCC `BMC-Primary`, `UEFI`, `Slot_1.Bundle`; DMTF `BMC`,
//!   `BIOS`): the `Id`, lower-cased.
//!
//! Members whose `Status.State` is `Absent` or `Disabled` describe an empty slot or a
//! switched-off device (iLO answers `"Version": "-*"` for them): they are not firmware that
//! runs, and are skipped. So are members without a version, and members whose version is a
//! placeholder (`"N/A"`, `"nil"`: [`driftgate_model::placeholder`]; counted for the capture's note).
//!
//! Two members that claim one component (other than Dell's `Current-`/`Installed-` pair of
//! one FQDD) are a problem naming both: one version would hide the other.
//!
//! An inventory member belongs to an adapter by the surest of three tiers: (1) its
//! `RelatedItem` links to the adapter or something below it (its ports or functions; a
//! fragment such as `…/NetworkAdapters/NIC1#/Controllers/0` names a part of the adapter), to
//! a PCIe device or function the adapter owns (`super::pcie`: the devices its controllers
//! link, the PCIe functions of its network device functions, both ways), or to the adapter's
//! own `Assembly`, or its Dell FQDD names the adapter (`NIC.Slot.3-1-1` ↔ adapter
//! `NIC.Slot.3`); (2) both name the
//! same slot (HPE `Oem.Hpe.DeviceContext` `Slot 1` ↔ the adapter's
//! `Location.PartLocation.ServiceLabel` `PCI-E Slot 1` or its `LocationOrdinalValue` in a
//! `Slot`; Lenovo's `Slot_1.…` ids ↔ adapter `slot-1`) or the same location label
//! (`Embedded LOM`, `OCP 3.0 Slot A`; the vendor's own naming: Cisco's `…-slot-MLOM` ↔ a
//! controller's `SlotID:MLOM`, `vendors::names_adapter_firmware`); (3) its `RelatedItem` links to the adapter's chassis,
//! when that chassis holds only that adapter (a CPLD or board firmware is tied to the chassis
//! too, so this is the last resort). Within a tier the first component by name wins. A member
//! whose `RelatedItem` names a Manager runs the BMC and is never a NIC's; one that names a
//! ComputerSystem runs the host and counts only when it names the adapter too and no surer
//! member does (after tier 2). A member whose `RelatedItem` names one network device function
//! (or what that function owns through PCIe) is that function's, and so its port's, before
//! the adapter's. A `RelatedItem` of the wrong shape ties nothing; whether a port's firmware
//! then cannot be told is judged in [`related`].
//!
//! A port's firmware version, beside the inventory component: `Controllers[].FirmwarePackageVersion`
//! (read with the port), else the `FirmwareVersion` of its PCIe device, else the version the
//! vendor's own list of the system's adapters gives its MAC (HPE iLO 5 `BaseNetworkAdapters`).

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use super::normalized::Normalized;
use super::pcie::PcieLinks;
use super::properties::id_of;
use crate::crawl::{AdapterInventory, SystemInventory};
use crate::links::uri_key;
use crate::vendors::{self, Vendor};
use driftgate_model::MacAddr;
use driftgate_model::placeholder::{self, Placeholders};
use driftgate_snapshot::{FactPath, path_segment};
use ties::{Entry, Tier, ties};

/// `firmware/<component>/version` for each running component (see the module's doc for the
/// identity per vendor), and which component belongs to which adapter. Two members that
/// claim one component (other than Dell's `Current-`/`Installed-` pair of one FQDD) are a
/// problem naming both; a component keyed by its inventory position is a note.
pub(super) fn firmware_facts(
    firmware: &[Value],
    adapters: &[AdapterInventory],
    (pcie, systems, vendor): (&[Value], &[SystemInventory], Vendor),
    out: &mut Normalized,
) -> FirmwareLinks {
    let mut entries = entries(firmware, &mut out.notes, &mut out.placeholders);
    // Installed entries last, so they overwrite Current ones of the same component; then by
    // `Id`, so which of two colliding members is kept does not depend on the listing order.
    entries.sort_by(|a, b| {
        (&a.component, a.installed, id_of(a.item)).cmp(&(&b.component, b.installed, id_of(b.item)))
    });
    for same in entries.chunk_by(|a, b| a.component == b.component) {
        if let Some(problem) = collision(same) {
            out.problems.push(problem);
        }
        for entry in same {
            let path = FactPath::new(format!("firmware/{}/version", entry.component))
                .expect("components are sanitized segments");
            out.facts.insert(path, entry.version.into());
        }
    }
    let pcie = PcieLinks::new(adapters, pcie, &mut out.placeholders);
    let doubts = related::judge(firmware, &entries, adapters, &pcie, vendor, &mut out.notes);
    let mut links = link_adapters(&entries, adapters, pcie, vendor);
    links.doubts = doubts;
    links.by_mac = vendor_versions(systems, vendor, &mut out.placeholders);
    links
}

/// The NIC firmware version the vendor's own list of the system's adapters gives each port
/// MAC (HPE iLO 5 `BaseNetworkAdapters`); the first adapter listing a MAC wins.
fn vendor_versions(
    systems: &[SystemInventory],
    vendor: Vendor,
    placeholders: &mut Placeholders,
) -> BTreeMap<MacAddr, String> {
    let mut by_mac = BTreeMap::new();
    for adapter in systems.iter().flat_map(|system| &system.vendor_adapters) {
        let Some(firmware) = vendors::system_adapter_firmware(vendor, adapter) else {
            continue;
        };
        let Some(version) = firmware.version else {
            let uri = adapter["@odata.id"]
                .as_str()
                .unwrap_or("BaseNetworkAdapters");
            placeholders.saw(uri, firmware.property);
            continue;
        };
        for mac in firmware.macs {
            by_mac.entry(mac).or_insert_with(|| version.to_owned());
        }
    }
    by_mac
}

/// The problem of members that claim one component: anything but Dell's pair of one
/// `Current-` and one `Installed-` entry of the same FQDD (where `Installed-` wins), since
/// one member's version would hide the other's.
fn collision(same: &[Entry<'_>]) -> Option<String> {
    let ids: Vec<String> = same.iter().map(|e| id_of(e.item)).collect();
    let dell_pair = same.len() == 2
        && ids[0].starts_with("Current-")
        && ids[1].starts_with("Installed-")
        && ids.iter().all(|id| id.contains("__"));
    if same.len() < 2 || dell_pair {
        return None;
    }
    let members: Vec<String> = same
        .iter()
        .map(|e| {
            let uri = e.item["@odata.id"].as_str().unwrap_or("FirmwareInventory");
            format!("{uri} (Id {:?}, Version {:?})", id_of(e.item), e.version)
        })
        .collect();
    Some(format!(
        "firmware inventory members {} all read as component `{}`: only the last one's version \
         is kept, the others' are hidden",
        members.join(", "),
        same[0].component
    ))
}

/// A numbered member whose identity is not yet de-duplicated.
struct Numbered<'a> {
    /// What orders identical members: values that do not change with the version.
    order: (String, String, u64),
    version: &'a str,
    item: &'a Value,
}

/// The identity of a member numbered by `position` (its `Id`, `id`): its name, its device
/// context, both, or its URI's last word; its position, with a note, when it has none of them.
fn numbered_identity(item: &Value, id: &str, position: u64, notes: &mut Vec<String>) -> String {
    let context = context_of(item).unwrap_or_default();
    let name = item["Name"].as_str().map(str::trim).unwrap_or("");
    let uri = item["@odata.id"].as_str().unwrap_or("");
    match (name.is_empty(), context.is_empty()) {
        (true, true) => uri_name(uri).map_or_else(
            || {
                notes.push(format!(
                    "{}: firmware inventory member {id:?} has no Name, device context, \
                     location or SoftwareId, and its URI ends in a number: it is keyed \
                     by its position, `firmware-{position}`, which changes if the BMC \
                     renumbers its inventory",
                    if uri.is_empty() {
                        "FirmwareInventory"
                    } else {
                        uri
                    }
                ));
                format!("firmware-{position}")
            },
            str::to_owned,
        ),
        (true, false) => context,
        (false, true) => name.to_owned(),
        (false, false) => format!("{name}@{context}"),
    }
}

/// Keys of the members alike in identity (`numbered`): numbered `-2`, `-3`… by `SoftwareId`,
/// `@odata.id` and position, never by version: a firmware update of one of two identical cards
/// changes its version, not its key. (What remains: when the BMC renumbers members that read
/// the same in everything else, their keys can swap.)
fn number_alike<'a>(
    numbered: BTreeMap<String, Vec<Numbered<'a>>>,
    entries: &mut Vec<Entry<'a>>,
    notes: &mut Vec<String>,
) {
    for (identity, mut same) in numbered {
        same.sort_by(|a, b| a.order.cmp(&b.order));
        // Alike in `SoftwareId` too, members are told apart by their URIs alone.
        if same
            .windows(2)
            .any(|pair| pair[0].order.0 == pair[1].order.0)
        {
            let uris: Vec<&str> = same.iter().map(|m| m.order.1.as_str()).collect();
            notes.push(format!(
                "firmware inventory members {} read the same (name, context and SoftwareId): \
                 keyed `{identity}`, `{identity}-2`… in the order of their URIs, which swaps if \
                 the BMC renumbers them",
                uris.join(", ")
            ));
        }
        for (index, member) in same.into_iter().enumerate() {
            let component = if index == 0 {
                identity.clone()
            } else {
                format!("{identity}-{}", index + 1)
            };
            entries.push(Entry {
                component,
                installed: false,
                version: member.version,
                item: member.item,
            });
        }
    }
}

/// The running members with their component identity, numbered ones de-duplicated; a note
/// for each keyed by nothing but its position.
fn entries<'a>(
    firmware: &'a [Value],
    notes: &mut Vec<String>,
    placeholders: &mut Placeholders,
) -> Vec<Entry<'a>> {
    let mut entries = Vec::new();
    // Numbered members, by identity, to de-duplicate them once all are known.
    let mut numbered: BTreeMap<String, Vec<Numbered<'a>>> = BTreeMap::new();
    for item in firmware {
        let state = item["Status"]["State"].as_str().unwrap_or("");
        if state.eq_ignore_ascii_case("absent") || state.eq_ignore_ascii_case("disabled") {
            continue;
        }
        let Some(version) = item["Version"].as_str() else {
            continue;
        };
        let Some(version) = placeholder::value(version) else {
            let uri = item["@odata.id"].as_str().unwrap_or("FirmwareInventory");
            placeholders.saw(uri, "Version");
            continue;
        };
        let id = id_of(item);
        // iDRAC's `Previous-` is what ran before, `Available-` an image uploaded but not
        // installed: neither is what runs.
        if id.starts_with("Previous-") || id.starts_with("Available-") {
            continue;
        }
        if let Some((_, fqdd)) = id.split_once("__") {
            entries.push(Entry {
                component: path_segment(&fqdd.to_ascii_lowercase()),
                installed: id.starts_with("Installed-"),
                version,
                item,
            });
        } else if let Ok(position) = id.parse::<u64>() {
            let uri = item["@odata.id"].as_str().unwrap_or("");
            let identity = numbered_identity(item, &id, position, notes);
            let software_id = item["SoftwareId"].as_str().unwrap_or("").to_owned();
            numbered
                .entry(path_segment(&identity.to_ascii_lowercase()))
                .or_default()
                .push(Numbered {
                    order: (software_id, uri.trim_end_matches('/').to_owned(), position),
                    version,
                    item,
                });
        } else {
            entries.push(Entry {
                component: path_segment(&id.to_ascii_lowercase()),
                installed: false,
                version,
                item,
            });
        }
    }
    number_alike(numbered, &mut entries, notes);
    entries
}

/// The last segment of a member's URI, when it is a name rather than a bare number.
fn uri_name(uri: &str) -> Option<&str> {
    uri.trim_end_matches('/')
        .rsplit('/')
        .next()
        .filter(|last| !last.is_empty() && last.parse::<u64>().is_err())
}

/// Where a numbered member sits: HPE's `Oem.Hpe.DeviceContext`, the standard
/// `Location.PartLocation.ServiceLabel`, else its `SoftwareId`.
fn context_of(item: &Value) -> Option<String> {
    [
        &item["Oem"]["Hpe"]["DeviceContext"],
        &item["Location"]["PartLocation"]["ServiceLabel"],
        &item["SoftwareId"],
    ]
    .into_iter()
    .filter_map(Value::as_str)
    .map(str::trim)
    // `"N/A"` is no place: the next property may name one.
    .find(|text| !driftgate_model::placeholder::is_placeholder(text))
    .map(str::to_owned)
}

/// Which component belongs to which adapter: of its [`ties`](fn@ties), the surest tier that has one
/// wins, and within a tier (a Dell NIC lists one entry per port) the first component by
/// name, so the choice does not depend on the inventory's order. And which belongs to one
/// network device function: the first by name of those related to it.
fn link_adapters(
    entries: &[Entry<'_>],
    adapters: &[AdapterInventory],
    pcie: PcieLinks,
    vendor: Vendor,
) -> FirmwareLinks {
    let mut by_adapter: BTreeMap<String, (Tier, &str)> = BTreeMap::new();
    let mut by_function: BTreeMap<String, &str> = BTreeMap::new();
    for tie in ties(entries, adapters, &pcie, vendor) {
        match tie.function {
            None => {
                let best = by_adapter
                    .entry(tie.adapter)
                    .or_insert((tie.tier, tie.component));
                *best = (*best).min((tie.tier, tie.component));
            }
            Some(function) => {
                let best = by_function.entry(function).or_insert(tie.component);
                *best = (*best).min(tie.component);
            }
        }
    }
    FirmwareLinks {
        by_adapter: by_adapter
            .into_iter()
            .map(|(adapter, (_, component))| (adapter, component.to_owned()))
            .collect(),
        by_function: by_function
            .into_iter()
            .map(|(function, component)| (function, component.to_owned()))
            .collect(),
        components: entries.iter().map(|e| e.component.clone()).collect(),
        pcie,
        ..FirmwareLinks::default()
    }
}

/// Which firmware belongs to which network adapter, function and port.
#[derive(Debug, Clone, Default)]
pub(super) struct FirmwareLinks {
    /// Adapter key ([`uri_key`]) → the `<component>` of its `firmware/<component>/…` facts.
    by_adapter: BTreeMap<String, String>,
    /// Network device function key → the `<component>` the inventory relates to it.
    by_function: BTreeMap<String, String>,
    /// Every `<component>` of the inventory.
    components: BTreeSet<String>,
    /// The PCIe devices and functions of each adapter and function, and their versions.
    pcie: PcieLinks,
    /// A port's MAC → the NIC firmware version the vendor's list of adapters gives it.
    by_mac: BTreeMap<MacAddr, String>,
    /// Adapter key → the malformed `RelatedItem`s of members that may be tied to it
    /// ([`related`]): which member its ports run cannot be told.
    doubts: BTreeMap<String, Vec<String>>,
}

impl FirmwareLinks {
    /// The component of a port of the adapter at `uri` whose functions are at `functions`:
    /// one named like the port or one of its functions (Dell lists firmware per function
    /// FQDD, `NIC.Embedded.2-1-1`, so two ports of one adapter can run different entries),
    /// else one the inventory relates to one of its functions, else the adapter's, when the
    /// inventory links one to it.
    pub(super) fn component_of(
        &self,
        uri: &str,
        names: &[&str],
        functions: &[String],
    ) -> Option<&str> {
        names
            .iter()
            .map(|name| path_segment(&name.to_ascii_lowercase()))
            .find_map(|name| self.components.get(&name))
            .or_else(|| {
                functions
                    .iter()
                    .find_map(|function| self.by_function.get(&uri_key(function)))
            })
            .or_else(|| self.by_adapter.get(&uri_key(uri)))
            .map(String::as_str)
    }

    /// The firmware version the PCIe device of a port reports (see
    /// [`PcieLinks::version`]), for a port whose controller reports none.
    pub(super) fn pcie_version(&self, uri: &str, functions: &[String]) -> Option<&str> {
        let functions: Vec<String> = functions.iter().map(|f| uri_key(f)).collect();
        self.pcie.version(&uri_key(uri), &functions)
    }

    /// What keeps the firmware of the ports of the adapter at `uri` from being known: the
    /// malformed `RelatedItem` of each member that may be tied to it, as a shape problem says it.
    pub(super) fn doubts(&self, uri: &str) -> &[String] {
        self.doubts.get(&uri_key(uri)).map_or(&[], Vec::as_slice)
    }

    /// The NIC firmware version of each port MAC from the vendor's list of adapters.
    pub(super) fn vendor_versions(&self) -> &BTreeMap<MacAddr, String> {
        &self.by_mac
    }
}

mod related;
mod ties;

#[cfg(test)]
mod tests;
