use std::path::{Path, PathBuf};

use super::*;
use crate::transport::{Location, ProcessOptions, for_location};

fn recorded(state: &str) -> PathBuf {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .join("examples/azure-local-dcbx/recorded")
        .join(state)
        .join("windows")
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

fn fact(capture: &SourceCapture, path: &str) -> Option<String> {
    capture.facts.get(path).map(ToString::to_string)
}

const PORT: &str = "nic/00:0a:f7:12:34:56/os";

#[test]
fn the_collector_document_becomes_os_and_host_facts_keyed_by_mac() {
    let healthy = capture_dir(&recorded("baseline"));
    assert_eq!(
        (
            healthy.status,
            healthy.error_text().as_deref(),
            healthy.notes.len()
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
        capture_dir(dir.path()).facts,
        capture_dir(&recorded("baseline")).facts
    );
}

#[test]
fn one_element_arrays_collapsed_by_powershell_and_unknown_adapters_are_accepted() {
    let doc = r#"{"Schema": "driftgate.windows/v1",
        "Adapters": {"Name": "NIC1", "InterfaceDescription": null, "MacAddress": "00-11-22-33-44-55",
            "PermanentAddress": "", "DriverVersionString": null, "DriverProvider": null, "ifIndex": 4},
        "AdapterQos": [
            {"Name": "NIC1", "Enabled": false, "Hardware": null, "Current": null, "Operational": null, "Remote": null},
            {"Name": "vEthernet (SMB1)", "Enabled": true, "Hardware": null, "Current": null, "Operational": null, "Remote": null}],
        "FlowControl": [
            {"Priority": 0, "Enabled": false, "PolicySet": "Global", "IfAlias": null},
            {"Priority": 1, "Enabled": false, "PolicySet": "Global", "IfAlias": null},
            {"Priority": 2, "Enabled": false, "PolicySet": "Global", "IfAlias": null},
            {"Priority": 3, "Enabled": true, "PolicySet": "Global", "IfAlias": null},
            {"Priority": 4, "Enabled": false, "PolicySet": "Global", "IfAlias": null},
            {"Priority": 5, "Enabled": false, "PolicySet": "Global", "IfAlias": null},
            {"Priority": 6, "Enabled": false, "PolicySet": "Global", "IfAlias": null},
            {"Priority": 7, "Enabled": false, "PolicySet": "Global", "IfAlias": null}],
        "TrafficClasses": {"Name": "[Default]", "Algorithm": "ETS", "BandwidthPercentage": 100,
            "Priority": [0, 1, 2, 3, 4, 5, 6, 7], "PolicySet": "Global", "IfAlias": null},
        "Policies": [],
        "DcbxSettings": {"Willing": true, "PolicySet": "Global", "IfAlias": null},
        "Rdma": []}"#;
    let parsed = json::parse(doc).unwrap();
    assert_eq!(parsed.gaps, Vec::new());
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
        get("host/qos/traffic_class/default/priorities").as_deref(),
        Some("[0, 1, 2, 3, 4, 5, 6, 7]")
    );
    assert_eq!(get("host/qos/dcbx_willing").as_deref(), Some("true"));
    assert_eq!(
        get("host/qos/flow_control/priority/3").as_deref(),
        Some("true")
    );
}

/// The seed-1 collector output after the update, as JSON to edit.
fn seed_document() -> serde_json::Value {
    let text = std::fs::read_to_string(recorded("post-update").join(RECORDING)).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// Writes `document` as a recording and captures it.
fn capture_document(document: &serde_json::Value) -> SourceCapture {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join(RECORDING),
        serde_json::to_string_pretty(document).unwrap(),
    )
    .unwrap();
    capture_dir(dir.path())
}

fn gaps_of(document: &serde_json::Value) -> Vec<String> {
    json::parse(&document.to_string())
        .unwrap()
        .gaps
        .iter()
        .map(ToString::to_string)
        .collect()
}

#[test]
fn the_recorded_documents_are_whole() {
    for state in ["baseline", "post-update"] {
        let text = std::fs::read_to_string(recorded(state).join(RECORDING)).unwrap();
        assert_eq!(json::parse(&text).unwrap().gaps, Vec::new(), "{state}");
    }
}

#[test]
fn an_adapter_missing_from_adapter_qos_makes_the_source_partial_naming_it() {
    let mut doc = seed_document();
    doc["AdapterQos"].as_array_mut().unwrap().remove(1);
    let captured = capture_document(&doc);
    assert_eq!(captured.status, SourceStatus::Partial);
    let error = captured.error_text().unwrap();
    assert!(
        error.contains("windows-qos.json")
            && error.contains("AdapterQos (adapter \"SLOT 3 Port 2\"): missing")
            && error.contains("DcbxSettings"),
        "{error}"
    );
    // What is well formed is kept: the other port's facts are there.
    assert_eq!(
        fact(&captured, &format!("{PORT}/dcbx_support/current")).as_deref(),
        Some("\"none\"")
    );
}

#[test]
fn an_adapter_without_any_qos_capability_is_not_a_gap() {
    // A management NIC without DCB: Get-NetAdapter lists it, no QoS cmdlet reports it.
    let mut doc = seed_document();
    doc["AdapterQos"].as_array_mut().unwrap().remove(1);
    doc["Rdma"].as_array_mut().unwrap().remove(1);
    doc["DcbxSettings"].as_array_mut().unwrap().remove(2);
    assert_eq!(gaps_of(&doc), Vec::<String>::new());
}

#[test]
fn missing_or_mistyped_sections_and_properties_make_the_source_partial() {
    type Edit = fn(&mut serde_json::Value);
    let cases: [(Edit, &str); 16] = [
        (
            |d| {
                d["AdapterQos"][0]
                    .as_object_mut()
                    .unwrap()
                    .remove("Operational");
            },
            "AdapterQos[0] (adapter \"SLOT 3 Port 1\"): no Operational (the collector always writes it)",
        ),
        (
            |d| {
                d.as_object_mut().unwrap().remove("Rdma");
            },
            "Rdma: missing",
        ),
        (
            |d| d["AdapterQos"] = "SLOT 3 Port 1".into(),
            "AdapterQos: is \"SLOT 3 Port 1\", expected an array of objects",
        ),
        (
            |d| d["FlowControl"] = 5.into(),
            "FlowControl: is 5, expected an array",
        ),
        (
            |d| d["AdapterQos"][1]["Current"] = "None".into(),
            "AdapterQos[1] (adapter \"SLOT 3 Port 2\"): Current is \"None\", expected an object",
        ),
        (
            |d| d["AdapterQos"][0]["Enabled"] = "True".into(),
            "AdapterQos[0] (adapter \"SLOT 3 Port 1\"): Enabled is \"True\", expected true or false",
        ),
        (
            |d| d["AdapterQos"][0]["Hardware"]["IeeeDcbxSupported"] = 1.into(),
            "Hardware.IeeeDcbxSupported true or false",
        ),
        (
            |d| {
                d["AdapterQos"][0]["Current"]
                    .as_object_mut()
                    .unwrap()
                    .remove("NumberOfTrafficClasses");
            },
            "no NumberOfTrafficClasses",
        ),
        (
            |d| {
                d["AdapterQos"][0]["Operational"]["PriorityFlowControlEnableArray"]
                    .as_array_mut()
                    .unwrap()
                    .truncate(3);
            },
            "Operational.PriorityFlowControlEnableArray, 8 booleans",
        ),
        (
            |d| d["AdapterQos"][0]["Operational"]["PriorityAssignmentTable"] = "0 0 0".into(),
            "Operational.PriorityAssignmentTable, 8 traffic classes",
        ),
        (
            |d| {
                d["FlowControl"].as_array_mut().unwrap().remove(3);
            },
            "FlowControl: no entry for priorities [3]",
        ),
        (
            |d| d["FlowControl"][3]["Priority"] = 9.into(),
            "FlowControl[3]: Priority is 9, expected a priority 0-7",
        ),
        (
            |d| {
                d["TrafficClasses"].as_array_mut().unwrap().remove(0);
            },
            "TrafficClasses: no [Default] class; the classes list priorities [3]",
        ),
        (
            |d| {
                d["DcbxSettings"].as_array_mut().unwrap().remove(0);
            },
            "DcbxSettings: no global setting",
        ),
        (
            |d| d["Adapters"][1]["Name"] = serde_json::Value::Null,
            "Adapters[1]: Name is null, expected the adapter's name",
        ),
        (
            |d| d["Adapters"][1] = "SLOT 3 Port 2".into(),
            "Adapters[1]: is \"SLOT 3 Port 2\", expected an object",
        ),
    ];
    for (edit, needle) in cases {
        let mut doc = seed_document();
        edit(&mut doc);
        let captured = capture_document(&doc);
        let error = captured.error_text().unwrap_or_default();
        assert_eq!(captured.status, SourceStatus::Partial, "{needle}: {error}");
        assert!(
            error.contains(needle) && error.contains("windows-qos.json"),
            "{error}\nlacks {needle:?}"
        );
    }
    // Null where the format allows it is not a gap: no operational settings.
    let mut doc = seed_document();
    doc["AdapterQos"][0]["Operational"] = serde_json::Value::Null;
    assert_eq!(gaps_of(&doc), Vec::<String>::new());
}

#[test]
fn bad_documents_fail_the_source_with_the_reason() {
    let cases = [
        (
            "{\"Schema\": \"something/v2\"}",
            "schema is \"something/v2\"",
        ),
        (
            "{\"Schema\": \"driftgate.windows/v1\",\n \"Adapters\": [}",
            "line 2",
        ),
        ("[1, 2]", "expected the collector's JSON object"),
        ("Get-CimInstance : Access denied", "line 1"),
    ];
    for (text, needle) in cases {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(RECORDING), text).unwrap();
        let captured = capture_dir(dir.path());
        assert_eq!(captured.status, SourceStatus::Failed);
        let error = captured.error_text().unwrap();
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
    let error = capture_dir(dir.path()).error_text().unwrap();
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
        Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
            .join("examples/collectors/windows-qos.ps1"),
    )
    .unwrap();
    assert_eq!(COLLECTOR, shipped);
    assert!(COLLECTOR.contains("ConvertTo-Json -Depth 6") && COLLECTOR.contains(json::SCHEMA));
}

/// `tests/fixtures/windows/collector-x722.json`: a ConnectX-5 with DCB and an Intel X722
/// whose driver reports no DCB capability (null capabilities and settings).
fn x722_document() -> serde_json::Value {
    let path = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .join("tests/fixtures/windows/collector-x722.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

const X722: &str = "nic/3c:fd:fe:a0:b1:c2/os";

#[test]
fn null_capabilities_read_as_dcb_not_reported_and_complete() {
    let captured = capture_document(&x722_document());
    assert_eq!(
        (captured.status, captured.error_text().as_deref()),
        (SourceStatus::Complete, None)
    );
    assert_eq!(
        fact(&captured, &format!("{X722}/dcb_reported")).as_deref(),
        Some("false")
    );
    assert_eq!(
        fact(&captured, &format!("{X722}/qos_enabled")).as_deref(),
        Some("true")
    );
    let x722_dcb: Vec<&str> = captured
        .facts
        .keys()
        .map(|k| k.as_str())
        .filter(|k| {
            k.starts_with(X722) && (k.contains("/dcbx_support/") || k.contains("/num_tcs/"))
        })
        .collect();
    assert_eq!(x722_dcb, Vec::<&str>::new());
    // The adapter with DCB reports it and gets no such fact.
    let mellanox = "nic/0c:42:a1:5e:7f:10/os";
    assert_eq!(fact(&captured, &format!("{mellanox}/dcb_reported")), None);
    assert_eq!(
        fact(&captured, &format!("{mellanox}/dcbx_support/current")).as_deref(),
        Some("\"ieee\"")
    );
}

#[test]
fn one_null_capability_column_or_settings_without_capabilities_is_a_gap() {
    let caps = x722_document()["AdapterQos"][0]["Hardware"].clone();
    let settings = x722_document()["AdapterQos"][0]["Operational"].clone();
    type Edit = Box<dyn Fn(&mut serde_json::Value)>;
    let cases: [(Edit, &str); 3] = [
        (
            Box::new({
                let caps = caps.clone();
                move |d| d["AdapterQos"][1]["Current"] = caps.clone()
            }),
            "AdapterQos[1] (adapter \"Embedded NIC 1\"): Hardware is null but Current is not",
        ),
        (
            Box::new(|d| d["AdapterQos"][0]["Current"] = serde_json::Value::Null),
            "AdapterQos[0] (adapter \"SLOT 2 Port 1\"): Current is null but Hardware is not",
        ),
        (
            Box::new(move |d| d["AdapterQos"][1]["Operational"] = settings.clone()),
            "AdapterQos[1] (adapter \"Embedded NIC 1\"): Hardware and Current are null (no DCB capability reported) but Operational is not",
        ),
    ];
    for (edit, expected) in cases {
        let mut doc = x722_document();
        edit(&mut doc);
        let gaps = gaps_of(&doc);
        assert!(
            gaps.iter().any(|g| g.starts_with(expected)),
            "{gaps:?} lacks {expected:?}"
        );
        assert_eq!(capture_document(&doc).status, SourceStatus::Partial);
    }
}
