//! Allowances: changes an operator declared (`--allow PATH=VALUE`, an allow file) or drift
//! waived for a run. A finding an allowance matches does not count towards the verdict; it is
//! listed as allowed, with the allowance's reason.
//!
//! Paths are globs compiled exactly like policy rule paths ([`super::policy::compile_glob`]):
//! `*` never crosses `/`, `**` does.

use globset::{GlobMatcher, GlobSet, GlobSetBuilder};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use toml::Spanned;

use super::policy::{compile_glob, line_of};
use crate::snapshot::{FactPath, FactValue};

/// Where an allowance given on the command line was given.
pub const ARG_ORIGIN: &str = "--allow";

/// One declared change or waiver.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Allowance {
    /// Fact path glob (`*` never crosses `/`, `**` does), as in policy rules.
    pub path: String,
    /// The value the fact may now have; any value when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<FactValue>,
    /// Why it is allowed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The change ticket that declares it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ticket: Option<String>,
    /// The last day it applies (inclusive, UTC); ignored with a warning after it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
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
    /// Parses `--allow PATH=VALUE` (or `PATH` alone: any value). `VALUE` is read as JSON when
    /// it is a fact value (`true`, `3`, `"x"`, `[1, 2]`), else taken as a string, so
    /// `dcbx_mode=disabled` and `dcbx_mode="disabled"` mean the same.
    pub fn parse_arg(text: &str) -> Result<Self, BadAllowance> {
        let bad = |reason: String| BadAllowance {
            given_at: ARG_ORIGIN.to_owned(),
            reason,
        };
        let (path, value) = match text.split_once('=') {
            Some((path, value)) => (path, Some(value)),
            None => (text, None),
        };
        if path.is_empty() {
            return Err(bad(format!(
                "{text:?}: give PATH=VALUE or PATH (a fact path glob)"
            )));
        }
        check_glob(path).map_err(bad)?;
        let value = value.map(|value| {
            serde_json::from_str::<FactValue>(value).unwrap_or_else(|_| FactValue::from(value))
        });
        Ok(Allowance {
            path: path.to_owned(),
            value,
            reason: None,
            ticket: None,
            expires: None,
            given_at: ARG_ORIGIN.to_owned(),
        })
    }

    /// Whether it allows the fact at `path` to have `value` (`None`: the fact is gone, which
    /// only an allowance without a value allows). A glob that does not compile (in a run
    /// manifest edited by hand) allows nothing.
    pub fn matches(&self, path: &FactPath, value: Option<&FactValue>) -> bool {
        compile_glob(&self.path)
            .map(|glob| glob.compile_matcher())
            .is_ok_and(|glob| self.matches_with(&glob, path, value))
    }

    fn matches_with(&self, glob: &GlobMatcher, path: &FactPath, value: Option<&FactValue>) -> bool {
        glob.is_match(path.as_str()) && self.allows_value(value)
    }

    fn allows_value(&self, value: Option<&FactValue>) -> bool {
        match &self.value {
            None => true,
            Some(allowed) => value == Some(allowed),
        }
    }
}

/// A list of allowances with their globs compiled once, for judging many findings.
pub(super) struct AllowSet<'a> {
    allowances: &'a [Allowance],
    globs: GlobSet,
    allowance_of_glob: Vec<usize>,
}

impl<'a> AllowSet<'a> {
    /// Compiles `allowances`; one whose glob does not compile allows nothing.
    pub(super) fn new(allowances: &'a [Allowance]) -> Self {
        let mut builder = GlobSetBuilder::new();
        let mut allowance_of_glob = Vec::new();
        for (index, allowance) in allowances.iter().enumerate() {
            if let Ok(glob) = compile_glob(&allowance.path) {
                builder.add(glob);
                allowance_of_glob.push(index);
            }
        }
        AllowSet {
            allowances,
            globs: builder.build().unwrap_or_else(|_| GlobSet::empty()),
            allowance_of_glob,
        }
    }

    /// The first allowance (in the order given) that allows `path` to have `value`.
    pub(super) fn find(&self, path: &FactPath, value: Option<&FactValue>) -> Option<&'a Allowance> {
        if self.allowances.is_empty() {
            return None;
        }
        self.globs
            .matches(path.as_str())
            .into_iter()
            .map(|glob| &self.allowances[self.allowance_of_glob[glob]])
            .find(|allowance| allowance.allows_value(value))
    }
}

fn check_glob(path: &str) -> Result<(), String> {
    compile_glob(path)
        .map(drop)
        .map_err(|e| format!("invalid path glob {path:?}: {}", e.kind()))
}

/// An allow file as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AllowFile {
    #[serde(default)]
    allow: Vec<Spanned<AllowEntry>>,
}

/// One `[[allow]]` table.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AllowEntry {
    path: Spanned<String>,
    #[serde(default)]
    value: Option<FactValue>,
    #[serde(default)]
    reason: Option<String>,
    #[serde(default)]
    ticket: Option<String>,
    #[serde(default)]
    expires: Option<Spanned<toml::Value>>,
}

/// Parses an allow file (`[[allow]]` tables with `path`, and optionally `value`, `reason`,
/// `ticket`, `expires = "YYYY-MM-DD"`); `origin` names the file in errors, and each
/// allowance's `given_at` is `ORIGIN:LINE` of its `path`.
pub fn parse_allow_file(text: &str, origin: &str) -> Result<Vec<Allowance>, BadAllowance> {
    let at = |offset: usize| format!("{origin}:{}", line_of(text, offset));
    let file: AllowFile = toml::from_str(text).map_err(|e| BadAllowance {
        given_at: at(e.span().map_or(0, |span| span.start)),
        reason: e.message().trim().to_owned(),
    })?;
    file.allow
        .into_iter()
        .map(|entry| {
            let entry = entry.into_inner();
            let given_at = at(entry.path.span().start);
            let bad = |given_at: String, reason: String| BadAllowance { given_at, reason };
            let path = entry.path.into_inner();
            check_glob(&path).map_err(|reason| bad(given_at.clone(), reason))?;
            let expires = entry
                .expires
                .map(|expires| {
                    let line = at(expires.span().start);
                    parse_date(expires.get_ref()).map_err(|reason| bad(line, reason))
                })
                .transpose()?;
            Ok(Allowance {
                path,
                value: entry.value,
                reason: entry.reason,
                ticket: entry.ticket,
                expires,
                given_at,
            })
        })
        .collect()
}

/// `expires`: a `"YYYY-MM-DD"` string, or a TOML local date (`expires = 2026-12-31`).
fn parse_date(value: &toml::Value) -> Result<jiff::civil::Date, String> {
    let text = match value {
        toml::Value::String(text) => text.clone(),
        toml::Value::Datetime(dt) if dt.time.is_none() && dt.offset.is_none() => dt.to_string(),
        other => {
            return Err(format!(
                "`expires` must be a date \"YYYY-MM-DD\", not {other}"
            ));
        }
    };
    let well_formed = text.len() == 10 && text.as_bytes()[4] == b'-' && text.as_bytes()[7] == b'-';
    text.parse::<jiff::civil::Date>()
        .ok()
        .filter(|_| well_formed)
        .ok_or_else(|| format!("`expires` must be a date \"YYYY-MM-DD\", not {text:?}"))
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

#[cfg(test)]
mod tests;
