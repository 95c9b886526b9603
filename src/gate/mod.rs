//! The pre/post gate of a firmware rollout: capture each host from the inventory, judge it
//! against its baseline (pre), then baseline → pre → post (post), keep everything in a run
//! directory, and promote the post snapshots after a passing post. Prints nothing; returns a
//! [`GateReport`]. Imports: [`crate::inventory`], [`crate::collect`], [`crate::store`],
//! [`crate::baseline`], [`crate::compare`], [`crate::snapshot`].

mod report;

pub use report::{
    GATE_REPORT_SCHEMA_ID, GateReport, HostOutcome, Promotion, PromotionOutcome, RunSummary, Step,
};
