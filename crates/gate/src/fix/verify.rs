//! Verification is the gate: a post lists the values each applied fix step set, as its own
//! capture shows them — in effect, staged for the next reset (not fixed), or neither. A step
//! sent with no answer recorded (the apply stopped, or the answer was lost) is listed too,
//! saying so: the BMC may have taken it.

use driftgate_report::document::{FixCheck, FixState};
use driftgate_snapshot::{Facts, HostName};

use super::record::ApplyRecord;

/// The checks of `host`'s applied steps in `records` against `facts` (its post's).
pub fn checks(records: &[ApplyRecord], host: &HostName, facts: &Facts) -> Vec<FixCheck> {
    let mut checks = Vec::new();
    // The newest apply of a value says what was last done to it.
    for record in records.iter().rev() {
        for step in record
            .hosts
            .iter()
            .filter(|h| h.host == host.as_str())
            .flat_map(|h| &h.steps)
            .filter(|s| s.outcome.in_place() || s.unanswered())
        {
            for change in &step.step.changes {
                let state = if facts.get(change.fact.as_str()) == Some(&change.to) {
                    FixState::TookEffect
                } else if change
                    .pending_fact
                    .as_ref()
                    .is_some_and(|p| facts.get(p.as_str()) == Some(&change.to))
                {
                    FixState::Pending
                } else {
                    FixState::NotInEffect
                };
                let check = FixCheck {
                    ticket: record.ticket.clone(),
                    step: step.step.id.clone(),
                    summary: step.step.summary.clone(),
                    fact: change.fact.to_string(),
                    planned: change.to.to_string(),
                    state,
                    unanswered: step.unanswered(),
                };
                // A later apply of the same step says the same: one line per value.
                if !checks
                    .iter()
                    .any(|c: &FixCheck| c.fact == check.fact && c.step == check.step)
                {
                    checks.push(check);
                }
            }
        }
    }
    checks
}

#[cfg(test)]
mod tests {
    use driftgate_report::document::FixState;
    use driftgate_snapshot::{Facts, HostName};

    use super::checks;
    use crate::fix::record::{Outcome, sample};

    fn facts(mode: &str) -> Facts {
        serde_json::from_value(serde_json::json!({ "bmc/bios/Mode": mode })).expect("facts")
    }

    #[test]
    fn a_step_sent_without_a_recorded_answer_is_checked_and_says_so() {
        let host = HostName::new("node1").expect("a name");
        for (outcome, status) in [(Outcome::Sending, None), (Outcome::Failed, None)] {
            let records = [sample::record("CHG-1", outcome, status)];
            let found = checks(&records, &host, &facts("Uefi"));
            assert_eq!(found.len(), 1, "{outcome:?}");
            assert!(found[0].unanswered, "{outcome:?}");
            assert_eq!(found[0].state, FixState::TookEffect, "{outcome:?}");
            let found = checks(&records, &host, &facts("Legacy"));
            assert_eq!(found[0].state, FixState::NotInEffect, "{outcome:?}");
        }
    }

    #[test]
    fn a_step_refused_or_never_sent_is_not_checked_and_an_applied_one_is_answered() {
        let host = HostName::new("node1").expect("a name");
        for (outcome, status) in [(Outcome::Failed, Some(400)), (Outcome::NotSent, None)] {
            let records = [sample::record("CHG-1", outcome, status)];
            assert!(
                checks(&records, &host, &facts("Uefi")).is_empty(),
                "{outcome:?}"
            );
        }
        let records = [sample::record("CHG-1", Outcome::Applied, Some(202))];
        let found = checks(&records, &host, &facts("Uefi"));
        assert!(!found[0].unanswered);
    }
}
