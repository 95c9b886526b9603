//! The process's open-file limit: a simulator of 1,000 BMCs listens on 1,000 sockets and a
//! `check --all` of 1,000 hosts holds a connection to each, past the usual soft limit of 1,024
//! open files.

use rustix::process::{Resource, Rlimit, getrlimit, setrlimit};

/// The open-file limits of this process after [`raise_open_file_limit`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct OpenFileLimit {
    /// The soft limit in force (what `open`, `socket` and `accept` are held to).
    pub soft: u64,
    /// The hard limit, the ceiling an unprivileged process may raise the soft one to.
    pub hard: u64,
}

/// Raises the soft `RLIMIT_NOFILE` to the hard limit and returns both. Never lowers it; where
/// the kernel refuses the hard limit itself (macOS caps an unlimited one at `OPEN_MAX`), the
/// soft limit stays as it was and is returned as such. Unlimited is `u64::MAX`.
pub(super) fn raise_open_file_limit() -> OpenFileLimit {
    let mut limit = getrlimit(Resource::Nofile);
    if limit
        .current
        .is_some_and(|soft| limit.maximum.is_none_or(|hard| soft < hard))
    {
        let raised = Rlimit {
            current: limit.maximum,
            maximum: limit.maximum,
        };
        if setrlimit(Resource::Nofile, raised).is_ok() {
            limit.current = limit.maximum;
        }
    }
    OpenFileLimit {
        soft: limit.current.unwrap_or(u64::MAX),
        hard: limit.maximum.unwrap_or(u64::MAX),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_soft_limit_ends_at_the_hard_one() {
        let limit = raise_open_file_limit();
        assert!(limit.soft <= limit.hard, "{limit:?}");
        // A second call finds nothing left to raise and says the same.
        assert_eq!(raise_open_file_limit(), limit);
        // On Linux an unprivileged process may always raise the soft limit to the hard one.
        if cfg!(target_os = "linux") {
            assert_eq!(limit.soft, limit.hard, "{limit:?}");
        }
    }
}
