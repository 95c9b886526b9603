//! The vCenter harness proves itself: govmomi's `vcsim` starts and stops leaving no process,
//! serves its default model of four hosts, and serves seed 2 once its saved inventory is
//! edited, as pyVmomi (VMware's own SDK) reads it. driftgate's vSphere capture is compared
//! with that same reading.

use std::path::Path;

use serde_json::Value;

use crate::common::vcsim::{
    self, HPP_HOST, HPP_LUN, SEED_2_HOST, SEED_2_LUN, SEED_2_SIBLING, Vcsim,
};

/// The host named `name` in a `read_luns.py` reading.
fn host<'a>(reading: &'a Value, name: &str) -> &'a Value {
    reading["hosts"]
        .as_array()
        .unwrap_or_else(|| panic!("no hosts in {reading}"))
        .iter()
        .find(|host| host["name"] == name)
        .unwrap_or_else(|| panic!("no host {name} in {reading}"))
}

/// The LUN `canonical_name` of a host in a `read_luns.py` reading.
fn lun<'a>(host: &'a Value, canonical_name: &str) -> &'a Value {
    host["luns"]
        .as_array()
        .unwrap_or_else(|| panic!("no luns in {host}"))
        .iter()
        .find(|lun| lun["canonical_name"] == canonical_name)
        .unwrap_or_else(|| panic!("no LUN {canonical_name} in {host}"))
}

#[test]
fn default_model_has_four_fixed_hosts_and_stops_clean() {
    let sim = Vcsim::start();
    assert!(sim.url().starts_with("https://127.0.0.1:"), "{}", sim.url());
    assert!(sim.pin().starts_with("sha256:"), "{}", sim.pin());
    assert_eq!(sim.sessions(), 0, "a fresh simulator has no session");

    let reading = sim.read_luns();
    let hosts = reading["hosts"].as_array().unwrap();
    let names: Vec<&str> = hosts.iter().map(|h| h["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["DC0_C0_H0", "DC0_C0_H1", "DC0_C0_H2", "DC0_H0"]);
    for host in hosts {
        assert_eq!(host["version"], "6.5.0", "{host}");
        for lun in host["luns"].as_array().unwrap() {
            assert_eq!(lun["policy"], "VMW_PSP_FIXED", "{host}");
            assert_eq!(lun["satp"], "VMW_SATP_LOCAL", "{host}");
            // govmomi 0.24's model leaves the property unset, as ESXi before 6.7 did.
            assert_eq!(lun["perennially_reserved"], Value::Null, "{host}");
        }
    }
    // pyVmomi logged out; govc's own session is not counted.
    assert_eq!(sim.sessions(), 0, "read_luns.py left a session open");
    // A client that does not log out is: govc keeping its session for the next run.
    let kept = sim
        .govc()
        .env("GOVC_PERSIST_SESSION", "true")
        .arg("about")
        .output()
        .unwrap();
    assert!(kept.status.success(), "{kept:?}");
    assert_eq!(sim.sessions(), 1, "govc's persisted session is open");

    let pid = sim.pid();
    drop(sim);
    assert!(
        !Path::new(&format!("/proc/{pid}")).exists(),
        "vcsim (pid {pid}) outlived its drop"
    );
}

#[test]
fn edited_inventory_serves_seed_2() {
    let dir = tempfile::tempdir().unwrap();
    let saved = dir.path().join("inventory");
    vcsim::save_default_inventory(&saved);
    vcsim::model_seed_2(&saved);
    let sim = Vcsim::load(&saved);
    // The saved SessionManager held the saving govc's session; the loaded one must not.
    assert_eq!(sim.sessions(), 0, "a loaded simulator has no session");

    let reading = sim.read_luns();
    assert_eq!(reading["hosts"].as_array().unwrap().len(), 4, "{reading}");

    let seed = host(&reading, SEED_2_HOST);
    assert_eq!(seed["version"], "5.0.0", "{seed}");
    assert_eq!(seed["build"], "469512", "{seed}");
    let reserved = lun(seed, SEED_2_LUN);
    assert_eq!(reserved["perennially_reserved"], true, "{reserved}");
    assert_eq!(reserved["policy"], "VMW_PSP_RR", "{reserved}");
    assert_eq!(reserved["satp"], "VMW_SATP_SVC", "{reserved}");
    let sibling = lun(seed, SEED_2_SIBLING);
    assert_eq!(sibling["perennially_reserved"], false, "{sibling}");
    assert_eq!(sibling["policy"], "VMW_PSP_RR", "{sibling}");
    // The model's own local disks stay as they were.
    assert_eq!(lun(seed, "mpx.vmhba0:C0:T0:L0")["policy"], "VMW_PSP_FIXED");

    let hpp = host(&reading, HPP_HOST);
    assert_eq!(hpp["version"], "7.0.0", "{hpp}");
    assert_eq!(hpp["build"], "15843807", "{hpp}");
    let nvme = lun(hpp, HPP_LUN);
    assert_eq!(nvme["policy"], "LB-RR", "{nvme}");
    assert_eq!(nvme["satp"], Value::Null, "HPP has no SATP: {nvme}");

    // The same values through govc, whose vim25 types are the simulator's own: the policy's
    // type survives the round trip too.
    let host_ref = vcsim::host_file(&saved, HPP_HOST);
    let moref = host_ref
        .file_stem()
        .and_then(|stem| stem.to_str())
        .and_then(|stem| stem.split_once("-HostSystem-"))
        .map(|(_, id)| format!("HostSystem:{id}"))
        .unwrap();
    let collected = sim.govc_output(&[
        "object.collect",
        "-json",
        &moref,
        "config.storageDevice.multipathInfo",
    ]);
    assert!(
        collected.contains("\"Policy\": \"LB-RR\""),
        "govc object.collect {moref}: {collected}"
    );
    // And through the host's storage system, which the saved inventory did not hold.
    let devices = sim.govc_output(&[
        "host.storage.info",
        "-rescan=false",
        "-host",
        &format!("/DC0/host/{SEED_2_HOST}/{SEED_2_HOST}"),
    ]);
    assert!(devices.contains(SEED_2_LUN), "{devices}");
    assert_eq!(sim.sessions(), 0, "read_luns.py left a session open");
}

#[test]
fn real_vcenter_cassette_is_downloaded() {
    let cassette =
        crate::common::root().join("target/fixtures/vcenter/test_json_host_explode.yaml");
    let text = std::fs::read_to_string(&cassette).unwrap_or_else(|e| {
        panic!(
            "{}: {e}: run `bash scripts/test-deps.sh` (pyVmomi's sdist, from PyPI)",
            cassette.display()
        )
    });
    // A vcrpy cassette of a vCenter 8.0.3 and its ESXi 8.0.3 host, whose LUNs HPP claims:
    // `HostMultipathInfoHppLogicalUnitPolicy` `FIXED`, no SATP, as [`vcsim::model_seed_2`]
    // models HPP.
    assert!(text.starts_with("interactions:"), "not a vcrpy cassette");
    assert!(text.contains("VMware vCenter Server 8.0.3 build-"));
    assert!(text.contains(
        r#"<policy xsi:type=\"HostMultipathInfoHppLogicalUnitPolicy\"><policy>FIXED</policy>"#
    ));
}
