//! Windows' remote DCB settings as peer facts: the collector's document and the pasted text
//! give the same facts, broken inputs are gaps or errors, and the seed-1 recordings with a
//! switch advertising DCB (`tests/fixtures/peer`) read as such.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::SourceCapture;
use crate::transport::{Location, ProcessOptions, for_location};
use crate::windows::{capture, json, text};
use driftgate_snapshot::{Facts, SourceStatus};

fn root() -> PathBuf {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).to_path_buf()
}

/// The seed-1 baseline recording as JSON to edit (`Remote` null on both ports).
fn seed_document() -> Value {
    let path = root().join("examples/azure-local-dcbx/recorded/baseline/windows/windows-qos.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// `Remote` as a switch advertising PFC on 3, ETS 50/50 (priority 3 alone in TC1) and SMB
/// Direct and RoCE v2 on priority 3.
fn advertised() -> Value {
    json!({
        "TransmissionSelectionEnabled": true,
        "FlowControlEnabled": true,
        "PriorityAssignmentTable": [0, 0, 0, 1, 0, 0, 0, 0],
        "TsaAssignmentTable": [2, 2, 0, 0, 0, 0, 0, 0],
        "BandwidthAssignmentTable": [50, 50, 0, 0, 0, 0, 0, 0],
        "PriorityFlowControlEnableArray": [false, false, false, true, false, false, false, false],
        "ClassificationTable": [
            {"ProtocolSelector": 6, "ProtocolSpecificValue": 445, "Priority": 3},
            {"ProtocolSelector": 3, "ProtocolSpecificValue": 4791, "Priority": 3}
        ]
    })
}

/// The seed-1 document with `Remote` of the first port set to `remote`.
fn with_remote(remote: Value) -> Value {
    let mut doc = seed_document();
    doc["AdapterQos"][0]["Remote"] = remote;
    doc
}

const PORT1: &str = "nic/00:0a:f7:12:34:56";
const PORT2: &str = "nic/00:0a:f7:12:34:57";

/// The facts under `<port>/<side>/`, that prefix removed, as text.
fn under(facts: &Facts, port: &str, side: &str) -> Vec<(String, String)> {
    let prefix = format!("{port}/{side}/");
    facts
        .iter()
        .filter_map(|(path, value)| {
            path.as_str()
                .strip_prefix(&prefix)
                .map(|leaf| (leaf.to_owned(), value.to_string()))
        })
        .collect()
}

fn pairs(expected: &[(&str, &str)]) -> Vec<(String, String)> {
    expected
        .iter()
        .map(|(leaf, value)| ((*leaf).to_owned(), (*value).to_owned()))
        .collect()
}

/// What a switch advertising [`advertised`] gives, sorted as facts are.
const PEER: [(&str, &str); 9] = [
    ("app/netdirect/445", "[3]"),
    ("app/udp/4791", "[3]"),
    ("pfc/enabled", "[3]"),
    ("traffic_class/configuration/0/algorithm", "\"ets\""),
    ("traffic_class/configuration/0/bandwidth", "50"),
    (
        "traffic_class/configuration/0/priorities",
        "[0, 1, 2, 4, 5, 6, 7]",
    ),
    ("traffic_class/configuration/1/algorithm", "\"ets\""),
    ("traffic_class/configuration/1/bandwidth", "50"),
    ("traffic_class/configuration/1/priorities", "[3]"),
];

#[test]
fn the_collectors_remote_settings_are_the_peers_facts() {
    let parsed = json::parse(&with_remote(advertised()).to_string()).unwrap();
    assert_eq!(parsed.gaps, Vec::new());
    assert_eq!(under(&parsed.facts, PORT1, "peer"), pairs(&PEER));
    assert_eq!(
        under(&parsed.facts, PORT2, "peer"),
        Vec::new(),
        "Remote null"
    );
    let host_side = under(&parsed.facts, PORT1, "os");
    assert!(
        host_side.iter().all(|(leaf, _)| !leaf.contains("remote")),
        "{host_side:?}"
    );
    // Operational stays the adapter's own.
    assert!(host_side.contains(&(
        "flow_control/operational/priority/3".to_owned(),
        "true".to_owned()
    )));
}

#[test]
fn the_pasted_remote_lines_give_the_same_peer_facts() {
    let path = root().join("tests/fixtures/windows/get-netadapterqos-remote.txt");
    let (facts, names) = text::parse(&std::fs::read_to_string(path).unwrap()).unwrap();
    assert_eq!(names, ["SLOT 3 Port 1"]);
    assert_eq!(
        under(&facts, "nic/name-slot_3_port_1", "peer"),
        pairs(&PEER)
    );
    // The host side is what the collector gives for the same adapter, less what the paste
    // does not show (driver, RDMA, willing: other cmdlets).
    let collected = json::parse(&with_remote(advertised()).to_string()).unwrap();
    let collected = under(&collected.facts, PORT1, "os");
    for fact in under(&facts, "nic/name-slot_3_port_1", "os") {
        assert!(collected.contains(&fact), "{fact:?} not in {collected:?}");
    }
}

#[test]
fn recordings_without_classification_tables_read_without_app_entries() {
    let mut remote = advertised();
    remote
        .as_object_mut()
        .unwrap()
        .remove("ClassificationTable");
    let parsed = json::parse(&with_remote(remote).to_string()).unwrap();
    assert_eq!(parsed.gaps, Vec::new());
    let peer = under(&parsed.facts, PORT1, "peer");
    assert_eq!(peer, pairs(&PEER[2..]));
    // An empty table is a table without entries: no APP facts either.
    let mut remote = advertised();
    remote["ClassificationTable"] = json!([]);
    let parsed = json::parse(&with_remote(remote).to_string()).unwrap();
    assert_eq!(
        (parsed.gaps, under(&parsed.facts, PORT1, "peer")),
        (Vec::new(), pairs(&PEER[2..]))
    );
}

#[test]
fn tables_the_peer_did_not_send_are_no_facts() {
    // FlowControlEnabled false: no PFC TLV, so no `pfc/enabled` (not "PFC on no priority").
    let mut remote = advertised();
    remote["FlowControlEnabled"] = false.into();
    let parsed = json::parse(&with_remote(remote).to_string()).unwrap();
    let peer = under(&parsed.facts, PORT1, "peer");
    assert_eq!(
        peer,
        pairs(&[&PEER[..2], &PEER[3..]].concat()),
        "all but pfc/enabled"
    );
    let mut remote = advertised();
    remote["TransmissionSelectionEnabled"] = false.into();
    let parsed = json::parse(&with_remote(remote).to_string()).unwrap();
    assert_eq!(under(&parsed.facts, PORT1, "peer"), pairs(&PEER[..3]));
    // The text says so with Not Available.
    let paste = PASTE
        .replace(
            "RemoteFlowControl          : Priority 3 Enabled",
            "RemoteFlowControl          : Not Available",
        )
        .replace(
            "RemoteTrafficClasses       : TC TSA    Bandwidth Priorities
                             -- ---    --------- ----------
                              0 ETS    50%       0-2,4-7
                              1 ETS    50%       3
",
            "RemoteTrafficClasses       : Not Available\n",
        );
    let (facts, _) = text::parse(&paste).unwrap();
    assert_eq!(
        under(&facts, "nic/name-slot_3_port_1", "peer"),
        pairs(&PEER[..2])
    );
}

#[test]
fn windows_selectors_become_app_selectors() {
    let table = json!([
        {"ProtocolSelector": 1, "ProtocolSpecificValue": 0, "Priority": 0},
        {"ProtocolSelector": 2, "ProtocolSpecificValue": 3260, "Priority": 4},
        {"ProtocolSelector": 4, "ProtocolSpecificValue": 445, "Priority": 3},
        {"ProtocolSelector": 5, "ProtocolSpecificValue": 0x8906, "Priority": 3},
        {"ProtocolSelector": 5, "ProtocolSpecificValue": 0x8915, "Priority": 5},
        {"ProtocolSelector": 6, "ProtocolSpecificValue": 445, "Priority": 3},
        {"ProtocolSelector": 6, "ProtocolSpecificValue": 445, "Priority": 2},
        {"ProtocolSelector": 9, "ProtocolSpecificValue": 12, "Priority": 1}
    ]);
    let mut remote = advertised();
    remote["ClassificationTable"] = table;
    let parsed = json::parse(&with_remote(remote).to_string()).unwrap();
    assert_eq!(parsed.gaps, Vec::new());
    let app: Vec<(String, String)> = under(&parsed.facts, PORT1, "peer")
        .into_iter()
        .filter(|(leaf, _)| leaf.starts_with("app/"))
        .collect();
    assert_eq!(
        app,
        pairs(&[
            ("app/ethertype/0x0000", "[0]"),
            ("app/ethertype/0x8906", "[3]"),
            ("app/ethertype/0x8915", "[5]"),
            ("app/netdirect/445", "[2, 3]"),
            ("app/tcp/3260", "[4]"),
            ("app/tcp_udp/445", "[3]"),
            ("app/windows-selector-9/12", "[1]"),
        ])
    );
    // The same rows as the format prints them.
    let paste = PASTE.replace(
        "NetDirect 445       3\n                             UDP       4791      3\n",
        "Default             0
                             TCP       3260      4
                             TCP/UDP   445       3
                             Ethertype 0x8906    3
                             Ethertype 0x8915    5
                             NetDirect 445       3
                             NetDirect 445       2
                             (9)       12        1
",
    );
    let (facts, _) = text::parse(&paste).unwrap();
    let pasted: Vec<(String, String)> = under(&facts, "nic/name-slot_3_port_1", "peer")
        .into_iter()
        .filter(|(leaf, _)| leaf.starts_with("app/"))
        .collect();
    assert_eq!(pasted, app);
}

/// `tests/fixtures/windows/get-netadapterqos-remote.txt`.
const PASTE: &str =
    include_str!("../../../../../tests/fixtures/windows/get-netadapterqos-remote.txt");

#[test]
fn broken_remote_settings_are_gaps_never_dropped_silently() {
    type Edit = fn(&mut Value);
    let cases: [(Edit, &str); 5] = [
        (
            |r| {
                r["PriorityFlowControlEnableArray"]
                    .as_array_mut()
                    .unwrap()
                    .truncate(7);
            },
            "Remote.PriorityFlowControlEnableArray, 8 booleans (one per priority)",
        ),
        (
            |r| r["ClassificationTable"][1]["Priority"] = "3".into(),
            "Remote.ClassificationTable, objects of a ProtocolSelector number",
        ),
        (
            |r| r["ClassificationTable"][0]["ProtocolSpecificValue"] = 70000.into(),
            "Remote.ClassificationTable",
        ),
        (
            |r| {
                r["ClassificationTable"][0]
                    .as_object_mut()
                    .unwrap()
                    .remove("ProtocolSelector");
            },
            "Remote.ClassificationTable",
        ),
        (
            |r| r["ClassificationTable"] = Value::Null,
            "ClassificationTable is null",
        ),
    ];
    for (edit, needle) in cases {
        let mut remote = advertised();
        edit(&mut remote);
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join(crate::windows::RECORDING),
            with_remote(remote).to_string(),
        )
        .unwrap();
        let captured = capture_dir(dir.path());
        let error = captured.error_text().unwrap_or_default();
        assert_eq!(captured.status, SourceStatus::Partial, "{needle}: {error}");
        assert!(
            error.contains("AdapterQos[0] (adapter \"SLOT 3 Port 1\")") && error.contains(needle),
            "{error}\nlacks {needle:?}"
        );
    }
    // A bad table loses its own facts only: PFC and ETS still read, no APP entry is made up.
    let mut remote = advertised();
    remote["ClassificationTable"][1]["Priority"] = "3".into();
    let parsed = json::parse(&with_remote(remote).to_string()).unwrap();
    assert_eq!(under(&parsed.facts, PORT1, "peer"), pairs(&PEER[2..]));
    // So does an Operational one: read for its shape, never a fact.
    let mut doc = with_remote(advertised());
    doc["AdapterQos"][1]["Operational"]["ClassificationTable"] = json!([{"Priority": 3}]);
    let parsed = json::parse(&doc.to_string()).unwrap();
    assert_eq!(parsed.gaps.len(), 1, "{:?}", parsed.gaps);
    assert!(
        parsed.gaps[0]
            .to_string()
            .contains("Operational.ClassificationTable"),
        "{}",
        parsed.gaps[0]
    );
}

#[test]
fn broken_remote_lines_name_the_line() {
    let upto = |needle: &str| -> String {
        let at = PASTE.find(needle).unwrap_or_else(|| panic!("{needle:?}"));
        PASTE[..at + needle.len()].to_owned()
    };
    let cases = [
        // Cut after the header or the dash row: a table without a row.
        (
            upto("RemoteClassifications      : Protocol  Port/Type Priority\n"),
            28,
            "the classification table of line 28 ends here without a row",
        ),
        (
            PASTE.lines().take(29).collect::<Vec<_>>().join("\n"),
            29,
            "the classification table of line 28 ends here without a row",
        ),
        // Cut inside a row.
        (upto("UDP       4791"), 31, "expected a classification row"),
        (upto("UDP       47"), 31, "expected a classification row"),
        (
            PASTE.replace("UDP       4791      3", "UDP       4791      9"),
            31,
            "expected a classification row",
        ),
        (
            PASTE.replace("UDP       4791      3", "UDP       port      3"),
            31,
            "expected a classification row",
        ),
        (
            PASTE.replace("UDP       4791      3", "Ethertype 8906      3"),
            31,
            "expected a classification row",
        ),
        (
            PASTE.replace("UDP       4791      3", "(5)       4791      3"),
            31,
            "expected a classification row",
        ),
        (
            PASTE.replace("UDP       4791      3", "Default   4791      3"),
            31,
            "expected a classification row",
        ),
        // The group without its last line.
        (
            upto("RemoteFlowControl          : Priority 3 Enabled\n"),
            27,
            "without its RemoteClassifications line",
        ),
    ];
    for (text, line, words) in cases {
        let err = text::parse(&text).expect_err(&text);
        assert_eq!(err.line, Some(line), "{err}\n---\n{text}");
        assert!(
            err.message.contains(words),
            "{err} lacks {words:?}\n---\n{text}"
        );
    }
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

#[test]
fn the_seed_1_recordings_with_a_switch_give_its_pfc() {
    for (folder, enabled) in [
        ("seed1-switch-healthy", "[3]"),
        ("seed1-switch-pfc-off", "[]"),
    ] {
        let captured = capture_dir(&root().join("tests/fixtures/peer").join(folder));
        assert_eq!(
            (captured.status, captured.error_text()),
            (SourceStatus::Complete, None),
            "{folder}"
        );
        for port in [PORT1, PORT2] {
            let peer = under(&captured.facts, port, "peer");
            let mut expected = pairs(&PEER);
            expected.retain(|(leaf, _)| leaf != "app/udp/4791");
            for (leaf, value) in &mut expected {
                if leaf == "pfc/enabled" {
                    *value = enabled.to_owned();
                }
            }
            assert_eq!(peer, expected, "{folder} {port}");
            // The host side is the healthy seed-1 host's in both.
            assert_eq!(
                captured
                    .facts
                    .get(format!("{port}/os/flow_control/operational/priority/3").as_str())
                    .map(ToString::to_string)
                    .as_deref(),
                Some("true"),
                "{folder} {port}"
            );
        }
    }
}
