//! Where a command-based source reads from: `local:`, `ssh://…` or `dir:PATH`.

use std::path::PathBuf;

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
            text: crate::redact_userinfo(text),
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
