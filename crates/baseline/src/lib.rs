//! Baseline workflows over the git store, one operation per module: [`promote`] verified
//! snapshots with a change summary in the commit, read the history back as policy-classified
//! changes ([`log`], [`timelines`]), [`init`] a store, find each fact's line in a
//! baseline file ([`baseline_lines`]), and keep the nightly [`state`] beside the baselines.

mod extras;
mod init;
pub mod input;
mod lines;
mod log;
mod promote;
pub mod state;
mod streamed;
mod summary;
mod timeline;

#[cfg(test)]
mod tests;

pub use extras::{ExtrasWarning, TIMELINE_COMMITS, read_extras};
pub use init::{InitOutcome, init};
pub use lines::baseline_lines;
pub use log::{LogChangeError, LogEntry, log};
pub use promote::{
    FleetSnapshot, HostResult, PromoteError, PromoteOutcome, PromoteRequest, Refusal, promote,
};
pub use summary::{ChangeSummary, summarize};
pub use timeline::timelines;
