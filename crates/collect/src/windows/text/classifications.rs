//! The rows of a classification table (`Protocol Port/Type Priority`).

use super::error;
use crate::lines::ParseError;

/// A classification row: `Default             1`, `NetDirect 445       3`,
/// `Ethertype 0x8906    3`. Protocols other than Default and Reserved print a port or type.
pub(super) fn classification(line: &str, number: usize) -> Result<(), ParseError> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let bad = || {
        error(
            number,
            format!(
                "expected a classification row \"Protocol Port/Type Priority\", found {line:?}"
            ),
        )
    };
    let (protocol, priority) = match words.as_slice() {
        [protocol @ ("Default" | "Reserved"), priority] => (*protocol, priority),
        [protocol, _value, priority] => (*protocol, priority),
        _ => return Err(bad()),
    };
    let known = matches!(
        protocol,
        "TCP" | "UDP" | "TCP/UDP" | "Ethertype" | "NetDirect"
    ) || (protocol.starts_with('(') && protocol.ends_with(')'));
    if words.len() == 3 && !known {
        return Err(bad());
    }
    priority
        .parse::<u8>()
        .ok()
        .filter(|p| *p < 8)
        .ok_or_else(bad)?;
    Ok(())
}
