//! A group's `ansible_group_priority`, which orders groups of one depth.

use yaml_serde::Value;

/// Ansible's `ansible_group_priority` when a group sets none.
pub(super) const DEFAULT_PRIORITY: i64 = 1;

/// An `ansible_group_priority`: a whole number, written as one or (INI) as its digits.
pub(super) fn priority(value: &Value) -> Option<i64> {
    match value {
        Value::Number(n) => n.as_i64(),
        Value::String(text) => text.trim().parse().ok(),
        _ => None,
    }
}
