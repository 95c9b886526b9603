//! How the `Format-List` text prints a line: `Key : value`, `True`/`False`; and the error at
//! a line every part of the parser gives.

use crate::lines::ParseError;

/// A parse error at `line`.
pub(super) fn error(line: usize, message: impl Into<String>) -> ParseError {
    ParseError::at(line, message)
}

/// `Key : value` with a key of letters (and the `NumTCs(Max/ETS/PFC)` punctuation).
pub(super) fn key_value(line: &str) -> Option<(&str, &str)> {
    let (key, value) = line.split_once(':')?;
    let key = key.trim();
    let valid = key.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '(' | ')' | '/'));
    valid.then(|| (key, value.trim()))
}

/// `True` / `False` as PowerShell prints them (any case).
pub(super) fn parse_bool(value: &str) -> Option<bool> {
    match value.to_ascii_lowercase().as_str() {
        "true" => Some(true),
        "false" => Some(false),
        _ => None,
    }
}
