//! What a crawl keeps of a resource once it has followed its links: its compact JSON text,
//! parsed again when its host is normalized (of a firmware member or a device function, only
//! what is read of it). A value takes about five times its text: held as text, a fleet
//! capture's peak RSS fell from 272 and 259 to 185 and 193 MiB (1,000 BMCs, 64 in flight) for
//! about 2 ms more CPU per host (CHANGELOG, "Performance history").

use serde_json::Value;

use super::inventory::{AdapterInventory, FunctionInventory, Inventory, SystemInventory};

/// A resource as compact JSON text.
#[derive(Clone, PartialEq, Eq)]
pub struct Held(Box<[u8]>);

impl Held {
    /// `value` as text; the value is dropped here, and its room with it.
    pub fn new(value: Value) -> Self {
        Held(
            serde_json::to_vec(&value)
                .expect("a value always serializes")
                .into_boxed_slice(),
        )
    }

    /// The value again.
    pub fn value(&self) -> Value {
        // The text is a value's own serialization: it always parses, to that value.
        serde_json::from_slice(&self.0).expect("a held value's text is JSON")
    }

    /// Each of `values` as text.
    pub fn all(values: Vec<Value>) -> Vec<Held> {
        values.into_iter().map(Held::new).collect()
    }

    /// A firmware inventory member as text, with only what normalization and the shape check
    /// read of it (`FIRMWARE_READ`, and HPE's `Oem.Hpe`). The rest is most of a member
    /// (Dell's `Oem.Dell.DellSoftwareInventory`: 45 of a host's 53 KB of firmware), held for
    /// nothing while the crawl lasts.
    pub fn firmware(mut member: Value) -> Self {
        if let Value::Object(properties) = &mut member {
            properties.retain(|name, value| match (name.as_str(), value) {
                ("Oem", Value::Object(oem)) => {
                    oem.retain(|vendor, _| vendor == "Hpe");
                    true
                }
                // A mistyped `Oem` stays, for the shape check to name.
                ("Oem", _) => true,
                (name, _) => FIRMWARE_READ.contains(&name),
            });
        }
        Held::new(member)
    }

    /// A network device function as text, with only what is read of its own `Oem` object:
    /// what the OEM properties read by meaning read (`vendors::keep_read`:
    /// Cisco's `VnicConfiguration` too), and Dell's `DellNIC.FQDD` (where the function is:
    /// slot, port, partition, which places its per-port attributes whatever the BMC names
    /// it), without the rest of the resource it is embedded in. Dell links a function's NIC
    /// attributes from `Links.Oem`, followed before it is held, and Dell's embedded resources
    /// are most of a function (port counters and capabilities: 4.6 of 7 KB).
    pub fn function(mut function: Value) -> Self {
        let fqdd = function
            .pointer("/Oem/Dell/DellNIC/FQDD")
            .filter(|fqdd| fqdd.is_string())
            .cloned();
        if let Some(oem) = function.get_mut("Oem") {
            crate::vendors::keep_read(oem);
            if let (Some(fqdd), Value::Object(blocks)) = (fqdd, oem)
                && let Value::Object(dell) = blocks
                    .entry("Dell")
                    .or_insert_with(|| Value::Object(serde_json::Map::new()))
            {
                dell.entry("DellNIC")
                    .or_insert_with(|| serde_json::json!({"FQDD": fqdd}));
            }
        }
        Held::new(function)
    }
}

/// The properties of a firmware inventory member that `normalize::firmware`, `shape` and the
/// PCIe links (`pcie.rs`) read: a property read there and not listed here reads as absent
/// (`redfish::tests::the_resources_held_normalize_and_check_as_the_whole_ones` guards it).
const FIRMWARE_READ: [&str; 8] = [
    "@odata.id",
    "Id",
    "Name",
    "Version",
    "SoftwareId",
    "Status",
    "Location",
    "RelatedItem",
];

impl std::fmt::Debug for Held {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&String::from_utf8_lossy(&self.0))
    }
}

fn values(held: &[Held]) -> Vec<Value> {
    held.iter().map(Held::value).collect()
}

fn value(held: &Option<Held>) -> Option<Value> {
    held.as_ref().map(Held::value)
}

impl Inventory<Held> {
    /// The inventory with each resource parsed again, for normalization.
    pub fn parse(&self) -> Inventory {
        Inventory {
            root: self.root.value(),
            systems: self.systems.iter().map(SystemInventory::parse).collect(),
            adapters: self.adapters.iter().map(AdapterInventory::parse).collect(),
            firmware: values(&self.firmware),
            pcie: values(&self.pcie),
        }
    }
}

impl SystemInventory<Held> {
    fn parse(&self) -> SystemInventory {
        SystemInventory {
            system: self.system.value(),
            uri: self.uri.clone(),
            interfaces: values(&self.interfaces),
            bios: value(&self.bios),
            bios_uri: self.bios_uri.clone(),
            bios_pending: value(&self.bios_pending),
            bios_registry: self.bios_registry.clone(),
            vendor_adapters: values(&self.vendor_adapters),
        }
    }
}

impl AdapterInventory<Held> {
    fn parse(&self) -> AdapterInventory {
        AdapterInventory {
            adapter: self.adapter.value(),
            chassis: self.chassis.clone(),
            adapter_pending: value(&self.adapter_pending),
            ports: values(&self.ports),
            network_ports: values(&self.network_ports),
            port_pending: self
                .port_pending
                .iter()
                .map(|(uri, held)| (uri.clone(), held.value()))
                .collect(),
            functions: self
                .functions
                .iter()
                .map(FunctionInventory::parse)
                .collect(),
        }
    }
}

impl FunctionInventory<Held> {
    fn parse(&self) -> FunctionInventory {
        FunctionInventory {
            function: self.function.value(),
            pending: value(&self.pending),
            oem_attributes: value(&self.oem_attributes),
            oem_attributes_uri: self.oem_attributes_uri.clone(),
            oem_pending: value(&self.oem_pending),
            oem_registry: self.oem_registry.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_held_value_is_the_same_value_again_in_less_room() {
        let value = serde_json::json!({
            "@odata.id": "/redfish/v1/Systems/1",
            "Big": 18446744073709551615u64,
            "Negative": -3,
            "Float": 0.1,
            "Text": "é \"quoted\" \\ \u{1}",
            "Empty": {},
            "List": [null, true, [], {"a": 1}]
        });
        let held = Held::new(value.clone());
        assert_eq!(held.value(), value);
        assert!(held.0.len() < serde_json::to_string_pretty(&value).unwrap().len());
    }

    #[test]
    fn a_firmware_member_is_held_with_what_is_read_of_it() {
        let read = serde_json::json!({
            "@odata.id": "/redfish/v1/UpdateService/FirmwareInventory/3",
            "Id": "3",
            "Name": "NIC",
            "Version": "1.2",
            "SoftwareId": "0x1",
            "Status": {"State": "Enabled", "Health": "OK"},
            "Location": {"PartLocation": {"ServiceLabel": "Slot 3"}},
            "RelatedItem": [{"@odata.id": "/redfish/v1/Chassis/1/PCIeDevices/3"}],
            "Oem": {"Hpe": {"DeviceContext": "Slot 3", "DeviceClass": "x"}}
        });
        let mut whole = read.clone();
        whole["Description"] = "Represents Firmware Inventory".into();
        whole["Oem"]["Dell"] = serde_json::json!({"DellSoftwareInventory": {"HashValue": "05d7"}});
        assert_eq!(Held::firmware(whole).value(), read);
        // Not an object: kept as it is, for the shape check to name.
        let mistyped = serde_json::json!({"Id": "3", "Oem": "Hpe", "Updateable": true});
        assert_eq!(
            Held::firmware(mistyped).value(),
            serde_json::json!({"Id": "3", "Oem": "Hpe"})
        );
        assert_eq!(Held::firmware(Value::Null).value(), Value::Null);
    }

    #[test]
    fn a_function_is_held_without_the_resources_its_own_oem_object_embeds() {
        let mut read = serde_json::json!({
            "Id": "NIC.Slot.5-1",
            "Ethernet": {"MACAddress": "b8:3f:d2:90:97:c4"},
            "Links": {"Oem": {"Dell": {"DellNetworkAttributes": {"@odata.id": "/a"}}}}
        });
        let mut whole = read.clone();
        whole["Oem"] = serde_json::json!({
            "Dell": {
                "@odata.type": "#DellOem.v1_3_0.DellOemResources",
                "DellNICPortMetrics": {"@odata.id": "/m", "RxBytes": 1},
                "DellFC": null
            },
            "Acme": {"NicConfig": {"LldpAgentEnabled": true, "Priorities": [3]}}
        });
        read["Oem"] = serde_json::json!({
            "Dell": {"DellFC": null},
            "Acme": {"NicConfig": {"LldpAgentEnabled": true}}
        });
        assert_eq!(Held::function(whole).value(), read);
    }

    #[test]
    fn a_function_keeps_dell_s_fqdd_alone_of_the_resource_it_is_in() {
        // Dell's FQDD stays: it places the function's per-port attributes.
        let mut whole = serde_json::json!({"Id": "NIC.Slot.5-1"});
        whole["Oem"] = serde_json::json!({"Dell": {"DellNIC": {"@odata.id": "/n",
            "FQDD": "NIC.Slot.5-1", "FamilyVersion": "24.40.10.00"},
            "DellNICPortMetrics": {"@odata.id": "/m", "RxBytes": 1}}});
        let mut kept = serde_json::json!({"Id": "NIC.Slot.5-1"});
        kept["Oem"] = serde_json::json!({"Dell": {"DellNIC": {"FQDD": "NIC.Slot.5-1"}}});
        assert_eq!(Held::function(whole).value(), kept);
    }

    #[test]
    fn a_function_keeps_the_cisco_block_a_vendor_module_reads() {
        let cisco = serde_json::json!({"VnicConfiguration": {"UplinkPort": 1}});
        let whole = serde_json::json!({"Id": "eth1", "Oem": {"Cisco": cisco.clone()}});
        assert_eq!(
            Held::function(whole).value(),
            serde_json::json!({"Id": "eth1", "Oem": {"Cisco": cisco}})
        );
    }
}
