//! Capture: read a host's configuration from its sources into a snapshot.
//!
//! A source is a kind (what it reads and how it normalizes) plus a location (the transport):
//! one [`Source`] trait, one [`SourceCapture`] result, one typed [`SourceError`].
//! [`capture_host`] reads a host's sources at once on the caller's runtime (command transports
//! on its blocking pool) and tells a [`Reporter`] as each starts and ends.
//! A source that cannot be read completely is recorded as `partial` or `failed` with an
//! error naming the command or URI: capture faults are data, never a silent gap.
//! What it captures becomes facts of a [`driftgate_snapshot`], typed by [`driftgate_model`];
//! every value passes [`driftgate_secrets`]' filter first.

pub mod encoding;
pub mod esxi;
mod facts;
pub mod hosts;
pub mod lines;
pub mod linux;
pub mod lldp;
mod options;
pub mod peer;
pub mod source;
#[cfg(test)]
mod test_support;
pub mod transport;
pub mod vcenter;
pub mod windows;

use std::fmt;

use driftgate_snapshot::{Facts, HostName, Snapshot, SourceRecord, SourceStatus};
pub(crate) use facts::set_fact;
pub use facts::unjoined_notes;
pub use options::CaptureOptions;
use redfish::{BadRedfishLocation, RedfishLocation};
pub use source::{CommandSource, Source};
use transport::{BadLocation, Location, ProcessOptions};

// What moved below this crate keeps its paths here: the OS sources read `crate::nic`,
// `crate::placeholder` and `crate::cancel` as before, and `redfish` names the BMC crawl.
pub use driftgate_http::cancel::{self, Cancel};
pub use driftgate_http::redact_userinfo;
pub use driftgate_model::placeholder;
use driftgate_redfish as redfish;
pub use driftgate_snapshot::nic;
pub use driftgate_snapshot::source::{INTERRUPTED, SourceCapture, SourceError, SourceKind};

/// One `--source KIND=LOCATION`: what to read and where from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SourceSpec {
    /// A BMC or a mockup folder.
    Redfish(RedfishLocation),
    /// A Windows host's collector, run locally, over ssh, or recorded in a folder.
    Windows(Location),
    /// A Linux host's NIC tools, run locally, over ssh, or recorded in a folder.
    Linux(Location),
    /// An ESXi host's commands, run locally, over ssh, or recorded in a folder.
    Esxi(Location),
    /// An ESXi host read through its vCenter (`esxi=vcenter://…?host=…`).
    EsxiVcenter(vcenter::VcenterLocation),
    /// A host's LLDP agent, run locally, over ssh, or recorded in a folder.
    Lldp(Location),
}

/// Why a `--source` argument does not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BadSource {
    /// No `=`.
    #[error("{0:?}: expected KIND=LOCATION, e.g. esxi=ssh://root@esx01")]
    Shape(String),
    /// An unknown kind.
    #[error("{0:?}: unknown source kind (known: {known})", known = SourceKind::names())]
    Kind(String),
    /// A bad command location.
    #[error(transparent)]
    Location(#[from] BadLocation),
    /// A bad Redfish location.
    #[error(transparent)]
    Redfish(#[from] BadRedfishLocation),
    /// A bad vCenter location.
    #[error(transparent)]
    Vcenter(#[from] vcenter::BadVcenterLocation),
}

impl SourceSpec {
    /// Parses `KIND=LOCATION`.
    pub fn parse(text: &str) -> Result<Self, BadSource> {
        let (kind, location) = text
            .split_once('=')
            .ok_or_else(|| BadSource::Shape(redact_userinfo(text)))?;
        let Some(kind) = SourceKind::named(kind) else {
            return Err(BadSource::Kind(redact_userinfo(kind)));
        };
        match kind {
            SourceKind::Redfish => Ok(SourceSpec::Redfish(RedfishLocation::parse(location)?)),
            SourceKind::Windows => Ok(SourceSpec::Windows(Location::parse(location)?)),
            SourceKind::Linux => Ok(SourceSpec::Linux(Location::parse(location)?)),
            SourceKind::Esxi => match vcenter::VcenterLocation::parse(location) {
                Some(vcenter) => Ok(SourceSpec::EsxiVcenter(vcenter?)),
                None => Ok(SourceSpec::Esxi(Location::parse(location)?)),
            },
            SourceKind::Lldp => Ok(SourceSpec::Lldp(Location::parse(location)?)),
        }
    }

    /// What the source reads.
    pub fn kind(&self) -> SourceKind {
        match self {
            SourceSpec::Redfish(_) => SourceKind::Redfish,
            SourceSpec::Windows(_) => SourceKind::Windows,
            SourceSpec::Linux(_) => SourceKind::Linux,
            SourceSpec::Esxi(_) | SourceSpec::EsxiVcenter(_) => SourceKind::Esxi,
            SourceSpec::Lldp(_) => SourceKind::Lldp,
        }
    }
}

/// A spec hands out its kind's source.
impl Source for SourceSpec {
    fn kind(&self) -> SourceKind {
        SourceSpec::kind(self)
    }

    async fn capture(&self, options: &CaptureOptions) -> SourceCapture {
        let (kind, location, read): (_, _, source::Reader) = match self {
            SourceSpec::Redfish(location) => return Source::capture(location, options).await,
            SourceSpec::EsxiVcenter(location) => {
                return vcenter::capture(
                    location,
                    &options.redfish,
                    &options.vcenters,
                    &options.cancel,
                )
                .await;
            }
            SourceSpec::Windows(location) => (SourceKind::Windows, location, windows::capture),
            SourceSpec::Linux(location) => (SourceKind::Linux, location, linux::capture),
            SourceSpec::Esxi(location) => (SourceKind::Esxi, location, esxi::capture),
            SourceSpec::Lldp(location) => (SourceKind::Lldp, location, lldp::capture),
        };
        CommandSource::new(kind, location, read)
            .capture(options)
            .await
    }
}

/// A BMC is a source of its own.
impl Source for RedfishLocation {
    fn kind(&self) -> SourceKind {
        SourceKind::Redfish
    }

    async fn capture(&self, options: &CaptureOptions) -> SourceCapture {
        redfish::capture(self, &options.redfish, &options.cancel).await
    }
}

/// `KIND=LOCATION`, as `--source` and an inventory's `sources` give it.
impl fmt::Display for SourceSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SourceSpec::Redfish(location) => write!(f, "redfish={location}"),
            SourceSpec::Windows(location) => write!(f, "windows={location}"),
            SourceSpec::Linux(location) => write!(f, "linux={location}"),
            SourceSpec::Esxi(location) => write!(f, "esxi={location}"),
            SourceSpec::EsxiVcenter(location) => write!(f, "esxi={location}"),
            SourceSpec::Lldp(location) => write!(f, "lldp={location}"),
        }
    }
}

/// A capture: the snapshot, and notes for the operator that are not facts.
#[derive(Debug, Clone)]
pub struct Captured {
    /// The snapshot.
    pub snapshot: Snapshot,
    /// Things worth saying, e.g. adapters that could not be joined to the BMC's view.
    pub notes: Vec<String>,
}

/// What a capture tells its caller while it works (the library prints nothing): the CLI
/// implements it (a progress bar, log lines). Called from capture tasks, hence `Send + Sync`.
pub trait Reporter: Send + Sync {
    /// A source of `host` started reading.
    fn source_started(&self, _host: &HostName, _source: SourceKind) {}
    /// A source of `host` finished reading, complete or not.
    fn source_finished(
        &self,
        _host: &HostName,
        _source: SourceKind,
        _status: SourceStatus,
        _took: std::time::Duration,
    ) {
    }
}

/// A reporter that is told nothing.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoReporter;

impl Reporter for NoReporter {}

/// Captures `host` from every source into one snapshot; a failing source is recorded, not
/// fatal. The sources are read at once; `reporter` hears of each as it starts and ends.
/// Must run inside a tokio runtime (the caller's: the CLI owns the one runtime).
///
/// The host has [`CaptureOptions::host_timeout`] for all its sources: the BMC crawl stops
/// then, and so do its commands (a running one is killed, none starts; the source is
/// partial or failed, naming the command and the deadline). Dropping this future (a caller
/// that gives up) kills the running commands too: nothing outlives an abandoned capture but
/// the bounded deletion of a BMC session.
pub async fn capture_host(
    host: HostName,
    sources: &[SourceSpec],
    options: &CaptureOptions,
    reporter: &dyn Reporter,
) -> Captured {
    capture_sources(host, sources, options, reporter).await
}

/// [`capture_host`] of any sources.
pub(crate) async fn capture_sources<S: Source>(
    host: HostName,
    sources: &[S],
    options: &CaptureOptions,
    reporter: &dyn Reporter,
) -> Captured {
    let captured_at = jiff::Timestamp::now()
        .round(jiff::Unit::Second)
        .unwrap_or_else(|_| jiff::Timestamp::now());
    let deadline = transport::HostDeadline::starting_now(options.host_timeout());
    // Fires the commands' stop when this future is dropped before it ends.
    let _stop_on_drop = StopOnDrop(deadline.stop.clone());
    // At the deadline the commands' stop fires. (A stop of the run does not fire it: the
    // caller's signal handling stops running children, giving them a grace; none starts.)
    let expire = {
        let deadline = deadline.clone();
        async move {
            tokio::time::sleep_until(deadline.at.into()).await;
            deadline.stop.cancel();
        }
    };
    let options = &CaptureOptions {
        process: ProcessOptions {
            host: Some(deadline),
            ..options.process.clone()
        },
        ..options.clone()
    };
    let captures = {
        let reads = sources.iter().map(|source| {
            let host = &host;
            async move {
                let kind = source.kind();
                reporter.source_started(host, kind);
                let started = std::time::Instant::now();
                let capture = source.capture(options).await;
                reporter.source_finished(host, kind, capture.status, started.elapsed());
                (kind, capture)
            }
        });
        let reads = futures::future::join_all(reads);
        tokio::pin!(reads);
        tokio::select! {
            captures = &mut reads => captures,
            // The stop fired (the sources see it and end soon): wait for what they read.
            () = expire => reads.await,
        }
    };
    let mut facts = Facts::new();
    let mut records = Vec::with_capacity(captures.len());
    let mut notes = Vec::new();
    for (kind, capture) in captures {
        notes.extend(capture.notes);
        // Whatever a source read while the capture was being stopped is not a whole answer.
        let (source_facts, status, error) = if options.cancel.is_cancelled() {
            (
                Facts::new(),
                SourceStatus::Failed,
                Some(SourceError::Interrupted),
            )
        } else {
            (capture.facts, capture.status, capture.error)
        };
        facts.extend(source_facts);
        records.push(SourceRecord {
            name: kind.to_string(),
            target: capture.target,
            status,
            error: error.map(|e| e.to_string()),
        });
    }
    let snapshot = Snapshot {
        host,
        captured_at,
        tool: driftgate_snapshot::tool_version(),
        sources: records,
        facts,
    };
    Captured { snapshot, notes }
}

/// Fires a host's stop when dropped: a capture whose caller gave up kills its commands.
struct StopOnDrop(Cancel);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.cancel();
    }
}
