//! One commit of files on top of HEAD, under the promote lock: the new tree from HEAD's and
//! the files, the work tree and index brought along, the objects made durable, then the
//! branch moved only if it still points at the parent.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use git2::build::TreeUpdateBuilder;
use git2::{Commit, ErrorCode, FileMode, ObjectType, Oid, ReferenceType, Signature, Tree};

use super::worktree::WorktreeUndo;
use crate::error::StoreError;
use crate::file_write::FileWrite;
use crate::lock::StoreLock;
use crate::store::{EMPTY_TREE, Store};

/// A commit that was made.
#[derive(Debug, Clone)]
pub struct Committed {
    /// The new commit.
    pub id: Oid,
    /// The branch it went on (`refs/heads/main`), or `HEAD` when detached.
    pub reference: String,
}

/// Where a commit goes: the reference HEAD leads to and the commit it points at (none on an
/// unborn branch).
struct Tip<'r> {
    /// `refs/heads/<branch>`, or `HEAD` when detached.
    reference: String,
    parent: Option<Commit<'r>>,
}

impl Store {
    /// Commits `files` on top of HEAD in one commit on the current branch, under `lock`.
    ///
    /// The tree is HEAD's plus these files; the index and work tree change only at these
    /// paths. A work-tree file at such a path is overwritten only when it holds HEAD's
    /// content, the new content, or content `replaceable` accepts (a whole file an
    /// interrupted write left); anything else is someone's edit and refused.
    ///
    /// Order: the objects (libgit2 writes them) flushed to disk, work-tree files (each
    /// atomically) and their index entries, the commit object, flushed too; only then the
    /// branch moves, if it still points at the parent. If the commit fails, the work tree and
    /// index are put back. A crash or power cut at any point leaves HEAD at the old commit or
    /// at a new one whose objects are all there, and whole files.
    pub fn commit(
        &self,
        _lock: &StoreLock,
        files: &[FileWrite],
        message: &str,
        replaceable: &(dyn Fn(&[u8]) -> bool + Sync),
    ) -> Result<Committed, StoreError> {
        let signature = self.signature()?;
        let committer = self.committer().unwrap_or_else(|| signature.clone());
        let tip = self.tip()?;
        let base_tree = match &tip.parent {
            Some(commit) => self.load_tree(commit.tree_id())?,
            // libgit2 knows the empty tree without storing it, so a first commit leaves no
            // dangling object behind.
            None => {
                let empty = Oid::from_str(EMPTY_TREE).expect("the empty tree id is valid hex");
                self.load_tree(empty)?
            }
        };
        let paths: Vec<&str> = files.iter().map(|f| f.path.as_str()).collect();
        // Loads (and so checks) every folder on the way to the files, which libgit2 reads
        // unchecked when it builds the new tree, bare repository or not.
        let committed = self.committed_ids(&base_tree, &paths)?;
        let befores = self.refuse_dirty(files, &committed, replaceable)?;
        let blobs = self.write_blobs(files)?;
        let mut updates = TreeUpdateBuilder::new();
        for (file, blob) in files.iter().zip(&blobs) {
            updates.upsert(file.path.as_str(), *blob, FileMode::Blob);
        }
        let tree_id = updates
            .create_updated(&self.repo, &base_tree)
            .map_err(|e| self.error("write tree", e))?;
        let tree = self.load_tree(tree_id)?;
        // Flushed before the work tree is written, so that a flush of many carries the new
        // objects and not the work tree's copies of them too.
        let mut written = self.folder_ids(&tree, &paths)?;
        written.extend_from_slice(&blobs);
        self.make_durable(&written)?;
        let mut undo = WorktreeUndo::default();
        if let Err(e) = self.update_worktree(files, &blobs, befores, &mut undo) {
            self.restore(undo);
            return Err(e);
        }
        match self.land(&tip, &tree, &signature, &committer, message) {
            Ok(id) => Ok(Committed {
                id,
                reference: tip.reference,
            }),
            Err(e) => {
                self.restore(undo);
                Err(e)
            }
        }
    }

    /// Writes the commit object of `tree` (whose new objects are durable already), makes it
    /// durable, and moves the branch to it if the branch still points at the parent.
    fn land(
        &self,
        tip: &Tip<'_>,
        tree: &Tree<'_>,
        signature: &Signature<'_>,
        committer: &Signature<'_>,
        message: &str,
    ) -> Result<Oid, StoreError> {
        let parents: Vec<&Commit<'_>> = tip.parent.iter().collect();
        let id = self
            .repo
            .commit(None, signature, committer, message, tree, &parents)
            .map_err(|e| self.error("write commit", e))?;
        self.make_durable(&[id])?;
        let summary = message.lines().next().unwrap_or("");
        let moved = match &tip.parent {
            Some(parent) => self.repo.reference_matching(
                &tip.reference,
                id,
                true,
                parent.id(),
                &format!("commit: {summary}"),
            ),
            None => self.repo.reference(
                &tip.reference,
                id,
                false,
                &format!("commit (initial): {summary}"),
            ),
        };
        match moved {
            Ok(_) => Ok(id),
            Err(e) => Err(match e.code() {
                ErrorCode::Locked => StoreError::GitLocked {
                    repo: self.name(),
                    lock: quoted_path(e.message())
                        .unwrap_or("a git lock file")
                        .to_owned(),
                    holder: e.message().to_owned(),
                },
                ErrorCode::Modified | ErrorCode::Exists => StoreError::Raced {
                    repo: self.name(),
                    message: e.message().to_owned(),
                },
                _ => self.error("move the branch", e),
            }),
        }
    }

    /// The reference a commit goes on and the commit it points at now.
    fn tip(&self) -> Result<Tip<'_>, StoreError> {
        let head = self
            .repo
            .find_reference("HEAD")
            .map_err(|e| self.error("read HEAD", e))?;
        if head.kind() != Some(ReferenceType::Symbolic) {
            let parent = match head.target() {
                Some(id) => Some(self.load_commit(id)?),
                None => return Err(self.error("read HEAD", git2::Error::from_str("no target"))),
            };
            return Ok(Tip {
                reference: "HEAD".to_owned(),
                parent,
            });
        }
        let branch = head
            .symbolic_target()
            .ok()
            .flatten()
            .ok_or_else(|| self.error("read HEAD", git2::Error::from_str("not UTF-8")))?
            .to_owned();
        match self.repo.find_reference(&branch).and_then(|r| r.resolve()) {
            Ok(resolved) => {
                let reference = resolved.name().unwrap_or(&branch).to_owned();
                let parent = match resolved.target() {
                    Some(id) => Some(self.load_commit(id)?),
                    None => None,
                };
                Ok(Tip { reference, parent })
            }
            Err(e) if e.code() == ErrorCode::NotFound => Ok(Tip {
                reference: branch,
                parent: None,
            }),
            Err(e) => Err(self.error("read HEAD", e)),
        }
    }

    /// The blob ids that `base` holds at those of `paths` that are files in it, loading each
    /// folder on the way once, however many of the paths are in it.
    pub(super) fn committed_ids<'p>(
        &self,
        base: &Tree<'_>,
        paths: &[&'p str],
    ) -> Result<HashMap<&'p str, Oid>, StoreError> {
        let mut ids = HashMap::with_capacity(paths.len());
        for (folder, names) in by_folder(paths) {
            let tree = if folder.is_empty() {
                Some(base.clone())
            } else {
                self.subtree_at(base, folder)?
            };
            let Some(tree) = tree else {
                continue;
            };
            for (name, path) in names {
                if let Some(entry) = tree
                    .get_name(name)
                    .filter(|e| e.kind() == Some(ObjectType::Blob))
                {
                    ids.insert(path, entry.id());
                }
            }
        }
        Ok(ids)
    }

    /// The ids of `root` and of every folder in it on the way to `paths`: the trees a commit
    /// of those paths wrote. Looked up by libgit2: each is a tree it has just written, or
    /// one [`Store::committed_ids`] checked.
    fn folder_ids(&self, root: &Tree<'_>, paths: &[&str]) -> Result<Vec<Oid>, StoreError> {
        let mut folders: Vec<&str> = Vec::new();
        for folder in by_folder(paths).into_keys() {
            let mut end = 0;
            while let Some(slash) = folder[end..].find('/').map(|at| end + at) {
                folders.push(&folder[..slash]);
                end = slash + 1;
            }
            if !folder.is_empty() {
                folders.push(folder);
            }
        }
        folders.sort_unstable();
        folders.dedup();
        let mut ids = vec![root.id()];
        for folder in folders {
            match root.get_path(Path::new(folder)) {
                Ok(entry) if entry.kind() == Some(ObjectType::Tree) => ids.push(entry.id()),
                Ok(_) => {}
                Err(e) if e.code() == ErrorCode::NotFound => {}
                Err(e) => return Err(self.error("read the new tree", e)),
            }
        }
        Ok(ids)
    }

    fn signature(&self) -> Result<Signature<'static>, StoreError> {
        if let Some(signature) = env_signature("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL") {
            return Ok(signature);
        }
        self.repo
            .signature()
            .map_err(|_| StoreError::NoIdentity { repo: self.name() })
    }

    fn committer(&self) -> Option<Signature<'static>> {
        env_signature("GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL")
    }
}

/// `paths` by folder (`""` at the root), each with its file name.
fn by_folder<'p>(paths: &[&'p str]) -> BTreeMap<&'p str, Vec<(&'p str, &'p str)>> {
    let mut folders: BTreeMap<&str, Vec<(&str, &str)>> = BTreeMap::new();
    for path in paths {
        let (folder, name) = path.rsplit_once('/').unwrap_or(("", path));
        folders.entry(folder).or_default().push((name, path));
    }
    folders
}

/// The first `'…'`-quoted part of a libgit2 message, where it names the file it failed on.
fn quoted_path(message: &str) -> Option<&str> {
    let (_, rest) = message.split_once('\'')?;
    rest.split_once('\'').map(|(path, _)| path)
}

fn env_signature(name_var: &str, email_var: &str) -> Option<Signature<'static>> {
    let name = std::env::var(name_var).ok().filter(|s| !s.is_empty())?;
    let email = std::env::var(email_var).ok().filter(|s| !s.is_empty())?;
    Signature::now(&name, &email).ok()
}
