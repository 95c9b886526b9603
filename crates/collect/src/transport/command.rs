//! What every transport runs and returns: a command, its output, its errors, the options of
//! a host's processes, and the session that stops sending once the host stops answering.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use crate::Cancel;

/// Most bytes read from one command's output; more is an error, not a truncated parse.
pub const OUTPUT_LIMIT: usize = 64 * 1024 * 1024;

/// One command a source runs.
#[derive(Debug, Clone, Copy)]
pub struct CommandSpec<'a> {
    /// File name of its recorded output in a `dir:` folder, e.g. `esxcli_storage_nmp_device_list.txt`.
    pub file: &'a str,
    /// The command line.
    pub argv: &'a [&'a str],
    /// Bytes for its standard input (closed when `None`).
    pub stdin: Option<&'a [u8]>,
}

impl CommandSpec<'_> {
    /// The command line as text, for messages.
    pub fn display(&self) -> String {
        self.argv.join(" ")
    }
}

/// What a command produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandOutput {
    /// Exit status.
    pub status: i32,
    /// Standard output.
    pub stdout: Vec<u8>,
    /// Standard error.
    pub stderr: Vec<u8>,
}

impl CommandOutput {
    /// The last non-empty line of standard error, for a one-line message.
    pub fn stderr_line(&self) -> String {
        String::from_utf8_lossy(&self.stderr)
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("")
            .trim()
            .to_owned()
    }
}

/// Why a command could not be run at all.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TransportError {
    /// The program (or `ssh`) could not be started.
    #[error("{target}: cannot run `{command}`: {reason}")]
    Spawn {
        /// Where.
        target: String,
        /// What.
        command: String,
        /// The operating system's reason.
        reason: String,
    },
    /// The command did not finish in time and was killed.
    #[error("{target}: `{command}` did not finish within {timeout:?} and was stopped")]
    Timeout {
        /// Where.
        target: String,
        /// What.
        command: String,
        /// The limit.
        timeout: Duration,
    },
    /// The SSH connection failed (refused, unreachable, authentication, host key).
    #[error("{target}: ssh connection failed: {reason}")]
    Connect {
        /// Where.
        target: String,
        /// ssh's message.
        reason: String,
    },
    /// A `dir:` folder has no recording of the command.
    #[error("{target}: `{command}` was not recorded (no file {file})")]
    NotRecorded {
        /// Where.
        target: String,
        /// What.
        command: String,
        /// The file looked for.
        file: String,
    },
    /// The output exceeded [`OUTPUT_LIMIT`].
    #[error("{target}: `{command}` printed more than {OUTPUT_LIMIT} bytes")]
    TooLarge {
        /// Where.
        target: String,
        /// What.
        command: String,
    },
    /// The host's deadline ([`HostDeadline`]) passed: the command was stopped, or not started.
    #[error("{target}: no answer within the host deadline of {} s (--host-timeout): `{command}`", .timeout.as_secs())]
    PastDeadline {
        /// Where.
        target: String,
        /// What.
        command: String,
        /// The host's time limit.
        timeout: Duration,
    },
    /// The capture was stopped (a signal, or its caller gave up on it): the command was
    /// stopped, or not started.
    #[error("{target}: `{command}` was stopped: the capture was interrupted")]
    Stopped {
        /// Where.
        target: String,
        /// What.
        command: String,
    },
}

impl TransportError {
    /// The error of `command` at `target` once `host`'s stop fired or its deadline passed:
    /// [`TransportError::PastDeadline`] when the time is up, else [`TransportError::Stopped`].
    pub fn stopped(host: &HostDeadline, target: &str, command: &str) -> Self {
        if host.is_past() {
            TransportError::PastDeadline {
                target: target.to_owned(),
                command: command.to_owned(),
                timeout: host.timeout,
            }
        } else {
            TransportError::Stopped {
                target: target.to_owned(),
                command: command.to_owned(),
            }
        }
    }
}

/// Runs commands somewhere.
pub trait CommandTransport {
    /// Where commands run, for messages and the snapshot's source target.
    fn target(&self) -> String;
    /// Runs one command; a non-zero exit is an output, not an error.
    fn run(&self, spec: &CommandSpec<'_>) -> Result<CommandOutput, TransportError>;
}

/// The transport of one capture. Once the host stops answering (a timeout, a failed
/// connection), nothing more is sent: a hung host costs one timeout, not one per command.
pub struct Session<'a> {
    transport: &'a dyn CommandTransport,
    unreachable: Option<TransportError>,
}

impl<'a> Session<'a> {
    /// A session over `transport`.
    pub fn new(transport: &'a dyn CommandTransport) -> Self {
        Session {
            transport,
            unreachable: None,
        }
    }

    /// Where commands run.
    pub fn target(&self) -> String {
        self.transport.target()
    }

    /// Whether the host stopped answering.
    pub fn is_unreachable(&self) -> bool {
        self.unreachable.is_some()
    }

    /// Runs a command, or repeats the error that made the host unreachable.
    pub fn run(&mut self, spec: &CommandSpec<'_>) -> Result<CommandOutput, TransportError> {
        if let Some(error) = &self.unreachable {
            return Err(error.clone());
        }
        self.transport.run(spec).inspect_err(|e| {
            if matches!(
                e,
                TransportError::Timeout { .. }
                    | TransportError::Connect { .. }
                    | TransportError::PastDeadline { .. }
                    | TransportError::Stopped { .. }
            ) {
                self.unreachable = Some(e.clone());
            }
        })
    }
}

/// Settings shared by the process-based transports.
#[derive(Debug, Clone)]
pub struct ProcessOptions {
    /// Per-command time limit.
    pub timeout: Duration,
    /// `ssh -F FILE`.
    pub ssh_config: Option<PathBuf>,
    /// TCP connect timeout for ssh.
    pub connect_timeout: Duration,
    /// More environment variables no child process inherits, besides every `DRIFTGATE_*`:
    /// the ones an inventory names for credentials (`CredentialsRef::env_names`).
    pub withheld_env: Vec<String>,
    /// The host's deadline, which every command's `timeout` is capped at and whose stop kills
    /// a running command. [`crate::capture_host`] sets it; `None` leaves each command
    /// its own `timeout` only.
    pub host: Option<HostDeadline>,
}

/// The time a host's capture has, shared by all its commands: when it is up, and a stop that
/// fires then and when the capture is dropped (its caller gave up).
#[derive(Debug, Clone)]
pub struct HostDeadline {
    /// When the host's time is up.
    pub at: Instant,
    /// The host's time limit (`--host-timeout`), for messages.
    pub timeout: Duration,
    /// Fired: no command starts, a running one is killed.
    pub stop: Cancel,
}

impl HostDeadline {
    /// A deadline `timeout` from now, with a stop of its own.
    pub fn starting_now(timeout: Duration) -> Self {
        HostDeadline {
            at: Instant::now() + timeout,
            timeout,
            stop: Cancel::new(),
        }
    }

    /// Whether the time is up.
    pub fn is_past(&self) -> bool {
        Instant::now() >= self.at
    }

    /// Whether no command may run any more (the stop fired or the time is up).
    pub fn is_over(&self) -> bool {
        self.stop.is_cancelled() || self.is_past()
    }
}

impl Default for ProcessOptions {
    fn default() -> Self {
        ProcessOptions {
            timeout: Duration::from_secs(60),
            ssh_config: None,
            connect_timeout: Duration::from_secs(10),
            withheld_env: Vec::new(),
            host: None,
        }
    }
}
