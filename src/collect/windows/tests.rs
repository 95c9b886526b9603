use std::path::{Path, PathBuf};

use super::*;
use crate::collect::transport::{Location, ProcessOptions, for_location};

fn recorded(state: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples/azure-local-dcbx/recorded")
        .join(state)
        .join("windows")
}

fn capture_dir(dir: &Path) -> Capture {
    capture(
        for_location(
            &Location::Dir(dir.to_path_buf()),
            &ProcessOptions::default(),
        )
        .as_ref(),
    )
}

fn fact(capture: &Capture, path: &str) -> Option<String> {
    capture.source.facts.get(path).map(ToString::to_string)
}

const PORT: &str = "nic/00:0a:f7:12:34:56/os";

#[test]
fn the_collector_document_becomes_os_and_host_facts_keyed_by_mac() {
    let healthy = capture_dir(&recorded("baseline"));
    assert_eq!(
        (
            healthy.source.status,
            healthy.source.error.as_deref(),
            healthy.unjoined.len()
        ),
        (SourceStatus::Complete, None, 0)
    );
    let expect = [
        ("name", "\"SLOT 3 Port 1\""),
        ("qos_enabled", "true"),
        ("rdma_enabled", "true"),
        ("dcbx_willing", "false"),
        ("dcbx_support/hardware", "\"ieee\""),
        ("dcbx_support/current", "\"ieee\""),
        ("num_tcs/current/pfc", "3"),
        ("flow_control/operational/priority/3", "true"),
        ("traffic_class/operational/1/priorities", "[3]"),
        ("traffic_class/operational/1/algorithm", "\"ets\""),
        ("traffic_class/operational/0/bandwidth", "50"),
        ("driver/version", "\"223.0.152.0\""),
    ];
    for (leaf, value) in expect {
        assert_eq!(
            fact(&healthy, &format!("{PORT}/{leaf}")).as_deref(),
            Some(value),
            "{leaf}"
        );
    }
    for (path, value) in [
        ("host/qos/flow_control/priority/3", "true"),
        ("host/qos/traffic_class/smb_direct/priorities", "[3]"),
        ("host/qos/traffic_class/default/bandwidth", "50"),
        ("host/qos/policy/smb_direct/match", "\"netdirect:445\""),
        ("host/qos/policy/smb_direct/priority", "3"),
        ("host/qos/dcbx_willing", "false"),
    ] {
        assert_eq!(fact(&healthy, path).as_deref(), Some(value), "{path}");
    }
    let post = capture_dir(&recorded("post-update"));
    assert_eq!(
        fact(&post, &format!("{PORT}/dcbx_support/current")).as_deref(),
        Some("\"none\"")
    );
    assert_eq!(
        fact(&post, &format!("{PORT}/num_tcs/current/max")).as_deref(),
        Some("0")
    );
    assert_eq!(
        fact(
            &post,
            &format!("{PORT}/flow_control/operational/priority/3")
        )
        .as_deref(),
        Some("false")
    );
}

#[test]
fn a_utf16_recording_reads_like_utf8() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(recorded("baseline").join(RECORDING)).unwrap();
    let mut utf16 = vec![0xFF, 0xFE];
    utf16.extend(text.encode_utf16().flat_map(u16::to_le_bytes));
    std::fs::write(dir.path().join(RECORDING), utf16).unwrap();
    assert_eq!(
        capture_dir(dir.path()).source.facts,
        capture_dir(&recorded("baseline")).source.facts
    );
}

#[test]
fn one_element_arrays_collapsed_by_powershell_and_unknown_adapters_are_accepted() {
    let doc = r#"{"Schema": "driftgate.windows/v1",
        "Adapters": {"Name": "NIC1", "MacAddress": "00-11-22-33-44-55", "PermanentAddress": ""},
        "AdapterQos": [{"Name": "NIC1", "Enabled": false}, {"Name": "vEthernet (SMB1)", "Enabled": true}],
        "TrafficClasses": {"Name": "SMB", "Algorithm": "ETS", "BandwidthPercentage": 60, "Priority": 3},
        "FlowControl": {"Priority": 3, "Enabled": true, "IfAlias": "NIC1"}}"#;
    let parsed = json::parse(doc).unwrap();
    assert_eq!(parsed.unjoined, vec!["vEthernet (SMB1)"]);
    let get = |p: &str| parsed.facts.get(p).map(ToString::to_string);
    assert_eq!(
        get("nic/00:11:22:33:44:55/os/qos_enabled").as_deref(),
        Some("false")
    );
    assert_eq!(
        get("nic/name-vethernet_(smb1)/os/qos_enabled").as_deref(),
        Some("true")
    );
    assert_eq!(
        get("host/qos/traffic_class/smb/priorities").as_deref(),
        Some("[3]")
    );
    assert_eq!(
        get("nic/00:11:22:33:44:55/os/flow_control/configured/priority/3").as_deref(),
        Some("true")
    );
}

#[test]
fn bad_documents_fail_the_source_with_the_reason() {
    let cases = [
        (
            "{\"Schema\": \"something/v2\"}",
            "schema is \"something/v2\"",
        ),
        (
            "{\"Schema\": \"driftgate.windows/v1\",\n \"Adapters\": [{\"Nam\": 1}]}",
            "line 2",
        ),
        ("Get-CimInstance : Access denied", "line 1"),
    ];
    for (text, needle) in cases {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(RECORDING), text).unwrap();
        let captured = capture_dir(dir.path());
        assert_eq!(captured.source.status, SourceStatus::Failed);
        let error = captured.source.error.unwrap();
        assert!(
            error.contains(needle) && error.contains("windows-qos.json"),
            "{error}"
        );
    }
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join(RECORDING), "").unwrap();
    std::fs::write(dir.path().join("windows-qos.json.exit"), "1").unwrap();
    std::fs::write(
        dir.path().join("windows-qos.json.stderr"),
        "Get-NetAdapterQos : Access is denied.",
    )
    .unwrap();
    let error = capture_dir(dir.path()).source.error.unwrap();
    assert!(
        error.contains("exited with status 1: Get-NetAdapterQos : Access is denied."),
        "{error}"
    );
}

#[test]
fn the_collector_command_fits_a_windows_command_line() {
    let argv = collector_argv();
    let length: usize = argv.iter().map(|a| a.len() + 1).sum();
    assert!(length < 8191, "cmd.exe stops at 8191 characters: {length}");
    let encoded = argv.last().unwrap();
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(encoded)
        .unwrap();
    let units: Vec<u16> = bytes
        .chunks_exact(2)
        .map(|p| u16::from_le_bytes([p[0], p[1]]))
        .collect();
    assert_eq!(String::from_utf16(&units).unwrap(), BOOTSTRAP);
}

#[test]
fn the_collector_is_the_shipped_script() {
    let shipped = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/collectors/windows-qos.ps1"),
    )
    .unwrap();
    assert_eq!(COLLECTOR, shipped);
    assert!(COLLECTOR.contains("ConvertTo-Json -Depth 6") && COLLECTOR.contains(json::SCHEMA));
}
