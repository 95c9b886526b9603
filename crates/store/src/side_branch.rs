//! A branch of driftgate's own beside the baselines (the nightly state): read from the local
//! branch and from every remote's copy of it, written as one commit of its own files under the
//! store's lock. Never checked out: the work tree, the index and HEAD stay as they are.
//!
//! A plain `git clone` copies branches (the clone's own copy is `refs/remotes/origin/<name>`,
//! with no local branch), not custom refs or notes: so the state lives on a branch, and a
//! read takes every copy of it there is ([`SideBranch::tips`]). A write starts from all of
//! them: its commit's parents are the tips that are not already ancestors of another, so that
//! pushing the branch afterwards is a fast-forward of whichever copy the remote has.

use std::collections::HashSet;

use git2::build::TreeUpdateBuilder;
use git2::{BranchType, ErrorCode, FileMode, Oid, Signature};

use crate::commit::Committed;
use crate::error::StoreError;
use crate::file_write::FileWrite;
use crate::lock::StoreLock;
use crate::store::{EMPTY_TREE, Store};

/// The most commits walked to tell whether one tip is an ancestor of another; a branch with
/// a longer history than that gets a redundant parent, never a wrong one.
const MAX_WALK: usize = 10_000;

/// The copies of one side branch in a store at one moment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SideBranch {
    /// The branch, `driftgate/state`.
    name: String,
    /// The local branch's commit, if there is a local branch.
    local: Option<Oid>,
    /// Each remote's copy (`refs/remotes/<remote>/<name>`) and its commit.
    remotes: Vec<(String, Oid)>,
}

impl SideBranch {
    /// The branch's name (`driftgate/state`).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Every copy there is, the local branch first: its reference and commit (hex).
    pub fn tips(&self) -> Vec<(String, String)> {
        self.local
            .iter()
            .map(|id| (format!("refs/heads/{}", self.name), id.to_string()))
            .chain(
                self.remotes
                    .iter()
                    .map(|(r, id)| (r.clone(), id.to_string())),
            )
            .collect()
    }

    /// Whether there is no copy at all.
    pub fn is_empty(&self) -> bool {
        self.local.is_none() && self.remotes.is_empty()
    }
}

impl Store {
    /// The copies of branch `name` (`driftgate/state`): the local one and each remote's.
    pub fn side_branch(&self, name: &str) -> Result<SideBranch, StoreError> {
        let local = match self.repo.find_branch(name, BranchType::Local) {
            Ok(branch) => branch.get().target(),
            Err(e) if e.code() == ErrorCode::NotFound => None,
            Err(e) => return Err(self.error(&format!("read the branch {name}"), e)),
        };
        let mut remotes = Vec::new();
        let branches = self
            .repo
            .branches(Some(BranchType::Remote))
            .map_err(|e| self.error("list the remote branches", e))?;
        for branch in branches {
            let (branch, _) = branch.map_err(|e| self.error("list the remote branches", e))?;
            let reference = branch.get();
            let (Some(full), Some(id)) = (reference.name().ok(), reference.target()) else {
                continue;
            };
            // `refs/remotes/<remote>/<name>`: the remote's name has no slash.
            let matches = full
                .strip_prefix("refs/remotes/")
                .and_then(|rest| rest.split_once('/'))
                .is_some_and(|(_, branch)| branch == name);
            if matches {
                remotes.push((full.to_owned(), id));
            }
        }
        remotes.sort();
        Ok(SideBranch {
            name: name.to_owned(),
            local,
            remotes,
        })
    }

    /// The content of `path` in the commit `tip` (hex, one of [`SideBranch::tips`]), or
    /// `None` when that commit has no such file.
    pub fn read_side_file(&self, tip: &str, path: &str) -> Result<Option<Vec<u8>>, StoreError> {
        match self.read(tip, path) {
            Ok(bytes) => Ok(Some(bytes)),
            Err(StoreError::UnknownPath { .. }) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Commits `files` (the branch's whole content) on side branch `branch`, as `branch` was
    /// read under `lock`: the commit's parents are the copies that are not ancestors of
    /// another (none: a first, parentless commit), and the local branch moves to it only if
    /// it still points where it did (or is still missing). Nothing but the commit's objects
    /// and the branch is written. The author is git's configured identity, else driftgate.
    ///
    /// Returns `None` without committing when the newest copy already holds exactly `files`
    /// and is the only tip: the local branch is then made to point at it, if it did not.
    pub fn commit_side_branch(
        &self,
        _lock: &StoreLock,
        branch: &SideBranch,
        files: &[FileWrite],
        message: &str,
    ) -> Result<Option<Committed>, StoreError> {
        let reference = format!("refs/heads/{}", branch.name);
        let mut tips: Vec<Oid> = branch.local.iter().copied().collect();
        tips.extend(branch.remotes.iter().map(|(_, id)| *id));
        let parents = self.heads(&tips);
        let blobs = self.write_blobs(files)?;
        let empty = Oid::from_str(EMPTY_TREE).expect("the empty tree id is valid hex");
        let mut updates = TreeUpdateBuilder::new();
        for (file, blob) in files.iter().zip(&blobs) {
            updates.upsert(file.path.as_str(), *blob, FileMode::Blob);
        }
        let base = self.load_tree(empty)?;
        let tree_id = updates
            .create_updated(&self.repo, &base)
            .map_err(|e| self.error("write tree", e))?;
        if let [only] = parents.as_slice()
            && self.commit_tree_id_checked(*only)? == tree_id
        {
            if branch.local != Some(*only) {
                self.move_side_branch(
                    &reference,
                    *only,
                    branch.local,
                    "branch: from its remote copy",
                )?;
            }
            return Ok(None);
        }
        let tree = self.load_tree(tree_id)?;
        let mut written = blobs.clone();
        written.push(tree_id);
        self.make_durable(&written)?;
        let signature = self
            .repo
            .signature()
            .or_else(|_| Signature::now("driftgate", "driftgate@localhost"))
            .map_err(|e| self.error("make a signature", e))?;
        let parent_commits = parents
            .iter()
            .map(|id| self.load_commit(*id))
            .collect::<Result<Vec<_>, _>>()?;
        let parent_refs: Vec<_> = parent_commits.iter().collect();
        let id = self
            .repo
            .commit(None, &signature, &signature, message, &tree, &parent_refs)
            .map_err(|e| self.error("write commit", e))?;
        self.make_durable(&[id])?;
        let summary = message.lines().next().unwrap_or("");
        self.move_side_branch(&reference, id, branch.local, &format!("commit: {summary}"))?;
        Ok(Some(Committed { id, reference }))
    }

    /// The tree of commit `id`, read checked.
    fn commit_tree_id_checked(&self, id: Oid) -> Result<Oid, StoreError> {
        Ok(self.load_commit(id)?.tree_id())
    }

    /// Moves (or creates) `reference` to `id` if it still points at `old` (or is missing).
    fn move_side_branch(
        &self,
        reference: &str,
        id: Oid,
        old: Option<Oid>,
        log: &str,
    ) -> Result<(), StoreError> {
        let moved = match old {
            Some(old) => self.repo.reference_matching(reference, id, true, old, log),
            None => self.repo.reference(reference, id, false, log),
        };
        match moved {
            Ok(_) => Ok(()),
            Err(e) if matches!(e.code(), ErrorCode::Modified | ErrorCode::Exists) => {
                Err(StoreError::Raced {
                    repo: self.name(),
                    message: e.message().to_owned(),
                })
            }
            Err(e) => Err(self.error(&format!("move {reference}"), e)),
        }
    }

    /// `tips` without duplicates and without those that are ancestors of another, in order.
    fn heads(&self, tips: &[Oid]) -> Vec<Oid> {
        let mut unique: Vec<Oid> = Vec::new();
        for tip in tips {
            if !unique.contains(tip) {
                unique.push(*tip);
            }
        }
        let mut heads = Vec::new();
        for (i, tip) in unique.iter().enumerate() {
            let mut covered = false;
            for (j, other) in unique.iter().enumerate() {
                if i != j && self.reaches(*other, *tip) {
                    covered = true;
                    break;
                }
            }
            if !covered {
                heads.push(*tip);
            }
        }
        heads
    }

    /// Whether `ancestor` is reachable from `from` (each commit read checked), within
    /// [`MAX_WALK`] commits. A commit that cannot be read (beyond a shallow clone's edge) ends
    /// its path: at worst the new commit gets a redundant parent.
    fn reaches(&self, from: Oid, ancestor: Oid) -> bool {
        let mut seen = HashSet::new();
        let mut todo = vec![from];
        while let Some(id) = todo.pop() {
            if !seen.insert(id) || seen.len() > MAX_WALK {
                continue;
            }
            let Ok(commit) = self.load_commit(id) else {
                continue;
            };
            for parent in commit.parent_ids() {
                if parent == ancestor {
                    return true;
                }
                todo.push(parent);
            }
        }
        false
    }
}

#[cfg(test)]
mod tests;
