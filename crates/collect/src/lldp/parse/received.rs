//! What an agent received on one port, and what both listings (`lldptool`, `lldpcli`) read
//! it by: the id subtypes and ids as facts spell them, the DCBX dialect, ETS bandwidths that
//! must sum to 100 %.

use crate::peer::{Neighbour, PeerDcb};
use driftgate_model::PeerDcbx;

/// What an agent received on one port: who the neighbour is and what it advertises.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Received {
    /// The neighbour's identity.
    pub neighbour: Neighbour,
    /// Its DCB TLVs; `dcbx` is always set (`none` without any DCBX TLV).
    pub dcb: PeerDcb,
    /// The time to live the neighbour gave, in seconds.
    pub ttl: Option<u32>,
}

/// Which DCBX a neighbour speaks, from the TLVs it sent: IEEE wins when it sends both.
pub(super) fn dialect(ieee: bool, cee: bool) -> PeerDcbx {
    if ieee {
        PeerDcbx::Ieee
    } else if cee {
        PeerDcbx::Cee
    } else {
        PeerDcbx::None
    }
}

/// Why an ETS table's bandwidths cannot be what a neighbour configured: IEEE 802.1Q
/// (802.1Qaz) D.2.9.7 and D.2.10 give each traffic class its share, the shares summing to
/// 100 %. `None` when they do.
pub(super) fn unbalanced(bandwidth: &[u8]) -> Option<String> {
    let sum: u32 = bandwidth.iter().copied().map(u32::from).sum();
    (sum != 100).then(|| {
        format!("the TC bandwidths sum to {sum} %, where IEEE 802.1Qaz has them sum to 100 %")
    })
}

/// Maps an LLDP id subtype as the tools print it to the fact's spelling.
pub(super) fn id_subtype(printed: &str) -> String {
    match printed.trim().to_ascii_lowercase().as_str() {
        "mac" => "mac".to_owned(),
        "ipv4" | "ipv6" | "ip" => "ip".to_owned(),
        "ifname" => "ifname".to_owned(),
        "ifalias" => "ifalias".to_owned(),
        "local" => "local".to_owned(),
        other => other.replace([' ', '_'], "-"),
    }
}

/// A MAC in the form facts key ports by (lower case, colon separated), else the text as is.
pub(super) fn normalized_id(subtype: &str, value: &str) -> String {
    if subtype == "mac"
        && let Some(mac) = driftgate_model::MacAddr::parse(value.trim())
    {
        return mac.to_string();
    }
    value.trim().to_owned()
}
