//! The attributes the secret filter keeps out of a capture, by the resource that listed them:
//! a capture says what it left out (names only, never a value), so that a setting taken for
//! a secret is seen rather than silently missing from every baseline.

use std::collections::BTreeSet;

use serde_json::Value;

use super::super::attributes::Registry;
use super::super::crawl::Inventory;
use driftgate_secrets::SecretFilter;

/// The attributes of one resource that were withheld as secrets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Withheld {
    /// The resource's `@odata.id`.
    pub resource: String,
    /// The attribute names, sorted.
    pub names: BTreeSet<String>,
}

impl std::fmt::Display for Withheld {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<&str> = self.names.iter().map(String::as_str).collect();
        write!(f, "{}: {}", self.resource, names.join(", "))
    }
}

/// Every BIOS and vendor NIC (HII) attribute resource's withheld attributes, judged with its
/// own registry as normalization judges them; resources that withhold nothing are left out.
pub(super) fn withheld(inventory: &Inventory) -> Vec<Withheld> {
    let mut all = Vec::new();
    for system in &inventory.systems {
        let filter = Registry::filter_of(system.bios_registry.as_deref());
        for resource in [&system.bios, &system.bios_pending].into_iter().flatten() {
            all.extend(of_resource(filter, resource));
        }
    }
    for function in inventory.adapters.iter().flat_map(|a| &a.functions) {
        let filter = Registry::filter_of(function.oem_registry.as_deref());
        for resource in [&function.oem_attributes, &function.oem_pending]
            .into_iter()
            .flatten()
        {
            all.extend(of_resource(filter, resource));
        }
    }
    all
}

fn of_resource(filter: &SecretFilter, resource: &Value) -> Option<Withheld> {
    let names: BTreeSet<String> = resource["Attributes"]
        .as_object()?
        .iter()
        .filter(|(name, value)| filter.is_secret(name, value))
        .map(|(name, _)| name.clone())
        .collect();
    (!names.is_empty()).then(|| Withheld {
        resource: resource["@odata.id"]
            .as_str()
            .unwrap_or("a resource without @odata.id")
            .to_owned(),
        names,
    })
}
