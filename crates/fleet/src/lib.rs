//! The nightly drift check of a whole fleet (`check --all`): capture every selected host of
//! the inventory concurrently, bounded overall and per BMC, judge each against its baseline,
//! stream snapshots and per-host results to an output directory, check that the nodes of a
//! cluster agree, report stale and missing baselines, and merge the result directories of
//! shards into one fleet result. Prints nothing; returns a [`FleetReport`] and tells a
//! [`Reporter`] what it is doing. Hosts come from [`driftgate_inventory`] and are captured
//! through [`driftgate_collect`]'s one pipeline; baselines are read from [`driftgate_store`]
//! and judged by [`driftgate_compare`]; the result is a [`driftgate_report`] document.

mod assemble;
mod capture;
mod check;
pub mod cluster;
mod host;
mod merge;
pub mod outdir;
mod plan;
mod rejudge;
pub mod shard;
mod snapshots;
pub mod stale;
#[cfg(test)]
mod tests;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

pub use check::{check_all, check_snapshots};
pub use driftgate_baseline::state::Notice;
use driftgate_report::document::{
    FLEET_REPORT_SCHEMA_ID, FleetFinding, FleetReport, HostCounts, HostResult,
};
pub use merge::MergeOptions;
pub use rejudge::Rejudge;
pub use shard::{BadShard, Shard};

use driftgate_collect::CaptureOptions;
use driftgate_compare::{Policy, Verdict};
use driftgate_inventory::{Inventory, Selection};
use driftgate_snapshot::HostName;
use driftgate_store::Store;

/// What a fleet check works with, chosen by the caller.
#[derive(Debug)]
pub struct FleetSettings {
    /// The baseline store: `baselines/<fleet>/<host>.json` at HEAD are the baselines; its
    /// branch `driftgate/state` keeps each host's last good capture
    /// ([`driftgate_baseline::state`]).
    pub store: Store,
    /// Which hosts exist and where each is read from; shared with the run's tasks, not
    /// copied (a fleet's inventory is a few MB).
    pub inventory: Arc<Inventory>,
    /// The effective policy.
    pub policy: Policy,
    /// Which hosts of the inventory (`--fleet`, `--cluster`, `--tag`).
    pub selection: Selection,
    /// Only the hosts of this shard (`--shard K/N`).
    pub shard: Option<Shard>,
    /// Hosts captured at once ([`check_snapshots`]: judged at once, at most one per core).
    pub concurrency: usize,
    /// Warnings block.
    pub strict: bool,
    /// Capture settings every host starts from; its inventory entry's CA file, time limits
    /// and credentials replace these. `redfish.client.host_timeout` is the per-host
    /// deadline. Its `cancel` stops the run: no new host starts.
    pub capture: CaptureOptions,
    /// Write `snapshots/<host>.json` and `hosts/<host>.json` here as each host finishes, and
    /// `run.json` at the end: what `report merge` reads.
    pub out_dir: Option<PathBuf>,
    /// Report baselines and last good captures older than this.
    pub stale_after: Option<Duration>,
    /// `--run`: recorded in `run.json`, so that merge refuses shards of other runs.
    pub run_id: Option<String>,
    /// A first run: the store may have no `baselines/` yet (else that is refused as a wrong
    /// store, [`FleetError::NoBaselines`]).
    pub bootstrap: bool,
}

/// What a fleet check tells its caller while it works (the library prints nothing): the
/// CLI's progress bar. Called from capture tasks, hence `Send + Sync`.
pub trait Reporter: driftgate_collect::Reporter {
    /// The run will work on this many hosts.
    fn planned(&self, _hosts: usize) {}
    /// A host's capture (or the reading of its snapshot) started.
    fn host_started(&self, _host: &HostName) {}
    /// A host was captured, written and judged.
    fn host_finished(&self, _host: &HostName, _verdict: Verdict, _took: Duration) {}
    /// Something about the run as a whole that the operator must be told.
    fn notice(&self, _notice: &Notice) {}
}

/// Why a fleet check or a merge could not run (exit 2).
#[derive(Debug, thiserror::Error)]
pub enum FleetError {
    /// Inventory entries whose capture settings cannot be read (a BMC account whose variable
    /// is unset or empty, a credentials or CA file that cannot be read): a configuration
    /// error, found before any host is captured.
    #[error(
        "{} of the selected hosts cannot be captured as the inventory says, so none was:\n  {}",
        .0.len(),
        .0.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n  ")
    )]
    HostSettings(Vec<driftgate_inventory::HostOptionsError>),
    /// The selection matched no host.
    #[error("{inventory}: no host matches {selection}")]
    NoHosts {
        /// The inventory file.
        inventory: String,
        /// The selection, as given.
        selection: String,
    },
    /// Something other than driftgate's own folder or file where a run keeps one.
    #[error(transparent)]
    NotOurs(#[from] driftgate_fs::NotOurs),
    /// The output directory could not be written.
    #[error("{path}: {error}")]
    Write {
        /// The file or directory.
        path: String,
        /// Why.
        error: std::io::Error,
    },
    /// A result directory given to merge is not one.
    #[error("{path}: {reason}")]
    BadResults {
        /// The file or directory.
        path: String,
        /// What is wrong.
        reason: String,
    },
    /// The store could not be read.
    #[error(transparent)]
    Store(#[from] driftgate_store::StoreError),
    /// The store's nightly state cannot be read.
    #[error(transparent)]
    State(#[from] driftgate_baseline::state::StateError),
    /// The store has no `baselines/` at HEAD: most likely the wrong store (every host would
    /// only warn); a first run says `--bootstrap`.
    #[error(
        "{store}: no baselines/ at HEAD, so no host has a baseline: is this the baseline store? \
         (a first run that bootstraps the fleet's baselines says --bootstrap)"
    )]
    NoBaselines {
        /// The store.
        store: String,
    },
    /// `--snapshots` reads the directory this run's `--out-dir` clears.
    #[error(
        "--snapshots {snapshots} is (inside) --out-dir {out_dir}, which a run clears: use another --out-dir"
    )]
    SnapshotsInOutDir {
        /// `--snapshots`.
        snapshots: String,
        /// `--out-dir`.
        out_dir: String,
    },
    /// A host's task panicked, and so did the writing of its failure.
    #[error("host {host}: its result could not be written: {message}")]
    HostPanicked {
        /// The host.
        host: String,
        /// What the panic said.
        message: String,
    },
    /// The run was stopped by a signal.
    #[error("the run was interrupted")]
    Interrupted,
}

impl From<driftgate_report::document::SpoolError> for FleetError {
    fn from(spool: driftgate_report::document::SpoolError) -> Self {
        FleetError::Write {
            path: spool.what,
            error: spool.error,
        }
    }
}

/// Merges the output directories of the shards of one run into the fleet result one
/// unsharded run would have given. Refuses a directory of a run that did not finish, the
/// same host twice, shards of different counts, a missing shard, and shards judged under
/// different policies, strictness, selections or `--stale-after`.
pub fn merge(dirs: &[PathBuf], options: &MergeOptions<'_>) -> Result<FleetReport, FleetError> {
    merge::merge(dirs, options)
}

/// Adds the last good captures that the merged fleet result `report` names (each host's
/// `last_success_at`) to the nightly state of `store`: what a merge job of shards that ran
/// in throwaway clones of the store keeps for the next night. A failure is told to
/// `reporter`, naming the store; it changes no verdict.
pub fn record_merged_state(store: &Store, report: &FleetReport, reporter: &dyn Reporter) {
    // A repository without baselines is no baseline store (a `--no-rejudge` merge started in
    // whatever repository holds the results): nothing is written into it.
    let has_baselines = store
        .head_commit()
        .ok()
        .flatten()
        .and_then(|head| store.baseline_files(&head).ok())
        .is_some_and(|files| !files.is_empty());
    if !has_baselines {
        return;
    }
    let good: Vec<(String, jiff::Timestamp)> = report
        .hosts
        .iter()
        .filter_map(|h| {
            let at = h.last_success_at.as_deref()?.parse().ok()?;
            Some((h.host.clone(), at))
        })
        .collect();
    check::record_state(store, &good, None, reporter);
}

/// Now, to the second (run files and reports carry no sub-second noise).
fn now() -> jiff::Timestamp {
    let now = jiff::Timestamp::now();
    now.round(jiff::Unit::Second).unwrap_or(now)
}
