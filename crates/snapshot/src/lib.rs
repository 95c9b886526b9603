//! Snapshots: what one host looked like at one moment, as canonical JSON with a digest.
//!
//! Only [`VerifiedSnapshot::parse`] (schema id + digest checked), [`Snapshot::seal`] and
//! [`VerifiedSnapshot::seal`] (a capture, in memory) give a
//! snapshot that the rest of driftgate judges; a file that fails either check is an error,
//! never silently accepted. [`file_names`] says how long a name that becomes a file name may be.

mod canonical;
mod facts;
pub mod file_names;
mod function_keys;
mod lines;
pub mod nic;
mod path;
mod readers;
pub mod source;
mod strict;
mod unique_keys;
mod value;

use std::fmt;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub use facts::{Facts, FactsIter};
use file_names::{BadName, NameKind};
pub use lines::fact_lines;
pub use path::{BadFactPath, FactPath, path_segment};
pub use readers::{WHOLE_CAPTURE, reads};
pub use unique_keys::{DuplicateKey, Pruned, UniqueKeysError, parse_unique, parse_unique_pruned};
pub use value::{FactValue, Scalar};

/// The tool name and version written into snapshots, reports and commits. Every crate of the
/// workspace shares one version, so this is the binary's.
pub fn tool_version() -> String {
    format!("driftgate {}", env!("CARGO_PKG_VERSION"))
}

/// The schema id every v1 snapshot carries.
pub const SCHEMA_ID: &str = "driftgate.snapshot/v1";

/// A host name as inventories and baseline stores use it (`baselines/<fleet>/<host>.json`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct HostName(String);

impl JsonSchema for HostName {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "HostName".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let max = file_names::max_len(NameKind::Host);
        schemars::json_schema!({
            "description": "Host name; also a file name in the baseline store.",
            "type": "string",
            "maxLength": max,
            "pattern": format!("^[A-Za-z0-9][A-Za-z0-9._-]{{0,{}}}$", max - 1)
        })
    }
}

/// Why a string is not a host name: its spelling, or a file name built from it would be too
/// long.
#[derive(Debug, Clone, thiserror::Error)]
#[error(transparent)]
pub struct BadHostName(#[from] BadName);

impl HostName {
    /// Validates a host name; it becomes file names (`<host>.json`, `<host>.result.json`), so
    /// it is spelled as one and short enough for the longest of them.
    pub fn new(name: impl Into<String>) -> Result<Self, BadHostName> {
        let name = name.into();
        file_names::check(NameKind::Host, &name)?;
        Ok(Self(name))
    }

    /// The name as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::str::FromStr for HostName {
    type Err = BadHostName;
    fn from_str(s: &str) -> Result<Self, BadHostName> {
        Self::new(s)
    }
}

impl TryFrom<String> for HostName {
    type Error = BadHostName;
    fn try_from(s: String) -> Result<Self, BadHostName> {
        Self::new(s)
    }
}

impl From<HostName> for String {
    fn from(h: HostName) -> String {
        h.0
    }
}

impl fmt::Display for HostName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

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

/// A snapshot read from somewhere, with its schema and digest checked.
#[derive(Debug, Clone)]
pub struct VerifiedSnapshot {
    snapshot: Snapshot,
    digest: String,
    origin: String,
    /// The facts as the text read gave them, when they were moved to the keys this version
    /// writes (`function_keys`): the digest is theirs, and written again the snapshot is that
    /// text.
    written: Option<Facts>,
}

/// Why a snapshot could not be read. Every variant names where it came from.
#[derive(Debug, thiserror::Error)]
pub enum SnapshotError {
    /// Not JSON, or JSON of the wrong shape.
    #[error("{origin}: not a valid driftgate snapshot: {error}")]
    Malformed {
        /// File or reference the text came from.
        origin: String,
        /// The parser's message, with line and column.
        error: serde_json::Error,
    },
    /// A different schema id.
    #[error("{origin}: schema is {found:?}, expected {SCHEMA_ID:?}")]
    WrongSchema {
        /// File or reference the text came from.
        origin: String,
        /// The schema id found (or a note that it was missing).
        found: String,
    },
    /// The same key twice in one object: which value counts would depend on the reader.
    #[error("{origin}: {duplicate}; a snapshot states each fact once")]
    DuplicateKey {
        /// File or reference the text came from.
        origin: String,
        /// The key and where it is.
        duplicate: DuplicateKey,
    },
    /// No digest: the snapshot was never sealed.
    #[error(
        "{origin}: snapshot has no digest (write it with driftgate, or `driftgate snapshot seal` a hand-written one)"
    )]
    MissingDigest {
        /// File or reference the text came from.
        origin: String,
    },
    /// The content does not hash to the recorded digest.
    #[error(
        "{origin}: digest mismatch: the file records {recorded} but its content hashes to {computed}; it was changed after it was written"
    )]
    DigestMismatch {
        /// File or reference the text came from.
        origin: String,
        /// The digest written in the file.
        recorded: String,
        /// The digest of what is there now.
        computed: String,
    },
}

impl Snapshot {
    /// The `sha256:` digest of this snapshot's canonical form.
    pub fn digest(&self) -> String {
        canonical::digest(self)
    }

    /// The canonical JSON text, digest included: sorted keys, two-space indent, one fact per
    /// line, trailing newline.
    pub fn to_canonical_json(&self) -> String {
        canonical::render_with_digest(self)
    }

    /// Whether there is at least one source and every source captured completely.
    pub fn is_complete(&self) -> bool {
        !self.sources.is_empty()
            && self
                .sources
                .iter()
                .all(|s| s.status == SourceStatus::Complete)
    }

    /// Reads a snapshot document that may lack a digest (a hand-written one) and checks its
    /// schema id. A digest that is present must still match: re-sealing an edited snapshot is
    /// done by removing its digest, deliberately.
    pub fn seal(text: &str, origin: &str) -> Result<VerifiedSnapshot, SnapshotError> {
        let document = parse_document(text, origin)?;
        let recorded = document.digest.clone();
        let snapshot = Snapshot::from(document);
        match recorded {
            Some(recorded) => verify_digest(snapshot, recorded, origin),
            None => Ok(VerifiedSnapshot::seal(current_keys(snapshot).0, origin)),
        }
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

impl VerifiedSnapshot {
    /// Seals a snapshot driftgate itself just built (a capture) in memory: the same digest
    /// [`VerifiedSnapshot::parse`] would verify in its canonical JSON, without writing and
    /// re-reading that text. `origin` names it in reports.
    pub fn seal(snapshot: Snapshot, origin: &str) -> Self {
        let digest = snapshot.digest();
        VerifiedSnapshot {
            snapshot,
            digest,
            origin: origin.to_owned(),
            written: None,
        }
    }

    /// Parses snapshot text and checks its schema id and digest. `origin` names the file or
    /// reference in errors and reports. A snapshot written before network device functions
    /// were keyed by their MAC is read with them so keyed (`function_keys`); its digest and
    /// its canonical JSON stay those of the text read.
    pub fn parse(text: &str, origin: &str) -> Result<Self, SnapshotError> {
        // What driftgate wrote is read and hashed in place; any other text, and any text with
        // something wrong, goes to serde, whose errors say what.
        if let Some(read) = strict::read(text) {
            return verified(
                read.snapshot,
                read.recorded.to_owned(),
                read.computed,
                origin,
            );
        }
        let document = parse_document(text, origin)?;
        let recorded = document
            .digest
            .clone()
            .ok_or_else(|| SnapshotError::MissingDigest {
                origin: origin.to_owned(),
            })?;
        verify_digest(Snapshot::from(document), recorded, origin)
    }

    /// [`VerifiedSnapshot::parse`] of bytes (a git blob, a file). Bytes that are not UTF-8
    /// are read with replacement characters, which the digest then refuses.
    pub fn parse_bytes(bytes: &[u8], origin: &str) -> Result<Self, SnapshotError> {
        // `from_utf8` checks ASCII a word at a time; `from_utf8_lossy` took 3 % of a fleet check.
        match std::str::from_utf8(bytes) {
            Ok(text) => Self::parse(text, origin),
            Err(_) => Self::parse(&String::from_utf8_lossy(bytes), origin),
        }
    }

    /// The canonical JSON text of the snapshot in `bytes`, verified as
    /// [`VerifiedSnapshot::parse_bytes`] verifies it. A text that is already canonical (what
    /// driftgate wrote) is its own canonical form and comes back as it is, not rendered again.
    pub fn canonical_text(bytes: Vec<u8>, origin: &str) -> Result<String, SnapshotError> {
        let text = match String::from_utf8(bytes) {
            Ok(text) => text,
            Err(not_utf8) => {
                return Ok(Self::parse_bytes(not_utf8.as_bytes(), origin)?.to_canonical_json());
            }
        };
        if let Some(checked) = strict::check(&text) {
            digest_matches(checked.recorded.to_owned(), checked.computed, origin)?;
            return Ok(text);
        }
        Ok(Self::parse(&text, origin)?.to_canonical_json())
    }

    /// The snapshot.
    pub fn snapshot(&self) -> &Snapshot {
        &self.snapshot
    }

    /// Its verified `sha256:` digest: that of the text it was read from, which names it in
    /// reports, run manifests and a promote's check that the baseline did not move (also for
    /// a snapshot whose functions were re-keyed when read).
    pub fn digest(&self) -> &str {
        &self.digest
    }

    /// Where it was read from.
    pub fn origin(&self) -> &str {
        &self.origin
    }

    /// Its canonical JSON text: [`Snapshot::to_canonical_json`] with the digest already
    /// verified, not computed again.
    pub fn to_canonical_json(&self) -> String {
        match &self.written {
            // Written again, it is the text it was read from, which its digest seals.
            Some(facts) => {
                let written = Snapshot {
                    facts: facts.clone(),
                    ..self.snapshot.clone()
                };
                canonical::render_with_verified_digest(&written, &self.digest)
            }
            None => canonical::render_with_verified_digest(&self.snapshot, &self.digest),
        }
    }
}

fn parse_document(text: &str, origin: &str) -> Result<SnapshotDocument, SnapshotError> {
    // A key given twice explains a refusal best, whatever else is wrong: the parse refuses one
    // (see `unique_keys::unique_facts`) but cannot say where, so a failed parse looks for it.
    let refuse = |error: SnapshotError| match unique_keys::first_duplicate_key(text) {
        Some(duplicate) => SnapshotError::DuplicateKey {
            origin: origin.to_owned(),
            duplicate,
        },
        None => error,
    };
    match serde_json::from_str::<SnapshotDocument>(text) {
        Ok(document) if document.schema == SCHEMA_ID => Ok(document),
        Ok(document) => Err(refuse(SnapshotError::WrongSchema {
            origin: origin.to_owned(),
            found: document.schema,
        })),
        Err(error) => Err(refuse(schema_mismatch(text, origin).unwrap_or(
            SnapshotError::Malformed {
                origin: origin.to_owned(),
                error,
            },
        ))),
    }
}

/// When the shape is wrong, a different schema id is the more useful explanation.
fn schema_mismatch(text: &str, origin: &str) -> Option<SnapshotError> {
    let value: serde_json::Value = serde_json::from_str(text).ok()?;
    let found = match value.get("schema") {
        Some(serde_json::Value::String(id)) if id == SCHEMA_ID => return None,
        Some(serde_json::Value::String(id)) => id.clone(),
        Some(other) => other.to_string(),
        None if value.is_object() => "(no schema field)".to_owned(),
        None => return None,
    };
    Some(SnapshotError::WrongSchema {
        origin: origin.to_owned(),
        found,
    })
}

fn verify_digest(
    snapshot: Snapshot,
    recorded: String,
    origin: &str,
) -> Result<VerifiedSnapshot, SnapshotError> {
    let computed = snapshot.digest();
    verified(snapshot, recorded, computed, origin)
}

/// The snapshot, if the digest its content has is the one recorded.
fn verified(
    snapshot: Snapshot,
    recorded: String,
    computed: String,
    origin: &str,
) -> Result<VerifiedSnapshot, SnapshotError> {
    let digest = digest_matches(recorded, computed, origin)?;
    let (snapshot, written) = current_keys(snapshot);
    Ok(VerifiedSnapshot {
        snapshot,
        digest,
        origin: origin.to_owned(),
        written,
    })
}

/// `snapshot` with its facts under the keys this version writes ([`function_keys`]), and the
/// facts as written when any moved.
fn current_keys(mut snapshot: Snapshot) -> (Snapshot, Option<Facts>) {
    match function_keys::rekeyed(&snapshot.facts) {
        Some(facts) => {
            let written = std::mem::replace(&mut snapshot.facts, facts);
            (snapshot, Some(written))
        }
        None => (snapshot, None),
    }
}

/// The digest, when the one a text records is the one its content has.
fn digest_matches(
    recorded: String,
    computed: String,
    origin: &str,
) -> Result<String, SnapshotError> {
    if computed == recorded {
        Ok(computed)
    } else {
        Err(SnapshotError::DigestMismatch {
            origin: origin.to_owned(),
            recorded,
            computed,
        })
    }
}

#[cfg(test)]
mod tests;
