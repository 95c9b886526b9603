//! The documents the formats render: the results of a gate step and of a fleet check, and the
//! baseline lines and timelines some formats add. The operations that produce them fill them;
//! this crate reads nothing but them.

mod fleet;
mod gate;
mod lines;
mod spool;
mod timeline;

pub use fleet::{
    FLEET_REPORT_SCHEMA_ID, FleetFinding, FleetReport, HostCounts, HostResult, Majority,
};
pub use gate::{
    FixCheck, FixState, GATE_REPORT_SCHEMA_ID, GateReport, HostOutcome, Promotion,
    PromotionOutcome, RunSummary, Step,
};
pub use lines::BaselineLines;
pub use spool::{HostReport, Spool, SpoolError, to_writer_nested};
pub use timeline::{SettingChange, TimelineEntry};
