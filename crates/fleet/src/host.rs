//! One host's work in a fleet run, whether captured or read from `--snapshots`: its
//! baseline read from the store (each thread reading with a store handle of its own), then its
//! snapshot written to the output directory, judged, and its record written; the record keeps
//! its report in the run's [`Spool`].

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use jiff::Timestamp;

use super::cluster::ClusterFacts;
use super::outdir::{HOST_SCHEMA_ID, HostRecord, OutDir};
use super::plan::{BaselineAt, Planned};
use crate::error::FleetError;
use driftgate_collect::CaptureOptions;
use driftgate_collect::hosts::{CaptureFailure, unread};
use driftgate_compare::{JudgeOptions, Policy};
use driftgate_inventory::{HostOptionsError, Inventory};
use driftgate_report::document::{HostResult, Spool};
use driftgate_snapshot::{HostName, SnapshotError, VerifiedSnapshot};
use driftgate_store::{BaselineFile, BaselineReadError, Store, StoreError};

/// Why a host could not be read completely: its `failure` text names the file, URI or
/// command.
#[derive(Debug, thiserror::Error)]
pub(super) enum HostFailure {
    /// Its baseline is not where the inventory says (the plan's reason).
    #[error("{0}")]
    BaselinePlacement(String),
    /// Its baseline could not be read from the store, is no valid snapshot or is another
    /// host's.
    #[error("baseline {path} at {commit}: {error}")]
    Baseline {
        /// `baselines/<fleet>/<host>.json`.
        path: String,
        /// The commit.
        commit: String,
        /// Why (boxed: a failure is passed around by value).
        error: Box<BaselineReadError>,
    },
    /// Its inventory entry gives no capture settings (CA file, account).
    #[error(transparent)]
    Options(#[from] HostOptionsError),
    /// The capture did not finish within its deadline.
    #[error(transparent)]
    Capture(#[from] CaptureFailure),
    /// No `--snapshots` file of the host.
    #[error("no snapshot of {host} in {dir}: looked for {}", looked.join(" and "))]
    NoSnapshot {
        /// The host.
        host: String,
        /// The `--snapshots` directory.
        dir: String,
        /// The files looked for.
        looked: Vec<String>,
    },
    /// The `--snapshots` directory is a run's output directory whose record of the host
    /// names no snapshot (its capture failed in that run), or cannot be read.
    #[error("{record}: {reason}")]
    NotInRun {
        /// `DIR/hosts/<host>.json`.
        record: String,
        /// What is wrong.
        reason: String,
    },
    /// A `--snapshots` file cannot be read.
    #[error("{file}: cannot read: {error}")]
    SnapshotUnreadable {
        /// The file.
        file: String,
        /// Why.
        error: std::io::Error,
    },
    /// A `--snapshots` file is no valid snapshot.
    #[error(transparent)]
    SnapshotInvalid(SnapshotError),
    /// A `--snapshots` file is another host's.
    #[error("{origin} is a snapshot of host {found}, not {host}")]
    SnapshotOfOtherHost {
        /// The file.
        origin: String,
        /// Whose it is.
        found: String,
        /// The host.
        host: String,
    },
    /// A `--snapshots` file lacks a source kind the inventory lists for the host.
    #[error("{origin} has no {} source, which the inventory lists for {host}", missing.join(", no "))]
    MissingSources {
        /// The file.
        origin: String,
        /// The host.
        host: String,
        /// The kinds it lacks.
        missing: Vec<&'static str>,
    },
    /// The host's task panicked.
    #[error("capture panicked: {0}")]
    Panicked(String),
    /// Sources of the judgement that are not complete (from its report).
    #[error("{0}")]
    Incomplete(String),
}

impl HostFailure {
    /// The failure, unless it is the run's: a store whose objects are damaged cannot be
    /// trusted for any host's baseline, so the run stops and says so (exit 2), as every
    /// other command reading the store does.
    fn fatal(self) -> Result<HostFailure, FleetError> {
        match self {
            HostFailure::Baseline {
                path,
                commit,
                error,
            } => match *error {
                BaselineReadError::Store(damaged @ StoreError::Damaged { .. }) => {
                    Err(FleetError::Store(damaged))
                }
                error => Ok(HostFailure::Baseline {
                    path,
                    commit,
                    error: Box::new(error),
                }),
            },
            failure => Ok(failure),
        }
    }
}

/// The hosts of a run and what each one's work uses: shared by the threads and tasks of the
/// run, not copied.
pub(super) struct Hosts {
    /// The planned hosts, in inventory order.
    pub planned: Arc<[Planned]>,
    /// How long each took in the last run in `--out-dir`, when it was there.
    pub last_took: Vec<Option<Duration>>,
    /// Each host's last good capture, as the store's state file says.
    pub last_good: Vec<Option<Timestamp>>,
    /// The store, opened once per thread that reads baselines at the same time.
    pub stores: StorePool,
    /// The store's HEAD, where the baselines are read.
    pub head: Option<String>,
    /// The inventory, for each host's capture settings.
    pub inventory: Arc<Inventory>,
    /// The capture settings with the inventory's account variables withheld (computed once).
    pub capture: CaptureOptions,
    /// The effective policy.
    pub policy: Policy,
    /// Warnings block.
    pub strict: bool,
    /// Where snapshots and records are written, if anywhere.
    pub out: Option<OutDir>,
    /// Where each finished host's report waits until it is rendered.
    pub spool: Spool,
}

impl Hosts {
    /// Host `index`'s baseline, read now, so that only hosts being worked on hold one.
    pub(super) fn baseline(&self, index: usize) -> Result<Option<VerifiedSnapshot>, HostFailure> {
        let planned = &self.planned[index];
        match (&planned.baseline, &self.head) {
            (BaselineAt::File(file), Some(head)) => Ok(Some(read_baseline(
                &self.stores,
                head,
                file,
                planned.host.name.as_str(),
            )?)),
            (BaselineAt::Problem(problem), _) => {
                Err(HostFailure::BaselinePlacement(problem.clone()))
            }
            _ => Ok(None),
        }
    }

    /// Host `index`'s capture settings: the run's, with what its inventory entry says instead.
    pub(super) fn capture_options(&self, index: usize) -> Result<CaptureOptions, HostFailure> {
        Ok(self
            .inventory
            .host_capture_options(&self.planned[index].host, &self.capture)?)
    }

    /// The record of host `index` whose work panicked, saying `why`.
    pub(super) fn panicked(&self, index: usize, why: String) -> Result<HostRecord, FleetError> {
        self.finish(index, None, Err(HostFailure::Panicked(why)), Duration::ZERO)
    }

    /// Writes and judges finished host `index` (its snapshot, or why there is none); returns
    /// its record (the snapshot is dropped).
    pub(super) fn finish(
        &self,
        index: usize,
        baseline: Option<VerifiedSnapshot>,
        got: Result<VerifiedSnapshot, HostFailure>,
        took: Duration,
    ) -> Result<HostRecord, FleetError> {
        let planned = &self.planned[index];
        let last_good = self.last_good[index];
        let host = &planned.host.name;
        let out = self.out.as_ref();
        let (snapshot, mut failure) = match got {
            Ok(snapshot) => (Some(snapshot), None),
            Err(failure) => (None, Some(failure.fatal()?)),
        };
        let snapshot_file = match (&snapshot, out) {
            (Some(snapshot), Some(out)) => {
                out.write_snapshot(snapshot)?;
                Some(OutDir::snapshot_name(host.as_str()))
            }
            _ => None,
        };
        let complete = snapshot
            .as_ref()
            .is_some_and(|s| s.snapshot().is_complete());
        let judged = snapshot.unwrap_or_else(|| {
            let why = failure
                .as_ref()
                .map(ToString::to_string)
                .unwrap_or_default();
            VerifiedSnapshot::seal(unread(host, &why), &origin(host, out.is_some()))
        });
        let options = JudgeOptions {
            strict: self.strict,
            changes_only: false,
            ..JudgeOptions::default()
        };
        let report = driftgate_compare::judge(&judged, baseline.as_ref(), &self.policy, &options);
        if failure.is_none() && !report.incomplete_sources.is_empty() {
            failure = Some(HostFailure::Incomplete(incomplete_sources(&report)));
        }
        let captured_good = complete.then_some(judged.snapshot().captured_at);
        let mut record = HostRecord {
            schema: HOST_SCHEMA_ID.into(),
            // Only the nodes of a cluster are compared: a host of none needs no facts extracted.
            cluster_facts: if complete && planned.host.cluster.is_some() {
                ClusterFacts::extract(judged.snapshot())
            } else {
                ClusterFacts::default()
            },
            complete,
            baseline_captured_at: baseline.as_ref().map(|b| b.snapshot().captured_at),
            baseline_unread: baseline.is_none() && planned.baseline != BaselineAt::Missing,
            last_good: captured_good.or(last_good),
            captured_good,
            result: HostResult {
                host: host.to_string(),
                fleet: planned.host.fleet.clone(),
                cluster: planned.host.cluster.clone(),
                verdict: report.verdict,
                counts: report.counts,
                failure: failure.map(|f| f.to_string()),
                capture_ms: u64::try_from(took.as_millis()).unwrap_or(u64::MAX),
                snapshot_file,
                last_success_at: captured_good.or(last_good).map(|t| t.to_string()),
                report: report.into(),
            },
        };
        if let Some(out) = out {
            out.write_host(&record)?;
        }
        self.spool.keep(&mut record.result.report)?;
        Ok(record)
    }
}

/// Each source the report says is not complete, with why: `redfish (https://bmc): partial: …`
/// (a baseline's source is named as the baseline's).
pub(super) fn incomplete_sources(report: &driftgate_compare::Report) -> String {
    report
        .incomplete_sources
        .iter()
        .map(|s| {
            let of = match s.role {
                driftgate_compare::Role::Snapshot => "",
                driftgate_compare::Role::Baseline => "baseline ",
                driftgate_compare::Role::Pre => "pre ",
            };
            let error = s.error.as_deref().unwrap_or("no reason recorded");
            // The reason first, where it happened after: a summary cut to the terminal's width
            // keeps what went wrong. An error names its BMC or command first, most of the time.
            let reason = error
                .strip_prefix(s.target.as_str())
                .and_then(|rest| rest.strip_prefix(": "))
                .unwrap_or(error);
            format!(
                "{reason} ({of}{} {} {})",
                s.name,
                s.target,
                s.status.as_str()
            )
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// The store's repository, opened at most once per thread reading baselines at the same time
/// (a `Store` is not `Sync`): opening it for every host read its pack index again each time,
/// a cost that grows with the store, once per host.
pub(super) struct StorePool {
    location: PathBuf,
    idle: Mutex<Vec<Store>>,
}

impl StorePool {
    pub(super) fn new(location: &Path) -> StorePool {
        StorePool {
            location: location.to_path_buf(),
            idle: Mutex::new(Vec::new()),
        }
    }

    /// Runs `read` with an idle store, opening one when none is idle, and keeps it for the
    /// next read (not after a panic: a store is only put back by a read that returned).
    fn with<T>(&self, read: impl FnOnce(&Store) -> T) -> Result<T, StoreError> {
        let idle = self
            .idle
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .pop();
        let store = match idle {
            Some(store) => store,
            None => Store::discover(&self.location)?,
        };
        let result = read(&store);
        self.idle
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(store);
        Ok(result)
    }
}

/// Reads the baseline `file` listed at `commit`, by its blob id, in one of the `stores`; it
/// must be of `host`.
fn read_baseline(
    stores: &StorePool,
    commit: &str,
    file: &BaselineFile,
    host: &str,
) -> Result<VerifiedSnapshot, HostFailure> {
    stores
        .with(|store| store.read_listed_baseline(commit, file, host))
        .map_err(BaselineReadError::from)
        .and_then(|read| read)
        .map_err(|error| HostFailure::Baseline {
            path: file.path.clone(),
            commit: commit.to_owned(),
            error: Box::new(error),
        })
}

impl Hosts {
    /// How a host's snapshot is named in its report: its file in the output directory, or
    /// the capture.
    pub(super) fn origin(&self, host: &HostName) -> String {
        origin(host, self.out.is_some())
    }
}

/// How a host's snapshot is named in its report: its file in the output directory, or the
/// capture.
fn origin(host: &HostName, in_out_dir: bool) -> String {
    if in_out_dir {
        OutDir::snapshot_name(host.as_str())
    } else {
        format!("capture of {host}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_host_nothing_was_read_of_is_judged_incomplete_with_the_reason() {
        let host = HostName::new("h1").unwrap();
        let snapshot = VerifiedSnapshot::seal(unread(&host, "did not finish"), "x");
        let report = driftgate_compare::judge(
            &snapshot,
            None,
            &driftgate_compare::Policy::builtin(),
            &JudgeOptions::default(),
        );
        assert_eq!(report.verdict, driftgate_compare::Verdict::Incomplete);
        // The reason first, the source and where after.
        assert_eq!(
            incomplete_sources(&report),
            "did not finish (capture h1 failed)"
        );
    }
}
