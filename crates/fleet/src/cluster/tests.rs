//! Cluster consistency over the shipped examples: the Azure Local nodes (one with DCBX reset
//! by its firmware update), the ESXi MSCS nodes (one shared RDM disk on Round Robin) and the
//! Linux Mellanox node, made into clusters by giving copies other host names and MACs.

use serde_json::{Value, json};

use super::{ClusterFacts, Compared, consistency};
use driftgate_compare::Severity;
use driftgate_snapshot::{FactPath, FactValue, HostName, Snapshot, VerifiedSnapshot};

fn example(file: &str) -> Snapshot {
    let path = format!("{}/{file}", concat!(env!("CARGO_MANIFEST_DIR"), "/../.."));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    VerifiedSnapshot::parse(&text, file)
        .unwrap()
        .snapshot()
        .clone()
}

/// `from` as another node: its host name, and every MAC `00:0a:f7:12:34:5x` (in paths and
/// values) replaced by `00:0a:f7:<mac>:5x`.
fn node(from: &Snapshot, host: &str, mac: &str) -> Snapshot {
    let mut snapshot = from.clone();
    snapshot.host = HostName::new(host).unwrap();
    let swap = |text: &str| text.replace("00:0a:f7:12:34:", &format!("00:0a:f7:{mac}:"));
    snapshot.facts = from
        .facts
        .iter()
        .map(|(path, value)| {
            let value = match value.as_text() {
                Some(text) => FactValue::from(swap(text)),
                None => value.clone(),
            };
            (FactPath::new(swap(path.as_str())).unwrap(), value)
        })
        .collect();
    snapshot
}

fn facts(snapshot: &Snapshot) -> ClusterFacts {
    ClusterFacts::extract(snapshot)
}

fn value<'f>(facts: &'f ClusterFacts, key: &str) -> &'f Value {
    &facts
        .values
        .get(key)
        .unwrap_or_else(|| panic!("no {key} in {:#?}", facts.values.keys()))
        .value
}

const AZL_BASELINE: &str = "examples/azure-local-dcbx/baseline.json";
const AZL_POST: &str = "examples/azure-local-dcbx/post-update.json";
const DCBX_PORT1: &str = "nic/NIC.Slot.3-1/bmc/function/NIC.Slot.3-1-1/dcbx_mode";

#[test]
fn keys_name_ports_by_slot_and_os_name_not_by_mac() {
    let f = facts(&example(AZL_BASELINE));
    assert_eq!(value(&f, DCBX_PORT1), &json!("ieee"));
    assert_eq!(
        f.values[DCBX_PORT1].name,
        "DCBX mode of NIC.Slot.3-1-1 (BMC)"
    );
    assert_eq!(
        value(&f, "nic/SLOT 3 Port 1/os/dcbx_support/current"),
        &json!("ieee")
    );
    assert_eq!(value(&f, "host/qos/flow_control/priority/*"), &json!([3]));
    assert_eq!(value(&f, "host/qos/dcbx_willing"), &json!(false));
    assert_eq!(
        value(&f, "host/qos/traffic_class/smb_direct/priorities"),
        &json!([3])
    );
    let bandwidth = &f.values["host/qos/traffic_class/smb_direct/bandwidth"];
    assert_eq!(
        (bandwidth.what, &bandwidth.value),
        (Compared::EtsBandwidth, &json!(50))
    );
    let family = &f.values["adapter/Broadcom NetXtreme E-Series Dual-port 25Gb SFP28 Ethernet PCIe Adapter/firmware_family"];
    assert_eq!(
        (family.severity, &family.value),
        (Severity::Info, &json!("229.0")),
        "both ports (the second is `… Adapter #2`) are one model"
    );
    assert!(
        f.values.keys().all(|k| !k.contains("00:0a:f7")),
        "no key names a MAC: {:#?}",
        f.values.keys()
    );
    assert!(
        f.values
            .values()
            .all(|v| v.severity == Severity::Block || v.what == Compared::NicFirmwareFamily)
    );
}

#[test]
fn nodes_with_other_macs_but_the_same_slot_layout_agree() {
    let base = example(AZL_BASELINE);
    let (a, b, c) = (
        facts(&base),
        facts(&node(&base, "azl-node02", "56:78")),
        facts(&node(&base, "azl-node03", "9a:bc")),
    );
    assert_eq!(a, b, "the same settings give the same cluster facts");
    let members = [("azl-node01", &a), ("azl-node02", &b), ("azl-node03", &c)];
    assert_eq!(consistency("azl", &members), Vec::new());
}

#[test]
fn the_node_whose_update_disabled_dcbx_is_the_odd_one_out() {
    let base = example(AZL_BASELINE);
    let post = facts(&example(AZL_POST));
    let (b, c) = (
        facts(&node(&base, "azl-node02", "56:78")),
        facts(&node(&base, "azl-node03", "9a:bc")),
    );
    let findings = consistency(
        "azl",
        &[
            ("azl-node02", &b),
            ("azl-node01", &post),
            ("azl-node03", &c),
        ],
    );
    let dcbx = findings
        .iter()
        .find(|f| f.path.as_deref() == Some(DCBX_PORT1))
        .expect("the DCBX mode of port 1 differs");
    assert_eq!(dcbx.rule, "cluster/dcbx-mode");
    assert_eq!(dcbx.severity, Severity::Block);
    assert_eq!(dcbx.cluster.as_deref(), Some("azl"));
    assert_eq!(dcbx.hosts, ["azl-node01"]);
    assert_eq!(dcbx.values, [json!("disabled")]);
    let majority = dcbx.majority.as_ref().expect("a majority");
    assert_eq!(
        (&majority.value, majority.hosts, majority.of),
        (&json!("ieee"), 2, 3)
    );
    assert_eq!(
        dcbx.message,
        "cluster azl: DCBX mode of NIC.Slot.3-1-1 (BMC): azl-node01 has \"disabled\" where 2 of 3 nodes have \"ieee\""
    );
    let rules: Vec<&str> = findings.iter().map(|f| f.rule.as_str()).collect();
    for rule in [
        "cluster/dcbx-mode",
        "cluster/pfc-priorities",
        "cluster/nic-firmware-family",
    ] {
        assert!(rules.contains(&rule), "{rule} in {rules:?}");
    }
    assert!(
        findings.iter().all(|f| f.hosts == ["azl-node01"]),
        "{findings:#?}"
    );
    // Most severe first, then rule, then path: the firmware family (info) comes last.
    assert_eq!(findings.last().unwrap().rule, "cluster/nic-firmware-family");
    let mut sorted = findings.clone();
    sorted.sort_by(|a, b| {
        b.severity
            .cmp(&a.severity)
            .then(a.rule.cmp(&b.rule))
            .then(a.path.cmp(&b.path))
    });
    assert_eq!(findings, sorted);
    // Member order does not matter.
    let again = consistency(
        "azl",
        &[
            ("azl-node03", &c),
            ("azl-node02", &b),
            ("azl-node01", &post),
        ],
    );
    assert_eq!(findings, again);
}

#[test]
fn a_tie_names_every_node_and_has_no_majority() {
    let base = facts(&example(AZL_BASELINE));
    let post = facts(&node(&example(AZL_POST), "azl-node02", "56:78"));
    let findings = consistency("azl", &[("azl-node01", &base), ("azl-node02", &post)]);
    let dcbx = findings
        .iter()
        .find(|f| f.path.as_deref() == Some(DCBX_PORT1))
        .expect("a finding");
    assert_eq!(dcbx.hosts, ["azl-node01", "azl-node02"]);
    assert_eq!(dcbx.values, [json!("ieee"), json!("disabled")]);
    assert_eq!(dcbx.majority, None);
    assert_eq!(
        dcbx.message,
        "cluster azl: DCBX mode of NIC.Slot.3-1-1 (BMC): no majority among 2 nodes: azl-node01 has \"ieee\", azl-node02 has \"disabled\""
    );
}

#[test]
fn a_node_without_a_setting_the_majority_has_is_odd() {
    let base = example(AZL_BASELINE);
    let mut lacking = node(&base, "azl-node03", "9a:bc");
    lacking
        .facts
        .retain(|path, _| !is_port1_function_dcbx(path.as_str()));
    let (a, b, c) = (
        facts(&base),
        facts(&node(&base, "azl-node02", "56:78")),
        facts(&lacking),
    );
    let findings = consistency(
        "azl",
        &[("azl-node01", &a), ("azl-node02", &b), ("azl-node03", &c)],
    );
    assert_eq!(findings.len(), 1, "{findings:#?}");
    let f = &findings[0];
    assert_eq!(
        (f.hosts.as_slice(), f.values.as_slice()),
        (&["azl-node03".to_owned()][..], &[Value::Null][..])
    );
    assert!(f.message.contains("azl-node03 has none"), "{}", f.message);
    assert_eq!(f.majority.as_ref().map(|m| (m.hosts, m.of)), Some((2, 3)));
}

/// Whether `path` is the DCBX mode of the function of port 1 (`NIC.Slot.3-1-1`), which is
/// keyed by its MAC (`00:0a:f7:<node>:56`).
fn is_port1_function_dcbx(path: &str) -> bool {
    path.contains("/bmc/function/") && path.ends_with(":56/dcbx_mode")
}

/// `base` as `host`, without the DCBX mode of port 1.
fn without_dcbx_mode(base: &Snapshot, host: &str, mac: &str) -> Snapshot {
    let mut lacking = node(base, host, mac);
    lacking
        .facts
        .retain(|path, _| !is_port1_function_dcbx(path.as_str()));
    lacking
}

#[test]
fn in_a_two_node_cluster_a_node_without_a_setting_is_a_tie_naming_both() {
    let base = example(AZL_BASELINE);
    let (a, b) = (
        facts(&base),
        facts(&without_dcbx_mode(&base, "azl-node02", "56:78")),
    );
    let findings = consistency("azl", &[("azl-node01", &a), ("azl-node02", &b)]);
    let dcbx: Vec<_> = findings
        .iter()
        .filter(|f| f.path.as_deref() == Some(DCBX_PORT1))
        .collect();
    assert_eq!(dcbx.len(), 1, "{findings:#?}");
    assert_eq!(dcbx[0].severity, Severity::Block);
    assert_eq!(dcbx[0].hosts, ["azl-node01", "azl-node02"]);
    assert_eq!(dcbx[0].majority, None);
    assert!(
        dcbx[0].message.contains("azl-node02 has none"),
        "{}",
        dcbx[0].message
    );
}

#[test]
fn when_half_the_nodes_lack_a_setting_every_node_is_named() {
    let base = example(AZL_BASELINE);
    let nodes = [
        facts(&base),
        facts(&node(&base, "azl-node02", "56:78")),
        facts(&without_dcbx_mode(&base, "azl-node03", "9a:bc")),
        facts(&without_dcbx_mode(&base, "azl-node04", "de:f0")),
    ];
    let names = ["azl-node01", "azl-node02", "azl-node03", "azl-node04"];
    let members: Vec<(&str, &ClusterFacts)> = names.iter().copied().zip(nodes.iter()).collect();
    let findings = consistency("azl", &members);
    let f = findings
        .iter()
        .find(|f| f.path.as_deref() == Some(DCBX_PORT1))
        .unwrap_or_else(|| panic!("no finding of {DCBX_PORT1}: {findings:#?}"));
    assert_eq!(f.hosts, names);
    assert_eq!(f.majority, None);
}

#[test]
fn a_port_keyed_by_its_mac_is_not_blamed_for_a_key_only_it_has() {
    let value = |by_mac: bool| super::ClusterValue {
        what: Compared::DcbxMode,
        severity: Severity::Block,
        name: "DCBX mode of 00:0a (BMC)".into(),
        value: json!("IEEE"),
        by_mac,
    };
    let mut one = ClusterFacts::default();
    one.values
        .insert("nic/00:0a/bmc/dcbx_mode".into(), value(true));
    let other = ClusterFacts::default();
    assert_eq!(
        consistency("c", &[("a", &one), ("b", &other)]),
        Vec::new(),
        "a MAC key differs on every node"
    );
    one.values
        .insert("nic/00:0a/bmc/dcbx_mode".into(), value(false));
    assert_eq!(consistency("c", &[("a", &one), ("b", &other)]).len(), 1);
}

#[test]
fn a_one_node_cluster_is_not_compared() {
    let post = facts(&example(AZL_POST));
    assert_eq!(consistency("azl", &[("azl-node01", &post)]), Vec::new());
    assert_eq!(consistency("azl", &[]), Vec::new());
}

#[test]
fn the_mscs_node_with_its_shared_rdm_disk_on_round_robin_is_found() {
    const RDM: &str = "storage/nmp/naa.60050768028081713c0000000000007d/psp";
    let healthy = example("examples/esxi-mscs-psp/baseline.json");
    let rr = facts(&example("examples/esxi-mscs-psp/current.json"));
    let mut esx02 = healthy.clone();
    esx02.host = HostName::new("esx02").unwrap();
    let (h2, h3) = (facts(&esx02), facts(&healthy));
    assert_eq!(value(&h3, RDM), &json!("VMW_PSP_MRU"));
    assert!(
        !h3.values
            .keys()
            .any(|k| k.contains("mpx.") || k.contains("7c/")),
        "local and unshared devices are not compared: {:#?}",
        h3.values.keys()
    );
    let findings = consistency("mscs", &[("esx01", &rr), ("esx02", &h2), ("esx03", &h3)]);
    assert_eq!(findings.len(), 1, "{findings:#?}");
    let f = &findings[0];
    assert_eq!(f.rule, "cluster/psp");
    assert_eq!(f.severity, Severity::Block);
    assert_eq!(f.path.as_deref(), Some(RDM));
    assert_eq!(f.hosts, ["esx01"]);
    assert_eq!(f.values, [json!("VMW_PSP_RR")]);
    let m = f.majority.as_ref().unwrap();
    assert_eq!((&m.value, m.hosts, m.of), (&json!("VMW_PSP_MRU"), 2, 3));
    // A node that does not see the device is not odd: LUNs may be presented to some nodes.
    let mut blind = healthy.clone();
    blind.facts.retain(|p, _| !p.as_str().contains("7d/"));
    let blind = facts(&blind);
    let findings = consistency("mscs", &[("esx02", &h2), ("esx03", &h3), ("esx04", &blind)]);
    assert_eq!(findings, Vec::new());
}

#[test]
fn linux_ports_are_keyed_by_interface_name_and_firmware_by_board() {
    let f = facts(&example("examples/linux-mellanox-lldp/post-update.json"));
    assert_eq!(
        value(&f, "nic/ens1f0np0/os/flow_control/operational/priority/*"),
        &json!([3])
    );
    assert_eq!(
        value(&f, "nic/ens1f0np0/os/dcbx_control"),
        &json!("firmware")
    );
    assert_eq!(value(&f, "nic/ens1f1np1/os/dcbx_willing"), &json!(false));
    assert_eq!(
        value(&f, "nic/ens1f0np0/os/traffic_class/operational/3/bandwidth"),
        &json!(50)
    );
    assert_eq!(
        value(&f, "adapter/MT_0000000359/firmware_family"),
        &json!("22.41")
    );
}

#[test]
fn cluster_facts_survive_a_result_file() {
    let f = facts(&example(AZL_POST));
    let text = serde_json::to_string(&f).unwrap();
    assert!(text.contains("\"what\":\"dcbx-mode\""), "{text}");
    let back: ClusterFacts = serde_json::from_str(&text).unwrap();
    assert_eq!(back, f);
}
