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
//!   else `SoftwareId`: `mellanox_connectx-6_dx@slot_1`. Two members that still read the
//!   same (identical cards with no context) get `-2`, `-3`… in the order of their context,
//!   version and then position, so one card's facts never overwrite the other's.
//! - **Everything else** (Lenovo XCC `BMC-Primary`, `UEFI`, `Slot_1.Bundle`; DMTF `BMC`,
//!   `BIOS`): the `Id`, lower-cased.
//!
//! Members whose `Status.State` is `Absent` or `Disabled` describe an empty slot or a
//! switched-off device (iLO answers `"Version": "-*"` for them): they are not firmware that
//! runs, and are skipped. So are members without a version.
//!
//! An inventory member belongs to an adapter when its `RelatedItem` links to the adapter,
//! something below it (its ports or functions) or its chassis (when that chassis holds only
//! that adapter); when its Dell FQDD names the adapter (`NIC.Slot.3-1-1` ↔ adapter
//! `NIC.Slot.3`); or when both name the same slot (HPE `Oem.Hpe.DeviceContext` `Slot 1` ↔ the
//! adapter's `Location.PartLocation.ServiceLabel` `PCI-E Slot 1` or its `LocationOrdinalValue`
//! in a `Slot`; Lenovo's `Slot_1.…` ids ↔ adapter `slot-1`) or the same location label
//! (`Embedded LOM`, `OCP 3.0 Slot A`).

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use super::id_of;
use crate::collect::redfish::crawl::AdapterInventory;
use crate::collect::redfish::vendors::Vendor;
use crate::snapshot::{FactPath, Facts, path_segment};

/// One inventory member that is running firmware.
struct Entry<'a> {
    /// `<component>` of its facts.
    component: String,
    /// A Dell `Installed-` entry (wins over `Current-`).
    installed: bool,
    version: &'a str,
    /// The member itself, to link it to an adapter.
    item: &'a Value,
}

/// `firmware/<component>/version` for each running component (see the module's doc for the
/// identity per vendor), and which component belongs to which adapter.
pub(super) fn firmware_facts(
    firmware: &[Value],
    adapters: &[AdapterInventory],
    _vendor: Vendor,
    facts: &mut Facts,
) -> FirmwareLinks {
    let mut entries = entries(firmware);
    // Installed entries last, so they overwrite Current ones of the same component.
    entries.sort_by(|a, b| (&a.component, a.installed).cmp(&(&b.component, b.installed)));
    for entry in &entries {
        let path = FactPath::new(format!("firmware/{}/version", entry.component))
            .expect("components are sanitized segments");
        facts.insert(path, entry.version.into());
    }
    link_adapters(&entries, adapters)
}

/// The running members with their component identity, numbered ones de-duplicated.
fn entries(firmware: &[Value]) -> Vec<Entry<'_>> {
    let mut entries = Vec::new();
    // Numbered members, by identity, to de-duplicate them once all are known.
    let mut numbered: BTreeMap<String, Vec<(String, &str, u64, &Value)>> = BTreeMap::new();
    for item in firmware {
        let state = item["Status"]["State"].as_str().unwrap_or("");
        if state.eq_ignore_ascii_case("absent") || state.eq_ignore_ascii_case("disabled") {
            continue;
        }
        let Some(version) = item["Version"].as_str().filter(|v| !v.is_empty()) else {
            continue;
        };
        let id = id_of(item);
        if id.starts_with("Previous-") {
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
            let context = context_of(item).unwrap_or_default();
            let name = item["Name"].as_str().map(str::trim).unwrap_or("");
            let identity = match (name.is_empty(), context.is_empty()) {
                // Nothing but the position identifies it.
                (true, true) => format!("firmware-{position}"),
                (true, false) => context.clone(),
                (false, true) => name.to_owned(),
                (false, false) => format!("{name}@{context}"),
            };
            numbered
                .entry(path_segment(&identity.to_ascii_lowercase()))
                .or_default()
                .push((context, version, position, item));
        } else {
            entries.push(Entry {
                component: path_segment(&id.to_ascii_lowercase()),
                installed: false,
                version,
                item,
            });
        }
    }
    for (identity, mut same) in numbered {
        same.sort_by(|a, b| (&a.0, a.1, a.2).cmp(&(&b.0, b.1, b.2)));
        for (index, (_, version, _, item)) in same.into_iter().enumerate() {
            let component = if index == 0 {
                identity.clone()
            } else {
                format!("{identity}-{}", index + 1)
            };
            entries.push(Entry {
                component,
                installed: false,
                version,
                item,
            });
        }
    }
    entries
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
    .find(|text| !text.is_empty())
    .map(str::to_owned)
}

/// The slot number a text names: `Slot 1`, `PCI-E Slot 4`, `Slot_1.Bundle`, `slot-1`,
/// `PCIE_SLOT_1`.
fn slot_of(text: &str) -> Option<u32> {
    let lower = text.to_ascii_lowercase();
    let (_, after) = lower.split_once("slot")?;
    let digits: String = after
        .trim_start_matches([' ', '_', '-', '.', ':', '=', '#'])
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}

/// The slots an inventory member names (device context, location, id).
fn member_slots(item: &Value) -> Vec<u32> {
    [
        &item["Oem"]["Hpe"]["DeviceContext"],
        &item["Location"]["PartLocation"]["ServiceLabel"],
        &item["Id"],
    ]
    .into_iter()
    .filter_map(Value::as_str)
    .filter_map(slot_of)
    .collect()
}

/// The slots an adapter names (location, HPE's OEM location, id), and a slot's ordinal.
fn adapter_slots(adapter: &Value) -> Vec<u32> {
    let location = &adapter["Location"]["PartLocation"];
    let ordinal = location["LocationType"]
        .as_str()
        .filter(|t| t.eq_ignore_ascii_case("slot"))
        .and_then(|_| location["LocationOrdinalValue"].as_u64())
        .and_then(|n| u32::try_from(n).ok());
    [
        &location["ServiceLabel"],
        &adapter["Oem"]["Hpe"]["Location"]["PartLocation"]["ServiceLabel"],
        &adapter["Id"],
    ]
    .into_iter()
    .filter_map(Value::as_str)
    .filter_map(slot_of)
    .chain(ordinal)
    .collect()
}

/// A location label reduced to its letters and digits, lower-cased (`Embedded LOM` ↔
/// `embedded-lom`).
fn label(text: &str) -> String {
    text.chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

/// Whether a member's device context names the adapter's location label (a device that sits
/// in no numbered slot: `Embedded LOM`, `OCP 3.0 Slot A`).
fn same_label(item: &Value, adapter: &Value) -> bool {
    let context = item["Oem"]["Hpe"]["DeviceContext"]
        .as_str()
        .or_else(|| item["Location"]["PartLocation"]["ServiceLabel"].as_str())
        .map(label)
        .filter(|l| !l.is_empty());
    let labels = [
        &adapter["Location"]["PartLocation"]["ServiceLabel"],
        &adapter["Oem"]["Hpe"]["Location"]["PartLocation"]["ServiceLabel"],
    ];
    context.is_some_and(|context| {
        labels
            .into_iter()
            .filter_map(Value::as_str)
            .any(|l| label(l) == context)
    })
}

fn trimmed(uri: &str) -> &str {
    uri.trim_end_matches('/')
}

/// The chassis an adapter URI sits in (`…/Chassis/X/NetworkAdapters/Y` → `…/Chassis/X`).
fn chassis_of(adapter_uri: &str) -> Option<&str> {
    adapter_uri
        .rsplit_once("/NetworkAdapters/")
        .map(|(chassis, _)| chassis)
}

/// Which component belongs to which adapter; where several do (a Dell NIC lists one per
/// port), the first by name.
fn link_adapters(entries: &[Entry<'_>], adapters: &[AdapterInventory]) -> FirmwareLinks {
    let uris: Vec<&str> = adapters
        .iter()
        .filter_map(|a| a.adapter["@odata.id"].as_str().map(trimmed))
        .collect();
    let mut links = FirmwareLinks {
        components: entries.iter().map(|e| e.component.clone()).collect(),
        ..FirmwareLinks::default()
    };
    for adapter in adapters {
        let Some(uri) = adapter.adapter["@odata.id"].as_str().map(trimmed) else {
            continue;
        };
        let id = id_of(&adapter.adapter).to_ascii_lowercase();
        let slots = adapter_slots(&adapter.adapter);
        // The chassis stands for the adapter only when it holds no other.
        let chassis = chassis_of(uri)
            .filter(|c| uris.iter().filter(|u| chassis_of(u) == Some(*c)).count() == 1);
        let related = |item: &Value| {
            item["RelatedItem"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|l| l["@odata.id"].as_str())
                .map(trimmed)
                .any(|target| {
                    target == uri
                        || target.starts_with(&format!("{uri}/"))
                        || Some(target) == chassis
                })
        };
        let fqdd = |entry: &Entry<'_>| {
            id_of(entry.item).contains("__")
                && (entry.component == id || entry.component.starts_with(&format!("{id}-")))
        };
        let slot = |item: &Value| {
            member_slots(item).iter().any(|s| slots.contains(s))
                || same_label(item, &adapter.adapter)
        };
        let component = entries
            .iter()
            .filter(|e| related(e.item) || fqdd(e))
            .map(|e| &e.component)
            .min()
            .or_else(|| {
                entries
                    .iter()
                    .filter(|e| slot(e.item))
                    .map(|e| &e.component)
                    .min()
            });
        if let Some(component) = component {
            links.by_adapter.insert(uri.to_owned(), component.clone());
        }
    }
    links
}

/// Which firmware inventory component belongs to which network adapter.
#[derive(Debug, Clone, Default)]
pub(super) struct FirmwareLinks {
    /// Adapter `@odata.id` → the `<component>` of its `firmware/<component>/…` facts.
    by_adapter: BTreeMap<String, String>,
    /// Every `<component>` of the inventory.
    components: BTreeSet<String>,
}

impl FirmwareLinks {
    /// The component of a port of the adapter at `uri`: one named like the port or one of
    /// its functions (Dell lists firmware per function FQDD, `NIC.Embedded.2-1-1`, so two
    /// ports of one adapter can run different entries), else the adapter's, when the
    /// inventory links one to it.
    pub(super) fn component_of(&self, uri: &str, names: &[&str]) -> Option<&str> {
        names
            .iter()
            .map(|name| path_segment(&name.to_ascii_lowercase()))
            .find_map(|name| self.components.get(&name))
            .or_else(|| self.by_adapter.get(uri.trim_end_matches('/')))
            .map(String::as_str)
    }
}

#[cfg(test)]
mod tests;
