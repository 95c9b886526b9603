//! driftgate: capture a server's configuration as a snapshot of facts, compare it with a
//! known-good baseline under a policy, and block a firmware rollout when a setting that keeps
//! storage traffic lossless changed silently.
//!
//! Imports flow down: `report → compare → snapshot → model`. Nothing in the library prints;
//! the binary's CLI layer reads inputs, calls [`compare::judge`] and renders a [`compare::Report`].
//!
//! ```
//! use driftgate::compare::{self, JudgeOptions, Policy, Verdict};
//! use driftgate::snapshot::{Snapshot, VerifiedSnapshot};
//!
//! let text = std::fs::read_to_string("examples/esxi-mscs-psp/current.json").unwrap();
//! let current = VerifiedSnapshot::parse(&text, "current.json").unwrap();
//! let report = compare::judge(&current, None, &Policy::builtin(), &JudgeOptions::default());
//! assert_eq!(report.verdict, Verdict::Block);
//! ```

pub mod baseline;
pub mod collect;
pub mod compare;
pub mod fleet;
pub mod fsutil;
pub mod gate;
pub mod inventory;
pub mod mockup;
pub mod model;
pub mod report;
pub mod secrets;
#[cfg(test)]
mod shared_data;
pub mod snapshot;
pub mod store;
