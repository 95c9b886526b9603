//! The nightly drift check of a whole fleet (`check --all`): capture every selected host of
//! the inventory concurrently, bounded overall and per BMC, judge each against its baseline,
//! stream snapshots and per-host results to an output directory, check that the nodes of a
//! cluster agree, report stale and missing baselines, and merge the result directories of
//! shards into one fleet result. Prints nothing; returns a
//! [`FleetReport`](driftgate_report::document::FleetReport) and tells a
//! [`Reporter`] what it is doing. Hosts come from [`driftgate_inventory`] and are captured
//! through [`driftgate_collect`]'s one pipeline; baselines are read from [`driftgate_store`]
//! and judged by [`driftgate_compare`]; the result is a [`driftgate_report`] document.

mod assemble;
mod capture;
mod check;
pub mod cluster;
mod error;
mod host;
mod merge;
pub mod outdir;
mod plan;
mod rejudge;
mod reporter;
mod settings;
pub mod shard;
mod snapshots;
pub mod stale;
mod state;
#[cfg(test)]
mod tests;

pub use check::{check_all, check_snapshots};
pub use driftgate_baseline::state::Notice;
pub use error::FleetError;
pub use merge::{MergeOptions, merge};
pub use rejudge::Rejudge;
pub use reporter::Reporter;
pub use settings::FleetSettings;
pub use shard::{BadShard, Shard};
pub use state::record_merged_state;
