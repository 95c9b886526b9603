use std::path::{Path, PathBuf};

use super::*;
use crate::transport::{Location, ProcessOptions, for_location};

const PORT: &str = "nic/02:00:00:00:41:01/peer";

fn lab() -> PathBuf {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join("tests/fixtures/lldp")
}

/// A `dir:` recording of the lab host (`ip-link.json`, eth1) with the `state`'s answer of
/// one agent: `lldptool` (lldpad) or `lldpcli` (lldpd), as `file` names them; `extra` files
/// (name, contents) beside.
fn recording(state: &str, agent: &str, extra: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(lab().join("ip-link.json"), dir.path().join("ip-link.json")).unwrap();
    let (from, to) = match agent {
        "lldptool" => ("lldptool-t-n.txt", "lldptool-eth1.txt"),
        _ => ("lldpcli-json0.json", "lldpcli-neighbors.json"),
    };
    let from = lab().join(state).join(from);
    if from.exists() {
        std::fs::copy(from, dir.path().join(to)).unwrap();
    }
    for (name, contents) in extra {
        std::fs::write(dir.path().join(name), contents).unwrap();
    }
    dir
}

fn read(dir: &Path) -> SourceCapture {
    capture(
        for_location(
            &Location::Dir(dir.to_path_buf()),
            &ProcessOptions::default(),
        )
        .as_ref(),
    )
}

fn fact(capture: &SourceCapture, leaf: &str) -> Option<String> {
    capture
        .facts
        .get(format!("{PORT}/{leaf}").as_str())
        .map(ToString::to_string)
}

#[test]
fn both_agents_give_the_same_peer_facts_keyed_by_the_ports_mac() {
    for agent in ["lldptool", "lldpcli"] {
        let dir = recording("dcbx", agent, &[]);
        let lldpad_absent = [("lldptool-eth1.txt", ""), ("lldptool-eth1.txt.exit", "255")];
        if agent == "lldpcli" {
            for (name, contents) in lldpad_absent {
                std::fs::write(dir.path().join(name), contents).unwrap();
            }
        }
        let read = read(dir.path());
        assert_eq!(
            read.status,
            SourceStatus::Complete,
            "{agent}: {:?}",
            read.error
        );
        assert_eq!(
            fact(&read, "pfc/enabled").as_deref(),
            Some("[3]"),
            "{agent}"
        );
        assert_eq!(fact(&read, "system_name").as_deref(), Some("\"tor-a\""));
        assert_eq!(fact(&read, "app/udp/4791").as_deref(), Some("[3]"));
        assert_eq!(fact(&read, "dcbx").as_deref(), Some("\"ieee\""));
        assert_eq!(
            fact(&read, "traffic_class/configuration/1/priorities").as_deref(),
            Some("[3]")
        );
    }
}

#[test]
fn no_neighbour_is_a_fact_and_no_agent_is_a_failure_naming_both() {
    let none = read(recording("no-neighbour", "lldptool", &[]).path());
    assert_eq!(none.status, SourceStatus::Complete);
    assert_eq!(fact(&none, "neighbour").as_deref(), Some("false"));
    assert_eq!(fact(&none, "pfc/enabled"), None);
    let none = read(
        recording(
            "no-neighbour",
            "lldpcli",
            &[("lldptool-eth1.txt", ""), ("lldptool-eth1.txt.exit", "127")],
        )
        .path(),
    );
    assert_eq!(fact(&none, "neighbour").as_deref(), Some("false"));
    let stderr =
        std::fs::read_to_string(lab().join("no-agent/lldptool-t-n-V-PFC.txt.stderr")).unwrap();
    let dir = recording(
        "no-agent",
        "lldptool",
        &[
            ("lldptool-eth1.txt", ""),
            ("lldptool-eth1.txt.stderr", &stderr),
            ("lldptool-eth1.txt.exit", "255"),
        ],
    );
    let failed = read(dir.path());
    assert_eq!(failed.status, SourceStatus::Failed);
    let error = failed.error_text().unwrap();
    assert!(
        error.contains("lldptool cannot reach lldpad")
            && error.contains("no lldpcli-neighbors.json recorded"),
        "{error}"
    );
}

#[test]
fn a_cut_answer_or_a_neighbour_on_a_port_ip_does_not_list_is_partial() {
    let dir = recording("dcbx", "lldptool", &[]);
    let whole = std::fs::read_to_string(dir.path().join("lldptool-eth1.txt")).unwrap();
    std::fs::write(
        dir.path().join("lldptool-eth1.txt"),
        &whole[..whole.len() / 2],
    )
    .unwrap();
    let cut = read(dir.path());
    assert_eq!(cut.status, SourceStatus::Partial);
    let error = cut.error_text().unwrap();
    assert!(
        error.contains("lldptool -t -n -i eth1") && error.contains("cut short"),
        "{error}"
    );
    assert_eq!(fact(&cut, "neighbour"), None);

    let dir = recording(
        "dcbx",
        "lldpcli",
        &[("lldptool-eth1.txt.exit", "255"), ("lldptool-eth1.txt", "")],
    );
    let json = std::fs::read_to_string(dir.path().join("lldpcli-neighbors.json")).unwrap();
    std::fs::write(
        dir.path().join("lldpcli-neighbors.json"),
        json.replace("\"eth1\"", "\"eth9\""),
    )
    .unwrap();
    let elsewhere = read(dir.path());
    assert_eq!(elsewhere.status, SourceStatus::Partial);
    assert!(elsewhere.error_text().unwrap().contains("\"eth9\""));
    // eth1 itself has no neighbour in lldpd's answer.
    assert_eq!(fact(&elsewhere, "neighbour").as_deref(), Some("false"));
}

#[test]
fn a_transport_failure_is_the_hosts_not_a_missing_agent() {
    let dir = recording(
        "dcbx",
        "lldptool",
        &[("lldptool-eth1.txt.exit", "not a status")],
    );
    let failed = read(dir.path());
    assert_eq!(failed.status, SourceStatus::Failed);
    let error = failed.error_text().unwrap();
    assert!(
        error.contains("does not hold an exit status") && !error.contains("lldpd"),
        "{error}"
    );
}

#[test]
fn lldpcli_naming_a_tlv_twice_is_partial_and_an_answer_no_port_can_send_is_not_parsed() {
    let lldpad_absent = [("lldptool-eth1.txt.exit", "255"), ("lldptool-eth1.txt", "")];
    let dir = recording("dcbx", "lldpcli", &lldpad_absent);
    let file = dir.path().join("lldpcli-neighbors.json");
    let json = std::fs::read_to_string(&file).unwrap();
    let name = "\"name\": [\n                {\n                  \"value\": \"tor-a\"\n                }\n";
    assert!(json.contains(name));
    let twice = json.replace(name, &format!("{name}, {{\"value\": \"tor-b\"}}\n"));
    std::fs::write(&file, twice).unwrap();
    let read_twice = read(dir.path());
    assert_eq!(read_twice.status, SourceStatus::Partial);
    let error = read_twice.error_text().unwrap();
    assert!(
        error.contains("interface \"eth1\": the System Name TLV is given 2 times"),
        "{error}"
    );
    // One port, and more than 256 KiB: what no LLDPDU prints is not parsed at all.
    let padded = json.replacen(
        '{',
        &format!("{{\"pad\": \"{}\",", "x".repeat(300 * 1024)),
        1,
    );
    std::fs::write(&file, padded).unwrap();
    let error = read(dir.path()).error_text().unwrap();
    assert!(
        error.contains("more than the 262144 the LLDPDUs of 1 port(s) can print"),
        "{error}"
    );
}
