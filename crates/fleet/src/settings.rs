//! What a fleet check works with ([`FleetSettings`]), chosen by the caller: the store, the
//! inventory and selection, the policy, the bounds and where the results go.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use crate::shard::Shard;
use driftgate_collect::CaptureOptions;
use driftgate_compare::Policy;
use driftgate_inventory::{Inventory, Selection};
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
    /// Hosts captured at once ([`check_snapshots`](crate::check_snapshots): judged at once, at most one per core).
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
    /// store, [`FleetError::NoBaselines`](crate::FleetError::NoBaselines)).
    pub bootstrap: bool,
}
