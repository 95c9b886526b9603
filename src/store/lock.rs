//! The promote lock: an advisory file lock (`flock`), released by the kernel when its holder
//! exits or is killed, so a crashed promote never leaves a stale lock behind.

use std::fs::{File, OpenOptions, TryLockError};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

/// Held while a promote builds and commits; released on drop.
#[derive(Debug)]
pub struct StoreLock {
    _file: File,
    acquired_at: SystemTime,
    /// Git lock files an interrupted promote had left, removed when this lock was taken.
    pub(super) removed_git_locks: Vec<PathBuf>,
}

impl StoreLock {
    /// When the lock was taken.
    pub(super) fn acquired_at(&self) -> SystemTime {
        self.acquired_at
    }

    /// Git lock files that an interrupted promote had left behind, removed under this lock.
    pub fn removed_git_locks(&self) -> &[PathBuf] {
        &self.removed_git_locks
    }
}

/// Why the lock could not be taken.
#[derive(Debug)]
pub(super) enum LockError {
    /// Someone else held it for the whole wait.
    Timeout { path: PathBuf, waited: Duration },
    /// The lock file could not be opened or locked.
    Io {
        path: PathBuf,
        error: std::io::Error,
    },
}

impl StoreLock {
    /// Takes the lock at `path`, polling until `wait` has passed.
    pub(super) fn acquire(path: &Path, wait: Duration) -> Result<Self, LockError> {
        let io = |error| LockError::Io {
            path: path.to_path_buf(),
            error,
        };
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(path)
            .map_err(io)?;
        let start = Instant::now();
        loop {
            match file.try_lock() {
                Ok(()) => {
                    return Ok(StoreLock {
                        _file: file,
                        acquired_at: SystemTime::now(),
                        removed_git_locks: Vec::new(),
                    });
                }
                Err(TryLockError::WouldBlock) if start.elapsed() < wait => {
                    std::thread::sleep(Duration::from_millis(50));
                }
                Err(TryLockError::WouldBlock) => {
                    return Err(LockError::Timeout {
                        path: path.to_path_buf(),
                        waited: start.elapsed(),
                    });
                }
                Err(TryLockError::Error(error)) => return Err(io(error)),
            }
        }
    }
}
