//! `check --all`, captured ([`check_all`], async) or judged from snapshot files
//! ([`check_snapshots`], plain threads): plan the run, work on every host, then record the
//! hosts' last good captures, write `run.json` and assemble the fleet result.

use std::path::Path;
use std::sync::Arc;

use crate::assemble;
use crate::error::FleetError;
use crate::host::{Hosts, StorePool};
use crate::outdir::{self, HostRecord, OutDir};
use crate::plan::{self, Plan, Planned};
use crate::reporter::Reporter;
use crate::settings::FleetSettings;
use crate::shard::Shard;
use crate::snapshots::Judge;
use crate::state::record_state;
use driftgate_baseline::state::State;
use driftgate_collect::hosts::HostWork;
use driftgate_report::document::{FleetReport, Spool};

/// Checks every selected host (see the module docs): plans the run (the hosts of the
/// selection and the shard, their baselines at HEAD, orphan baselines), captures the hosts at
/// most `concurrency` at once through the one capture pipeline, writes the output directory
/// as each finishes, and assembles the fleet result. A host that cannot be read (or whose
/// task panics) is INCOMPLETE, never an error; only a stop (`capture.cancel`: no new host
/// starts) or an output directory that cannot be written ends the run early (the running
/// hosts are drained first). Refused before anything runs: no host selected, a store without
/// `baselines/` unless `bootstrap`.
pub async fn check_all(
    settings: &FleetSettings,
    reporter: &dyn Reporter,
) -> Result<FleetReport, FleetError> {
    capture_all(settings, reporter, |hosts| hosts).await
}

/// [`check_all`] with each host's work done by what `work` makes of the run's [`Hosts`]: the
/// hosts themselves, or (in tests) a work that panics on one of them.
pub(super) async fn capture_all<W>(
    settings: &FleetSettings,
    reporter: &dyn Reporter,
    work: impl FnOnce(Hosts) -> W,
) -> Result<FleetReport, FleetError>
where
    W: HostWork<Done = Result<HostRecord, FleetError>>,
{
    let (run, hosts) = Run::begin(settings, None, reporter)?;
    let planned = Arc::clone(&hosts.planned);
    let records = super::capture::capture(
        Arc::new(work(hosts)),
        settings.concurrency,
        &settings.capture.cancel,
        reporter,
    )
    .await?;
    run.end(settings, &planned, records, reporter)
}

/// [`check_all`] of snapshots captured elsewhere: `snapshots/<host>.json` (or another run's
/// output directory) instead of capturing. Nothing waits on a network: `concurrency` hosts
/// (at most one per core) are judged at once on plain threads, this one among them; a stop
/// starts no new host. Also refused: `snapshots` inside the `--out-dir` a run clears.
pub fn check_snapshots(
    settings: &FleetSettings,
    snapshots: &Path,
    reporter: &dyn Reporter,
) -> Result<FleetReport, FleetError> {
    let judge = |hosts: &Hosts, index, started| {
        super::snapshots::judged_file(hosts, snapshots, index, started)
    };
    judge_all(settings, snapshots, reporter, &judge)
}

/// [`check_snapshots`] with each host judged by `judge`: from the `snapshots` folder, or (in
/// tests) by a judge that panics on one host.
pub(super) fn judge_all(
    settings: &FleetSettings,
    snapshots: &Path,
    reporter: &dyn Reporter,
    judge: &Judge<'_>,
) -> Result<FleetReport, FleetError> {
    let (run, hosts) = Run::begin(settings, Some(snapshots), reporter)?;
    let threads = settings.concurrency.clamp(1, super::snapshots::cores());
    let records =
        super::snapshots::judge_files(&hosts, judge, threads, &settings.capture.cancel, reporter)?;
    run.end(settings, &hosts.planned, records, reporter)
}

/// A run between its plan and its end.
struct Run {
    started_at: jiff::Timestamp,
    /// The plan, its hosts handed to the run's [`Hosts`].
    plan: Plan,
    out: Option<OutDir>,
}

impl Run {
    /// Plans the run, checks what is refused, clears the output directory and tells
    /// `reporter` how many hosts there are.
    fn begin(
        settings: &FleetSettings,
        snapshots: Option<&Path>,
        reporter: &dyn Reporter,
    ) -> Result<(Run, Hosts), FleetError> {
        let started_at = now();
        let mut plan = plan::plan(settings)?;
        if let (Some(snapshots), Some(out_dir)) = (snapshots, &settings.out_dir) {
            let canonical = |p: &Path| std::fs::canonicalize(p).unwrap_or(p.to_path_buf());
            let (read, written) = (canonical(snapshots), canonical(out_dir));
            if read == written || read == written.join(outdir::SNAPSHOTS_DIR) {
                return Err(FleetError::SnapshotsInOutDir {
                    snapshots: snapshots.display().to_string(),
                    out_dir: out_dir.display().to_string(),
                });
            }
        }
        // Every host's settings are read once here, before anything is captured or written:
        // a missing account is the operator's to fix, not a night of INCOMPLETE hosts.
        let capture = settings.inventory.withholding_env(&settings.capture);
        if snapshots.is_none() {
            let unreadable: Vec<_> = plan
                .hosts
                .iter()
                .filter_map(|p| {
                    settings
                        .inventory
                        .host_capture_options(&p.host, &capture)
                        .err()
                })
                .collect();
            if !unreadable.is_empty() {
                return Err(FleetError::HostSettings(unreadable));
            }
        }
        let (out, last_run) = match settings.out_dir.as_deref() {
            Some(dir) => {
                let (out, last_run) = OutDir::create(dir)?;
                (Some(out), last_run)
            }
            None => Default::default(),
        };
        let state = State::load(&settings.store)?;
        let planned: Arc<[Planned]> = std::mem::take(&mut plan.hosts).into();
        let last_good = planned
            .iter()
            .map(|p| state.hosts.get(p.host.name.as_str()).map(|h| h.last_good))
            .collect();
        let last_took = planned
            .iter()
            .map(|p| last_run.took(p.host.name.as_str()))
            .collect();
        let hosts = Hosts {
            last_took,
            planned,
            last_good,
            stores: StorePool::new(settings.store.location()),
            head: plan.head.clone(),
            inventory: Arc::clone(&settings.inventory),
            capture,
            policy: settings.policy.clone(),
            strict: settings.strict,
            out: out.clone(),
            spool: Spool::new()?,
        };
        reporter.planned(hosts.planned.len());
        Ok((
            Run {
                started_at,
                plan,
                out,
            },
            hosts,
        ))
    }

    /// Records the hosts' last good captures in the store's nightly state, writes `run.json`
    /// and assembles the fleet result.
    fn end(
        self,
        settings: &FleetSettings,
        planned: &[Planned],
        records: Vec<HostRecord>,
        reporter: &dyn Reporter,
    ) -> Result<FleetReport, FleetError> {
        let Run {
            started_at,
            plan,
            out,
        } = self;
        let finished_at = now();
        let good: Vec<(String, jiff::Timestamp)> = records
            .iter()
            .filter_map(|r| r.captured_good.map(|t| (r.result.host.clone(), t)))
            .collect();
        record_state(&settings.store, &good, settings.run_id.as_deref(), reporter);
        let run_file = outdir::RunFile {
            schema: outdir::RUN_SCHEMA_ID.to_owned(),
            tool: driftgate_snapshot::tool_version(),
            started_at,
            finished_at,
            shard: settings.shard,
            strict: settings.strict,
            selection: (&settings.selection).into(),
            hosts: planned.iter().map(|p| p.host.name.to_string()).collect(),
            planned: plan::planned_hosts(settings),
            orphans: plan.orphans.clone(),
            policy_digest: settings.policy.digest(),
            stale_after_seconds: settings.stale_after.map(|d| d.as_secs()),
        };
        let identity = outdir::RunIdentity {
            run_id: settings.run_id.clone(),
            store_head: plan.head,
            planned_hosts_digest: Some(plan.planned_digest),
        };
        if let Some(out) = &out {
            out.write_identified_run(&run_file, &identity)?;
        }
        Ok(assemble::assemble(assemble::Assembly {
            shards: settings.shard.iter().map(Shard::to_string).collect(),
            started_at,
            finished_at,
            strict: settings.strict,
            stale_after: settings.stale_after,
            orphans: plan.orphans,
            records,
            whole_clusters: settings.shard.is_none_or(|s| s.count == 1),
        }))
    }
}

/// Now, to the second (run files and reports carry no sub-second noise).
fn now() -> jiff::Timestamp {
    let now = jiff::Timestamp::now();
    now.round(jiff::Unit::Second).unwrap_or(now)
}
