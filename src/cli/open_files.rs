//! The process's open-file limit: a simulator of 1,000 BMCs listens on 1,000 sockets and a
//! `check --all` of 1,000 hosts holds a connection to each, past the usual soft limit of 1,024
//! open files.

use std::io;

/// The open-file limits of this process after [`raise_open_file_limit`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OpenFileLimit {
    /// The soft limit in force (what `open`, `socket` and `accept` are held to).
    pub soft: u64,
    /// The hard limit, the ceiling an unprivileged process may raise the soft one to.
    pub hard: u64,
}

/// Raises the soft `RLIMIT_NOFILE` to the hard limit and returns both. Never lowers it; where
/// the kernel refuses the hard limit itself (macOS caps an unlimited one at `OPEN_MAX`), the
/// soft limit stays as it was and is returned as such.
pub fn raise_open_file_limit() -> io::Result<OpenFileLimit> {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit only writes the current limits into `limit`, a valid rlimit.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } != 0 {
        return Err(io::Error::last_os_error());
    }
    if limit.rlim_cur < limit.rlim_max {
        let raised = libc::rlimit {
            rlim_cur: limit.rlim_max,
            rlim_max: limit.rlim_max,
        };
        // SAFETY: setrlimit reads `raised`, a valid rlimit whose soft limit is the hard one.
        if unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &raised) } == 0 {
            limit.rlim_cur = limit.rlim_max;
        }
    }
    // `rlim_t` is `u64` on 64-bit targets and narrower on some others.
    #[allow(clippy::useless_conversion)]
    Ok(OpenFileLimit {
        soft: u64::from(limit.rlim_cur),
        hard: u64::from(limit.rlim_max),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_soft_limit_ends_at_the_hard_one() {
        let limit = raise_open_file_limit().unwrap();
        assert!(limit.soft <= limit.hard, "{limit:?}");
        // A second call finds nothing left to raise and says the same.
        assert_eq!(raise_open_file_limit().unwrap(), limit);
        // On Linux an unprivileged process may always raise the soft limit to the hard one.
        if cfg!(target_os = "linux") {
            assert_eq!(limit.soft, limit.hard, "{limit:?}");
        }
    }
}
