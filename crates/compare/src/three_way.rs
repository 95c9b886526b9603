//! The three-way part of a judgement (baseline → pre → post): where each finding of post
//! against the baseline comes from, and what a staged change asks the operator to do.

use std::collections::HashSet;

use super::verdict::{Finding, FindingKind, Origin};
use crate::fact_kind::is_firmware_version;
use crate::policy::Policy;
use crate::verdict::AT_NEXT_REBOOT;
use crate::violations::violations;
use driftgate_snapshot::VerifiedSnapshot;

/// What a staged change at a gate's post step asks for: the reboot, then another post.
pub(super) const RUN_POST_AGAIN: &str = " — run `gate post` again after it";

/// Sets every finding's [`Origin`] against the `pre` snapshot and tells a staged change to
/// run `gate post` again after the reboot. A change is pre-existing when the fact already had
/// its post value at pre (a firmware version too: the update did not change it), expected
/// when it is a firmware version the update changed, else the update's; a
/// violation (expectation, invariant) is pre-existing when the same rule held violated on the
/// same path at pre (only looked for when violations are judged at all: `changes_only` off).
pub(super) fn label(
    findings: &mut [Finding],
    pre: &VerifiedSnapshot,
    policy: &Policy,
    changes_only: bool,
) {
    let pre_facts = &pre.snapshot().facts;
    let pre_violations: Vec<Finding> = if changes_only {
        Vec::new()
    } else {
        // What applied at pre is not what the report is about: that tally is dropped.
        violations(
            pre_facts,
            policy,
            &mut super::applied::Tally::new(policy, false),
        )
    };
    let held_at_pre: HashSet<(&str, &str)> = pre_violations
        .iter()
        .map(|f| (f.id.as_str(), f.path.as_str()))
        .collect();
    for finding in findings.iter_mut() {
        let origin = match finding.kind {
            FindingKind::Changed | FindingKind::Added | FindingKind::Removed => {
                if pre_facts.get(&finding.path) == finding.new.as_ref() {
                    Origin::PreExisting
                } else if is_firmware_version(finding.path.as_str()) {
                    Origin::Expected
                } else {
                    Origin::Update
                }
            }
            FindingKind::Expectation | FindingKind::Invariant => {
                // The same violation with the same value: one the update made worse (a
                // value changed since pre) is the update's.
                if held_at_pre.contains(&(finding.id.as_str(), finding.path.as_str()))
                    && pre_facts.get(&finding.path) == finding.new.as_ref()
                {
                    Origin::PreExisting
                } else {
                    Origin::Update
                }
            }
        };
        finding.origin = Some(origin);
        if finding.pending && finding.message.ends_with(AT_NEXT_REBOOT) {
            finding.message.push_str(RUN_POST_AGAIN);
        }
    }
}

#[cfg(test)]
mod tests;
