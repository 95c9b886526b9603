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
mod received;
pub mod tlv;

pub use crate::lines::ParseError;

pub use lldpcli::{LldpdNeighbours, parse_lldpcli};
pub use lldptool::parse_lldptool;
pub use received::Received;

#[cfg(test)]
mod tests;
