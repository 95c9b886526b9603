//! What a gate step works with.

use std::path::PathBuf;
use std::time::Duration;

use driftgate_collect::CaptureOptions;
use driftgate_compare::{Allowance, Policy};
use driftgate_inventory::Inventory;
use driftgate_store::Store;

/// What a gate step works with: chosen by the caller, the same for every host.
#[derive(Debug)]
pub struct Settings {
    /// The baseline store: `baselines/<fleet>/<host>.json` at HEAD are the baselines.
    pub store: Store,
    /// Which hosts exist and where each is read from.
    pub inventory: Inventory,
    /// The effective policy.
    pub policy: Policy,
    /// The run directory itself, instead of `<store>/.driftgate/runs/<ID>/`.
    pub run_dir: Option<PathBuf>,
    /// Warnings block.
    pub strict: bool,
    /// This step's allowances (`--allow`, `--allow-file`); expired ones are ignored with a
    /// warning.
    pub allowances: Vec<Allowance>,
    /// Hosts captured at once.
    pub concurrency: usize,
    /// Capture settings every host starts from; its inventory entry's CA file, time limits
    /// and credentials replace these. Its `cancel` stops the step: no new host starts.
    pub capture: CaptureOptions,
    /// How long `--promote` waits for another promote's lock.
    pub lock_wait: Duration,
}

impl Settings {
    /// Settings with no allowances, not strict, 8 hosts at a time, default capture options.
    pub fn new(store: Store, inventory: Inventory, policy: Policy) -> Self {
        Settings {
            store,
            inventory,
            policy,
            run_dir: None,
            strict: false,
            allowances: Vec::new(),
            concurrency: 8,
            capture: CaptureOptions::default(),
            lock_wait: Duration::from_secs(10),
        }
    }
}
