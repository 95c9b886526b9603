//! What the parsers of Linux tool output share: blank output refused, JSON read with the
//! error moved to its line, `key: value` and `on`/`off` lines, the tools' "not set" and
//! "not supported".

use serde::de::DeserializeOwned;

use crate::lines::{ParseError, numbered_lines};

/// Rejects blank output, which every tool here prints when it fails.
pub(super) fn require_output(text: &str, what: &str) -> Result<(), ParseError> {
    if text.trim().is_empty() {
        return Err(ParseError::whole(format!("empty {what} output")));
    }
    Ok(())
}

/// Deserializes tool JSON, moving serde_json's position into the error's line.
pub(super) fn from_json<T: DeserializeOwned>(text: &str, what: &str) -> Result<T, ParseError> {
    require_output(text, what)?;
    serde_json::from_str(text).map_err(|e| {
        let full = e.to_string();
        let position = format!(" at line {} column {}", e.line(), e.column());
        let message = full.strip_suffix(&position).unwrap_or(&full);
        // serde_json names no line (0) only for errors that are not of the text.
        ParseError::new(
            (e.line() > 0).then_some(e.line()),
            format!("{what}: {message} (column {})", e.column()),
        )
    })
}

/// The line of the first occurrence of JSON key `key` in `text`, for errors found after
/// deserializing; `None` when the key is not there.
pub(super) fn key_line(text: &str, key: &str) -> Option<usize> {
    let quoted = format!("\"{key}\"");
    numbered_lines(text)
        .find(|(_, line)| line.contains(&quoted))
        .map(|(number, _)| number)
}

/// `Some` only for a non-empty value: the tools print `""` or nothing for "not set".
pub(super) fn non_empty(value: Option<String>) -> Option<String> {
    value.filter(|v| !v.trim().is_empty())
}

/// Whether a tool's message says the device lacks the feature (`EOPNOTSUPP`).
pub(super) fn says_unsupported(text: &str) -> bool {
    text.to_ascii_lowercase()
        .contains("operation not supported")
}

/// `on`/`off` as ethtool prints booleans.
pub(super) fn on_off(line: usize, value: &str) -> Result<bool, ParseError> {
    match value.trim() {
        "on" => Ok(true),
        "off" => Ok(false),
        other => Err(ParseError::at(
            line,
            format!("expected `on` or `off`, found {other:?}"),
        )),
    }
}

/// Splits `key: value` at the first colon; `what` names the expected format in the error.
pub(super) fn key_value<'a>(
    line: usize,
    text: &'a str,
    what: &str,
) -> Result<(&'a str, &'a str), ParseError> {
    text.split_once(':')
        .map(|(key, value)| (key.trim(), value.trim()))
        .ok_or_else(|| ParseError::at(line, format!("expected {what}, found {:?}", text.trim())))
}
