//! Compare: diff two snapshots, classify each change by policy, check `expect` rules and
//! invariants, and reach a verdict. Never sees sources or files; imports
//! [`crate::snapshot`] and [`crate::model`] only.

mod diff;
mod invariants;
mod policy;
mod verdict;

pub use diff::{Change, changes};
pub use invariants::{INVARIANTS, Invariant, Violation};
pub use policy::{
    Classification, Policy, PolicyDocument, PolicyError, Rule, RuleDocument, Severity, UNMATCHED_ID,
};
pub use verdict::{
    Counts, Finding, FindingKind, IncompleteSource, REPORT_SCHEMA_ID, Report, Role,
    SnapshotSummary, Verdict,
};

use crate::snapshot::{FactValue, SourceStatus, VerifiedSnapshot};

/// What to check besides changes.
#[derive(Debug, Clone, Default)]
pub struct JudgeOptions {
    /// Warnings block.
    pub strict: bool,
    /// Only classify changes against the baseline: no invariants, no `expect` rules
    /// (`driftgate diff`).
    pub changes_only: bool,
}

/// Judges `snapshot` (against `baseline`, when given) under `policy`.
///
/// Linear in the number of facts: one merge pass for the diff, one pass for expectations,
/// and invariants that look facts up by path.
pub fn judge(
    snapshot: &VerifiedSnapshot,
    baseline: Option<&VerifiedSnapshot>,
    policy: &Policy,
    options: &JudgeOptions,
) -> Report {
    let facts = &snapshot.snapshot().facts;
    let mut findings = Vec::new();
    let mut firmware_changes = Vec::new();
    if let Some(baseline) = baseline {
        for change in changes(&baseline.snapshot().facts, facts) {
            let class = policy.classify_change(change.path);
            let finding = change_finding(&change, &class);
            if is_firmware_version(change.path.as_str()) {
                firmware_changes.push(finding.clone());
            }
            if class.severity != Severity::Ignore {
                findings.push(finding);
            }
        }
    }
    if !options.changes_only {
        expectation_findings(facts, policy, &mut findings);
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
            }));
        }
    }
    findings.sort_by(|a, b| {
        b.severity
            .cmp(&a.severity)
            .then_with(|| a.path.cmp(&b.path))
            .then_with(|| a.kind.cmp(&b.kind))
            .then_with(|| a.id.cmp(&b.id))
    });
    let counts = Counts {
        block: findings
            .iter()
            .filter(|f| f.severity == Severity::Block)
            .count(),
        warn: findings
            .iter()
            .filter(|f| f.severity == Severity::Warn)
            .count(),
        info: findings
            .iter()
            .filter(|f| f.severity == Severity::Info)
            .count(),
    };
    let incomplete_sources: Vec<IncompleteSource> =
        [(Role::Snapshot, Some(snapshot)), (Role::Baseline, baseline)]
            .into_iter()
            .filter_map(|(role, s)| Some((role, s?)))
            .flat_map(|(role, s)| {
                s.snapshot()
                    .sources
                    .iter()
                    .filter(|src| src.status != SourceStatus::Complete)
                    .map(move |src| IncompleteSource {
                        role,
                        name: src.name.clone(),
                        target: src.target.clone(),
                        status: src.status,
                        error: src.error.clone(),
                    })
            })
            .collect();
    let verdict = if !incomplete_sources.is_empty() {
        Verdict::Incomplete
    } else if counts.block > 0 || (options.strict && counts.warn > 0) {
        Verdict::Block
    } else if counts.warn > 0 {
        Verdict::Warn
    } else {
        Verdict::Pass
    };
    Report {
        schema: REPORT_SCHEMA_ID.to_owned(),
        tool: crate::tool_version(),
        verdict,
        strict: options.strict,
        snapshot: summary(snapshot),
        baseline: baseline.map(summary),
        incomplete_sources,
        firmware_changes,
        counts,
        findings,
    }
}

/// Firmware inventory facts, and NIC firmware versions the OS reports.
fn is_firmware_version(path: &str) -> bool {
    path.starts_with("firmware/")
        || (path.starts_with("nic/") && path.ends_with("/os/firmware/version"))
}

fn change_finding(change: &Change<'_>, class: &Classification<'_>) -> Finding {
    let (kind, message) = match (change.old, change.new) {
        (Some(old), Some(new)) => (FindingKind::Changed, format!("changed from {old} to {new}")),
        (None, Some(new)) => (FindingKind::Added, format!("new fact, value {new}")),
        (Some(old), None) => (
            FindingKind::Removed,
            format!("no longer reported (was {old})"),
        ),
        (None, None) => unreachable!("a change has at least one side"),
    };
    Finding {
        kind,
        id: class.id.to_owned(),
        severity: class.severity,
        path: change.path.clone(),
        old: change.old.cloned(),
        new: change.new.cloned(),
        expected: None,
        message,
        why: class.why.to_owned(),
    }
}

fn expectation_findings(
    facts: &crate::snapshot::Facts,
    policy: &Policy,
    findings: &mut Vec<Finding>,
) {
    let mut push = |rule: &Rule, path: &crate::snapshot::FactPath, actual: Option<&FactValue>| {
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
        });
    };
    for (path, value) in facts {
        if let Some(rule) = policy.expectation_for(path)
            && rule.expect.as_ref() != Some(value)
        {
            push(rule, path, Some(value));
        }
    }
    for rule in policy.literal_expectations() {
        let path = crate::snapshot::FactPath::new(rule.path.as_str());
        if let Ok(path) = path {
            let governs = policy
                .expectation_for(&path)
                .is_some_and(|best| best.id == rule.id);
            if !facts.contains_key(&path) && governs {
                push(rule, &path, None);
            }
        }
    }
}

fn summary(s: &VerifiedSnapshot) -> SnapshotSummary {
    SnapshotSummary {
        origin: s.origin().to_owned(),
        host: s.snapshot().host.to_string(),
        captured_at: s.snapshot().captured_at.to_string(),
        digest: s.digest().to_owned(),
        facts: s.snapshot().facts.len(),
    }
}

#[cfg(test)]
mod tests;
