//! What a crawl found, in the shape normalization needs.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::Value;

use crate::attributes::Registry;

/// What a crawl found, in the shape normalization needs: each resource as a JSON value (`V`
/// = [`Value`]), or, as the crawl returns it, held as text ([`Held`](super::Held)) until its host's turn
/// to be normalized ([`Inventory::parse`]).
#[derive(Debug, Clone, Default)]
pub struct Inventory<V = Value> {
    /// The service root.
    pub root: V,
    /// Each computer system with its interfaces and BIOS.
    pub systems: Vec<SystemInventory<V>>,
    /// Each network adapter of each chassis.
    pub adapters: Vec<AdapterInventory<V>>,
    /// Firmware inventory entries.
    pub firmware: Vec<V>,
    /// The PCIe devices and functions that tie a NIC to its firmware (see `pcie.rs`), each
    /// once.
    pub pcie: Vec<V>,
}

/// One `Systems` member.
#[derive(Debug, Clone, Default)]
pub struct SystemInventory<V = Value> {
    /// The system resource.
    pub system: V,
    /// The URI it was read from (its `Members` link); `None` when it came inline in an
    /// expanded collection. A write is aimed from it, never from the `@odata.id` it claims.
    pub uri: Option<String>,
    /// Its `EthernetInterfaces` members.
    pub interfaces: Vec<V>,
    /// Its `Bios` resource.
    pub bios: Option<V>,
    /// The URI the `Bios` resource was read from.
    pub bios_uri: Option<String>,
    /// The BIOS `@Redfish.Settings` object: values pending until the next reset.
    pub bios_pending: Option<V>,
    /// The BIOS attribute registry, when the service publishes it.
    pub bios_registry: Option<Arc<Registry>>,
    /// The vendor's own list of the system's network adapters, where it keeps one (HPE iLO 5
    /// `BaseNetworkAdapters`): it may hold the only version of a NIC's firmware.
    pub vendor_adapters: Vec<V>,
}

/// One `NetworkAdapters` member.
#[derive(Debug, Clone, Default)]
pub struct AdapterInventory<V = Value> {
    /// The adapter resource.
    pub adapter: V,
    /// The chassis whose `NetworkAdapters` listed it.
    pub chassis: ChassisOf,
    /// Its `@Redfish.Settings` object: values pending until the next reset.
    pub adapter_pending: Option<V>,
    /// `Ports` members (current schema).
    pub ports: Vec<V>,
    /// `NetworkPorts` members (deprecated, still served by iDRAC).
    pub network_ports: Vec<V>,
    /// The `@Redfish.Settings` object of each port or network port that has one (values
    /// pending until the next reset), by the port's `@odata.id`.
    pub port_pending: BTreeMap<String, V>,
    /// `NetworkDeviceFunctions` members with their OEM attributes.
    pub functions: Vec<FunctionInventory<V>>,
}

/// The chassis a network adapter was listed under, as the crawl read it: which system a reset
/// applies the adapter's staged settings with.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ChassisOf {
    /// The URI the chassis was read from; `None` when it came inline in an expanded collection.
    pub uri: Option<String>,
    /// Its `Links.ComputerSystems`.
    pub systems: Vec<String>,
}

/// One `NetworkDeviceFunctions` member.
#[derive(Debug, Clone, Default)]
pub struct FunctionInventory<V = Value> {
    /// The function resource.
    pub function: V,
    /// Its `@Redfish.Settings` object: values pending until the next reset.
    pub pending: Option<V>,
    /// The vendor's resource of NIC (HII) attributes of this function, where the vendor
    /// module names a link to one (Dell `DellNetworkAttributes`).
    pub oem_attributes: Option<V>,
    /// The URI they were read from.
    pub oem_attributes_uri: Option<String>,
    /// Their pending `Settings`.
    pub oem_pending: Option<V>,
    /// Their attribute registry, when the service publishes it: it types secrets. Shared:
    /// every function that names the same registry holds the one read.
    pub oem_registry: Option<Arc<Registry>>,
}
