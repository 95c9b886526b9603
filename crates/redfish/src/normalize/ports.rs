//! Ports, network ports and device functions of each network adapter → `nic/<key>/bmc/…`.
//!
//! One key per physical port, through every schema generation. A `Port` (current schema)
//! and a `NetworkPort` (deprecated, still served beside it by iDRAC) describing the same
//! physical port are one port: they are joined when they share an `Id`, when they list the
//! same MAC, or when one function links both (`Links.PhysicalNetworkPortAssignment` to the
//! Port, `Links.PhysicalPortAssignment` to the NetworkPort). A function belongs to the port
//! its first resolvable definite link names, in this order: `Links.PhysicalNetworkPortAssignment`
//! (NetworkDeviceFunction v1.5+), `Links.PhysicalPortAssignment`, then an
//! `AssignablePhysicalNetworkPorts` or `AssignablePhysicalPorts` list of exactly one port, then
//! the port the vendor's OEM data pins it to (a Cisco vNIC's `UplinkPort`,
//! `vendors::function_port`). A function only *assignable* to several ports is on none of them
//! (a note names the candidates): putting it on the first would key a port by a MAC that may
//! not be its own.
//! Where a Port and a NetworkPort of one physical port disagree, the Port (current schema)
//! wins and a note names both.
//!
//! Nothing depends on the numbers a BMC gives its members or on the order it lists them in:
//! each adapter and port is named by its [`identity`] (its `Id` when that is a name; for a
//! bare number, what the hardware says: a location, a hardware port id), and ordered by it.
//! A function is named by what the hardware says whatever its `Id` (its MAC, else its
//! InfiniBand port GUID or Fibre Channel WWPN, under its port's key), since a BMC renames
//! functions too; the `Id` is kept as the identity fact `function/<name>/id`.
//!
//! The port's key is its permanent MAC, taken from the first of: the Port's
//! `Ethernet.AssociatedMACAddresses` (Port v1.4+; the schema describes its first entry as
//! "the programmed address of the lowest numbered network device function"), the
//! NetworkPort's `AssociatedNetworkAddresses`, the vendor's OEM MAC, and — when the port
//! itself names none — the `PermanentMACAddress` (else `MACAddress`) of its first function
//! by identity (by MAC, lowest first; functions without one after, by name), the schema's
//! "lowest numbered network device function" told by what no renaming changes. NPAR
//! partitions with their own MACs therefore all sit under the MAC of partition 1, each under
//! its own `function/<mac>/…`.
//!
//! Every fact is claimed by the resource it came from. The same path written twice with
//! different values (two chassis exposing one adapter with different data, two ports
//! claiming one MAC) is a problem naming both URIs; an adapter whose facts all repeat what
//! another adapter already said (one adapter reached through two chassis) is kept once,
//! with a note. A port without a MAC is keyed `port-<adapter>-<port>` by their identities,
//! with the chassis Id in front (`port-<chassis>-<adapter>-<port>`) when two adapters of the
//! crawl share a name; where an identity is only the BMC's number, the note says the key can
//! change. The identity facts `adapter` and `port` are written only when stable.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use serde_json::Value;

use super::firmware::FirmwareLinks;
use super::identity::{self, Identity};
use super::normalized::Normalized;
use super::properties::{function_mac, function_ports, id_of, mac_of};
use crate::crawl::{AdapterInventory, FunctionInventory};
use crate::protocols::{rdma_protocol_fact, rdma_protocols};
use crate::vendors::{self, Leaves, OemOf, Vendor};
use driftgate_model::placeholder::Placeholders;
use driftgate_model::{FlowControl, FunctionType, LinkTechnology, MacAddr};
use driftgate_snapshot::nic::port_key;
use driftgate_snapshot::{FactPath, FactValue, Scalar, path_segment};

/// At most this many collisions are listed per adapter; the rest are counted.
const MAX_COLLISIONS: usize = 5;

/// Who said a fact first.
struct Claim {
    value: FactValue,
    /// The resource the value was read from.
    source: String,
    /// The adapter that resource belongs to.
    adapter: String,
}

/// The facts of every adapter's ports and functions.
pub(super) fn adapters_facts(
    adapters: &[AdapterInventory],
    vendor: Vendor,
    firmware: &FirmwareLinks,
    out: &mut Normalized,
) {
    let mut claims: BTreeMap<FactPath, Claim> = BTreeMap::new();
    // Adapter names repeat across chassis (`NetworkAdapters/1` of two chassis, without a
    // location): a MAC-less key then needs the chassis too. Unique names keep the short key,
    // so existing snapshots keep theirs.
    let mut name_count: HashMap<String, usize> = HashMap::new();
    for adapter in adapters {
        *name_count
            .entry(identity::adapter(&adapter.adapter).name().to_owned())
            .or_default() += 1;
    }
    for adapter in adapters {
        let adapter_uri = resource_uri(&adapter.adapter);
        let qualified = name_count
            .get(identity::adapter(&adapter.adapter).name())
            .is_some_and(|count| *count > 1);
        let written = adapter_facts(
            adapter,
            vendor,
            firmware,
            qualified,
            (&mut out.notes, &mut out.placeholders),
            &mut out.problems,
        );
        unknown_firmware(&adapter_uri, firmware.doubts(&adapter_uri), &written, out);
        let mut repeated: BTreeSet<String> = BTreeSet::new();
        let mut collisions = Vec::new();
        let mut new = 0usize;
        for (path, value, source) in written {
            match claims.get(&path) {
                None => {
                    new += 1;
                    out.facts.insert(path.clone(), value.clone());
                    claims.insert(
                        path,
                        Claim {
                            value,
                            source,
                            adapter: adapter_uri.clone(),
                        },
                    );
                }
                Some(claim) if claim.value == value => {
                    if claim.adapter != adapter_uri {
                        repeated.insert(claim.adapter.clone());
                    }
                }
                Some(claim) => collisions.push(format!(
                    "{path}: {} says {}, {source} says {value}; two resources claim the same \
                     fact (kept the first)",
                    claim.source, claim.value
                )),
            }
        }
        if collisions.len() > MAX_COLLISIONS {
            let more = collisions.len() - MAX_COLLISIONS;
            collisions.truncate(MAX_COLLISIONS);
            collisions.push(format!("{adapter_uri}: {more} more colliding facts"));
        }
        if collisions.is_empty() && new == 0 && !repeated.is_empty() {
            let others: Vec<String> = repeated.into_iter().collect();
            out.notes.push(format!(
                "{adapter_uri} repeats what {} reported (one adapter reached through two \
                 chassis); kept once",
                others.join(", ")
            ));
        }
        out.problems.extend(collisions);
    }
}

/// One physical port: its `Port`/`NetworkPort` resources (NetworkPorts first, then Ports, each
/// kind by descending [`Identity::order`], so the last member, whose values win, is the first
/// Port whatever the listing order or numbering) and its functions (in [`Identity::order`]).
#[derive(Default)]
struct PortGroup<'a> {
    members: Vec<&'a Value>,
    functions: Vec<&'a FunctionInventory>,
}

/// The problem of each port of the adapter at `adapter_uri` (whose facts are `written`) whose
/// firmware cannot be told, as `doubts` say why: a firmware inventory member that may be its
/// has a malformed `RelatedItem` (`firmware::related`). The adapter is named when no port is.
fn unknown_firmware(
    adapter_uri: &str,
    doubts: &[String],
    written: &[(FactPath, FactValue, String)],
    out: &mut Normalized,
) {
    if doubts.is_empty() {
        return;
    }
    let why = doubts.join("; ");
    let keys: BTreeSet<&str> = written
        .iter()
        .filter_map(|(path, _, _)| path.as_str().strip_prefix("nic/")?.split_once("/bmc/"))
        .map(|(key, _)| key)
        .collect();
    if keys.is_empty() {
        out.problems.push(format!(
            "{adapter_uri}: which firmware inventory member its ports run cannot be told: {why}"
        ));
    }
    for key in keys {
        out.problems.push(format!(
            "nic/{key}/bmc/firmware/inventory (which firmware inventory member this port \
             runs) cannot be told: {why}"
        ));
    }
}

/// The facts of one adapter, each with the URI of the resource it came from; two of its ports
/// keyed alike (one MAC claimed by both) are a problem.
fn adapter_facts(
    adapter: &AdapterInventory,
    vendor: Vendor,
    firmware: &FirmwareLinks,
    qualified: bool,
    (notes, placeholders): (&mut Vec<String>, &mut Placeholders),
    problems: &mut Vec<String>,
) -> Vec<(FactPath, FactValue, String)> {
    let adapter_name = identity::adapter(&adapter.adapter);
    let adapter_uri = resource_uri(&adapter.adapter);
    // The name of a MAC-less key: `<adapter>-…`, or `<chassis>-<adapter>-…` when the adapter's
    // name is not unique in the crawl.
    let key_base = match chassis_of(&adapter_uri).filter(|_| qualified) {
        Some(chassis) => format!("{chassis}-{}", adapter_name.name()),
        None => adapter_name.name().to_owned(),
    };
    let function_names = function_names(&adapter.functions);
    let name_of = |function: &FunctionInventory| {
        function_names
            .get(&resource_uri(&function.function))
            .cloned()
            .unwrap_or_else(|| identity::function(&function.function))
    };
    let mut functions: Vec<&FunctionInventory> = adapter.functions.iter().collect();
    functions.sort_by_cached_key(|f| name_of(f).order());
    let (groups, unassigned) = group_ports(adapter, &functions, vendor, notes);
    let mut written = Vec::new();
    let mut keyed: HashMap<String, String> = HashMap::new();
    for group in groups {
        // The last member is the Port when there is one: it names the port.
        let main = group.members.last().expect("every group has a member");
        let uri = resource_uri(main);
        let port_name = identity::port(main);
        let mac = group_mac(&group, vendor);
        // Without a MAC, port names repeat across adapters (`Ports/1`): qualify them.
        let key = port_key(mac, "port", &format!("{key_base}-{}", port_name.name()));
        if mac.is_none() {
            notes.push(format!(
                "{uri}: no MAC in Ethernet.AssociatedMACAddresses, AssociatedNetworkAddresses, \
                 the vendor OEM block or a function assigned to it; keyed nic/{key} (does not \
                 join the operating system's view){}",
                unstable(&[&adapter_name, &port_name])
            ));
        }
        if let Some(other) = keyed.insert(key.clone(), uri.clone()) {
            problems.push(format!(
                "nic/{key}: {other} and {uri} are two ports of one adapter that claim one MAC; \
                 what they say is kept as one port's"
            ));
        }
        let leaves = group_leaves(
            adapter,
            &group,
            (vendor, firmware, &adapter_uri),
            (&adapter_name, &port_name),
            notes,
        );
        push_leaves(&mut written, &key, "", &leaves, &uri, placeholders);
        for function in &group.functions {
            let name = name_of(function);
            push_function(
                &mut written,
                &key,
                (function, &name),
                vendor,
                notes,
                placeholders,
            );
        }
    }
    // A function assigned to no port that has a MAC of its own is its own port: on a service
    // that lists no Ports or NetworkPorts at all, the function is the only view of the port.
    for function in unassigned {
        unassigned_function_facts(
            &mut written,
            function,
            &name_of(function),
            (adapter, vendor, firmware),
            (&adapter_name, &adapter_uri, &key_base),
            (notes, placeholders),
        );
    }
    written
}

/// The leaves of one port `group` of `adapter`: its identity, its adapter's settings at the
/// controller serving it, its firmware, what its members say and what is staged for them.
fn group_leaves(
    adapter: &AdapterInventory,
    group: &PortGroup,
    (vendor, firmware, adapter_uri): (Vendor, &FirmwareLinks, &str),
    (adapter_name, port_name): (&Identity, &Identity),
    notes: &mut Vec<String>,
) -> Leaves {
    // Staged controllers are read at the index of the current controller serving the
    // port: a `Settings` object lists its controllers without `Links`.
    let controller = controller_index(&adapter.adapter, group);
    let mut leaves = adapter_leaves(&adapter.adapter, controller, vendor, notes);
    set_identity(&mut leaves, "adapter", adapter_name);
    set_identity(&mut leaves, "port", port_name);
    // Firmware named like a function or the port (Dell's FQDDs, the function's own where
    // it gives it); a number names none.
    let mut names: Vec<String> = group
        .functions
        .iter()
        .map(|f| position_of(vendor, &f.function))
        .collect();
    names.push(id_of(
        group.members.last().expect("every group has a member"),
    ));
    names.retain(|name| !identity::is_numbered(name));
    let functions: Vec<String> = group
        .functions
        .iter()
        .map(|f| resource_uri(&f.function))
        .collect();
    port_firmware(firmware, adapter_uri, &names, &functions, &mut leaves);
    let mut pending = match &adapter.adapter_pending {
        // What the current resource's notes say is not said again of its staged values.
        Some(staged) => adapter_leaves(staged, controller, vendor, &mut Vec::new()),
        None => Leaves::default(),
    };
    member_settings(adapter, group, vendor, (&mut leaves, &mut pending), notes);
    leaves.add_pending(&pending);
    leaves
}

/// What the members of `group` say of the port into `leaves` (later members win: the Port over
/// the NetworkPort; a disagreement is said) and what is staged for them into `pending`.
fn member_settings(
    adapter: &AdapterInventory,
    group: &PortGroup,
    vendor: Vendor,
    (leaves, pending): (&mut Leaves, &mut Leaves),
    notes: &mut Vec<String>,
) {
    let mut said: BTreeMap<String, (FactValue, String)> = BTreeMap::new();
    for member in &group.members {
        let member_uri = resource_uri(member);
        let mut own = Leaves::default();
        port_settings(member, vendor, &mut own, notes);
        for (leaf, value) in own.iter() {
            if let Some((earlier, earlier_uri)) = said.get(leaf)
                && earlier != value
            {
                notes.push(format!(
                    "{member_uri} and {earlier_uri} describe one physical port but disagree on {}: {value} and {earlier}; kept {value} ({member_uri})",
                    property_of(leaf)
                ));
            }
            said.insert(leaf.to_owned(), (value.clone(), member_uri.clone()));
            leaves.set(leaf, value.clone());
        }
        if let Some(staged) = adapter.port_pending.get(&member_uri) {
            port_settings(staged, vendor, pending, &mut Vec::new());
        }
    }
}

/// The facts of a `function` of `adapter` assigned to no port that has a MAC of its own: it is
/// its own port. On a service that lists no Ports or NetworkPorts at all, the function is the
/// only view of the port.
fn unassigned_function_facts(
    written: &mut Vec<(FactPath, FactValue, String)>,
    function: &FunctionInventory,
    function_name: &Identity,
    (adapter, vendor, firmware): (&AdapterInventory, Vendor, &FirmwareLinks),
    (adapter_name, adapter_uri, key_base): (&Identity, &str, &str),
    (notes, placeholders): (&mut Vec<String>, &mut Placeholders),
) {
    let uri = resource_uri(&function.function);
    let mac = function_mac(&function.function);
    let key = port_key(mac, "port", &format!("{key_base}-{}", function_name.name()));
    if mac.is_none() {
        notes.push(format!(
            "{uri}: a function assigned to no port and without a MAC; keyed nic/{key} \
             (does not join the operating system's view){}",
            unstable(&[adapter_name, function_name])
        ));
    }
    let mut leaves = Leaves::default();
    set_identity(&mut leaves, "adapter", adapter_name);
    // The adapter's firmware is this function's too: it is the only view of its port.
    let controller = controller_of(&adapter.adapter, &[uri.as_str()]).unwrap_or(0);
    controller_firmware(&adapter.adapter["Controllers"][controller], &mut leaves);
    port_firmware(
        firmware,
        adapter_uri,
        &[position_of(vendor, &function.function)],
        std::slice::from_ref(&uri),
        &mut leaves,
    );
    push_leaves(written, &key, "", &leaves, &uri, placeholders);
    push_function(
        written,
        &key,
        (function, function_name),
        vendor,
        notes,
        placeholders,
    );
}

/// Where a function is, as its vendor names it ([`vendors::function_position`]), else its
/// `Id`.
fn position_of(vendor: Vendor, function: &Value) -> String {
    vendors::function_position(vendor, function).map_or_else(|| id_of(function), str::to_owned)
}

/// The firmware of a port of the adapter at `adapter_uri` (whose port and function Ids are
/// `names`, function URIs `functions`): the inventory component the port or one of its
/// functions runs (`firmware/inventory`), and, when its controller reports no version, the
/// `FirmwareVersion` of its PCIe device (`firmware/version`).
fn port_firmware(
    firmware: &FirmwareLinks,
    adapter_uri: &str,
    names: &[String],
    functions: &[String],
    leaves: &mut Leaves,
) {
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    if let Some(component) = firmware.component_of(adapter_uri, &names, functions) {
        leaves.set("firmware/inventory", component);
    }
    if !leaves.has("firmware/version")
        && let Some(version) = firmware.pcie_version(adapter_uri, functions)
    {
        leaves.set("firmware/version", version);
    }
}

/// Sets the identity leaf `leaf` when the identity is stable: a BMC's number is no name, and
/// a fact holding it would change whenever the BMC renumbers.
fn set_identity(leaves: &mut Leaves, leaf: &str, name: &Identity) {
    if let Some(name) = name.stable() {
        leaves.set(leaf, name);
    }
}

/// What a note about a key adds when the key holds a number that is all a resource has for a
/// name (`; named by the BMC's number 2 alone …: the key changes if the BMC renumbers`), else
/// nothing.
fn unstable(names: &[&Identity]) -> String {
    let numbers: Vec<&str> = names
        .iter()
        .filter(|name| name.stable().is_none())
        .map(|name| name.name())
        .collect();
    if numbers.is_empty() {
        return String::new();
    }
    format!(
        "; named by the BMC's number{} {} alone (no location, serial number, hardware port id \
         or address to name it by): the key changes if the BMC renumbers",
        if numbers.len() > 1 { "s" } else { "" },
        numbers.join(" and "),
    )
}

/// The Chassis Id in an adapter's URI (`/redfish/v1/Chassis/<id>/NetworkAdapters/…`).
fn chassis_of(adapter_uri: &str) -> Option<&str> {
    let mut segments = adapter_uri.split('/');
    segments.find(|segment| *segment == "Chassis")?;
    segments.next().filter(|id| !id.is_empty())
}

/// The Redfish property a port leaf is read from, for notes.
fn property_of(leaf: &str) -> String {
    match leaf {
        "flow_control/configured" => "FlowControlConfiguration".to_owned(),
        "flow_control/status" => "FlowControlStatus".to_owned(),
        "lldp/enabled" => "Ethernet.LLDPEnabled".to_owned(),
        "link_technology" => "LinkNetworkTechnology/ActiveLinkTechnology".to_owned(),
        other => other.to_owned(),
    }
}

/// Joins in `parent` each of the first `legacy` `members` (the NetworkPorts) with the Ports of
/// the same Id or the same MAC: one physical port. The lists are the BMC's, of any length: the
/// Ports are indexed once instead of pairing each with every NetworkPort.
fn join_legacy_ports(members: &[&Value], legacy: usize, vendor: Vendor, parent: &mut [usize]) {
    let mut ports_by_id: HashMap<&str, Vec<usize>> = HashMap::new();
    let mut ports_by_mac: HashMap<MacAddr, Vec<usize>> = HashMap::new();
    for (new, port) in members.iter().enumerate().skip(legacy) {
        if let Some(id) = port["Id"].as_str() {
            ports_by_id.entry(id).or_default().push(new);
        }
        if let Some(mac) = own_mac(port, vendor) {
            ports_by_mac.entry(mac).or_default().push(new);
        }
    }
    for (old, network_port) in members.iter().enumerate().take(legacy) {
        let same_id = network_port["Id"]
            .as_str()
            .and_then(|id| ports_by_id.get(id));
        let same_mac = own_mac(network_port, vendor).and_then(|mac| ports_by_mac.get(&mac));
        for new in same_id.into_iter().chain(same_mac).flatten() {
            union(parent, old, *new);
        }
    }
}

/// Gives each of `functions` to the group of the port it is assigned to (by its links, else as
/// its vendor says); the functions assigned to none are returned, with a note for each one that
/// several ports could take.
fn assign_functions<'a>(
    adapter: &'a AdapterInventory,
    functions: &[&'a FunctionInventory],
    (members, index): (&[&'a Value], &BTreeMap<String, usize>),
    (parent, by_root): (&mut [usize], &mut BTreeMap<usize, PortGroup<'a>>),
    vendor: Vendor,
    notes: &mut Vec<String>,
) -> Vec<&'a FunctionInventory> {
    let mut unassigned = Vec::new();
    for function in functions {
        let links = function_ports(&function.function);
        let port = links
            .iter()
            .filter(|link| link.definite)
            .find_map(|link| index.get(link.uri).copied())
            .or_else(|| {
                vendors::function_port(vendor, &adapter.adapter, &function.function, members)
            });
        match port {
            Some(i) => {
                let root = find(parent, i);
                if let Some(group) = by_root.get_mut(&root) {
                    group.functions.push(function);
                }
            }
            None => {
                let candidates: Vec<&str> = links
                    .iter()
                    .map(|link| link.uri)
                    .filter(|uri| index.contains_key(*uri))
                    .collect();
                if !candidates.is_empty() {
                    notes.push(format!(
                        "{}: assignable to {} but assigned to none of them \
                         (no Links.PhysicalNetworkPortAssignment or PhysicalPortAssignment); \
                         kept as a function on no port",
                        resource_uri(&function.function),
                        candidates.join(", ")
                    ));
                }
                unassigned.push(*function);
            }
        }
    }
    unassigned
}

/// The ports of an adapter joined into physical ports, each with its functions, and the
/// functions no port of this adapter claims (a note for each one several ports could take).
fn group_ports<'a>(
    adapter: &'a AdapterInventory,
    functions: &[&'a FunctionInventory],
    vendor: Vendor,
    notes: &mut Vec<String>,
) -> (Vec<PortGroup<'a>>, Vec<&'a FunctionInventory>) {
    let legacy = adapter.network_ports.len();
    let members: Vec<&Value> = adapter.network_ports.iter().chain(&adapter.ports).collect();
    let index: BTreeMap<String, usize> = members
        .iter()
        .enumerate()
        .map(|(i, port)| (resource_uri(port), i))
        .collect();
    let mut parent: Vec<usize> = (0..members.len()).collect();
    join_legacy_ports(&members, legacy, vendor, &mut parent);
    // What one function names as its port (a Port and a NetworkPort) is one port.
    for function in functions {
        let linked: Vec<usize> = function_ports(&function.function)
            .iter()
            .filter(|link| link.definite)
            .filter_map(|link| index.get(link.uri).copied())
            .collect();
        for pair in linked.windows(2) {
            union(&mut parent, pair[0], pair[1]);
        }
    }
    let mut roots: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for i in 0..members.len() {
        roots.entry(find(&mut parent, i)).or_default().push(i);
    }
    let mut by_root: BTreeMap<usize, PortGroup<'a>> = BTreeMap::new();
    for (root, mut indices) in roots {
        // NetworkPorts before Ports, each in descending order: the first Port last.
        indices.sort_by_cached_key(|i| {
            (
                *i >= legacy,
                std::cmp::Reverse(identity::port(members[*i]).order()),
            )
        });
        by_root.entry(root).or_default().members =
            indices.into_iter().map(|i| members[i]).collect();
    }
    let unassigned = assign_functions(
        adapter,
        functions,
        (&members, &index),
        (&mut parent, &mut by_root),
        vendor,
        notes,
    );
    (by_root.into_values().collect(), unassigned)
}

fn find(parent: &mut [usize], mut i: usize) -> usize {
    while parent[i] != i {
        parent[i] = parent[parent[i]];
        i = parent[i];
    }
    i
}

fn union(parent: &mut [usize], a: usize, b: usize) {
    let (a, b) = (find(parent, a), find(parent, b));
    // The lower index (a NetworkPort, or the first Port) stays the root: stable ordering.
    parent[a.max(b)] = a.min(b);
}

/// The MAC a port resource names itself.
fn own_mac(port: &Value, vendor: Vendor) -> Option<MacAddr> {
    first_mac(&port["Ethernet"]["AssociatedMACAddresses"])
        .or_else(|| first_mac(&port["AssociatedNetworkAddresses"]))
        .or_else(|| vendors::port_mac(vendor, port))
}

fn first_mac(addresses: &Value) -> Option<MacAddr> {
    addresses.as_array()?.iter().find_map(mac_of)
}

/// The key MAC of a physical port (see the module documentation for the order).
fn group_mac(group: &PortGroup<'_>, vendor: Vendor) -> Option<MacAddr> {
    // Port resources (current schema) first, then NetworkPorts.
    group
        .members
        .iter()
        .rev()
        .find_map(|port| own_mac(port, vendor))
        .or_else(|| {
            group
                .functions
                .iter()
                .find_map(|f| mac_of(&f.function["Ethernet"]["PermanentMACAddress"]))
        })
        .or_else(|| {
            group
                .functions
                .iter()
                .find_map(|f| mac_of(&f.function["Ethernet"]["MACAddress"]))
        })
}

/// Adapter-level facts read from `Controllers[controller]` of an adapter (or of its pending
/// settings), the vendor's adapter facts, and its other OEM properties by meaning.
fn adapter_leaves(
    adapter: &Value,
    controller: usize,
    vendor: Vendor,
    notes: &mut Vec<String>,
) -> Leaves {
    let mut leaves = Leaves::default();
    let controller = &adapter["Controllers"][controller];
    let capabilities = &controller["ControllerCapabilities"];
    leaves.set_scalar(
        "dcb_capable",
        &capabilities["DataCenterBridging"]["Capable"],
    );
    leaves.set_scalar("npar", &capabilities["NPAR"]["NparEnabled"]);
    controller_firmware(controller, &mut leaves);
    vendors::adapter_facts(vendor, adapter, &mut leaves);
    vendors::oem_facts(vendor, OemOf::Adapter, adapter, &mut leaves, notes);
    leaves
}

/// NetworkAdapter.v1 `Controllers[].FirmwarePackageVersion` of `controller`: some BMCs report
/// a NIC's firmware only here, with no FirmwareInventory entry. A placeholder is no version.
fn controller_firmware(controller: &Value, leaves: &mut Leaves) {
    if let Some(version) = leaves.text("firmware/version", &controller["FirmwarePackageVersion"]) {
        leaves.set("firmware/version", version);
    }
}

/// The index of the controller whose `Links.Ports`, `Links.NetworkPorts` or
/// `Links.NetworkDeviceFunctions` names a port or function of `group`; else 0 (on most
/// adapters the only one).
fn controller_index(adapter: &Value, group: &PortGroup<'_>) -> usize {
    let ours: Vec<String> = group
        .members
        .iter()
        .copied()
        .chain(group.functions.iter().map(|f| &f.function))
        .map(resource_uri)
        .collect();
    let ours: Vec<&str> = ours.iter().map(String::as_str).collect();
    controller_of(adapter, &ours).unwrap_or(0)
}

/// The index of the controller whose `Links.Ports`, `Links.NetworkPorts` or
/// `Links.NetworkDeviceFunctions` names one of `ours` (URIs without a trailing `/`).
fn controller_of(adapter: &Value, ours: &[&str]) -> Option<usize> {
    let ours: BTreeSet<&str> = ours.iter().copied().collect();
    adapter["Controllers"].as_array().and_then(|controllers| {
        controllers.iter().position(|controller| {
            ["Ports", "NetworkPorts", "NetworkDeviceFunctions"]
                .iter()
                .filter_map(|kind| controller["Links"][kind].as_array())
                .flatten()
                .filter_map(|link| link["@odata.id"].as_str())
                .any(|uri| ours.contains(uri.trim_end_matches('/')))
        })
    })
}

/// The settings of a port resource (or of its pending `Settings`): the network technology it
/// runs, flow control, LLDP, the vendor's port facts and its other OEM properties by meaning.
///
/// `link_technology` is Port `LinkNetworkTechnology` ("the current network technology for
/// this port", Port v1.2+) or NetworkPort `ActiveLinkTechnology` ("network port active link
/// technology"): `ethernet`, `infiniband`, `fibre_channel`. A VPI card (ConnectX) runs either
/// InfiniBand or Ethernet by a firmware setting that an update can reset. An InfiniBand port
/// is RDMA by nature; that is said by `link_technology` alone and not repeated as
/// `rdma_protocol`, which the checks of RoCE over DCB read (an InfiniBand link has its own
/// credit-based flow control, no DCBX or PFC).
fn port_settings(port: &Value, vendor: Vendor, leaves: &mut Leaves, notes: &mut Vec<String>) {
    let technology = port["LinkNetworkTechnology"]
        .as_str()
        .or_else(|| port["ActiveLinkTechnology"].as_str());
    if let Some(technology) = technology {
        leaves.set(
            "link_technology",
            LinkTechnology::parse(technology).as_str(),
        );
    }
    for (property, leaf) in [
        ("FlowControlConfiguration", "flow_control/configured"),
        ("FlowControlStatus", "flow_control/status"),
    ] {
        // Port.v1 has them under `Ethernet`, NetworkPort.v1 at the top.
        let value = match &port["Ethernet"][property] {
            Value::Null => &port[property],
            value => value,
        };
        if let Some(value) = leaves.text(leaf, value) {
            leaves.set(leaf, FlowControl::parse(value).as_str());
        }
    }
    let lldp = &port["Ethernet"];
    leaves.set_scalar("lldp/enabled", &lldp["LLDPEnabled"]);
    for (property, leaf) in [
        ("LLDPTransmit", "lldp/transmit"),
        ("LLDPReceive", "lldp/receive"),
    ] {
        if let Some(fields) = lldp[property].as_object() {
            for (name, value) in fields {
                leaves.set_scalar(&format!("{leaf}/{}", path_segment(name)), value);
            }
        }
    }
    vendors::port_facts(vendor, port, leaves);
    vendors::oem_facts(vendor, OemOf::Port, port, leaves, notes);
}

/// The standard settings of a function resource (or of its pending `Settings`), and its OEM
/// properties by meaning ([`vendors::oem_facts`]).
///
/// - `function_type`: `NetDevFuncType`, which "shall contain the configured capability of
///   this network device function" (read-write): what the operating system sees, `ethernet`,
///   `iscsi`, `fcoe`, `fibre_channel`, `infiniband`, or `disabled` ("neither enumerated nor
///   visible to the operating system"). A configuration: an update that resets a partition to
///   `disabled` or another personality takes the device the host used away. An InfiniBand
///   function is RDMA by nature; that is said here alone and not repeated as `rdma_protocol`
///   (see [`port_settings`]).
/// - `rdma_protocol`: the RDMA protocols `Ethernet.AdditionalProtocols` names
///   (`crate::protocols`: the list of protocols the function *supports*, v1.10+), or
///   `none`; and `rdma_enabled` false when it names none — a function that supports no RDMA
///   protocol runs none. A list that names one says the function can run it, not that it
///   does: `rdma_enabled` is then left to a source that says so (Dell's
///   `RDMANICModeOnPort`). An absent list says nothing.
fn function_settings(
    function: &Value,
    vendor: Vendor,
    leaves: &mut Leaves,
    notes: &mut Vec<String>,
) {
    if let Some(kind) = function["NetDevFuncType"].as_str() {
        leaves.set("function_type", FunctionType::parse(kind).as_str());
    }
    if let Some(protocols) = rdma_protocols(&function["Ethernet"]["AdditionalProtocols"]) {
        if protocols.is_empty() {
            leaves.set("rdma_enabled", false);
        }
        leaves.set("rdma_protocol", rdma_protocol_fact(&protocols));
    }
    vendors::oem_facts(vendor, OemOf::Function, function, leaves, notes);
}

/// What a function can be, apart from what it is (`capabilities/…`): `NetDevFuncCapabilities`,
/// which "shall contain an array of capabilities for this network device function" (the
/// `function_type`s it may be configured as), as the sorted list
/// `capabilities/function_types`. Read from the live resource only: a capability is not
/// staged.
fn function_capabilities(function: &Value, leaves: &mut Leaves) {
    let Some(types) = function["NetDevFuncCapabilities"].as_array() else {
        return;
    };
    let names: BTreeSet<String> = types
        .iter()
        .filter_map(Value::as_str)
        .map(|kind| FunctionType::parse(kind).as_str().to_owned())
        .collect();
    let names = names.into_iter().map(|name| Scalar::Text(name.into()));
    leaves.set(
        "capabilities/function_types",
        FactValue::list(names.collect()),
    );
}

/// The name of each function of an adapter, by URI: its [`identity::function`], except that
/// functions the hardware names alike (two that report one MAC) keep their `Id`s: one name
/// must not merge two functions' facts.
fn function_names(functions: &[FunctionInventory]) -> HashMap<String, Identity> {
    let names: Vec<(String, Identity)> = functions
        .iter()
        .map(|f| (resource_uri(&f.function), identity::function(&f.function)))
        .collect();
    let mut count: HashMap<&str, usize> = HashMap::new();
    for (_, name) in &names {
        *count.entry(name.name()).or_default() += 1;
    }
    let shared: BTreeSet<String> = count
        .into_iter()
        .filter(|(_, n)| *n > 1)
        .map(|(name, _)| name.to_owned())
        .collect();
    names
        .into_iter()
        .zip(functions)
        .map(|((uri, name), function)| match name {
            Identity::Hardware(hardware) if shared.contains(&hardware) => {
                (uri, identity::by_id(id_of(&function.function)))
            }
            name => (uri, name),
        })
        .collect()
}

/// The facts of one function (with its name, see [`function_names`]) under
/// `function/<name>/…` of the port `key`, with the BMC's name for it as `function/<name>/id`
/// (when a name, not a number); a function named by its `Id` alone is said.
fn push_function(
    written: &mut Vec<(FactPath, FactValue, String)>,
    key: &str,
    (function, name): (&FunctionInventory, &Identity),
    vendor: Vendor,
    notes: &mut Vec<String>,
    placeholders: &mut Placeholders,
) {
    let resource = &function.function;
    let mut leaves = Leaves::default();
    if let Some(mac) = function_mac(resource) {
        leaves.set("mac", mac.to_string());
    }
    let id = id_of(resource);
    if !identity::is_numbered(&id) {
        leaves.set("id", id.as_str());
    }
    if !matches!(name, Identity::Hardware(_)) {
        notes.push(format!(
            "{}: keyed nic/{key}/bmc/function/{} by the BMC's name for it (no MAC, InfiniBand \
             port GUID or Fibre Channel WWPN of its own, or one another function of the \
             adapter gives too): the key changes if the BMC renames or renumbers its functions",
            resource_uri(resource),
            path_segment(name.name())
        ));
    }
    function_settings(resource, vendor, &mut leaves, notes);
    vendors::function_oem_facts(vendor, resource, &mut leaves);
    function_capabilities(resource, &mut leaves);
    let registry = function.oem_registry.as_deref();
    if let Some(attributes) = &function.oem_attributes {
        vendors::function_facts(vendor, resource, attributes, registry, &mut leaves, notes);
    }
    let mut pending = Leaves::default();
    if let Some(staged) = &function.pending {
        function_settings(staged, vendor, &mut pending, &mut Vec::new());
        vendors::function_oem_facts(vendor, staged, &mut pending);
    }
    if let Some(staged) = &function.oem_pending {
        // What the current attributes' notes say is not said again of their staged values.
        let mut said_already = Vec::new();
        vendors::function_facts(
            vendor,
            resource,
            staged,
            registry,
            &mut pending,
            &mut said_already,
        );
    }
    leaves.add_pending(&pending);
    let scope = format!("function/{}/", path_segment(name.name()));
    push_leaves(
        written,
        key,
        &scope,
        &leaves,
        &resource_uri(resource),
        placeholders,
    );
}

/// The facts of `leaves` under `nic/<key>/bmc/<scope>`, claimed by `source`; the leaves whose
/// value was a placeholder are counted, as `source`'s.
fn push_leaves(
    written: &mut Vec<(FactPath, FactValue, String)>,
    key: &str,
    scope: &str,
    leaves: &Leaves,
    source: &str,
    placeholders: &mut Placeholders,
) {
    for leaf in leaves.placeholders() {
        placeholders.saw(source, &format!("{scope}{leaf}"));
    }
    for (leaf, value) in leaves.iter() {
        let path = FactPath::new(format!("nic/{key}/bmc/{scope}{leaf}"))
            .expect("NIC keys and leaves are sanitized segments");
        written.push((path, value.clone(), source.to_owned()));
    }
}

/// The `@odata.id` of a resource without a trailing `/` (empty when it names none).
fn resource_uri(resource: &Value) -> String {
    resource["@odata.id"]
        .as_str()
        .unwrap_or("")
        .trim_end_matches('/')
        .to_owned()
}

#[cfg(test)]
mod tests;
