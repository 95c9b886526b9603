//! Ports, network ports and device functions of each network adapter → `nic/<key>/bmc/…`.

use super::firmware::FirmwareLinks;
use super::{Normalized, function_mac, function_port, id_of, mac_of};
use crate::collect::nic::{NicFacts, Side, port_key};
use crate::collect::redfish::crawl::{AdapterInventory, FunctionInventory};
use crate::collect::redfish::vendors::{self, Vendor};
use crate::model::FlowControl;
use crate::snapshot::path_segment;

/// The facts of one adapter's ports and functions.
pub(super) fn adapter_facts(
    adapter: &AdapterInventory,
    vendor: Vendor,
    _firmware: &FirmwareLinks,
    out: &mut Normalized,
) {
    let facts = &mut out.facts;
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
