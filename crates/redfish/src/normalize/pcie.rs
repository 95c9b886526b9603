//! Which PCIe devices and functions are a network adapter's, and which are one of its network
//! device functions': what ties a NIC to a firmware inventory entry that relates only to the
//! NIC's PCIe device or function, and to the `FirmwareVersion` a PCIe device carries.
//!
//! An adapter owns the devices its `Controllers[].Links.PCIeDevices` (or `Links.PCIeDevices`)
//! name, and everything below them (`…/PCIeDevices/<id>/PCIeFunctions/<id>`). A network
//! device function owns the PCIe function its `Links.PCIeFunction` names and any PCIe
//! function whose `Links.NetworkDeviceFunctions` names it, and, through either, that PCIe
//! function's device (`Links.PCIeDevice`, else the device its URI is below); the adapter owns
//! what its functions own. Links compare by [`uri_key`]: fragment, trailing `/` and case aside.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use crate::crawl::AdapterInventory;
use crate::links::{key_below, link_target, uri_key};
use driftgate_model::placeholder::{self, Placeholders};

/// The PCIe resources each adapter and each of its functions owns, and the firmware version
/// of each PCIe device.
#[derive(Debug, Clone, Default)]
pub(super) struct PcieLinks {
    /// Adapter key → the keys of the PCIe devices and functions it owns.
    adapters: BTreeMap<String, BTreeSet<String>>,
    /// Network device function key → the keys of the PCIe function(s) and device(s) it owns.
    functions: BTreeMap<String, BTreeSet<String>>,
    /// PCIe device key → its `FirmwareVersion` (not a placeholder).
    versions: BTreeMap<String, String>,
}

impl PcieLinks {
    /// The PCIe links of `adapters` through the PCIe resources read (`pcie`); a PCIe device's
    /// placeholder `FirmwareVersion` is counted in `placeholders`.
    pub(super) fn new(
        adapters: &[AdapterInventory],
        pcie: &[Value],
        placeholders: &mut Placeholders,
    ) -> PcieLinks {
        let by_key: BTreeMap<String, &Value> = pcie
            .iter()
            .filter_map(|resource| Some((uri_key(resource["@odata.id"].as_str()?), resource)))
            .collect();
        let mut links = PcieLinks::default();
        for (key, resource) in &by_key {
            let Some(version) = resource["FirmwareVersion"].as_str() else {
                continue;
            };
            match placeholder::value(version) {
                Some(version) => {
                    links.versions.insert(key.clone(), version.to_owned());
                }
                None => placeholders.saw(
                    resource["@odata.id"].as_str().unwrap_or(key),
                    "FirmwareVersion",
                ),
            }
        }
        // PCIe function key → the network device functions it names.
        let named: Vec<(&String, BTreeSet<String>)> = by_key
            .iter()
            .map(|(key, resource)| (key, targets(&resource["Links"]["NetworkDeviceFunctions"])))
            .filter(|(_, functions)| !functions.is_empty())
            .collect();
        for adapter in adapters {
            let resource = &adapter.adapter;
            let Some(adapter_key) = resource["@odata.id"].as_str().map(uri_key) else {
                continue;
            };
            let mut owned: BTreeSet<String> = resource["Controllers"]
                .as_array()
                .into_iter()
                .flatten()
                .flat_map(|controller| targets(&controller["Links"]["PCIeDevices"]))
                .chain(targets(&resource["Links"]["PCIeDevices"]))
                .collect();
            for function in &adapter.functions {
                let Some(function_key) = function.function["@odata.id"].as_str().map(uri_key)
                else {
                    continue;
                };
                let mut pcie_functions: BTreeSet<String> =
                    function.function["Links"]["PCIeFunction"]
                        .get("@odata.id")
                        .and_then(Value::as_str)
                        .map(uri_key)
                        .into_iter()
                        .collect();
                pcie_functions.extend(
                    named
                        .iter()
                        .filter(|(_, names)| names.contains(&function_key))
                        .map(|(key, _)| (*key).clone()),
                );
                let mut own = BTreeSet::new();
                for pcie_function in pcie_functions {
                    if let Some(device) = device_of(&pcie_function, &by_key) {
                        own.insert(device);
                    }
                    own.insert(pcie_function);
                }
                owned.extend(own.iter().cloned());
                links.functions.insert(function_key, own);
            }
            // A PCIe function that names the adapter itself or something below it other than
            // a listed function (a function the collection does not list) is the adapter's.
            for (key, names) in &named {
                if names.iter().any(|name| key_below(name, &adapter_key)) {
                    owned.insert((*key).clone());
                    owned.extend(device_of(key, &by_key));
                }
            }
            links.adapters.insert(adapter_key, owned);
        }
        links
    }

    /// Whether the resource keyed `target` is one the adapter keyed `adapter` owns through
    /// PCIe (a device it links, a function below one, a function of its functions).
    pub(super) fn adapter_owns(&self, adapter: &str, target: &str) -> bool {
        self.adapters
            .get(adapter)
            .is_some_and(|owned| owns(owned, target))
    }

    /// Whether the resource keyed `target` is one the network device function keyed
    /// `function` owns through PCIe.
    pub(super) fn function_owns(&self, function: &str, target: &str) -> bool {
        self.functions
            .get(function)
            .is_some_and(|owned| owns(owned, target))
    }

    /// The `FirmwareVersion` of the PCIe device of a port: of the device its functions (keys
    /// `functions`, in order) own first, else of the first device the adapter keyed `adapter`
    /// owns that reports one.
    pub(super) fn version(&self, adapter: &str, functions: &[String]) -> Option<&str> {
        let of = |owned: &BTreeSet<String>| {
            owned
                .iter()
                .find_map(|key| self.versions.get(key))
                .map(String::as_str)
        };
        functions
            .iter()
            .filter_map(|function| self.functions.get(function))
            .find_map(of)
            .or_else(|| self.adapters.get(adapter).and_then(of))
    }
}

/// Whether `target` is in `owned` or below a device in it.
fn owns(owned: &BTreeSet<String>, target: &str) -> bool {
    owned.contains(target) || owned.iter().any(|key| key_below(target, key))
}

/// The keys of an array of links (absent, `null` or mistyped: none; the shape check names a
/// mistyped one).
fn targets(links: &Value) -> BTreeSet<String> {
    links
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(link_target)
        .map(uri_key)
        .collect()
}

/// The device of the PCIe function keyed `function`: its `Links.PCIeDevice`, else the device
/// its URI is below.
fn device_of(function: &str, by_key: &BTreeMap<String, &Value>) -> Option<String> {
    by_key
        .get(function)
        .and_then(|resource| resource["Links"]["PCIeDevice"]["@odata.id"].as_str())
        .map(uri_key)
        .or_else(|| {
            function
                .rsplit_once("/pciefunctions/")
                .map(|(device, _)| device.to_owned())
        })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::crawl::FunctionInventory;

    fn adapter(resource: Value, functions: Vec<Value>) -> AdapterInventory {
        AdapterInventory {
            adapter: resource,
            functions: functions
                .into_iter()
                .map(|function| FunctionInventory {
                    function,
                    ..FunctionInventory::default()
                })
                .collect(),
            ..AdapterInventory::default()
        }
    }

    #[test]
    fn an_adapter_owns_its_devices_and_each_function_its_pcie_function_both_ways() {
        let a = "/redfish/v1/Chassis/1/NetworkAdapters/A";
        let adapters = [
            adapter(
                json!({"@odata.id": a, "Controllers": [{"Links": {"PCIeDevices": [
                    {"@odata.id": "/redfish/v1/Chassis/1/PCIeDevices/A"}]}}]}),
                vec![
                    json!({"@odata.id": format!("{a}/NetworkDeviceFunctions/1"),
                        "Links": {"PCIeFunction": {"@odata.id": "/redfish/v1/Chassis/1/PCIeDevices/A/PCIeFunctions/1"}}}),
                    json!({"@odata.id": format!("{a}/NetworkDeviceFunctions/2")}),
                ],
            ),
            adapter(
                json!({"@odata.id": "/redfish/v1/Chassis/1/NetworkAdapters/B"}),
                vec![
                    json!({"@odata.id": "/redfish/v1/Chassis/1/NetworkAdapters/B/NetworkDeviceFunctions/1"}),
                ],
            ),
        ];
        let pcie = [
            json!({"@odata.id": "/redfish/v1/Chassis/1/PCIeDevices/A", "FirmwareVersion": "1.2.3"}),
            json!({"@odata.id": "/redfish/v1/Chassis/1/PCIeDevices/A/PCIeFunctions/1"}),
            // B's function is named only from the PCIe side, under Systems (older generation).
            json!({"@odata.id": "/redfish/v1/Systems/1/PCIeDevices/B/PCIeFunctions/0",
                "Links": {"PCIeDevice": {"@odata.id": "/redfish/v1/Systems/1/PCIeDevices/B"},
                    "NetworkDeviceFunctions": [{"@odata.id": "/redfish/v1/Chassis/1/NetworkAdapters/B/NetworkDeviceFunctions/1/"}]}}),
            json!({"@odata.id": "/redfish/v1/Systems/1/PCIeDevices/B", "FirmwareVersion": "N/A"}),
        ];
        let mut placeholders = Placeholders::default();
        let links = PcieLinks::new(&adapters, &pcie, &mut placeholders);
        let key = |uri: &str| uri_key(uri);
        let (ka, kb) = (key(a), key("/redfish/v1/Chassis/1/NetworkAdapters/B"));
        assert!(links.adapter_owns(&ka, &key("/redfish/v1/Chassis/1/PCIeDevices/A")));
        assert!(links.adapter_owns(
            &ka,
            &key("/redfish/v1/Chassis/1/PCIeDevices/A/PCIeFunctions/7")
        ));
        assert!(!links.adapter_owns(&ka, &key("/redfish/v1/Chassis/1/PCIeDevices/AB")));
        assert!(!links.adapter_owns(&kb, &key("/redfish/v1/Chassis/1/PCIeDevices/A")));
        assert!(links.adapter_owns(&kb, &key("/redfish/v1/Systems/1/PCIeDevices/B")));
        let b1 = key("/redfish/v1/Chassis/1/NetworkAdapters/B/NetworkDeviceFunctions/1");
        assert!(links.function_owns(
            &b1,
            &key("/redfish/v1/Systems/1/PCIeDevices/B/PCIeFunctions/0")
        ));
        let a1 = key(&format!("{a}/NetworkDeviceFunctions/1"));
        let a2 = key(&format!("{a}/NetworkDeviceFunctions/2"));
        assert!(links.function_owns(
            &a1,
            &key("/redfish/v1/Chassis/1/PCIeDevices/A/PCIeFunctions/1")
        ));
        assert!(!links.function_owns(
            &a2,
            &key("/redfish/v1/Chassis/1/PCIeDevices/A/PCIeFunctions/1")
        ));
        assert_eq!(
            links.version(&ka, std::slice::from_ref(&a2)),
            Some("1.2.3"),
            "the adapter's device"
        );
        assert_eq!(links.version(&kb, &[b1]), None, "N/A is no version");
        assert_eq!(placeholders.count(), 1);
    }
}
