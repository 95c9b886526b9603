//! A step's hosts captured through the one capture pipeline
//! ([`driftgate_collect::hosts::capture_hosts`]), each written to the step's folder and judged
//! baseline → pre → snapshot as soon as it is there, so the run directory holds every host
//! that finished even when a later one hangs.

use std::sync::Arc;
use std::time::Duration;

use super::plan::Planned;
use super::run::{self, RunDir, RunId};
use super::{GateError, Progress, Settings, waive};
use driftgate_collect::Captured;
use driftgate_collect::hosts::{self, CaptureFailure, HostCapture, HostWork, HostsError};
use driftgate_compare::{Allowance, Comparison, JudgeOptions, Policy, Verdict};
use driftgate_fs::Folder;
use driftgate_report::document::HostOutcome;
use driftgate_snapshot::{HostName, Snapshot, VerifiedSnapshot};

/// One host of the step as its task needs it (owned: tasks are `'static`).
struct Host {
    name: HostName,
    capture: HostCapture,
    fleet: String,
    cluster: Option<String>,
    baseline: VerifiedSnapshot,
    pre: Option<VerifiedSnapshot>,
    options: JudgeOptions,
    /// Waivers given at its pre: they apply only to drift already there at pre.
    waivers: Vec<Allowance>,
}

/// The step's hosts and what judging each uses.
struct StepHosts {
    hosts: Vec<Host>,
    policy: Policy,
    folder: Arc<Folder>,
    cancel: driftgate_collect::Cancel,
}

/// A host's outcome and sealed snapshot; `None` for a capture the stop cut short.
type Judged = Option<(HostOutcome, VerifiedSnapshot)>;

impl HostWork for StepHosts {
    type Prepared = ();
    type Done = Result<Judged, GateError>;

    fn hosts(&self) -> usize {
        self.hosts.len()
    }

    fn host(&self, index: usize) -> &HostName {
        &self.hosts[index].name
    }

    fn prepare(&self, index: usize) -> (Option<HostCapture>, ()) {
        (Some(self.hosts[index].capture.clone()), ())
    }

    fn finish(
        &self,
        index: usize,
        (): (),
        captured: Option<Result<Captured, CaptureFailure>>,
        took: Duration,
    ) -> Self::Done {
        let host = &self.hosts[index];
        let (snapshot, notes) = match captured {
            Some(Ok(Captured { snapshot, notes })) => (snapshot, notes),
            Some(Err(failure)) => (hosts::unread(&host.name, &failure.to_string()), Vec::new()),
            None => unreachable!("every host of a step is captured"),
        };
        self.judge(index, snapshot, notes, took)
    }

    fn panicked(&self, index: usize, why: String) -> Self::Done {
        let why = format!("capture panicked: {why}");
        let snapshot = hosts::unread(&self.hosts[index].name, &why);
        self.judge(index, snapshot, Vec::new(), Duration::ZERO)
    }
}

impl StepHosts {
    /// Writes host `index`'s snapshot to the step's folder, judges it and writes its outcome.
    fn judge(
        &self,
        index: usize,
        snapshot: Snapshot,
        notes: Vec<String>,
        took: Duration,
    ) -> Result<Judged, GateError> {
        // A capture the stop cut short is not a whole answer: it is not kept.
        if self.cancel.is_cancelled() {
            return Ok(None);
        }
        let host = &self.hosts[index];
        let file = RunDir::snapshot_file(self.folder.path(), &host.name);
        let snapshot = VerifiedSnapshot::seal(snapshot, &file.display().to_string());
        run::write_snapshot(&self.folder, &host.name, &snapshot)?;
        let mut report = driftgate_compare::judge_comparison(
            &Comparison {
                snapshot: &snapshot,
                baseline: Some(&host.baseline),
                pre: host.pre.as_ref(),
            },
            &self.policy,
            &host.options,
        );
        waive::waive_pre_existing(&mut report, &host.waivers);
        let outcome = HostOutcome {
            host: host.name.to_string(),
            fleet: host.fleet.clone(),
            cluster: host.cluster.clone(),
            verdict: report.verdict,
            stories: driftgate_compare::stories(&report, &snapshot.snapshot().facts),
            report,
            snapshot_file: file.display().to_string(),
            capture_ms: u64::try_from(took.as_millis()).unwrap_or(u64::MAX),
            notes,
            fixes: Vec::new(),
        };
        RunDir::write_result(&self.folder, &host.name, &outcome)?;
        Ok(Some((outcome, snapshot)))
    }
}

/// Adds the hosts of `judged` that this step read completely to the store's nightly state
/// (each host's last success, [`driftgate_baseline::state`]) under run `run`, and tells
/// `progress` what the operator must know. Never fails the step: a state not saved is told,
/// and the verdict stands.
pub(super) fn remember_good(
    settings: &Settings,
    run: &RunId,
    judged: &[(HostOutcome, VerifiedSnapshot)],
    progress: &dyn Progress,
) {
    let good: Vec<(String, jiff::Timestamp)> = judged
        .iter()
        .filter(|(o, _)| o.verdict != Verdict::Incomplete && o.report.incomplete_sources.is_empty())
        .map(|(o, snapshot)| (o.host.clone(), snapshot.snapshot().captured_at))
        .collect();
    if good.is_empty() {
        return;
    }
    if let Some(notice) =
        driftgate_baseline::state::record_telling(&settings.store, &good, Some(run.as_str()))
    {
        progress.notice(&notice);
    }
}

/// Captures every planned host into the folder `step` and judges it: (outcome, sealed
/// snapshot) per host, in plan order. A stop (`settings.capture.cancel`) is
/// [`GateError::Interrupted`]; a file that cannot be written stops the step once the running
/// captures have ended.
pub(super) async fn capture_and_judge(
    settings: &Settings,
    planned: &[Planned<'_>],
    step: Arc<Folder>,
    progress: &dyn Progress,
) -> Result<Vec<(HostOutcome, VerifiedSnapshot)>, GateError> {
    let cancel = &settings.capture.cancel;
    let work = Arc::new(StepHosts {
        hosts: planned
            .iter()
            .map(|p| Host {
                name: p.host.name.clone(),
                capture: HostCapture {
                    sources: p.host.sources.clone(),
                    options: p.options.clone(),
                },
                fleet: p.fleet.clone(),
                cluster: p.cluster.clone(),
                baseline: p.baseline.snapshot.clone(),
                pre: p.pre.clone(),
                options: JudgeOptions {
                    strict: p.strict,
                    changes_only: false,
                    without_rule_counts: false,
                    allowances: p.allowances.clone(),
                },
                waivers: p.waivers.clone(),
            })
            .collect(),
        policy: settings.policy.clone(),
        folder: step,
        cancel: cancel.clone(),
    });
    let mut results: Vec<Judged> = planned.iter().map(|_| None).collect();
    progress.planned(work.hosts.len());
    let captured = hosts::capture_hosts(
        Arc::clone(&work),
        settings.concurrency,
        cancel,
        progress,
        |host| progress.started(host),
        |index, judged: Result<Judged, GateError>, took| {
            if let Some((outcome, snapshot)) = judged? {
                progress.finished(&work.hosts[index].name, outcome.verdict, took);
                results[index] = Some((outcome, snapshot));
            }
            Ok(())
        },
    )
    .await;
    match captured {
        Ok(()) => {}
        Err(HostsError::Done(error)) => return Err(error),
        Err(HostsError::Panicked { host, message }) => {
            return Err(GateError::HostPanicked { host, message });
        }
    }
    if cancel.is_cancelled() {
        return Err(GateError::Interrupted);
    }
    Ok(results
        .into_iter()
        .map(|r| r.expect("without a stop every host is judged"))
        .collect())
}
