//! Which rules applied to a host: counted while judging, in the pass over the snapshot's facts
//! that checks expectations, so a report can show each rule that held, not only those that
//! found something.

use super::policy::{Governor, Policy, Rule};
use super::severity::Severity;
use super::verdict::{AppliedRule, RuleKind};
use driftgate_snapshot::FactPath;

/// Facts per rule (by index into [`Policy::rules`]) as the judgement meets them.
pub(super) struct Tally<'p> {
    policy: &'p Policy,
    /// The snapshot's facts come in path order: matching each resumes from its neighbour.
    governor: Governor<'p>,
    /// With a baseline, changes were judged: drift rules apply.
    baseline: bool,
    drift: Vec<usize>,
    expect: Vec<usize>,
}

impl<'p> Tally<'p> {
    /// An empty tally; drift rules count only when there is a `baseline` to compare with.
    pub(super) fn new(policy: &'p Policy, baseline: bool) -> Self {
        let rules = policy.rules().len();
        Tally {
            policy,
            governor: policy.governor(),
            baseline,
            drift: vec![0; rules],
            expect: vec![0; rules],
        }
    }

    /// Counts a fact of the snapshot for the rules that govern it (one match against the
    /// patterns) and returns the expectation it must meet, if any.
    pub(super) fn fact(&mut self, path: &FactPath) -> Option<&'p Rule> {
        // Without a baseline no drift rule counts: only the rules with an expectation are
        // matched (none in the built-in policy), which is what promote's refusal check asks
        // of every fact of every host.
        let expect = if self.baseline {
            let governing = self.governor.governing(path);
            if let Some(index) = governing.change {
                self.drift[index] += 1;
            }
            governing.expect
        } else {
            self.governor.expectation_index(path)
        };
        expect.map(|index| {
            self.expect[index] += 1;
            &self.policy.rules()[index]
        })
    }

    /// Counts a fact only the baseline has, which the rule `id` classified as removed.
    pub(super) fn removed(&mut self, id: &str) {
        if let Some(index) = self.index(id) {
            self.drift[index] += 1;
        }
    }

    /// Counts the missing fact a literal expectation `id` names (its absence was checked).
    pub(super) fn missing(&mut self, id: &str) {
        if let Some(index) = self.index(id) {
            self.expect[index] += 1;
        }
    }

    fn index(&self, id: &str) -> Option<usize> {
        self.policy.rule_index(id)
    }

    /// The rules that applied, sorted by id then kind: drift rules that governed a fact, and,
    /// when expectations and invariants were `checked`, expectations that did and every
    /// invariant that ran over the snapshot's `facts`. Whatever is set to `ignore` is left out.
    pub(super) fn finish(self, checked: bool, facts: usize) -> Vec<AppliedRule> {
        let mut applied = Vec::new();
        for (index, rule) in self.policy.rules().iter().enumerate() {
            let drift = (RuleKind::Drift, rule.on_change, self.drift[index]);
            let expect = (
                RuleKind::Expectation,
                rule.expect.as_ref().map(|_| rule.on_violation),
                if checked { self.expect[index] } else { 0 },
            );
            for (kind, severity, count) in [drift, expect] {
                if let Some(severity) = severity
                    && severity != Severity::Ignore
                    && count > 0
                {
                    applied.push(AppliedRule {
                        id: rule.id.clone(),
                        kind,
                        severity,
                        facts: count,
                    });
                }
            }
        }
        if checked {
            applied.extend(
                self.policy
                    .invariants()
                    .iter()
                    .filter(|(_, severity)| *severity != Severity::Ignore)
                    .map(|(invariant, severity)| AppliedRule {
                        id: invariant.id.to_owned(),
                        kind: RuleKind::Invariant,
                        severity: *severity,
                        facts,
                    }),
            );
        }
        applied.sort_by(|a, b| (&a.id, a.kind).cmp(&(&b.id, b.kind)));
        applied
    }
}
