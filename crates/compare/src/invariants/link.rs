//! Invariants across a link: the host's DCB against what the other end of the port
//! advertises over LLDP/DCBX (`nic/<key>/peer/…`). Lossless RoCE needs both ends to agree on
//! the PFC priorities and on the priority the RDMA application travels on.

use driftgate_model::{AppSelector, PeerDcbx};
use driftgate_snapshot::{FactValue, Facts};

use super::reading::{Port, Violation, children, children_segments, ports, violation};
use crate::peer;

/// What a port's host side and peer side say, for the checks.
struct Link<'a> {
    port: Port<'a>,
    /// The priorities the host runs PFC on for this port: the host's configuration
    /// (Windows NetQos), else the port's operational PFC; `None` when neither was captured.
    host_pfc: Option<Vec<u8>>,
    /// Whether the port carries lossless traffic: RDMA on (OS or BMC), or RDMA not reported
    /// and PFC on some priority (Linux reports no RDMA flag).
    lossless: bool,
    /// `the peer port swp7 of tor-a`.
    peer: String,
}

impl<'a> Link<'a> {
    fn of(facts: &'a Facts, key: &'a str) -> Option<Self> {
        let port = Port { facts, mac: key };
        // Only ports whose other end was read.
        let prefix = format!("nic/{key}/peer/");
        children_segments(facts, &prefix).next()?;
        let configured: Vec<(u8, bool)> = children(facts, "host/qos/flow_control/priority/")
            .filter_map(|(p, v)| Some((p.parse().ok()?, v.as_bool()?)))
            .collect();
        let operational: Vec<(u8, bool)> = children(
            facts,
            &format!("nic/{key}/os/flow_control/operational/priority/"),
        )
        .filter_map(|(p, v)| Some((p.parse().ok()?, v.as_bool()?)))
        .collect();
        let on = |table: &[(u8, bool)]| -> Vec<u8> {
            table
                .iter()
                .filter(|(_, on)| *on)
                .map(|(p, _)| *p)
                .collect()
        };
        let host_pfc = if !configured.is_empty() {
            Some(on(&configured))
        } else if !operational.is_empty() {
            Some(on(&operational))
        } else {
            None
        };
        let rdma = port
            .get("os/rdma_enabled")
            .and_then(FactValue::as_bool)
            .or_else(|| super::bmc_rdma::rdma_at(&port, "bmc").map(|r| r.is_on()))
            .or_else(|| {
                let prefix = format!("nic/{key}/bmc/function/");
                children_segments(facts, &prefix)
                    .filter_map(|f| super::bmc_rdma::rdma_at(&port, &format!("bmc/function/{f}")))
                    .map(|r| r.is_on())
                    .reduce(|a, b| a || b)
            });
        let lossless = match rdma {
            Some(rdma) => rdma,
            None => host_pfc.as_ref().is_some_and(|p| !p.is_empty()),
        };
        Some(Link {
            port,
            host_pfc,
            lossless,
            peer: peer::phrase(facts, key),
        })
    }

    fn peer(&self, leaf: &str) -> Option<&FactValue> {
        self.port.get(&format!("peer/{leaf}"))
    }

    fn peer_pfc(&self) -> Option<Vec<u8>> {
        self.peer("pfc/enabled").and_then(peer::priorities)
    }

    fn peer_dcbx(&self) -> Option<PeerDcbx> {
        self.peer("dcbx")
            .and_then(FactValue::as_text)
            .map(PeerDcbx::parse)
    }
}

fn links(facts: &Facts) -> impl Iterator<Item = Link<'_>> {
    ports(facts).filter_map(|key| Link::of(facts, key))
}

/// `peer-pfc-missing`: a lossless port's host runs PFC on P, the peer does not advertise it.
pub(super) fn pfc_missing(facts: &Facts) -> Vec<Violation> {
    let mut violations = Vec::new();
    for link in links(facts) {
        let Some(host) = link
            .host_pfc
            .as_ref()
            .filter(|p| !p.is_empty() && link.lossless)
        else {
            continue;
        };
        let (path, advertised) = match (link.peer_pfc(), link.peer_dcbx()) {
            (Some(peer), _) => ("peer/pfc/enabled", peer),
            // DCBX without a PFC TLV: it advertises PFC nowhere.
            (None, Some(PeerDcbx::Ieee)) => ("peer/dcbx", Vec::new()),
            // No neighbour or no DCBX at all: peer-no-neighbour and peer-no-dcbx say so.
            _ => continue,
        };
        let missing: Vec<u8> = host
            .iter()
            .copied()
            .filter(|p| !advertised.contains(p))
            .collect();
        if missing.is_empty() {
            continue;
        }
        let what = if path == "peer/dcbx" {
            "sends DCBX without a PFC TLV".to_owned()
        } else {
            format!("advertises PFC on {}", peer::priority_text(&advertised))
        };
        violations.push(violation(facts, &link.port.path(path), format!(
            "port {}: the host runs PFC on priority {}, but {} {what}: the link is not lossless on priority {}",
            link.port.label(),
            peer::priority_text(host),
            link.peer,
            peer::priority_text(&missing),
        )));
    }
    violations
}

/// `peer-pfc-differs`: the peer's PFC priorities are not the host's (and none is missing,
/// which `peer-pfc-missing` reports).
pub(super) fn pfc_differs(facts: &Facts) -> Vec<Violation> {
    let mut violations = Vec::new();
    for link in links(facts) {
        let (Some(host), Some(peer)) = (link.host_pfc.as_ref(), link.peer_pfc()) else {
            continue;
        };
        let missing = host.iter().any(|p| !peer.contains(p));
        if *host == peer || (missing && link.lossless) {
            continue;
        }
        violations.push(violation(facts, &link.port.path("peer/pfc/enabled"), format!(
            "port {}: the host runs PFC on {}, but {} advertises PFC on {}: the two ends pause different traffic",
            link.port.label(),
            peer::priority_text(host),
            link.peer,
            peer::priority_text(&peer),
        )));
    }
    violations
}

/// `peer-app-priority`: the peer's APP TLV puts an RDMA storage protocol on a priority the
/// host does not send it on.
pub(super) fn app_priority(facts: &Facts) -> Vec<Violation> {
    // The host's QoS policies: `match` (`netdirect:445`) → priority.
    let policies: Vec<(String, u8)> = children_segments(facts, "host/qos/policy/")
        .filter_map(|name| {
            let get = |leaf: &str| facts.get(format!("host/qos/policy/{name}/{leaf}").as_str());
            let matched = get("match")?.as_text()?;
            let protocol = matched.rsplit_once(':').map_or(matched, |(_, p)| p);
            let priority = u8::try_from(get("priority")?.as_i64()?).ok()?;
            Some((protocol.to_owned(), priority))
        })
        .collect();
    let mut violations = Vec::new();
    for link in links(facts) {
        let prefix = format!("nic/{}/peer/app/", link.port.mac);
        let selectors: Vec<&str> = children_segments(facts, &prefix).collect();
        for selector in selectors {
            for (protocol, value) in children(facts, &format!("{prefix}{selector}/")) {
                if !AppSelector::parse(selector).is_rdma_storage(protocol) {
                    continue;
                }
                let Some(advertised) = peer::priorities(value) else {
                    continue;
                };
                let by_policy: Vec<u8> = policies
                    .iter()
                    .filter(|(p, _)| p == protocol)
                    .map(|(_, priority)| *priority)
                    .collect();
                let (expected, why) = if !by_policy.is_empty() {
                    (by_policy, "QoS policy sends it on priority")
                } else {
                    match link.host_pfc.as_ref().filter(|p| !p.is_empty()) {
                        Some(pfc) => (pfc.clone(), "PFC (lossless) priority is"),
                        None => continue,
                    }
                };
                if advertised.iter().all(|p| expected.contains(p)) {
                    continue;
                }
                violations.push(violation(facts, &format!("{prefix}{selector}/{protocol}"), format!(
                    "port {}: {} maps {} to priority {}, but the host's {why} {}: the switch classifies the RDMA traffic into a class without PFC",
                    link.port.label(),
                    link.peer,
                    peer::app_name(selector, protocol),
                    peer::priority_text(&advertised),
                    peer::priority_text(&expected),
                )));
            }
        }
    }
    violations
}

/// `peer-both-willing`: the host and the peer are both willing.
pub(super) fn both_willing(facts: &Facts) -> Vec<Violation> {
    let host_willing = facts
        .get("host/qos/dcbx_willing")
        .and_then(FactValue::as_bool);
    let mut violations = Vec::new();
    for link in links(facts) {
        let own = ["os/dcbx_willing", "bmc/dcbx_willing"]
            .iter()
            .find_map(|leaf| link.port.get(leaf).and_then(FactValue::as_bool))
            .or(host_willing);
        let peer = ["pfc/willing", "ets/configuration/willing"]
            .iter()
            .find(|leaf| link.peer(leaf).and_then(FactValue::as_bool) == Some(true));
        if let (Some(true), Some(leaf)) = (own, peer) {
            violations.push(violation(facts, &link.port.path(&format!("peer/{leaf}")), format!(
                "port {}: the host and {} are both DCBX willing: each waits to adopt the other's PFC/ETS, so which configuration wins depends on the agents",
                link.port.label(),
                link.peer,
            )));
        }
    }
    violations
}

/// `peer-no-dcbx`: a lossless port's peer sends LLDP without any DCBX TLV.
pub(super) fn no_dcbx(facts: &Facts) -> Vec<Violation> {
    links(facts)
        .filter(|link| link.lossless && link.peer_dcbx() == Some(PeerDcbx::None))
        .map(|link| {
            violation(facts, &link.port.path("peer/dcbx"), format!(
                "port {}: {} sends no DCBX TLV: the fabric does not advertise the PFC and ETS this lossless port relies on",
                link.port.label(),
                link.peer,
            ))
        })
        .collect()
}

/// `peer-no-neighbour`: the LLDP agent sees no neighbour on a lossless port.
pub(super) fn no_neighbour(facts: &Facts) -> Vec<Violation> {
    links(facts)
        .filter(|link| {
            link.lossless && link.peer("neighbour").and_then(FactValue::as_bool) == Some(false)
        })
        .map(|link| {
            violation(facts, &link.port.path("peer/neighbour"), format!(
                "port {}: no LLDP neighbour: the other end of this lossless port sends no LLDP, so neither its identity nor its DCB can be checked",
                link.port.label(),
            ))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use driftgate_snapshot::{FactPath, Scalar};

    use super::*;

    const KEY: &str = "nic/02:00:00:00:41:01";

    fn list(values: &[u64]) -> FactValue {
        FactValue::list(values.iter().map(|v| Scalar::Number((*v).into())).collect())
    }

    /// A port with RDMA on, PFC operational on 3, and a peer (`tor-a`, `Ethernet1/7`) with
    /// `peer` facts.
    fn facts(peer: &[(&str, FactValue)]) -> Facts {
        let mut facts = Facts::new();
        let mut set = |path: String, value: FactValue| {
            facts.insert(FactPath::new(path).unwrap(), value);
        };
        set(format!("{KEY}/os/name"), "eth1".into());
        set(format!("{KEY}/os/rdma_enabled"), true.into());
        for p in 0..8 {
            set(
                format!("{KEY}/os/flow_control/operational/priority/{p}"),
                (p == 3).into(),
            );
        }
        set(format!("{KEY}/peer/neighbour"), true.into());
        set(format!("{KEY}/peer/system_name"), "tor-a".into());
        set(format!("{KEY}/peer/port_id"), "Ethernet1/7".into());
        set(format!("{KEY}/peer/port_id_type"), "ifname".into());
        for (leaf, value) in peer {
            set(format!("{KEY}/peer/{leaf}"), value.clone());
        }
        facts
    }

    fn messages(check: fn(&Facts) -> Vec<Violation>, facts: &Facts) -> Vec<String> {
        check(facts).into_iter().map(|v| v.message).collect()
    }

    #[test]
    fn a_peer_without_the_hosts_pfc_priority_blocks_and_a_matching_one_does_not() {
        let ieee = ("dcbx", FactValue::from("ieee"));
        let healthy = facts(&[ieee.clone(), ("pfc/enabled", list(&[3]))]);
        for check in [
            pfc_missing,
            pfc_differs,
            app_priority,
            both_willing,
            no_dcbx,
            no_neighbour,
        ] {
            assert!(check(&healthy).is_empty());
        }
        let off = facts(&[ieee.clone(), ("pfc/enabled", list(&[]))]);
        assert_eq!(
            messages(pfc_missing, &off),
            [
                "port \"eth1\" (02:00:00:00:41:01): the host runs PFC on priority 3, but the peer port Ethernet1/7 of tor-a advertises PFC on none: the link is not lossless on priority 3"
            ]
        );
        assert!(pfc_differs(&off).is_empty(), "one finding for one cause");
        let no_tlv = facts(std::slice::from_ref(&ieee));
        assert!(messages(pfc_missing, &no_tlv)[0].contains("sends DCBX without a PFC TLV"));
        let extra = facts(&[ieee, ("pfc/enabled", list(&[3, 4]))]);
        assert!(pfc_missing(&extra).is_empty());
        assert!(messages(pfc_differs, &extra)[0].contains("advertises PFC on 3, 4"));
    }

    #[test]
    fn rdma_on_another_priority_willing_ends_and_silent_peers_are_named() {
        let mut app = facts(&[("app/udp/4791", list(&[4])), ("app/tcp/445", list(&[3]))]);
        assert_eq!(app_priority(&app).len(), 1);
        assert_eq!(
            messages(app_priority, &app),
            [
                "port \"eth1\" (02:00:00:00:41:01): the peer port Ethernet1/7 of tor-a maps UDP 4791 (RoCE v2) to priority 4, but the host's PFC (lossless) priority is 3: the switch classifies the RDMA traffic into a class without PFC"
            ]
        );
        // A QoS policy for 445 on priority 5 is what SMB Direct must travel on.
        for (leaf, value) in [
            ("match", FactValue::from("netdirect:445")),
            ("priority", FactValue::from(5i64)),
        ] {
            app.insert(
                FactPath::new(format!("host/qos/policy/smb_direct/{leaf}")).unwrap(),
                value,
            );
        }
        assert!(
            messages(app_priority, &app)
                .iter()
                .any(|m| m.contains("SMB Direct") && m.contains("QoS policy"))
        );

        let mut willing = facts(&[("pfc/willing", true.into())]);
        assert!(both_willing(&willing).is_empty());
        willing.insert(
            FactPath::new(format!("{KEY}/os/dcbx_willing")).unwrap(),
            true.into(),
        );
        assert_eq!(both_willing(&willing).len(), 1);

        assert!(
            messages(no_dcbx, &facts(&[("dcbx", "none".into())]))[0].contains("sends no DCBX TLV")
        );
        let mut gone = facts(&[]);
        gone.insert(
            FactPath::new(format!("{KEY}/peer/neighbour")).unwrap(),
            false.into(),
        );
        assert!(messages(no_neighbour, &gone)[0].contains("no LLDP neighbour"));
        // Without RDMA and without PFC the port is not lossless: a silent peer is no finding.
        gone.insert(
            FactPath::new(format!("{KEY}/os/rdma_enabled")).unwrap(),
            false.into(),
        );
        assert!(no_neighbour(&gone).is_empty());
    }
}
