//! Shapes: every property the crawl follows or normalization reads, checked against the type
//! its Redfish schema gives it. Pure: no I/O.
//!
//! Normalization reads with `as_str()`/`as_bool()` and skips what does not fit, which is
//! right for a property that is absent or `null` (Redfish: "no value") but wrong for one of
//! another type: a `Members` that is an object, a link that is a string, an `Attributes` block
//! that is an array, a MAC that is a number would make facts vanish while the source looked
//! complete. [`check`] names each such property, so the capture is `partial` instead. A
//! property no fact is read from is said apart, as a note ([`check_unjudged`], [`check_pcie`]),
//! and a firmware member's `RelatedItem` ([`related_item`]) is weighed by normalization by the
//! ports its links may tie: a defect judges only what it touches.
//! Types are those of the DMTF schemas (Resource, Port.v1, NetworkDeviceFunction.v1,
//! EthernetInterface.v1, NetworkAdapter.v1, Bios.v1, SoftwareInventory.v1, PCIeDevice.v1,
//! PCIeFunction.v1) and of the vendor OEM blocks `super::vendors` reads.

use serde_json::Value;

use super::crawl::{AdapterInventory, FunctionInventory, Inventory, SystemInventory};
use super::links::{ShapeError, at, link, link_target, uri_of};
use super::vendors::{self, Vendor};
use driftgate_model::{FlowControl, LldpAgentMode, MacAddr};

/// What a property's schema allows besides `null`.
#[derive(Debug, Clone, Copy)]
enum Expect {
    Object,
    Array,
    Text,
    Bool,
    /// A whole number.
    Integer,
    /// `^([0-9A-Fa-f]{2}[:-]){5}([0-9A-Fa-f]{2})$` (the empty string some services send for "no
    /// address" is taken as absent).
    Mac,
    /// An array of MACs.
    Macs,
    /// An array of strings: NetworkPort `AssociatedNetworkAddresses` holds MACs or, on Fibre
    /// Channel ports, WWNs.
    Addresses,
    /// `None`, `TX`, `RX`, `TX_RX` (Port.v1 and NetworkPort.v1 `FlowControl`).
    FlowControl,
    /// An attribute block: an object whose values are strings, numbers, booleans or null.
    Attributes,
    /// An array of links (`AssignablePhysicalNetworkPorts`, `Controllers[].Links.Ports`).
    Links,
    /// An array of strings (`Ethernet.AdditionalProtocols`, `NetDevFuncCapabilities`).
    Texts,
    /// `Enabled` or `Disabled` (a vendor's on/off attribute).
    OnOff,
    /// `Off`, `Mandatory` or `All` (an LLDP agent mode).
    LldpMode,
}

impl Expect {
    fn describe(self) -> &'static str {
        match self {
            Expect::Object => "an object",
            Expect::Array => "an array",
            Expect::Text => "a string",
            Expect::Bool => "a boolean",
            Expect::Integer => "an integer",
            Expect::Mac => "a MAC address string",
            Expect::Macs => "an array of MAC address strings",
            Expect::Addresses => "an array of address strings",
            Expect::FlowControl => "one of \"None\", \"TX\", \"RX\", \"TX_RX\"",
            Expect::Attributes => "an object of attributes",
            Expect::Links => "an array of links",
            Expect::Texts => "an array of strings",
            Expect::OnOff => "\"Enabled\" or \"Disabled\"",
            Expect::LldpMode => "one of \"Off\", \"Mandatory\", \"All\"",
        }
    }

    /// Whether `value` (not null) fits; for arrays and attribute blocks, the first bad
    /// member.
    fn fits(self, value: &Value) -> Result<(), Option<(String, &Value)>> {
        let ok = match self {
            Expect::Object => value.is_object(),
            Expect::Array => value.is_array(),
            Expect::Text => value.is_string(),
            Expect::Bool => value.is_boolean(),
            Expect::Integer => value.is_i64() || value.is_u64(),
            Expect::Mac => value.as_str().is_some_and(is_mac),
            Expect::Macs => {
                return each(value, |item| item.as_str().is_some_and(is_mac));
            }
            Expect::Addresses | Expect::Texts => return each(value, Value::is_string),
            Expect::Links => return each(value, |item| link_target(item).is_some()),
            Expect::OnOff => value.as_str().and_then(vendors::on_off).is_some(),
            Expect::LldpMode => value
                .as_str()
                .is_some_and(|text| !matches!(LldpAgentMode::parse(text), LldpAgentMode::Other(_))),
            Expect::FlowControl => value
                .as_str()
                .is_some_and(|text| !matches!(FlowControl::parse(text), FlowControl::Other(_))),
            Expect::Attributes => match value.as_object() {
                Some(attributes) => {
                    return match attributes
                        .iter()
                        .find(|(_, v)| matches!(v, Value::Array(_) | Value::Object(_)))
                    {
                        Some((name, v)) => Err(Some((name.clone(), v))),
                        None => Ok(()),
                    };
                }
                None => false,
            },
        };
        if ok { Ok(()) } else { Err(None) }
    }
}

/// Whether `value` is an array whose items are null or `fit`; else the first bad item.
fn each(value: &Value, fit: impl Fn(&Value) -> bool) -> Result<(), Option<(String, &Value)>> {
    let items = value.as_array().ok_or(None)?;
    match items
        .iter()
        .enumerate()
        .find(|(_, item)| !(item.is_null() || fit(item)))
    {
        Some((index, item)) => Err(Some((index.to_string(), item))),
        None => Ok(()),
    }
}

fn is_mac(text: &str) -> bool {
    text.is_empty() || MacAddr::parse(text).is_some()
}

/// Collects the problems of one inventory.
#[derive(Default)]
struct Checker {
    problems: Vec<ShapeError>,
}

impl Checker {
    /// Checks `resource[path]` against `expect`; absent and `null` pass.
    fn check(&mut self, resource: &Value, path: &[&str], expect: Expect) {
        let uri = uri_of(resource, "(a resource without @odata.id)");
        let value = match at(uri, resource, path) {
            Ok(Some(value)) => value,
            Ok(None) => return,
            Err(problem) => return self.problems.push(problem),
        };
        match expect.fits(value) {
            Ok(()) => {}
            Err(None) => {
                self.problems.push(ShapeError::new(
                    uri,
                    &path.join("/"),
                    expect.describe(),
                    value,
                ));
            }
            Err(Some((member, bad))) => {
                let expected = match expect {
                    Expect::Attributes => "a string, number, boolean or null",
                    Expect::Addresses => "an address string",
                    Expect::Texts => "a string",
                    Expect::Links => "a link (an object with a string @odata.id)",
                    _ => Expect::Mac.describe(),
                };
                self.problems.push(ShapeError::new(
                    uri,
                    &format!("{}/{member}", path.join("/")),
                    expected,
                    bad,
                ));
            }
        }
    }

    fn link(&mut self, resource: &Value, path: &[&str]) {
        let uri = uri_of(resource, "(a resource without @odata.id)");
        if let Err(problem) = link(uri, resource, path) {
            self.problems.push(problem);
        }
    }

    fn adapter(&mut self, adapter: &AdapterInventory, vendor: Vendor) {
        let resource = &adapter.adapter;
        self.check(resource, &["Id"], Expect::Text);
        // What names a numbered adapter (`normalize::identity`).
        self.check(resource, &["SerialNumber"], Expect::Text);
        self.check(resource, &["Controllers"], Expect::Array);
        let capabilities = ["Controllers", "0", "ControllerCapabilities"];
        for (path, expect) in [
            (&["DataCenterBridging", "Capable"][..], Expect::Bool),
            (&["NPAR", "NparEnabled"][..], Expect::Bool),
        ] {
            let full: Vec<&str> = capabilities.iter().chain(path).copied().collect();
            self.check(resource, &full, expect);
        }
        // Which controller serves which port, and the firmware it reports.
        if let Some(controllers) = resource["Controllers"].as_array() {
            for index in 0..controllers.len() {
                let index = index.to_string();
                let at = |rest: &[&'static str]| {
                    let mut path = vec!["Controllers", index.as_str()];
                    path.extend_from_slice(rest);
                    path
                };
                self.check(resource, &at(&["FirmwarePackageVersion"]), Expect::Text);
                for kind in [
                    "Ports",
                    "NetworkPorts",
                    "NetworkDeviceFunctions",
                    "PCIeDevices",
                ] {
                    self.check(resource, &at(&["Links", kind]), Expect::Links);
                }
            }
        }
        // What ties the adapter to its firmware through PCIe and its assembly.
        self.check(resource, &["Links", "PCIeDevices"], Expect::Links);
        self.link(resource, &["Assembly"]);
        for port in adapter.network_ports.iter().chain(&adapter.ports) {
            self.port(port, vendor);
        }
        // A port's pending settings are read like the port.
        for pending in adapter.port_pending.values() {
            self.port(pending, vendor);
        }
        for function in &adapter.functions {
            self.function(function, vendor);
        }
        vendors::check_adapter(vendor, &mut |path, kind| {
            self.check(resource, path, vendor_expect(kind));
        });
        if let Some(pending) = &adapter.adapter_pending {
            vendors::check_adapter(vendor, &mut |path, kind| {
                self.check(pending, path, vendor_expect(kind));
            });
        }
    }

    fn port(&mut self, port: &Value, vendor: Vendor) {
        self.check(port, &["Id"], Expect::Text);
        // What names a numbered port, and the technology it runs.
        for property in [
            "PortId",
            "PhysicalPortNumber",
            "LinkNetworkTechnology",
            "ActiveLinkTechnology",
        ] {
            self.check(port, &[property], Expect::Text);
        }
        self.check(
            port,
            &["Location", "PartLocation", "ServiceLabel"],
            Expect::Text,
        );
        self.check(port, &["AssociatedNetworkAddresses"], Expect::Addresses);
        self.check(port, &["Ethernet"], Expect::Object);
        self.check(port, &["Ethernet", "AssociatedMACAddresses"], Expect::Macs);
        for property in ["FlowControlConfiguration", "FlowControlStatus"] {
            self.check(port, &["Ethernet", property], Expect::FlowControl);
            self.check(port, &[property], Expect::FlowControl);
        }
        self.check(port, &["Ethernet", "LLDPEnabled"], Expect::Bool);
        self.check(port, &["Ethernet", "LLDPTransmit"], Expect::Object);
        self.check(port, &["Ethernet", "LLDPReceive"], Expect::Object);
        vendors::check_port(vendor, &mut |path, kind| {
            self.check(port, path, vendor_expect(kind));
        });
    }

    fn function(&mut self, function: &FunctionInventory, vendor: Vendor) {
        let resource = &function.function;
        self.check(resource, &["Id"], Expect::Text);
        self.check(resource, &["Ethernet"], Expect::Object);
        self.check(resource, &["Ethernet", "PermanentMACAddress"], Expect::Mac);
        self.check(resource, &["Ethernet", "MACAddress"], Expect::Mac);
        self.link(resource, &["Links", "PhysicalPortAssignment"]);
        self.link(resource, &["Links", "PhysicalNetworkPortAssignment"]);
        self.link(resource, &["Links", "PCIeFunction"]);
        self.check(resource, &["AssignablePhysicalPorts"], Expect::Links);
        self.check(resource, &["AssignablePhysicalNetworkPorts"], Expect::Links);
        // What names a numbered function besides its MAC.
        for path in [
            ["InfiniBand", "PermanentPortGUID"],
            ["InfiniBand", "PortGUID"],
            ["FibreChannel", "PermanentWWPN"],
            ["FibreChannel", "WWPN"],
        ] {
            self.check(resource, &path, Expect::Text);
        }
        self.check(resource, &["NetDevFuncCapabilities"], Expect::Texts);
        for settings in [Some(resource), function.pending.as_ref()]
            .into_iter()
            .flatten()
        {
            self.check(
                settings,
                &["Ethernet", "AdditionalProtocols"],
                Expect::Texts,
            );
            self.check(settings, &["NetDevFuncType"], Expect::Text);
            vendors::check_function(vendor, &mut |path, kind| {
                self.check(settings, path, vendor_expect(kind));
            });
        }
        for attributes in [&function.oem_attributes, &function.oem_pending]
            .into_iter()
            .flatten()
        {
            self.check(attributes, &["Attributes"], Expect::Attributes);
            vendors::check_function_attributes(vendor, &mut |path, kind| {
                self.check(attributes, path, vendor_expect(kind));
            });
        }
    }

    fn system(&mut self, system: &SystemInventory, vendor: Vendor) {
        for adapter in &system.vendor_adapters {
            vendors::check_system_adapter(vendor, &mut |path, kind| {
                self.check(adapter, path, vendor_expect(kind));
            });
            let ports = adapter["PhysicalPorts"].as_array().map_or(0, Vec::len);
            for index in 0..ports {
                let index = index.to_string();
                self.check(
                    adapter,
                    &["PhysicalPorts", &index, "MacAddress"],
                    Expect::Mac,
                );
            }
        }
        for interface in &system.interfaces {
            self.check(interface, &["Id"], Expect::Text);
            self.check(interface, &["Links", "RelatedInterfaces"], Expect::Links);
            self.check(interface, &["PermanentMACAddress"], Expect::Mac);
            self.check(interface, &["MACAddress"], Expect::Mac);
        }
        for bios in [&system.bios, &system.bios_pending].into_iter().flatten() {
            self.check(bios, &["Attributes"], Expect::Attributes);
        }
    }

    /// What the firmware identity reads (`super::normalize`'s firmware module): a mistyped
    /// `Status.State` would keep an absent entry, a mistyped `DeviceContext` or location would
    /// change a component's identity or its slot. `Name` and `SoftwareId` name only a member
    /// numbered by position (see [`check_unjudged`] for the others); `RelatedItem` is judged by
    /// what its links would tie ([`related_item`]).
    fn firmware(&mut self, item: &Value) {
        self.check(item, &["Id"], Expect::Text);
        if numbered(item) {
            self.names(item);
        }
        self.check(item, &["Version"], Expect::Text);
        self.check(item, &["Status"], Expect::Object);
        self.check(item, &["Status", "State"], Expect::Text);
        self.check(item, &["Oem", "Hpe", "DeviceContext"], Expect::Text);
        self.check(
            item,
            &["Location", "PartLocation", "ServiceLabel"],
            Expect::Text,
        );
    }

    /// What names a firmware member numbered by position besides its context.
    fn names(&mut self, item: &Value) {
        self.check(item, &["Name"], Expect::Text);
        self.check(item, &["SoftwareId"], Expect::Text);
    }
}

/// Whether a firmware inventory member is numbered by position (its `Id`, else the last
/// segment of its URI, a bare number), so that its `Name` and `SoftwareId` name it.
fn numbered(item: &Value) -> bool {
    let id = super::normalize::id_of(item);
    !id.is_empty() && id.bytes().all(|b| b.is_ascii_digit())
}

fn vendor_expect(kind: vendors::Kind) -> Expect {
    match kind {
        vendors::Kind::Text => Expect::Text,
        vendors::Kind::Bool => Expect::Bool,
        vendors::Kind::Integer => Expect::Integer,
        vendors::Kind::Array => Expect::Array,
        vendors::Kind::Object => Expect::Object,
        vendors::Kind::Mac => Expect::Mac,
        vendors::Kind::OnOff => Expect::OnOff,
        vendors::Kind::LldpMode => Expect::LldpMode,
    }
}

/// Every property normalization reads that has the wrong type for its schema, in crawl
/// order. Absent and `null` properties are fine: Redfish says they have no value.
pub fn check(inventory: &Inventory) -> Vec<ShapeError> {
    let vendor = Vendor::detect(&inventory.root);
    let mut checker = Checker::default();
    // The vendor decides which OEM mappings run: a mistyped one would drop them all.
    checker.check(&inventory.root, &["Vendor"], Expect::Text);
    checker.check(&inventory.root, &["Oem"], Expect::Object);
    for adapter in &inventory.adapters {
        checker.adapter(adapter, vendor);
    }
    for system in &inventory.systems {
        checker.system(system, vendor);
    }
    for item in &inventory.firmware {
        checker.firmware(item);
    }
    // What links an adapter to its firmware inventory entry.
    for adapter in &inventory.adapters {
        for path in [
            &["Location", "PartLocation", "ServiceLabel"][..],
            &["Oem", "Hpe", "Location", "PartLocation", "ServiceLabel"][..],
        ] {
            checker.check(&adapter.adapter, path, Expect::Text);
        }
    }
    checker.problems
}

/// The properties no fact is read from that have the wrong type: the `Name` and `SoftwareId`
/// of a firmware inventory member named by its `Id` (a Dell FQDD, `BIOS`, `CIMC`), which
/// normalization never reads. The capture says them rather than counting them against it.
pub fn check_unjudged(inventory: &Inventory) -> Vec<ShapeError> {
    let mut checker = Checker::default();
    for item in inventory.firmware.iter().filter(|item| !numbered(item)) {
        checker.names(item);
    }
    checker.problems
}

/// The properties of a firmware inventory member's `RelatedItem` (an array of links) that have
/// the wrong type. They matter only where the links would tie the member to a NIC's port, so
/// normalization judges them there (`normalize`'s firmware module): a problem naming the
/// port's firmware fact, else a note.
pub fn related_item(item: &Value) -> Vec<ShapeError> {
    let mut checker = Checker::default();
    checker.check(item, &["RelatedItem"], Expect::Links);
    checker.problems
}

/// The properties of the PCIe resources read to tie a NIC to its firmware (its version, the
/// links both ways) that have the wrong type. They only help name a port's firmware, so the
/// capture says them rather than counting them against its settings.
pub fn check_pcie(inventory: &Inventory) -> Vec<ShapeError> {
    let mut checker = Checker::default();
    for resource in &inventory.pcie {
        checker.check(resource, &["FirmwareVersion"], Expect::Text);
        checker.link(resource, &["Links", "PCIeDevice"]);
        checker.check(resource, &["Links", "PCIeFunctions"], Expect::Links);
        checker.check(
            resource,
            &["Links", "NetworkDeviceFunctions"],
            Expect::Links,
        );
    }
    checker.problems
}

#[cfg(test)]
mod tests;
