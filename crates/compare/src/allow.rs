//! Allowances: changes an operator declared (`--allow PATH=VALUE`, an allow file) or drift
//! waived for a run. A finding an allowance matches does not count towards the verdict; it is
//! listed as allowed, with the allowance's reason.
//!
//! Paths are globs compiled exactly like policy rule paths (`super::glob::compile_glob`):
//! `*` never crosses `/`, `**` does.

use globset::{GlobMatcher, GlobSet, GlobSetBuilder};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use toml::Spanned;

use super::glob::compile_glob;
use driftgate_model::line_index::LineIndex;
use driftgate_snapshot::{FactPath, FactValue};

/// Where an allowance given on the command line was given.
pub const ARG_ORIGIN: &str = "--allow";

/// One declared change or waiver.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
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

/// Why an allowance does not parse; names the argument or the file and line. For an allow
/// file it holds every problem the file has: its Display is one `FILE:LINE: message` line
/// per problem.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{given_at}: {reason}")]
pub struct BadAllowance {
    /// `--allow` or `FILE:LINE` (of the first problem).
    pub given_at: String,
    /// What is wrong; for a file with several problems, the first's message, then one
    /// `FILE:LINE: message` line per further problem.
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

/// A TOML table with the places of its keys and values, read loosely so every problem of a
/// file is found, not only the first.
type SpannedTable = std::collections::BTreeMap<Spanned<String>, Spanned<toml::Value>>;

/// The keys of one `[[allow]]` table.
const ENTRY_KEYS: &[&str] = &["path", "value", "reason", "ticket", "expires"];

/// Parses an allow file (`[[allow]]` tables with `path`, and optionally `value`, `reason`,
/// `ticket`, `expires = "YYYY-MM-DD"`); `origin` names the file in errors, and each
/// allowance's `given_at` is `ORIGIN:LINE` of its `path`. Every problem of the file is
/// reported, in line order: the error's `given_at` and `reason` are the first's, and its
/// `reason` goes on with one `ORIGIN:LINE: message` line per further problem (a TOML syntax
/// error stops the reading, so it comes alone).
pub fn parse_allow_file(text: &str, origin: &str) -> Result<Vec<Allowance>, BadAllowance> {
    let mut reader = FileReader {
        text,
        lines: LineIndex::new(text),
        origin,
        problems: Vec::new(),
    };
    let document: SpannedTable = toml::from_str(text).map_err(|e| BadAllowance {
        given_at: reader.at(e.span().map_or(0, |span| span.start)),
        reason: e.message().trim().to_owned(),
    })?;
    let mut allowances = Vec::new();
    for (key, value) in document {
        if key.get_ref() != "allow" {
            reader.problem(
                key.span().start,
                format!("unknown field `{}`, expected `allow`", key.get_ref()),
            );
            continue;
        }
        let start = value.span().start;
        if !value.get_ref().is_array() {
            reader.problem(
                start,
                "`allow` must be an array of tables: [[allow]]".to_owned(),
            );
            continue;
        }
        // The items' own places: a plain value holds none.
        let Some(items) = reader.tables(start) else {
            continue;
        };
        allowances.extend(items.into_iter().filter_map(|item| reader.entry(item)));
    }
    let mut problems = reader.problems;
    problems.sort_by_key(|(line, _)| *line);
    let mut problems = problems
        .into_iter()
        .map(|(line, reason)| (format!("{origin}:{line}"), reason));
    match problems.next() {
        None => Ok(allowances),
        Some((given_at, mut reason)) => {
            for (at, more) in problems {
                reason.push_str(&format!("\n{at}: {more}"));
            }
            Err(BadAllowance { given_at, reason })
        }
    }
}

/// Reads an allow file, collecting every problem with its line.
struct FileReader<'t> {
    text: &'t str,
    lines: LineIndex,
    origin: &'t str,
    problems: Vec<(usize, String)>,
}

impl FileReader<'_> {
    fn at(&self, offset: usize) -> String {
        format!("{}:{}", self.origin, self.lines.line(offset))
    }

    fn problem(&mut self, offset: usize, reason: String) {
        self.problems.push((self.lines.line(offset), reason));
    }

    /// The `[[allow]]` items with their places: the document read again, as spanned tables
    /// (it parsed, so this only fails on an item that is not a table).
    fn tables(&mut self, start: usize) -> Option<Vec<Spanned<SpannedTable>>> {
        #[derive(Deserialize)]
        struct Tables {
            allow: Vec<Spanned<SpannedTable>>,
        }
        match toml::from_str::<Tables>(self.text) {
            Ok(tables) => Some(tables.allow),
            Err(e) => {
                let offset = e.span().map_or(start, |span| span.start);
                self.problem(
                    offset,
                    "each allowance must be a table: [[allow]]".to_owned(),
                );
                None
            }
        }
    }

    /// One `[[allow]]` table as an allowance; `None` (with its problems noted) when it has any.
    fn entry(&mut self, item: Spanned<SpannedTable>) -> Option<Allowance> {
        let header = item.span().start;
        let before = self.problems.len();
        let mut path = None;
        // `path` was given, perhaps wrong (then that is its problem, not a missing `path`).
        let mut path_given = false;
        let (mut value, mut reason, mut ticket, mut expires) = (None, None, None, None);
        for (key, field) in item.into_inner() {
            let (offset, name) = (field.span().start, key.get_ref().as_str());
            match name {
                "path" => {
                    path_given = true;
                    if let Some(text) = self.string(&field, name) {
                        match check_glob(&text) {
                            Ok(()) => path = Some((text, offset)),
                            Err(problem) => self.problem(offset, problem),
                        }
                    }
                }
                "value" => match field.get_ref().clone().try_into::<FactValue>() {
                    Ok(fact) => value = Some(fact),
                    Err(e) => self.problem(
                        offset,
                        format!("`value` must be a fact value: {}", e.message().trim()),
                    ),
                },
                "reason" => reason = self.string(&field, name),
                "ticket" => ticket = self.string(&field, name),
                "expires" => match parse_date(field.get_ref()) {
                    Ok(date) => expires = Some(date),
                    Err(problem) => self.problem(offset, problem),
                },
                other => {
                    let expected: Vec<String> =
                        ENTRY_KEYS.iter().map(|k| format!("`{k}`")).collect();
                    self.problem(
                        key.span().start,
                        format!(
                            "unknown field `{other}`, expected one of {}",
                            expected.join(", ")
                        ),
                    );
                }
            }
        }
        if path.is_none() && !path_given {
            self.problem(header, "missing field `path`".to_owned());
        }
        let (path, offset) = path?;
        (self.problems.len() == before).then(|| Allowance {
            path,
            value,
            reason,
            ticket,
            expires,
            given_at: self.at(offset),
        })
    }

    /// A string value; a problem when it is another type.
    fn string(&mut self, field: &Spanned<toml::Value>, key: &str) -> Option<String> {
        match field.get_ref() {
            toml::Value::String(text) => Some(text.clone()),
            other => {
                self.problem(
                    field.span().start,
                    format!("`{key}` must be a string, not {}", other.type_str()),
                );
                None
            }
        }
    }
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
