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

pub use driftgate_baseline as baseline;
pub use driftgate_collect as collect;
pub use driftgate_compare as compare;
pub use driftgate_fleet as fleet;
pub use driftgate_fs as fsutil;
pub use driftgate_gate as gate;
pub use driftgate_inventory as inventory;
pub use driftgate_model as model;
pub use driftgate_report as report;
pub use driftgate_secrets as secrets;
pub use driftgate_simulator as mockup;
pub use driftgate_snapshot as snapshot;
pub use driftgate_store as store;
