//! `ssh://[user@]host[:port]`: commands run through the system OpenSSH client.

use std::process::Command;

use super::command::*;
use super::local::run_process;

/// Runs commands through the system OpenSSH client.
pub struct SshTransport {
    pub(super) user: Option<String>,
    pub(super) host: String,
    pub(super) port: Option<u16>,
    pub(super) options: ProcessOptions,
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
