//! Which rule governs a fact path: the most specific match, a staged path judged by its live
//! path's rule, and one pass over a snapshot's facts matching every rule at once.

use super::compiled::{
    Classification, PENDING_SEGMENT, Policy, Rule, UNMATCHED_ID, UNMATCHED_SEVERITY, UNMATCHED_WHY,
};
use super::glob_group::{Cursor, Matches};
use crate::severity::Severity;
use driftgate_snapshot::FactPath;

impl Policy {
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
    pub(crate) fn governor(&self) -> Governor<'_> {
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
}

/// The rules that govern one fact path, by index into [`Policy::rules`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Governing {
    /// The rule that classifies its changes.
    pub change: Option<usize>,
    /// The rule whose expectation it must meet.
    pub expect: Option<usize>,
}

/// The rules that govern each fact of one pass over a snapshot's facts, in path order:
/// each path's match resumes from its neighbour's shared prefix ([`glob_group::Cursor`]).
pub(crate) struct Governor<'p> {
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
    pub(crate) fn expectation_index(&mut self, path: &FactPath) -> Option<usize> {
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
    pub(crate) fn governing(&mut self, path: &FactPath) -> Governing {
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

/// The most specific of `matches` that `include` takes (the later rule on a tie).
fn best(rules: &[Rule], matches: Matches<'_>, include: impl Fn(&Rule) -> bool) -> Option<usize> {
    matches
        .filter(|&index| include(&rules[index]))
        .max_by_key(|&index| (rules[index].specificity, index))
}

/// Whether `path` has a `pending` segment.
fn is_staged(path: &str) -> bool {
    path.split('/').any(|s| s == PENDING_SEGMENT)
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
