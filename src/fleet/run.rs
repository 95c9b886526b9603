//! Captures (or reads) the planned hosts concurrently, at most `concurrency` at once, each
//! under a hard deadline. Each host's task does all of its own work — reads its baseline and
//! account, captures, then seals, writes and judges it (disk and judging on blocking threads)
//! — so the loop feeding the tasks never waits on one host; it keeps only the small
//! [`HostRecord`]s, their reports in the run's [`Spool`]: memory stays flat in the number of
//! hosts.

use std::collections::{HashMap, HashSet};
use std::panic::AssertUnwindSafe;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use jiff::Timestamp;
use tokio::task::JoinSet;

use super::cluster::ClusterFacts;
use super::outdir::{self, HOST_SCHEMA_ID, HostRecord, OutDir};
use super::plan::{BaselineAt, Plan, Planned};
use super::spool::Spool;
use super::stale::State;
use super::{FleetError, FleetSettings, HostResult, Reporter};
use crate::collect::{self, Cancel, CaptureOptions, SourceKind};
use crate::compare::{self, JudgeOptions, Policy};
use crate::inventory::{HostOptionsError, Inventory};
use crate::limits::file_names::HOST_JSON;
use crate::snapshot::{
    HostName, Snapshot, SnapshotError, SourceRecord, SourceStatus, VerifiedSnapshot,
};
use crate::store::{BaselineFile, BaselineReadError, Store, StoreError};

/// How long past its own `--host-timeout` a capture may run before it is abandoned: the
/// capture's own deadline ends it first and then deletes its session (at most
/// [`collect::redfish::LOGOUT_GRACE`]); this one holds when something below does not.
pub(super) const GRACE: Duration =
    Duration::from_secs(collect::redfish::LOGOUT_GRACE.as_secs() + 5);

/// The host a test build's task panics on (M4: a panicking task must not end the run).
#[cfg(test)]
pub(super) const PANICKING_HOST: &str = "test-panics";

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
    #[error("did not finish within its --host-timeout of {} s", .0.as_secs())]
    TimedOut(Duration),
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

/// What every host's task works with: owned, shared by the tasks of one run.
struct Shared {
    /// The store, opened once per thread that reads baselines at the same time.
    stores: StorePool,
    head: Option<String>,
    inventory: Arc<Inventory>,
    /// The capture settings with the inventory's account variables withheld (computed once).
    capture: CaptureOptions,
    policy: Policy,
    strict: bool,
    snapshots: Option<PathBuf>,
    out: Option<OutDir>,
    /// Where each finished host's report waits until it is rendered.
    spool: Spool,
}

/// The store's repository, opened at most once per thread reading baselines at the same time
/// (a `Store` is not `Sync`): opening it for every host read its pack index again each time,
/// a cost that grows with the store, once per host.
struct StorePool {
    location: PathBuf,
    idle: Mutex<Vec<Store>>,
}

impl StorePool {
    fn new(location: &Path) -> StorePool {
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

/// What a host's task ends with.
type Done = (usize, Result<HostRecord, FleetError>, Duration);

/// Works on every host of `plan`: the records in the order hosts finished. On an error (an
/// output file that cannot be written) the run's cancel is fired and the running tasks are
/// drained before it is returned, so that no capture is dropped half-way (sessions are
/// deleted).
pub(super) async fn run(
    settings: &FleetSettings,
    plan: &Plan,
    state: &State,
    out: Option<&OutDir>,
    reporter: &dyn Reporter,
) -> Result<Vec<HostRecord>, FleetError> {
    let cancel = &settings.capture.cancel;
    let shared = Arc::new(Shared {
        stores: StorePool::new(settings.store.location()),
        head: plan.head.clone(),
        inventory: Arc::clone(&settings.inventory),
        capture: settings.inventory.withholding_env(&settings.capture),
        policy: settings.policy.clone(),
        strict: settings.strict,
        snapshots: settings.snapshots.clone(),
        out: out.cloned(),
        spool: Spool::new()?,
    });
    let last_good = |planned: &Planned| {
        state
            .hosts
            .get(planned.host.name.as_str())
            .map(|h| h.last_good)
    };
    if let Some(dir) = &settings.snapshots {
        let threads = settings.concurrency.clamp(1, cores());
        let files = Files {
            dir,
            hosts: &plan.hosts,
            last_good: &last_good,
        };
        // Whole cores of judging: the runtime's other tasks (the signal watch) go on without
        // this thread.
        return tokio::task::block_in_place(|| {
            judge_files(&shared, &files, threads, cancel, reporter)
        });
    }
    let concurrency = settings.concurrency.max(1);
    let mut tasks: JoinSet<Done> = JoinSet::new();
    let mut running: HashMap<tokio::task::Id, usize> = HashMap::new();
    let mut panicked: HashSet<usize> = HashSet::new();
    let mut records = Vec::with_capacity(plan.hosts.len());
    let mut next = 0;
    let (sender, mut events) = tokio::sync::mpsc::unbounded_channel();
    let forward = Forward(sender);
    loop {
        while tasks.len() < concurrency && next < plan.hosts.len() && !cancel.is_cancelled() {
            let planned = &plan.hosts[next];
            reporter.host_started(&planned.host.name);
            let task = host_task(
                Arc::clone(&shared),
                next,
                planned.clone(),
                last_good(planned),
                forward.clone(),
            );
            running.insert(tasks.spawn(task).id(), next);
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
            Some(joined) = tasks.join_next_with_id() => joined,
        };
        match joined {
            Ok((id, (index, Ok(record), took))) => {
                running.remove(&id);
                reporter.host_finished(&plan.hosts[index].host.name, record.result.verdict, took);
                records.push(record);
            }
            Ok((_, (_, Err(error), _))) => {
                cancel.cancel();
                while tasks.join_next().await.is_some() {}
                return Err(error);
            }
            Err(error) => {
                // A task that panicked (or was aborted): its host is INCOMPLETE, the run
                // goes on; its record is written by a task of its own like any other.
                let Some(index) = running.remove(&error.id()) else {
                    continue;
                };
                let why = panic_text(error);
                if !panicked.insert(index) {
                    // Even writing its failure panicked: nothing can be said of the host.
                    cancel.cancel();
                    while tasks.join_next().await.is_some() {}
                    return Err(FleetError::HostPanicked {
                        host: plan.hosts[index].host.name.to_string(),
                        message: why,
                    });
                }
                let planned = plan.hosts[index].clone();
                let task = failed_task(
                    Arc::clone(&shared),
                    index,
                    planned,
                    last_good(&plan.hosts[index]),
                    HostFailure::Panicked(why),
                );
                running.insert(tasks.spawn(task).id(), index);
            }
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

/// The `--snapshots` hosts of a run, and where their files are.
struct Files<'a> {
    dir: &'a Path,
    hosts: &'a [Planned],
    /// A host's last good capture, as the state file says.
    last_good: &'a (dyn Fn(&Planned) -> Option<Timestamp> + Sync),
}

/// `--snapshots`: every host is files read and judged and nothing waits on a network, so
/// `threads` threads (at most one per core, this one among them) each take the next host as
/// soon as one is done and tell `reporter` themselves. Going through the runtime for each
/// host, as a capture does, would leave a core idle while a host is handed back and the next
/// one handed out, and spread the hosts' memory over a pool of threads.
/// A host that panics is INCOMPLETE, as in [`run`]; a stop starts no new host; an error ends
/// the run once the hosts being judged are done.
fn judge_files(
    shared: &Shared,
    files: &Files<'_>,
    threads: usize,
    cancel: &Cancel,
    reporter: &dyn Reporter,
) -> Result<Vec<HostRecord>, FleetError> {
    let next = AtomicUsize::new(0);
    let failed: Mutex<Option<FleetError>> = Mutex::new(None);
    // One list, sized once: a record is half a kilobyte, and lists per thread grown by
    // doubling and then joined held up to twice the fleet's records at once.
    let records = Mutex::new(Vec::with_capacity(files.hosts.len()));
    let work = || {
        while !cancel.is_cancelled() {
            let Some(planned) = files.hosts.get(next.fetch_add(1, Ordering::Relaxed)) else {
                break;
            };
            let host = &planned.host.name;
            reporter.host_started(host);
            let started = Instant::now();
            match judge_file(
                shared,
                files.dir,
                planned,
                (files.last_good)(planned),
                started,
            ) {
                Ok(record) => {
                    reporter.host_finished(host, record.result.verdict, started.elapsed());
                    records
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner)
                        .push(record);
                }
                Err(error) => {
                    cancel.cancel();
                    failed
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner)
                        .get_or_insert(error);
                }
            }
        }
    };
    std::thread::scope(|scope| {
        // A thread the system does not give is a core less, not a failed run.
        let helpers: Vec<_> = (1..threads)
            .filter_map(|_| {
                std::thread::Builder::new()
                    .name("driftgate-judge".to_owned())
                    .spawn_scoped(scope, work)
                    .ok()
            })
            .collect();
        work();
        for helper in helpers {
            // `judge_file` catches a host's panic; one past it is the run's own.
            helper
                .join()
                .unwrap_or_else(|p| std::panic::resume_unwind(p));
        }
    });
    if let Some(error) = failed.into_inner().unwrap_or_else(PoisonError::into_inner) {
        return Err(error);
    }
    if cancel.is_cancelled() {
        return Err(FleetError::Interrupted);
    }
    Ok(records.into_inner().unwrap_or_else(PoisonError::into_inner))
}

/// One `--snapshots` host read and judged; a panic makes it INCOMPLETE with what it said,
/// and only a panic in writing that failure too is an error.
fn judge_file(
    shared: &Shared,
    dir: &Path,
    planned: &Planned,
    last_good: Option<Timestamp>,
    started: Instant,
) -> Result<HostRecord, FleetError> {
    let judged = std::panic::catch_unwind(AssertUnwindSafe(|| {
        #[cfg(test)]
        if planned.host.name.as_str() == PANICKING_HOST {
            panic!("injected for a test");
        }
        let (baseline, got) = match prepare(shared, planned) {
            Err(failure) => (None, Err(failure)),
            Ok((baseline, _)) => (baseline, read_snapshot(dir, planned)),
        };
        finish(shared, planned, baseline, got, last_good, started.elapsed())
    }));
    let why = match judged {
        Ok(record) => return record,
        Err(payload) => payload_text(payload.as_ref()),
    };
    let failure = HostFailure::Panicked(why);
    std::panic::catch_unwind(AssertUnwindSafe(|| {
        finish(
            shared,
            planned,
            None,
            Err(failure),
            last_good,
            Duration::ZERO,
        )
    }))
    .unwrap_or_else(|payload| {
        Err(FleetError::HostPanicked {
            host: planned.host.name.to_string(),
            message: payload_text(payload.as_ref()),
        })
    })
}

/// The cores this process may run on.
fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
}

/// What a panic said, or that the task was cancelled.
fn panic_text(error: tokio::task::JoinError) -> String {
    if !error.is_panic() {
        return "its task was cancelled".to_owned();
    }
    payload_text(error.into_panic().as_ref())
}

/// What a panic's payload says.
fn payload_text(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "no message".to_owned())
}

/// One captured host's task: its baseline and capture settings, its capture under its
/// deadline, then sealed, written and judged.
async fn host_task(
    shared: Arc<Shared>,
    index: usize,
    planned: Planned,
    last_good: Option<Timestamp>,
    reporter: Forward,
) -> Done {
    let started = Instant::now();
    #[cfg(test)]
    if planned.host.name.as_str() == PANICKING_HOST {
        panic!("injected for a test");
    }
    let prepared = {
        let (shared, planned) = (Arc::clone(&shared), planned.clone());
        blocking(move || prepare(&shared, &planned)).await
    };
    let (baseline, got) = match prepared {
        Err(failure) => (None, Err(failure)),
        Ok((baseline, options)) => {
            let options = options.expect("a capture has capture settings");
            let got = capture(&planned, &options, shared.out.is_some(), &reporter).await;
            (baseline, got)
        }
    };
    let took = started.elapsed();
    let record = blocking(move || finish(&shared, &planned, baseline, got, last_good, took)).await;
    (index, record, took)
}

/// The task of a host whose own task failed (panicked): its record says why.
async fn failed_task(
    shared: Arc<Shared>,
    index: usize,
    planned: Planned,
    last_good: Option<Timestamp>,
    failure: HostFailure,
) -> Done {
    let record = blocking(move || {
        finish(
            &shared,
            &planned,
            None,
            Err(failure),
            last_good,
            Duration::ZERO,
        )
    })
    .await;
    (index, record, Duration::ZERO)
}

/// Runs `work` on a blocking thread (disk, git, judging), off the runtime's workers.
async fn blocking<T: Send + 'static>(work: impl FnOnce() -> T + Send + 'static) -> T {
    match tokio::task::spawn_blocking(work).await {
        Ok(value) => value,
        // Its panic becomes the host task's own: the run makes the host INCOMPLETE.
        Err(error) => std::panic::resume_unwind(error.into_panic()),
    }
}

/// Captures `planned` under its deadline (its `--host-timeout` and a grace).
async fn capture(
    planned: &Planned,
    options: &CaptureOptions,
    in_out_dir: bool,
    reporter: &Forward,
) -> Result<VerifiedSnapshot, HostFailure> {
    let host = planned.host.name.clone();
    let limit = options.redfish.client.host_timeout;
    let capture = collect::capture_host(host, &planned.host.sources, options, reporter);
    match tokio::time::timeout(limit + GRACE, capture).await {
        Ok(captured) => {
            let origin = origin(&planned.host.name, in_out_dir);
            Ok(VerifiedSnapshot::seal(captured.snapshot, &origin))
        }
        Err(_) => Err(HostFailure::TimedOut(limit)),
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

/// A host's baseline (read now, so that only running hosts hold one) and capture settings
/// (none when its snapshot is read from `--snapshots`).
fn prepare(
    shared: &Shared,
    planned: &Planned,
) -> Result<(Option<VerifiedSnapshot>, Option<CaptureOptions>), HostFailure> {
    let baseline = match (&planned.baseline, &shared.head) {
        (BaselineAt::File(file), Some(head)) => Some(read_baseline(
            &shared.stores,
            head,
            file,
            planned.host.name.as_str(),
        )?),
        (BaselineAt::Problem(problem), _) => {
            return Err(HostFailure::BaselinePlacement(problem.clone()));
        }
        _ => None,
    };
    // Snapshots read from files need no account: an unset variable must not fail them.
    if shared.snapshots.is_some() {
        return Ok((baseline, None));
    }
    let options = shared
        .inventory
        .host_capture_options(&planned.host, &shared.capture)?;
    Ok((baseline, Some(options)))
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

/// The snapshot of `planned` in `--snapshots` `dir`: `DIR/<host>.json`, else
/// `DIR/snapshots/<host>.json` of another run's output directory — there only the file its
/// `hosts/<host>.json` names (an older file of a host that failed in that run is not its
/// snapshot). It must be the host's, and hold every source kind its inventory entry lists.
fn read_snapshot(dir: &Path, planned: &Planned) -> Result<VerifiedSnapshot, HostFailure> {
    let host = &planned.host.name;
    let direct = dir.join(HOST_JSON.of(host.as_str()));
    let file = if direct.exists() {
        direct
    } else if dir.join(outdir::RUN_FILE).exists() {
        let record =
            outdir::read_host(dir, host.as_str()).map_err(|error| HostFailure::NotInRun {
                record: outdir::host_file(dir, host.as_str()).display().to_string(),
                reason: error.to_string(),
            })?;
        match record.result.snapshot_file {
            Some(name) if name == OutDir::snapshot_name(host.as_str()) => dir.join(name),
            Some(name) => {
                return Err(HostFailure::NotInRun {
                    record: outdir::host_file(dir, host.as_str()).display().to_string(),
                    reason: format!("names {name}, not {}", OutDir::snapshot_name(host.as_str())),
                });
            }
            None => {
                return Err(HostFailure::NotInRun {
                    record: outdir::host_file(dir, host.as_str()).display().to_string(),
                    reason: format!(
                        "that run wrote no snapshot of {host} (it was not read completely)"
                    ),
                });
            }
        }
    } else {
        let in_out_dir = dir
            .join(outdir::SNAPSHOTS_DIR)
            .join(HOST_JSON.of(host.as_str()));
        if !in_out_dir.exists() {
            return Err(HostFailure::NoSnapshot {
                host: host.to_string(),
                dir: dir.display().to_string(),
                looked: vec![
                    direct.display().to_string(),
                    in_out_dir.display().to_string(),
                ],
            });
        }
        in_out_dir
    };
    let origin = file.display().to_string();
    let text = read_limited(&file).map_err(|error| HostFailure::SnapshotUnreadable {
        file: origin.clone(),
        error,
    })?;
    let read = VerifiedSnapshot::parse(&text, &origin).map_err(HostFailure::SnapshotInvalid)?;
    if read.snapshot().host != *host {
        return Err(HostFailure::SnapshotOfOtherHost {
            origin,
            found: read.snapshot().host.to_string(),
            host: host.to_string(),
        });
    }
    let mut missing: Vec<&'static str> = Vec::new();
    for spec in &planned.host.sources {
        let kind = spec.kind().as_str();
        if !read.snapshot().sources.iter().any(|s| s.name == kind) && !missing.contains(&kind) {
            missing.push(kind);
        }
    }
    if !missing.is_empty() {
        return Err(HostFailure::MissingSources {
            origin,
            host: host.to_string(),
            missing,
        });
    }
    Ok(read)
}

/// Writes and judges a finished host; returns its record (the snapshot is dropped).
fn finish(
    shared: &Shared,
    planned: &Planned,
    baseline: Option<VerifiedSnapshot>,
    got: Result<VerifiedSnapshot, HostFailure>,
    last_good: Option<Timestamp>,
    took: Duration,
) -> Result<HostRecord, FleetError> {
    let host = &planned.host.name;
    let out = shared.out.as_ref();
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
        strict: shared.strict,
        changes_only: false,
        ..JudgeOptions::default()
    };
    let report = compare::judge(&judged, baseline.as_ref(), &shared.policy, &options);
    if failure.is_none() && !report.incomplete_sources.is_empty() {
        failure = Some(HostFailure::Incomplete(incomplete_sources(&report)));
    }
    let captured_good = complete.then_some(judged.snapshot().captured_at);
    let mut record = HostRecord {
        schema: HOST_SCHEMA_ID.to_owned(),
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
    shared.spool.keep(&mut record.result.report)?;
    Ok(record)
}

/// Each source the report says is not complete, with why: `redfish (https://bmc): partial: …`
/// (a baseline's source is named as the baseline's).
pub(super) fn incomplete_sources(report: &compare::Report) -> String {
    report
        .incomplete_sources
        .iter()
        .map(|s| {
            let of = match s.role {
                compare::Role::Snapshot => "",
                compare::Role::Baseline => "baseline ",
                compare::Role::Pre => "pre ",
            };
            let error = s.error.as_deref().unwrap_or("no reason recorded");
            // The error names the BMC or the command already, most of the time.
            if error.contains(&s.target) {
                format!("{of}{} {}: {error}", s.name, s.status.as_str())
            } else {
                format!(
                    "{of}{} ({}): {}: {error}",
                    s.name,
                    s.target,
                    s.status.as_str()
                )
            }
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

/// A `--snapshots` file larger than this is refused rather than read into memory.
const MAX_SNAPSHOT_BYTES: u64 = 256 * 1024 * 1024;

/// Reads `file` as UTF-8 text, refusing one over [`MAX_SNAPSHOT_BYTES`].
fn read_limited(file: &Path) -> std::io::Result<String> {
    use std::io::Read;
    let opened = std::fs::File::open(file)?;
    // Sized by the file as it is now (it may still grow or shrink), so the text is read in one
    // call, not grown and copied as the reads come in.
    let expected = opened.metadata()?.len().min(MAX_SNAPSHOT_BYTES + 1);
    let mut text = String::with_capacity(usize::try_from(expected).unwrap_or(0) + 1);
    opened
        .take(MAX_SNAPSHOT_BYTES + 1)
        .read_to_string(&mut text)?;
    if text.len() as u64 > MAX_SNAPSHOT_BYTES {
        return Err(std::io::Error::other(format!(
            "larger than {} MiB: not a snapshot",
            MAX_SNAPSHOT_BYTES / 1024 / 1024
        )));
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inventory::Inventory;

    fn inventory(sources: &str) -> Inventory {
        let text = format!("[[host]]\nname = \"h1\"\nfleet = \"f\"\nsources = [{sources}]\n");
        Inventory::parse(&text, Path::new("inventory.toml")).unwrap()
    }

    fn h1_inventory() -> Inventory {
        inventory("\"redfish=https://bmc\"")
    }

    fn planned(sources: &str) -> Planned {
        let host = inventory(sources).hosts.remove(0);
        Planned {
            host,
            baseline: BaselineAt::Missing,
        }
    }

    fn write(file: &Path, snapshot: &Snapshot) {
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, snapshot.to_canonical_json()).unwrap();
    }

    #[test]
    fn a_missing_or_corrupt_snapshot_file_is_named_and_another_runs_out_dir_is_accepted() {
        let dir = tempfile::tempdir().unwrap();
        let h1 = planned("\"redfish=https://bmc\"");
        let host = h1.host.name.clone();
        let missing = read_snapshot(dir.path(), &h1).unwrap_err().to_string();
        assert!(
            missing.contains("h1.json") && missing.contains("snapshots"),
            "{missing}"
        );
        std::fs::write(dir.path().join("h1.json"), "{").unwrap();
        let corrupt = read_snapshot(dir.path(), &h1).unwrap_err().to_string();
        assert!(corrupt.contains("h1.json"), "{corrupt}");
        std::fs::remove_file(dir.path().join("h1.json")).unwrap();
        let mut snapshot = unread(&host, "test");
        snapshot.sources[0].name = "redfish".into();
        write(&dir.path().join("snapshots/h1.json"), &snapshot);
        let read = read_snapshot(dir.path(), &h1).unwrap();
        assert_eq!(read.snapshot().host, host);
    }

    #[test]
    fn a_snapshot_lacking_a_source_kind_of_the_inventory_is_refused_naming_the_kind() {
        let dir = tempfile::tempdir().unwrap();
        let h1 = planned("\"redfish=https://bmc\", \"windows=dir:/x\"");
        let mut snapshot = unread(&h1.host.name, "test");
        snapshot.sources[0].name = "redfish".into();
        write(&dir.path().join("h1.json"), &snapshot);
        let failure = read_snapshot(dir.path(), &h1).unwrap_err();
        assert!(
            matches!(failure, HostFailure::MissingSources { .. }),
            "{failure:?}"
        );
        let text = failure.to_string();
        assert!(
            text.contains("no windows source") && text.contains("h1.json"),
            "{text}"
        );
    }

    #[test]
    fn in_a_finished_out_dir_only_the_snapshot_its_host_record_names_is_read() {
        let dir = tempfile::tempdir().unwrap();
        let h1 = planned("\"redfish=https://bmc\"");
        let mut snapshot = unread(&h1.host.name, "an old night");
        snapshot.sources[0].name = "redfish".into();
        // Last night's snapshot is still there; tonight's run failed the host, wrote no
        // snapshot, but wrote its record and run.json.
        write(&dir.path().join("snapshots/h1.json"), &snapshot);
        std::fs::write(dir.path().join(outdir::RUN_FILE), "{}").unwrap();
        let failure = read_snapshot(dir.path(), &h1).unwrap_err();
        assert!(
            matches!(failure, HostFailure::NotInRun { .. }),
            "{failure:?}"
        );
        let shared = Shared {
            stores: StorePool::new(dir.path()),
            head: None,
            inventory: Arc::new(h1_inventory()),
            capture: CaptureOptions::default(),
            policy: Policy::builtin(),
            strict: false,
            snapshots: None,
            out: Some(OutDir::create(&dir.path().join("tonight")).unwrap()),
            spool: Spool::new().unwrap(),
        };
        let record = finish(
            &shared,
            &h1,
            None,
            Err(HostFailure::TimedOut(Duration::from_secs(2))),
            None,
            Duration::ZERO,
        )
        .unwrap();
        assert_eq!(record.result.snapshot_file, None);
        std::fs::create_dir_all(dir.path().join(outdir::HOSTS_DIR)).unwrap();
        std::fs::copy(
            dir.path().join("tonight/hosts/h1.json"),
            outdir::host_file(dir.path(), "h1"),
        )
        .unwrap();
        let failure = read_snapshot(dir.path(), &h1).unwrap_err().to_string();
        assert!(failure.contains("wrote no snapshot of h1"), "{failure}");
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
            incomplete_sources(&report),
            "capture (h1): failed: did not finish"
        );
    }
}
