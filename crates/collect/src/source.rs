//! One source: the trait every kind implements, the one result type it returns, and the
//! typed error its record carries. Command-based kinds (windows, linux, esxi, lldp) share
//! [`CommandSource`]: their transports are synchronous, so a whole read runs on tokio's
//! blocking pool and never stalls the runtime that drives the BMCs.

use std::future::Future;

use super::cancel::Cancel;
use super::transport::{self, CommandTransport, Location, ProcessOptions};
use super::{CaptureOptions, SourceCapture, SourceError, SourceKind};

/// One place facts come from. Implemented per kind: [`super::redfish::RedfishLocation`]
/// reads a BMC, [`CommandSource`] runs a host's commands; [`super::SourceSpec`] hands out
/// the one a `--source` names.
pub trait Source: Send + Sync {
    /// What the source reads.
    fn kind(&self) -> SourceKind;
    /// Reads it. Never fails: what could not be read is the result's status and error.
    fn capture(&self, options: &CaptureOptions) -> impl Future<Output = SourceCapture> + Send;
}

/// The reader of a command-based kind: a transport in, facts out.
pub type Reader = fn(&dyn CommandTransport) -> SourceCapture;

/// A source read by commands over a transport: windows, linux, esxi or lldp at a
/// [`Location`].
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
            // and the caller's signal handling (running children are stopped); the host's
            // deadline (`process.host`: fired at the deadline and when the capture is dropped)
            // kills a running child and starts none, so the read ends even when nobody waits
            // for it any more.
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
        host: options.host.as_ref(),
    })
}

/// A transport that starts no command once the capture is cancelled or the host's time is up.
/// (A command already running is stopped by its transport when the host's stop fires.)
struct Interruptible<'a> {
    inner: &'a dyn CommandTransport,
    cancel: &'a Cancel,
    host: Option<&'a transport::HostDeadline>,
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
        if let Some(host) = self.host.filter(|host| host.is_over()) {
            return Err(transport::TransportError::stopped(
                host,
                &self.inner.target(),
                &spec.display(),
            ));
        }
        self.inner.run(spec)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;
    use std::time::Duration;

    use super::*;
    use crate::{Reporter, SourceSpec, capture_host};
    use driftgate_snapshot::{Facts, HostName, SourceStatus};

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
        let examples = concat!(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."), "/examples");
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

    /// Where the test `N`'s sleeping command writes its pid, and the command after it its own.
    fn pid_file(test: usize, command: usize) -> std::path::PathBuf {
        std::env::temp_dir().join(format!(
            "driftgate-sleeper-{}-{test}-{command}",
            std::process::id()
        ))
    }

    /// A reader whose first command writes its pid and sleeps a minute; a second command (which
    /// must never start once the first was stopped) writes its pid too.
    fn sleeper<const TEST: usize>(transport: &dyn CommandTransport) -> SourceCapture {
        let mut problems = Vec::new();
        for command in [1, 2] {
            let script = format!(
                "echo $$ > {}; exec sleep 60",
                pid_file(TEST, command).display()
            );
            let argv = ["sh", "-c", script.as_str()];
            let spec = transport::CommandSpec {
                file: "sleep",
                argv: &argv,
                stdin: None,
            };
            if let Err(e) = transport.run(&spec) {
                problems.push(e.to_string());
            }
        }
        SourceCapture {
            target: transport.target(),
            facts: Facts::new(),
            status: SourceStatus::Failed,
            error: Some(SourceError::unread(problems)),
            notes: Vec::new(),
        }
    }

    /// The pid the test's command `command` wrote, once it did (within `within`).
    fn pid_of(test: usize, command: usize, within: Duration) -> Option<u32> {
        let until = std::time::Instant::now() + within;
        loop {
            if let Some(pid) = std::fs::read_to_string(pid_file(test, command))
                .ok()
                .and_then(|text| text.trim().parse().ok())
            {
                return Some(pid);
            }
            if std::time::Instant::now() >= until {
                return None;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Whether process `pid` is gone within `within` (a killed child is reaped at once).
    fn gone(pid: u32, within: Duration) -> bool {
        let until = std::time::Instant::now() + within;
        while std::path::Path::new(&format!("/proc/{pid}")).exists() {
            if std::time::Instant::now() >= until {
                return false;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        true
    }

    fn sleeping_source(read: Reader) -> [CommandSource<'static>; 1] {
        static LOCAL: Location = Location::Local;
        [CommandSource::new(SourceKind::Linux, &LOCAL, read)]
    }

    fn options_with_host_timeout(seconds: u64) -> CaptureOptions {
        let mut options = CaptureOptions::default();
        options.redfish.client.host_timeout = Duration::from_secs(seconds);
        options
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn commands_end_at_the_host_deadline_naming_the_command_and_leave_no_child() {
        const TEST: usize = 1;
        let options = options_with_host_timeout(1);
        assert_eq!(options.process.timeout, Duration::from_secs(60));
        let started = std::time::Instant::now();
        let captured = crate::capture_sources(
            HostName::new("h").unwrap(),
            &sleeping_source(sleeper::<TEST>),
            &options,
            &crate::NoReporter,
        )
        .await;
        let took = started.elapsed();
        assert!(
            took >= Duration::from_secs(1) && took < Duration::from_secs(10),
            "{took:?}"
        );
        let error = captured.snapshot.sources[0].error.clone().unwrap();
        assert!(
            error.starts_with(
                "local:: no answer within the host deadline of 1 s (--host-timeout): `sh -c echo $$ > "
            ) && error.contains("; exec sleep 60`"),
            "{error}"
        );
        let pid = pid_of(TEST, 1, Duration::ZERO).expect("the first command ran");
        assert!(gone(pid, Duration::ZERO), "process {pid} was killed");
        assert_eq!(
            pid_of(TEST, 2, Duration::ZERO),
            None,
            "no command starts after the deadline"
        );
        let _ = std::fs::remove_file(pid_file(TEST, 1));
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn dropping_the_capture_kills_its_running_command_and_starts_no_other() {
        const TEST: usize = 2;
        let options = options_with_host_timeout(300);
        let sources = sleeping_source(sleeper::<TEST>);
        let capture = crate::capture_sources(
            HostName::new("h").unwrap(),
            &sources,
            &options,
            &crate::NoReporter,
        );
        let pid = tokio::select! {
            _ = capture => panic!("the command sleeps a minute"),
            pid = tokio::task::spawn_blocking(|| pid_of(TEST, 1, Duration::from_secs(20))) => {
                pid.unwrap().expect("the first command starts")
            }
        };
        // The capture future is dropped now: its caller gave up on it.
        assert!(
            gone(pid, Duration::from_secs(5)),
            "process {pid} was killed"
        );
        // The reader saw its command stopped at once; the next one would start now.
        std::thread::sleep(Duration::from_millis(300));
        assert_eq!(
            pid_of(TEST, 2, Duration::ZERO),
            None,
            "no command starts after the drop"
        );
        let _ = std::fs::remove_file(pid_file(TEST, 1));
    }

    #[test]
    fn errors_read_as_the_snapshot_records_them() {
        assert_eq!(SourceError::Interrupted.to_string(), crate::INTERRUPTED);
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
                reason: "login refused (HTTP 401)".into()
            }
            .to_string(),
            "https://bmc: login refused (HTTP 401)"
        );
    }

    #[test]
    fn every_kind_is_known_by_name_and_in_each_message() {
        use crate::{BadSource, SourceSpec};
        for kind in SourceKind::ALL {
            assert_eq!(SourceKind::named(kind.as_str()), Some(kind));
            let location = match kind {
                SourceKind::Redfish => "mockup:recorded",
                _ => "dir:recorded",
            };
            let spec = SourceSpec::parse(&format!("{kind}={location}")).unwrap();
            assert_eq!(spec.kind(), kind);
        }
        assert_eq!(SourceKind::names(), "redfish, windows, linux, esxi, lldp");
        let unknown = SourceSpec::parse("bmc=dir:recorded").unwrap_err();
        assert!(matches!(unknown, BadSource::Kind(_)));
        assert_eq!(
            unknown.to_string(),
            "\"bmc\": unknown source kind (known: redfish, windows, linux, esxi, lldp)"
        );
    }

    #[tokio::test]
    async fn a_cancelled_capture_starts_nothing_and_is_never_complete() {
        use crate::{CaptureOptions, NoReporter, SourceSpec, capture_host};
        use driftgate_snapshot::{HostName, SourceStatus};
        let examples = concat!(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."), "/examples");
        let sources = [
            format!("redfish=mockup:{examples}/azure-local-dcbx/recorded/baseline/bmc"),
            format!("esxi=dir:{examples}/esxi-mscs-psp/recorded/round-robin"),
            "linux=local:".to_owned(),
        ]
        .map(|s| SourceSpec::parse(&s).unwrap());
        let intact = capture_host(
            HostName::new("h").unwrap(),
            &sources[..2],
            &CaptureOptions::default(),
            &NoReporter,
        )
        .await;
        assert!(
            intact.snapshot.is_complete(),
            "{:?}",
            intact.snapshot.sources
        );
        let cancel = Cancel::new();
        cancel.cancel();
        let options = CaptureOptions {
            cancel,
            ..CaptureOptions::default()
        };
        let captured =
            capture_host(HostName::new("h").unwrap(), &sources, &options, &NoReporter).await;
        assert!(!captured.snapshot.is_complete());
        assert!(captured.snapshot.facts.is_empty());
        for record in &captured.snapshot.sources {
            assert_eq!(record.status, SourceStatus::Failed, "{}", record.name);
            assert_eq!(
                record.error.as_deref(),
                Some(crate::INTERRUPTED),
                "{}",
                record.name
            );
        }
    }
}
