//! The other end of a port's link (`nic/<key>/peer/…`, written by the collectors' peer
//! writer): how reports name it, and the words for a change of what it advertises, so that a
//! finding tells the two ends apart: `port "eth1" (02:…): the peer port swp7 of tor-a
//! advertises PFC on none (was 3)`.

use driftgate_model::AppSelector;
use driftgate_snapshot::{FactValue, Facts, Scalar};

use super::invariants::reading::port_label;
use super::verdict::{Finding, FindingKind};

/// `nic/<key>/peer/<leaf>` → (key, leaf).
pub(crate) fn split(path: &str) -> Option<(&str, &str)> {
    let rest = path.strip_prefix("nic/")?;
    let (key, rest) = rest.split_once('/')?;
    Some((key, rest.strip_prefix("peer/")?))
}

/// `port swp7 of tor-a`: the neighbour's port (its id when that is a name, else its
/// description) and system (its name, else its chassis id), as the host's LLDP agent read
/// them, else as the BMC's `Ethernet.LLDPReceive` has them; `None` without an identity.
pub(crate) fn name(facts: &Facts, key: &str) -> Option<String> {
    let get = |leaf: &str| {
        facts
            .get(format!("nic/{key}/peer/{leaf}").as_str())
            .and_then(FactValue::as_text)
    };
    let bmc = |field: &str| {
        facts
            .get(format!("nic/{key}/bmc/lldp/receive/{field}").as_str())
            .and_then(FactValue::as_text)
            .filter(|v| !v.is_empty())
    };
    let named_id = get("port_id")
        .filter(|_| matches!(get("port_id_type"), Some("ifname" | "ifalias" | "local")));
    let port = named_id
        .or(get("port_description"))
        .or(get("port_id"))
        .or(bmc("PortId"));
    let system = get("system_name")
        .or(get("chassis_id"))
        .or(bmc("SystemName"))
        .or(bmc("ChassisId"));
    match (port, system) {
        (Some(port), Some(system)) => Some(format!("port {port} of {system}")),
        (Some(port), None) => Some(format!("port {port}")),
        (None, Some(system)) => Some(format!("a port of {system}")),
        (None, None) => None,
    }
}

/// `the peer port swp7 of tor-a`, or `the other end of the link` when it did not say who it is.
pub(crate) fn phrase(facts: &Facts, key: &str) -> String {
    name(facts, key).map_or_else(
        || "the other end of the link".to_owned(),
        |name| format!("the peer {name}"),
    )
}

/// The priorities a list fact holds (`[3]`, `[]`).
pub(crate) fn priorities(value: &FactValue) -> Option<Vec<u8>> {
    match value {
        FactValue::List(items) => items
            .iter()
            .map(|item| match item {
                Scalar::Number(n) => n.as_u64().and_then(|n| u8::try_from(n).ok()),
                _ => None,
            })
            .collect(),
        _ => None,
    }
}

/// `3`, `3, 4`, or `none`.
pub(crate) fn priority_text(priorities: &[u8]) -> String {
    if priorities.is_empty() {
        return "none".to_owned();
    }
    priorities
        .iter()
        .map(u8::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// `UDP 4791 (RoCE v2)` for `app/udp/4791`.
pub(crate) fn app_name(selector: &str, protocol: &str) -> String {
    let selector = AppSelector::parse(selector);
    let what = match (&selector, protocol) {
        (AppSelector::Udp, "4791") => " (RoCE v2)",
        (AppSelector::Ethertype, "0x8915") => " (RoCE)",
        (_, "445") => " (SMB Direct)",
        (_, "3260") => " (iSCSI)",
        (AppSelector::Ethertype, "0x8906") => " (FCoE)",
        _ => "",
    };
    let kind = match selector {
        AppSelector::Ethertype => "Ethertype".to_owned(),
        AppSelector::Tcp => "TCP".to_owned(),
        AppSelector::Udp => "UDP".to_owned(),
        AppSelector::TcpUdp => "TCP/UDP".to_owned(),
        AppSelector::Dscp => "DSCP".to_owned(),
        AppSelector::NetDirect => "NetworkDirect".to_owned(),
        AppSelector::Other(other) => other,
    };
    format!("{kind} {protocol}{what}")
}

/// The words for a change of `path` (a peer fact) from `old` to `new`; `None` for a path that
/// is not a peer fact.
pub(crate) fn change_message(
    path: &str,
    old: Option<&FactValue>,
    new: Option<&FactValue>,
    old_facts: &Facts,
    new_facts: &Facts,
) -> Option<String> {
    let (key, leaf) = split(path)?;
    let local = {
        let facts = if new.is_some() { new_facts } else { old_facts };
        port_label(facts, key)
    };
    let peer = match name(new_facts, key) {
        Some(_) => phrase(new_facts, key),
        None => phrase(old_facts, key),
    };
    let pfc = |value: Option<&FactValue>| value.and_then(priorities).map(|p| priority_text(&p));
    let text = |value: Option<&FactValue>| value.map(ToString::to_string);
    let said = match (leaf, old, new) {
        ("neighbour", _, Some(FactValue::Scalar(Scalar::Bool(false)))) => {
            let was = name(old_facts, key).map_or_else(String::new, |n| format!(" (was {n})"));
            return Some(format!("port {local}: no LLDP neighbour any more{was}"));
        }
        ("neighbour", _, Some(_)) => format!("{peer} is the LLDP neighbour now"),
        ("pfc/enabled", Some(_), Some(_)) => format!(
            "{peer} advertises PFC on {} (was {})",
            pfc(new).unwrap_or_default(),
            pfc(old).unwrap_or_default()
        ),
        ("pfc/enabled", None, Some(_)) => {
            format!(
                "{peer} now advertises PFC on {}",
                pfc(new).unwrap_or_default()
            )
        }
        ("pfc/enabled", Some(_), None) => format!(
            "{peer} no longer advertises PFC (was on {})",
            pfc(old).unwrap_or_default()
        ),
        ("dcbx", _, Some(new)) => format!(
            "{peer} sends DCBX {new} (was {})",
            text(old).unwrap_or_else(|| "not read".to_owned())
        ),
        ("dcbx", Some(old), None) => {
            format!("{peer} is no longer read as sending DCBX (was {old})")
        }
        (leaf, _, _) if leaf.starts_with("app/") => {
            let mut parts = leaf.splitn(3, '/').skip(1);
            let (selector, protocol) = (parts.next()?, parts.next()?);
            let app = app_name(selector, protocol);
            match (pfc(old), pfc(new)) {
                (Some(old), Some(new)) => {
                    format!("{peer} maps {app} to priority {new} (was {old})")
                }
                (None, Some(new)) => format!("{peer} now maps {app} to priority {new}"),
                (Some(old), None) => {
                    format!("{peer} no longer maps {app} to a priority (was {old})")
                }
                (None, None) => return None,
            }
        }
        (leaf, old, new) => format!(
            "{peer}: {} {}",
            leaf.replace('/', " "),
            match (text(old), text(new)) {
                (Some(old), Some(new)) => format!("changed from {old} to {new}"),
                (None, Some(new)) => format!("is now {new}"),
                (Some(old), None) => format!("no longer advertised (was {old})"),
                (None, None) => return None,
            }
        ),
    };
    Some(format!("port {local}: {said}"))
}

/// When a port's neighbour went away (`peer/neighbour` now `false`), every fact of the old
/// neighbour is gone with it: one finding says so, at the severity of the worst of those
/// removals, instead of one finding per vanished fact.
pub(crate) fn fold_vanished(findings: &mut Vec<Finding>, old: &Facts, new: &Facts) {
    let vanished: Vec<String> = findings
        .iter()
        .filter(|f| f.new.as_ref().and_then(FactValue::as_bool) == Some(false))
        .filter_map(|f| split(f.path.as_str()).filter(|(_, leaf)| *leaf == "neighbour"))
        .map(|(key, _)| format!("nic/{key}/peer/"))
        .collect();
    for prefix in vanished {
        let gone: Vec<Finding> = findings
            .extract_if(.., |f| {
                f.kind == FindingKind::Removed && f.path.as_str().starts_with(&prefix)
            })
            .collect();
        let Some(neighbour) = findings
            .iter_mut()
            .find(|f| f.path.as_str() == format!("{prefix}neighbour"))
        else {
            continue;
        };
        if gone.is_empty() {
            continue;
        }
        let key = &prefix["nic/".len()..prefix.len() - "/peer/".len()];
        let advertised = |leaf: &str| old.get(format!("{prefix}{leaf}").as_str());
        let mut said: Vec<String> = Vec::new();
        if let Some(pfc) = advertised("pfc/enabled").and_then(priorities) {
            said.push(format!("PFC on {}", priority_text(&pfc)));
        }
        if let Some(dcbx) = advertised("dcbx").and_then(FactValue::as_text) {
            said.push(format!("DCBX {dcbx}"));
        }
        let was = name(old, key).unwrap_or_else(|| "a neighbour".to_owned());
        let advertising = if said.is_empty() {
            String::new()
        } else {
            format!(", which advertised {}", said.join(" and "))
        };
        neighbour.message = format!(
            "port {}: no LLDP neighbour any more (was {was}{advertising}); its {} other facts are gone with it",
            port_label(new, key),
            gone.len()
        );
        neighbour.severity = gone
            .iter()
            .map(|f| f.severity)
            .fold(neighbour.severity, std::cmp::max);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use driftgate_snapshot::FactPath;

    fn facts(pairs: &[(&str, FactValue)]) -> Facts {
        let mut facts = Facts::new();
        for (path, value) in pairs {
            facts.insert(FactPath::new(*path).unwrap(), value.clone());
        }
        facts
    }

    fn list(values: &[u64]) -> FactValue {
        FactValue::list(values.iter().map(|v| Scalar::Number((*v).into())).collect())
    }

    #[test]
    fn a_peer_change_names_both_ends_and_the_priorities() {
        let key = "nic/02:00:00:00:41:01";
        let base = |pfc: &[u64]| {
            facts(&[
                (&format!("{key}/os/name"), FactValue::from("eth1")),
                (
                    &format!("{key}/peer/port_id"),
                    FactValue::from("Ethernet1/7"),
                ),
                (
                    &format!("{key}/peer/port_id_type"),
                    FactValue::from("ifname"),
                ),
                (&format!("{key}/peer/system_name"), FactValue::from("tor-a")),
                (&format!("{key}/peer/pfc/enabled"), list(pfc)),
            ])
        };
        let (old, new) = (base(&[3]), base(&[]));
        let path = format!("{key}/peer/pfc/enabled");
        let message = change_message(
            &path,
            old.get(path.as_str()),
            new.get(path.as_str()),
            &old,
            &new,
        );
        assert_eq!(
            message.as_deref(),
            Some(
                "port \"eth1\" (02:00:00:00:41:01): the peer port Ethernet1/7 of tor-a advertises PFC on none (was 3)"
            )
        );
        let gone = facts(&[(&format!("{key}/peer/neighbour"), FactValue::from(false))]);
        let path = format!("{key}/peer/neighbour");
        let message = change_message(
            &path,
            Some(&FactValue::from(true)),
            gone.get(path.as_str()),
            &old,
            &gone,
        );
        assert_eq!(
            message.as_deref(),
            Some(
                "port 02:00:00:00:41:01: no LLDP neighbour any more (was port Ethernet1/7 of tor-a)"
            )
        );
        let path = format!("{key}/peer/app/udp/4791");
        let message = change_message(&path, Some(&list(&[3])), Some(&list(&[4])), &old, &new);
        assert!(message.unwrap().ends_with(
            "the peer port Ethernet1/7 of tor-a maps UDP 4791 (RoCE v2) to priority 4 (was 3)"
        ));
        assert_eq!(
            change_message(&format!("{key}/os/name"), None, None, &old, &new),
            None
        );
    }
}
