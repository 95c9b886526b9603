//! One source: the trait every kind implements, the one result type it returns, and the
//! typed error its record carries. Command-based kinds (windows, linux, esxi) share
//! [`CommandSource`]: their transports are synchronous, so a whole read runs on tokio's
//! blocking pool and never stalls the runtime that drives the BMCs.

use std::future::Future;

use super::cancel::{self, Cancel};
use super::transport::{self, CommandTransport, Location, ProcessOptions};
use super::{CaptureOptions, SourceKind};
use crate::snapshot::{Facts, SourceStatus};

/// One place facts come from. Implemented per kind: [`super::redfish::RedfishLocation`]
/// reads a BMC, [`CommandSource`] runs a host's commands; [`super::SourceSpec`] hands out
/// the one a `--source` names.
pub trait Source: Send + Sync {
    /// What the source reads.
    fn kind(&self) -> SourceKind;
    /// Reads it. Never fails: what could not be read is the result's status and error.
    fn capture(&self, options: &CaptureOptions) -> impl Future<Output = SourceCapture> + Send;
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

/// Why a source is not complete. Its text is what the snapshot's source record says.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SourceError {
    /// The capture was stopped (a signal) before this source finished.
    #[error("{}", cancel::INTERRUPTED)]
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
    #[error("{target}: login failed: {reason}")]
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

/// The reader of a command-based kind: a transport in, facts out.
pub type Reader = fn(&dyn CommandTransport) -> SourceCapture;

/// A source read by commands over a transport: windows, linux or esxi at a [`Location`].
#[derive(Debug, Clone, Copy)]
pub struct CommandSource<'a> {
    kind: SourceKind,
    location: &'a Location,
    read: Reader,
}

impl<'a> CommandSource<'a> {
    /// The `kind` source at `location`, read by `read`.
    pub(super) fn new(kind: SourceKind, location: &'a Location, read: Reader) -> Self {
        CommandSource {
            kind,
            location,
            read,
        }
    }
}

impl Source for CommandSource<'_> {
    fn kind(&self) -> SourceKind {
        self.kind
    }

    fn capture(&self, options: &CaptureOptions) -> impl Future<Output = SourceCapture> + Send {
        let (kind, read) = (self.kind, self.read);
        let (location, process) = (self.location.clone(), options.process.clone());
        let cancel = options.cancel.clone();
        async move {
            let target = transport::for_location(&location, &process).target();
            // The transports block (a child process, a file): the whole read runs on the
            // blocking pool. A stop reaches it through `Interruptible` (no command starts)
            // and the caller's signal handling (running children are stopped), so waiting
            // for it ends soon after a stop.
            let read =
                tokio::task::spawn_blocking(move || commands(&location, &process, &cancel, read));
            read.await.unwrap_or_else(|e| {
                SourceCapture::failed(
                    target.clone(),
                    SourceError::Lost {
                        target,
                        kind,
                        reason: e.to_string(),
                    },
                )
            })
        }
    }
}

/// Runs a command-based reader over the transport for `location`.
fn commands(
    location: &Location,
    options: &ProcessOptions,
    cancel: &Cancel,
    read: Reader,
) -> SourceCapture {
    let inner = transport::for_location(location, options);
    read(&Interruptible {
        inner: inner.as_ref(),
        cancel,
    })
}

/// A transport that starts no command once the capture is cancelled. (A command already
/// running is the caller's to stop: it owns the signals and the process.)
struct Interruptible<'a> {
    inner: &'a dyn CommandTransport,
    cancel: &'a Cancel,
}

impl CommandTransport for Interruptible<'_> {
    fn target(&self) -> String {
        self.inner.target()
    }

    fn run(
        &self,
        spec: &transport::CommandSpec<'_>,
    ) -> Result<transport::CommandOutput, transport::TransportError> {
        if self.cancel.is_cancelled() {
            return Err(transport::TransportError::Spawn {
                target: self.inner.target(),
                command: spec.display(),
                reason: "not started: the capture was interrupted".to_owned(),
            });
        }
        self.inner.run(spec)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;
    use std::time::Duration;

    use super::*;
    use crate::collect::{Reporter, SourceSpec, capture_host};
    use crate::snapshot::HostName;

    #[derive(Default)]
    struct Heard(Mutex<Vec<String>>);

    impl Reporter for Heard {
        fn source_started(&self, host: &HostName, source: SourceKind) {
            self.0
                .lock()
                .unwrap()
                .push(format!("{host} {source} started"));
        }

        fn source_finished(
            &self,
            host: &HostName,
            source: SourceKind,
            status: SourceStatus,
            _took: Duration,
        ) {
            self.0
                .lock()
                .unwrap()
                .push(format!("{host} {source} {}", status.as_str()));
        }
    }

    #[tokio::test]
    async fn the_reporter_hears_of_every_source_and_records_keep_their_order() {
        let examples = concat!(env!("CARGO_MANIFEST_DIR"), "/examples");
        let sources = [
            format!("redfish=mockup:{examples}/azure-local-dcbx/recorded/baseline/bmc"),
            format!("esxi=dir:{examples}/nowhere"),
        ]
        .map(|s| SourceSpec::parse(&s).unwrap());
        let heard = Heard::default();
        let options = CaptureOptions::default();
        let capture = capture_host(HostName::new("h").unwrap(), &sources, &options, &heard);
        // The fleet spawns captures on a multi-thread runtime.
        fn send<T: Send>(future: T) -> T {
            future
        }
        let captured = send(capture).await;
        let mut heard = heard.0.into_inner().unwrap();
        heard.sort();
        assert_eq!(
            heard,
            [
                "h esxi failed",
                "h esxi started",
                "h redfish complete",
                "h redfish started"
            ]
        );
        let names: Vec<&str> = captured
            .snapshot
            .sources
            .iter()
            .map(|s| s.name.as_str())
            .collect();
        assert_eq!(names, ["redfish", "esxi"]);
        assert!(captured.snapshot.sources[1].target.contains("nowhere"));
    }

    #[test]
    fn errors_read_as_the_snapshot_records_them() {
        assert_eq!(
            SourceError::Interrupted.to_string(),
            crate::collect::cancel::INTERRUPTED
        );
        let problems: Vec<String> = (1..=7).map(|i| format!("p{i}")).collect();
        assert_eq!(
            SourceError::first(problems.clone(), 5).to_string(),
            "p1; p2; p3; p4; p5; and 2 more"
        );
        assert_eq!(
            SourceError::unread(problems[..2].to_vec()).to_string(),
            "p1; p2"
        );
        assert_eq!(
            SourceError::Login {
                target: "https://bmc".into(),
                reason: "HTTP 401".into()
            }
            .to_string(),
            "https://bmc: login failed: HTTP 401"
        );
    }
}
