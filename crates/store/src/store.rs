//! The store's handle: its repository and what it has read.

use std::cell::RefCell;
use std::collections::HashSet;
use std::path::PathBuf;

use git2::{Oid, Repository};

use crate::counts::Counter;

/// Folder of the baselines inside the store.
pub const BASELINES_DIR: &str = "baselines";
/// Policy file at the store's root.
pub const POLICY_FILE: &str = "driftgate.toml";

/// Id of the empty tree in SHA-1 repositories.
pub(crate) const EMPTY_TREE: &str = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";

/// A baseline store: a git repository, bare or with a work tree.
pub struct Store {
    pub(crate) repo: Repository,
    pub(crate) location: PathBuf,
    /// The objects folder (shared by every work tree of the repository).
    pub(crate) objects: PathBuf,
    /// Objects read and found whole, which libgit2 may then read ([`Store::check`]).
    pub(crate) checked: RefCell<HashSet<Oid>>,
    pub(crate) counter: Counter,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store")
            .field("location", &self.location)
            .finish_non_exhaustive()
    }
}
