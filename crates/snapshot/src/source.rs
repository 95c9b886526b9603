//! What one source of a capture read, before it becomes part of a snapshot: its kind, its
//! facts, whether it was read completely, and the typed error its [`crate::SourceRecord`]
//! carries as text. Every source kind returns a [`SourceCapture`], whichever crate reads it.

use std::fmt;

use crate::{Facts, SourceStatus};

/// What a source reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SourceKind {
    /// A BMC over Redfish: NIC firmware settings, firmware inventory, BIOS.
    Redfish,
    /// Windows / Azure Local NIC QoS through the PowerShell collector.
    Windows,
    /// Linux NIC DCB through iproute2 `dcb`, `ethtool`, `devlink`, `mlnx_qos`, `mlxconfig`.
    Linux,
    /// ESXi storage paths and version through `esxcli`.
    Esxi,
    /// What each port's LLDP neighbour advertises, through lldpad's `lldptool` or lldpd's
    /// `lldpcli`.
    Lldp,
}

impl SourceKind {
    /// Every kind, in the order messages list them: what `KIND=LOCATION` accepts, and the one
    /// list every message naming the kinds is made from.
    pub const ALL: [SourceKind; 5] = [
        SourceKind::Redfish,
        SourceKind::Windows,
        SourceKind::Linux,
        SourceKind::Esxi,
        SourceKind::Lldp,
    ];

    /// The kind named `name` on the command line, if any.
    pub fn named(name: &str) -> Option<SourceKind> {
        SourceKind::ALL
            .into_iter()
            .find(|kind| kind.as_str() == name)
    }

    /// The names of [`Self::ALL`], comma separated: `redfish, windows, linux, esxi, lldp`.
    pub fn names() -> String {
        SourceKind::ALL.map(SourceKind::as_str).join(", ")
    }

    /// The name used on the command line and in snapshots.
    pub fn as_str(self) -> &'static str {
        match self {
            SourceKind::Redfish => "redfish",
            SourceKind::Windows => "windows",
            SourceKind::Linux => "linux",
            SourceKind::Esxi => "esxi",
            SourceKind::Lldp => "lldp",
        }
    }
}

impl fmt::Display for SourceKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What one source read: where from, its facts, whether reading was complete, and why not.
#[derive(Debug, Clone, PartialEq)]
pub struct SourceCapture {
    /// Where it read from (no credentials).
    pub target: String,
    /// The facts.
    pub facts: Facts,
    /// Complete, partial or failed.
    pub status: SourceStatus,
    /// What could not be read, naming the command or URI.
    pub error: Option<SourceError>,
    /// Worth telling the operator, but not facts (an adapter that cannot be joined to the
    /// BMC's view, a session left open).
    pub notes: Vec<String>,
}

impl SourceCapture {
    /// A source that read nothing, for `error`.
    pub fn failed(target: String, error: SourceError) -> Self {
        SourceCapture {
            target,
            facts: Facts::new(),
            status: SourceStatus::Failed,
            error: Some(error),
            notes: Vec::new(),
        }
    }

    /// The error as the snapshot records it.
    pub fn error_text(&self) -> Option<String> {
        self.error.as_ref().map(ToString::to_string)
    }
}

/// The error of work that a cancellation stopped, for source records.
pub const INTERRUPTED: &str = "the capture was interrupted before this source finished";

/// Why a source is not complete. Its text is what the snapshot's source record says.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SourceError {
    /// The capture was stopped (a signal) before this source finished.
    #[error("{}", INTERRUPTED)]
    Interrupted,
    /// What could not be read or understood, each problem naming its command, file or URI.
    #[error("{}", problems_text(.problems, *.more))]
    Unread {
        /// The problems shown.
        problems: Vec<String>,
        /// How many more there were.
        more: usize,
    },
    /// The BMC refused or never answered the login.
    #[error("{target}: {reason}")]
    Login {
        /// The BMC.
        target: String,
        /// Why.
        reason: String,
    },
    /// The reader stopped without an answer (it panicked): nothing it read is kept.
    #[error("{target}: the {kind} source stopped without an answer: {reason}")]
    Lost {
        /// Where it read from.
        target: String,
        /// The source's kind.
        kind: SourceKind,
        /// What the runtime said.
        reason: String,
    },
}

impl SourceError {
    /// Every problem, shown.
    pub fn unread(problems: Vec<String>) -> Self {
        SourceError::Unread { problems, more: 0 }
    }

    /// One problem.
    pub fn one(problem: impl Into<String>) -> Self {
        Self::unread(vec![problem.into()])
    }

    /// The first `shown` problems, and how many more there were.
    pub fn first(mut problems: Vec<String>, shown: usize) -> Self {
        let more = problems.len().saturating_sub(shown);
        problems.truncate(shown);
        SourceError::Unread { problems, more }
    }
}

fn problems_text(problems: &[String], more: usize) -> String {
    let mut text = problems.join("; ");
    if more > 0 {
        text.push_str(&format!("; and {more} more"));
    }
    text
}
