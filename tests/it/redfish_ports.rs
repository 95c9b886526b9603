//! Redfish port identity end to end: one key per physical port through every schema
//! generation, functions under their own sub-key, staged port and function settings, NIC
//! firmware per port. Over the fixtures in `tests/fixtures/redfish/` (DMTF mockup layout, made
//! up MACs) and every real capture in `tests/fixtures/public/redfish`.

use crate::common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use common::capture::{Captured, capture};
use common::{public_data, root};
use serde_json::Value;

fn fixture(name: &str) -> Captured {
    let dir = root().join("tests/fixtures/redfish").join(name);
    let captured = capture(&format!("redfish=mockup:{}", dir.display()), &[], false);
    assert_eq!(
        (captured.code, captured.status()),
        (0, "complete"),
        "{name}: {}",
        captured.error()
    );
    captured
}

fn fact<'a>(captured: &'a Captured, path: &str) -> &'a Value {
    &captured.snapshot["facts"][path]
}

fn nic_keys(captured: &Captured) -> BTreeSet<String> {
    captured.snapshot["facts"]
        .as_object()
        .unwrap()
        .keys()
        .filter_map(|path| path.strip_prefix("nic/")?.split('/').next())
        .map(str::to_owned)
        .collect()
}

#[test]
fn current_schema_ports_are_keyed_by_the_mac_of_the_function_assigned_to_them() {
    let captured = fixture("dgx-standard-ports");
    // Port 0 names no MAC: its function links to it through PhysicalNetworkPortAssignment.
    let port0 = "nic/02:5a:d0:00:01:00/bmc";
    assert_eq!(fact(&captured, &format!("{port0}/port")), "0");
    assert_eq!(
        fact(&captured, &format!("{port0}/flow_control/configured")),
        "tx_rx"
    );
    // The BMC numbers its functions: each is named by its MAC.
    assert_eq!(
        fact(
            &captured,
            &format!("{port0}/function/02:5a:d0:00:01:00/mac")
        ),
        "02:5a:d0:00:01:00"
    );
    // Port 1 names its MAC in Ethernet.AssociatedMACAddresses; its function links through
    // AssignablePhysicalNetworkPorts.
    let port1 = "nic/02:5a:d0:00:01:10/bmc";
    assert_eq!(fact(&captured, &format!("{port1}/port")), "1");
    assert_eq!(fact(&captured, &format!("{port1}/lldp/enabled")), true);
    assert_eq!(
        fact(
            &captured,
            &format!("{port1}/function/02:5a:d0:00:01:10/mac")
        ),
        "02:5a:d0:00:01:10"
    );
    // Port 2 has no MAC anywhere: a stable name-based key, and a note saying why.
    assert_eq!(fact(&captured, "nic/port-cx7_0-2/bmc/port"), "2");
    assert!(
        captured.stderr.contains("Ports/2: no MAC"),
        "{}",
        captured.stderr
    );
    let keys = nic_keys(&captured);
    assert_eq!(
        keys,
        ["02:5a:d0:00:01:00", "02:5a:d0:00:01:10", "port-cx7_0-2"]
            .map(String::from)
            .into(),
        "one key per physical port"
    );
}

/// The standard protocol properties, as a service of the current schema serves them
/// (`standard-protocols`: NetworkDeviceFunction v1.11 with `Ethernet.AdditionalProtocols`,
/// `NetDevFuncType` and `NetDevFuncCapabilities`, Port v1.11 with `LinkNetworkTechnology` and
/// `PortId`, every member numbered by the BMC): a list that says `RDMA` is RDMA supported, not
/// off; `RoCEv2` beside `TCP` is RoCEv2; an empty list is off; an InfiniBand function and port
/// are InfiniBand; what a function can be stays apart from what it is.
#[test]
fn standard_protocol_lists_function_types_and_link_technologies_are_facts() {
    let captured = fixture("standard-protocols");
    let facts: BTreeMap<&str, String> = captured.snapshot["facts"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(path, value)| (path.as_str(), value.to_string()))
        .collect();
    let (one, two, ib) = (
        "nic/02:c6:00:00:02:01/bmc",
        "nic/02:c6:00:00:02:02/bmc",
        "nic/port-pcie_slot_2-3/bmc",
    );
    let capabilities = r#"["disabled","ethernet","infiniband"]"#;
    let mut expected: BTreeMap<String, String> = BTreeMap::new();
    for (port, number, technology) in [
        (one, 1, "ethernet"),
        (two, 2, "ethernet"),
        (ib, 3, "infiniband"),
    ] {
        for (leaf, value) in [
            ("adapter", r#""PCIe Slot 2""#.to_owned()),
            ("port", format!(r#""{number}""#)),
            ("dcb_capable", "true".to_owned()),
            ("firmware/version", r#""20.39.1002""#.to_owned()),
            ("npar", "false".to_owned()),
            ("link_technology", format!(r#""{technology}""#)),
        ] {
            expected.insert(format!("{port}/{leaf}"), value);
        }
    }
    for port in [one, two] {
        for (leaf, value) in [
            ("flow_control/configured", r#""tx_rx""#),
            ("flow_control/status", r#""tx_rx""#),
            ("lldp/enabled", "true"),
        ] {
            expected.insert(format!("{port}/{leaf}"), value.to_owned());
        }
    }
    for (function, leaves) in [
        // `["RDMA"]`: RDMA, the protocol not named.
        (
            format!("{one}/function/02:c6:00:00:02:01"),
            &[
                ("function_type", r#""ethernet""#),
                ("mac", r#""02:c6:00:00:02:01""#),
                ("rdma_protocol", r#""rdma""#),
            ][..],
        ),
        // `["TCP", "RoCEv2"]`.
        (
            format!("{two}/function/02:c6:00:00:02:02"),
            &[
                ("function_type", r#""ethernet""#),
                ("mac", r#""02:c6:00:00:02:02""#),
                ("rdma_protocol", r#""rocev2""#),
            ],
        ),
        // A disabled partition of port 2 whose list is empty.
        (
            format!("{two}/function/02:c6:00:00:02:12"),
            &[
                ("function_type", r#""disabled""#),
                ("mac", r#""02:c6:00:00:02:12""#),
                ("rdma_enabled", "false"),
                ("rdma_protocol", r#""none""#),
            ],
        ),
        // `NetDevFuncType: InfiniBand`, named by its port GUID (it has no MAC).
        (
            format!("{ib}/function/0x02c6000300000203"),
            &[("function_type", r#""infiniband""#)],
        ),
    ] {
        expected.insert(
            format!("{function}/capabilities/function_types"),
            capabilities.to_owned(),
        );
        for (leaf, value) in leaves {
            expected.insert(format!("{function}/{leaf}"), (*value).to_owned());
        }
    }
    let expected: BTreeMap<&str, String> = expected
        .iter()
        .map(|(path, value)| (path.as_str(), value.clone()))
        .collect();
    assert_eq!(facts, expected);
    assert!(
        captured
            .stderr
            .contains("Ports/3: no MAC in Ethernet.AssociatedMACAddresses"),
        "the InfiniBand port has no MAC: {}",
        captured.stderr
    );
}

#[test]
fn standard_rdma_and_nvidia_dcbx_are_typed_facts() {
    let captured = fixture("dgx-standard-ports");
    let port0 = "nic/02:5a:d0:00:01:00/bmc";
    let function0 = format!("{port0}/function/02:5a:d0:00:01:00");
    // AdditionalProtocols lists what the function supports: the protocol, not "enabled".
    assert_eq!(
        fact(&captured, &format!("{function0}/rdma_protocol")),
        "rocev2"
    );
    assert!(fact(&captured, &format!("{function0}/rdma_enabled")).is_null());
    let function1 = "nic/02:5a:d0:00:01:10/bmc/function/02:5a:d0:00:01:10";
    assert_eq!(
        fact(&captured, &format!("{function1}/rdma_enabled")),
        false,
        "AdditionalProtocols without an RDMA protocol"
    );
    assert_eq!(
        fact(&captured, &format!("{function1}/rdma_protocol")),
        "none"
    );
    // NVIDIA's DCBXModeEnabled: true is DcbxMode::Enabled.
    assert_eq!(fact(&captured, &format!("{port0}/dcbx_mode")), "enabled");
    // TXMode/RXMode are modes (LldpAgentMode), not the on/off `lldp/nic_agent` leaf: a
    // leaf is never also a sub-tree.
    assert_eq!(
        fact(&captured, &format!("{port0}/lldp/nic_agent_mode/transmit")),
        "all"
    );
    assert_eq!(
        fact(&captured, &format!("{port0}/lldp/nic_agent_mode/receive")),
        "all"
    );
    assert_no_leaf_is_a_subtree(&captured);
}

/// No fact path is also the prefix of another (`lldp/nic_agent` beside
/// `lldp/nic_agent/port1`).
fn assert_no_leaf_is_a_subtree(captured: &Captured) {
    let facts = captured.snapshot["facts"].as_object().unwrap();
    for path in facts.keys() {
        for (at, _) in path.match_indices('/') {
            assert!(
                !facts.contains_key(&path[..at]),
                "{} is a leaf and a sub-tree ({path})",
                &path[..at]
            );
        }
    }
}

#[test]
fn dell_lldp_port_n_is_one_boolean_on_port_n_and_mapped_attributes_are_stored_once() {
    let dir = public_data("redfish/libredfish-dell_multi_dpu");
    let captured = capture(&format!("redfish=mockup:{}", dir.display()), &[], false);
    assert_eq!(captured.status(), "complete", "{}", captured.error());
    // The DPU's function NIC.Slot.5-1 is on physical port 1: LldpPort1 (Enabled) is its
    // agent, LldpPort2 belongs to port 2's functions.
    let function = "nic/a0:88:c2:08:54:5c/bmc/function/a0:88:c2:08:54:5c";
    assert_eq!(fact(&captured, &format!("{function}/lldp/nic_agent")), true);
    for gone in [
        "lldp/nic_agent/port1",
        "lldp/nic_agent/port2",
        "hii/LldpPort1",
        "hii/LldpPort2",
        "hii/VirtualizationMode",
    ] {
        assert!(
            fact(&captured, &format!("{function}/{gone}")).is_null(),
            "{function}/{gone}"
        );
    }
    assert!(fact(&captured, &format!("{function}/npar")).is_boolean());
    assert_no_leaf_is_a_subtree(&captured);
    let facts = captured.snapshot["facts"].as_object().unwrap();
    for raw in [
        "Broadcom_DCBX",
        "RDMAProtocolSupport",
        "RDMANICModeOnPort",
        "VirtualizationMode",
        "LldpPort1",
    ] {
        assert!(
            !facts.keys().any(|p| p.ends_with(&format!("/hii/{raw}"))),
            "{raw} is mapped: stored once, normalized"
        );
    }
}

#[test]
fn older_generation_network_ports_and_ports_merge_into_one_key() {
    let captured = fixture("older-generation-ports");
    // NetworkPort NIC.Slot.3-1 names the MAC; Port NIC.Slot.3-1 (same Id) holds the current
    // schema's values, which win.
    let one = "nic/02:0b:10:00:03:01/bmc";
    assert_eq!(fact(&captured, &format!("{one}/port")), "NIC.Slot.3-1");
    assert_eq!(
        fact(&captured, &format!("{one}/flow_control/configured")),
        "tx_rx"
    );
    assert_eq!(fact(&captured, &format!("{one}/flow_control/status")), "rx");
    assert_eq!(
        fact(&captured, &format!("{one}/function/02:0b:10:00:03:01/mac")),
        "02:0b:10:00:03:01"
    );
    // Port 2: no MAC on either port resource; its function (AssignablePhysicalPorts only)
    // gives it.
    let two = "nic/02:0b:10:00:03:02/bmc";
    assert_eq!(fact(&captured, &format!("{two}/port")), "NIC.Slot.3-2");
    assert_eq!(
        fact(&captured, &format!("{two}/flow_control/configured")),
        "none"
    );
    assert_eq!(
        nic_keys(&captured),
        ["02:0b:10:00:03:01", "02:0b:10:00:03:02"]
            .map(String::from)
            .into()
    );
}

#[test]
fn npar_partitions_of_one_port_never_overwrite_each_other() {
    let captured = fixture("npar-four-partitions");
    let port = "nic/02:d3:11:00:01:01/bmc";
    for (part, mode) in [(1, "ieee"), (2, "disabled"), (3, "cee"), (4, "ieee")] {
        // Keyed by its MAC; the BMC's name for it beside.
        let function = format!("{port}/function/02:d3:11:00:01:0{part}");
        assert_eq!(
            fact(&captured, &format!("{function}/id")),
            format!("NIC.Integrated.1-1-{part}").as_str()
        );
        assert_eq!(
            fact(&captured, &format!("{function}/dcbx_mode")),
            mode,
            "partition {part}"
        );
        assert_eq!(
            fact(&captured, &format!("{function}/mac")),
            format!("02:d3:11:00:01:0{part}").as_str()
        );
        // A version attribute is firmware, not a setting.
        assert_eq!(
            fact(&captured, &format!("{function}/firmware/hii/FamilyVersion")),
            "22.31.6"
        );
        assert!(fact(&captured, &format!("{function}/hii/FamilyVersion")).is_null());
    }
    // Only the staged value that differs is a pending fact.
    let two = format!("{port}/function/02:d3:11:00:01:02");
    assert_eq!(fact(&captured, &format!("{two}/pending/dcbx_mode")), "ieee");
    assert!(fact(&captured, &format!("{two}/pending/hii/VirtualizationMode")).is_null());
    // The second port's NetworkPort names its MAC: its partitions sit under it.
    assert_eq!(
        fact(
            &captured,
            "nic/02:d3:11:00:02:00/bmc/function/02:d3:11:00:02:04/mac"
        ),
        "02:d3:11:00:02:04"
    );
    assert_eq!(nic_keys(&captured).len(), 2, "{:?}", nic_keys(&captured));
}

#[test]
fn a_flow_control_reset_staged_in_a_port_settings_resource_is_a_pending_fact() {
    let captured = fixture("ilo-port-settings");
    let port = "nic/02:1f:0e:00:00:01/bmc";
    assert_eq!(
        fact(&captured, &format!("{port}/flow_control/configured")),
        "tx_rx"
    );
    assert_eq!(
        fact(
            &captured,
            &format!("{port}/pending/flow_control/configured")
        ),
        "none"
    );
    // LLDPEnabled is staged at its current value: no fact.
    assert!(fact(&captured, &format!("{port}/pending/lldp/enabled")).is_null());
    // HPE's RDMASupport stays a port fact.
    assert_eq!(fact(&captured, &format!("{port}/rdma_protocol")), "rocev2");
}

#[test]
fn nic_firmware_only_in_controllers_is_each_ports_firmware() {
    let captured = fixture("controller-firmware-only");
    assert_eq!(
        fact(&captured, "nic/02:e5:00:00:00:01/bmc/firmware/version"),
        "7.10.6"
    );
    assert_eq!(
        fact(&captured, "nic/02:e5:00:00:00:02/bmc/firmware/version"),
        "7.12.1"
    );
    // Each port reads the capabilities of its own controller.
    assert_eq!(
        fact(&captured, "nic/02:e5:00:00:00:02/bmc/dcb_capable"),
        false
    );
}

/// A Redfish mockup folder read by URI, independently of driftgate's crawler.
struct Mockup(PathBuf);

impl Mockup {
    fn get(&self, uri: &str) -> Option<Value> {
        let rest = uri
            .trim_end_matches('/')
            .strip_prefix("/redfish/v1")?
            .trim_start_matches('/');
        let nested = self.0.join("redfish/v1");
        let base = if nested.is_dir() {
            nested
        } else {
            self.0.clone()
        };
        let text = std::fs::read_to_string(base.join(rest).join("index.json")).ok()?;
        let value: Value = serde_json::from_str(&text).ok()?;
        value.get("@odata.id").is_some().then_some(value)
    }

    fn members(&self, resource: &Value, property: &str) -> Vec<Value> {
        let Some(uri) = resource[property]["@odata.id"].as_str() else {
            return Vec::new();
        };
        let Some(collection) = self.get(uri) else {
            return Vec::new();
        };
        collection["Members"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|m| self.get(m["@odata.id"].as_str()?))
            .collect()
    }
}

fn macs(values: &Value) -> Vec<String> {
    values
        .as_array()
        .into_iter()
        .flatten()
        .chain(std::iter::once(values))
        .filter_map(Value::as_str)
        .map(|mac| mac.to_ascii_lowercase().replace('-', ":"))
        .filter(|mac| mac.len() == 17 && mac != "00:00:00:00:00:00")
        .collect()
}

fn uri(resource: &Value) -> String {
    resource["@odata.id"]
        .as_str()
        .unwrap_or("")
        .trim_end_matches('/')
        .to_owned()
}

/// `(adapter id, port id)` → every MAC reachable from the port through any definite link: its
/// own addresses, vendor OEM MACs, the MACs of functions assigned to it
/// (`Links.PhysicalNetworkPortAssignment`, `Links.PhysicalPortAssignment`, an
/// `AssignablePhysical*Ports` list of exactly one port), and those of its Port/NetworkPort
/// twin of the same Id.
fn reachable_macs(mockup: &Mockup) -> BTreeMap<(String, String), BTreeSet<String>> {
    let root = mockup.get("/redfish/v1").expect("a service root");
    let mut ports = BTreeMap::new();
    for chassis in mockup.members(&root, "Chassis") {
        for adapter in mockup.members(&chassis, "NetworkAdapters") {
            let adapter_id = adapter["Id"].as_str().unwrap_or("").to_owned();
            let mut by_uri: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
            let mut ids: BTreeMap<String, String> = BTreeMap::new();
            for port in mockup
                .members(&adapter, "Ports")
                .into_iter()
                .chain(mockup.members(&adapter, "NetworkPorts"))
            {
                let own: BTreeSet<String> = macs(&port["Ethernet"]["AssociatedMACAddresses"])
                    .into_iter()
                    .chain(macs(&port["AssociatedNetworkAddresses"]))
                    .chain(macs(&port["Oem"]["Lenovo"]["PhysicalPortMacAddress"]))
                    .collect();
                // A port without `Id` (the DMTF smartnic mockup) is named by its URI.
                let id = port["Id"].as_str().map_or_else(
                    || uri(&port).rsplit('/').next().unwrap_or("").to_owned(),
                    str::to_owned,
                );
                ids.insert(uri(&port), id);
                by_uri.insert(uri(&port), own);
            }
            for function in mockup.members(&adapter, "NetworkDeviceFunctions") {
                let function_macs = macs(&function["Ethernet"]["PermanentMACAddress"])
                    .into_iter()
                    .chain(macs(&function["Ethernet"]["MACAddress"]));
                let function_macs: Vec<String> = function_macs.collect();
                // Only a definite link puts a function on a port: an assignment, or an
                // Assignable* list of exactly one port (a function assignable to several is
                // on none of them).
                let links = [
                    &function["Links"]["PhysicalNetworkPortAssignment"],
                    &function["Links"]["PhysicalPortAssignment"],
                ]
                .into_iter()
                .cloned()
                .chain(
                    ["AssignablePhysicalNetworkPorts", "AssignablePhysicalPorts"]
                        .iter()
                        .filter_map(|p| function[*p].as_array())
                        .filter(|list| list.len() == 1)
                        .flat_map(|list| list.iter().cloned()),
                );
                for link in links {
                    if let Some(port) = link["@odata.id"].as_str()
                        && let Some(set) = by_uri.get_mut(port.trim_end_matches('/'))
                    {
                        set.extend(function_macs.iter().cloned());
                    }
                }
            }
            for (port_uri, set) in by_uri {
                ports
                    .entry((adapter_id.clone(), ids[&port_uri].clone()))
                    .or_insert_with(BTreeSet::new)
                    .extend(set);
            }
        }
    }
    ports
}

#[test]
#[allow(clippy::print_stderr)] // the counts are part of what this test reports
fn every_shared_capture_keys_each_port_with_a_reachable_mac_by_it() {
    let dir = public_data("redfish");
    // Every capture folder there: a new one is checked without editing this test.
    let mut folders: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| {
            entry
                .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
                .path()
        })
        .filter(|path| path.is_dir())
        .collect();
    folders.sort();
    assert!(!folders.is_empty(), "{}: no capture folders", dir.display());
    let mut all_ports = 0;
    for folder in folders {
        let name = folder.file_name().unwrap().to_string_lossy().into_owned();
        assert!(
            Mockup(folder.clone()).get("/redfish/v1").is_some(),
            "{name}: no readable service root in {}",
            folder.display()
        );
        let captured = capture(&format!("redfish=mockup:{}", folder.display()), &[], false);
        assert_eq!(
            captured.status(),
            "complete",
            "{name}: {}",
            captured.error()
        );
        let facts = captured.snapshot["facts"].as_object().unwrap();
        // (adapter, port) → the keys that name it.
        let mut keyed: BTreeMap<(String, String), BTreeSet<String>> = BTreeMap::new();
        for (path, value) in facts {
            if let Some(key) = path
                .strip_prefix("nic/")
                .and_then(|rest| rest.strip_suffix("/bmc/port"))
            {
                let adapter = facts[&format!("nic/{key}/bmc/adapter")]
                    .as_str()
                    .unwrap()
                    .to_owned();
                keyed
                    .entry((adapter, value.as_str().unwrap().to_owned()))
                    .or_default()
                    .insert(key.to_owned());
            }
        }
        let ports = reachable_macs(&Mockup(folder.clone()));
        let mut counted = (0, 0);
        for ((adapter, port), reachable) in &ports {
            counted.0 += 1;
            let keys = keyed.get(&(adapter.clone(), port.clone()));
            let keys = keys.unwrap_or_else(|| panic!("{name}: {adapter}/{port} has no key"));
            assert_eq!(keys.len(), 1, "{name}: {adapter}/{port}: one key, {keys:?}");
            let key = keys.iter().next().unwrap();
            if reachable.is_empty() {
                assert!(key.starts_with("port-"), "{name}: {adapter}/{port}: {key}");
            } else {
                counted.1 += 1;
                assert!(
                    reachable.contains(key),
                    "{name}: {adapter}/{port} is keyed {key}, not by one of {reachable:?}"
                );
            }
        }
        eprintln!(
            "{name}: {} ports, {} with a reachable MAC, all keyed by it",
            counted.0, counted.1
        );
        all_ports += counted.0;
        if counted.0 == counted.1 {
            assert!(
                !nic_keys(&captured).iter().any(|k| k.starts_with("port-")),
                "{name}: {:?}",
                nic_keys(&captured)
            );
        }
    }
    assert!(all_ports > 0, "no port in any capture of {}", dir.display());
}

#[test]
fn the_multi_dpu_capture_joins_ports_network_ports_and_functions() {
    let dir = public_data("redfish/libredfish-dell_multi_dpu");
    let captured = capture(&format!("redfish=mockup:{}", dir.display()), &[], false);
    // BlueField-3 DPU in slot 5: Port (AssociatedMACAddresses), NetworkPort
    // (AssociatedNetworkAddresses) and function (PhysicalNetworkPortAssignment and
    // PhysicalPortAssignment) are one port.
    let dpu = "nic/a0:88:c2:08:54:5c/bmc";
    assert_eq!(fact(&captured, &format!("{dpu}/port")), "NIC.Slot.5-1");
    assert_eq!(
        fact(&captured, &format!("{dpu}/firmware/version")),
        "32.41.1000"
    );
    assert_eq!(
        fact(&captured, &format!("{dpu}/function/a0:88:c2:08:54:5c/mac")),
        "a0:88:c2:08:54:5c"
    );
    // The Dell attributes of the DPU's function sit under that function.
    assert!(
        fact(&captured, &format!("{dpu}/function/a0:88:c2:08:54:5c/npar")).is_boolean(),
        "{dpu}/function/a0:88:c2:08:54:5c/npar"
    );
    assert_eq!(nic_keys(&captured).len(), 4, "{:?}", nic_keys(&captured));
}

#[test]
fn no_fact_path_is_both_a_leaf_and_a_sub_tree_on_any_capture() {
    let shared = public_data("redfish");
    let mut folders = Vec::new();
    for parent in [root().join("tests/fixtures/redfish"), shared] {
        for entry in std::fs::read_dir(&parent).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                folders.push(path);
            }
        }
    }
    assert!(folders.len() >= 12, "{folders:?}");
    for folder in folders {
        let captured = capture(&format!("redfish=mockup:{}", folder.display()), &[], false);
        if captured.status() != "failed" {
            assert_no_leaf_is_a_subtree(&captured);
        }
    }
}
