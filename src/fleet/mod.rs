//! The nightly drift check of a whole fleet (`check --all`): capture every selected host of
//! the inventory concurrently, bounded overall and per BMC, judge each against its baseline,
//! stream snapshots and per-host results to an output directory, check that the nodes of a
//! cluster agree, report stale and missing baselines, and merge the result directories of
//! shards into one fleet result. Prints nothing; returns a [`FleetReport`] and tells a
//! [`Reporter`] what it is doing. Imports: [`crate::inventory`], [`crate::collect`],
//! [`crate::store`], [`crate::compare`], [`crate::snapshot`].

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
pub mod spool;
pub mod stale;
#[cfg(test)]
mod tests;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub use check::{check_all, check_snapshots};
pub use merge::MergeOptions;
pub use rejudge::Rejudge;
pub use shard::{BadShard, Shard};
pub use spool::HostReport;

use crate::collect::CaptureOptions;
use crate::compare::{Counts, Policy, Severity, Verdict};
use crate::inventory::{Inventory, Selection};
use crate::snapshot::HostName;
use crate::store::Store;

/// `schema` of a [`FleetReport`].
pub const FLEET_REPORT_SCHEMA_ID: &str = "driftgate.fleet-report/v1";

/// What a fleet check works with, chosen by the caller.
#[derive(Debug)]
pub struct FleetSettings {
    /// The baseline store: `baselines/<fleet>/<host>.json` at HEAD are the baselines; its
    /// `.driftgate/state.json` (out of git) keeps each host's last good capture.
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
    /// `--run-id`: recorded in `run.json`, so that merge refuses shards of other runs.
    pub run_id: Option<String>,
    /// A first run: the store may have no `baselines/` yet (else that is refused as a wrong
    /// store, [`FleetError::NoBaselines`]).
    pub bootstrap: bool,
}

/// What a fleet check tells its caller while it works (the library prints nothing): the
/// CLI's progress bar. Called from capture tasks, hence `Send + Sync`.
pub trait Reporter: crate::collect::Reporter {
    /// The run will work on this many hosts.
    fn planned(&self, _hosts: usize) {}
    /// A host's capture (or the reading of its snapshot) started.
    fn host_started(&self, _host: &HostName) {}
    /// A host was captured, written and judged.
    fn host_finished(&self, _host: &HostName, _verdict: Verdict, _took: Duration) {}
}

/// The result of a fleet check or of `report merge`: what `driftgate schema fleet-report`
/// describes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(title = "driftgate fleet report v1")]
pub struct FleetReport {
    /// Always `driftgate.fleet-report/v1`.
    pub schema: String,
    /// Tool and version.
    pub tool: String,
    /// When the run (the earliest shard) started, RFC 3339.
    pub started_at: String,
    /// When the run (the latest shard) finished, RFC 3339.
    pub finished_at: String,
    /// The shards merged (`K/N`), empty for one unsharded run.
    pub shards: Vec<String>,
    /// The selections merged (`--tag site-a`, …: unsharded runs of disjoint host sets), empty
    /// unless several were.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub selections: Vec<String>,
    /// The worst verdict of all hosts and fleet findings: decides the exit code.
    pub verdict: Verdict,
    /// Whether warnings were made to block.
    pub strict: bool,
    /// Hosts by verdict.
    pub counts: HostCounts,
    /// Every host, by name.
    pub hosts: Vec<HostResult>,
    /// What no single host's baseline shows: cluster disagreement, stale and missing
    /// baselines and captures.
    pub findings: Vec<FleetFinding>,
    /// Whether `report merge` took the hosts' records as the shards wrote them
    /// (`--no-rejudge`) instead of judging each host again from its snapshot.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub records_trusted: bool,
}

/// Hosts by verdict.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct HostCounts {
    /// Every host of the run.
    pub total: usize,
    /// PASS.
    pub pass: usize,
    /// WARN.
    pub warn: usize,
    /// BLOCK.
    pub block: usize,
    /// INCOMPLETE.
    pub incomplete: usize,
}

/// One host's result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct HostResult {
    /// The host.
    pub host: String,
    /// Its fleet.
    pub fleet: String,
    /// Its cluster, if any.
    pub cluster: Option<String>,
    /// The worst of its own judgement and the fleet findings that name it.
    pub verdict: Verdict,
    /// Its own judgement's findings by severity.
    pub counts: Counts,
    /// Why the host could not be read completely (each source not complete, or the per-host
    /// deadline), when it could not.
    pub failure: Option<String>,
    /// How long its capture took, in milliseconds.
    pub capture_ms: u64,
    /// Its snapshot file in the output directory, when one was written.
    pub snapshot_file: Option<String>,
    /// When the host was last read completely (RFC 3339): this run's capture, or what the
    /// store's state file remembers of an earlier run when this one could not read it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_success_at: Option<String>,
    /// Its own judgement against its baseline (invariants and `expect` rules only without one).
    pub report: HostReport,
}

/// A finding about the fleet rather than one host's drift: the nodes of a cluster disagree, a
/// baseline is stale, missing or has no host.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct FleetFinding {
    /// `cluster/<what>`, `fleet/stale-baseline`, `fleet/missing-baseline`,
    /// `fleet/orphan-baseline`, `fleet/stale-capture`.
    pub rule: String,
    /// How it counts: the hosts it names get at least this verdict.
    pub severity: Severity,
    /// The cluster, for a cluster finding.
    pub cluster: Option<String>,
    /// The hosts it is about (a cluster finding: the odd nodes out).
    pub hosts: Vec<String>,
    /// What was compared (a fact path, or a path pattern across ports), when it is a fact.
    pub path: Option<String>,
    /// The odd nodes' values, one per host in `hosts` order, for a cluster finding.
    pub values: Vec<serde_json::Value>,
    /// The value most nodes of the cluster have, and how many have it.
    pub majority: Option<Majority>,
    /// One line for a human, naming the hosts and values.
    pub message: String,
}

/// The value most nodes of a cluster agree on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Majority {
    /// The value.
    pub value: serde_json::Value,
    /// How many nodes have it.
    pub hosts: usize,
    /// How many nodes were compared.
    pub of: usize,
}

/// Why a fleet check or a merge could not run (exit 2).
#[derive(Debug, thiserror::Error)]
pub enum FleetError {
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
    NotOurs(#[from] crate::fsutil::NotOurs),
    /// The output directory or the state file could not be written.
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
    Store(#[from] crate::store::StoreError),
    /// The store's state file (`.driftgate/state.json`) cannot be read.
    #[error("{path}: {reason}")]
    State {
        /// The file.
        path: String,
        /// What is wrong.
        reason: String,
    },
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

/// Merges the output directories of the shards of one run into the fleet result one
/// unsharded run would have given. Refuses a directory of a run that did not finish, the
/// same host twice, shards of different counts, a missing shard, and shards judged under
/// different policies, strictness, selections or `--stale-after`.
pub fn merge(dirs: &[PathBuf], options: &MergeOptions<'_>) -> Result<FleetReport, FleetError> {
    merge::merge(dirs, options)
}

/// Now, to the second (run files and reports carry no sub-second noise).
fn now() -> jiff::Timestamp {
    let now = jiff::Timestamp::now();
    now.round(jiff::Unit::Second).unwrap_or(now)
}
