//! A computer system's interfaces and BIOS → `nic/<mac>/bmc/interface`, `bios/…`.

use serde_json::Value;

use super::{id_of, mac_of};
use crate::collect::nic::{NicFacts, Side, scalar};
use crate::collect::redfish::crawl::SystemInventory;
use crate::collect::redfish::vendors::{self, Vendor};
use crate::secrets::SecretFilter;
use crate::snapshot::{FactPath, Facts, path_segment};

/// The facts of one system.
pub(super) fn system_facts(system: &SystemInventory, vendor: Vendor, facts: &mut Facts) {
    for interface in &system.interfaces {
        let mac =
            mac_of(&interface["PermanentMACAddress"]).or_else(|| mac_of(&interface["MACAddress"]));
        if let Some(mac) = mac {
            NicFacts::new(facts, Side::Bmc, &mac.to_string())
                .set("interface", id_of(interface).as_str());
        }
    }
    let mut filter = SecretFilter::new();
    if let Some(registry) = &system.bios_registry {
        filter.add_registry(registry);
    }
    let secret = |name: &str, value: &Value| filter.is_secret(name, value);
    for (resource, prefix) in [
        (&system.bios, "bios"),
        (&system.bios_pending, "bios/pending"),
    ] {
        let Some(attributes) = resource.as_ref().and_then(|r| r["Attributes"].as_object()) else {
            continue;
        };
        for (name, value) in attributes
            .iter()
            .filter(|(name, value)| !secret(name, value))
        {
            if let (Some(value), Ok(path)) = (
                scalar(value),
                FactPath::new(format!("{prefix}/{}", path_segment(name))),
            ) {
                facts.insert(path, value);
            }
        }
    }
    if let Some(bios) = &system.bios {
        vendors::bios_facts(vendor, bios, &secret, facts);
    }
}
