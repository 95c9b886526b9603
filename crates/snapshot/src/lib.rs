//! Snapshots: what one host looked like at one moment, as canonical JSON with a digest.
//!
//! Only [`VerifiedSnapshot::parse`] (schema id + digest checked), [`Snapshot::seal`] and
//! [`VerifiedSnapshot::seal`] (a capture, in memory) give a
//! snapshot that the rest of driftgate judges; a file that fails either check is an error,
//! never silently accepted. [`file_names`] says how long a name that becomes a file name may be.

mod canonical;
mod document;
mod facts;
pub mod file_names;
mod function_keys;
mod host;
mod lines;
pub mod nic;
mod path;
mod readers;
pub mod source;
mod strict;
mod unique_keys;
mod value;
mod verified;

pub use document::{SCHEMA_ID, Snapshot, SnapshotDocument, SourceRecord, SourceStatus};
pub use facts::{Facts, FactsIter};
pub use host::{BadHostName, HostName};
pub use lines::fact_lines;
pub use path::{BadFactPath, FactPath, path_segment};
pub use readers::{WHOLE_CAPTURE, reads};
pub use unique_keys::{DuplicateKey, Pruned, UniqueKeysError, parse_unique, parse_unique_pruned};
pub use value::{FactValue, Scalar};
pub use verified::{SnapshotError, VerifiedSnapshot};

/// The tool name and version written into snapshots, reports and commits. Every crate of the
/// workspace shares one version, so this is the binary's.
pub fn tool_version() -> String {
    format!("driftgate {}", env!("CARGO_PKG_VERSION"))
}

#[cfg(test)]
mod tests;
