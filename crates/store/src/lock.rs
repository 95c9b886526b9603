//! The promote lock: an advisory file lock (`flock`), released by the kernel when its holder
//! exits or is killed, so a crashed promote never leaves a stale lock behind; taking it clears
//! the git lock files an interrupted promote left (`git_locks.rs`).

use std::fs::{File, TryLockError};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

use rustix::fs::{Mode, OFlags};

use crate::error::StoreError;
use crate::git_locks;
use crate::store::Store;

/// Held while a promote builds and commits; released on drop.
#[derive(Debug)]
pub struct StoreLock {
    _file: File,
    acquired_at: SystemTime,
    marker: Option<PathBuf>,
    removed_git_locks: Vec<PathBuf>,
}

impl Drop for StoreLock {
    /// The marker goes before the flock is released (the file closes after this): a marker
    /// seen under the flock always belongs to a holder that did not get here.
    fn drop(&mut self) {
        if let Some(marker) = &self.marker {
            let _ = std::fs::remove_file(marker);
        }
    }
}

impl StoreLock {
    /// When the lock was taken.
    pub(super) fn acquired_at(&self) -> SystemTime {
        self.acquired_at
    }

    /// When the holder before this one started, if it was interrupted: its `marker` is still
    /// there (a holder removes it before releasing the lock).
    pub(super) fn interrupted_at(marker: &Path) -> Option<SystemTime> {
        std::fs::metadata(marker)
            .ok()
            .map(|m| m.modified().unwrap_or(SystemTime::UNIX_EPOCH))
    }

    /// Records in `marker` that this holder is at work until the lock is dropped. Until then,
    /// an interrupted holder's marker stays as it was, so a refusal loses none of its evidence.
    pub(super) fn mark(&mut self, marker: PathBuf) -> std::io::Result<()> {
        driftgate_fs::write_atomic(&marker, format!("{}\n", std::process::id()).as_bytes())?;
        self.marker = Some(marker);
        Ok(())
    }

    /// Sets the git lock files removed under this lock.
    pub(super) fn set_removed_git_locks(&mut self, removed: Vec<PathBuf>) {
        self.removed_git_locks = removed;
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
        // Never through a link planted in its place: it would create a file wherever it points.
        let flags = OFlags::CREATE | OFlags::WRONLY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        let file = rustix::fs::open(path, flags, Mode::from_raw_mode(0o666))
            .map(File::from)
            .map_err(|e| io(e.into()))?;
        let start = Instant::now();
        loop {
            match file.try_lock() {
                Ok(()) => {
                    return Ok(StoreLock {
                        _file: file,
                        acquired_at: SystemTime::now(),
                        marker: None,
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

impl Store {
    /// Takes the store's promote lock, waiting up to `wait` for another holder to finish.
    ///
    /// Holding it, driftgate is the only writer of the store: git lock files that a killed
    /// promote left behind are removed (the lock lists them), and one that a live git process
    /// may own is an error naming it.
    pub fn lock(&self, wait: Duration) -> Result<StoreLock, StoreError> {
        let mut lock = self.acquire(wait)?;
        let branch = self
            .repo
            .find_reference("HEAD")
            .ok()
            .and_then(|head| head.symbolic_target().ok().flatten().map(str::to_owned));
        let marker = self.repo.path().join(git_locks::MARKER);
        let interrupted_at = StoreLock::interrupted_at(&marker);
        let cleared = git_locks::clear(
            self.repo.path(),
            branch.as_deref(),
            lock.acquired_at(),
            interrupted_at,
        );
        if let Some(held) = cleared.held.into_iter().next() {
            return Err(StoreError::GitLocked {
                repo: self.name(),
                lock: held.path.display().to_string(),
                holder: held.holder,
            });
        }
        lock.mark(marker.clone()).map_err(|e| StoreError::Git {
            repo: self.name(),
            action: format!("write {}", marker.display()),
            message: e.to_string(),
        })?;
        lock.set_removed_git_locks(cleared.removed);
        Ok(lock)
    }

    fn acquire(&self, wait: Duration) -> Result<StoreLock, StoreError> {
        StoreLock::acquire(&self.repo.path().join("driftgate.lock"), wait).map_err(|e| match e {
            LockError::Timeout { path, waited } => StoreError::Locked {
                repo: self.name(),
                lock: path.display().to_string(),
                waited,
            },
            LockError::Io { path, error } => StoreError::Git {
                repo: self.name(),
                action: format!("lock {}", path.display()),
                message: error.to_string(),
            },
        })
    }
}
