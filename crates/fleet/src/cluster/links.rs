//! The links between the nodes of a cluster: in a switchless cluster a port's LLDP neighbour
//! is another node's NIC. Each node's end of each link is extracted once ([`LinkEnd`]); the
//! ends are joined across nodes by the neighbour's chassis or port id naming the other node's
//! port MAC, and a link whose two ends disagree on PFC is one finding naming both nodes.

use std::collections::{BTreeMap, BTreeSet};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use driftgate_compare::Severity;
use driftgate_report::document::FleetFinding;
use driftgate_snapshot::{FactValue, Facts, Scalar};

/// One node's end of a link: its port, the PFC it runs there, and what its LLDP agent read
/// from the other end.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct LinkEnd {
    /// The port's key (its MAC).
    pub port: String,
    /// How the OS or the BMC names it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The priorities this node runs PFC on for the port (the host's configuration, else the
    /// port's operational PFC); `None` when not captured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pfc: Option<Vec<u64>>,
    /// The neighbour's chassis and port ids (MACs in the form ports are keyed by).
    pub peer_ids: Vec<String>,
    /// The priorities the neighbour advertises PFC on; `None` when it sends no PFC TLV.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub peer_pfc: Option<Vec<u64>>,
    /// Which DCBX the neighbour sends (`ieee`, `cee`, `none`), when an agent said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub peer_dcbx: Option<String>,
}

/// The link ends of a snapshot's facts: every port whose neighbour has an id.
pub(super) fn extract(facts: &Facts) -> Vec<LinkEnd> {
    let mut ends: BTreeMap<&str, LinkEnd> = BTreeMap::new();
    for (path, value) in facts {
        let Some((key, leaf)) = path
            .as_str()
            .strip_prefix("nic/")
            .and_then(|rest| rest.split_once("/peer/"))
        else {
            continue;
        };
        let end = ends.entry(key).or_default();
        match leaf {
            "chassis_id" | "port_id" => {
                if let Some(id) = value.as_text() {
                    end.peer_ids.push(id.to_ascii_lowercase());
                }
            }
            "pfc/enabled" => end.peer_pfc = numbers(value),
            "dcbx" => end.peer_dcbx = value.as_text().map(str::to_owned),
            _ => {}
        }
    }
    // The BMC's LLDPReceive names the neighbour too, where no agent on the host does.
    for (path, value) in facts {
        let Some((key, field)) = path
            .as_str()
            .strip_prefix("nic/")
            .and_then(|rest| rest.split_once("/bmc/lldp/receive/"))
        else {
            continue;
        };
        if matches!(field, "ChassisId" | "PortId")
            && let Some(id) = value.as_text().and_then(driftgate_model::MacAddr::parse)
        {
            ends.entry(key).or_default().peer_ids.push(id.to_string());
        }
    }
    let configured = on(facts, "host/qos/flow_control/priority/");
    ends.into_iter()
        .filter(|(_, end)| !end.peer_ids.is_empty())
        .map(|(key, mut end)| {
            end.port = key.to_owned();
            end.peer_ids.sort();
            end.peer_ids.dedup();
            end.name = ["os/name", "bmc/port"].iter().find_map(|leaf| {
                facts
                    .get(format!("nic/{key}/{leaf}").as_str())
                    .and_then(FactValue::as_text)
                    .map(str::to_owned)
            });
            end.pfc = configured.clone().or_else(|| {
                on(
                    facts,
                    &format!("nic/{key}/os/flow_control/operational/priority/"),
                )
            });
            end
        })
        .collect()
}

/// The priorities with a `true` under `prefix` (`…/priority/<p>`); `None` when none is there.
fn on(facts: &Facts, prefix: &str) -> Option<Vec<u64>> {
    let mut found = false;
    let mut priorities = Vec::new();
    for (path, value) in facts.range::<str, _>((
        std::ops::Bound::Included(prefix),
        std::ops::Bound::Unbounded,
    )) {
        let Some(priority) = path.as_str().strip_prefix(prefix) else {
            break;
        };
        found = true;
        if value.as_bool() == Some(true)
            && let Ok(priority) = priority.parse()
        {
            priorities.push(priority);
        }
    }
    priorities.sort_unstable();
    found.then_some(priorities)
}

fn numbers(value: &FactValue) -> Option<Vec<u64>> {
    match value {
        FactValue::List(items) => items
            .iter()
            .map(|item| match item {
                Scalar::Number(n) => n.as_u64(),
                _ => None,
            })
            .collect(),
        _ => None,
    }
}

/// `3`, `3, 4` or `none`.
fn priorities(list: &[u64]) -> String {
    if list.is_empty() {
        return "none".to_owned();
    }
    list.iter()
        .map(u64::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// What `from` reads of its neighbour, in words.
fn sees(end: &LinkEnd) -> String {
    match (&end.peer_pfc, end.peer_dcbx.as_deref()) {
        (Some(pfc), _) => format!("advertise PFC on {}", priorities(pfc)),
        (None, Some("none")) => "send no DCBX TLV".to_owned(),
        (None, Some(_)) => "send DCBX without a PFC TLV".to_owned(),
        (None, None) => "advertise no PFC".to_owned(),
    }
}

/// The links of `members` whose two ends disagree on PFC: what each node runs, and what each
/// reads from the other. One finding per link, naming both nodes; a finding of `compared`
/// that is the same disagreement of the same two ports (no majority between exactly these
/// two nodes, on the port both name alike) is folded into it.
pub(super) fn findings(
    cluster: &str,
    members: &[(&str, &[LinkEnd])],
    compared: &mut Vec<FleetFinding>,
) -> Vec<FleetFinding> {
    let mut by_port: BTreeMap<&str, (&str, &LinkEnd)> = BTreeMap::new();
    for (host, ends) in members {
        for end in *ends {
            by_port.insert(end.port.as_str(), (host, end));
        }
    }
    let mut seen: BTreeSet<(&str, &str)> = BTreeSet::new();
    let mut out = Vec::new();
    for (host, ends) in members {
        for end in *ends {
            let Some((other_host, other)) = end
                .peer_ids
                .iter()
                .find_map(|id| by_port.get(id.as_str()))
                .filter(|(other_host, _)| other_host != host)
            else {
                continue;
            };
            // Each link once, whichever end names the other.
            let link = if end.port < other.port {
                (end.port.as_str(), other.port.as_str())
            } else {
                (other.port.as_str(), end.port.as_str())
            };
            if !seen.insert(link) {
                continue;
            }
            let (a, b) = if (*host, end.port.as_str()) <= (*other_host, other.port.as_str()) {
                ((*host, end), (*other_host, *other))
            } else {
                ((*other_host, *other), (*host, end))
            };
            if let Some(mut finding) = disagreement(cluster, a, b) {
                fold(&mut finding, a.1, b.1, compared);
                out.push(finding);
            }
        }
    }
    out
}

/// Moves the findings of `compared` about the link's two ports that blame exactly its two
/// nodes without a majority into the link's `finding`, as one more clause each.
fn fold(finding: &mut FleetFinding, a: &LinkEnd, b: &LinkEnd, compared: &mut Vec<FleetFinding>) {
    let (Some(name), true) = (&a.name, a.name == b.name) else {
        return;
    };
    let prefix = format!("nic/{name}/");
    let cluster = format!(
        "cluster {}: ",
        finding.cluster.as_deref().unwrap_or_default()
    );
    let same: Vec<FleetFinding> = compared
        .extract_if(.., |f| {
            f.majority.is_none()
                && f.hosts == finding.hosts
                && f.path.as_deref().is_some_and(|p| p.starts_with(&prefix))
        })
        .collect();
    if same.is_empty() {
        return;
    }
    let clauses: Vec<String> = same
        .iter()
        .map(|f| {
            let message = f.message.strip_prefix(&cluster).unwrap_or(&f.message);
            message.replacen(": no majority among 2 nodes: ", ": ", 1)
        })
        .collect();
    finding.message.push_str(&format!(
        "; the two ends also differ in {}",
        clauses.join("; ")
    ));
}

/// The finding of one link, when its ends disagree: the two nodes run different PFC
/// priorities, or one reads from the other what the other does not run.
fn disagreement(
    cluster: &str,
    (a_host, a): (&str, &LinkEnd),
    (b_host, b): (&str, &LinkEnd),
) -> Option<FleetFinding> {
    // What an end reads from the other counts only when it read the other's LLDP at all.
    let reads = |end: &LinkEnd| {
        end.peer_pfc
            .clone()
            .or_else(|| end.peer_dcbx.as_ref().map(|_| Vec::new()))
    };
    let differs = match (&a.pfc, &b.pfc) {
        (Some(x), Some(y)) => x != y,
        _ => false,
    } || [(a, b), (b, a)].iter().any(
        |(from, to)| matches!((reads(from), &to.pfc), (Some(seen), Some(runs)) if seen != *runs),
    );
    if !differs {
        return None;
    }
    let label = |host: &str, end: &LinkEnd| match &end.name {
        Some(name) => format!("{host} {name:?} ({})", end.port),
        None => format!("{host} {}", end.port),
    };
    let runs = |host: &str, end: &LinkEnd| match &end.pfc {
        Some(pfc) => format!("{host} runs PFC on {}", priorities(pfc)),
        None => format!("{host}'s PFC was not captured"),
    };
    let read = |host: &str, end: &LinkEnd, other: &str| {
        (end.peer_pfc.is_some() || end.peer_dcbx.is_some())
            .then(|| format!("{host} sees {other} {}", sees(end)))
    };
    let mut said = vec![runs(a_host, a), runs(b_host, b)];
    said.extend(read(a_host, a, b_host));
    said.extend(read(b_host, b, a_host));
    let value = |end: &LinkEnd| {
        serde_json::json!({
            "port": end.port,
            "pfc": end.pfc,
            "peer_pfc": end.peer_pfc,
            "peer_dcbx": end.peer_dcbx,
        })
    };
    Some(FleetFinding {
        rule: "cluster/link-pfc".to_owned(),
        severity: Severity::Block,
        cluster: Some(cluster.to_owned()),
        hosts: vec![a_host.to_owned(), b_host.to_owned()],
        path: Some(format!("nic/{}/peer ↔ nic/{}/peer", a.port, b.port)),
        values: vec![value(a), value(b)],
        majority: None,
        message: format!(
            "cluster {cluster}: the link {} ↔ {} is not lossless on both ends: {}",
            label(a_host, a),
            label(b_host, b),
            said.join("; "),
        ),
    })
}

#[cfg(test)]
mod tests {
    use driftgate_snapshot::FactPath;

    use super::*;

    fn facts(pairs: &[(&str, FactValue)]) -> Facts {
        let mut facts = Facts::new();
        for (path, value) in pairs {
            facts.insert(FactPath::new(*path).unwrap(), value.clone());
        }
        facts
    }

    #[test]
    fn the_bmcs_lldp_receive_joins_a_link_when_no_host_agent_names_the_neighbour() {
        let a = facts(&[
            ("nic/02:00:00:00:42:0a/os/name", "SLOT 3 Port 1".into()),
            (
                "nic/02:00:00:00:42:0a/bmc/lldp/receive/ChassisId",
                "02-00-00-00-42-0B".into(),
            ),
            ("host/qos/flow_control/priority/3", true.into()),
            ("host/qos/flow_control/priority/4", false.into()),
        ]);
        let b = facts(&[
            ("nic/02:00:00:00:42:0b/os/name", "SLOT 3 Port 1".into()),
            (
                "nic/02:00:00:00:42:0b/peer/pfc/enabled",
                FactValue::list(vec![]),
            ),
            (
                "nic/02:00:00:00:42:0b/os/flow_control/operational/priority/3",
                false.into(),
            ),
        ]);
        let (a, b) = (extract(&a), extract(&b));
        assert_eq!(a[0].peer_ids, ["02:00:00:00:42:0b"]);
        assert_eq!(a[0].pfc, Some(vec![3]));
        assert!(b.is_empty(), "node-b's agent read no neighbour id");
        let b = vec![LinkEnd {
            port: "02:00:00:00:42:0b".into(),
            name: Some("SLOT 3 Port 1".into()),
            pfc: Some(vec![]),
            ..LinkEnd::default()
        }];
        let mut compared = Vec::new();
        let found = findings("c1", &[("node-a", &a), ("node-b", &b)], &mut compared);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].hosts, ["node-a", "node-b"]);
        assert!(
            found[0]
                .message
                .contains("node-a runs PFC on 3; node-b runs PFC on none")
        );
        // Agreeing ends are no finding.
        let b = vec![LinkEnd {
            pfc: Some(vec![3]),
            ..b[0].clone()
        }];
        assert!(findings("c1", &[("node-a", &a), ("node-b", &b)], &mut compared).is_empty());
    }
}
