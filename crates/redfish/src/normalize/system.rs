//! A computer system's BIOS → `bios/…` (its interfaces are `super::interfaces`').
//!
//! Every BIOS attribute (secrets removed) is a fact at the home of its class
//! ([`attributes`], judged with the BIOS attribute registry): `bios/<name>` for a setting,
//! `firmware/bios/attribute/<name>` for a version, `bios/status/<name>` for a value that
//! changes by itself, `bios/dcb/<name>` for a DCB setting recognised by its text; except
//! those a vendor places under a NIC port (Lenovo). A pending value is
//! `bios/pending/[<class folder>/]<name>` only where it differs from the current one; a version
//! is never pending.

use serde_json::Value;

use super::normalized::Normalized;
use crate::attributes::{self, Class, Registry};
use crate::crawl::SystemInventory;
use crate::vendors::{self, Bios, Vendor};
use driftgate_snapshot::nic::{is_placeholder, scalar};
use driftgate_snapshot::{FactPath, Facts, path_segment};

/// The facts of one system.
pub(super) fn system_facts(system: &SystemInventory, vendor: Vendor, out: &mut Normalized) {
    let facts = &mut out.facts;
    let registry = system.bios_registry.as_deref();
    let filter = Registry::filter_of(registry);
    let secret = |name: &str, value: &Value| filter.is_secret(name, value);
    let Some(bios) = &system.bios else {
        return;
    };
    let uri = bios["@odata.id"].as_str().unwrap_or("Bios");
    // Attributes a vendor places under a port (Lenovo's NIC settings) have that one home.
    let claimed = vendors::bios_facts(
        vendor,
        Bios {
            current: bios,
            pending: system.bios_pending.as_ref(),
            registry,
            secret: &secret,
        },
        facts,
        &mut out.problems,
        &mut out.notes,
    );
    let class = |name| attributes::classify_in(registry, name);
    let current = bios["Attributes"].as_object();
    // Placeholders are counted over every attribute, those a vendor placed under a port too.
    let bios_uri = bios["@odata.id"].as_str().unwrap_or("Bios");
    for (name, value) in current.into_iter().flatten() {
        if is_placeholder(value) && !secret(name, value) {
            out.placeholders
                .saw(bios_uri, &format!("Attributes/{name}"));
        }
    }
    let kept = |name: &String, value: &Value| !claimed.contains(name) && !secret(name, value);
    for (name, value) in current.into_iter().flatten() {
        if !kept(name, value) {
            continue;
        }
        let class = class(name);
        if let Class::Dcb(recognised) = class {
            out.notes
                .push(vendors::unknown_dcb_note(uri, name, &recognised));
        }
        insert(facts, &class.bios_prefix(), name, value);
    }
    let pending = system
        .bios_pending
        .as_ref()
        .and_then(|p| p["Attributes"].as_object());
    for (name, value) in pending.into_iter().flatten() {
        // A staged value equal to the current one changes nothing at the next reboot; a
        // version is reported by the firmware, not staged.
        let unchanged = current.and_then(|c| c.get(name)) == Some(value);
        let class = class(name);
        if unchanged || !kept(name, value) || class == Class::Firmware {
            continue;
        }
        let prefix = match class.folder() {
            Some(folder) => format!("bios/pending/{folder}"),
            None => "bios/pending".to_owned(),
        };
        insert(facts, &prefix, name, value);
    }
}

/// `<prefix>/<name>` = `value`, when the value is a scalar.
fn insert(facts: &mut Facts, prefix: &str, name: &str, value: &Value) {
    if let (Some(value), Ok(path)) = (
        scalar(value),
        FactPath::new(format!("{prefix}/{}", path_segment(name))),
    ) {
        facts.insert(path, value);
    }
}

#[cfg(test)]
mod tests;
