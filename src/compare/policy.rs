//! Policy: path-glob rules that classify changes and assert expected values, plus the
//! severity of each invariant.
//!
//! A built-in policy ships in the binary; a user file adds rules and overrides built-in ones
//! by `id` (fields it leaves out keep their built-in values). For a fact path, the most
//! specific matching rule wins: a pattern without wildcards beats any glob, then the pattern
//! with more literal characters, then the one with fewer wildcards, then the one defined last.
//!
//! A value staged for the next reboot sits under a `pending` path segment
//! (`nic/<key>/bmc/pending/<leaf>`, `nic/<key>/bmc/function/<id>/pending/<leaf>`,
//! `bios/pending/<attribute>`). Its change is classified by the rule of the live path, the same
//! path without that segment, so a staged reset of a blocked setting blocks like the reset
//! itself. A rule whose own pattern names `pending` and matches the staged path can only make
//! that stricter, unless its pattern is a literal path (no wildcard): a site that names one
//! staged fact exactly may lower it, a glob over staged values must not turn a staged reset of
//! a blocked setting into a warning.

/// Counts work that grows with the rules ([`work::Work`]'s `$field`), in tests only.
macro_rules! count {
    ($field:ident, $n:expr) => {
        #[cfg(test)]
        work::add(|w| w.$field += $n);
    };
}

mod glob_group;
#[cfg(test)]
mod work;

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;

use globset::{Glob, GlobBuilder};
use schemars::JsonSchema;
use serde::Deserialize;
use toml::Spanned;

use super::invariants::{INVARIANTS, Invariant};
use super::severity::Severity;
use crate::line_index::LineIndex;
use crate::snapshot::{FactPath, FactValue};
use glob_group::{Cursor, GlobGroup, Matches};

const BUILTIN_TEXT: &str = include_str!("default_policy.toml");
const BUILTIN_ORIGIN: &str = "built-in policy";

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

/// One effective rule after merging the built-in policy with a user file.
#[derive(Debug, Clone)]
pub struct Rule {
    /// Rule id, named by every finding it classifies.
    pub id: String,
    /// The glob over fact paths.
    pub path: String,
    /// Severity of a change, when the rule classifies changes.
    pub on_change: Option<Severity>,
    /// Expected value, when the rule asserts one.
    pub expect: Option<FactValue>,
    /// Severity of a violated expectation.
    pub on_violation: Severity,
    /// Why it matters.
    pub why: String,
    /// Where the rule (or its last override) was defined.
    pub origin: String,
    specificity: (bool, usize, isize),
}

impl Rule {
    /// Whether the pattern has no wildcards, i.e. names exactly one fact.
    pub fn is_literal(&self) -> bool {
        self.specificity.0
    }

    /// Whether the pattern itself is about staged values: it names a `pending` segment, so it
    /// judges a staged path instead of the rule of the live path.
    pub fn names_pending(&self) -> bool {
        self.path
            .split('/')
            .any(|segment| segment.contains(PENDING_SEGMENT))
    }
}

/// What a policy says about one changed path.
#[derive(Debug, Clone, Copy)]
pub struct Classification<'a> {
    /// The rule id, or [`UNMATCHED_ID`].
    pub id: &'a str,
    /// The severity.
    pub severity: Severity,
    /// Why it matters.
    pub why: &'a str,
    /// The path stages a value for the next reboot (it has a `pending` segment).
    pub pending: bool,
    /// For a staged path, the most specific rule whose pattern names `pending` and matches it
    /// (even when the live path's stricter rule classifies the change): it, not the cap on
    /// withdrawn staged values, judges a staged value that is gone.
    pub staged_rule: Option<&'a Rule>,
}

/// The path segment under which a value staged for the next reboot sits.
pub const PENDING_SEGMENT: &str = "pending";

/// Rule id reported for a change no rule matches.
pub const UNMATCHED_ID: &str = "unmatched";
/// Severity of a change no rule matches.
const UNMATCHED_SEVERITY: Severity = Severity::Warn;
const UNMATCHED_WHY: &str =
    "No policy rule matches this fact; changes without a rule warn by default.";

/// A compiled policy.
#[derive(Debug, Clone)]
pub struct Policy {
    rules: Vec<Rule>,
    /// Each rule's index in `rules`, by id.
    by_id: HashMap<String, usize>,
    /// Every rule's glob in one automaton: a path is read once whatever the number of rules,
    /// and the rules it matches are filtered by what is asked (a change rule, an expectation).
    globs: GlobGroup,
    /// Whether any rule has an expectation: without one, what only asks for expectations (a
    /// judgement without a baseline, under the built-in policy) matches nothing.
    any_expectation: bool,
    invariants: Vec<(&'static Invariant, Severity)>,
    sources: Vec<String>,
    warnings: Vec<String>,
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

/// Why a policy could not be loaded. Variants name the file and, where known, the line.
#[derive(Debug, thiserror::Error)]
pub enum PolicyError {
    /// Not TOML, an unknown key, or a value of the wrong type (e.g. an unknown severity).
    #[error("{file}:{line}:{column}: {message}")]
    Syntax {
        /// Policy file.
        file: String,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// The parser's message.
        message: String,
    },
    /// A rule or invariant entry that parses but makes no sense.
    #[error("{file}:{line}: {message}")]
    Invalid {
        /// Policy file.
        file: String,
        /// 1-based line.
        line: usize,
        /// What is wrong.
        message: String,
    },
}

impl Policy {
    /// The built-in policy alone.
    pub fn builtin() -> Self {
        Self::layered(&[]).expect("the built-in policy is valid (guarded by a unit test)")
    }

    /// The built-in policy extended and overridden by the TOML `text` of the file `file`.
    pub fn with_file(text: &str, file: &str) -> Result<Self, PolicyError> {
        Self::layered(&[(text, file)])
    }

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
            count!(lines_read, text.len());
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

    /// What the caller should tell the user about the policy files (one line each), such as a
    /// rule id the built-in policy no longer has.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// The effective rules, built-in ones first in their order, then added ones.
    pub fn rules(&self) -> &[Rule] {
        &self.rules
    }

    /// Where the effective policy came from: the built-in policy, then each file layered on it.
    pub fn sources(&self) -> &[String] {
        &self.sources
    }

    /// Every invariant with its effective severity.
    pub fn invariants(&self) -> &[(&'static Invariant, Severity)] {
        &self.invariants
    }

    /// How a change of `path` is classified. A staged path (one with a `pending` segment) is
    /// classified by the rule of its live path; a rule whose pattern names `pending` and
    /// matches it applies when it is at least as strict, or when its pattern is a literal path.
    pub fn classify_change(&self, path: &FactPath) -> Classification<'_> {
        let found = self.change_rule(path.as_str());
        let mut class = self.classification(found.rule.map(|i| &self.rules[i]), found.pending);
        class.staged_rule = found.staged.map(|i| &self.rules[i]);
        class
    }

    /// [`Policy::classify_change`] by index into the rules.
    fn change_rule(&self, path: &str) -> ChangeRule {
        let changes = |r: &Rule| r.on_change.is_some();
        let Some(live) = live_path(path) else {
            return ChangeRule {
                rule: self.best(path, changes),
                staged: None,
                pending: false,
            };
        };
        let staged = self.best(path, |r| changes(r) && r.names_pending());
        let live_rule = self
            .best(&live, changes)
            .or_else(|| self.best(path, |r| changes(r) && !r.names_pending()));
        let live_severity =
            live_rule.map_or(UNMATCHED_SEVERITY, |i| change_severity(&self.rules[i]));
        let rule = match staged {
            Some(i)
                if self.rules[i].is_literal()
                    || change_severity(&self.rules[i]) >= live_severity =>
            {
                Some(i)
            }
            _ => live_rule,
        };
        ChangeRule {
            rule,
            staged,
            pending: true,
        }
    }

    /// The most specific rule `include` takes whose glob matches `path`, on a cursor of its
    /// own: for the few paths asked about one at a time (a change, a literal expectation).
    fn best(&self, path: &str, include: impl Fn(&Rule) -> bool) -> Option<usize> {
        best(&self.rules, self.globs.cursor().matching(path), include)
    }

    /// The index in [`Policy::rules`] of the rule `id`.
    pub(super) fn rule_index(&self, id: &str) -> Option<usize> {
        count!(ids_compared, 1);
        self.by_id.get(id).copied()
    }

    fn classification<'p>(&'p self, rule: Option<&'p Rule>, pending: bool) -> Classification<'p> {
        match rule {
            Some(rule) => Classification {
                id: &rule.id,
                severity: change_severity(rule),
                why: &rule.why,
                pending,
                staged_rule: None,
            },
            None => Classification {
                id: UNMATCHED_ID,
                severity: UNMATCHED_SEVERITY,
                why: UNMATCHED_WHY,
                pending,
                staged_rule: None,
            },
        }
    }

    /// The most specific rule with an `expect` that matches `path`.
    pub fn expectation_for(&self, path: &FactPath) -> Option<&Rule> {
        if !self.any_expectation {
            return None;
        }
        self.best(path.as_str(), |r| r.expect.is_some())
            .map(|i| &self.rules[i])
    }

    /// A [`Governor`] for one pass over a snapshot's facts.
    pub(super) fn governor(&self) -> Governor<'_> {
        Governor {
            policy: self,
            cursor: None,
        }
    }

    /// Rules whose expectation names one exact fact (so its absence is a violation).
    pub fn literal_expectations(&self) -> impl Iterator<Item = &Rule> {
        self.rules
            .iter()
            .filter(|r| r.expect.is_some() && r.is_literal())
    }

    /// `sha256:` + hex SHA-256 of the effective policy's TOML without comments: equal for the
    /// same rules however they were spelled, so a run records which policy judged it.
    pub fn digest(&self) -> String {
        use sha2::{Digest as _, Sha256};
        let mut hasher = Sha256::new();
        for line in self
            .to_toml()
            .lines()
            .filter(|l| !l.trim_start().starts_with('#'))
        {
            hasher.update(line.as_bytes());
            hasher.update(b"\n");
        }
        format!("sha256:{}", hex::encode(hasher.finalize()))
    }

    /// The effective policy as TOML, each rule annotated with where it was defined.
    pub fn to_toml(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "# Effective driftgate policy, from: {}",
            self.sources.join(", ")
        );
        let _ = writeln!(
            out,
            "# Most specific rule wins; changes no rule matches are `warn`."
        );
        let _ = writeln!(
            out,
            "# A staged value (a path with a `pending` segment, applied at the next reboot) is judged by the rule of the live path without that segment; a rule whose path names `pending` can make that stricter, and lower it only when its path has no wildcard."
        );
        for rule in &self.rules {
            let _ = writeln!(out, "\n# from {}", rule.origin);
            let _ = writeln!(out, "[[rule]]");
            let _ = writeln!(out, "id = {}", toml_string(&rule.id));
            let _ = writeln!(out, "path = {}", toml_string(&rule.path));
            if let Some(severity) = rule.on_change {
                let _ = writeln!(out, "on_change = \"{}\"", severity.as_str());
            }
            if let Some(expect) = &rule.expect {
                let _ = writeln!(out, "expect = {}", toml_value(expect));
                let _ = writeln!(out, "on_violation = \"{}\"", rule.on_violation.as_str());
            }
            let _ = writeln!(out, "why = {}", toml_string(&rule.why));
        }
        let _ = writeln!(out, "\n[invariants]");
        for (invariant, severity) in &self.invariants {
            let _ = writeln!(out, "# {}", invariant.summary);
            let _ = writeln!(out, "{} = \"{}\"", invariant.id, severity.as_str());
        }
        out
    }
}

/// The rules that govern one fact path, by index into [`Policy::rules`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Governing {
    /// The rule that classifies its changes.
    pub change: Option<usize>,
    /// The rule whose expectation it must meet.
    pub expect: Option<usize>,
}

/// The rules that govern each fact of one pass over a snapshot's facts, in path order:
/// each path's match resumes from its neighbour's shared prefix ([`glob_group::Cursor`]).
pub(super) struct Governor<'p> {
    policy: &'p Policy,
    /// Made when a path first needs it: a pass that asks nothing of the automaton (only for
    /// expectations, of a policy without any) does not build it.
    cursor: Option<Cursor<'p>>,
}

impl Governor<'_> {
    /// The index (into the rules) of every rule whose glob matches `path`.
    fn matching(&mut self, path: &str) -> Matches<'_> {
        let globs = &self.policy.globs;
        self.cursor
            .get_or_insert_with(|| globs.cursor())
            .matching(path)
    }

    /// [`Governing::expect`] of `path` alone: for a judgement without a baseline, where no
    /// drift rule counts.
    pub(super) fn expectation_index(&mut self, path: &FactPath) -> Option<usize> {
        if !self.policy.any_expectation {
            return None;
        }
        let rules = &self.policy.rules;
        best(rules, self.matching(path.as_str()), |r| r.expect.is_some())
    }

    /// The rules that govern `path`, by index into [`Policy::rules`], from one match against
    /// every rule's pattern: the change rule [`Policy::classify_change`] would pick and the
    /// expectation [`Policy::expectation_for`] would. Judging counts, with it, the facts each
    /// rule applies to in the same pass that checks expectations.
    pub(super) fn governing(&mut self, path: &FactPath) -> Governing {
        let policy = self.policy;
        if is_staged(path.as_str()) {
            // A staged path: its change rule may be the live path's (rare, so the full lookup).
            return Governing {
                change: policy.change_rule(path.as_str()).rule,
                expect: self.expectation_index(path),
            };
        }
        let rank = |index: usize| (policy.rules[index].specificity, index);
        let mut governing = Governing {
            change: None,
            expect: None,
        };
        for index in self.matching(path.as_str()) {
            let rule = &policy.rules[index];
            for (wanted, best) in [
                (rule.on_change.is_some(), &mut governing.change),
                (rule.expect.is_some(), &mut governing.expect),
            ] {
                if wanted && best.is_none_or(|best| rank(index) > rank(best)) {
                    *best = Some(index);
                }
            }
        }
        governing
    }
}

/// The change severity of a rule the change matcher holds.
fn change_severity(rule: &Rule) -> Severity {
    rule.on_change
        .expect("change matcher holds only rules with on_change")
}

/// What [`Policy::change_rule`] found, by index into the rules.
struct ChangeRule {
    /// The rule that classifies the change.
    rule: Option<usize>,
    /// For a staged path, the most specific change rule naming `pending` that matches it.
    staged: Option<usize>,
    /// The path is staged.
    pending: bool,
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
        count!(ids_compared, 1);
        self.by_id.contains_key(id)
    }

    /// The rule `id`, if there is one yet.
    fn get_mut(&mut self, id: &str) -> Option<&mut Rule> {
        count!(ids_compared, 1);
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

/// The most specific of `matches` that `include` takes (the later rule on a tie).
fn best(rules: &[Rule], matches: Matches<'_>, include: impl Fn(&Rule) -> bool) -> Option<usize> {
    matches
        .filter(|&index| include(&rules[index]))
        .max_by_key(|&index| (rules[index].specificity, index))
}

/// Whether `path` has a `pending` segment, without building its live path: asked of every
/// fact judged, and true of few (`memmem`'s search: `str::contains` took 2 % of a fleet check).
fn is_staged(path: &str) -> bool {
    // The searcher is built once, not for every path.
    static PENDING: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
        std::sync::LazyLock::new(|| memchr::memmem::Finder::new(PENDING_SEGMENT));
    PENDING.find(path.as_bytes()).is_some() && path.split('/').any(|s| s == PENDING_SEGMENT)
}

/// The live path of a staged one: `path` without its first `pending` segment, or `None` when
/// it has none.
fn live_path(path: &str) -> Option<String> {
    let segments: Vec<&str> = path.split('/').collect();
    let at = segments.iter().position(|s| *s == PENDING_SEGMENT)?;
    let live: Vec<&str> = segments
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != at)
        .map(|(_, s)| *s)
        .collect();
    Some(live.join("/"))
}

/// A fact path glob: `*` stays within one `/` segment, `**` crosses segments. Shared with
/// allowances, so `--allow` paths mean what rule paths mean.
pub(super) fn compile_glob(pattern: &str) -> Result<Glob, globset::Error> {
    count!(globs_compiled, 1);
    GlobBuilder::new(pattern)
        .literal_separator(true)
        .backslash_escape(true)
        .build()
}

/// (no wildcards, literal characters, −wildcards): larger is more specific.
fn specificity(pattern: &str) -> (bool, usize, isize) {
    let is_meta = |c: char| matches!(c, '*' | '?' | '[' | ']' | '{' | '}' | ',');
    let literal = pattern.chars().filter(|&c| !is_meta(c)).count();
    let wildcards = pattern.chars().filter(|&c| is_meta(c)).count();
    (wildcards == 0, literal, -(wildcards as isize))
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

fn toml_string(s: &str) -> String {
    toml::Value::String(s.to_owned()).to_string()
}

fn toml_value(value: &FactValue) -> String {
    let json = serde_json::to_value(value).expect("fact values always serialize");
    let toml: toml::Value = serde_json::from_value(json).expect("fact values are TOML values");
    toml.to_string()
}

#[cfg(test)]
mod tests;
