//! What a snapshot holds, and its on-disk form.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::facts::Facts;
use crate::host::HostName;
use crate::unique_keys;

/// The schema id every v1 snapshot carries.
pub const SCHEMA_ID: &str = "driftgate.snapshot/v1";

/// How far a source got when capturing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum SourceStatus {
    /// Everything the source reads was read.
    Complete,
    /// Some reads failed; the facts present are true but some are missing.
    Partial,
    /// Nothing usable was read.
    Failed,
}

impl SourceStatus {
    /// The spelling used in snapshots.
    pub fn as_str(self) -> &'static str {
        match self {
            SourceStatus::Complete => "complete",
            SourceStatus::Partial => "partial",
            SourceStatus::Failed => "failed",
        }
    }
}

/// One place facts came from, and whether reading it worked.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SourceRecord {
    /// Source kind: `redfish`, `windows`, `linux`, `esxi`, …
    pub name: String,
    /// Where it was read from (a URL or a folder), never with credentials.
    pub target: String,
    /// Whether the capture was complete.
    pub status: SourceStatus,
    /// What went wrong, for a source that is not complete.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// What one host looked like at one moment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Snapshot {
    /// The host the facts describe.
    pub host: HostName,
    /// When the capture started.
    pub captured_at: jiff::Timestamp,
    /// The tool and version that wrote the snapshot, e.g. `driftgate 0.1.0`.
    pub tool: String,
    /// Every source that was asked, with its status.
    pub sources: Vec<SourceRecord>,
    /// The facts, sorted by path.
    pub facts: Facts,
}

/// The on-disk form of a v1 snapshot: what the JSON schema describes.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "driftgate snapshot v1")]
pub struct SnapshotDocument {
    /// Always `driftgate.snapshot/v1`.
    #[schemars(regex(pattern = r"^driftgate\.snapshot/v1$"))]
    pub schema: String,
    /// The host the facts describe.
    pub host: HostName,
    /// When the capture started (RFC 3339, UTC).
    #[schemars(with = "String", extend("format" = "date-time"))]
    pub captured_at: jiff::Timestamp,
    /// The tool and version that wrote the snapshot.
    pub tool: String,
    /// Every source that was asked, with its status.
    pub sources: Vec<SourceRecord>,
    /// Fact path → value, sorted by path; a path given twice is refused.
    #[serde(deserialize_with = "unique_keys::unique_facts")]
    pub facts: Facts,
    /// `sha256:` + hex SHA-256 of the canonical form of everything but `digest`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(regex(pattern = "^sha256:[0-9a-f]{64}$"))]
    pub digest: Option<String>,
}

impl Snapshot {
    /// Whether there is at least one source and every source captured completely.
    pub fn is_complete(&self) -> bool {
        !self.sources.is_empty()
            && self
                .sources
                .iter()
                .all(|s| s.status == SourceStatus::Complete)
    }
}

impl From<SnapshotDocument> for Snapshot {
    fn from(d: SnapshotDocument) -> Self {
        Snapshot {
            host: d.host,
            captured_at: d.captured_at,
            tool: d.tool,
            sources: d.sources,
            facts: d.facts,
        }
    }
}
