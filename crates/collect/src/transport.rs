//! Command transports: run a command on a host and return its bytes and exit status. They
//! never parse what a command printed.
//!
//! - `local:` runs the command on this machine;
//! - `ssh://[user@]host[:port]` runs it through the system OpenSSH client: `BatchMode=yes`
//!   (never a password prompt), a connect timeout, host-key checking as the user's OpenSSH
//!   configuration says (on by default); `--ssh-config FILE` passes `-F FILE`;
//! - `dir:PATH` reads recorded outputs: the standard output of a command is the file named
//!   by its [`CommandSpec::file`] in `PATH`; an optional `FILE.stderr` holds its standard
//!   error and an optional `FILE.exit` its exit status (0 when absent). A missing file means
//!   the command was not recorded.

mod dir;
mod local;
mod ssh;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use super::Cancel;

pub use dir::DirTransport;
pub use local::LocalTransport;
pub use ssh::SshTransport;

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

/// Where a command-based source reads from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Location {
    /// This machine.
    Local,
    /// A host reached with the OpenSSH client.
    Ssh {
        /// Login user, if given.
        user: Option<String>,
        /// Host name or address.
        host: String,
        /// Port, if given.
        port: Option<u16>,
    },
    /// A folder of recorded outputs.
    Dir(PathBuf),
}

/// Why a location does not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid location {text:?}: {reason} (use local:, ssh://[user@]host[:port] or dir:PATH)")]
pub struct BadLocation {
    /// The text given.
    pub text: String,
    /// What is wrong.
    pub reason: &'static str,
}

impl Location {
    /// Parses `local:`, `ssh://[user@]host[:port]` or `dir:PATH`.
    pub fn parse(text: &str) -> Result<Self, BadLocation> {
        let bad = |reason| BadLocation {
            text: super::redact_userinfo(text),
            reason,
        };
        if text == "local:" {
            return Ok(Location::Local);
        }
        if let Some(path) = text.strip_prefix("dir:") {
            return if path.is_empty() {
                Err(bad("empty folder"))
            } else {
                Ok(Location::Dir(PathBuf::from(path)))
            };
        }
        let Some(rest) = text.strip_prefix("ssh://") else {
            return Err(bad("unknown scheme"));
        };
        let rest = rest.trim_end_matches('/');
        let (user, host_port) = match rest.rsplit_once('@') {
            Some((user, host)) if !user.is_empty() => (Some(user.to_owned()), host),
            Some(_) => return Err(bad("empty user")),
            None => (None, rest),
        };
        let (host, port) = match host_port.rsplit_once(':') {
            Some((host, port)) => (
                host,
                Some(port.parse::<u16>().map_err(|_| bad("bad port"))?),
            ),
            None => (host_port, None),
        };
        let valid_host = !host.is_empty()
            && !host.starts_with('-')
            && host
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_'));
        if !valid_host {
            return Err(bad("bad host name"));
        }
        if user.as_deref().is_some_and(|u| u.contains(':')) {
            return Err(bad(
                "a password does not belong in the location (it would be recorded); use ssh keys",
            ));
        }
        if user
            .as_deref()
            .is_some_and(|u| u.starts_with('-') || u.contains(char::is_whitespace))
        {
            return Err(bad("bad user name"));
        }
        Ok(Location::Ssh {
            user,
            host: host.to_owned(),
            port,
        })
    }
}

/// `local:`, `ssh://[user@]host[:port]` or `dir:PATH`: what [`Location::parse`] reads back.
impl std::fmt::Display for Location {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Location::Local => f.write_str("local:"),
            Location::Ssh { user, host, port } => {
                f.write_str("ssh://")?;
                if let Some(user) = user {
                    write!(f, "{user}@")?;
                }
                f.write_str(host)?;
                match port {
                    Some(port) => write!(f, ":{port}"),
                    None => Ok(()),
                }
            }
            Location::Dir(path) => write!(f, "dir:{}", path.display()),
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

/// A transport for `location`.
pub fn for_location(location: &Location, options: &ProcessOptions) -> Box<dyn CommandTransport> {
    match location {
        Location::Local => Box::new(LocalTransport {
            options: options.clone(),
        }),
        Location::Ssh { user, host, port } => Box::new(SshTransport {
            user: user.clone(),
            host: host.clone(),
            port: *port,
            options: options.clone(),
        }),
        Location::Dir(path) => Box::new(DirTransport { dir: path.clone() }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_locations() {
        assert_eq!(Location::parse("local:").unwrap(), Location::Local);
        assert_eq!(
            Location::parse("dir:rec/esx01").unwrap(),
            Location::Dir("rec/esx01".into())
        );
        assert_eq!(
            Location::parse("ssh://root@esx01.example.com:2222").unwrap(),
            Location::Ssh {
                user: Some("root".into()),
                host: "esx01.example.com".into(),
                port: Some(2222)
            }
        );
        assert_eq!(
            Location::parse("ssh://esx01").unwrap(),
            Location::Ssh {
                user: None,
                host: "esx01".into(),
                port: None
            }
        );
        for bad in [
            "",
            "dir:",
            "ssh://",
            "ssh://@h",
            "ssh://h:port",
            "ssh://-oProxyCommand=x",
            "http://x",
            "ssh://a b",
        ] {
            assert!(Location::parse(bad).is_err(), "{bad:?}");
        }
        let err = Location::parse("ssh://root:Passw0rd@esx01")
            .unwrap_err()
            .to_string();
        assert!(!err.contains("Passw0rd"), "{err}");
    }
}
