//! Why a gate step could not run.

use crate::run_id::RunId;
use driftgate_snapshot::{HostName, SnapshotError};
use driftgate_store::StoreError;

/// Why a gate step could not run (exit 2): bad input, configuration or run directory.
#[derive(Debug, thiserror::Error)]
pub enum GateError {
    /// `fix apply` refused before sending anything.
    #[error("fix refused, nothing sent:\n  {}", .0.join("\n  "))]
    FixRefused(Vec<String>),
    /// Another `fix apply` of the run is at work.
    #[error(
        "fix apply of run {run} is already running ({holder}): nothing was sent; wait for it with --wait, or run again once it is done"
    )]
    ApplyLocked {
        /// The run.
        run: RunId,
        /// Who holds its lock.
        holder: String,
    },
    /// `fix apply` was stopped (a signal) before it sent anything.
    #[error("fix apply stopped {0}: nothing was sent")]
    ApplyStopped(&'static str),
    /// No host given to `pre`.
    #[error("no host given: name the hosts of the run (see `driftgate inventory list`)")]
    NoHosts,
    /// A host the inventory does not list.
    #[error("{inventory}: no host {host} in the inventory")]
    UnknownHost {
        /// The host.
        host: HostName,
        /// The inventory file.
        inventory: String,
    },
    /// A host without a baseline to gate against.
    #[error(
        "host {host} has no baseline in {store} (baselines/{fleet}/{host}.json at HEAD): capture it and promote one first, e.g. `driftgate capture --host {host} … --out {host}.json && driftgate baseline promote {host}.json --fleet {fleet}`"
    )]
    NoBaseline {
        /// The host.
        host: HostName,
        /// Its fleet in the inventory.
        fleet: String,
        /// The store.
        store: String,
    },
    /// The inventory and the store disagree on a host's fleet.
    #[error(
        "{inventory}: host {host} is in fleet {fleet}, but its baseline is {baseline}; fix the inventory or move the baseline"
    )]
    OtherFleet {
        /// The host.
        host: HostName,
        /// Its fleet in the inventory.
        fleet: String,
        /// Its baseline file.
        baseline: String,
        /// The inventory file.
        inventory: String,
    },
    /// A baseline of another host.
    #[error(transparent)]
    HostMismatch(#[from] driftgate_compare::HostMismatch),
    /// A bare store has no work tree to keep runs in.
    #[error("{store} is a bare repository: give the run directory with --run-dir DIR")]
    BareStore {
        /// The store.
        store: String,
    },
    /// `post` of a run that does not exist.
    #[error(
        "no run {id}: {dir} has no manifest.json (start the run with `driftgate gate pre --run {id} HOST…`)"
    )]
    NoSuchRun {
        /// The run id.
        id: RunId,
        /// Where it was looked for.
        dir: String,
    },
    /// The run directory holds another run.
    #[error("{dir} holds run {found}, not {id}")]
    OtherRun {
        /// The run id asked for.
        id: String,
        /// The run the directory holds.
        found: String,
        /// The directory.
        dir: String,
    },
    /// `pre` of a host that already had a post in the run.
    #[error(
        "host {host} already has a post in run {id} ({dir}/post-{post}): its pre is what that post was judged against and stays; start a new run for a new pre"
    )]
    HasPost {
        /// The host.
        host: HostName,
        /// The run.
        id: RunId,
        /// Its directory.
        dir: String,
        /// The latest post.
        post: u32,
    },
    /// `post` for a host that is not in the run.
    #[error(
        "host {host} is not in run {id} (its hosts: {hosts}); run `gate pre --run {id} {host}` first"
    )]
    NotInRun {
        /// The host.
        host: HostName,
        /// The run.
        id: RunId,
        /// The run's hosts.
        hosts: String,
    },
    /// `post` for a host of the run whose pre never finished.
    #[error(
        "host {host} has no pre snapshot in run {id} ({file} is missing): run `gate pre --run {id} {host}` again"
    )]
    NoPre {
        /// The host.
        host: HostName,
        /// The run.
        id: RunId,
        /// The missing file.
        file: String,
    },
    /// A host's inventory entry gives no capture settings (its CA file, its BMC account).
    #[error(transparent)]
    HostOptions(#[from] driftgate_inventory::HostOptionsError),
    /// Hosts whose inventory entries give no capture settings, found before any capture.
    #[error(
        "{} of the run's hosts cannot be captured as the inventory says, so none was:\n  {}",
        .0.len(),
        .0.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n  ")
    )]
    HostSettings(Vec<driftgate_inventory::HostOptionsError>),
    /// Something other than driftgate's own folder or file where a run keeps one.
    #[error(transparent)]
    NotOurs(#[from] driftgate_fs::NotOurs),
    /// A run file cannot be read or written.
    #[error("{file}: {error}")]
    Io {
        /// The file.
        file: String,
        /// Why.
        error: std::io::Error,
    },
    /// A manifest that does not read as one.
    #[error("{file}: not a driftgate run manifest: {reason}")]
    Manifest {
        /// The file.
        file: String,
        /// Why.
        reason: String,
    },
    /// A snapshot (baseline or pre) that does not verify.
    #[error(transparent)]
    Snapshot(#[from] SnapshotError),
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// Promoting failed (the lock, the commit).
    #[error(transparent)]
    Promote(#[from] driftgate_baseline::PromoteError),
    /// A host's capture panicked, and so did the judging of its failure.
    #[error("host {host}: its result could not be made: {message}")]
    HostPanicked {
        /// The host.
        host: HostName,
        /// What the panic said.
        message: String,
    },
    /// The step was stopped (`Settings::capture.cancel`) before it finished: no report was
    /// written, nor a snapshot of a host whose capture it cut short.
    #[error("stopped before it finished")]
    Interrupted,
}
