//! The pre/post gate of a firmware rollout: capture each host from the inventory, judge it
//! against its baseline (pre), then baseline → pre → post (post), keep everything in a run
//! directory, and promote the post snapshots after a passing post. Prints nothing; returns a
//! [`GateReport`] (a [`driftgate_report`] document) and tells a [`Progress`] what it is doing.
//! Hosts come from [`driftgate_inventory`] and are captured through [`driftgate_collect`]'s
//! one pipeline, judged by [`driftgate_compare`] against [`driftgate_store`]'s baselines, and
//! promoted by [`driftgate_baseline`].
//!
//! ```no_run
//! # #[tokio::main]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use driftgate_collect::Reporter;
//! use driftgate_gate::{self as gate, Progress, Settings};
//! use driftgate_snapshot::HostName;
//!
//! struct Quiet;
//! impl Reporter for Quiet {}
//! impl Progress for Quiet {}
//!
//! let store = driftgate_store::Store::discover(std::path::Path::new("/srv/baselines"))?;
//! let inventory = driftgate_inventory::Inventory::load("/srv/baselines/inventory.toml".as_ref())?;
//! let settings = Settings::new(store, inventory, driftgate_compare::Policy::builtin());
//! let hosts = vec![HostName::new("azl-node01")?];
//! let pre = gate::pre(&settings, None, &hosts, &Quiet).await?;
//! // … update the firmware, reboot …
//! let run = gate::RunId::new(pre.run.id.clone())?;
//! let post = gate::post(&settings, &run, &[], true, &Quiet).await?;
//! println!("{:?}", post.verdict);
//! # Ok(()) }
//! ```

mod error;
pub mod fix;
mod judge;
mod plan;
mod post;
mod pre;
mod promote;
mod report;
mod run;
#[cfg(test)]
mod test_support;
mod waive;

use std::path::{Path, PathBuf};
use std::time::Duration;

use driftgate_report::document::{GateReport, HostOutcome, Promotion, PromotionOutcome, Step};
pub use error::GateError;
pub use post::post;
pub use pre::pre;
pub use run::{BadRunId, MANIFEST_SCHEMA_ID, Manifest, RUNS_DIR, RunDir, RunHost, RunId};

use driftgate_collect::CaptureOptions;
use driftgate_compare::{Allowance, Policy, Verdict};
use driftgate_inventory::Inventory;
use driftgate_snapshot::HostName;
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

/// What a gate step tells its caller while it works (the library prints nothing): the
/// capture's [`driftgate_collect::Reporter`] (each source of each host) and the step's own events. One
/// reporter pattern for every command that captures.
pub trait Progress: driftgate_collect::Reporter {
    /// The step works on run `id` in `dir`.
    fn run(&self, _id: &RunId, _dir: &Path) {}
    /// The step will capture this many hosts.
    fn planned(&self, _hosts: usize) {}
    /// A host's capture started.
    fn started(&self, _host: &HostName) {}
    /// A host was captured, written to the run directory and judged.
    fn finished(&self, _host: &HostName, _verdict: Verdict, _took: Duration) {}
    /// The store had no `.driftgate/.gitignore` (made before `baseline init` wrote one, or a
    /// fresh clone): `file` was written now, so that run folders stay out of `git status`.
    fn ignore_created(&self, _file: &Path) {}
    /// Something about the step as a whole the operator must be told: its hosts' last
    /// successes not saved in the nightly state (the verdict stands), or the old state file
    /// migrated.
    fn notice(&self, _notice: &driftgate_baseline::state::Notice) {}
}
