//! Cluster consistency: the nodes of one cluster must agree on what must be equal across
//! nodes (host PFC priorities, traffic classes and ETS bandwidths, DCBX mode and willing, NIC
//! firmware family per adapter model, and on ESXi the PSP of every device shared
//! cluster-wide). Needs no baseline. Each host's few facts that matter are extracted once as
//! it finishes ([`ClusterFacts`], kept in its result file), so a run holds no snapshot and a
//! merge of shards compares the same facts. Pure: no I/O.
//!
//! # Keys
//!
//! A snapshot keys a NIC port by its MAC, which differs on every node; the cluster check keys
//! it by what is the same on every node of one hardware layout instead:
//!
//! - the BMC's view (`nic/<mac>/bmc/…`) by the BMC's port id (`bmc/port`, e.g.
//!   `NIC.Slot.3-1`; `<adapter>:<port>` when the port id does not name its adapter, as
//!   `Ports/1` does not), else the OS adapter name;
//! - the OS's view (`nic/<mac>/os/…`) by the OS adapter name (`os/name`: `SLOT 3 Port 1`,
//!   `ens1f0np0`), else the BMC's port id;
//! - a port with neither, or whose id repeats on the node, keeps its MAC key (it then matches
//!   no other node and is not compared).
//!
//! | key | rule | from |
//! |---|---|---|
//! | `host/qos/flow_control/priority/*` | `cluster/pfc-priorities` | Windows NetQos: the priorities with PFC on, as a list |
//! | `host/qos/traffic_class/<class>/{priorities,algorithm}` | `cluster/traffic-class` | Windows NetQos traffic classes |
//! | `host/qos/traffic_class/<class>/bandwidth` | `cluster/ets-bandwidth` | Windows NetQos ETS bandwidth |
//! | `host/qos/dcbx_willing` | `cluster/dcbx-willing` | Windows `Get-NetQosDcbxSetting` |
//! | `nic/<port>/bmc/…/dcbx_mode` | `cluster/dcbx-mode` | the NIC's DCBX mode (HII), per port or function |
//! | `nic/<port>/bmc/…/dcbx_willing` | `cluster/dcbx-willing` | the NIC's own willing setting |
//! | `nic/<port>/os/dcbx_support/current`, `nic/<port>/os/dcbx_control` | `cluster/dcbx-mode` | the DCBX mode the OS sees running, who runs DCBX (Linux) |
//! | `nic/<port>/os/dcbx_willing` | `cluster/dcbx-willing` | per adapter (Windows) or `dcb ets` (Linux) |
//! | `nic/<port>/os/flow_control/<scope>/priority/*` | `cluster/pfc-priorities` | per port, configured (Windows) or operational (Windows, Linux DCB); what the link partner advertises is `nic/<port>/peer/…`, not compared across nodes |
//! | `nic/<port>/os/traffic_class/<scope>/<tc>/{priorities,algorithm}` | `cluster/traffic-class` | per port |
//! | `nic/<port>/os/traffic_class/<scope>/<tc>/bandwidth` | `cluster/ets-bandwidth` | per port |
//! | `adapter/<model>/firmware_family` | `cluster/nic-firmware-family` (info) | major.minor of each port's NIC firmware, per adapter model |
//! | `storage/nmp/<device>/psp` | `cluster/psp` | ESXi, devices shared cluster-wide |
//! | [`LinkEnd`]s (not keyed) | `cluster/link-pfc` | each port's LLDP neighbour: two nodes' ports that are each other's neighbour must agree on PFC |
//!
//! The adapter model is the OS's description of the adapter (Windows, without its `#2`
//! suffix), the board id of a Mellanox firmware version (`MT_…`, Linux) or else the driver,
//! else the BMC's adapter id. Staged values (`pending` segments) are not compared: they do not
//! run yet. An ESXi device is shared when `is_shared_clusterwide` is true or it is perennially
//! reserved (an MSCS shared RDM: ESXi 5.0 reports no `is_shared_clusterwide`), unless it is
//! local or its id is path-based (`mpx.…`).
//!
//! # Majority
//!
//! A key is compared when at least two nodes have it. When most nodes have it, a node without
//! it is an odd one out (`values` holds `null` for it); otherwise only the nodes with it are
//! compared. A shared device's PSP is compared only among the nodes that see the device (a
//! LUN may be presented to some nodes only). The value a strict majority of the compared
//! nodes has is the majority; the other nodes are the odd ones out. Without a strict majority
//! (a tie) every compared node is named and `majority` is `None`.

use std::collections::{BTreeMap, BTreeSet};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use driftgate_compare::Severity;
use driftgate_report::document::{FleetFinding, Majority};
use driftgate_snapshot::{FactValue, Facts, Snapshot};
pub use links::LinkEnd;

/// At most this many odd nodes are named with their values in a finding's message.
const MESSAGE_HOSTS: usize = 5;

/// What of one host's snapshot the cluster check compares, keyed so that the same key means
/// the same thing on every node (see the module docs).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ClusterFacts {
    /// Comparison key → what it is and its value on this host.
    pub values: BTreeMap<String, ClusterValue>,
    /// This host's ends of its links whose neighbour an LLDP agent (or the BMC) named.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub links: Vec<LinkEnd>,
}

/// One compared value of one host, with what it is.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ClusterValue {
    /// What is compared: the finding's rule is `cluster/<what>`.
    pub what: Compared,
    /// How a disagreement counts.
    pub severity: Severity,
    /// For a human: `DCBX mode of NIC.Slot.3-1-1 (BMC)`.
    pub name: String,
    /// The value.
    pub value: Value,
    /// Its key names the port by its MAC (no cross-node id): another node lacking the key
    /// most likely names the same port otherwise, so its absence is no disagreement.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub by_mac: bool,
}

/// What a cluster key compares.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum Compared {
    /// The DCBX mode (BMC, or the OS's current view).
    DcbxMode,
    /// DCBX willing.
    DcbxWilling,
    /// The priorities with PFC on.
    PfcPriorities,
    /// A traffic class's priorities or algorithm.
    TrafficClass,
    /// A traffic class's ETS bandwidth.
    EtsBandwidth,
    /// The NIC firmware family of an adapter model.
    NicFirmwareFamily,
    /// The path selection policy of a shared storage device.
    Psp,
}

impl Compared {
    /// `dcbx-mode`, …: the rule is `cluster/<this>`.
    pub fn as_str(self) -> &'static str {
        match self {
            Compared::DcbxMode => "dcbx-mode",
            Compared::DcbxWilling => "dcbx-willing",
            Compared::PfcPriorities => "pfc-priorities",
            Compared::TrafficClass => "traffic-class",
            Compared::EtsBandwidth => "ets-bandwidth",
            Compared::NicFirmwareFamily => "nic-firmware-family",
            Compared::Psp => "psp",
        }
    }

    /// Firmware families are expected to differ during a rolling update: information only.
    fn severity(self) -> Severity {
        match self {
            Compared::NicFirmwareFamily => Severity::Info,
            _ => Severity::Block,
        }
    }

    /// Whether a node without the key (while most nodes have it) is an odd one out.
    fn absence_counts(self) -> bool {
        self != Compared::Psp
    }
}

impl ClusterFacts {
    /// The facts of `snapshot` that the nodes of a cluster must agree on.
    pub fn extract(snapshot: &Snapshot) -> ClusterFacts {
        let facts = &snapshot.facts;
        let ports = Ports::of(facts);
        let mut out = Extracted::default();
        for (path, value) in facts {
            let segments: Vec<&str> = path.as_str().split('/').collect();
            if segments.contains(&"pending") {
                continue;
            }
            match segments.as_slice() {
                ["host", "qos", "flow_control", "priority", p] => out.pfc(
                    "host/qos/flow_control/priority/*".to_owned(),
                    "host PFC priorities".to_owned(),
                    p,
                    value,
                ),
                ["host", "qos", "traffic_class", class, leaf] => {
                    out.class(
                        format!("host/qos/traffic_class/{class}"),
                        class,
                        leaf,
                        value,
                    );
                }
                ["host", "qos", "dcbx_willing"] => out.set(
                    "host/qos/dcbx_willing".to_owned(),
                    Compared::DcbxWilling,
                    "host DCBX willing".to_owned(),
                    value,
                ),
                ["storage", "nmp", device, "psp"] if shared(facts, device) => out.set(
                    format!("storage/nmp/{device}/psp"),
                    Compared::Psp,
                    format!("path selection policy of shared device {device}"),
                    value,
                ),
                ["nic", key, "bmc", rest @ ..] => out.bmc_port(facts, &ports, key, rest, value),
                ["nic", key, "os", rest @ ..] => out.os_port(&ports, key, rest, value),
                _ => {}
            }
        }
        for (model, families) in ports.firmware_families(facts) {
            let families: Vec<String> = families.into_iter().collect();
            out.values.insert(
                format!("adapter/{model}/firmware_family"),
                ClusterValue {
                    what: Compared::NicFirmwareFamily,
                    severity: Compared::NicFirmwareFamily.severity(),
                    name: format!("NIC firmware family of {model}"),
                    value: Value::String(families.join(", ")),
                    by_mac: false,
                },
            );
        }
        ClusterFacts {
            links: links::extract(facts),
            ..out.finish()
        }
    }
}

/// What `extract` gathers: single values, and PFC priority lists built fact by fact.
#[derive(Default)]
struct Extracted {
    values: BTreeMap<String, ClusterValue>,
    /// Key → (name, priorities with PFC on).
    pfc: BTreeMap<String, (String, BTreeSet<u64>)>,
    /// Keys that name a port by its MAC.
    by_mac: BTreeSet<String>,
    /// `nic/<mac>/os`: every key under it names a port by its MAC.
    mac_bases: BTreeSet<String>,
}

impl Extracted {
    /// A BMC fact of the port `key` (`rest` under its `bmc/`): its DCBX mode and willing bit,
    /// the port named as the BMC names it across nodes.
    fn bmc_port(
        &mut self,
        facts: &Facts,
        ports: &Ports<'_>,
        key: &str,
        rest: &[&str],
        value: &FactValue,
    ) {
        let id = ports.bmc_id(key);
        let what = match rest.last() {
            Some(&"dcbx_mode") => Compared::DcbxMode,
            Some(&"dcbx_willing") => Compared::DcbxWilling,
            _ => return,
        };
        // A function is keyed by its MAC, which differs on every node: across
        // nodes it is the BMC's name for it (`NIC.Slot.3-1-1`), as a port is.
        let function_name = match rest {
            ["function", function, ..] => Some(function_name(facts, key, function)),
            _ => None,
        };
        let mut rest: Vec<&str> = rest.to_vec();
        if let Some(name) = &function_name {
            rest[1] = name.as_str();
        }
        let on = function_name.as_deref().unwrap_or(id.as_str());
        let setting = match what {
            Compared::DcbxMode => "DCBX mode",
            _ => "DCBX willing",
        };
        self.set(
            format!("nic/{id}/bmc/{}", rest.join("/")),
            what,
            format!("{setting} of {on} (BMC)"),
            value,
        );
        if id == *key {
            self.by_mac
                .insert(format!("nic/{id}/bmc/{}", rest.join("/")));
        }
    }

    /// An OS fact of the port `key` (`rest` under its `os/`): its DCBX settings, PFC
    /// priorities and traffic classes.
    fn os_port(&mut self, ports: &Ports<'_>, key: &str, rest: &[&str], value: &FactValue) {
        let id = ports.os_id(key);
        let base = format!("nic/{id}/os");
        if id == *key {
            self.mac_bases.insert(base.clone());
        }
        match rest {
            ["dcbx_support", "current"] => self.set(
                format!("{base}/dcbx_support/current"),
                Compared::DcbxMode,
                format!("DCBX mode of {id} (OS, current)"),
                value,
            ),
            ["dcbx_control"] => self.set(
                format!("{base}/dcbx_control"),
                Compared::DcbxMode,
                format!("DCBX control of {id} (OS)"),
                value,
            ),
            ["dcbx_willing"] => self.set(
                format!("{base}/dcbx_willing"),
                Compared::DcbxWilling,
                format!("DCBX willing of {id} (OS)"),
                value,
            ),
            ["flow_control", scope, "priority", p] => self.pfc(
                format!("{base}/flow_control/{scope}/priority/*"),
                format!("PFC priorities of {id} (OS, {scope})"),
                p,
                value,
            ),
            ["traffic_class", scope, tc, leaf] => self.class(
                format!("{base}/traffic_class/{scope}/{tc}"),
                &format!("{tc} of {id} (OS, {scope})"),
                leaf,
                value,
            ),
            _ => {}
        }
    }

    fn set(&mut self, key: String, what: Compared, name: String, value: &FactValue) {
        self.values.insert(
            key,
            ClusterValue {
                what,
                severity: what.severity(),
                name,
                value: json(value),
                by_mac: false,
            },
        );
    }

    fn pfc(&mut self, key: String, name: String, priority: &str, value: &FactValue) {
        let entry = self
            .pfc
            .entry(key)
            .or_insert_with(|| (name, BTreeSet::new()));
        if value.as_bool() == Some(true)
            && let Ok(priority) = priority.parse::<u64>()
        {
            entry.1.insert(priority);
        }
    }

    /// A traffic class leaf (`priorities`, `algorithm`, `bandwidth`) under `base`.
    fn class(&mut self, base: String, class: &str, leaf: &str, value: &FactValue) {
        let (what, name) = match leaf {
            "priorities" => (Compared::TrafficClass, "priorities"),
            "algorithm" => (Compared::TrafficClass, "algorithm"),
            "bandwidth" => (Compared::EtsBandwidth, "ETS bandwidth"),
            _ => return,
        };
        let class = if base.starts_with("host/") {
            format!("host traffic class {class}")
        } else {
            format!("traffic class {class}")
        };
        self.set(
            format!("{base}/{leaf}"),
            what,
            format!("{name} of {class}"),
            value,
        );
    }

    fn finish(mut self) -> ClusterFacts {
        for (key, (name, priorities)) in self.pfc {
            let list = priorities.into_iter().map(Value::from).collect();
            self.values.insert(
                key,
                ClusterValue {
                    what: Compared::PfcPriorities,
                    severity: Compared::PfcPriorities.severity(),
                    name,
                    value: Value::Array(list),
                    by_mac: false,
                },
            );
        }
        for (key, value) in &mut self.values {
            value.by_mac = self.by_mac.contains(key)
                || key
                    .rsplit_once("/os/")
                    .is_some_and(|(port, _)| self.mac_bases.contains(&format!("{port}/os")));
        }
        ClusterFacts {
            links: Vec::new(),
            values: self.values,
        }
    }
}

fn json(value: &FactValue) -> Value {
    serde_json::to_value(value).expect("a fact value is JSON")
}

/// Whether the ESXi device `device` is shared by the nodes of a cluster.
fn shared(facts: &Facts, device: &str) -> bool {
    let flag = |leaf: &str| {
        facts
            .get(format!("storage/nmp/{device}/{leaf}").as_str())
            .and_then(FactValue::as_bool)
    };
    !device.starts_with("mpx.")
        && flag("is_local") != Some(true)
        && (flag("is_shared_clusterwide") == Some(true)
            || flag("perennially_reserved") == Some(true))
}

/// The BMC's name for the function `function` of the port `key` (its `function/<key>/id`
/// fact), else its key.
fn function_name(facts: &Facts, key: &str, function: &str) -> String {
    facts
        .get(format!("nic/{key}/bmc/function/{function}/id").as_str())
        .and_then(FactValue::as_text)
        .filter(|t| !t.is_empty())
        .map_or_else(|| function.to_owned(), |t| t.replace('/', "_"))
}

/// The cross-node identities of a snapshot's ports (see the module docs).
struct Ports<'f> {
    /// MAC key → (BMC view id, OS view id).
    ids: BTreeMap<&'f str, (String, String)>,
}

impl<'f> Ports<'f> {
    fn of(facts: &'f Facts) -> Self {
        let mut keys: BTreeSet<&str> = BTreeSet::new();
        for path in facts.keys() {
            if let Some(rest) = path.as_str().strip_prefix("nic/")
                && let Some((key, _)) = rest.split_once('/')
            {
                keys.insert(key);
            }
        }
        let text = |key: &str, leaf: &str| {
            facts
                .get(format!("nic/{key}/{leaf}").as_str())
                .and_then(FactValue::as_text)
                .filter(|t| !t.is_empty())
                .map(|t| t.replace('/', "_"))
        };
        let mut ids: BTreeMap<&str, (String, String)> = BTreeMap::new();
        for key in keys {
            let bmc = text(key, "bmc/port").map(|port| match text(key, "bmc/adapter") {
                Some(adapter) if !port.starts_with(&adapter) => format!("{adapter}:{port}"),
                _ => port,
            });
            let os = text(key, "os/name");
            let bmc_id = bmc.clone().or_else(|| os.clone());
            let os_id = os.or(bmc);
            ids.insert(
                key,
                (
                    bmc_id.unwrap_or_else(|| key.to_owned()),
                    os_id.unwrap_or_else(|| key.to_owned()),
                ),
            );
        }
        // An id two ports of this node share names neither: both keep their MAC keys.
        for side in [0, 1] {
            let mut seen: BTreeMap<String, usize> = BTreeMap::new();
            for (bmc, os) in ids.values() {
                *seen
                    .entry(if side == 0 { bmc } else { os }.clone())
                    .or_default() += 1;
            }
            for (key, (bmc, os)) in &mut ids {
                let id = if side == 0 { bmc } else { os };
                if seen[id.as_str()] > 1 {
                    *id = (*key).to_owned();
                }
            }
        }
        Ports { ids }
    }

    fn bmc_id(&self, key: &str) -> String {
        self.ids
            .get(key)
            .map_or_else(|| key.to_owned(), |(bmc, _)| bmc.clone())
    }

    fn os_id(&self, key: &str) -> String {
        self.ids
            .get(key)
            .map_or_else(|| key.to_owned(), |(_, os)| os.clone())
    }

    /// Adapter model → the firmware families of its ports on this node.
    fn firmware_families(&self, facts: &Facts) -> BTreeMap<String, BTreeSet<String>> {
        let text = |key: &str, leaf: &str| {
            facts
                .get(format!("nic/{key}/{leaf}").as_str())
                .and_then(FactValue::as_text)
                .map(str::trim)
                .filter(|t| !t.is_empty())
        };
        let mut families: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for &key in self.ids.keys() {
            let os_firmware = text(key, "os/firmware/version");
            let version = text(key, "bmc/firmware/version")
                .or(os_firmware)
                .or_else(|| {
                    let component = text(key, "bmc/firmware/inventory")?;
                    facts
                        .get(format!("firmware/{component}/version").as_str())
                        .and_then(FactValue::as_text)
                });
            let board = os_firmware.and_then(|v| {
                let (_, rest) = v.split_once('(')?;
                rest.strip_suffix(')').filter(|b| !b.is_empty())
            });
            let model = text(key, "os/description")
                .map(without_instance)
                .or(board)
                .or_else(|| text(key, "os/driver/name"))
                .or_else(|| text(key, "bmc/adapter"));
            if let (Some(model), Some(version)) = (model, version) {
                families
                    .entry(model.replace('/', "_"))
                    .or_default()
                    .insert(family(version));
            }
        }
        families
    }
}

/// `Broadcom … Adapter #2` → `Broadcom … Adapter`: Windows numbers the second adapter of a
/// model.
fn without_instance(description: &str) -> &str {
    match description.rsplit_once(" #") {
        Some((model, n)) if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => model,
        _ => description,
    }
}

/// `229.1.123.0` → `229.1`, `22.41.1000 (MT_0000000359)` → `22.41`.
fn family(version: &str) -> String {
    let version = version.split_whitespace().next().unwrap_or(version);
    let parts: Vec<&str> = version.split('.').collect();
    if parts.len() >= 2 {
        format!("{}.{}", parts[0], parts[1])
    } else {
        version.to_owned()
    }
}

/// The findings of `cluster` whose `members` (host, facts) disagree: one per key where some
/// nodes differ from the majority, naming the odd nodes out and the majority value, most
/// severe first (then by rule and key). `members` are the nodes whose capture was complete: a
/// partial capture lacks facts it would be blamed for.
pub fn consistency(cluster: &str, members: &[(&str, &ClusterFacts)]) -> Vec<FleetFinding> {
    if members.len() < 2 {
        return Vec::new();
    }
    let mut members: Vec<(&str, &ClusterFacts)> = members.to_vec();
    members.sort_by_key(|(host, _)| *host);
    let keys: BTreeSet<&str> = members
        .iter()
        .flat_map(|(_, facts)| facts.values.keys().map(String::as_str))
        .collect();
    let mut findings: Vec<FleetFinding> = keys
        .into_iter()
        .filter_map(|key| compare_key(cluster, key, &members))
        .collect();
    let ends: Vec<(&str, &[LinkEnd])> = members
        .iter()
        .map(|(host, facts)| (*host, facts.links.as_slice()))
        .collect();
    let linked = links::findings(cluster, &ends, &mut findings);
    findings.extend(linked);
    findings.sort_by(|a, b| {
        b.severity
            .cmp(&a.severity)
            .then_with(|| a.rule.cmp(&b.rule))
            .then_with(|| a.path.cmp(&b.path))
    });
    findings
}

/// The finding of one key, when the nodes disagree on it.
fn compare_key(
    cluster: &str,
    key: &str,
    members: &[(&str, &ClusterFacts)],
) -> Option<FleetFinding> {
    let present: Vec<(&str, &ClusterValue)> = members
        .iter()
        .filter_map(|(host, facts)| facts.values.get(key).map(|v| (*host, v)))
        .collect();
    // What the nodes say it is; they agree unless their tool versions differ.
    let first = present.first()?.1;
    // A key that names the same thing on every node: a node without it disagrees (in a
    // 2-node cluster, or when half the nodes lack it, too: then there is no majority). A
    // MAC-keyed port is only blamed for lacking a key most nodes have.
    let by_mac = present.iter().any(|(_, v)| v.by_mac);
    let with_absent = first.what.absence_counts() && (!by_mac || present.len() * 2 > members.len());
    if present.len() < 2 && !with_absent {
        return None;
    }
    let severity = present.iter().map(|(_, v)| v.severity).max()?;
    let compared: Vec<(&str, Option<&Value>)> = if with_absent {
        members
            .iter()
            .map(|(host, facts)| (*host, facts.values.get(key).map(|v| &v.value)))
            .collect()
    } else {
        present
            .iter()
            .map(|(host, v)| (*host, Some(&v.value)))
            .collect()
    };
    let of = compared.len();
    let mut groups: Vec<(Option<&Value>, usize)> = Vec::new();
    for (_, value) in &compared {
        match groups.iter_mut().find(|(v, _)| v == value) {
            Some((_, n)) => *n += 1,
            None => groups.push((*value, 1)),
        }
    }
    if groups.len() < 2 {
        return None;
    }
    let majority = groups
        .iter()
        .find(|(value, n)| value.is_some() && n * 2 > of)
        .and_then(|(value, n)| value.map(|v| (v, *n)));
    let odd: Vec<(&str, Option<&Value>)> = match majority {
        Some((value, _)) => compared
            .iter()
            .filter(|(_, v)| *v != Some(value))
            .copied()
            .collect(),
        None => compared.clone(),
    };
    let listed: Vec<String> = odd
        .iter()
        .take(MESSAGE_HOSTS)
        .map(|(host, value)| match value {
            Some(value) => format!("{host} has {value}"),
            None => format!("{host} has none"),
        })
        .collect();
    let mut listed = listed.join(", ");
    if odd.len() > MESSAGE_HOSTS {
        listed.push_str(&format!(" and {} more", odd.len() - MESSAGE_HOSTS));
    }
    let message = match majority {
        Some((value, n)) => format!(
            "cluster {cluster}: {}: {listed} where {n} of {of} nodes have {value}",
            first.name,
        ),
        None => format!(
            "cluster {cluster}: {}: no majority among {of} nodes: {listed}",
            first.name
        ),
    };
    Some(FleetFinding {
        rule: format!("cluster/{}", first.what.as_str()),
        severity,
        cluster: Some(cluster.to_owned()),
        hosts: odd.iter().map(|(host, _)| (*host).to_owned()).collect(),
        path: Some(key.to_owned()),
        values: odd
            .iter()
            .map(|(_, value)| value.cloned().unwrap_or(Value::Null))
            .collect(),
        majority: majority.map(|(value, hosts)| Majority {
            value: value.clone(),
            hosts,
            of,
        }),
        message,
    })
}

mod links;
#[cfg(test)]
mod tests;
