//! Capture: read a host's configuration from its sources into a snapshot.
//!
//! A source is a kind (what it reads and how it normalizes) plus a location (the transport).
//! A source that cannot be read completely is recorded as `partial` or `failed` with an
//! error naming the command or URI: capture faults are data, never a silent gap.
//! Imports: [`crate::snapshot`], [`crate::model`].

pub mod esxi;
pub mod transport;

use std::fmt;

use crate::snapshot::{Facts, HostName, Snapshot, SourceRecord};
use transport::{BadLocation, Location, ProcessOptions};

/// What a source reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SourceKind {
    /// ESXi storage paths and version through `esxcli`.
    Esxi,
}

impl SourceKind {
    /// The name used on the command line and in snapshots.
    pub fn as_str(self) -> &'static str {
        match self {
            SourceKind::Esxi => "esxi",
        }
    }
}

impl fmt::Display for SourceKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One `--source KIND=LOCATION`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceSpec {
    /// What to read.
    pub kind: SourceKind,
    /// Where from.
    pub location: Location,
}

/// Why a `--source` argument does not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BadSource {
    /// No `=`.
    #[error("{0:?}: expected KIND=LOCATION, e.g. esxi=ssh://root@esx01")]
    Shape(String),
    /// An unknown kind.
    #[error("{0:?}: unknown source kind (known: esxi)")]
    Kind(String),
    /// A bad location.
    #[error(transparent)]
    Location(#[from] BadLocation),
}

impl SourceSpec {
    /// Parses `KIND=LOCATION`.
    pub fn parse(text: &str) -> Result<Self, BadSource> {
        let (kind, location) = text
            .split_once('=')
            .ok_or_else(|| BadSource::Shape(text.to_owned()))?;
        let kind = match kind {
            "esxi" => SourceKind::Esxi,
            other => return Err(BadSource::Kind(other.to_owned())),
        };
        Ok(SourceSpec {
            kind,
            location: Location::parse(location)?,
        })
    }
}

/// Settings of a capture.
#[derive(Debug, Clone, Default)]
pub struct CaptureOptions {
    /// Command transports' settings.
    pub process: ProcessOptions,
}

/// Captures `host` from every source into one snapshot; a failing source is recorded, not
/// fatal.
pub fn capture_host(host: HostName, sources: &[SourceSpec], options: &CaptureOptions) -> Snapshot {
    let captured_at = jiff::Timestamp::now()
        .round(jiff::Unit::Second)
        .unwrap_or_else(|_| jiff::Timestamp::now());
    let mut facts = Facts::new();
    let mut records = Vec::with_capacity(sources.len());
    for source in sources {
        let (record, source_facts) = match source.kind {
            SourceKind::Esxi => {
                let transport = transport::for_location(&source.location, &options.process);
                let capture = esxi::capture(transport.as_ref());
                let record = SourceRecord {
                    name: source.kind.to_string(),
                    target: transport.target(),
                    status: capture.status,
                    error: capture.error,
                };
                (record, capture.facts)
            }
        };
        facts.extend(source_facts);
        records.push(record);
    }
    Snapshot {
        host,
        captured_at,
        tool: crate::tool_version(),
        sources: records,
        facts,
    }
}
