//! A computer system's BIOS → `bios/…` (its interfaces are `super::interfaces`').
//!
//! Every BIOS attribute (secrets removed) is `bios/<name>`, except those that report a version
//! ([`attributes::is_firmware_version`]), which are `firmware/bios/attribute/<name>`, and
//! those a vendor places under a NIC port (Lenovo). A pending value is `bios/pending/<name>`
//! only where it differs from the current one.

use serde_json::Value;

use super::Normalized;
use crate::nic::scalar;
use crate::redfish::attributes;
use crate::redfish::crawl::SystemInventory;
use crate::redfish::vendors::{self, Vendor};
use driftgate_secrets::SecretFilter;
use driftgate_snapshot::{FactPath, Facts, path_segment};

/// The facts of one system.
pub(super) fn system_facts(system: &SystemInventory, vendor: Vendor, out: &mut Normalized) {
    let facts = &mut out.facts;
    let mut filter = SecretFilter::new();
    if let Some(registry) = &system.bios_registry {
        filter.add_registry(registry);
    }
    let secret = |name: &str, value: &Value| filter.is_secret(name, value);
    let Some(bios) = &system.bios else {
        return;
    };
    // Attributes a vendor places under a port (Lenovo's NIC settings) have that one home.
    let claimed = vendors::bios_facts(
        vendor,
        bios,
        system.bios_pending.as_ref(),
        &secret,
        facts,
        &mut out.problems,
    );
    let current = bios["Attributes"].as_object();
    let kept = |name: &String, value: &Value| !claimed.contains(name) && !secret(name, value);
    for (name, value) in current.into_iter().flatten() {
        if !kept(name, value) {
            continue;
        }
        let prefix = if attributes::is_firmware_version(name) {
            "firmware/bios/attribute"
        } else {
            "bios"
        };
        insert(facts, prefix, name, value);
    }
    let pending = system
        .bios_pending
        .as_ref()
        .and_then(|p| p["Attributes"].as_object());
    for (name, value) in pending.into_iter().flatten() {
        // A staged value equal to the current one changes nothing at the next reboot; a
        // version is reported by the firmware, not staged.
        let unchanged = current.and_then(|c| c.get(name)) == Some(value);
        if unchanged || !kept(name, value) || attributes::is_firmware_version(name) {
            continue;
        }
        insert(facts, "bios/pending", name, value);
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
