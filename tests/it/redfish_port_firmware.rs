//! Every port names its own firmware, or says it cannot (issue 38 items 1 and 6): a BMC is
//! captured before and after a firmware update that also changed one setting of each port,
//! the two captures are judged with `driftgate check`, and each port's finding names the
//! firmware change of that port, or says the BMC links the port to no firmware.
//!
//! Fixtures (`tests/fixtures/redfish/<name>/`, each with a README naming where its shapes
//! come from):
//! - `pcie-linked-firmware`: inventory entries tied to their NIC only through a shared PCIe
//!   device or function (both directions, a device under `Systems/1/PCIeDevices`), a PCIe
//!   device's own `FirmwareVersion`, and a `RelatedItem` naming a part of the adapter
//!   (`…/NIC5#/Controllers/0`);
//! - `hpe-ilo5-base-network-adapters`: iLO 5, the NIC's firmware only in
//!   `Systems/1/BaseNetworkAdapters/<n>` (`Firmware.Current.VersionString`, joined by
//!   `PhysicalPorts[].MacAddress`);
//! - `placeholder-versions`: a BMC answering `"nil"`, `"N/A"`, `"Not Available"`, `""` for
//!   versions and settings.

use crate::common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use common::mockups::{Mockup, capture_complete as capture, check_mockups, every_mockup};
use common::{copy_dir, root};
use driftgate_collect::placeholder::is_placeholder;
use serde_json::Value;

fn fixture(name: &str) -> std::path::PathBuf {
    root().join("tests/fixtures/redfish").join(name)
}

/// What `check` of `after` against `before` said: the JSON report, the text report, and the
/// baseline's facts.
struct Judged {
    json: Value,
    text: String,
    baseline: Value,
}

fn judge(before: &Path, after: &Path) -> Judged {
    let judged = check_mockups(before, after, false);
    Judged {
        json: judged.json,
        text: judged.text,
        baseline: judged.baseline,
    }
}

impl Judged {
    /// The warning or blocking findings on the port `key` that are not firmware facts.
    fn port_findings(&self, key: &str) -> Vec<&Value> {
        let prefix = format!("nic/{key}/");
        self.json["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["path"].as_str().unwrap().starts_with(&prefix))
            .filter(|f| f["severity"] == "warn" || f["severity"] == "block")
            .filter(|f| !f["path"].as_str().unwrap().contains("/firmware/"))
            .collect()
    }

    /// The port keys of the baseline.
    fn ports(&self) -> BTreeSet<String> {
        self.baseline
            .as_object()
            .unwrap()
            .keys()
            .filter_map(|path| path.strip_prefix("nic/"))
            .filter_map(|rest| rest.split('/').next())
            .map(str::to_owned)
            .collect()
    }

    fn fact(&self, path: &str) -> Option<&str> {
        self.baseline[path].as_str()
    }
}

/// The firmware change a finding names as its own port's (`this_port`), with old ≠ new.
fn own_change(finding: &Value) -> Option<&Value> {
    finding["firmware"]
        .as_array()?
        .iter()
        .find(|f| f["this_port"] == true && f["old"] != f["new"])
}

/// `mockup` after a firmware update that also changed one setting of every port it can: each
/// port's flow control (else its LLDP switch), each adapter's DCB capability (NVIDIA's DCBX,
/// the Cisco VIC's own LLDP agent), an on/off NIC
/// attribute of each function (Dell), each port's on/off attributes folded into the BIOS
/// (Lenovo), the DCBX data HPE ports learned from their switch. Staged (`Settings`) resources
/// stay as they are.
fn updated(mockup: &Mockup) -> Mockup {
    let mut after = mockup.clone();
    after.bump_firmware();
    for (uri, body) in &mut after.resources {
        if uri.ends_with("/Settings") {
            continue;
        }
        let kind = body["@odata.type"].as_str().unwrap_or("").to_owned();
        if kind.contains("#Port.") || kind.contains("#NetworkPort.") {
            flip_port(body);
        }
        if kind.contains("#NetworkAdapter.") {
            for controller in body["Controllers"].as_array_mut().into_iter().flatten() {
                flip_bool(
                    &mut controller["ControllerCapabilities"]["DataCenterBridging"]["Capable"],
                );
            }
            flip_bool(&mut body["Oem"]["Nvidia"]["LLDP"]["DCBXModeEnabled"]);
            flip_bool(&mut body["Oem"]["Cisco"]["VicConfiguration"]["LldpEnabled"]);
        }
        let nic_attributes = uri.contains("/NetworkDeviceFunctions/");
        let bios = kind.contains("#Bios.");
        if let Some(attributes) = body["Attributes"].as_object_mut() {
            let mut names: Vec<String> = attributes
                .iter()
                .filter(|(name, value)| {
                    (nic_attributes || (bios && names_a_mac(name)))
                        && matches!(value.as_str(), Some("Enabled" | "Disabled"))
                })
                .map(|(name, _)| name.clone())
                .collect();
            names.sort();
            // One per function resource; every MAC-named one of a BIOS.
            if nic_attributes {
                names.truncate(1);
            }
            for name in names {
                let value = &mut attributes[&name];
                *value = Value::from(if value == "Enabled" {
                    "Disabled"
                } else {
                    "Enabled"
                });
            }
        }
    }
    after
}

fn flip_port(port: &mut Value) {
    let flip = |value: &mut Value| {
        let was = value.as_str().map(str::to_owned);
        if let Some(was) = was {
            *value = Value::from(if was == "None" { "TX_RX" } else { "None" });
            true
        } else {
            false
        }
    };
    if !flip(&mut port["Ethernet"]["FlowControlConfiguration"])
        && !flip(&mut port["FlowControlConfiguration"])
    {
        flip_bool(&mut port["Ethernet"]["LLDPEnabled"]);
    }
    flip_bool(&mut port["Oem"]["Hpe"]["LldpData"]["Receiving"]["Dcb"]["LocalEqualRemote"]);
}

/// Flips a boolean; anything else (absent included) stays as it is.
fn flip_bool(value: &mut Value) {
    if let Some(b) = value.as_bool() {
        *value = Value::from(!b);
    }
}

/// Whether an attribute name holds a MAC (Lenovo's `Slot1_946DAE53CB9B_DCBXMode`).
fn names_a_mac(name: &str) -> bool {
    name.split('_')
        .any(|part| part.len() == 12 && part.chars().all(|c| c.is_ascii_hexdigit()))
}

/// A link's target as links compare: without fragment or trailing `/`, in lower case.
fn key(uri: &str) -> String {
    uri.split('#')
        .next()
        .unwrap_or(uri)
        .trim_end_matches('/')
        .to_ascii_lowercase()
}

fn below(target: &str, base: &str) -> bool {
    target == base || target.starts_with(&format!("{base}/"))
}

fn targets(links: &Value) -> Vec<String> {
    links
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|l| l["@odata.id"].as_str())
        .map(key)
        .collect()
}

fn version(value: &Value) -> Option<&str> {
    value.as_str().filter(|v| !is_placeholder(v))
}

/// The slot numbers a text names (`PCI-E Slot 1`, `Slot 4`, `Slot_1.Bundle`, `slot-1`).
fn slots(text: &str) -> Vec<u32> {
    let lower = text.to_ascii_lowercase();
    lower
        .match_indices("slot")
        .filter_map(|(at, _)| {
            let digits: String = lower[at + 4..]
                .trim_start_matches([' ', '_', '-', '.', ':'])
                .chars()
                .take_while(char::is_ascii_digit)
                .collect();
            digits.parse().ok()
        })
        .collect()
}

/// The resources of `mockup` of the type `name` (`@odata.type` ending in `.name`).
fn typed<'m>(
    mockup: &'m Mockup,
    name: &'static str,
) -> impl Iterator<Item = (&'m String, &'m Value)> {
    mockup.resources.iter().filter(move |(_, body)| {
        body["@odata.type"]
            .as_str()
            .is_some_and(|t| t.ends_with(&format!(".{name}")))
    })
}

/// Why the NIC firmware of the port `key` appears in `mockup` (empty: it does not): the
/// definition the done-when test holds every port to, read from the mockup alone. A port's
/// firmware appears when its adapter, a function or PCIe resource of it, or its MAC is tied
/// to a version by any Redfish link: the adapter's `Controllers[].FirmwarePackageVersion`; the
/// `FirmwareVersion` of a PCIe device the adapter, its functions or their PCIe functions link
/// (either way); a firmware inventory entry whose `RelatedItem` names the adapter (or a part
/// of it), one of those PCIe resources, or the adapter's chassis when it holds only this
/// adapter, whose Dell FQDD names the adapter, or whose slot is the adapter's; HPE's
/// `BaseNetworkAdapters` member listing the port's MAC; or a version attribute of the port
/// itself (a firmware fact under its key in the capture).
fn firmware_sources(mockup: &Mockup, judged: &Judged, port: &str) -> Vec<String> {
    let mut why = Vec::new();
    let own_facts = judged
        .baseline
        .as_object()
        .unwrap()
        .keys()
        .filter(|p| p.starts_with(&format!("nic/{port}/")) && p.contains("/firmware/hii/"))
        .count();
    if own_facts > 0 {
        why.push(format!("{own_facts} version attributes of its own"));
    }
    let typed = |name: &'static str| typed(mockup, name);
    for (uri, adapter) in typed("HpeBaseNetworkAdapter") {
        let listed = adapter["PhysicalPorts"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|p| {
                p["MacAddress"]
                    .as_str()
                    .is_some_and(|m| m.eq_ignore_ascii_case(port))
            });
        if listed && version(&adapter["Firmware"]["Current"]["VersionString"]).is_some() {
            why.push(format!("{uri} lists its MAC"));
        }
    }
    // The port's adapter: the one whose ports or functions name its MAC (a numbered adapter
    // has no `adapter` fact to find it by), else the one its `adapter` fact names.
    let adapters: Vec<(&String, &Value)> = typed("NetworkAdapter").collect();
    let named = judged.fact(&format!("nic/{port}/bmc/adapter"));
    let Some((adapter_uri, adapter)) = adapters
        .iter()
        .find(|(uri, _)| names_mac(mockup, &key(uri), port))
        .or_else(|| {
            // The `adapter` fact is the adapter's stable name: its `Id`, else (a numbered one)
            // its location label or serial number.
            adapters.iter().find(|(_, a)| {
                named.is_some()
                    && [
                        &a["Id"],
                        &a["Location"]["PartLocation"]["ServiceLabel"],
                        &a["SerialNumber"],
                    ]
                    .iter()
                    .any(|name| name.as_str() == named)
            })
        })
        .copied()
    else {
        return why;
    };
    let adapter_id = adapter["Id"].as_str().unwrap_or("");
    let a = key(adapter_uri);
    for controller in adapter["Controllers"].as_array().into_iter().flatten() {
        if version(&controller["FirmwarePackageVersion"]).is_some() {
            why.push("Controllers[].FirmwarePackageVersion".to_owned());
        }
    }
    // The PCIe resources of the adapter, both ways.
    let mut pcie: BTreeSet<String> = adapter["Controllers"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|c| targets(&c["Links"]["PCIeDevices"]))
        .chain(targets(&adapter["Links"]["PCIeDevices"]))
        .collect();
    let functions: Vec<String> = typed("NetworkDeviceFunction")
        .filter(|(uri, _)| below(&key(uri), &a))
        .map(|(uri, f)| {
            if let Some(pf) = f["Links"]["PCIeFunction"]["@odata.id"].as_str() {
                pcie.insert(key(pf));
            }
            key(uri)
        })
        .collect();
    for (uri, function) in typed("PCIeFunction") {
        let names = targets(&function["Links"]["NetworkDeviceFunctions"]);
        if names.iter().any(|n| functions.contains(n) || below(n, &a)) {
            pcie.insert(key(uri));
        }
    }
    for (uri, function) in typed("PCIeFunction") {
        if pcie.contains(&key(uri))
            && let Some(device) = function["Links"]["PCIeDevice"]["@odata.id"].as_str()
        {
            pcie.insert(key(device));
        }
    }
    for (uri, device) in typed("PCIeDevice") {
        if pcie.contains(&key(uri)) && version(&device["FirmwareVersion"]).is_some() {
            why.push(format!("{uri} FirmwareVersion"));
        }
    }
    let chassis = a
        .rsplit_once("/networkadapters/")
        .map(|(c, _)| c.to_owned());
    let alone = adapters
        .iter()
        .filter(|(uri, _)| {
            key(uri).rsplit_once("/networkadapters/").map(|(c, _)| c) == chassis.as_deref()
        })
        .count()
        == 1;
    let location = &adapter["Location"]["PartLocation"];
    let mut adapter_slots: Vec<u32> = [
        &location["ServiceLabel"],
        &adapter["Oem"]["Hpe"]["Location"]["PartLocation"]["ServiceLabel"],
        &adapter["Id"],
    ]
    .into_iter()
    .filter_map(Value::as_str)
    .flat_map(slots)
    .collect();
    if location["LocationType"] == "Slot"
        && let Some(n) = location["LocationOrdinalValue"].as_u64()
    {
        adapter_slots.push(u32::try_from(n).unwrap());
    }
    for (uri, entry) in typed("SoftwareInventory") {
        let id = entry["Id"].as_str().unwrap_or("");
        let state = entry["Status"]["State"].as_str().unwrap_or("");
        if !uri.contains("/FirmwareInventory/")
            || version(&entry["Version"]).is_none()
            || matches!(state, "Absent" | "Disabled")
            || id.starts_with("Previous-")
            || id.starts_with("Available-")
        {
            continue;
        }
        let related = targets(&entry["RelatedItem"]);
        if related.iter().any(|t| t.contains("/managers/")) {
            continue;
        }
        let fqdd = id.split_once("__").is_some_and(|(_, f)| {
            f.to_ascii_lowercase()
                .starts_with(&adapter_id.to_ascii_lowercase())
        });
        let linked = related.iter().any(|t| {
            below(t, &a)
                || pcie.iter().any(|p| below(t, p))
                || (alone && Some(t) == chassis.as_ref())
        });
        let slotted = [
            &entry["Oem"]["Hpe"]["DeviceContext"],
            &entry["Location"]["PartLocation"]["ServiceLabel"],
            &entry["Id"],
        ]
        .into_iter()
        .filter_map(Value::as_str)
        .flat_map(slots)
        .any(|s| adapter_slots.contains(&s));
        if fqdd || linked || slotted {
            why.push(format!("{uri} Version"));
        }
    }
    why
}

/// Whether a resource at or below `adapter` (a [`key`]) names the MAC `port` anywhere.
fn names_mac(mockup: &Mockup, adapter: &str, port: &str) -> bool {
    fn holds(value: &Value, mac: &str) -> bool {
        match value {
            Value::String(text) => {
                let hex: String = text.chars().filter(char::is_ascii_hexdigit).collect();
                hex.len() == 12 && hex.eq_ignore_ascii_case(mac)
            }
            Value::Array(items) => items.iter().any(|v| holds(v, mac)),
            Value::Object(map) => map.values().any(|v| holds(v, mac)),
            _ => false,
        }
    }
    let mac: String = port.chars().filter(char::is_ascii_hexdigit).collect();
    mac.len() == 12
        && mockup
            .resources
            .iter()
            .any(|(uri, body)| below(&key(uri), adapter) && holds(body, &mac))
}

/// THE DONE-WHEN TEST of issue 38 item 1: in each shared capture and fixture, after a
/// firmware update that also changed a setting of each port, every port whose NIC firmware
/// appears anywhere in the capture ([`firmware_sources`]) names its own firmware change in
/// its findings, and every port whose firmware does not says the BMC does not link it.
///
/// Ports that genuinely have no link, in every capture: the three `EthernetInterfaces` of
/// `dmtf-public-rackmount1` (a system's and a manager's interfaces, no adapter) and the two
/// ports of `older-generation-ports` (a BMC that reports no firmware at all); also the
/// `placeholder-versions` port, whose every version is `"N/A"`. Ports with no setting to
/// change (only an identity or a firmware version) have no finding to check: the interfaces
/// of rackmount1 and the iLO 5 LOM ports only `BaseNetworkAdapters` lists.
#[test]
fn every_port_names_its_own_firmware_change_or_says_the_bmc_does_not_link_it() {
    let mut failures = Vec::new();
    let mut checked = BTreeMap::new();
    for (name, dir) in every_mockup() {
        let mockup = Mockup::load(&dir);
        let work = tempfile::tempdir().unwrap();
        updated(&mockup).write(work.path());
        let judged = judge(&dir, work.path());
        let host_firmware_changed = judged.json["firmware_changes"]
            .as_array()
            .is_some_and(|c| !c.is_empty());
        let (mut linked, mut unlinked) = (0, 0);
        for port in judged.ports() {
            let findings = judged.port_findings(&port);
            let Some(finding) = findings.first() else {
                continue;
            };
            let sources = firmware_sources(&mockup, &judged, &port);
            if !sources.is_empty() {
                linked += 1;
                if own_change(finding).is_none() {
                    failures.push(format!(
                        "{name}: port {port}'s firmware appears ({}) but its finding on {} names no \
                         change of its own: {finding:#}",
                        sources.join("; "),
                        finding["path"]
                    ));
                }
            } else if host_firmware_changed {
                unlinked += 1;
                if finding["firmware_unknown"] != "not_linked" || own_change(finding).is_some() {
                    failures.push(format!(
                        "{name}: port {port} has no firmware anywhere, yet its finding on {} \
                         does not say the BMC does not link it: {finding:#}",
                        finding["path"]
                    ));
                }
            } else {
                unlinked += 1;
                assert!(finding["firmware"].is_null(), "{name}: {finding:#}");
            }
        }
        checked.insert(name, (linked, unlinked));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    // Every capture with NIC ports had some checked, and both kinds occur.
    for (name, (linked, unlinked)) in &checked {
        assert!(
            linked + unlinked > 0 || name.contains("rackmount1"),
            "{name}: no port finding was checked"
        );
    }
    assert!(checked.values().any(|(l, _)| *l > 0));
    assert!(checked.values().any(|(_, u)| *u > 0));
}

/// The finding on `path` of a judged report.
fn finding<'a>(judged: &'a Judged, path: &str) -> &'a Value {
    judged.json["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["path"] == path)
        .unwrap_or_else(|| panic!("no finding on {path}: {:#}", judged.json))
}

#[test]
fn nic_firmware_tied_through_pcie_or_a_part_of_the_adapter_is_the_ports_own() {
    let dir = fixture("pcie-linked-firmware");
    let mockup = Mockup::load(&dir);
    let work = tempfile::tempdir().unwrap();
    updated(&mockup).write(work.path());
    let judged = judge(&dir, work.path());
    for (port, own) in [
        // The inventory entry relates to the PCIe device the adapter's controller links.
        ("02:c0:ff:ee:00:01", "firmware/fw-cn25-a/version"),
        // ... to the PCIe function the port's network device function links.
        ("02:c0:ff:ee:00:02", "firmware/fw-cn25-b/version"),
        // ... to a device under Systems whose function names the network device function.
        ("02:c0:ff:ee:00:03", "firmware/fw-cn25-c/version"),
        // The PCIe device's own FirmwareVersion, no inventory entry.
        (
            "02:c0:ff:ee:00:04",
            "nic/02:c0:ff:ee:00:04/bmc/firmware/version",
        ),
        // The inventory entry relates to `…/NIC5#/Controllers/0`.
        ("02:c0:ff:ee:00:05", "firmware/fw-cn25-e/version"),
    ] {
        let flow = finding(&judged, &format!("nic/{port}/bmc/flow_control/configured"));
        assert_eq!(flow["severity"], "block");
        let change = own_change(flow).unwrap_or_else(|| panic!("{port}: {flow:#}"));
        assert_eq!(change["path"], own, "{port}: {flow:#}");
        assert!(flow.get("firmware_unknown").is_none(), "{flow:#}");
    }
    assert!(
        judged
            .text
            .contains("NIC firmware of this port: \"22.31.1014\" → \"22.31.1015\" (firmware/fw-cn25-a/version)"),
        "{}",
        judged.text
    );
    assert!(
        !judged.text.contains("no firmware change of this port"),
        "{}",
        judged.text
    );
}

#[test]
fn hpe_ilo5_base_network_adapter_firmware_is_its_ports_own() {
    let dir = fixture("hpe-ilo5-base-network-adapters");
    let mockup = Mockup::load(&dir);
    let work = tempfile::tempdir().unwrap();
    updated(&mockup).write(work.path());
    let judged = judge(&dir, work.path());
    for port in ["98:03:9b:6e:2a:10", "98:03:9b:6e:2a:11"] {
        let flow = finding(&judged, &format!("nic/{port}/bmc/flow_control/configured"));
        let change = own_change(flow).unwrap_or_else(|| panic!("{port}: {flow:#}"));
        assert_eq!(
            (&change["path"], &change["old"], &change["new"]),
            (
                &Value::from(format!("nic/{port}/bmc/firmware/version")),
                &Value::from("16.32.1010"),
                &Value::from("16.32.1011")
            )
        );
    }
    assert!(
        judged.text.contains(
            "NIC firmware of this port: \"16.32.1010\" → \"16.32.1011\" (nic/98:03:9b:6e:2a:10/bmc/firmware/version)"
        ),
        "{}",
        judged.text
    );
    // The LOM that only BaseNetworkAdapters and the system's interfaces name has it too.
    assert_eq!(
        judged.fact("nic/80:30:e0:2c:92:a4/bmc/firmware/version"),
        Some("20.14.54")
    );
}

#[test]
fn a_port_the_bmc_links_to_no_firmware_says_so_instead_of_no_change_of_its_own() {
    // The iLO 6 fixture's first card, its inventory entry and controller version gone: the BMC
    // still reports the port and its settings, the host's other firmware still changes.
    let mut mockup = Mockup::load(&fixture("hpe-ilo6"));
    let adapter = "/redfish/v1/Chassis/1/NetworkAdapters/DE07A000";
    mockup.resources.get_mut(adapter).unwrap()["Controllers"][0]
        .as_object_mut()
        .unwrap()
        .remove("FirmwarePackageVersion");
    let inventory = "/redfish/v1/UpdateService/FirmwareInventory";
    let slot_1 = mockup
        .members(inventory)
        .into_iter()
        .find(|m| mockup.resources[m]["Oem"]["Hpe"]["DeviceContext"] == "Slot 1")
        .unwrap();
    mockup.resources.remove(&slot_1);
    let members = mockup.resources.get_mut(inventory).unwrap();
    members["Members"]
        .as_array_mut()
        .unwrap()
        .retain(|m| m["@odata.id"].as_str().unwrap().trim_end_matches('/') != slot_1);
    members["Members@odata.count"] = Value::from(members["Members"].as_array().unwrap().len());
    let (before, after) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    mockup.write(before.path());
    updated(&mockup).write(after.path());
    let judged = judge(before.path(), after.path());
    let port = "nic/88:e9:a4:1c:40:10";
    let flow = finding(&judged, &format!("{port}/bmc/flow_control/configured"));
    assert_eq!(flow["firmware_unknown"], "not_linked", "{flow:#}");
    assert!(own_change(flow).is_none(), "{flow:#}");
    // Said with the port's first finding, and in its story.
    let text = &judged.text;
    let after_port = &text[text.find(&format!("  {port}/bmc/")).unwrap_or(0)..];
    assert!(
        after_port.lines().nth(2).is_some_and(|l| l.trim()
            == "the BMC does not link this port to a firmware inventory entry; \
                4 firmware changes on this host (listed above)"),
        "{text}"
    );
    assert!(
        text.contains("the firmware that changed    the BMC does not link this port"),
        "{text}"
    );
    assert!(!text.contains("no firmware change of this port"), "{text}");
}

#[test]
fn a_bmc_answering_placeholders_keeps_no_such_version_and_says_most_of_it_said_nothing() {
    let (text, stderr) = capture(&fixture("placeholder-versions"));
    let snapshot: Value = serde_json::from_str(&text).unwrap();
    let facts = snapshot["facts"].as_object().unwrap();
    for (path, value) in facts {
        assert!(
            !value.as_str().is_some_and(is_placeholder),
            "{path} = {value} is a placeholder kept as a value"
        );
    }
    assert_eq!(
        facts
            .keys()
            .filter(|p| p.starts_with("firmware/"))
            .collect::<Vec<_>>(),
        ["firmware/psu1/version"],
        "\"nil\", \"N/A\", \"Not Available\" and \"\" are no versions"
    );
    assert!(
        !facts.contains_key("nic/02:de:ad:00:00:01/bmc/firmware/version"),
        "FirmwarePackageVersion \"N/A\" is no version"
    );
    assert_eq!(facts["bios/BootMode"], "Uefi");
    assert!(!facts.contains_key("bios/AssetTag"));
    assert!(
        stderr.contains("most of what this service answered says nothing")
            && stderr.contains("FirmwareInventory/BMC Version"),
        "{stderr}"
    );
    // A BMC answering real values is not told it said nothing.
    let (_, quiet) = capture(&fixture("pcie-linked-firmware"));
    assert!(!quiet.contains("says nothing"), "{quiet}");
}

#[test]
fn a_placeholder_in_a_mapped_dcbx_setting_blocks_as_a_removal() {
    let before = fixture("pending-dcbx-disable");
    let after = tempfile::tempdir().unwrap();
    copy_dir(&before, after.path());
    let attributes = after.path().join(
        "redfish/v1/Chassis/System.Embedded.1/NetworkAdapters/NIC.Slot.3/NetworkDeviceFunctions/\
         NIC.Slot.3-1-1/Oem/Dell/DellNetworkAttributes/NIC.Slot.3-1-1/index.json",
    );
    let mut body: Value = serde_json::from_slice(&std::fs::read(&attributes).unwrap()).unwrap();
    assert!(body["Attributes"]["Broadcom_DCBX"].is_string(), "{body:#}");
    body["Attributes"]["Broadcom_DCBX"] = Value::from("N/A");
    std::fs::write(&attributes, serde_json::to_vec_pretty(&body).unwrap()).unwrap();
    let judged = judge(&before, after.path());
    let path = "nic/00:0a:f7:12:34:56/bmc/function/00:0a:f7:12:34:56/dcbx_mode";
    let removed = finding(&judged, path);
    assert_eq!(
        (
            &removed["kind"],
            &removed["severity"],
            &removed["id"],
            &removed["new"]
        ),
        (
            &Value::from("removed"),
            &Value::from("block"),
            &Value::from("dcbx-mode"),
            &Value::Null
        ),
        "{removed:#}"
    );
    assert_eq!(judged.json["verdict"], "block");
}

/// The PCIe resources only help name a port's firmware: one the BMC links but cannot serve (a
/// stale `RelatedItem`) is said in a note and leaves the capture complete, its settings judged.
#[test]
fn a_pcie_link_that_leads_nowhere_is_a_note_not_an_incomplete_capture() {
    let mut mockup = Mockup::load(&fixture("pcie-linked-firmware"));
    let entry = "/redfish/v1/UpdateService/FirmwareInventory/FW-CN25-B";
    let stale = "/redfish/v1/Chassis/1/PCIeDevices/GONE";
    mockup
        .resources
        .get_mut(entry)
        .expect("the fixture's entry")["RelatedItem"]
        .as_array_mut()
        .expect("a list of links")
        .push(serde_json::json!({"@odata.id": stale}));
    let work = tempfile::tempdir().unwrap();
    mockup.write(work.path());
    let (_, stderr) = capture(work.path());
    assert!(
        stderr.contains(stale) && stderr.contains("PCIe resources that tie a NIC to its firmware"),
        "{stderr}"
    );
}
