//! What holds without a baseline: violated `expect` rules, then invariants.

use driftgate_snapshot::FactValue;

use crate::applied;
use crate::policy::{Policy, Rule};
use crate::severity::Severity;
use crate::verdict::{Finding, FindingKind};

/// What holds without a baseline: violated `expect` rules, then invariants. Counts, in
/// `tally`, the facts each rule governs.
pub(crate) fn violations(
    facts: &driftgate_snapshot::Facts,
    policy: &Policy,
    tally: &mut applied::Tally<'_>,
) -> Vec<Finding> {
    let mut findings = Vec::new();
    expectation_findings(facts, policy, tally, &mut findings);
    for (invariant, severity) in policy.invariants() {
        if *severity == Severity::Ignore {
            continue;
        }
        findings.extend(invariant.check(facts).into_iter().map(|v| Finding {
            kind: FindingKind::Invariant,
            id: invariant.id.to_owned(),
            severity: *severity,
            path: v.path,
            old: None,
            new: v.value,
            expected: None,
            message: v.message,
            why: invariant.why.to_owned(),
            pending: false,
            firmware: Vec::new(),
            firmware_unknown: None,
            origin: None,
        }));
    }
    findings
}

fn expectation_findings(
    facts: &driftgate_snapshot::Facts,
    policy: &Policy,
    tally: &mut applied::Tally<'_>,
    findings: &mut Vec<Finding>,
) {
    let mut push =
        |rule: &Rule, path: &driftgate_snapshot::FactPath, actual: Option<&FactValue>| {
            if rule.on_violation == Severity::Ignore {
                return;
            }
            let expected = rule
                .expect
                .clone()
                .expect("expectation rules carry a value");
            let message = match actual {
                Some(actual) => format!("expected {expected}, found {actual}"),
                None => format!("expected {expected}, but the fact is missing"),
            };
            findings.push(Finding {
                kind: FindingKind::Expectation,
                id: rule.id.clone(),
                severity: rule.on_violation,
                path: path.clone(),
                old: None,
                new: actual.cloned(),
                expected: Some(expected),
                message,
                why: rule.why.clone(),
                pending: false,
                firmware: Vec::new(),
                firmware_unknown: None,
                origin: None,
            });
        };
    for (path, value) in facts {
        if let Some(rule) = tally.fact(path)
            && rule.expect.as_ref() != Some(value)
        {
            push(rule, path, Some(value));
        }
    }
    for rule in policy.literal_expectations() {
        let path = driftgate_snapshot::FactPath::new(rule.path.as_str());
        if let Ok(path) = path {
            let governs = policy
                .expectation_for(&path)
                .is_some_and(|best| best.id == rule.id);
            if !facts.contains_key(&path) && governs {
                tally.missing(&rule.id);
                push(rule, &path, None);
            }
        }
    }
}
