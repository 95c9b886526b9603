//! The `Get-NetQosFlowControl` table: the host's PFC priorities, per policy set.

use super::format_list::{error, parse_bool};
use crate::lines::ParseError;

/// `Priority Enabled PolicySet IfIndex IfAlias`, the header of `Get-NetQosFlowControl`.
pub(super) fn host_flow_control_header(line: &str) -> bool {
    line.split_whitespace()
        .eq(["Priority", "Enabled", "PolicySet", "IfIndex", "IfAlias"])
}

/// A `Get-NetQosFlowControl` row: (policy set and interface, priority, enabled).
pub(super) fn host_flow_control(
    line: &str,
    number: usize,
) -> Result<(String, u8, bool), ParseError> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let bad = || {
        error(
            number,
            format!(
                "expected a Get-NetQosFlowControl row \"Priority Enabled PolicySet [IfIndex IfAlias]\", found {line:?}"
            ),
        )
    };
    let (priority, enabled, group) = match words.as_slice() {
        [priority, enabled, "Global"] => (priority, enabled, "Global".to_owned()),
        [priority, enabled, "AdapterSpecific", index, alias @ ..] if !alias.is_empty() => {
            index.parse::<u32>().map_err(|_| bad())?;
            (
                priority,
                enabled,
                format!("AdapterSpecific {}", alias.join(" ")),
            )
        }
        _ => return Err(bad()),
    };
    let priority: u8 = priority.parse().ok().filter(|p| *p < 8).ok_or_else(bad)?;
    let enabled = parse_bool(enabled).ok_or_else(bad)?;
    Ok((group, priority, enabled))
}
