//! The objects of a commit, written by libgit2 and made durable before the branch moves.
//!
//! Blobs are written as loose objects, as `git add` writes them, on every core. libgit2 can
//! flush each object it writes (`GIT_OPT_ENABLE_FSYNC_GITDIR`), but that option is
//! process-wide and a flush per file costs a fleet-wide promote more than the whole
//! `git add -A && git commit` it is measured against (1.4 ms an object here, 14 s for 10,000).
//! Its packbuilder deltifies and compresses every object again in one thread. So the store
//! flushes what a commit wrote itself: a few objects file by file, many at once with their
//! file system (`syncfs`), and the branch moves only after that.

use std::collections::BTreeSet;
use std::fs::File;
use std::io;

use git2::{Oid, Repository};
use rayon::prelude::*;

use crate::error::StoreError;
use crate::file_write::FileWrite;
use crate::loose;
use crate::store::Store;

impl Store {
    /// Writes every file's content as a blob (libgit2 skips one it has already), on every
    /// core: hashing and compressing them is most of a big promote's commit.
    pub(super) fn write_blobs(&self, files: &[FileWrite]) -> Result<Vec<Oid>, StoreError> {
        self.counter.bump(|c| c.blobs_written += files.len() as u64);
        if files.len() < 2 {
            return files
                .iter()
                .map(|file| {
                    self.repo
                        .blob(file.content())
                        .map_err(|e| self.error("write blob", e))
                })
                .collect();
        }
        // libgit2 handles are not shared between threads: each thread opens the repository
        // again.
        let git_dir = self.repo.path();
        files
            .par_iter()
            .map_init(
                || Repository::open(git_dir),
                |repo, file| match repo {
                    Ok(repo) => repo.blob(file.content()),
                    Err(e) => Err(git2::Error::new(e.code(), e.class(), e.message())),
                },
            )
            .collect::<Vec<_>>()
            .into_iter()
            .map(|written| written.map_err(|e| self.error("write blob", e)))
            .collect()
    }

    /// Flushes objects `ids` to disk (those stored loose; a packed one was flushed when its
    /// pack was written), with the folders that name them.
    pub(super) fn make_durable(&self, ids: &[Oid]) -> Result<(), StoreError> {
        let failed = |e: io::Error| StoreError::Git {
            repo: self.name(),
            action: format!(
                "flush the new objects in {} to disk",
                self.objects.display()
            ),
            message: e.to_string(),
        };
        // The most objects flushed one by one; more are flushed with their whole file system at
        // once, which costs one flush of whatever else is waiting on it.
        #[cfg(target_os = "linux")]
        const FLUSHED_ONE_BY_ONE: usize = 32;
        #[cfg(target_os = "linux")]
        if ids.len() > FLUSHED_ONE_BY_ONE {
            let objects = File::open(&self.objects).map_err(failed)?;
            return rustix::fs::syncfs(&objects).map_err(|e| failed(e.into()));
        }
        // A new fan-out folder is an entry of the objects folder.
        let mut folders = BTreeSet::from([self.objects.clone()]);
        for id in ids {
            let path = loose::path(&self.objects, *id);
            match File::open(&path) {
                Ok(file) => file.sync_all().map_err(failed)?,
                Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
                Err(e) => return Err(failed(e)),
            }
            if let Some(folder) = path.parent() {
                folders.insert(folder.to_owned());
            }
        }
        for folder in folders {
            File::open(&folder)
                .and_then(|folder| folder.sync_all())
                .map_err(failed)?;
        }
        Ok(())
    }
}
