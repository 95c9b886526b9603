//! The firmware inventory → `firmware/<component>/version`.

use std::collections::BTreeMap;

use serde_json::Value;

use super::id_of;
use crate::collect::redfish::crawl::AdapterInventory;
use crate::collect::redfish::vendors::Vendor;
use crate::snapshot::{FactPath, Facts, path_segment};

/// `firmware/<component>/version`, keyed by the component: Dell's inventory ids embed the
/// version (`Installed-108089-21.80.16.95__NIC.Integrated.1-1-1`), so the component is the
/// FQDD after `__`; `Installed-` is what runs and wins over `Current-`; `Previous-` is
/// history, not state.
pub(super) fn firmware_facts(
    firmware: &[Value],
    _adapters: &[AdapterInventory],
    _vendor: Vendor,
    facts: &mut Facts,
) -> FirmwareLinks {
    let mut entries: Vec<(String, bool, &str)> = firmware
        .iter()
        .filter_map(|item| {
            let id = id_of(item);
            if id.starts_with("Previous-") {
                return None;
            }
            let component = id
                .split_once("__")
                .map_or(id.as_str(), |(_, fqdd)| fqdd)
                .to_ascii_lowercase();
            let version = item["Version"].as_str().filter(|v| !v.is_empty())?;
            Some((
                path_segment(&component),
                id.starts_with("Installed-"),
                version,
            ))
        })
        .collect();
    // Installed entries last, so they overwrite Current ones of the same component.
    entries.sort_by_key(|(component, installed, _)| (component.clone(), *installed));
    for (component, _, version) in entries {
        let path = FactPath::new(format!("firmware/{component}/version"))
            .expect("components are sanitized segments");
        facts.insert(path, version.into());
    }
    FirmwareLinks::default()
}

/// Which firmware inventory component belongs to which network adapter.
#[derive(Debug, Clone, Default)]
#[allow(dead_code, reason = "skeleton: the port helper reads it")]
pub(super) struct FirmwareLinks {
    /// Adapter `@odata.id` → the `<component>` of its `firmware/<component>/…` facts.
    by_adapter: BTreeMap<String, String>,
}

#[allow(dead_code, reason = "skeleton: the port helper reads it")]
impl FirmwareLinks {
    /// The component of the adapter at `uri`, when the inventory links one to it.
    pub(super) fn component_of(&self, uri: &str) -> Option<&str> {
        self.by_adapter
            .get(uri.trim_end_matches('/'))
            .map(String::as_str)
    }
}
