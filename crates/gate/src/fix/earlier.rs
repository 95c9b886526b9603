//! What the run's earlier applies did to a step found staged: which record sent it, under
//! which ticket, and whether that apply stopped before it was done.

use std::path::PathBuf;

use driftgate_fix::{Action, Step};

use super::record::{ApplyRecord, Outcome};
use crate::GateError;
use crate::run::RunDir;

/// The run's apply records that read as such, oldest first, each with its file.
pub(crate) struct Earlier(Vec<(PathBuf, ApplyRecord)>);

impl Earlier {
    /// Reads them; one that does not read as a record names nothing (`gate post` says so).
    pub(crate) fn read(run: &RunDir) -> Result<Self, GateError> {
        let records = run
            .fix_records()?
            .into_iter()
            .filter_map(|(file, bytes)| Some((file, serde_json::from_slice(&bytes).ok()?)))
            .collect();
        Ok(Earlier(records))
    }

    /// The newest apply that sent `host`'s `step` (a PATCH of the same settings object), in
    /// words: its record, its ticket, and whether it stopped before its answer or its end.
    pub(crate) fn sent_by(&self, host: &str, step: &Step) -> Option<String> {
        let Action::RedfishPatch(patch) = &step.action else {
            return None;
        };
        self.0.iter().rev().find_map(|(file, record)| {
            let sent = record
                .hosts
                .iter()
                .filter(|h| h.host == host)
                .flat_map(|h| &h.steps)
                .find(|s| {
                    (s.outcome == Outcome::Applied || s.unanswered())
                        && matches!(&s.step.action, Action::RedfishPatch(p) if p.settings == patch.settings)
                })?;
            let by = format!("{} (ticket {})", file.display(), record.ticket);
            Some(match (sent.outcome, &record.interrupted, record.finished_at) {
                (Outcome::Sending, _, _) => {
                    format!("{by} was sending it when it stopped: no answer was recorded")
                }
                (Outcome::Failed, _, _) => {
                    format!("{by} sent it and recorded no answer ({})", sent.detail)
                }
                (_, Some(why), _) => format!("{by} sent it before it was stopped by {why}"),
                (_, None, None) => format!("{by} sent it, then stopped before its record was done"),
                (_, None, Some(_)) => format!("{by} sent it"),
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::Earlier;
    use crate::fix::record::{Outcome, sample};

    fn sent_by(outcome: Outcome, status: Option<i64>) -> Option<String> {
        let record = sample::record("CHG-1", outcome, status);
        let step = record.hosts[0].steps[0].step.clone();
        Earlier(vec![(PathBuf::from("fix/apply-1.json"), record)]).sent_by("node1", &step)
    }

    #[test]
    fn a_failed_step_whose_request_got_no_answer_was_sent() {
        let by = sent_by(Outcome::Failed, None).expect("named");
        assert!(
            by.contains("fix/apply-1.json (ticket CHG-1) sent it and recorded no answer"),
            "{by}"
        );
        assert!(
            sent_by(Outcome::Sending, None)
                .expect("named")
                .contains("was sending it when it stopped"),
        );
    }

    #[test]
    fn a_step_refused_or_never_sent_was_not_sent_by_it() {
        assert_eq!(sent_by(Outcome::Failed, Some(400)), None);
        assert_eq!(sent_by(Outcome::NotSent, None), None);
        assert_eq!(sent_by(Outcome::Conflict, None), None);
    }
}
