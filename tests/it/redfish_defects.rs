//! A defect judges only what it touches (issue 61): Cisco CIMC 4.1 serves `RelatedItem` as a
//! URI string, not an array of links, on its BIOS, CIMC and disk firmware inventory entries
//! (`tests/fixtures/redfish/cimc-string-related-item`, captured offline and from a real
//! `driftgate mockup serve`). Those entries are tied to no NIC port, so the defect is a warning
//! naming the URI and the property and the host can be gated; on the VIC's own entry it decides
//! which firmware the ports run, and the source stays partial naming that fact.

use crate::common;

use std::path::{Path, PathBuf};

use common::capture::{Captured, capture};
use common::simulator::Simulator;
use common::{copy_dir, driftgate, root};
use serde_json::Value;

const HOST: &str = "azl-node01";
const INVENTORY: &str = "/redfish/v1/UpdateService/FirmwareInventory";
const VIC_ENTRY: &str = "UCSC-MLOM-C25Q-04-slot-MLOM";
const VIC: &str = "/redfish/v1/Chassis/1/NetworkAdapters/UCSC-MLOM-C25Q-04_FCH2337A1B2";
const PORTS: [&str; 2] = ["70:0f:6a:a1:b2:01", "70:0f:6a:a1:b2:02"];

/// The entries whose `RelatedItem` is a string in the fixture, and the component each keeps.
const TIED_TO_NO_NIC: [(&str, &str); 3] = [
    ("BIOS", "bios"),
    ("CIMC", "cimc"),
    (
        "HDD-model-ST1200MM0009-serial-WFK0A1B20000C0000000",
        "hdd-model-st1200mm0009-serial-wfk0a1b20000c0000000",
    ),
];

fn fixture() -> PathBuf {
    root().join("tests/fixtures/redfish/cimc-string-related-item")
}

/// `dir` captured offline (`mockup:DIR`) and over HTTP from `driftgate mockup serve` with a
/// session login.
fn captures(dir: &Path) -> Vec<(&'static str, Captured)> {
    let server = Simulator::start(dir, &["--auth", "session"]);
    let offline = capture(&format!("redfish=mockup:{}", dir.display()), &[], false);
    let live = capture(&format!("redfish={}", server.url), &[], true);
    assert_eq!(server.sessions(), 0, "the session is deleted");
    vec![("offline", offline), ("http", live)]
}

/// `driftgate check --snapshot SNAPSHOT --baseline BASELINE --format json`: exit code and
/// verdict.
fn check(snapshot: &str, baseline: &str) -> (i32, Value) {
    let dir = tempfile::tempdir().unwrap();
    let (post, base) = (dir.path().join("post.json"), dir.path().join("base.json"));
    std::fs::write(&post, snapshot).unwrap();
    std::fs::write(&base, baseline).unwrap();
    let output = driftgate()
        .args(["check", "--format", "json", "--snapshot"])
        .arg(&post)
        .arg("--baseline")
        .arg(&base)
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&output.stderr)));
    (output.status.code().unwrap(), report["verdict"].clone())
}

/// The fixture with the VIC's own entry's `RelatedItem` written as CIMC 4.1 writes the others:
/// its one link as a string.
fn vic_entry_malformed() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&fixture(), dir.path());
    let file = dir
        .path()
        .join("redfish/v1/UpdateService/FirmwareInventory")
        .join(VIC_ENTRY)
        .join("index.json");
    let mut entry: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    entry["RelatedItem"] = Value::String(VIC.to_owned());
    std::fs::write(&file, serde_json::to_string_pretty(&entry).unwrap()).unwrap();
    dir
}

#[test]
fn a_string_related_item_on_bios_cimc_and_disk_entries_is_a_warning_and_the_capture_complete() {
    for (how, captured) in captures(&fixture()) {
        assert_eq!(
            (captured.code, captured.status()),
            (0, "complete"),
            "{how}: {}",
            captured.error()
        );
        for (id, component) in TIED_TO_NO_NIC {
            let named = format!("{INVENTORY}/{id}: RelatedItem is the string");
            let warning = captured
                .stderr
                .lines()
                .find(|line| line.contains(&named))
                .unwrap_or_else(|| panic!("{how}: no warning names {named}: {}", captured.stderr));
            assert!(
                warning.contains("warning:") && warning.contains("expected an array of links"),
                "{how}: {warning}"
            );
            // The entry's own version is captured all the same.
            assert!(
                captured.snapshot["facts"][format!("firmware/{component}/version")].is_string(),
                "{how}: firmware/{component}/version"
            );
        }
        // The VIC's ports still name their own firmware.
        for port in PORTS {
            assert_eq!(
                captured.snapshot["facts"][format!("nic/{port}/bmc/firmware/inventory")],
                "ucsc-mlom-c25q-04-slot-mlom",
                "{how}"
            );
        }
        assert_eq!(
            check(&captured.text, &captured.text),
            (0, Value::from("pass")),
            "{how}: PASS against its own baseline"
        );
    }
}

#[test]
fn a_host_whose_cimc_serves_string_related_items_passes_a_gate() {
    let server = Simulator::start(&fixture(), &[]);
    let work = tempfile::tempdir().unwrap();
    let store = work.path().join("baselines");
    driftgate()
        .args(["baseline", "init"])
        .arg(&store)
        .assert()
        .code(0);
    let baseline = capture(&format!("redfish={}", server.url), &[], false);
    assert_eq!(baseline.code, 0, "{}", baseline.error());
    let file = work.path().join("baseline.json");
    std::fs::write(&file, &baseline.text).unwrap();
    driftgate()
        .arg("--repo")
        .arg(&store)
        .args(["baseline", "promote", "--fleet", "ucs"])
        .arg(&file)
        .assert()
        .code(0);
    std::fs::write(
        store.join("inventory.toml"),
        format!(
            "[defaults]\nfleet = \"ucs\"\n\n[[host]]\nname = \"{HOST}\"\nsources = [\"redfish={}\"]\n",
            server.url
        ),
    )
    .unwrap();
    for step in [
        &["pre", "--run", "CHG-61", HOST][..],
        &["post", "--run", "CHG-61"],
    ] {
        let output = driftgate()
            .args(["--color", "never", "--repo"])
            .arg(&store)
            .arg("gate")
            .args(step)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        let report = String::from_utf8_lossy(&output.stdout);
        assert_eq!(output.status.code(), Some(0), "gate {}: {stderr}", step[0]);
        assert!(
            stderr.contains(&format!("{HOST}: PASS")),
            "gate {}: {stderr}",
            step[0]
        );
        // The warning reaches the gate's report of the host.
        assert!(
            report.contains(&format!(
                "note: {}: {INVENTORY}/CIMC: RelatedItem is the string",
                server.url
            )),
            "gate {}: {report}",
            step[0]
        );
    }
}

#[test]
fn a_string_related_item_on_the_nic_s_own_entry_stays_partial_naming_the_port_s_firmware() {
    let complete = capture(
        &format!("redfish=mockup:{}", fixture().display()),
        &[],
        false,
    );
    let malformed = vic_entry_malformed();
    for (how, captured) in captures(malformed.path()) {
        captured.assert_incomplete(
            "partial",
            &format!("{INVENTORY}/{VIC_ENTRY}: RelatedItem is the string"),
        );
        for port in PORTS {
            let fact = format!("nic/{port}/bmc/firmware/inventory");
            assert!(
                captured
                    .error()
                    .contains(&format!("{fact} (which firmware")),
                "{how}: the fact is named: {}",
                captured.error()
            );
        }
        // The entries tied to no NIC are still warnings, not what makes it partial.
        assert!(
            !captured.error().contains(&format!("{INVENTORY}/CIMC")),
            "{how}: {}",
            captured.error()
        );
        assert_eq!(
            check(&captured.text, &complete.text).0,
            3,
            "{how}: INCOMPLETE, never PASS"
        );
    }
}

/// A URI string in place of the link to a PCIe device that only the inventory names (the way
/// back to the adapter is the device's functions, `pcie-linked-firmware`'s `NIC3`): the device
/// is still read, so the entry is found to be the NIC's and the source stays partial naming the
/// port's firmware, rather than a warning about an entry tied to nothing.
#[test]
fn a_string_related_item_to_a_nic_s_pcie_device_is_followed_and_stays_partial() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(
        &root().join("tests/fixtures/redfish/pcie-linked-firmware"),
        dir.path(),
    );
    let file = dir
        .path()
        .join("redfish/v1/UpdateService/FirmwareInventory/FW-CN25-C/index.json");
    let mut entry: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    entry["RelatedItem"] = Value::from("/redfish/v1/Systems/1/PCIeDevices/NIC3");
    std::fs::write(&file, serde_json::to_string_pretty(&entry).unwrap()).unwrap();
    for (how, captured) in captures(dir.path()) {
        captured.assert_incomplete(
            "partial",
            "nic/02:c0:ff:ee:00:03/bmc/firmware/inventory (which firmware inventory member this port runs) cannot be told: /redfish/v1/UpdateService/FirmwareInventory/FW-CN25-C: RelatedItem is the string",
        );
        assert!(
            !captured.error().contains("02:c0:ff:ee:00:01"),
            "{how}: only NIC3's port: {}",
            captured.error()
        );
    }
}
