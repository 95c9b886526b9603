//! Allowances: changes an operator declared (`--allow PATH=VALUE`, an allow file) or drift
//! waived for a run. A finding an allowance matches does not count towards the verdict; it is
//! listed as allowed, with the allowance's reason.

use schemars::JsonSchema;
use serde::Serialize;

use crate::snapshot::{FactPath, FactValue};

/// One declared change or waiver.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct Allowance {
    /// Fact path glob (`*` never crosses `/`, `**` does), as in policy rules.
    pub path: String,
    /// The value the fact may now have; any value when absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<FactValue>,
    /// Why it is allowed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The change ticket that declares it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ticket: Option<String>,
    /// The last day it applies (inclusive, UTC); ignored with a warning after it.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<String>", extend("format" = "date"))]
    pub expires: Option<jiff::civil::Date>,
    /// Where it was given: `--allow`, or `FILE:LINE`.
    pub given_at: String,
}

/// Why an allowance does not parse; names the argument or the file and line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{given_at}: {reason}")]
pub struct BadAllowance {
    /// `--allow` or `FILE:LINE`.
    pub given_at: String,
    /// What is wrong.
    pub reason: String,
}

impl Allowance {
    /// Parses `--allow PATH=VALUE` (or `PATH` alone: any value).
    pub fn parse_arg(_text: &str) -> Result<Self, BadAllowance> {
        todo!("issue 11: compare helper")
    }

    /// Whether it allows the fact at `path` to have `value` (`None`: the fact is gone).
    pub fn matches(&self, _path: &FactPath, _value: Option<&FactValue>) -> bool {
        todo!("issue 11: compare helper")
    }
}

/// Parses an allow file (`[[allow]]` tables); `origin` names the file in errors.
pub fn parse_allow_file(_text: &str, _origin: &str) -> Result<Vec<Allowance>, BadAllowance> {
    todo!("issue 11: compare helper")
}

/// `allowances` split into those in force on `today` and those that expired before it.
pub fn split_expired(
    allowances: Vec<Allowance>,
    today: jiff::civil::Date,
) -> (Vec<Allowance>, Vec<Allowance>) {
    allowances
        .into_iter()
        .partition(|a| a.expires.is_none_or(|last| last >= today))
}
