//! Severities: how a change, a violated expectation or an invariant finding is treated. A
//! leaf of `compare`, so that the policy (which sets them) and the invariants (which carry a
//! default) do not import each other.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// How a change, a violated expectation or an invariant finding is treated.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Not reported.
    Ignore,
    /// Reported; never affects the verdict.
    Info,
    /// Reported; the verdict is WARN (exit 0), or BLOCK with `--strict`.
    Warn,
    /// The verdict is BLOCK (exit 1).
    Block,
}

impl Severity {
    /// The spelling used in policies and reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Ignore => "ignore",
            Severity::Info => "info",
            Severity::Warn => "warn",
            Severity::Block => "block",
        }
    }
}
