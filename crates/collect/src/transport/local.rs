//! `local:`: commands run on this machine, and the process runner `ssh:` shares.

use std::io::Read;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use super::command::*;
use driftgate_http::CREDENTIALS_DIRECTORY;

/// Runs commands on this machine, without a shell.
pub struct LocalTransport {
    pub(super) options: ProcessOptions,
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

/// Whether a child process must not inherit the environment variable `name`: every
/// `DRIFTGATE_*` variable, `CREDENTIALS_DIRECTORY`, and those named in `withheld_env`. They
/// hold driftgate's credentials (`DRIFTGATE_BMC_USERNAME`, `DRIFTGATE_BMC_PASSWORD`,
/// `DRIFTGATE_MOCKUP_*`), where they are kept (`DRIFTGATE_BMC_CREDENTIALS`, systemd's
/// credentials folder) and driftgate's own settings; `ssh` and the tools a capture runs need
/// none of them, and a tool that logs its environment would leak them. An inventory may name
/// other variables for a host's credentials: those are in `withheld_env`.
fn withheld_from_children(name: &std::ffi::OsStr, withheld_env: &[String]) -> bool {
    name.as_encoded_bytes().starts_with(b"DRIFTGATE_")
        || name == CREDENTIALS_DIRECTORY
        || withheld_env
            .iter()
            .any(|withheld| name == withheld.as_str())
}

/// Runs `command` with piped output (and `stdin` fed to it), killing it after `timeout`, or
/// when the host's deadline ([`ProcessOptions::host`]) passes or its stop fires, whichever
/// comes first. The child's environment is driftgate's without [`withheld_from_children`]
/// variables.
pub(super) fn run_process(
    mut command: Command,
    stdin: Option<&[u8]>,
    options: &ProcessOptions,
    target: &str,
    display: &str,
) -> Result<CommandOutput, TransportError> {
    let timeout = options.timeout;
    let host = options.host.as_ref();
    if let Some(host) = host.filter(|host| host.is_over()) {
        return Err(TransportError::stopped(host, target, display));
    }
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
            Ok(None) => {
                // Polled with the exit: the host's time or its capture ending kills the child.
                if let Some(host) = host.filter(|host| host.is_over()) {
                    kill(&mut child);
                    return Err(TransportError::stopped(host, target, display));
                }
                if Instant::now() >= deadline {
                    kill(&mut child);
                    return Err(TransportError::Timeout {
                        target: target.to_owned(),
                        command: display.to_owned(),
                        timeout,
                    });
                }
                std::thread::sleep(Duration::from_millis(10));
            }
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
    fn driftgate_variables_are_withheld_from_children() {
        for name in [
            "DRIFTGATE_BMC_PASSWORD",
            "DRIFTGATE_BMC_USERNAME",
            "DRIFTGATE_BMC_CREDENTIALS",
            "DRIFTGATE_MOCKUP_PASSWORD",
            "DRIFTGATE_TOKEN",
            "CREDENTIALS_DIRECTORY",
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
}
