//! Parsers of what an LLDP agent on the host received from a port's neighbour: Open-LLDP's
//! `lldptool -t -n -i IF` (every TLV, or one with `-V PFC|ETS-CFG|ETS-REC|APP`) and lldpd's
//! `lldpcli -f json0|json show neighbors details`, whose IEEE 802.1Qaz TLVs lldpd leaves
//! undecoded (`unknown-tlvs`) and [`tlv`] decodes from their bytes. Pure functions over text;
//! every error names the line (1-based, 0 for the input as a whole).
//!
//! Fail closed: a listing cut short (no `End of LLDPDU TLV`, a TLV without its lines), an
//! 802.1Qaz or DCBX TLV the parser does not know, a field it cannot read and a neighbour
//! without its chassis or port id are errors, so the source is partial; so are answers no
//! LLDPDU can carry: a TLV 802.1AB allows once given twice, an id, name or description past
//! its 255 octets, a TTL past its two, ETS bandwidths that do not sum to 100 %. TLVs that carry
//! no DCB (LLDP-MED, VLAN names, vendor TLVs) are skipped.

mod lldpcli;
mod lldptool;
pub mod tlv;

pub use crate::lines::ParseError;
use crate::peer::{Neighbour, PeerDcb};
use driftgate_model::PeerDcbx;

pub use lldpcli::{LldpdNeighbours, parse_lldpcli};
pub use lldptool::parse_lldptool;

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
fn dialect(ieee: bool, cee: bool) -> PeerDcbx {
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
fn unbalanced(bandwidth: &[u8]) -> Option<String> {
    let sum: u32 = bandwidth.iter().copied().map(u32::from).sum();
    (sum != 100).then(|| {
        format!("the TC bandwidths sum to {sum} %, where IEEE 802.1Qaz has them sum to 100 %")
    })
}

/// Maps an LLDP id subtype as the tools print it to the fact's spelling.
fn id_subtype(printed: &str) -> String {
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
fn normalized_id(subtype: &str, value: &str) -> String {
    if subtype == "mac"
        && let Some(mac) = driftgate_model::MacAddr::parse(value.trim())
    {
        return mac.to_string();
    }
    value.trim().to_owned()
}

#[cfg(test)]
mod tests;
