//! Cisco UCS C-series (CIMC) end to end (issue 61, item 1): a C240 M5 with a VIC 1457 in the
//! real CIMC layout (`tests/fixtures/redfish/cisco-c240-m5-vic1457`, its README names what it
//! was modelled on) is captured offline and through `driftgate mockup serve`, then edited as a
//! firmware update does and judged with `driftgate check` (and, for the LLDP agent, by
//! `gate pre`/`gate post` of a host whose BMC the simulator serves): the VIC's own LLDP agent
//! switched on, a vNIC's trusted CoS and RoCEv2 switched off block, naming the port and the
//! VIC's own firmware; the version bump alone does not.

use crate::common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use common::capture::capture;
use common::gate::Lab;
use common::mockups::{Judged, Mockup, check_mockups};
use common::simulator::Simulator;
use common::{copy_dir, root};
use serde_json::Value;

/// Port-1 and Port-3 of the VIC, the two port channels' first ports, which CIMC assigns the
/// vNICs to.
const PORT_1: &str = "nic/70:0f:6a:5c:10:02/bmc";
const PORT_3: &str = "nic/70:0f:6a:5c:10:03/bmc";
const ADAPTER: &str = "/redfish/v1/Chassis/1/NetworkAdapters/UCSC-MLOM-C25Q-04_FCH2345ABCD";
const VIC_FIRMWARE: &str = "firmware/ucs_vic_1457-slot-mlom/version";

fn fixture() -> PathBuf {
    root().join("tests/fixtures/redfish/cisco-c240-m5-vic1457")
}

fn facts(captured: &common::capture::Captured) -> BTreeMap<String, Value> {
    captured.snapshot["facts"]
        .as_object()
        .expect("a snapshot has facts")
        .iter()
        .map(|(path, value)| (path.clone(), value.clone()))
        .collect()
}

/// Where the facts of the function with MAC `mac` sit (`nic/<port>/bmc/function/<name>`):
/// found by its `mac` fact, so the tests do not depend on how functions are named.
fn function_of<'f>(facts: impl IntoIterator<Item = (&'f String, &'f Value)>, mac: &str) -> String {
    facts
        .into_iter()
        .find(|(path, value)| {
            path.ends_with("/mac") && path.contains("/function/") && *value == mac
        })
        .map(|(path, _)| path.trim_end_matches("/mac").to_owned())
        .unwrap_or_else(|| panic!("no function with MAC {mac}"))
}

const ETH0: &str = "70:0f:6a:5c:10:0a";
const ETH1: &str = "70:0f:6a:5c:10:0b";
const FC0: &str = "70:0f:6a:5c:10:0c";

fn offline(dir: &Path) -> common::capture::Captured {
    let captured = capture(&format!("redfish=mockup:{}", dir.display()), &[], false);
    assert_eq!(
        (captured.code, captured.status()),
        (0, "complete"),
        "{}",
        captured.error()
    );
    captured
}

#[test]
fn the_vic_and_its_vnics_are_read_offline_and_through_the_simulator_alike() {
    let captured = offline(&fixture());
    let facts = facts(&captured);
    let (eth0, eth1, fc0) = (
        function_of(&facts, ETH0),
        function_of(&facts, ETH1),
        function_of(&facts, FC0),
    );
    assert!(
        eth0.starts_with(PORT_1) && fc0.starts_with(PORT_1),
        "{eth0} {fc0}"
    );
    assert!(eth1.starts_with(PORT_3), "{eth1}");
    for (path, value) in [
        (format!("{PORT_1}/lldp/nic_agent"), Value::from(false)),
        (format!("{PORT_1}/qos/azure_stack_host"), true.into()),
        (format!("{PORT_1}/fcoe/fip"), true.into()),
        (format!("{PORT_1}/uplink/port_channel"), true.into()),
        (format!("{PORT_1}/uplink/physical_nic_mode"), false.into()),
        (format!("{PORT_1}/settings_pending"), false.into()),
        (format!("{PORT_1}/firmware/version"), "5.2(1a)".into()),
        (
            format!("{PORT_1}/firmware/inventory"),
            "ucs_vic_1457-slot-mlom".into(),
        ),
        (format!("{eth0}/trusted_cos"), true.into()),
        (format!("{eth0}/rdma_enabled"), true.into()),
        (format!("{eth0}/rdma_protocol"), "rocev2".into()),
        (format!("{eth0}/cos"), 5.into()),
        (format!("{eth0}/vlan_mode"), "trunk".into()),
        (format!("{eth0}/uplink_port"), 0.into()),
        (format!("{fc0}/cos"), 3.into()),
        (format!("{eth1}/rdma_enabled"), true.into()),
        (format!("{eth1}/uplink_port"), 1.into()),
        (VIC_FIRMWARE.to_owned(), "5.2(1a)".into()),
    ] {
        assert_eq!(facts.get(&path), Some(&value), "{path}: {facts:#?}");
    }
    // The simulator serves the CIMC layout with a session login, as CIMC does, and the
    // capture through real HTTP reads the same facts.
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&fixture(), dir.path());
    let server = Simulator::start(dir.path(), &["--auth", "session"]);
    let live = capture(&format!("redfish={}", server.url), &[], true);
    assert_eq!(
        (live.code, live.status()),
        (0, "complete"),
        "{}",
        live.error()
    );
    assert_eq!(captured.snapshot["facts"], live.snapshot["facts"]);
}

/// The fixture after a firmware update of the VIC (every version bumped), with `change`
/// applied to its resources by URI.
fn updated(change: impl FnOnce(&mut BTreeMap<String, Value>)) -> tempfile::TempDir {
    let mut mockup = Mockup::load(&fixture());
    let bumped = mockup.bump_firmware();
    assert!(
        bumped.iter().any(|(old, _)| old == "5.2(1a)"),
        "the VIC's version is bumped: {bumped:?}"
    );
    change(&mut mockup.resources);
    let dir = tempfile::tempdir().unwrap();
    mockup.write(dir.path());
    dir
}

fn resource<'m>(resources: &'m mut BTreeMap<String, Value>, uri: &str) -> &'m mut Value {
    resources
        .get_mut(uri)
        .unwrap_or_else(|| panic!("{uri} is in the fixture"))
}

/// The finding on `path` blocks under `rule` and names the VIC's own firmware change as its
/// port's.
fn blocks_naming_the_vic_firmware(judged: &Judged, path: &str, rule: &str) {
    assert_eq!(judged.code, 1, "{:#?}", judged.findings());
    let finding = judged.finding(path);
    assert_eq!(
        (finding["severity"].as_str(), finding["id"].as_str()),
        (Some("block"), Some(rule)),
        "{finding:#}"
    );
    let own: Vec<&Value> = finding["firmware"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|f| f["this_port"] == true && f["old"] != f["new"])
        .collect();
    assert!(
        own.iter().any(|f| f["old"] == "5.2(1a)"),
        "{path}: the VIC's own firmware change is named: {finding:#}"
    );
    assert!(
        judged.text.contains(path) || judged.text.contains(&path.replace("/bmc/", " ")),
        "{}",
        judged.text
    );
}

#[test]
fn a_vic_update_that_switches_its_own_lldp_agent_on_blocks_naming_the_port_and_its_firmware() {
    let after = updated(|resources| {
        let adapter = resource(resources, ADAPTER);
        adapter["Oem"]["Cisco"]["VicConfiguration"]["LldpEnabled"] = true.into();
    });
    let judged = check_mockups(&fixture(), after.path(), false);
    for port in [PORT_1, PORT_3] {
        blocks_naming_the_vic_firmware(&judged, &format!("{port}/lldp/nic_agent"), "bmc-lldp");
    }
}

#[test]
fn a_vic_update_that_untrusts_cos_and_turns_rocev2_off_blocks_naming_the_vnic_and_its_firmware() {
    let after = updated(|resources| {
        let eth0 = resource(resources, &format!("{ADAPTER}/NetworkDeviceFunctions/eth0"));
        let eth = &mut eth0["Oem"]["Cisco"]["VnicConfiguration"]["EthConfiguration"];
        eth["TrustedClassOfServiceEnabled"] = false.into();
        eth["Features"]["Rocev2Enabled"] = false.into();
    });
    let judged = check_mockups(&fixture(), after.path(), false);
    let eth0 = function_of(judged.baseline.as_object().unwrap(), ETH0);
    blocks_naming_the_vic_firmware(&judged, &format!("{eth0}/trusted_cos"), "bmc-cos");
    blocks_naming_the_vic_firmware(&judged, &format!("{eth0}/rdma_enabled"), "bmc-rdma");
}

#[test]
fn a_vic_firmware_bump_alone_does_not_block() {
    let after = updated(|_| {});
    let judged = check_mockups(&fixture(), after.path(), false);
    assert_eq!(judged.code, 0, "{:#?}", judged.findings());
    let eth0 = function_of(judged.baseline.as_object().unwrap(), ETH0);
    // Judged with the VIC's settings read (none of them changed) and its entry linked to its
    // ports, not because nothing Cisco says was read.
    for (path, value) in [
        (format!("{PORT_1}/lldp/nic_agent"), Value::from(false)),
        (format!("{eth0}/rdma_enabled"), true.into()),
        (
            format!("{PORT_3}/firmware/inventory"),
            "ucs_vic_1457-slot-mlom".into(),
        ),
    ] {
        assert_eq!(judged.baseline[&path], value, "{path}");
    }
    let findings = judged.findings();
    assert!(
        findings.iter().all(|f| f.starts_with("info ")),
        "{findings:#?}"
    );
    assert!(
        findings.iter().any(|f| f.contains(VIC_FIRMWARE)),
        "the VIC's version change is said: {findings:#?}"
    );
}

#[test]
fn a_vnic_without_the_standard_links_sits_on_the_port_of_its_uplink() {
    let before = facts(&offline(&fixture()));
    let mut mockup = Mockup::load(&fixture());
    for function in ["eth0", "eth1", "fc0", "fc1"] {
        let body = resource(
            &mut mockup.resources,
            &format!("{ADAPTER}/NetworkDeviceFunctions/{function}"),
        );
        let body = body.as_object_mut().unwrap();
        body.remove("Links");
        body.remove("AssignablePhysicalPorts@odata.count");
        // CIMC lists both ports of the port channel: assignable to either, assigned to none.
        assert!(body.contains_key("AssignablePhysicalPorts"));
    }
    let dir = tempfile::tempdir().unwrap();
    mockup.write(dir.path());
    let after = facts(&offline(dir.path()));
    assert_eq!(before, after);
}

#[test]
fn a_mistyped_cisco_property_makes_the_source_partial_naming_it() {
    let mut mockup = Mockup::load(&fixture());
    let adapter = resource(&mut mockup.resources, ADAPTER);
    adapter["Oem"]["Cisco"]["VicConfiguration"]["LldpEnabled"] = "true".into();
    let eth1 = resource(
        &mut mockup.resources,
        &format!("{ADAPTER}/NetworkDeviceFunctions/eth1"),
    );
    eth1["Oem"]["Cisco"]["VnicConfiguration"]["UplinkPort"] = "1".into();
    let dir = tempfile::tempdir().unwrap();
    mockup.write(dir.path());
    let captured = capture(
        &format!("redfish=mockup:{}", dir.path().display()),
        &[],
        false,
    );
    captured.assert_incomplete("partial", "Oem/Cisco/VicConfiguration/LldpEnabled");
    captured.assert_incomplete("partial", "Oem/Cisco/VnicConfiguration/UplinkPort");
    assert!(
        captured.error().contains(ADAPTER)
            && captured
                .error()
                .contains(&format!("{ADAPTER}/NetworkDeviceFunctions/eth1")),
        "{}",
        captured.error()
    );
}

/// Replaces the lab host's BMC with `mockup`: the running simulator serves it from then on.
fn serve(lab: &Lab, mockup: &Mockup) {
    let bmc = lab.host.join("bmc");
    std::fs::remove_dir_all(&bmc).unwrap();
    mockup.write(&bmc);
}

#[test]
fn gate_post_blocks_a_vic_update_that_switches_its_lldp_agent_on_and_names_its_firmware() {
    // The lab's host, its BMC now a CIMC: captured through the simulator and promoted as the
    // baseline, gated before the update, then after it.
    let lab = Lab::new();
    serve(&lab, &Mockup::load(&fixture()));
    lab.promote_captured("azl-node01");
    lab.gate(&["pre", "--run", "CHG-CIMC-1", "azl-node01"])
        .expect(0);
    let mut after = Mockup::load(&fixture());
    after.bump_firmware();
    resource(&mut after.resources, ADAPTER)["Oem"]["Cisco"]["VicConfiguration"]["LldpEnabled"] =
        true.into();
    serve(&lab, &after);
    let post = lab
        .gate(&["post", "--run", "CHG-CIMC-1", "--format", "json"])
        .expect(1)
        .json();
    let findings = post["hosts"][0]["report"]["findings"]
        .as_array()
        .unwrap_or_else(|| panic!("{post:#}"));
    let path = format!("{PORT_1}/lldp/nic_agent");
    let finding = findings
        .iter()
        .find(|f| f["path"] == path.as_str())
        .unwrap_or_else(|| panic!("no finding on {path}: {post:#}"));
    assert_eq!(finding["severity"], "block", "{finding:#}");
    assert!(
        finding["firmware"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|f| f["this_port"] == true && f["old"] == "5.2(1a)" && f["new"] != "5.2(1a)"),
        "the VIC's own firmware change is named: {finding:#}"
    );
}
