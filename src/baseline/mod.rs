//! Baseline workflows over the git store, one operation per module: [`promote`] verified
//! snapshots with a change summary in the commit, read the history back as policy-classified
//! changes ([`log`], [`timelines`]), [`init`] a store, and find each fact's line in a
//! baseline file ([`baseline_lines`]).

mod init;
mod lines;
mod log;
mod promote;
mod streamed;
mod summary;
mod timeline;

#[cfg(test)]
mod tests;

pub use init::{InitOutcome, init};
pub use lines::{BaselineLines, baseline_lines, fact_lines};
pub use log::{LogChangeError, LogEntry, log};
pub use promote::{
    FleetSnapshot, HostResult, PromoteError, PromoteOutcome, PromoteRequest, Refusal, promote,
};
pub use summary::{ChangeSummary, summarize};
pub use timeline::{SettingChange, TimelineEntry, timelines};
