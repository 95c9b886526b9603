//! The compiled policy and its rules.

use std::collections::HashMap;

use super::glob_group::GlobGroup;
use crate::invariants::Invariant;
use crate::severity::Severity;
use driftgate_snapshot::FactValue;

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
    pub(super) specificity: (bool, usize, isize),
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
pub(super) const PENDING_SEGMENT: &str = "pending";

/// Rule id reported for a change no rule matches.
pub const UNMATCHED_ID: &str = "unmatched";
/// Severity of a change no rule matches.
pub(super) const UNMATCHED_SEVERITY: Severity = Severity::Warn;
pub(super) const UNMATCHED_WHY: &str =
    "No policy rule matches this fact; changes without a rule warn by default.";

/// A compiled policy.
#[derive(Debug, Clone)]
pub struct Policy {
    pub(super) rules: Vec<Rule>,
    /// Each rule's index in `rules`, by id.
    pub(super) by_id: HashMap<String, usize>,
    /// Every rule's glob in one automaton: a path is read once whatever the number of rules,
    /// and the rules it matches are filtered by what is asked (a change rule, an expectation).
    pub(super) globs: GlobGroup,
    /// Whether any rule has an expectation: without one, what only asks for expectations (a
    /// judgement without a baseline, under the built-in policy) matches nothing.
    pub(super) any_expectation: bool,
    pub(super) invariants: Vec<(&'static Invariant, Severity)>,
    pub(super) sources: Vec<String>,
    pub(super) warnings: Vec<String>,
}

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

    /// The index in [`Policy::rules`] of the rule `id`.
    pub(crate) fn rule_index(&self, id: &str) -> Option<usize> {
        self.by_id.get(id).copied()
    }
}

/// (no wildcards, literal characters, −wildcards): larger is more specific.
pub(super) fn specificity(pattern: &str) -> (bool, usize, isize) {
    let is_meta = |c: char| matches!(c, '*' | '?' | '[' | ']' | '{' | '}' | ',');
    let literal = pattern.chars().filter(|&c| !is_meta(c)).count();
    let wildcards = pattern.chars().filter(|&c| is_meta(c)).count();
    (wildcards == 0, literal, -(wildcards as isize))
}
