//! How sure it is that a firmware inventory member is an adapter's (or a function's): each way
//! a member is tied to a NIC, by its `RelatedItem`, its Dell FQDD, its slot or location label.

use serde_json::Value;

use super::super::pcie::PcieLinks;
use super::super::properties::id_of;
use crate::crawl::AdapterInventory;
use crate::links::{key_below, uri_key};
use crate::vendors::{self, Vendor};

/// One inventory member that is running firmware.
pub(super) struct Entry<'a> {
    /// `<component>` of its facts.
    pub(super) component: String,
    /// A Dell `Installed-` entry (wins over `Current-`).
    pub(super) installed: bool,
    pub(super) version: &'a str,
    /// The member itself, to link it to an adapter.
    pub(super) item: &'a Value,
}

/// The slot number a text names: `Slot 1`, `PCI-E Slot 4`, `Slot_1.Bundle`, `slot-1`,
/// `PCIE_SLOT_1`.
pub(super) fn slot_of(text: &str) -> Option<u32> {
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
pub(super) fn member_slots(item: &Value) -> Vec<u32> {
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
pub(super) fn adapter_slots(adapter: &Value) -> Vec<u32> {
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
pub(super) fn label(text: &str) -> String {
    text.chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

/// Whether a member's device context names the adapter's location label (a device that sits
/// in no numbered slot: `Embedded LOM`, `OCP 3.0 Slot A`).
pub(super) fn same_label(item: &Value, adapter: &Value) -> bool {
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

/// The chassis an adapter key sits in (`…/chassis/x/networkadapters/y` → `…/chassis/x`).
pub(super) fn chassis_of(adapter: &str) -> Option<&str> {
    adapter
        .rsplit_once("/networkadapters/")
        .map(|(chassis, _)| chassis)
}

/// The targets of a member's `RelatedItem` links, as [`uri_key`]s.
pub(super) fn related_targets(item: &Value) -> impl Iterator<Item = String> + '_ {
    item["RelatedItem"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|l| l["@odata.id"].as_str())
        .map(uri_key)
}

/// The target of a member's `RelatedItem` links as written but for a trailing `/` and case:
/// with its fragment, to compare with a link that names a part (`…/Assembly#/Assemblies/2`).
pub(super) fn related_parts(item: &Value) -> impl Iterator<Item = String> + '_ {
    item["RelatedItem"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|l| l["@odata.id"].as_str())
        .map(part_key)
}

/// A link with its fragment, for comparing parts: trailing `/` and case aside.
pub(super) fn part_key(uri: &str) -> String {
    match uri.split_once('#') {
        Some((path, fragment)) => format!("{}#{}", uri_key(path), fragment.to_ascii_lowercase()),
        None => uri_key(uri),
    }
}

/// The collection a URI is a member of (`managers` for `…/managers/<id>`, keys being lower
/// case).
pub(super) fn collection_of(uri: &str) -> Option<&str> {
    let mut segments = uri.rsplit('/');
    let _id = segments.next();
    segments.next()
}

/// How surely a member is an adapter's firmware, the surest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Tier {
    /// Its `RelatedItem` names the adapter or something below it, or its Dell FQDD names the
    /// adapter.
    Named,
    /// It names the adapter's slot or location label.
    Slot,
    /// It names the adapter, and a ComputerSystem too.
    NamedShared,
    /// Its `RelatedItem` names the chassis, which holds that one adapter.
    Chassis,
}

/// One way a member is tied to a NIC: to an adapter at a [`Tier`], or to one of its network
/// device functions.
pub(super) struct Tie<'e> {
    /// The adapter's key ([`uri_key`]).
    pub(super) adapter: String,
    /// The function's key, for a member related to one of the adapter's functions.
    pub(super) function: Option<String>,
    pub(super) tier: Tier,
    pub(super) component: &'e str,
}

/// Every way each of `entries` is tied to one of `adapters`, by [`Tier`], and to one of their
/// network device functions: one whose `RelatedItem` names the function or what it owns
/// through PCIe. A tie depends on the member and the adapters alone, never on other members.
pub(super) fn ties<'e>(
    entries: &'e [Entry<'_>],
    adapters: &[AdapterInventory],
    pcie: &PcieLinks,
    vendor: Vendor,
) -> Vec<Tie<'e>> {
    let keys: Vec<String> = adapters
        .iter()
        .filter_map(|a| a.adapter["@odata.id"].as_str().map(uri_key))
        .collect();
    // An `Assembly` link names the adapter's own assembly only when no other adapter names
    // the same (Dell links its embedded NICs to the chassis's).
    let assemblies: Vec<Option<String>> = adapters
        .iter()
        .map(|a| a.adapter["Assembly"]["@odata.id"].as_str().map(part_key))
        .collect();
    let runs_elsewhere = |entry: &Entry<'_>, collection: &str| {
        related_targets(entry.item).any(|t| collection_of(&t) == Some(collection))
    };
    let mut ties = Vec::new();
    for (adapter, assembly) in adapters.iter().zip(&assemblies) {
        let Some(key) = adapter.adapter["@odata.id"].as_str().map(uri_key) else {
            continue;
        };
        let id = id_of(&adapter.adapter).to_ascii_lowercase();
        let slots = adapter_slots(&adapter.adapter);
        // The chassis stands for the adapter only when it holds no other.
        let chassis = chassis_of(&key)
            .filter(|c| keys.iter().filter(|k| chassis_of(k) == Some(*c)).count() == 1);
        let assembly = assembly
            .as_ref()
            .filter(|own| assemblies.iter().flatten().filter(|a| a == own).count() == 1);
        let tier = |entry: &Entry<'_>| {
            let names_adapter =
                |target: &String| key_below(target, &key) || pcie.adapter_owns(&key, target);
            let fqdd = id_of(entry.item).contains("__")
                && (entry.component == id || entry.component.starts_with(&format!("{id}-")));
            let assembled =
                assembly.is_some_and(|own| related_parts(entry.item).any(|p| p == *own));
            // A member related to a Manager runs the BMC. One related to a ComputerSystem
            // runs the host, unless it names the adapter too: some BMCs relate every member
            // to `Systems/1`, so it counts when nothing surer does.
            let shared = runs_elsewhere(entry, "systems");
            if runs_elsewhere(entry, "managers") {
                None
            } else if fqdd || assembled || related_targets(entry.item).any(|t| names_adapter(&t)) {
                Some(if shared {
                    Tier::NamedShared
                } else {
                    Tier::Named
                })
            } else if shared {
                None
            } else if member_slots(entry.item).iter().any(|s| slots.contains(s))
                || same_label(entry.item, &adapter.adapter)
                || vendors::names_adapter_firmware(vendor, entry.item, &adapter.adapter)
            {
                Some(Tier::Slot)
            } else if chassis.is_some_and(|c| related_targets(entry.item).any(|t| t == c)) {
                Some(Tier::Chassis)
            } else {
                None
            }
        };
        for entry in entries {
            if let Some(tier) = tier(entry) {
                ties.push(Tie {
                    adapter: key.clone(),
                    function: None,
                    tier,
                    component: &entry.component,
                });
            }
        }
        for function in &adapter.functions {
            let Some(function_key) = function.function["@odata.id"].as_str().map(uri_key) else {
                continue;
            };
            let names_function = |target: &String| {
                key_below(target, &function_key) || pcie.function_owns(&function_key, target)
            };
            for entry in entries
                .iter()
                .filter(|e| !runs_elsewhere(e, "managers"))
                .filter(|e| related_targets(e.item).any(|t| names_function(&t)))
            {
                ties.push(Tie {
                    adapter: key.clone(),
                    function: Some(function_key.clone()),
                    tier: Tier::Named,
                    component: &entry.component,
                });
            }
        }
    }
    ties
}
