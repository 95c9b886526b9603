//! Loading a policy: the built-in document, then each file layered on it, every rule merged
//! by id, every error naming the file and line.

use std::collections::{BTreeMap, HashMap};

use schemars::JsonSchema;
use serde::Deserialize;
use toml::Spanned;

use super::compiled::{Policy, PolicyError, Rule, specificity};
use super::glob_group::GlobGroup;
use crate::glob::compile_glob;
use crate::invariants::{INVARIANTS, Invariant};
use crate::severity::Severity;
use driftgate_model::line_index::LineIndex;
use driftgate_snapshot::FactValue;

const BUILTIN_TEXT: &str = include_str!("../default_policy.toml");
/// Where the built-in rules are said to come from.
pub(super) const BUILTIN_ORIGIN: &str = "built-in policy";

/// A policy file as written in TOML: what `schemas/policy.schema.json` describes.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "driftgate policy")]
pub struct PolicyDocument {
    /// Rules, in `[[rule]]` tables.
    #[serde(default, rename = "rule")]
    pub rules: Vec<RuleDocument>,
    /// Severity per built-in invariant id (`block`, `warn`, `info`, or `ignore` to turn it off).
    #[serde(default)]
    #[schemars(with = "BTreeMap<String, Severity>")]
    pub invariants: BTreeMap<Spanned<String>, Severity>,
}

/// One `[[rule]]` table.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RuleDocument {
    /// Unique id; a built-in id here overrides that built-in rule.
    #[schemars(with = "String")]
    pub id: Spanned<String>,
    /// Glob over fact paths: `*` stays within one `/` segment, `**` crosses segments;
    /// `?`, `[abc]` and `{a,b}` work as in shell globs. Required for a new rule.
    #[serde(default)]
    #[schemars(with = "Option<String>")]
    pub path: Option<Spanned<String>>,
    /// Severity of a change (added, removed or different value) under this path.
    #[serde(default)]
    pub on_change: Option<Severity>,
    /// Value every matching fact must have, with or without a baseline. For a pattern
    /// without wildcards, a missing fact violates it too.
    #[serde(default)]
    pub expect: Option<FactValue>,
    /// Severity of a violated `expect` (default `block`).
    #[serde(default)]
    pub on_violation: Option<Severity>,
    /// Why this matters; shown with every finding.
    #[serde(default)]
    pub why: Option<String>,
}

/// Built-in rule ids that are gone, with what judges their paths now. A site policy that still
/// defines one gets a new rule of that id, which no longer does what it was written for.
const RETIRED_RULES: [(&str, &str); 4] = [
    (
        "bmc-pending",
        "staged values are judged by the rule of the live path (`nic/<key>/bmc/pending/flow_control/...` by bmc-flow-control); a rule naming `pending` can only make that stricter unless its path has no wildcard",
    ),
    (
        "bmc-pending-dcbx-mode",
        "dcbx-mode judges staged DCBX modes through the live path",
    ),
    (
        "bmc-pending-hii-attributes",
        "bmc-hii-attributes judges staged HII attributes through the live path",
    ),
    (
        "os-firmware-pending",
        "os-nic-firmware judges `nic/<key>/os/firmware/pending/...` through the live path",
    ),
];

impl Policy {
    /// The built-in policy extended and overridden by each `(text, file)` layer in turn: a
    /// baseline store's `driftgate.toml`, then a `--policy` file.
    pub fn layered(user: &[(&str, &str)]) -> Result<Self, PolicyError> {
        let mut rules = Rules::default();
        let mut invariants: Vec<(&'static Invariant, Severity)> = INVARIANTS
            .iter()
            .map(|inv| (inv, inv.default_severity))
            .collect();
        let mut sources = vec![BUILTIN_ORIGIN.to_owned()];
        let mut warnings = Vec::new();
        let documents = std::iter::once((BUILTIN_TEXT, BUILTIN_ORIGIN)).chain(user.iter().copied());
        for (index, (text, file)) in documents.enumerate() {
            let is_builtin = index == 0;
            let document: PolicyDocument =
                toml::from_str(text).map_err(|e| syntax_error(e, text, file))?;
            let lines = LineIndex::new(text);
            let mut seen_here = BTreeMap::new();
            for spec in document.rules {
                let line = lines.line(spec.id.span().start);
                if let Some(first) = seen_here.insert(spec.id.get_ref().clone(), line) {
                    return Err(invalid(
                        file,
                        line,
                        format!(
                            "duplicate rule id {:?} (first defined on line {first})",
                            spec.id.get_ref()
                        ),
                    ));
                }
                if !is_builtin
                    && let Some((id, instead)) =
                        RETIRED_RULES.iter().find(|(id, _)| id == spec.id.get_ref())
                    && !rules.contains(id)
                {
                    warnings.push(format!(
                        "{file}:{line}: rule id {id:?} is retired from the built-in policy, so this defines a new rule of that name: {instead}"
                    ));
                }
                rules.merge(spec, &lines, file, line, is_builtin)?;
            }
            for (id, severity) in document.invariants {
                let line = lines.line(id.span().start);
                let entry = invariants
                    .iter_mut()
                    .find(|(inv, _)| inv.id == id.get_ref())
                    .ok_or_else(|| {
                        let known: Vec<&str> = INVARIANTS.iter().map(|i| i.id).collect();
                        invalid(
                            file,
                            line,
                            format!(
                                "unknown invariant {:?} (known: {})",
                                id.get_ref(),
                                known.join(", ")
                            ),
                        )
                    })?;
                entry.1 = severity;
            }
            if !is_builtin {
                sources.push(file.to_owned());
            }
        }
        let Rules { list: rules, by_id } = rules;
        Ok(Policy {
            globs: GlobGroup::new(
                rules
                    .iter()
                    .enumerate()
                    .map(|(index, rule)| {
                        let glob = compile_glob(&rule.path)
                            .expect("globs are validated when rules are merged");
                        (index, glob)
                    })
                    .collect(),
            ),
            any_expectation: rules.iter().any(|r| r.expect.is_some()),
            rules,
            by_id,
            invariants,
            sources,
            warnings,
        })
    }
}

/// The rules as the layers are merged, each id's place kept: finding the rule an override
/// names is a lookup, where a search of every rule before it made loading quadratic.
#[derive(Default)]
struct Rules {
    list: Vec<Rule>,
    by_id: HashMap<String, usize>,
}

impl Rules {
    /// Whether there is a rule `id` yet.
    fn contains(&self, id: &str) -> bool {
        self.by_id.contains_key(id)
    }

    /// The rule `id`, if there is one yet.
    fn get_mut(&mut self, id: &str) -> Option<&mut Rule> {
        self.by_id.get(id).map(|&index| &mut self.list[index])
    }

    /// Adds `spec`, defined at `line` of `file`, or overrides the rule of its id with it.
    fn merge(
        &mut self,
        spec: RuleDocument,
        lines: &LineIndex,
        file: &str,
        line: usize,
        is_builtin: bool,
    ) -> Result<(), PolicyError> {
        let id = spec.id.into_inner();
        let path_line = spec
            .path
            .as_ref()
            .map_or(line, |p| lines.line(p.span().start));
        let path = spec.path.map(Spanned::into_inner);
        if let Some(path) = &path {
            compile_glob(path).map_err(|e| {
                invalid(
                    file,
                    path_line,
                    format!("rule {id:?}: invalid path glob {path:?}: {}", e.kind()),
                )
            })?;
        }
        let origin = if is_builtin {
            BUILTIN_ORIGIN.to_owned()
        } else {
            format!("{file}:{line}")
        };
        if let Some(existing) = self.get_mut(&id) {
            if spec.on_violation.is_some() && spec.expect.is_none() && existing.expect.is_none() {
                return Err(needs_expect(file, line, &id));
            }
            if let Some(path) = path {
                existing.specificity = specificity(&path);
                existing.path = path;
            }
            existing.on_change = spec.on_change.or(existing.on_change);
            existing.expect = spec.expect.or(existing.expect.take());
            existing.on_violation = spec.on_violation.unwrap_or(existing.on_violation);
            existing.why = spec.why.unwrap_or(std::mem::take(&mut existing.why));
            existing.origin = origin;
            return Ok(());
        }
        if spec.on_violation.is_some() && spec.expect.is_none() {
            return Err(needs_expect(file, line, &id));
        }
        let path = path
            .ok_or_else(|| invalid(file, line, format!("rule {id:?}: a new rule needs `path`")))?;
        if spec.on_change.is_none() && spec.expect.is_none() {
            return Err(invalid(
                file,
                line,
                format!("rule {id:?}: give `on_change`, `expect`, or both"),
            ));
        }
        self.by_id.insert(id.clone(), self.list.len());
        self.list.push(Rule {
            id,
            specificity: specificity(&path),
            path,
            on_change: spec.on_change,
            expect: spec.expect,
            on_violation: spec.on_violation.unwrap_or(Severity::Block),
            why: spec.why.unwrap_or_default(),
            origin,
        });
        Ok(())
    }
}

fn needs_expect(file: &str, line: usize, id: &str) -> PolicyError {
    invalid(
        file,
        line,
        format!("rule {id:?}: `on_violation` needs `expect`"),
    )
}

fn syntax_error(error: toml::de::Error, text: &str, file: &str) -> PolicyError {
    let (line, column) = match error.span() {
        Some(span) => {
            let start = span.start.min(text.len());
            let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
            (
                LineIndex::new(text).line(start),
                text[line_start..start].chars().count() + 1,
            )
        }
        None => (1, 1),
    };
    PolicyError::Syntax {
        file: file.to_owned(),
        line,
        column,
        message: error.message().trim().to_owned(),
    }
}

fn invalid(file: &str, line: usize, message: String) -> PolicyError {
    PolicyError::Invalid {
        file: file.to_owned(),
        line,
        message,
    }
}
