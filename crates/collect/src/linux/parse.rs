//! Parsers of Linux NIC tool output: iproute2 `ip -j -d link` and `dcb -j`, `ethtool`,
//! `devlink -j dev info`, and the Mellanox tools `mlnx_qos` and `mlxconfig`.
//! Pure functions over text; every error names the line (1-based, 0 for the input as a whole).
//!
//! The JSON formats go through serde into private mirror types, so a wrong type or a missing
//! key is reported at the line where serde_json met it, and the public types stay free of the
//! tools' key names. Empty output is always an error: the tools print nothing when they fail,
//! and a default value would pass that failure off as a configuration.
//!
//! One file per command: `ip_link`, `dcb` (ets, pfc, dcbx), `ethtool_pause`, `ethtool_driver`,
//! `devlink`, `mlnx_qos`, `mlxconfig`; this module holds what they share.

mod dcb;
mod devlink;
mod ethtool_driver;
mod ethtool_pause;
mod ip_link;
mod mlnx_qos;
mod mlxconfig;

use serde::de::DeserializeOwned;

pub use crate::lines::ParseError;
use crate::lines::numbered_lines;

pub use dcb::{Dcbx, Ets, Pfc, dcb_unsupported, parse_dcb_dcbx, parse_dcb_ets, parse_dcb_pfc};
pub use devlink::{DevlinkDevice, parse_devlink_info};
pub use ethtool_driver::{DriverInfo, parse_ethtool_driver_info};
pub use ethtool_pause::{
    Pause, ethtool_unsupported, parse_ethtool_pause_json, parse_ethtool_pause_text,
};
pub use ip_link::{Link, parse_ip_link};
pub use mlnx_qos::{MlnxQos, MlnxTc, parse_mlnx_qos};
pub use mlxconfig::{MlxConfig, MlxValue, mlx_bool, parse_mlxconfig_query};

/// Rejects blank output, which every tool here prints when it fails.
fn require_output(text: &str, what: &str) -> Result<(), ParseError> {
    if text.trim().is_empty() {
        return Err(ParseError::whole(format!("empty {what} output")));
    }
    Ok(())
}

/// Deserializes tool JSON, moving serde_json's position into the error's line.
fn from_json<T: DeserializeOwned>(text: &str, what: &str) -> Result<T, ParseError> {
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
fn key_line(text: &str, key: &str) -> Option<usize> {
    let quoted = format!("\"{key}\"");
    numbered_lines(text)
        .find(|(_, line)| line.contains(&quoted))
        .map(|(number, _)| number)
}

/// `Some` only for a non-empty value: the tools print `""` or nothing for "not set".
fn non_empty(value: Option<String>) -> Option<String> {
    value.filter(|v| !v.trim().is_empty())
}

/// Whether a tool's message says the device lacks the feature (`EOPNOTSUPP`).
fn says_unsupported(text: &str) -> bool {
    text.to_ascii_lowercase()
        .contains("operation not supported")
}

/// `on`/`off` as ethtool prints booleans.
fn on_off(line: usize, value: &str) -> Result<bool, ParseError> {
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
fn key_value<'a>(line: usize, text: &'a str, what: &str) -> Result<(&'a str, &'a str), ParseError> {
    text.split_once(':')
        .map(|(key, value)| (key.trim(), value.trim()))
        .ok_or_else(|| ParseError::at(line, format!("expected {what}, found {:?}", text.trim())))
}

#[cfg(test)]
mod tests;
