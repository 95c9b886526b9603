//! The pre/post gate of a firmware rollout: capture each host from the inventory, judge it
//! against its baseline (pre), then baseline → pre → post (post), keep everything in a run
//! directory, and promote the post snapshots after a passing post. Prints nothing; returns a
//! [`GateReport`](driftgate_report::document::GateReport) (a [`driftgate_report`] document)
//! and tells a [`Progress`] what it is doing.
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
mod progress;
mod promote;
mod report;
mod run;
mod run_id;
mod settings;
#[cfg(test)]
mod test_support;
mod waive;

pub use error::GateError;
pub use post::post;
pub use pre::pre;
pub use progress::Progress;
pub use run::{MANIFEST_SCHEMA_ID, Manifest, RUNS_DIR, RunDir, RunHost};
pub use run_id::{BadRunId, RunId};
pub use settings::Settings;
