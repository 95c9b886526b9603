use std::path::{Path, PathBuf};

use super::*;
use crate::SourceCapture;
use crate::transport::{Location, ProcessOptions, for_location};

fn recorded(state: &str) -> PathBuf {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .join("examples/linux-mellanox-lldp/recorded")
        .join(state)
}

fn capture_dir(dir: &Path) -> SourceCapture {
    capture(
        for_location(
            &Location::Dir(dir.to_path_buf()),
            &ProcessOptions::default(),
        )
        .as_ref(),
    )
}

fn copy_of(state: &str) -> tempfile::TempDir {
    crate::test_support::copy_recording(&recorded(state))
}

fn fact(capture: &SourceCapture, path: &str) -> Option<String> {
    capture.facts.get(path).map(ToString::to_string)
}

const P1: &str = "nic/0c:42:a1:5e:77:10/os";
const P2: &str = "nic/0c:42:a1:5e:77:11/os";

#[test]
fn physical_ports_are_keyed_by_mac_and_read_from_every_tool() {
    let base = capture_dir(&recorded("baseline"));
    assert_eq!(
        (base.status, base.error_text().as_deref()),
        (SourceStatus::Complete, None)
    );
    for (leaf, value) in [
        ("name", "\"ens1f0np0\""),
        ("dcb_supported", "true"),
        ("dcbx_control", "\"os\""),
        ("dcbx_willing", "false"),
        ("flow_control/operational/priority/3", "true"),
        ("traffic_class/operational/3/bandwidth", "50"),
        ("firmware_lldp/dcbx", "false"),
        ("trust", "\"pcp\""),
        ("pause/rx", "false"),
        ("driver/name", "\"mlx5_core\""),
    ] {
        assert_eq!(
            fact(&base, &format!("{P1}/{leaf}")).as_deref(),
            Some(value),
            "{leaf}"
        );
    }
    // Port 2 reads its own mlxconfig parameters (the _P2 ones), and only those.
    assert_eq!(
        fact(&base, &format!("{P2}/mlxconfig/LLDP_NB_DCBX_P2")).as_deref(),
        Some("\"False\"")
    );
    assert_eq!(
        fact(&base, &format!("{P2}/mlxconfig/LLDP_NB_DCBX_P1")),
        None
    );
    assert!(
        !base
            .facts
            .keys()
            .any(|k| k.as_str().contains("ens1f0np0.214") || k.as_str().contains("/lo/")),
        "the VLAN and loopback are not ports"
    );
    let post = capture_dir(&recorded("post-update"));
    assert_eq!(
        fact(&post, &format!("{P1}/dcbx_control")).as_deref(),
        Some("\"firmware\"")
    );
    assert_eq!(
        fact(&post, &format!("{P1}/firmware_lldp/dcbx")).as_deref(),
        Some("true")
    );
}

#[test]
fn a_device_without_dcb_is_a_fact_not_a_failure() {
    let dir = copy_of("baseline");
    std::fs::write(dir.path().join("dcb-ets-ens1f1np1.json"), "\n").unwrap();
    std::fs::write(
        dir.path().join("dcb-ets-ens1f1np1.json.stderr"),
        "Attribute read: Operation not supported\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("dcb-ets-ens1f1np1.json.exit"), "1\n").unwrap();
    let captured = capture_dir(dir.path());
    assert_eq!(
        captured.status,
        SourceStatus::Complete,
        "{:?}",
        captured.error
    );
    assert_eq!(
        fact(&captured, &format!("{P2}/dcb_supported")).as_deref(),
        Some("false")
    );
    assert_eq!(
        fact(
            &captured,
            &format!("{P2}/flow_control/operational/priority/3")
        ),
        None
    );
}

#[test]
fn optional_tools_may_be_absent_required_ones_may_not() {
    let dir = copy_of("baseline");
    for optional in [
        "mlnx_qos-ens1f0np0.txt",
        "mlnx_qos-ens1f1np1.txt",
        "devlink-info.json",
        "mlxconfig-0000:3b:00.0.txt",
        "mlxconfig-0000:3b:00.1.txt",
    ] {
        std::fs::remove_file(dir.path().join(optional)).unwrap();
    }
    let captured = capture_dir(dir.path());
    assert_eq!(
        captured.status,
        SourceStatus::Complete,
        "{:?}",
        captured.error
    );
    assert_eq!(fact(&captured, &format!("{P1}/firmware_lldp/dcbx")), None);
    std::fs::remove_file(dir.path().join("dcb-pfc-ens1f0np0.json")).unwrap();
    let captured = capture_dir(dir.path());
    assert_eq!(captured.status, SourceStatus::Partial);
    assert!(
        captured
            .error_text()
            .unwrap()
            .contains("`dcb -j pfc show dev ens1f0np0` was not recorded")
    );
    let empty = tempfile::tempdir().unwrap();
    assert_eq!(capture_dir(empty.path()).status, SourceStatus::Failed);
}

#[test]
fn the_ethtool_text_form_is_the_fallback_and_pending_firmware_is_recorded() {
    let dir = copy_of("baseline");
    std::fs::remove_file(dir.path().join("ethtool-pause-ens1f0np0.json")).unwrap();
    std::fs::write(
        dir.path().join("ethtool-pause-ens1f0np0.txt"),
        "Pause parameters for ens1f0np0:\nAutonegotiate:\toff\nRX:\t\ton\nTX:\t\ton\n",
    )
    .unwrap();
    let devlink = std::fs::read_to_string(dir.path().join("devlink-info.json")).unwrap();
    let pending = devlink.replacen(
        "\"stored\": {\n                    \"fw.version\": \"22.39.1002\"",
        "\"stored\": {\n                    \"fw.version\": \"22.41.1000\"",
        1,
    );
    assert_ne!(pending, devlink);
    std::fs::write(dir.path().join("devlink-info.json"), pending).unwrap();
    let captured = capture_dir(dir.path());
    assert_eq!(
        captured.status,
        SourceStatus::Complete,
        "{:?}",
        captured.error
    );
    assert_eq!(
        fact(&captured, &format!("{P1}/pause/rx")).as_deref(),
        Some("true")
    );
    assert_eq!(
        fact(&captured, &format!("{P1}/firmware/pending/fw.version")).as_deref(),
        Some("\"22.41.1000\"")
    );
    assert_eq!(
        fact(&captured, &format!("{P2}/firmware/pending/fw.version")),
        None
    );
}
