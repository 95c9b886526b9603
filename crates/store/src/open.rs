//! Opening a store: find the repository, or create one, and what the store is called in its
//! errors.

use std::path::Path;

use git2::{ErrorCode, Repository};

use super::error::git_error;
use crate::counts::Counter;
use crate::error::StoreError;
use crate::store::Store;

impl Store {
    /// Opens the repository containing `dir` (a work tree, a `.git` folder or a bare repository).
    pub fn discover(dir: &Path) -> Result<Self, StoreError> {
        match Repository::discover(dir) {
            Ok(repo) => Ok(Self::from_repo(repo)),
            Err(e) if e.code() == ErrorCode::NotFound => Err(StoreError::NotFound {
                dir: dir.display().to_string(),
            }),
            Err(e) => Err(StoreError::Git {
                repo: dir.display().to_string(),
                action: "open".into(),
                message: e.message().to_owned(),
            }),
        }
    }

    /// Opens the repository at `dir`, or creates one there when there is none.
    pub fn open_or_init(dir: &Path) -> Result<Self, StoreError> {
        match Repository::open(dir) {
            Ok(repo) => Ok(Self::from_repo(repo)),
            Err(e) if e.code() == ErrorCode::NotFound => Repository::init(dir)
                .map(Self::from_repo)
                .map_err(|e| git_error(&dir.display().to_string(), "init", e)),
            Err(e) => Err(git_error(&dir.display().to_string(), "open", e)),
        }
    }

    fn from_repo(repo: Repository) -> Self {
        let location = repo.workdir().unwrap_or_else(|| repo.path()).to_path_buf();
        Store {
            objects: repo.commondir().join("objects"),
            repo,
            location,
            checked: Default::default(),
            counter: Counter::default(),
        }
    }

    /// The work tree, or the repository folder of a bare repository.
    pub fn location(&self) -> &Path {
        &self.location
    }

    /// Whether the repository has no work tree.
    pub fn is_bare(&self) -> bool {
        self.repo.is_bare()
    }

    /// Whether HEAD points at a commit yet.
    pub fn has_commits(&self) -> bool {
        self.repo.head().ok().and_then(|h| h.target()).is_some()
    }

    /// The store as its errors name it.
    pub(super) fn name(&self) -> String {
        self.location.display().to_string()
    }

    /// The error of a failed git operation `action`.
    pub(super) fn error(&self, action: &str, e: git2::Error) -> StoreError {
        git_error(&self.name(), action, e)
    }

    /// The error of a failed file-system write of `path`.
    pub(super) fn io_error(&self, path: &str, e: std::io::Error) -> StoreError {
        StoreError::Git {
            repo: self.name(),
            action: format!("write {path}"),
            message: e.to_string(),
        }
    }
}
