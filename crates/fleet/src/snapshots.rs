//! `check --all --snapshots DIR`: the hosts' snapshots are files read and judged, nothing
//! waits on a network, so this is plain threads on the caller's thread, no runtime.

use std::panic::AssertUnwindSafe;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use super::host::{HostFailure, Hosts};
use super::outdir::{self, HostRecord, OutDir};
use super::plan::Planned;
use crate::error::FleetError;
use crate::reporter::Reporter;
use driftgate_collect::Cancel;
use driftgate_collect::hosts::payload_text;
use driftgate_snapshot::VerifiedSnapshot;
use driftgate_snapshot::file_names::HOST_JSON;

/// `--snapshots`: every host is files read and judged and nothing waits on a network, so
/// `threads` threads (at most one per core, this one among them) each take the next host as
/// soon as one is done and tell `reporter` themselves. Going through the runtime for each
/// host, as a capture does, would leave a core idle while a host is handed back and the next
/// one handed out, and spread the hosts' memory over a pool of threads.
/// A host that panics is INCOMPLETE, as a captured one; a stop starts no new host; an error ends
/// the run once the hosts being judged are done.
pub(super) fn judge_files(
    hosts: &Hosts,
    judge: &Judge<'_>,
    threads: usize,
    cancel: &Cancel,
    reporter: &dyn Reporter,
) -> Result<Vec<HostRecord>, FleetError> {
    let next = AtomicUsize::new(0);
    let failed: Mutex<Option<FleetError>> = Mutex::new(None);
    // One list, sized once: a record is half a kilobyte, and lists per thread grown by
    // doubling and then joined held up to twice the fleet's records at once.
    let records = Mutex::new(Vec::with_capacity(hosts.planned.len()));
    let work = || {
        while !cancel.is_cancelled() {
            let index = next.fetch_add(1, Ordering::Relaxed);
            let Some(planned) = hosts.planned.get(index) else {
                break;
            };
            let host = &planned.host.name;
            reporter.host_started(host);
            let started = Instant::now();
            match judge_file(hosts, judge, index, started) {
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

/// What judges host `index` of a run (started at the instant given): [`judged_file`] over a
/// `--snapshots` folder.
pub(super) type Judge<'a> =
    dyn Fn(&Hosts, usize, Instant) -> Result<HostRecord, FleetError> + Sync + 'a;

/// Host `index` read from `--snapshots` `dir` and judged against its baseline.
pub(super) fn judged_file(
    hosts: &Hosts,
    dir: &Path,
    index: usize,
    started: Instant,
) -> Result<HostRecord, FleetError> {
    let (baseline, got) = match hosts.baseline(index) {
        Err(failure) => (None, Err(failure)),
        Ok(baseline) => (baseline, read_snapshot(dir, &hosts.planned[index])),
    };
    hosts.finish(index, baseline, got, started.elapsed())
}

/// One host judged by `judge`; a panic makes it INCOMPLETE with what it said, and only a
/// panic in writing that failure too is an error.
fn judge_file(
    hosts: &Hosts,
    judge: &Judge<'_>,
    index: usize,
    started: Instant,
) -> Result<HostRecord, FleetError> {
    let planned = &hosts.planned[index];
    let judged = std::panic::catch_unwind(AssertUnwindSafe(|| judge(hosts, index, started)));
    let why = match judged {
        Ok(record) => return record,
        Err(payload) => payload_text(payload.as_ref()),
    };
    let failure = HostFailure::Panicked(why);
    std::panic::catch_unwind(AssertUnwindSafe(|| {
        hosts.finish(index, None, Err(failure), Duration::ZERO)
    }))
    .unwrap_or_else(|payload| {
        Err(FleetError::HostPanicked {
            host: planned.host.name.to_string(),
            message: payload_text(payload.as_ref()),
        })
    })
}

/// The cores this process may run on.
pub(super) fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
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
    use std::sync::Arc;

    use super::*;
    use crate::host::StorePool;
    use crate::plan::BaselineAt;
    use driftgate_collect::CaptureOptions;
    use driftgate_collect::hosts::{CaptureFailure, unread};
    use driftgate_compare::Policy;
    use driftgate_inventory::Inventory;
    use driftgate_report::document::Spool;
    use driftgate_snapshot::Snapshot;

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
        let hosts = Hosts {
            last_took: vec![None],
            planned: vec![h1.clone()].into(),
            last_good: vec![None],
            stores: StorePool::new(dir.path()),
            head: None,
            inventory: Arc::new(h1_inventory()),
            capture: CaptureOptions::default(),
            policy: Policy::builtin(),
            strict: false,
            out: Some(OutDir::create(&dir.path().join("tonight")).unwrap().0),
            spool: Spool::new().unwrap(),
        };
        let timed_out = CaptureFailure::TimedOut(Duration::from_secs(2));
        let record = hosts
            .finish(0, None, Err(timed_out.into()), Duration::ZERO)
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
}
