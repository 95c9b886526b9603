//! The IEEE 802.1Qaz TLVs (OUI 00-80-C2, subtypes 9–12) from their information bytes, as
//! lldpd shows them in `unknown-tlvs` (`"value": "08,08"`). Layouts: IEEE 802.1Q-2014 clauses
//! D.2.8 (ETS Configuration), D.2.9 (ETS Recommendation), D.2.10 (PFC) and D.2.11 (APP).

use driftgate_model::AppSelector;

use crate::nic::DcbTables;
use crate::peer::{AppEntry, Ets, Pfc};

/// The 802.1 organisationally specific OUI.
pub const IEEE_8021: [u8; 3] = [0x00, 0x80, 0xc2];
/// The CEE DCBX OUI (the pre-standard dialect, 00-1B-21).
pub const CEE: [u8; 3] = [0x00, 0x1b, 0x21];

/// The 802.1Qaz TLVs by subtype.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Qaz {
    /// Subtype 9.
    EtsConfiguration(Ets),
    /// Subtype 10.
    EtsRecommendation(Ets),
    /// Subtype 11.
    Pfc(Pfc),
    /// Subtype 12.
    App(Vec<AppEntry>),
}

/// Decodes an 802.1 TLV of `subtype`: `Ok(None)` for the subtypes that are not 802.1Qaz DCB
/// (VLAN names, link aggregation…); an error for an 802.1Qaz TLV of the wrong length.
pub fn decode(subtype: u8, bytes: &[u8]) -> Result<Option<Qaz>, String> {
    let want = |len: usize, what: &str| {
        if bytes.len() == len {
            Ok(())
        } else {
            Err(format!(
                "{what} TLV (subtype {subtype}) has {} information bytes, expected {len}",
                bytes.len()
            ))
        }
    };
    Ok(Some(match subtype {
        9 => {
            want(21, "ETS Configuration")?;
            balanced(subtype, "ETS Configuration", &bytes[5..13])?;
            let max = bytes[0] & 0x07;
            Qaz::EtsConfiguration(Ets {
                willing: Some(bytes[0] & 0x80 != 0),
                cbs: Some(bytes[0] & 0x40 != 0),
                // 0 means 8: the field counts 1–8 in three bits.
                max_tcs: Some(if max == 0 { 8 } else { max }),
                tables: tables(&bytes[1..]),
            })
        }
        10 => {
            want(21, "ETS Recommendation")?;
            balanced(subtype, "ETS Recommendation", &bytes[5..13])?;
            Qaz::EtsRecommendation(Ets {
                tables: tables(&bytes[1..]),
                ..Ets::default()
            })
        }
        11 => {
            want(2, "PFC")?;
            Qaz::Pfc(Pfc {
                willing: Some(bytes[0] & 0x80 != 0),
                mbc: Some(bytes[0] & 0x40 != 0),
                capable: Some(bytes[0] & 0x0f),
                enabled: (0..8u8).filter(|p| bytes[1] & (1 << p) != 0).collect(),
            })
        }
        12 => {
            if bytes.is_empty() || !(bytes.len() - 1).is_multiple_of(3) {
                return Err(format!(
                    "APP TLV (subtype 12) has {} information bytes, expected 1 + 3 per entry",
                    bytes.len()
                ));
            }
            Qaz::App(
                bytes[1..]
                    .chunks(3)
                    .map(|entry| AppEntry {
                        priority: entry[0] >> 5,
                        selector: AppSelector::from_ieee(entry[0] & 0x07),
                        protocol: u16::from_be_bytes([entry[1], entry[2]]),
                    })
                    .collect(),
            )
        }
        _ => return Ok(None),
    }))
}

/// An ETS TLV's bandwidths (its information bytes 5–12) sum to 100 %.
fn balanced(subtype: u8, what: &str, bandwidth: &[u8]) -> Result<(), String> {
    match super::received::unbalanced(bandwidth) {
        Some(why) => Err(format!("{what} TLV (subtype {subtype}): {why}")),
        None => Ok(()),
    }
}

/// The 20 bytes of an ETS table: priority assignment (4 bytes, two priorities each, the lower
/// priority in the high nibble), bandwidth per class (8), algorithm per class (8).
fn tables(bytes: &[u8]) -> DcbTables {
    let priority_tc = bytes[..4].iter().flat_map(|b| [b >> 4, b & 0x0f]).collect();
    DcbTables {
        priority_tc,
        bandwidth: bytes[4..12].to_vec(),
        algorithm: bytes[12..20].iter().map(|t| algorithm(*t)).collect(),
        pfc: Vec::new(),
    }
}

/// A transmission selection algorithm as the host's facts spell it.
pub(super) fn algorithm(tsa: u8) -> String {
    match tsa {
        0 => "strict".to_owned(),
        1 => "cbs".to_owned(),
        2 => "ets".to_owned(),
        255 => "vendor".to_owned(),
        other => format!("tsa-{other}"),
    }
}

/// `"08,08"` (lldpd's hex bytes) → bytes.
pub fn hex_bytes(text: &str) -> Result<Vec<u8>, String> {
    if text.trim().is_empty() {
        return Ok(Vec::new());
    }
    text.split(',')
        .map(|b| u8::from_str_radix(b.trim(), 16).map_err(|_| format!("{b:?} is not a hex byte")))
        .collect()
}
