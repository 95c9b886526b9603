//! Files at a revision: any file by path, and a host's baseline, verified as a snapshot of
//! that host.

use git2::ObjectType;

use crate::error::{BaselineReadError, StoreError};
use crate::listing::BaselineFile;
use crate::store::Store;
use driftgate_snapshot::VerifiedSnapshot;

impl Store {
    /// The baseline at `path` of `commit`, verified, which must be a snapshot of `host`; its
    /// origin is `git:<commit>:<path>`.
    pub fn read_baseline(
        &self,
        commit: &str,
        path: &str,
        host: &str,
    ) -> Result<VerifiedSnapshot, BaselineReadError> {
        let bytes = self.read(commit, path)?;
        self.verify_baseline(&bytes, commit, path, host)
    }

    /// [`Store::read_baseline`] of a file that [`Store::baseline_files`] listed at `commit`:
    /// read by its blob id, with no tree lookup.
    pub fn read_listed_baseline(
        &self,
        commit: &str,
        file: &BaselineFile,
        host: &str,
    ) -> Result<VerifiedSnapshot, BaselineReadError> {
        let bytes = self.read_file(file)?;
        self.verify_baseline(&bytes, commit, &file.path, host)
    }

    fn verify_baseline(
        &self,
        bytes: &[u8],
        commit: &str,
        path: &str,
        host: &str,
    ) -> Result<VerifiedSnapshot, BaselineReadError> {
        let origin = format!("git:{commit}:{path}");
        let baseline = VerifiedSnapshot::parse_bytes(bytes, &origin)?;
        if baseline.snapshot().host.as_str() != host {
            return Err(BaselineReadError::OtherHost {
                origin,
                found: baseline.snapshot().host.to_string(),
                host: host.to_owned(),
            });
        }
        Ok(baseline)
    }

    /// The content of `path` at `rev`.
    pub fn read(&self, rev: &str, path: &str) -> Result<Vec<u8>, StoreError> {
        let tree = self.tree_at(rev)?;
        match self.entry_at(&tree, path)? {
            Some((id, Some(ObjectType::Blob))) => self.load_blob(id),
            _ => Err(StoreError::UnknownPath {
                repo: self.name(),
                rev: rev.to_owned(),
                path: path.to_owned(),
            }),
        }
    }

    /// The content of `path` at HEAD, or `None` when the file or HEAD does not exist.
    pub fn read_head(&self, path: &str) -> Result<Option<Vec<u8>>, StoreError> {
        if !self.has_commits() {
            return Ok(None);
        }
        match self.read("HEAD", path) {
            Ok(bytes) => Ok(Some(bytes)),
            Err(StoreError::UnknownPath { .. }) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// `host`'s baseline (`baselines/<fleet>/<host>.json`) at `rev`, if any: one lookup by
    /// name in each fleet folder.
    pub fn host_file(&self, rev: &str, host: &str) -> Result<Option<BaselineFile>, StoreError> {
        self.fleets(rev)?.host_file(host)
    }
}
