//! What a resource says of itself that several normalizers read: its `Id`, a MAC, the ports
//! a device function links to.

use serde_json::Value;

use crate::crawl::link;
use driftgate_model::MacAddr;

/// A MAC address property's value, when it is one and not all zeros.
pub(crate) fn mac_of(value: &Value) -> Option<MacAddr> {
    value
        .as_str()
        .and_then(MacAddr::parse)
        .filter(|mac| !mac.is_zero())
}

/// The permanent MAC of a device function (its current MAC when no permanent one is given).
pub(crate) fn function_mac(function: &Value) -> Option<MacAddr> {
    mac_of(&function["Ethernet"]["PermanentMACAddress"])
        .or_else(|| mac_of(&function["Ethernet"]["MACAddress"]))
}

/// A link from a device function to a port.
pub(crate) struct PortLink<'v> {
    /// The port's `@odata.id`, without a trailing `/`.
    pub uri: &'v str,
    /// Whether it names the port the function is on (an assignment, or the only assignable
    /// port) rather than one of several it could be assigned to.
    pub definite: bool,
}

/// The ports a device function links to, the one it is assigned to first:
/// `Links.PhysicalNetworkPortAssignment` (a Port, NetworkDeviceFunction v1.5+),
/// `Links.PhysicalPortAssignment` (a NetworkPort, deprecated in v1.5), then the
/// `AssignablePhysicalNetworkPorts` and `AssignablePhysicalPorts` arrays.
pub(crate) fn function_ports(function: &Value) -> Vec<PortLink<'_>> {
    let mut links = Vec::new();
    for path in [
        &["Links", "PhysicalNetworkPortAssignment"][..],
        &["Links", "PhysicalPortAssignment"][..],
    ] {
        if let Some(uri) = link(function, path) {
            links.push(PortLink {
                uri: uri.trim_end_matches('/'),
                definite: true,
            });
        }
    }
    for array in ["AssignablePhysicalNetworkPorts", "AssignablePhysicalPorts"] {
        let Some(items) = function[array].as_array() else {
            continue;
        };
        for item in items {
            if let Some(uri) = item["@odata.id"].as_str() {
                links.push(PortLink {
                    uri: uri.split('#').next().unwrap_or(uri).trim_end_matches('/'),
                    definite: items.len() == 1,
                });
            }
        }
    }
    links
}

/// A resource's `Id`, else the last segment of its `@odata.id`.
pub(crate) fn id_of(resource: &Value) -> String {
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
