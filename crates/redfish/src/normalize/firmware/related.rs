//! A firmware inventory member's `RelatedItem` of the wrong shape judges only what it touches.
//!
//! `RelatedItem` is an array of links (SoftwareInventory.v1); Cisco CIMC 4.1 serves a URI
//! string instead (`"RelatedItem": "/redfish/v1/Managers/CIMC"`) on its BIOS, CIMC and disk
//! entries. The links feed one judged fact only: which member a NIC port runs
//! (`nic/<key>/bmc/firmware/inventory`, see the module above). The member's own version is
//! read without them. So a malformed `RelatedItem` is weighed by the ports it may tie:
//!
//! - tied to no NIC port either way it can be read (the malformed part left out, as the links
//!   are read, or read leniently as the link a URI string names), it feeds no judged fact: a
//!   note naming the URI and the property;
//! - tied to an adapter either way, or holding a part that names nothing readable (a number,
//!   an object without `@odata.id`) while the capture has adapters, it decides which firmware
//!   those ports run, which is then not known: a problem naming each port's
//!   `firmware/inventory` fact (`ports`), and the source is partial.
//!
//! A URI string is not taken for the link it looks like where a port's firmware depends on it:
//! the BMC broke the schema there, and which firmware a port runs is what a gate blocks on.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use super::super::pcie::PcieLinks;
use super::ties::{Entry, ties};
use crate::crawl::AdapterInventory;
use crate::links::{lenient_targets, uri_key};
use crate::shape;
use crate::vendors::Vendor;

/// Weighs each member of `firmware` whose `RelatedItem` has the wrong shape: a note in `notes`
/// when it is tied to no NIC port, else the adapters it may be tied to, each with what is
/// wrong (the value [`super::FirmwareLinks`] keeps as its doubts).
pub(super) fn judge(
    firmware: &[Value],
    entries: &[Entry<'_>],
    adapters: &[AdapterInventory],
    pcie: &PcieLinks,
    vendor: Vendor,
    notes: &mut Vec<String>,
) -> BTreeMap<String, Vec<String>> {
    let mut doubts: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for item in firmware {
        let defects = shape::related_item(item);
        if defects.is_empty() {
            continue;
        }
        let said: Vec<String> = defects.iter().map(ToString::to_string).collect();
        let said = said.join("; ");
        let Some(entry) = entries.iter().find(|e| std::ptr::eq(e.item, item)) else {
            notes.push(format!(
                "{said} (a firmware inventory member that is not captured: absent, disabled, \
                 without a version or not what runs; it names no port's firmware)"
            ));
            continue;
        };
        let tied = tied_adapters(entry, adapters, pcie, vendor);
        if tied.is_empty() {
            notes.push(format!(
                "{said} (read either way, it ties this firmware inventory member to no NIC \
                 port, so no judged fact depends on it; its version is kept as \
                 firmware/{}/version)",
                entry.component
            ));
        }
        for adapter in tied {
            doubts.entry(adapter).or_default().push(said.clone());
        }
    }
    doubts
}

/// The adapters (keys) a member whose `RelatedItem` has the wrong shape may be tied to: those
/// it is tied to as its links are read (the malformed part left out), and as they read
/// leniently ([`lenient_targets`]: a URI string for the link it names); every adapter when a
/// part names nothing readable.
fn tied_adapters(
    entry: &Entry<'_>,
    adapters: &[AdapterInventory],
    pcie: &PcieLinks,
    vendor: Vendor,
) -> BTreeSet<String> {
    let related = entry.item.get("RelatedItem").unwrap_or(&Value::Null);
    let Some(targets) = lenient_targets(related) else {
        return adapters
            .iter()
            .filter_map(|a| a.adapter["@odata.id"].as_str().map(uri_key))
            .collect();
    };
    let mut repaired = entry.item.clone();
    if let Some(properties) = repaired.as_object_mut() {
        let links = targets
            .iter()
            .map(|target| serde_json::json!({"@odata.id": target}))
            .collect();
        properties.insert("RelatedItem".to_owned(), Value::Array(links));
    }
    let lenient = Entry {
        component: entry.component.clone(),
        installed: entry.installed,
        version: entry.version,
        item: &repaired,
    };
    let as_read = ties(std::slice::from_ref(entry), adapters, pcie, vendor);
    let read_leniently = ties(std::slice::from_ref(&lenient), adapters, pcie, vendor);
    as_read
        .into_iter()
        .chain(read_leniently)
        .map(|tie| tie.adapter)
        .collect()
}
