//! `check_all` on hosts whose sources fail at once (a `dir:` folder that does not exist):
//! the bound on concurrency, the stop, and that a failed capture is counted, not an error.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use driftgate_collect::CaptureOptions;
use driftgate_collect::hosts::HostWork;
use driftgate_compare::{Policy, Verdict};
use driftgate_inventory::{Inventory, Selection};
use driftgate_report::document::HostResult;
use driftgate_snapshot::HostName;
use driftgate_store::Store;

use super::*;

/// The judgement, with the built-in policy and no baseline, of a snapshot of `host` captured
/// at `captured_at` with no facts: a real report for tests of what a run keeps of its hosts.
pub(crate) fn empty_report(host: &str, captured_at: jiff::Timestamp) -> driftgate_compare::Report {
    let snapshot = driftgate_snapshot::Snapshot {
        host: driftgate_snapshot::HostName::new(host).unwrap(),
        captured_at,
        tool: "test".into(),
        sources: Vec::new(),
        facts: Default::default(),
    };
    let sealed = driftgate_snapshot::VerifiedSnapshot::seal(snapshot, host);
    driftgate_compare::judge(
        &sealed,
        None,
        &driftgate_compare::Policy::builtin(),
        &Default::default(),
    )
}

/// Records how many hosts were in flight at most, and the order they finished in.
#[derive(Default)]
struct Watch {
    running: Mutex<(usize, usize)>,
    started: Mutex<Vec<String>>,
    finished: Mutex<Vec<(String, Verdict)>>,
}

impl driftgate_collect::Reporter for Watch {}

impl Reporter for Watch {
    fn host_started(&self, host: &HostName) {
        self.started.lock().unwrap().push(host.to_string());
        let mut running = self.running.lock().unwrap();
        running.0 += 1;
        running.1 = running.1.max(running.0);
    }

    fn host_finished(&self, host: &HostName, verdict: Verdict, _took: Duration) {
        self.running.lock().unwrap().0 -= 1;
        self.finished
            .lock()
            .unwrap()
            .push((host.to_string(), verdict));
    }
}

fn settings(dir: &std::path::Path, hosts: usize, concurrency: usize) -> FleetSettings {
    let mut text = String::from("[defaults]\nfleet = \"f\"\n");
    for i in 0..hosts {
        text.push_str(&format!(
            "[[host]]\nname = \"h{i:02}\"\nsources = [\"windows=dir:{}\"]\n",
            dir.join("missing").display()
        ));
    }
    FleetSettings {
        store: Store::open_or_init(&dir.join("store")).unwrap(),
        inventory: Arc::new(Inventory::parse(&text, &dir.join("inventory.toml")).unwrap()),
        policy: Policy::builtin(),
        selection: Selection::default(),
        shard: None,
        concurrency,
        strict: false,
        capture: CaptureOptions::default(),
        out_dir: Some(dir.join("out")),
        stale_after: None,
        run_id: None,
        bootstrap: true,
    }
}

/// The host whose work panics in the tests of a panicking host.
const PANICKING_HOST: &str = "test-panics";

/// The run's own work on every host but [`PANICKING_HOST`], whose work panics where a host's
/// work starts (reading its baseline).
struct PanicsOnOne(host::Hosts);

impl HostWork for PanicsOnOne {
    type Prepared = capture::Prepared;
    type Done = Result<outdir::HostRecord, FleetError>;

    fn hosts(&self) -> usize {
        HostWork::hosts(&self.0)
    }

    fn host(&self, index: usize) -> &HostName {
        HostWork::host(&self.0, index)
    }

    fn prepare(
        &self,
        index: usize,
    ) -> (
        Option<driftgate_collect::hosts::HostCapture>,
        Self::Prepared,
    ) {
        if HostWork::host(&self.0, index).as_str() == PANICKING_HOST {
            panic!("injected for a test");
        }
        HostWork::prepare(&self.0, index)
    }

    fn finish(
        &self,
        index: usize,
        prepared: Self::Prepared,
        captured: Option<
            Result<driftgate_collect::Captured, driftgate_collect::hosts::CaptureFailure>,
        >,
        took: Duration,
    ) -> Self::Done {
        HostWork::finish(&self.0, index, prepared, captured, took)
    }

    fn panicked(&self, index: usize, why: String) -> Self::Done {
        HostWork::panicked(&self.0, index, why)
    }

    fn last_took(&self, index: usize) -> Option<Duration> {
        HostWork::last_took(&self.0, index)
    }
}

fn block_on<F: std::future::Future>(future: F) -> F::Output {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(future)
}

#[test]
fn at_most_concurrency_hosts_run_at_once_and_a_failed_capture_is_counted_incomplete() {
    let dir = tempfile::tempdir().unwrap();
    let settings = settings(dir.path(), 9, 2);
    let watch = Watch::default();
    let report = block_on(check_all(&settings, &watch)).unwrap();
    assert!(watch.running.lock().unwrap().1 <= 2);
    assert_eq!(watch.finished.lock().unwrap().len(), 9);
    assert_eq!(report.counts.total, 9);
    assert_eq!(report.counts.incomplete, 9);
    assert_eq!(report.verdict, Verdict::Incomplete);
    let failure = report.hosts[0].failure.as_deref().unwrap();
    assert!(failure.contains("missing"), "{failure}");
    assert!(dir.path().join("out/run.json").is_file());
    // The run directory alone gives the same result.
    let merged = merge(&[dir.path().join("out")], &rejudging(&settings)).unwrap();
    // The same reports, each read back from its run's spool.
    let held = |hosts: &[HostResult]| -> Vec<HostResult> {
        hosts
            .iter()
            .map(|h| HostResult {
                report: h.report.held().unwrap(),
                ..h.clone()
            })
            .collect()
    };
    assert_eq!(held(&merged.hosts), held(&report.hosts));
    assert_eq!(merged.counts, report.counts);
    // Neither holds the hosts' reports in memory: each waits in its run's spool.
    assert!(report.hosts.iter().all(|h| h.report.is_spooled()));
    assert!(merged.hosts.iter().all(|h| h.report.is_spooled()));
}

#[test]
fn after_a_stop_no_host_starts_and_the_run_is_interrupted_without_a_run_file() {
    let dir = tempfile::tempdir().unwrap();
    let settings = settings(dir.path(), 5, 1);
    settings.capture.cancel.cancel();
    let watch = Watch::default();
    let result = block_on(check_all(&settings, &watch));
    assert!(matches!(result, Err(FleetError::Interrupted)), "{result:?}");
    assert!(watch.finished.lock().unwrap().is_empty());
    assert!(!dir.path().join("out/run.json").exists());
}

#[test]
fn a_shard_holds_only_its_hosts_and_a_selection_of_none_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let mut settings = settings(dir.path(), 6, 4);
    settings.out_dir = None;
    let shard: Shard = "2/3".parse().unwrap();
    settings.shard = Some(shard);
    let report = block_on(check_all(&settings, &Watch::default())).unwrap();
    assert!(report.hosts.iter().all(|h| shard.contains(&h.host)));
    assert_eq!(report.shards, ["2/3"]);
    settings.selection.fleet = Some("other".into());
    let error = block_on(check_all(&settings, &Watch::default())).unwrap_err();
    assert!(error.to_string().contains("--fleet other"), "{error}");
}

#[test]
fn a_host_whose_task_panics_is_incomplete_and_the_run_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let mut settings = settings(dir.path(), 3, 2);
    let mut text = String::from("[defaults]\nfleet = \"f\"\n");
    for host in &settings.inventory.hosts {
        text.push_str(&format!(
            "[[host]]\nname = \"{}\"\nsources = [\"windows=dir:{}\"]\n",
            host.name,
            dir.path().join("missing").display()
        ));
    }
    text.push_str(&format!(
        "[[host]]\nname = \"{}\"\nsources = [\"windows=dir:/x\"]\n",
        PANICKING_HOST
    ));
    settings.inventory =
        Arc::new(Inventory::parse(&text, &dir.path().join("inventory.toml")).unwrap());
    let watch = Watch::default();
    let report = block_on(check::capture_all(&settings, &watch, PanicsOnOne)).unwrap();
    assert_eq!(report.counts.total, 4);
    assert_eq!(report.counts.incomplete, 4);
    let panicked = report
        .hosts
        .iter()
        .find(|h| h.host == PANICKING_HOST)
        .unwrap();
    let failure = panicked.failure.as_deref().unwrap();
    assert!(
        failure.starts_with("capture panicked: injected"),
        "{failure}"
    );
    assert!(
        dir.path()
            .join(format!("out/hosts/{}.json", PANICKING_HOST))
            .is_file()
    );
    assert_eq!(watch.finished.lock().unwrap().len(), 4);
}

#[test]
fn snapshot_files_are_judged_a_thread_a_core_a_panic_is_incomplete_and_a_stop_starts_none() {
    let dir = tempfile::tempdir().unwrap();
    let mut settings = settings(dir.path(), 5, 8);
    let mut text = String::from("[defaults]\nfleet = \"f\"\n");
    for host in settings
        .inventory
        .hosts
        .iter()
        .map(|h| h.name.as_str())
        .chain([PANICKING_HOST])
    {
        text.push_str(&format!(
            "[[host]]\nname = \"{host}\"\nsources = [\"windows=dir:/x\"]\n"
        ));
    }
    settings.inventory =
        Arc::new(Inventory::parse(&text, &dir.path().join("inventory.toml")).unwrap());
    let snapshots = dir.path().join("snapshots");
    std::fs::create_dir(&snapshots).unwrap();
    // Each host judged from the folder, but the work of one panics where it starts.
    let judge = |hosts: &host::Hosts, index: usize, started| {
        if hosts.planned[index].host.name.as_str() == PANICKING_HOST {
            panic!("injected for a test");
        }
        snapshots::judged_file(hosts, &snapshots, index, started)
    };
    let watch = Watch::default();
    let report = check::judge_all(&settings, &snapshots, &watch, &judge).unwrap();
    let cores = std::thread::available_parallelism().unwrap().get();
    let most = watch.running.lock().unwrap().1;
    assert!((1..=cores.min(8)).contains(&most), "{most} at once");
    assert_eq!(watch.finished.lock().unwrap().len(), 6);
    assert_eq!(report.counts.incomplete, 6);
    for host in &report.hosts {
        let failure = host.failure.as_deref().unwrap();
        if host.host == PANICKING_HOST {
            assert!(failure.contains("panicked: injected"), "{failure}");
        } else {
            assert!(failure.starts_with("no snapshot of"), "{failure}");
        }
    }
    settings.capture.cancel.cancel();
    let watch = Watch::default();
    let result = check_snapshots(&settings, &snapshots, &watch);
    assert!(matches!(result, Err(FleetError::Interrupted)), "{result:?}");
    assert!(watch.finished.lock().unwrap().is_empty());
}

#[test]
fn the_hosts_that_took_longest_in_the_last_run_in_the_out_dir_start_first() {
    let dir = tempfile::tempdir().unwrap();
    let settings = settings(dir.path(), 4, 1);
    let hosts = dir.path().join("out/hosts");
    std::fs::create_dir_all(&hosts).unwrap();
    // h02 was not in the last run: it may be slow, so it starts first. A record that does
    // not say how long its host took only leaves that host unknown.
    for (host, result) in [
        ("h00", r#"{"host": "h00", "capture_ms": 10}"#),
        ("h01", r#"{"host": "h01", "capture_ms": 41000}"#),
        ("h03", r#"{"host": "h03", "capture_ms": 900}"#),
        ("h02", r#"{"host": "h02"}"#),
    ] {
        let record = format!(r#"{{"schema": "driftgate.fleet-host/v1", "result": {result}}}"#);
        std::fs::write(hosts.join(format!("{host}.json")), record).unwrap();
    }
    let watch = Watch::default();
    block_on(check_all(&settings, &watch)).unwrap();
    assert_eq!(*watch.started.lock().unwrap(), ["h02", "h01", "h03", "h00"]);
    // Tonight's records say how long each took: the next run reads them.
    let record = std::fs::read_to_string(hosts.join("h01.json")).unwrap();
    assert!(record.contains("\"capture_ms\""), "{record}");
}

#[test]
fn a_reused_out_dir_keeps_no_snapshot_or_record_of_an_earlier_run() {
    let dir = tempfile::tempdir().unwrap();
    let settings = settings(dir.path(), 2, 2);
    let out = dir.path().join("out");
    // Files of an earlier run are recognised by their schema; others are someone else's.
    let snapshot = r#"{"schema": "driftgate.snapshot/v1", "host": "h00"}"#;
    let record = r#"{"schema": "driftgate.fleet-host/v1"}"#;
    for (old, text) in [
        ("snapshots/h00.json", snapshot),
        ("hosts/h00.json", record),
        ("hosts/gone.json", record),
        ("snapshots/notes.json", "{}"),
        ("snapshots/.driftgate-1-2-3.tmp", "half"),
    ] {
        std::fs::create_dir_all(out.join(old).parent().unwrap()).unwrap();
        std::fs::write(out.join(old), text).unwrap();
    }
    std::fs::write(out.join("snapshots/README"), "kept").unwrap();
    let report = block_on(check_all(&settings, &Watch::default())).unwrap();
    assert_eq!(report.counts.incomplete, 2);
    // Last night's files are gone (or tonight's), other files are kept.
    for file in ["snapshots/h00.json", "hosts/h00.json"] {
        let text = std::fs::read_to_string(out.join(file)).unwrap();
        assert!(text.contains("h00"), "{file} is tonight's: {text}");
    }
    assert!(!out.join("hosts/gone.json").exists());
    assert!(!out.join("snapshots/.driftgate-1-2-3.tmp").exists());
    assert!(out.join("snapshots/README").is_file());
    assert_eq!(
        std::fs::read_to_string(out.join("snapshots/notes.json")).unwrap(),
        "{}"
    );
}

#[test]
fn a_store_without_baselines_is_refused_unless_the_run_bootstraps() {
    let dir = tempfile::tempdir().unwrap();
    let mut settings = settings(dir.path(), 1, 1);
    settings.bootstrap = false;
    let error = block_on(check_all(&settings, &Watch::default())).unwrap_err();
    assert!(matches!(error, FleetError::NoBaselines { .. }), "{error:?}");
    assert!(error.to_string().contains("--bootstrap"), "{error}");
    assert!(!dir.path().join("out/run.json").exists());
}

#[test]
fn snapshots_read_from_the_out_dir_being_cleared_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let settings = settings(dir.path(), 1, 1);
    std::fs::create_dir_all(dir.path().join("out/snapshots")).unwrap();
    for snapshots in ["out", "out/snapshots"] {
        let snapshots = dir.path().join(snapshots);
        let error = check_snapshots(&settings, &snapshots, &Watch::default()).unwrap_err();
        assert!(
            matches!(error, FleetError::SnapshotsInOutDir { .. }),
            "{error:?}"
        );
    }
}

#[test]
fn run_json_records_the_run_id_the_store_head_and_the_planned_hosts() {
    let dir = tempfile::tempdir().unwrap();
    let mut settings = settings(dir.path(), 4, 2);
    settings.run_id = Some("nightly-1201".into());
    block_on(check_all(&settings, &Watch::default())).unwrap();
    let first = outdir::read_run_identity(&dir.path().join("out")).unwrap();
    assert_eq!(first.run_id.as_deref(), Some("nightly-1201"));
    assert_eq!(first.store_head, None, "the store has no commit");
    // Another shard of the same inventory plans the same hosts; another inventory does not.
    settings.shard = Some("1/2".parse().unwrap());
    block_on(check_all(&settings, &Watch::default())).unwrap();
    let shard = outdir::read_run_identity(&dir.path().join("out")).unwrap();
    assert_eq!(shard.planned_hosts_digest, first.planned_hosts_digest);
    settings.shard = None;
    let other = super::tests::settings(&dir.path().join("other"), 5, 2);
    settings.inventory = other.inventory;
    block_on(check_all(&settings, &Watch::default())).unwrap();
    let changed = outdir::read_run_identity(&dir.path().join("out")).unwrap();
    assert_ne!(changed.planned_hosts_digest, first.planned_hosts_digest);
}

/// How `report merge` checks the results of a run of `settings`.
fn rejudging(settings: &FleetSettings) -> MergeOptions<'_> {
    MergeOptions {
        rejudge: Some(Rejudge {
            store: &settings.store,
            policy_file: None,
        }),
        inventory: Some(&settings.inventory),
    }
}

#[test]
fn merge_refuses_a_host_record_that_contradicts_itself() {
    let dir = tempfile::tempdir().unwrap();
    let settings = settings(dir.path(), 1, 1);
    block_on(check_all(&settings, &Watch::default())).unwrap();
    let file = dir.path().join("out/hosts/h00.json");
    let text = std::fs::read_to_string(&file).unwrap();
    // The host failed (INCOMPLETE); an edit says it passed.
    let edited = text.replacen("\"verdict\": \"incomplete\"", "\"verdict\": \"pass\"", 1);
    assert_ne!(edited, text);
    std::fs::write(&file, edited).unwrap();
    let error = merge(&[dir.path().join("out")], &rejudging(&settings))
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("h00.json") && error.contains("verdict PASS"),
        "{error}"
    );
}
