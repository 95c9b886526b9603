//! Verification is the gate: a post lists the values each applied fix step set, as its own
//! capture shows them — in effect, staged for the next reset (not fixed), or neither.

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
            .filter(|s| s.outcome.in_place())
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
