//! The other end of a port's link: what its LLDP neighbour (a switch port, or in a switchless
//! cluster another node's NIC) says about itself and advertises for DCB, written as facts under
//! `nic/<key>/peer/…` beside the host's own view of the port. Every source that learns about
//! the peer (the `lldp` source's lldptool and lldpcli parsers, Windows' remote DCB settings)
//! fills these types and writes them here, so the invariants read one layout:
//!
//! | fact | value |
//! |---|---|
//! | `peer/neighbour` | `true` when an agent reads a neighbour on the port, `false` when it reads none |
//! | `peer/{chassis_id,port_id}` and `…_type` | the neighbour's identity and its subtype (`mac`, `ifname`, `local`…) |
//! | `peer/{system_name,port_description}` | as the neighbour names itself and its port |
//! | `peer/dcbx` | `ieee`, `cee` or `none`: which DCBX TLVs the neighbour sends |
//! | `peer/pfc/{willing,mbc,capable}` | the PFC TLV's flags and capable traffic classes |
//! | `peer/pfc/enabled` | the priorities with PFC on, a list (`[]`: none) |
//! | `peer/ets/{configuration,recommendation}/{willing,cbs,max_tcs}` | the ETS TLVs' flags |
//! | `peer/traffic_class/{configuration,recommendation}/<tc>/…` | their tables, as the host's (`priorities`, `algorithm`, `bandwidth`) |
//! | `peer/app/<selector>/<protocol>` | the priorities the APP TLV gives the protocol, a list |

use driftgate_model::{AppSelector, PeerDcbx};
use driftgate_snapshot::{FactValue, Facts, Scalar, path_segment};

use crate::nic::{DcbTables, NicFacts, Side};

/// A chassis or port id with its LLDP subtype.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LldpId {
    /// `mac`, `ifname`, `ifalias`, `local`, `ip`, `chassis-component`, …
    pub subtype: String,
    /// The id (a MAC in lower case, colon separated).
    pub value: String,
}

/// Who the neighbour is.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Neighbour {
    /// Chassis ID TLV.
    pub chassis_id: Option<LldpId>,
    /// Port ID TLV.
    pub port_id: Option<LldpId>,
    /// System Name TLV.
    pub system_name: Option<String>,
    /// Port Description TLV.
    pub port_description: Option<String>,
}

/// The IEEE 802.1Qaz PFC TLV (or the PFC table Windows received).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Pfc {
    /// Willing to accept the other end's PFC configuration.
    pub willing: Option<bool>,
    /// MACsec bypass capable.
    pub mbc: Option<bool>,
    /// How many traffic classes can run PFC at once.
    pub capable: Option<u8>,
    /// The priorities with PFC on, ascending.
    pub enabled: Vec<u8>,
}

/// An ETS Configuration or Recommendation TLV.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Ets {
    /// Willing (the configuration TLV only).
    pub willing: Option<bool>,
    /// Credit-based shaper supported (the configuration TLV only).
    pub cbs: Option<bool>,
    /// Traffic classes supported (the configuration TLV only).
    pub max_tcs: Option<u8>,
    /// Priority → traffic class, bandwidths and algorithms per class (no PFC).
    pub tables: DcbTables,
}

/// One application priority entry: `protocol` of `selector` goes on `priority`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AppEntry {
    /// What the protocol id is.
    pub selector: AppSelector,
    /// The Ethertype, port or DSCP value.
    pub protocol: u16,
    /// The 802.1p priority.
    pub priority: u8,
}

/// What the neighbour advertises for DCB.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PeerDcb {
    /// Which DCBX it speaks; `None` when the source cannot tell (Windows).
    pub dcbx: Option<PeerDcbx>,
    /// Its PFC TLV.
    pub pfc: Option<Pfc>,
    /// Its ETS Configuration TLV.
    pub ets_configuration: Option<Ets>,
    /// Its ETS Recommendation TLV.
    pub ets_recommendation: Option<Ets>,
    /// Its APP TLV's entries (`None`: no APP TLV).
    pub app: Option<Vec<AppEntry>>,
}

/// Writes what is known about the peer of the port with `key`.
pub struct PeerFacts<'a> {
    nic: NicFacts<'a>,
}

impl<'a> PeerFacts<'a> {
    /// The peer facts of the port with `key` (see [`crate::nic::port_key`]).
    pub fn new(facts: &'a mut Facts, key: &str) -> Self {
        PeerFacts {
            nic: NicFacts::new(facts, Side::Peer, key),
        }
    }

    /// An agent read the port and found no neighbour on it.
    pub fn none(&mut self) {
        self.nic.set("neighbour", false);
    }

    /// The neighbour an agent found.
    pub fn neighbour(&mut self, neighbour: &Neighbour) {
        self.nic.set("neighbour", true);
        for (leaf, id) in [
            ("chassis_id", &neighbour.chassis_id),
            ("port_id", &neighbour.port_id),
        ] {
            if let Some(id) = id {
                self.nic.set(leaf, id.value.as_str());
                self.nic.set(&format!("{leaf}_type"), id.subtype.as_str());
            }
        }
        for (leaf, text) in [
            ("system_name", &neighbour.system_name),
            ("port_description", &neighbour.port_description),
        ] {
            if let Some(text) = text {
                self.nic.set(leaf, text.as_str());
            }
        }
    }

    /// What the neighbour advertises for DCB.
    pub fn dcb(&mut self, dcb: &PeerDcb) {
        if let Some(dcbx) = &dcb.dcbx {
            self.nic.set("dcbx", dcbx.as_str());
        }
        if let Some(pfc) = &dcb.pfc {
            self.flags(
                "pfc",
                &[("willing", pfc.willing), ("mbc", pfc.mbc)],
                pfc.capable.map(|c| ("capable", c)),
            );
            self.nic.set("pfc/enabled", numbers(&pfc.enabled));
        }
        for (scope, ets) in [
            ("configuration", &dcb.ets_configuration),
            ("recommendation", &dcb.ets_recommendation),
        ] {
            if let Some(ets) = ets {
                self.flags(
                    &format!("ets/{scope}"),
                    &[("willing", ets.willing), ("cbs", ets.cbs)],
                    ets.max_tcs.map(|n| ("max_tcs", n)),
                );
                self.nic.dcb(scope, &ets.tables);
            }
        }
        let mut apps: std::collections::BTreeMap<String, Vec<u8>> = Default::default();
        for entry in dcb.app.iter().flatten() {
            let at = format!(
                "app/{}/{}",
                path_segment(entry.selector.as_str()),
                entry.selector.protocol_text(entry.protocol)
            );
            apps.entry(at).or_default().push(entry.priority);
        }
        for (at, mut priorities) in apps {
            priorities.sort_unstable();
            priorities.dedup();
            self.nic.set(&at, numbers(&priorities));
        }
    }

    fn flags(&mut self, at: &str, flags: &[(&str, Option<bool>)], count: Option<(&str, u8)>) {
        for (leaf, flag) in flags {
            if let Some(flag) = flag {
                self.nic.set(&format!("{at}/{leaf}"), *flag);
            }
        }
        if let Some((leaf, n)) = count {
            self.nic.set(&format!("{at}/{leaf}"), i64::from(n));
        }
    }
}

/// A list of small numbers as a fact.
fn numbers(values: &[u8]) -> FactValue {
    FactValue::list(
        values
            .iter()
            .map(|v| Scalar::Number(u64::from(*v).into()))
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_neighbour_and_its_tlvs_become_peer_facts() {
        let mut facts = Facts::new();
        let mut peer = PeerFacts::new(&mut facts, "02:00:00:00:41:01");
        peer.neighbour(&Neighbour {
            chassis_id: Some(LldpId {
                subtype: "mac".into(),
                value: "02:00:00:00:41:fe".into(),
            }),
            port_id: None,
            system_name: Some("tor-a".into()),
            port_description: Some("swp7".into()),
        });
        peer.dcb(&PeerDcb {
            dcbx: Some(PeerDcbx::Ieee),
            pfc: Some(Pfc {
                willing: Some(false),
                mbc: Some(false),
                capable: Some(8),
                enabled: vec![],
            }),
            ets_configuration: None,
            ets_recommendation: None,
            app: Some(vec![
                AppEntry {
                    selector: AppSelector::Udp,
                    protocol: 4791,
                    priority: 3,
                },
                AppEntry {
                    selector: AppSelector::Ethertype,
                    protocol: 0x8915,
                    priority: 3,
                },
            ]),
        });
        let get = |p: &str| {
            facts
                .get(format!("nic/02:00:00:00:41:01/peer/{p}").as_str())
                .map(ToString::to_string)
        };
        assert_eq!(get("neighbour").as_deref(), Some("true"));
        assert_eq!(get("chassis_id_type").as_deref(), Some("\"mac\""));
        assert_eq!(get("system_name").as_deref(), Some("\"tor-a\""));
        assert_eq!(get("pfc/enabled").as_deref(), Some("[]"));
        assert_eq!(get("pfc/capable").as_deref(), Some("8"));
        assert_eq!(get("app/udp/4791").as_deref(), Some("[3]"));
        assert_eq!(get("app/ethertype/0x8915").as_deref(), Some("[3]"));
        assert_eq!(get("port_id"), None);
    }
}
