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

mod command;
mod dir;
mod local;
mod location;
mod ssh;

pub use dir::DirTransport;
pub use local::LocalTransport;
pub use ssh::SshTransport;

pub use command::{
    CommandOutput, CommandSpec, CommandTransport, HostDeadline, OUTPUT_LIMIT, ProcessOptions,
    Session, TransportError,
};
pub use location::{BadLocation, Location};

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
