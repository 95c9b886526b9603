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

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

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
                TransportError::Timeout { .. } | TransportError::Connect { .. }
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
}

impl Default for ProcessOptions {
    fn default() -> Self {
        ProcessOptions {
            timeout: Duration::from_secs(60),
            ssh_config: None,
            connect_timeout: Duration::from_secs(10),
            withheld_env: Vec::new(),
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

/// Runs commands on this machine, without a shell.
pub struct LocalTransport {
    options: ProcessOptions,
}

impl CommandTransport for LocalTransport {
    fn target(&self) -> String {
        "local:".to_owned()
    }

    fn run(&self, spec: &CommandSpec<'_>) -> Result<CommandOutput, TransportError> {
        let (program, args) = spec.argv.split_first().expect("a command has a program");
        let mut command = Command::new(program);
        command.args(args);
        match run_process(
            command,
            spec.stdin,
            &self.options,
            &self.target(),
            &spec.display(),
        ) {
            Err(TransportError::Spawn { reason, .. }) if reason.contains("No such file") => {
                Ok(CommandOutput {
                    status: 127,
                    stdout: Vec::new(),
                    stderr: format!("{program}: command not found").into_bytes(),
                })
            }
            other => other,
        }
    }
}

/// Runs commands through the system OpenSSH client.
pub struct SshTransport {
    user: Option<String>,
    host: String,
    port: Option<u16>,
    options: ProcessOptions,
}

impl CommandTransport for SshTransport {
    fn target(&self) -> String {
        let user = self
            .user
            .as_deref()
            .map(|u| format!("{u}@"))
            .unwrap_or_default();
        let port = self.port.map(|p| format!(":{p}")).unwrap_or_default();
        format!("ssh://{user}{}{port}", self.host)
    }

    fn run(&self, spec: &CommandSpec<'_>) -> Result<CommandOutput, TransportError> {
        let mut command = Command::new("ssh");
        if let Some(config) = &self.options.ssh_config {
            command.arg("-F").arg(config);
        }
        command
            .args(["-o", "BatchMode=yes"])
            .arg("-o")
            .arg(format!(
                "ConnectTimeout={}",
                self.options.connect_timeout.as_secs().max(1)
            ))
            .args(["-o", "LogLevel=ERROR", "-T"]);
        if let Some(port) = self.port {
            command.arg("-p").arg(port.to_string());
        }
        if let Some(user) = &self.user {
            command.arg("-l").arg(user);
        }
        command
            .arg("--")
            .arg(&self.host)
            .arg(shell_words(spec.argv));
        let output = run_process(
            command,
            spec.stdin,
            &self.options,
            &self.target(),
            &spec.display(),
        )?;
        // ssh reserves 255 for its own failures: the command never ran.
        if output.status == 255 {
            return Err(TransportError::Connect {
                target: self.target(),
                reason: output.stderr_line(),
            });
        }
        Ok(output)
    }
}

/// Quotes a command line for the remote POSIX shell.
fn shell_words(argv: &[&str]) -> String {
    argv.iter()
        .map(|word| {
            if !word.is_empty()
                && word
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-_./=:,@%+".contains(c))
            {
                (*word).to_owned()
            } else {
                format!("'{}'", word.replace('\'', r"'\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Reads recorded outputs from a folder.
pub struct DirTransport {
    dir: PathBuf,
}

impl CommandTransport for DirTransport {
    fn target(&self) -> String {
        format!("dir:{}", self.dir.display())
    }

    fn run(&self, spec: &CommandSpec<'_>) -> Result<CommandOutput, TransportError> {
        let path = self.dir.join(spec.file);
        let stdout = match read_limited(&path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(TransportError::NotRecorded {
                    target: self.target(),
                    command: spec.display(),
                    file: path.display().to_string(),
                });
            }
            Err(e) if e.kind() == std::io::ErrorKind::FileTooLarge => {
                return Err(TransportError::TooLarge {
                    target: self.target(),
                    command: spec.display(),
                });
            }
            Err(e) => {
                return Err(TransportError::Spawn {
                    target: self.target(),
                    command: spec.display(),
                    reason: format!("{}: {e}", path.display()),
                });
            }
        };
        let sibling = |suffix: &str| {
            read_limited(&path.with_file_name(format!("{}{suffix}", spec.file))).ok()
        };
        let stderr = sibling(".stderr").unwrap_or_default();
        let status = match sibling(".exit") {
            Some(bytes) => String::from_utf8_lossy(&bytes)
                .trim()
                .parse()
                .map_err(|_| TransportError::Spawn {
                    target: self.target(),
                    command: spec.display(),
                    reason: format!("{}.exit does not hold an exit status", path.display()),
                })?,
            None => 0,
        };
        Ok(CommandOutput {
            status,
            stdout,
            stderr,
        })
    }
}

fn read_limited(path: &Path) -> std::io::Result<Vec<u8>> {
    let file = std::fs::File::open(path)?;
    let mut bytes = Vec::new();
    file.take(OUTPUT_LIMIT as u64 + 1).read_to_end(&mut bytes)?;
    if bytes.len() > OUTPUT_LIMIT {
        return Err(std::io::Error::new(
            std::io::ErrorKind::FileTooLarge,
            "recording too large",
        ));
    }
    Ok(bytes)
}

/// Whether a child process must not inherit the environment variable `name`: every
/// `DRIFTGATE_*` variable, and those named in `withheld_env`. They hold driftgate's credentials (`DRIFTGATE_BMC_USERNAME`,
/// `DRIFTGATE_BMC_PASSWORD`, `DRIFTGATE_MOCKUP_*`), where they are kept
/// (`DRIFTGATE_BMC_CREDENTIALS`) and driftgate's own settings; `ssh` and the tools a capture
/// runs need none of them, and a tool that logs its environment would leak them. An
/// inventory may name other variables for a host's credentials: those are in `withheld_env`.
fn withheld_from_children(name: &std::ffi::OsStr, withheld_env: &[String]) -> bool {
    name.as_encoded_bytes().starts_with(b"DRIFTGATE_")
        || withheld_env
            .iter()
            .any(|withheld| name == withheld.as_str())
}

/// Runs `command` with piped output (and `stdin` fed to it), killing it after `timeout`. The
/// child's environment is driftgate's without [`withheld_from_children`] variables.
fn run_process(
    mut command: Command,
    stdin: Option<&[u8]>,
    options: &ProcessOptions,
    target: &str,
    display: &str,
) -> Result<CommandOutput, TransportError> {
    let timeout = options.timeout;
    for (name, _) in std::env::vars_os() {
        if withheld_from_children(&name, &options.withheld_env) {
            command.env_remove(name);
        }
    }
    let mut child = command
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| TransportError::Spawn {
            target: target.to_owned(),
            command: display.to_owned(),
            reason: e.to_string(),
        })?;
    let stdout = reader(child.stdout.take());
    let stderr = reader(child.stderr.take());
    // Written on its own thread and then closed, so a child that reads slowly (or not at all)
    // never blocks the timeout.
    if let (Some(input), Some(mut pipe)) = (stdin, child.stdin.take()) {
        let input = input.to_vec();
        std::thread::spawn(move || {
            use std::io::Write as _;
            let _ = pipe.write_all(&input);
        });
    }
    let deadline = Instant::now() + timeout;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() >= deadline => {
                kill(&mut child);
                return Err(TransportError::Timeout {
                    target: target.to_owned(),
                    command: display.to_owned(),
                    timeout,
                });
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(10)),
            Err(e) => {
                kill(&mut child);
                return Err(TransportError::Spawn {
                    target: target.to_owned(),
                    command: display.to_owned(),
                    reason: e.to_string(),
                });
            }
        }
    };
    let too_large = || TransportError::TooLarge {
        target: target.to_owned(),
        command: display.to_owned(),
    };
    let stdout = stdout
        .join()
        .map_err(|_| too_large())?
        .ok_or_else(too_large)?;
    let stderr = stderr
        .join()
        .map_err(|_| too_large())?
        .ok_or_else(too_large)?;
    // A signal leaves no exit code; report it like a shell does.
    let status = status
        .code()
        .unwrap_or(128 + std::os::unix::process::ExitStatusExt::signal(&status).unwrap_or(0));
    Ok(CommandOutput {
        status,
        stdout,
        stderr,
    })
}

/// Drains a pipe on its own thread (so a full pipe never blocks the child); `None` when the
/// output exceeds [`OUTPUT_LIMIT`].
fn reader(pipe: Option<impl Read + Send + 'static>) -> std::thread::JoinHandle<Option<Vec<u8>>> {
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        if let Some(pipe) = pipe {
            pipe.take(OUTPUT_LIMIT as u64 + 1)
                .read_to_end(&mut bytes)
                .ok()?;
        }
        (bytes.len() <= OUTPUT_LIMIT).then_some(bytes)
    })
}

fn kill(child: &mut Child) {
    let _ = child.kill();
    let _ = child.wait();
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

    #[test]
    fn quotes_words_for_the_remote_shell() {
        assert_eq!(
            shell_words(&["esxcli", "--formatter=xml", "storage"]),
            "esxcli --formatter=xml storage"
        );
        assert_eq!(
            shell_words(&["echo", "a b", "it's", ""]),
            r"echo 'a b' 'it'\''s' ''"
        );
    }

    #[test]
    fn driftgate_variables_are_withheld_from_children() {
        for name in [
            "DRIFTGATE_BMC_PASSWORD",
            "DRIFTGATE_BMC_USERNAME",
            "DRIFTGATE_BMC_CREDENTIALS",
            "DRIFTGATE_MOCKUP_PASSWORD",
            "DRIFTGATE_TOKEN",
        ] {
            assert!(withheld_from_children(name.as_ref(), &[]), "{name}");
        }
        for name in ["PATH", "HOME", "SSH_AUTH_SOCK", "LANG", "XDRIFTGATE_X"] {
            assert!(!withheld_from_children(name.as_ref(), &[]), "{name}");
        }
    }

    #[test]
    fn variables_an_inventory_names_are_withheld_from_children() {
        let withheld = ["BMC_USER".to_owned(), "BMC_PASS".to_owned()];
        for name in ["BMC_USER", "BMC_PASS", "DRIFTGATE_BMC_PASSWORD"] {
            assert!(withheld_from_children(name.as_ref(), &withheld), "{name}");
        }
        for name in ["PATH", "BMC_PASSWORD", "BMC_USE", "bmc_user"] {
            assert!(!withheld_from_children(name.as_ref(), &withheld), "{name}");
        }
    }

    #[test]
    fn a_child_process_does_not_see_a_withheld_variable() {
        // A variable this process already has (setting one would race other tests' threads).
        let (name, value) = std::env::vars_os()
            .filter_map(|(n, v)| Some((n.into_string().ok()?, v.into_string().ok()?)))
            .find(|(name, value)| {
                name != "PATH" && !name.starts_with("DRIFTGATE_") && !value.contains('\n')
            })
            .expect("the test process has some environment variable");
        let env_of_child = |withheld_env: Vec<String>| {
            let local = LocalTransport {
                options: ProcessOptions {
                    withheld_env,
                    ..ProcessOptions::default()
                },
            };
            let out = local
                .run(&CommandSpec {
                    file: "env",
                    argv: &["env"],
                    stdin: None,
                })
                .unwrap();
            String::from_utf8(out.stdout).unwrap()
        };
        let line = format!("{name}={value}");
        assert!(
            env_of_child(Vec::new()).lines().any(|l| l == line),
            "{name} is passed on by default"
        );
        let env = env_of_child(vec![name.clone()]);
        assert!(
            !env.lines().any(|l| l.starts_with(&format!("{name}="))),
            "{name} withheld: {env}"
        );
        assert!(
            env.lines().any(|l| l.starts_with("PATH=")),
            "other variables stay: {env}"
        );
    }

    #[test]
    fn local_commands_report_status_output_and_timeouts() {
        let local = LocalTransport {
            options: ProcessOptions {
                timeout: Duration::from_millis(300),
                ..ProcessOptions::default()
            },
        };
        let out = local
            .run(&CommandSpec {
                file: "x",
                argv: &["sh", "-c", "echo out; echo err >&2; exit 3"],
                stdin: None,
            })
            .unwrap();
        assert_eq!(
            (
                out.status,
                out.stdout.as_slice(),
                out.stderr_line().as_str()
            ),
            (3, &b"out\n"[..], "err")
        );
        let missing = local
            .run(&CommandSpec {
                file: "x",
                argv: &["driftgate-no-such-tool"],
                stdin: None,
            })
            .unwrap();
        assert_eq!(missing.status, 127);
        let start = Instant::now();
        let slow = local.run(&CommandSpec {
            file: "x",
            argv: &["sleep", "5"],
            stdin: None,
        });
        assert!(
            matches!(slow, Err(TransportError::Timeout { .. })),
            "{slow:?}"
        );
        assert!(start.elapsed() < Duration::from_secs(3));
    }

    #[test]
    fn recorded_outputs_come_with_optional_stderr_and_exit_status() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.txt"), "hello\n").unwrap();
        std::fs::write(dir.path().join("b.txt"), "").unwrap();
        std::fs::write(dir.path().join("b.txt.stderr"), "Unknown command\n").unwrap();
        std::fs::write(dir.path().join("b.txt.exit"), "1\n").unwrap();
        let recorded = DirTransport {
            dir: dir.path().to_path_buf(),
        };
        let a = recorded
            .run(&CommandSpec {
                file: "a.txt",
                argv: &["a"],
                stdin: None,
            })
            .unwrap();
        assert_eq!((a.status, a.stdout.as_slice()), (0, &b"hello\n"[..]));
        let b = recorded
            .run(&CommandSpec {
                file: "b.txt",
                argv: &["b"],
                stdin: None,
            })
            .unwrap();
        assert_eq!((b.status, b.stderr_line().as_str()), (1, "Unknown command"));
        let c = recorded
            .run(&CommandSpec {
                file: "c.txt",
                argv: &["c", "d"],
                stdin: None,
            })
            .unwrap_err();
        assert!(
            c.to_string().contains("`c d` was not recorded (no file "),
            "{c}"
        );
    }
}
