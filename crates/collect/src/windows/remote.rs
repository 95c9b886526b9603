//! The link partner's DCB settings as Windows received them over DCBX (`RemoteSettings` of
//! `MSFT_NetAdapterQosSettingData`, the `Remote*` lines of `Get-NetAdapterQos`), written as
//! peer facts ([`crate::peer`]) by the collector's parser and the text import alike.
//!
//! Windows tells what the peer advertised but not which DCBX flavour it spoke, nor who the
//! neighbour is, so neither `peer/dcbx` nor `peer/neighbour` is written from here; nor are
//! the TLVs' flags (willing, MBC, CBS, max TCs), which `MSFT_NetAdapter_QosSettings` does not
//! expose.

use driftgate_model::AppSelector;
use driftgate_snapshot::Facts;

use crate::nic::DcbTables;
use crate::peer::{AppEntry, Ets, PeerDcb, PeerFacts, Pfc};

/// `ProtocolSelector` of `MSFT_NetAdapter_QosClassificationElement` (NDIS_QOS_CONDITION_*),
/// as the NetAdapter module's format helper names them; other numbers print as `(n)`.
pub(super) const SELECTOR_NAMES: [&str; 7] = [
    "Reserved",
    "Default",
    "TCP",
    "UDP",
    "TCP/UDP",
    "Ethertype",
    "NetDirect",
];

/// Whether the rows of selector number `selector` print a port or type (all but Reserved and
/// Default do).
pub(super) fn prints_value(selector: u16) -> bool {
    !matches!(selector, 0 | 1)
}

/// One classification element (selector number, protocol-specific value, priority) as an
/// APP entry.
///
/// `Default` is the priority of traffic no other entry matches. The APP TLV says the same
/// with an Ethertype entry of protocol 0 (IEEE 802.1Q's default application priority; Linux
/// dcbnl reads it so too), so it becomes `app/ethertype/0x0000`: what an LLDP agent on the
/// same link records for that entry. Its value, like `Reserved`'s, means nothing (the format
/// does not print it), so both take protocol 0. `Reserved` and numbers Windows does not name
/// are kept as `windows-selector-<n>`, numbered as Windows numbers them (not as the TLV's
/// 3-bit selector, whose numbers differ).
pub(super) fn app_entry(selector: u16, value: u16, priority: u8) -> AppEntry {
    let (selector, protocol) = match selector {
        1 => (AppSelector::Ethertype, 0),
        2 => (AppSelector::Tcp, value),
        3 => (AppSelector::Udp, value),
        4 => (AppSelector::TcpUdp, value),
        5 => (AppSelector::Ethertype, value),
        6 => (AppSelector::NetDirect, value),
        0 => (AppSelector::Other("windows-selector-0".to_owned()), 0),
        n => (AppSelector::Other(format!("windows-selector-{n}")), value),
    };
    AppEntry {
        selector,
        protocol,
        priority,
    }
}

/// Writes what the peer of the port with `key` advertised: `pfc` (per priority), the ETS
/// configuration `ets` (its `pfc` unused) and the classification entries `app`; each `None`
/// when Windows shows nothing of it.
pub(super) fn write(
    facts: &mut Facts,
    key: &str,
    pfc: Option<&[bool]>,
    ets: Option<&DcbTables>,
    app: Option<Vec<AppEntry>>,
) {
    let pfc = pfc.map(|per_priority| Pfc {
        willing: None,
        mbc: None,
        capable: None,
        enabled: (0u8..)
            .zip(per_priority)
            .filter(|(_, on)| **on)
            .map(|(p, _)| p)
            .collect(),
    });
    let ets_configuration = ets.map(|tables| Ets {
        willing: None,
        cbs: None,
        max_tcs: None,
        tables: DcbTables {
            pfc: Vec::new(),
            ..tables.clone()
        },
    });
    PeerFacts::new(facts, key).dcb(&PeerDcb {
        dcbx: None,
        pfc,
        ets_configuration,
        ets_recommendation: None,
        app,
    });
}

#[cfg(test)]
mod tests;
