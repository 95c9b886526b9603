//! Captures (or reads) the planned hosts concurrently, at most `concurrency` at once, each
//! under a hard deadline, and as each one finishes seals, writes and judges it and keeps only
//! its small [`HostRecord`]: memory stays flat in the number of hosts.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use jiff::Timestamp;
use tokio::task::JoinSet;

use super::cluster::ClusterFacts;
use super::outdir::{HOST_SCHEMA_ID, HostRecord, OutDir};
use super::plan::{BaselineAt, Plan, Planned, read_baseline};
use super::stale::State;
use super::{FleetError, FleetSettings, HostResult, Reporter};
use crate::collect::{self, CaptureOptions, Captured, SourceKind, SourceSpec};
use crate::compare::{self, JudgeOptions};
use crate::snapshot::{HostName, Snapshot, SourceRecord, SourceStatus, VerifiedSnapshot};

/// How long past its own `--host-timeout` a capture may run before it is abandoned: the
/// capture's own deadline ends it first and then deletes its session (at most
/// [`collect::redfish::LOGOUT_GRACE`]); this one holds when something below does not.
pub(super) const GRACE: Duration =
    Duration::from_secs(collect::redfish::LOGOUT_GRACE.as_secs() + 5);

/// What a host's task came back with.
enum Got {
    /// A capture, complete or not.
    Captured(Captured),
    /// The capture did not finish within its deadline (its `--host-timeout`).
    TimedOut(Duration),
    /// A snapshot read from `--snapshots`, or why it could not be.
    Read(Result<VerifiedSnapshot, String>),
}

/// A source event of a capture task, handed to the caller's reporter on the run's own task
/// (the reporter is borrowed; tasks are `'static`).
enum Event {
    Started(HostName, SourceKind),
    Finished(HostName, SourceKind, SourceStatus, Duration),
}

/// The reporter capture tasks get: it forwards what it is told to the run.
#[derive(Clone)]
struct Forward(tokio::sync::mpsc::UnboundedSender<Event>);

impl collect::Reporter for Forward {
    fn source_started(&self, host: &HostName, source: SourceKind) {
        // The run outlives its tasks but for a stop: a lost event then does not matter.
        let _ = self.0.send(Event::Started(host.clone(), source));
    }

    fn source_finished(
        &self,
        host: &HostName,
        source: SourceKind,
        status: SourceStatus,
        took: Duration,
    ) {
        let _ = self
            .0
            .send(Event::Finished(host.clone(), source, status, took));
    }
}

/// Works on every host of `plan`: the records in the order hosts finished.
pub(super) async fn run(
    settings: &FleetSettings,
    plan: &Plan,
    state: &State,
    out: Option<&OutDir>,
    reporter: &dyn Reporter,
) -> Result<Vec<HostRecord>, FleetError> {
    let cancel = &settings.capture.cancel;
    let concurrency = settings.concurrency.max(1);
    let mut tasks = JoinSet::new();
    let mut running: HashMap<usize, Option<VerifiedSnapshot>> = HashMap::new();
    let mut records = Vec::with_capacity(plan.hosts.len());
    let mut next = 0;
    let (sender, mut events) = tokio::sync::mpsc::unbounded_channel();
    let forward = Forward(sender);
    loop {
        while tasks.len() < concurrency && next < plan.hosts.len() && !cancel.is_cancelled() {
            let planned = &plan.hosts[next];
            reporter.host_started(&planned.host.name);
            match prepare(settings, plan, planned) {
                Ok((baseline, options)) => {
                    running.insert(next, baseline);
                    tasks.spawn(work(
                        next,
                        planned.host.name.clone(),
                        planned.host.sources.clone(),
                        options,
                        settings.snapshots.clone(),
                        forward.clone(),
                    ));
                }
                Err(failure) => {
                    let finished = Finished {
                        baseline: None,
                        got: None,
                        failure: Some(failure),
                        took: Duration::ZERO,
                    };
                    match finish(settings, planned, finished, state, out, reporter) {
                        Ok(record) => records.push(record),
                        Err(e) => return Err(drain(cancel, tasks, e).await),
                    }
                }
            }
            next += 1;
        }
        if tasks.is_empty() {
            break;
        }
        let joined = tokio::select! {
            Some(event) = events.recv() => {
                match event {
                    Event::Started(host, source) => reporter.source_started(&host, source),
                    Event::Finished(host, source, status, took) => {
                        reporter.source_finished(&host, source, status, took);
                    }
                }
                continue;
            }
            Some(joined) = tasks.join_next() => joined,
        };
        let (index, got, took) = joined.expect("a host's task does not panic");
        let baseline = running.remove(&index).flatten();
        let finished = Finished {
            baseline,
            got: Some(got),
            failure: None,
            took,
        };
        match finish(settings, &plan.hosts[index], finished, state, out, reporter) {
            Ok(record) => records.push(record),
            Err(e) => return Err(drain(cancel, tasks, e).await),
        }
    }
    if cancel.is_cancelled() {
        return Err(FleetError::Interrupted);
    }
    // Logins that answered after their capture gave up: their sessions are deleted first,
    // within the grace a host's own logout has (a login that never answers is not waited for).
    let deleted = collect::redfish::client::abandoned_sessions_deleted();
    let _ = tokio::time::timeout(collect::redfish::LOGOUT_GRACE, deleted).await;
    Ok(records)
}

/// Stops the running captures and waits for them (each deletes its BMC session, within its
/// grace) before `error` ends the run: dropped, they would abort crawls without a logout.
async fn drain<T: 'static>(
    cancel: &collect::Cancel,
    mut tasks: JoinSet<T>,
    error: FleetError,
) -> FleetError {
    cancel.cancel();
    while tasks.join_next().await.is_some() {}
    error
}

/// A host's baseline (read now, so that only running hosts hold one) and capture settings,
/// or why it cannot be worked on.
fn prepare(
    settings: &FleetSettings,
    plan: &Plan,
    planned: &Planned,
) -> Result<(Option<VerifiedSnapshot>, CaptureOptions), String> {
    let baseline = match (&planned.baseline, &plan.head) {
        (BaselineAt::File(path), Some(head)) => Some(read_baseline(
            &settings.store,
            head,
            path,
            planned.host.name.as_str(),
        )?),
        (BaselineAt::Problem(problem), _) => return Err(problem.clone()),
        _ => None,
    };
    // Snapshots read from files need no account: an unset variable must not fail them.
    if settings.snapshots.is_some() {
        return Ok((baseline, settings.capture.clone()));
    }
    let options = settings
        .inventory
        .capture_options(&planned.host, &settings.capture)
        .map_err(|e| e.to_string())?;
    Ok((baseline, options))
}

/// One host's task: capture it under its deadline, or read its snapshot from `snapshots`.
async fn work(
    index: usize,
    host: HostName,
    sources: Vec<SourceSpec>,
    options: CaptureOptions,
    snapshots: Option<PathBuf>,
    reporter: Forward,
) -> (usize, Got, Duration) {
    let started = Instant::now();
    let got = match snapshots {
        Some(dir) => {
            let read = tokio::task::spawn_blocking(move || read_snapshot(&dir, &host))
                .await
                .expect("reading a snapshot does not panic");
            Got::Read(read)
        }
        None => {
            let limit = options.redfish.client.host_timeout;
            let capture = collect::capture_host(host, &sources, &options, &reporter);
            match tokio::time::timeout(limit + GRACE, capture).await {
                Ok(captured) => Got::Captured(captured),
                Err(_) => Got::TimedOut(limit),
            }
        }
    };
    (index, got, started.elapsed())
}

/// `DIR/<host>.json`, else `DIR/snapshots/<host>.json` (another run's output directory),
/// verified.
fn read_snapshot(dir: &Path, host: &HostName) -> Result<VerifiedSnapshot, String> {
    let candidates = [
        dir.join(format!("{host}.json")),
        dir.join(super::outdir::SNAPSHOTS_DIR)
            .join(format!("{host}.json")),
    ];
    let Some(file) = candidates.iter().find(|f| f.exists()) else {
        return Err(format!(
            "no snapshot of {host} in {}: looked for {} and {}",
            dir.display(),
            candidates[0].display(),
            candidates[1].display()
        ));
    };
    let origin = file.display().to_string();
    let text = std::fs::read_to_string(file).map_err(|e| format!("{origin}: cannot read: {e}"))?;
    VerifiedSnapshot::parse(&text, &origin).map_err(|e| e.to_string())
}

/// What is known of a host when it finished.
struct Finished {
    baseline: Option<VerifiedSnapshot>,
    got: Option<Got>,
    failure: Option<String>,
    took: Duration,
}

/// Seals, writes and judges a finished host; returns its record (the snapshot is dropped).
fn finish(
    settings: &FleetSettings,
    planned: &Planned,
    finished: Finished,
    state: &State,
    out: Option<&OutDir>,
    reporter: &dyn Reporter,
) -> Result<HostRecord, FleetError> {
    let host = &planned.host.name;
    let origin = match out {
        Some(_) => OutDir::snapshot_name(host.as_str()),
        None => format!("capture of {host}"),
    };
    let Finished {
        baseline,
        got,
        mut failure,
        took,
    } = finished;
    let (snapshot, write) = match got {
        Some(Got::Captured(captured)) => (
            Some(VerifiedSnapshot::seal(captured.snapshot, &origin)),
            true,
        ),
        Some(Got::TimedOut(limit)) => {
            failure = Some(format!(
                "did not finish within its --host-timeout of {} s",
                limit.as_secs()
            ));
            (None, false)
        }
        Some(Got::Read(Ok(read))) if read.snapshot().host != *host => {
            failure = Some(format!(
                "{} is a snapshot of host {}, not {host}",
                read.origin(),
                read.snapshot().host
            ));
            (None, false)
        }
        Some(Got::Read(Ok(read))) => (Some(read), true),
        Some(Got::Read(Err(why))) => {
            failure = Some(why);
            (None, false)
        }
        None => (None, false),
    };
    let snapshot_file = match (&snapshot, out, write) {
        (Some(snapshot), Some(out), true) => {
            out.write_snapshot(snapshot)?;
            Some(OutDir::snapshot_name(host.as_str()))
        }
        _ => None,
    };
    let complete = snapshot
        .as_ref()
        .is_some_and(|s| s.snapshot().is_complete());
    if failure.is_none() && !complete {
        failure = snapshot.as_ref().map(|s| incomplete_sources(s.snapshot()));
    }
    let judged = snapshot.unwrap_or_else(|| {
        let why = failure.clone().unwrap_or_default();
        VerifiedSnapshot::seal(unread(host, &why), &origin)
    });
    let options = JudgeOptions {
        strict: settings.strict,
        changes_only: false,
        ..JudgeOptions::default()
    };
    let report = compare::judge(&judged, baseline.as_ref(), &settings.policy, &options);
    let captured_good = complete.then_some(judged.snapshot().captured_at);
    let last_good = captured_good.or_else(|| state.hosts.get(host.as_str()).map(|h| h.last_good));
    let record = HostRecord {
        schema: HOST_SCHEMA_ID.to_owned(),
        cluster_facts: if complete {
            ClusterFacts::extract(judged.snapshot())
        } else {
            ClusterFacts::default()
        },
        complete,
        baseline_captured_at: baseline.as_ref().map(|b| b.snapshot().captured_at),
        last_good,
        captured_good,
        result: HostResult {
            host: host.to_string(),
            fleet: planned.host.fleet.clone(),
            cluster: planned.host.cluster.clone(),
            verdict: report.verdict,
            counts: report.counts,
            failure,
            capture_ms: u64::try_from(took.as_millis()).unwrap_or(u64::MAX),
            snapshot_file,
            report,
        },
    };
    if let Some(out) = out {
        out.write_host(&record)?;
    }
    reporter.host_finished(host, record.result.verdict, took);
    Ok(record)
}

/// Each source that is not complete, with why: `redfish (https://bmc): partial: …`.
fn incomplete_sources(snapshot: &Snapshot) -> String {
    if snapshot.sources.is_empty() {
        return "no source was read".to_owned();
    }
    snapshot
        .sources
        .iter()
        .filter(|s| s.status != SourceStatus::Complete)
        .map(|s| {
            format!(
                "{} ({}): {}: {}",
                s.name,
                s.target,
                s.status.as_str(),
                s.error.as_deref().unwrap_or("no reason recorded")
            )
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// The snapshot of a host nothing could be read of: one failed source saying why, so that
/// it is judged (and reported) INCOMPLETE like any failed capture.
fn unread(host: &HostName, why: &str) -> Snapshot {
    Snapshot {
        host: host.clone(),
        captured_at: Timestamp::now()
            .round(jiff::Unit::Second)
            .unwrap_or_else(|_| Timestamp::now()),
        tool: crate::tool_version(),
        sources: vec![SourceRecord {
            name: "capture".to_owned(),
            target: host.to_string(),
            status: SourceStatus::Failed,
            error: Some(why.to_owned()),
        }],
        facts: Default::default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_or_corrupt_snapshot_file_is_named_and_another_runs_out_dir_is_accepted() {
        let dir = tempfile::tempdir().unwrap();
        let host = HostName::new("h1").unwrap();
        let missing = read_snapshot(dir.path(), &host).unwrap_err();
        assert!(
            missing.contains("h1.json") && missing.contains("snapshots"),
            "{missing}"
        );
        std::fs::write(dir.path().join("h1.json"), "{").unwrap();
        let corrupt = read_snapshot(dir.path(), &host).unwrap_err();
        assert!(corrupt.contains("h1.json"), "{corrupt}");
        std::fs::remove_file(dir.path().join("h1.json")).unwrap();
        std::fs::create_dir(dir.path().join("snapshots")).unwrap();
        let snapshot = unread(&host, "test");
        std::fs::write(
            dir.path().join("snapshots/h1.json"),
            snapshot.to_canonical_json(),
        )
        .unwrap();
        let read = read_snapshot(dir.path(), &host).unwrap();
        assert_eq!(read.snapshot().host, host);
    }

    #[test]
    fn a_host_nothing_was_read_of_is_judged_incomplete_with_the_reason() {
        let host = HostName::new("h1").unwrap();
        let snapshot = VerifiedSnapshot::seal(unread(&host, "did not finish"), "x");
        let report = compare::judge(
            &snapshot,
            None,
            &compare::Policy::builtin(),
            &JudgeOptions::default(),
        );
        assert_eq!(report.verdict, compare::Verdict::Incomplete);
        assert_eq!(
            incomplete_sources(snapshot.snapshot()),
            "capture (h1): failed: did not finish"
        );
    }
}
