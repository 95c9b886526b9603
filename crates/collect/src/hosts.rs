//! Capturing many hosts: the one pipeline of `gate` and `check --all`. At most `concurrency`
//! hosts at once and as many slow ones beside them, the slowest of the last run first (see
//! `slow_lane.rs`) and, of the hosts it does not know, those whose BMC is slow to show its
//! service root before their turn (`root_probes.rs`), each on a task of its own: prepared (baseline,
//! settings: disk and git, on a blocking thread), captured under its deadline, then finished
//! (sealed, written, judged, on a blocking thread), so the loop feeding the tasks never waits
//! on one host. Each request to
//! a BMC is bounded by the host's own [`CaptureOptions`] (requests in flight per BMC). A stop
//! starts no new host; a host whose task panics gets a result saying so; a result the caller
//! cannot take stops the run once the running hosts have ended.

mod root_probes;
mod slow_lane;

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::task::JoinSet;

use super::redfish::RedfishLocation;
use super::redfish::look::{RootLook, look_at_root};
use super::{Cancel, CaptureOptions, Captured, Reporter, SourceKind, SourceSpec};
use driftgate_snapshot::{HostName, Snapshot, SourceRecord, SourceStatus};

/// How long past its own `--host-timeout` a capture may run before it is abandoned: the
/// capture's own deadline ends it first and then deletes its session (at most
/// [`super::redfish::LOGOUT_GRACE`]); this one holds when something below does not.
pub const GRACE: Duration = Duration::from_secs(super::redfish::LOGOUT_GRACE.as_secs() + 1);

/// What to capture of a host: its sources and its settings (credentials, CA, time limits).
#[derive(Debug, Clone)]
pub struct HostCapture {
    /// The host's sources.
    pub sources: Vec<SourceSpec>,
    /// Its capture settings; `host_timeout` is its deadline.
    pub options: CaptureOptions,
}

/// Why a host has no capture.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum CaptureFailure {
    /// The capture did not end within its deadline and a grace: it was abandoned.
    #[error("did not finish within its --host-timeout of {} s", .0.as_secs())]
    TimedOut(Duration),
}

/// The work of a run on each of its hosts, by index: what [`capture_hosts`] runs on the
/// hosts' tasks. `prepare`, `finish` and `panicked` run on blocking threads.
pub trait HostWork: Send + Sync + 'static {
    /// What the host's work hands to its `finish` (its baseline, or why it is not captured).
    type Prepared: Send + 'static;
    /// What the caller gets of each host.
    type Done: Send + 'static;

    /// How many hosts the run has.
    fn hosts(&self) -> usize;
    /// The name of host `index`.
    fn host(&self, index: usize) -> &HostName;
    /// What host `index` is captured with, if it is (`None`: it is not, and `Prepared` says
    /// why), and what its `finish` needs.
    fn prepare(&self, index: usize) -> (Option<HostCapture>, Self::Prepared);
    /// The host's result from its capture (`None`: it was not captured), which took `took`.
    fn finish(
        &self,
        index: usize,
        prepared: Self::Prepared,
        captured: Option<Result<Captured, CaptureFailure>>,
        took: Duration,
    ) -> Self::Done;
    /// The result of a host whose work panicked, saying `why`.
    fn panicked(&self, index: usize, why: String) -> Self::Done;
    /// How long host `index` took in the last run, if that is known: the hosts that took
    /// longest start first, and those that were slow start in the slow lane (`slow_lane.rs`).
    fn last_took(&self, _index: usize) -> Option<Duration> {
        None
    }
    /// What host `index` would be captured with, for a look at its BMC before its turn
    /// (`root_probes.rs`) when the last run says nothing of it; `None`: no look. Its settings only:
    /// the host's baseline is read by `prepare`, when it starts.
    fn look_ahead(&self, _index: usize) -> Option<HostCapture> {
        None
    }
}

/// Why [`capture_hosts`] ended early.
#[derive(Debug, thiserror::Error)]
pub enum HostsError<E> {
    /// The caller refused a result (an output file that cannot be written).
    #[error(transparent)]
    Done(E),
    /// A host's work panicked, and so did the making of its result.
    #[error("host {host}: its result could not be made: {message}")]
    Panicked {
        /// The host.
        host: HostName,
        /// What the panic said.
        message: String,
    },
}

/// Runs `work` on every host, the slowest of the last run first ([`HostWork::last_took`]), at
/// most `concurrency` at once and at most as many more that have run three times as long as
/// the typical host (so that slow BMCs hold up only each other): `started` hears of each host
/// as its task starts, `reporter` of each source, and `done(index, result, took)` gets each
/// host's result as it ends, all on the caller's task. No host starts once `cancel` is
/// fired. When `done` refuses a result, `cancel` is fired (the running captures stop and
/// delete their sessions) and the error is returned once the running hosts have ended. Ends
/// by waiting for sessions whose login answered after their capture gave up, unless stopped:
/// within [`super::redfish::LOGOUT_GRACE`], and never past the latest host's deadline and
/// grace (a deletion still on its way then is left to the BMC: the run does not wait).
pub async fn capture_hosts<W: HostWork, E>(
    work: Arc<W>,
    concurrency: usize,
    cancel: &Cancel,
    reporter: &dyn Reporter,
    mut started: impl FnMut(&HostName),
    mut done: impl FnMut(usize, W::Done, Duration) -> Result<(), E>,
) -> Result<(), HostsError<E>> {
    let (sender, mut events) = tokio::sync::mpsc::unbounded_channel();
    let mut run = Run::new(work, concurrency, Forward(sender));
    loop {
        let now = tokio::time::Instant::now();
        let step_aside = run.lanes.step_aside(now);
        let overdue = run.probes.overdue(now);
        if run.failed.is_none() && !cancel.is_cancelled() {
            run.start_probes(now);
            run.start_hosts(now, &mut started);
        }
        if run.tasks.is_empty() {
            break;
        }
        let wake = [step_aside, overdue].into_iter().flatten().min();
        let joined = tokio::select! {
            // A host runs too long: it steps aside and another starts in its place. Or a look
            // takes too long: its host starts.
            () = tokio::time::sleep_until(wake.unwrap_or(now)), if wake.is_some() => continue,
            Some((index, looked)) = run.probes.next_ended(), if run.probes.looking() => {
                run.probes.ended(index, looked, tokio::time::Instant::now());
                continue;
            }
            Some(event) = events.recv() => {
                match event {
                    Event::Started(host, source) => reporter.source_started(&host, source),
                    Event::Finished(host, source, status, took) => {
                        reporter.source_finished(&host, source, status, took);
                    }
                }
                continue;
            }
            Some(joined) = run.tasks.join_next_with_id() => joined,
        };
        match joined {
            Ok((id, ended)) => run.host_ended(id, ended, cancel, &mut done),
            Err(error) => run.host_panicked(error, cancel),
        }
    }
    if let Some(failed) = run.failed {
        return Err(failed);
    }
    if !cancel.is_cancelled() {
        abandoned_sessions_deleted(run.latest_end).await;
    }
    Ok(())
}

/// Ends once the sessions of logins that answered after their capture gave up are deleted,
/// within the grace a host's own logout has (a login that never answers is not waited for)
/// and never past `latest_end`, when the latest host's deadline and grace are up.
async fn abandoned_sessions_deleted(latest_end: tokio::time::Instant) {
    let deleted = super::redfish::client::abandoned_sessions_deleted();
    let grace = tokio::time::Instant::now() + super::redfish::LOGOUT_GRACE;
    let _ = tokio::time::timeout_at(grace.min(latest_end), deleted).await;
}

/// What [`capture_hosts`] keeps while it runs: the order hosts start in, the lanes and the
/// looks ahead, the hosts' tasks, and why the run ends early, if it does.
struct Run<W: HostWork, E> {
    work: Arc<W>,
    /// How long each host took in the last run, if known.
    last: Vec<Option<Duration>>,
    /// The order to start hosts in, and whether each was slow in the last run.
    order: Vec<(usize, bool)>,
    lanes: slow_lane::Lanes,
    probes: root_probes::RootProbes,
    started_yet: Vec<bool>,
    tasks: JoinSet<Ended<W::Done>>,
    /// When the latest host's deadline and session grace are up.
    latest_end: tokio::time::Instant,
    running: HashMap<tokio::task::Id, usize>,
    /// The hosts whose task panicked, whose result is being made by a task of its own.
    panicked: Vec<usize>,
    /// The place in `order` of the next host to start.
    next: usize,
    failed: Option<HostsError<E>>,
    forward: Forward,
    blocking: Blocking,
}

impl<W: HostWork, E> Run<W, E> {
    /// No host started yet.
    fn new(work: Arc<W>, concurrency: usize, forward: Forward) -> Self {
        let last: Vec<Option<Duration>> = (0..work.hosts()).map(|i| work.last_took(i)).collect();
        let order = slow_lane::plan(&last);
        Run {
            started_yet: vec![false; order.len()],
            work,
            last,
            order,
            lanes: slow_lane::Lanes::new(concurrency),
            probes: root_probes::RootProbes::new(concurrency),
            tasks: JoinSet::new(),
            latest_end: tokio::time::Instant::now(),
            running: HashMap::new(),
            panicked: Vec::new(),
            next: 0,
            failed: None,
            forward,
            blocking: Blocking::new(),
        }
    }

    /// Starts the looks ahead there is room for, at the hosts not started yet that the last
    /// run says nothing of.
    fn start_probes(&mut self, now: tokio::time::Instant) {
        let (started_yet, last) = (&self.started_yet, &self.last);
        let wanted = |index: usize| !started_yet[index] && last[index].is_none();
        while let Some(index) = self.probes.next_to_look(&self.order, self.next, wanted) {
            let look = look(Arc::clone(&self.work), index, &self.blocking);
            self.probes.start(index, look, now);
        }
    }

    /// Starts hosts while their lane has room: a host found slow by its look first, then
    /// the next in order.
    fn start_hosts(&mut self, now: tokio::time::Instant, started: &mut impl FnMut(&HostName)) {
        loop {
            while self.next < self.order.len() && self.started_yet[self.order[self.next].0] {
                self.next += 1;
            }
            // A host found slow by its look starts first; one slow in the last run in its
            // turn. Either starts aside while there is room there.
            let (index, slow, found) = match self.probes.first_slow() {
                Some(index) => (index, true, true),
                None if self.next < self.order.len() => {
                    let (index, slow) = self.order[self.next];
                    (index, slow, false)
                }
                None => break,
            };
            let aside = slow && self.lanes.has_room_aside();
            if !aside && !self.lanes.has_room() {
                break;
            }
            if !found {
                self.next += 1;
            }
            self.started_yet[index] = true;
            started(self.work.host(index));
            let look = self.probes.take(index);
            let task = host_task(
                Arc::clone(&self.work),
                index,
                self.forward.clone(),
                look,
                self.blocking.clone(),
            );
            let id = self.tasks.spawn(task).id();
            self.running.insert(id, index);
            self.lanes.started(id, now, aside);
        }
    }

    /// A host's task ended: its result goes to `done`, unless the run already failed. A
    /// result `done` refuses fails the run and fires `cancel`.
    fn host_ended(
        &mut self,
        id: tokio::task::Id,
        ended: Ended<W::Done>,
        cancel: &Cancel,
        done: &mut impl FnMut(usize, W::Done, Duration) -> Result<(), E>,
    ) {
        let Ended {
            index,
            result,
            took,
            end,
        } = ended;
        self.running.remove(&id);
        self.lanes.ended(id, Some(took));
        self.latest_end = self.latest_end.max(end);
        if self.failed.is_some() {
            return;
        }
        if let Err(error) = done(index, result, took) {
            cancel.cancel();
            self.failed = Some(HostsError::Done(error));
        }
    }

    /// A task that panicked (or was aborted): the host gets a result saying so, made by a
    /// task of its own like any other; the run goes on.
    fn host_panicked(&mut self, error: tokio::task::JoinError, cancel: &Cancel) {
        self.lanes.ended(error.id(), None);
        let Some(index) = self.running.remove(&error.id()) else {
            return;
        };
        let why = panic_text(error);
        if self.panicked.contains(&index) {
            // Even making its result panicked: nothing can be said of the host.
            cancel.cancel();
            self.failed.get_or_insert(HostsError::Panicked {
                host: self.work.host(index).clone(),
                message: why,
            });
            return;
        }
        self.panicked.push(index);
        let (work, blocking) = (Arc::clone(&self.work), self.blocking.clone());
        let task = async move {
            let result = blocking.run(move || work.panicked(index, why)).await;
            let (took, end) = (Duration::ZERO, tokio::time::Instant::now());
            Ended {
                index,
                result,
                took,
                end,
            }
        };
        let id = self.tasks.spawn(task).id();
        self.running.insert(id, index);
        self.lanes.started(id, tokio::time::Instant::now(), false);
    }
}

/// A host task's end: the host, its result, how long it took, and when its deadline and the
/// session grace after it are (or were) up.
struct Ended<T> {
    index: usize,
    result: T,
    took: Duration,
    end: tokio::time::Instant,
}

/// A look at host `index`'s BMC, if it has one (its first live Redfish source).
fn look<W: HostWork>(work: Arc<W>, index: usize, blocking: &Blocking) -> RootLook {
    let read = blocking.spawn(move || work.look_ahead(index));
    RootLook::new(async move {
        // Its settings may read a CA file and an account: off the runtime's workers. A panic there is
        // `prepare`'s to report, when the host starts.
        let capture = read.await.ok()??;
        let location = capture.sources.iter().find_map(|source| match source {
            SourceSpec::Redfish(location @ RedfishLocation::Live { .. }) => Some(location),
            _ => None,
        })?;
        look_at_root(location, &capture.options.redfish).await
    })
}

/// One host's task: prepared, captured under its deadline (its `--host-timeout` and
/// [`GRACE`]) from what its look read, if it had one, finished.
async fn host_task<W: HostWork>(
    work: Arc<W>,
    index: usize,
    reporter: Forward,
    look: Option<RootLook>,
    blocking: Blocking,
) -> Ended<W::Done> {
    let started = Instant::now();
    let mut end = tokio::time::Instant::now();
    let (capture, prepared) = {
        let work = Arc::clone(&work);
        blocking.run(move || work.prepare(index)).await
    };
    let captured = match capture {
        Some(HostCapture {
            sources,
            mut options,
        }) => {
            options.redfish.root = look;
            let host = work.host(index).clone();
            let limit = options.host_timeout();
            end += limit + super::redfish::LOGOUT_GRACE;
            let capture = super::capture_host(host, &sources, &options, &reporter);
            Some(
                tokio::time::timeout(limit + GRACE, capture)
                    .await
                    .map_err(|_| CaptureFailure::TimedOut(limit)),
            )
        }
        None => None,
    };
    let took = started.elapsed();
    let result = blocking
        .run(move || work.finish(index, prepared, captured, took))
        .await;
    Ended {
        index,
        result,
        took,
        end,
    }
}

/// The hosts' own blocking work (settings, baseline, judging, writing: disk, git and CPU), off
/// the runtime's workers and at most two per core at once. More threads would not end that
/// work sooner, and each thread tokio's pool starts keeps memory of its own: 200 hosts ending
/// together started 128 threads, which held a third of the run's peak RSS.
#[derive(Clone)]
struct Blocking(Arc<tokio::sync::Semaphore>);

impl Blocking {
    fn new() -> Self {
        let cores = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
        Self(Arc::new(tokio::sync::Semaphore::new(2 * cores)))
    }

    /// `work` on a blocking thread once a permit is free. The permit goes with the work: a
    /// caller that stops waiting does not free it before the work ends.
    fn spawn<T: Send + 'static>(
        &self,
        work: impl FnOnce() -> T + Send + 'static,
    ) -> impl Future<Output = Result<T, tokio::task::JoinError>> + Send + 'static {
        let permits = Arc::clone(&self.0);
        async move {
            // The semaphore is never closed: the permit is always there.
            let permit = permits.acquire_owned().await;
            tokio::task::spawn_blocking(move || {
                let _permit = permit;
                work()
            })
            .await
        }
    }

    /// [`Self::spawn`], its panic the caller's own: the host gets a result saying so.
    async fn run<T: Send + 'static>(&self, work: impl FnOnce() -> T + Send + 'static) -> T {
        match self.spawn(work).await {
            Ok(value) => value,
            Err(error) => std::panic::resume_unwind(error.into_panic()),
        }
    }
}

/// The snapshot of a host nothing could be read of: one failed source saying why, so that
/// it is judged (and reported) INCOMPLETE like any failed capture.
pub fn unread(host: &HostName, why: &str) -> Snapshot {
    Snapshot {
        host: host.clone(),
        captured_at: jiff::Timestamp::now()
            .round(jiff::Unit::Second)
            .unwrap_or_else(|_| jiff::Timestamp::now()),
        tool: driftgate_snapshot::tool_version(),
        sources: vec![SourceRecord {
            name: driftgate_snapshot::WHOLE_CAPTURE.to_owned(),
            target: host.to_string(),
            status: SourceStatus::Failed,
            error: Some(why.to_owned()),
        }],
        facts: Default::default(),
    }
}

/// What a panic said, or that the task was cancelled.
fn panic_text(error: tokio::task::JoinError) -> String {
    if !error.is_panic() {
        return "its task was cancelled".to_owned();
    }
    payload_text(error.into_panic().as_ref())
}

/// What a panic's payload says.
pub fn payload_text(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "no message".to_owned())
}

/// A source event of a host's task, handed to the caller's reporter on the caller's task
/// (the reporter is borrowed; tasks are `'static`).
enum Event {
    Started(HostName, SourceKind),
    Finished(HostName, SourceKind, SourceStatus, Duration),
}

/// The reporter the hosts' tasks get: it forwards what it is told to the caller's task.
#[derive(Clone)]
struct Forward(tokio::sync::mpsc::UnboundedSender<Event>);

impl Reporter for Forward {
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

#[cfg(test)]
mod tests {
    use std::sync::Mutex;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;

    /// Hosts with no source (captured at once), one of which may panic or hang.
    struct Hosts {
        names: Vec<HostName>,
        options: CaptureOptions,
        /// The host whose `prepare` panics, and whether its `panicked` panics too.
        panics: Option<(usize, bool)>,
        /// Hosts in their task now, and the most at once.
        running: AtomicUsize,
        most: AtomicUsize,
        /// How long each `prepare` and `finish` takes; how many run now, and the most at once.
        linger: Duration,
        blocking: AtomicUsize,
        most_blocking: AtomicUsize,
    }

    impl Hosts {
        /// A blocking call of the host's work, counted while it lasts.
        fn block(&self) {
            let now = self.blocking.fetch_add(1, Ordering::SeqCst) + 1;
            self.most_blocking.fetch_max(now, Ordering::SeqCst);
            std::thread::sleep(self.linger);
            self.blocking.fetch_sub(1, Ordering::SeqCst);
        }
    }

    fn hosts(n: usize, options: &CaptureOptions) -> Hosts {
        Hosts {
            names: (0..n)
                .map(|i| HostName::new(format!("h{i}")).unwrap())
                .collect(),
            options: options.clone(),
            panics: None,
            running: AtomicUsize::new(0),
            most: AtomicUsize::new(0),
            linger: Duration::ZERO,
            blocking: AtomicUsize::new(0),
            most_blocking: AtomicUsize::new(0),
        }
    }

    impl HostWork for Hosts {
        type Prepared = ();
        type Done = Result<String, String>;

        fn hosts(&self) -> usize {
            self.names.len()
        }

        fn host(&self, index: usize) -> &HostName {
            &self.names[index]
        }

        fn prepare(&self, index: usize) -> (Option<HostCapture>, ()) {
            let now = self.running.fetch_add(1, Ordering::SeqCst) + 1;
            self.most.fetch_max(now, Ordering::SeqCst);
            self.block();
            assert!(
                self.panics.is_none_or(|(host, _)| host != index),
                "injected"
            );
            let capture = HostCapture {
                sources: Vec::new(),
                options: self.options.clone(),
            };
            (Some(capture), ())
        }

        fn finish(
            &self,
            _: usize,
            (): (),
            captured: Option<Result<Captured, CaptureFailure>>,
            _: Duration,
        ) -> Self::Done {
            self.block();
            self.running.fetch_sub(1, Ordering::SeqCst);
            let captured = captured.expect("every host is captured");
            Ok(captured.expect("in time").snapshot.host.to_string())
        }

        fn panicked(&self, index: usize, why: String) -> Self::Done {
            self.running.fetch_sub(1, Ordering::SeqCst);
            assert!(self.panics != Some((index, true)), "again");
            Err(why)
        }
    }

    #[tokio::test]
    async fn at_most_concurrency_hosts_run_at_once_and_every_one_is_handed_back() {
        let work = Arc::new(hosts(7, &CaptureOptions::default()));
        let mut seen = Vec::new();
        let mut started = 0;
        capture_hosts(
            Arc::clone(&work),
            2,
            &Cancel::new(),
            &super::super::NoReporter,
            |_| started += 1,
            |i, host, _| {
                seen.push((i, host.unwrap()));
                Ok::<(), ()>(())
            },
        )
        .await
        .unwrap();
        seen.sort();
        assert_eq!((seen.len(), started), (7, 7));
        assert_eq!(seen[3], (3, "h3".to_owned()));
        assert!((1..=2).contains(&work.most.load(Ordering::SeqCst)));
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_hosts_blocking_work_runs_at_most_two_per_core_at_once() {
        let cores = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
        // More hosts in flight than the bound, each one's work long enough to overlap.
        let n = 4 * cores + 4;
        let mut work = hosts(n, &CaptureOptions::default());
        work.linger = Duration::from_millis(20);
        let work = Arc::new(work);
        let mut seen = 0;
        capture_hosts(
            Arc::clone(&work),
            n,
            &Cancel::new(),
            &super::super::NoReporter,
            |_| {},
            |_, host, _| {
                host.unwrap();
                seen += 1;
                Ok::<(), ()>(())
            },
        )
        .await
        .unwrap();
        assert_eq!(seen, n);
        let most = work.most_blocking.load(Ordering::SeqCst);
        assert!(
            (2..=2 * cores).contains(&most),
            "{most} at once on {cores} cores"
        );
    }

    #[tokio::test]
    async fn after_a_cancel_or_a_refused_result_no_new_host_starts() {
        let options = CaptureOptions::default();
        let cancel = options.cancel.clone();
        let mut seen = 0;
        capture_hosts(
            Arc::new(hosts(5, &options)),
            1,
            &cancel,
            &super::super::NoReporter,
            |_| {},
            |_, _, _| {
                seen += 1;
                cancel.cancel();
                Ok::<(), ()>(())
            },
        )
        .await
        .unwrap();
        assert_eq!(seen, 1);
        let mut seen = 0;
        let cancel = Cancel::new();
        let result = capture_hosts(
            Arc::new(hosts(5, &CaptureOptions::default())),
            1,
            &cancel,
            &super::super::NoReporter,
            |_| {},
            |_, _, _| {
                seen += 1;
                Err("disk full")
            },
        )
        .await;
        assert!(matches!(result, Err(HostsError::Done("disk full"))));
        assert_eq!(seen, 1);
        // The running captures were told to stop.
        assert!(cancel.is_cancelled());
    }

    #[tokio::test(flavor = "current_thread")]
    async fn a_panicking_host_gets_a_result_saying_so_and_the_others_go_on() {
        let mut work = hosts(4, &CaptureOptions::default());
        work.panics = Some((2, false));
        let seen = Mutex::new(Vec::new());
        capture_hosts(
            Arc::new(work),
            2,
            &Cancel::new(),
            &super::super::NoReporter,
            |_| {},
            |i, result, _| {
                seen.lock().unwrap().push((i, result));
                Ok::<(), ()>(())
            },
        )
        .await
        .unwrap();
        let mut seen = seen.into_inner().unwrap();
        seen.sort();
        assert_eq!(seen.len(), 4);
        assert_eq!(seen[2], (2, Err("injected".to_owned())));
        assert_eq!(seen[3], (3, Ok("h3".to_owned())));
        let mut work = hosts(3, &CaptureOptions::default());
        work.panics = Some((1, true));
        let cancel = Cancel::new();
        let result = capture_hosts(
            Arc::new(work),
            1,
            &cancel,
            &super::super::NoReporter,
            |_| {},
            |_, _, _| Ok::<(), ()>(()),
        )
        .await;
        assert!(
            matches!(&result, Err(HostsError::Panicked { host, message }) if host.as_str() == "h1" && message == "again"),
            "{result:?}"
        );
        assert!(cancel.is_cancelled());
    }
}
