//! Normalization: a crawled [`Inventory`] → facts. Pure: no I/O, no clock.
//!
//! Ports are keyed by permanent MAC (`nic/<mac>/bmc/…`), the join key with what the OS
//! reports; a port whose MAC the service does not give keeps a name-based key
//! (`nic/port-<id>/bmc/…`). Firmware is keyed by component, BIOS by attribute name. Standard
//! Redfish properties are mapped here; vendor OEM data in [`super::vendors`].

use serde_json::Value;

use super::crawl::{AdapterInventory, FunctionInventory, Inventory, SystemInventory, link};
use super::vendors::{self, Vendor};
use crate::collect::nic::{NicFacts, Side, port_key, scalar};
use crate::model::{FlowControl, MacAddr};
use crate::secrets::SecretFilter;
use crate::snapshot::{FactPath, Facts, path_segment};

/// The facts of a crawled service.
pub fn normalize(inventory: &Inventory) -> Facts {
    let vendor = Vendor::detect(&inventory.root);
    let mut facts = Facts::new();
    for adapter in &inventory.adapters {
        adapter_facts(adapter, vendor, &mut facts);
    }
    for system in &inventory.systems {
        system_facts(system, vendor, &mut facts);
    }
    firmware_facts(&inventory.firmware, &mut facts);
    facts
}

fn mac_of(value: &Value) -> Option<MacAddr> {
    value
        .as_str()
        .and_then(MacAddr::parse)
        .filter(|mac| !mac.is_zero())
}

/// The permanent MAC of a device function (its current MAC when no permanent one is given).
fn function_mac(function: &Value) -> Option<MacAddr> {
    mac_of(&function["Ethernet"]["PermanentMACAddress"])
        .or_else(|| mac_of(&function["Ethernet"]["MACAddress"]))
}

/// The port a device function is assigned to.
fn function_port(function: &Value) -> Option<&str> {
    link(function, &["Links", "PhysicalPortAssignment"])
        .or_else(|| function["AssignablePhysicalPorts"][0]["@odata.id"].as_str())
}

fn id_of(resource: &Value) -> String {
    resource["Id"]
        .as_str()
        .map(str::to_owned)
        .or_else(|| {
            resource["@odata.id"]
                .as_str()
                .and_then(|u| u.trim_end_matches('/').rsplit('/').next())
                .map(str::to_owned)
        })
        .unwrap_or_else(|| "unknown".to_owned())
}

fn adapter_facts(adapter: &AdapterInventory, vendor: Vendor, facts: &mut Facts) {
    let capabilities = &adapter.adapter["Controllers"][0]["ControllerCapabilities"];
    let adapter_id = id_of(&adapter.adapter);
    let mut functions: Vec<&FunctionInventory> = adapter.functions.iter().collect();
    functions.sort_by_key(|f| id_of(&f.function));
    // NetworkPorts first: where a service has both, the current Port schema wins.
    for port in adapter.network_ports.iter().chain(&adapter.ports) {
        let uri = port["@odata.id"]
            .as_str()
            .unwrap_or("")
            .trim_end_matches('/');
        let port_id = id_of(port);
        let mac = mac_of(&port["AssociatedNetworkAddresses"][0])
            .or_else(|| mac_of(&port["Ethernet"]["AssociatedMACAddresses"][0]))
            .or_else(|| vendors::port_mac(vendor, port))
            .or_else(|| {
                functions
                    .iter()
                    .find(|f| {
                        function_port(&f.function).map(|p| p.trim_end_matches('/')) == Some(uri)
                    })
                    .and_then(|f| function_mac(&f.function))
            });
        // Without a MAC, port ids repeat across adapters (`Ports/1`): qualify them.
        let key = port_key(mac, "port", &format!("{adapter_id}-{port_id}"));
        let mut nic = NicFacts::new(facts, Side::Bmc, &key);
        nic.set("adapter", adapter_id.as_str());
        nic.set("port", port_id.as_str());
        nic.set_scalar(
            "dcb_capable",
            &capabilities["DataCenterBridging"]["Capable"],
        );
        nic.set_scalar("npar", &capabilities["NPAR"]["NparEnabled"]);
        for (property, leaf) in [
            ("FlowControlConfiguration", "flow_control/configured"),
            ("FlowControlStatus", "flow_control/status"),
        ] {
            let value = port["Ethernet"][property]
                .as_str()
                .or_else(|| port[property].as_str());
            if let Some(value) = value {
                nic.set(leaf, FlowControl::parse(value).as_str());
            }
        }
        let lldp = &port["Ethernet"];
        nic.set_scalar("lldp/enabled", &lldp["LLDPEnabled"]);
        for (property, leaf) in [
            ("LLDPTransmit", "lldp/transmit"),
            ("LLDPReceive", "lldp/receive"),
        ] {
            if let Some(fields) = lldp[property].as_object() {
                for (name, value) in fields {
                    nic.set_scalar(&format!("{leaf}/{}", path_segment(name)), value);
                }
            }
        }
        vendors::port_facts(vendor, adapter, port, &mut nic);
    }
    for function in functions {
        let mac = function_mac(&function.function);
        let key = port_key(
            mac,
            "port",
            &format!("{adapter_id}-{}", id_of(&function.function)),
        );
        let mut nic = NicFacts::new(facts, Side::Bmc, &key);
        nic.set("function", id_of(&function.function).as_str());
        vendors::function_facts(vendor, function, &mut nic);
    }
}

fn system_facts(system: &SystemInventory, vendor: Vendor, facts: &mut Facts) {
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

/// `firmware/<component>/version`, keyed by the component: Dell's inventory ids embed the
/// version (`Installed-108089-21.80.16.95__NIC.Integrated.1-1-1`), so the component is the
/// FQDD after `__`; `Installed-` is what runs and wins over `Current-`; `Previous-` is
/// history, not state.
fn firmware_facts(firmware: &[Value], facts: &mut Facts) {
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
}

#[cfg(test)]
mod tests;
