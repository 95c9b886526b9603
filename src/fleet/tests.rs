//! `check_all` on hosts whose sources fail at once (a `dir:` folder that does not exist):
//! the bound on concurrency, the stop, and that a failed capture is counted, not an error.

use std::sync::Mutex;
use std::time::Duration;

use super::*;

/// Records how many hosts were in flight at most, and the order they finished in.
#[derive(Default)]
struct Watch {
    running: Mutex<(usize, usize)>,
    finished: Mutex<Vec<(String, Verdict)>>,
}

impl crate::collect::Reporter for Watch {}

impl Reporter for Watch {
    fn host_started(&self, _host: &HostName) {
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
        inventory: Inventory::parse(&text, &dir.join("inventory.toml")).unwrap(),
        policy: Policy::builtin(),
        selection: Selection::default(),
        shard: None,
        concurrency,
        strict: false,
        capture: CaptureOptions::default(),
        out_dir: Some(dir.join("out")),
        snapshots: None,
        stale_after: None,
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
    let merged = merge(&[dir.path().join("out")]).unwrap();
    assert_eq!(merged.hosts, report.hosts);
    assert_eq!(merged.counts, report.counts);
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
