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
    pub fn parse_arg(text: &str) -> Result<Self, BadAllowance> {
        // Minimal until the compare helper's version lands.
        let (path, value) = match text.split_once('=') {
            Some((path, value)) => (
                path,
                Some(
                    serde_json::from_str::<FactValue>(value)
                        .unwrap_or_else(|_| FactValue::from(value)),
                ),
            ),
            None => (text, None),
        };
        Ok(Allowance {
            path: path.to_owned(),
            value,
            reason: None,
            ticket: None,
            expires: None,
            given_at: "--allow".to_owned(),
        })
    }

    /// Whether it allows the fact at `path` to have `value` (`None`: the fact is gone).
    pub fn matches(&self, path: &FactPath, value: Option<&FactValue>) -> bool {
        let glob = globset::GlobBuilder::new(&self.path)
            .literal_separator(true)
            .build()
            .map(|g| g.compile_matcher());
        glob.is_ok_and(|g| g.is_match(path.as_str()))
            && self.value.as_ref().is_none_or(|v| Some(v) == value)
    }
}

/// Parses an allow file (`[[allow]]` tables); `origin` names the file in errors.
pub fn parse_allow_file(text: &str, origin: &str) -> Result<Vec<Allowance>, BadAllowance> {
    // Minimal until the compare helper's version lands.
    #[derive(serde::Deserialize)]
    struct Doc {
        #[serde(default)]
        allow: Vec<Entry>,
    }
    #[derive(serde::Deserialize)]
    struct Entry {
        path: String,
        value: Option<toml::Value>,
        reason: Option<String>,
        ticket: Option<String>,
        expires: Option<String>,
    }
    let bad = |reason: String| BadAllowance {
        given_at: origin.to_owned(),
        reason,
    };
    let doc: Doc = toml::from_str(text).map_err(|e| bad(e.to_string()))?;
    doc.allow
        .into_iter()
        .map(|e| {
            Ok(Allowance {
                path: e.path,
                value: e
                    .value
                    .map(|v| serde_json::to_value(v).map_err(|e| bad(e.to_string())))
                    .transpose()?
                    .map(|v| serde_json::from_value(v).map_err(|e| bad(e.to_string())))
                    .transpose()?,
                reason: e.reason,
                ticket: e.ticket,
                expires: e
                    .expires
                    .map(|d| d.parse().map_err(|e: jiff::Error| bad(e.to_string())))
                    .transpose()?,
                given_at: origin.to_owned(),
            })
        })
        .collect()
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
