//! The rows of a classification table (`Protocol Port/Type Priority`).

use super::format_list::error;
use crate::lines::ParseError;
use crate::peer::AppEntry;
use crate::windows::remote::{SELECTOR_NAMES, app_entry, prints_value};

/// A classification row: `Default             1`, `NetDirect 445       3`,
/// `Ethertype 0x8906    3`, `(7)       12        3`, as an APP entry. Protocols other than
/// Default and Reserved print a port or type: an Ethertype in hex, anything else in decimal.
pub(super) fn classification(line: &str, number: usize) -> Result<AppEntry, ParseError> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let bad = || {
        error(
            number,
            format!(
                "expected a classification row \"Protocol Port/Type Priority\", found {line:?}"
            ),
        )
    };
    let (protocol, value, priority) = match words.as_slice() {
        [protocol, priority] => (*protocol, None, priority),
        [protocol, value, priority] => (*protocol, Some(*value), priority),
        _ => return Err(bad()),
    };
    let selector = selector(protocol).ok_or_else(bad)?;
    let value = match (value, prints_value(selector)) {
        (None, false) => 0,
        (Some(value), true) if selector == 5 => value
            .strip_prefix("0x")
            .or_else(|| value.strip_prefix("0X"))
            .and_then(|hex| u16::from_str_radix(hex, 16).ok())
            .ok_or_else(bad)?,
        (Some(value), true) => value.parse().map_err(|_| bad())?,
        _ => return Err(bad()),
    };
    let priority = priority
        .parse::<u8>()
        .ok()
        .filter(|p| *p < 8)
        .ok_or_else(bad)?;
    Ok(app_entry(selector, value, priority))
}

/// The selector number of a protocol as the format prints it: its name, or `(n)` for a
/// number it has no name for.
fn selector(protocol: &str) -> Option<u16> {
    match SELECTOR_NAMES.iter().position(|name| *name == protocol) {
        Some(known) => u16::try_from(known).ok(),
        None => protocol
            .strip_prefix('(')?
            .strip_suffix(')')?
            .parse()
            .ok()
            .filter(|n| usize::from(*n) >= SELECTOR_NAMES.len()),
    }
}
