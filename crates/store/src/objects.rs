//! Every git object the store reads goes through here, and is counted (and so is every blob
//! it writes, `write.rs`).
//!
//! libgit2 keeps no tree larger than 4 KiB in its object cache and checks the hash of every
//! object it loads, so a fleet folder of 10,000 baselines (a 500 KB tree) costs its whole size
//! again on each load. The store therefore loads each tree it needs once per operation and
//! navigates by entry ids itself; the counts let a test prove that no operation turns into a
//! scan of every baseline.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use git2::{Commit, ErrorCode, ObjectType, Oid, Repository, Tree};
use rayon::prelude::*;

use crate::counts::ObjectCounts;
use crate::error::StoreError;
use crate::loose;
use crate::store::Store;

/// The id git gives `content` as a blob, computed without writing it: to tell whether a file
/// holds a blob already stored (promote skips an unchanged baseline by it, the work tree's
/// files are compared by it). Plain SHA-1 with the CPU's SHA instructions, several times
/// faster than libgit2's collision-detecting SHA-1, which still names every object written.
pub fn blob_id(content: &[u8]) -> Oid {
    use sha1::{Digest as _, Sha1};
    let mut hasher = Sha1::new();
    hasher.update(format!("blob {}\0", content.len()).as_bytes());
    hasher.update(content);
    Oid::from_bytes(&hasher.finalize()).expect("a SHA-1 digest is an object id's 20 bytes")
}

/// The entry `name` of a tree object's bytes (see [`raw_tree_entries`]).
fn raw_tree_entry(data: &[u8], name: &[u8]) -> Result<Option<(Oid, ObjectType)>, ()> {
    for entry in raw_tree_entries(data) {
        let (entry_name, id, kind) = entry?;
        if entry_name == name {
            return Ok(Some((id, kind)));
        }
    }
    Ok(None)
}

/// One entry of a tree object: its name, id and kind.
type RawEntry<'t> = (&'t [u8], Oid, ObjectType);

/// The entries of a tree object's bytes, in order: each is `MODE SP NAME NUL` and 20 bytes
/// of id. The kind follows the mode as git's does: `40000` a folder, `160000` a submodule's
/// commit, any other a blob (a file or a link). A malformed entry ends the entries with `Err`.
fn raw_tree_entries(mut data: &[u8]) -> impl Iterator<Item = Result<RawEntry<'_>, ()>> {
    std::iter::from_fn(move || {
        if data.is_empty() {
            return None;
        }
        let entry = split_raw_entry(data);
        // After a malformed entry there is nothing left to read.
        data = match &entry {
            Ok((_, rest)) => rest,
            Err(()) => &[],
        };
        Some(entry.map(|(entry, _)| entry))
    })
}

/// The first entry of a tree object's bytes, and the bytes after it.
fn split_raw_entry(data: &[u8]) -> Result<(RawEntry<'_>, &[u8]), ()> {
    let space = data.iter().position(|&b| b == b' ').ok_or(())?;
    let nul = space + 1 + data[space + 1..].iter().position(|&b| b == 0).ok_or(())?;
    let id = Oid::from_bytes(data.get(nul + 1..nul + 21).ok_or(())?).map_err(|_| ())?;
    let kind = match &data[..space] {
        b"40000" => ObjectType::Tree,
        b"160000" => ObjectType::Commit,
        _ => ObjectType::Blob,
    };
    Ok(((&data[space + 1..nul], id, kind), &data[nul + 21..]))
}

impl Store {
    /// The git objects this store has read and written so far.
    pub fn object_counts(&self) -> ObjectCounts {
        self.counter.0.get()
    }

    /// The counts so far, starting again from zero: what a handle of a thread's own read for
    /// an operation of another handle, which adds them with [`Store::add_object_counts`].
    pub fn take_object_counts(&self) -> ObjectCounts {
        self.counter.0.take()
    }

    /// Counts as this handle's what another handle read or wrote for it.
    pub fn add_object_counts(&self, other: ObjectCounts) {
        self.counter.bump(|c| {
            c.commits_read += other.commits_read;
            c.trees_read += other.trees_read;
            c.blobs_read += other.blobs_read;
            c.blobs_written += other.blobs_written;
        });
    }

    /// The commit `id`, checked before libgit2 reads it.
    pub(super) fn load_commit(&self, id: Oid) -> Result<Commit<'_>, StoreError> {
        self.counter.bump(|c| c.commits_read += 1);
        self.check(id, ObjectType::Commit)?;
        self.repo
            .find_commit(id)
            .map_err(|e| self.error("read commit", e))
    }

    /// The root tree of commit `id`.
    pub(super) fn commit_tree(&self, id: Oid) -> Result<Tree<'_>, StoreError> {
        self.counter.bump(|c| c.commits_read += 1);
        let tree = self.commit_tree_id(id)?;
        self.load_tree(tree)
    }

    /// The tree id on the first line of commit `id`. A loose commit is inflated only that far:
    /// a fleet promote's message names every host (about 1 MB for 2,000 hosts).
    fn commit_tree_id(&self, id: Oid) -> Result<Oid, StoreError> {
        let file = loose::path(&self.objects, id);
        let first = match loose::read_prefix(&file, ObjectType::Commit, TREE_LINE, MAX_OBJECT) {
            Ok(Some((_, first))) => first,
            Ok(None) => {
                read_packed(&self.repo, id, ObjectType::Commit).map_err(|d| self.damaged(d))?
            }
            Err(e) => return Err(self.damaged(Damage::loose(id, file, e))),
        };
        first
            .get(..TREE_LINE)
            .and_then(|line| line.strip_prefix(b"tree "))
            .and_then(|line| line.strip_suffix(b"\n"))
            .and_then(|hex| std::str::from_utf8(hex).ok())
            .and_then(|hex| Oid::from_str(hex).ok())
            .ok_or_else(|| {
                self.damaged(Damage {
                    object: id,
                    path: file,
                    reason: "it is a commit that does not start with its tree".to_owned(),
                })
            })
    }

    /// The tree `id`, checked before libgit2 reads it.
    pub(super) fn load_tree(&self, id: Oid) -> Result<Tree<'_>, StoreError> {
        self.counter.bump(|c| c.trees_read += 1);
        self.check(id, ObjectType::Tree)?;
        self.repo
            .find_tree(id)
            .map_err(|e| self.error("read tree", e))
    }

    /// Reads object `id`, a `kind`, once per store with bounds and checks, so that libgit2
    /// reads it only when it is whole: libgit2 itself loops forever on a truncated loose
    /// object (`loose.rs`). The empty tree is known to libgit2 without being stored.
    pub(super) fn check(&self, id: Oid, kind: ObjectType) -> Result<(), StoreError> {
        if self.checked.borrow().contains(&id) || id.to_string() == crate::store::EMPTY_TREE {
            return Ok(());
        }
        self.read_object(id, kind)?;
        self.checked.borrow_mut().insert(id);
        Ok(())
    }

    /// The content of object `id`, a `kind`, read with bounds and checked
    /// ([`read_object`]).
    pub(super) fn read_object(&self, id: Oid, kind: ObjectType) -> Result<Vec<u8>, StoreError> {
        read_object(&self.repo, &self.objects, id, kind).map_err(|d| self.damaged(d))
    }

    /// The kind of object `id`, from its header alone; `None` when the store does not have it.
    pub(super) fn object_kind(&self, id: Oid) -> Result<Option<ObjectType>, StoreError> {
        let file = loose::path(&self.objects, id);
        match loose::read_prefix(&file, ObjectType::Any, 0, MAX_OBJECT) {
            Ok(Some((kind, _))) => return Ok(Some(kind)),
            Ok(None) => {}
            Err(e) => return Err(self.damaged(Damage::loose(id, file, e))),
        }
        let odb = self.repo.odb().map_err(|e| self.error("open objects", e))?;
        match odb.read_header(id) {
            Ok((_, kind)) => Ok(Some(kind)),
            Err(e) if e.code() == ErrorCode::NotFound => Ok(None),
            Err(e) => Err(self.damaged(Damage::packed(&self.repo, id, e.message().to_owned()))),
        }
    }

    /// The error of a damaged object.
    fn damaged(&self, damage: Damage) -> StoreError {
        StoreError::Damaged {
            repo: self.name(),
            object: damage.object.to_string(),
            path: damage.path.display().to_string(),
            reason: damage.reason,
        }
    }

    /// The id and kind of the entry `name` of tree `id`, found in the tree's raw bytes.
    /// libgit2 parses every entry of a tree it loads into its own allocation: one host's
    /// history, which needs one entry of its fleet folder per commit, spent most of its time
    /// parsing the folder's thousand others.
    pub(super) fn tree_entry(
        &self,
        id: Oid,
        name: &str,
    ) -> Result<Option<(Oid, ObjectType)>, StoreError> {
        self.counter.bump(|c| c.trees_read += 1);
        self.read_raw_tree(id, |data| raw_tree_entry(data, name.as_bytes()))
    }

    /// The folders of tree `id` by name, with their ids, from the tree's raw bytes (see
    /// [`Store::tree_entry`]); a name that is not UTF-8 is no folder of baselines.
    pub(super) fn subtrees(&self, id: Oid) -> Result<BTreeMap<String, Oid>, StoreError> {
        self.counter.bump(|c| c.trees_read += 1);
        self.read_raw_tree(id, |data| {
            let mut folders = BTreeMap::new();
            for entry in raw_tree_entries(data) {
                let (name, id, kind) = entry?;
                if let (Ok(name), ObjectType::Tree) = (std::str::from_utf8(name), kind) {
                    folders.insert(name.to_owned(), id);
                }
            }
            Ok(folders)
        })
    }

    /// `read` of the bytes of tree `id` as stored.
    fn read_raw_tree<R>(
        &self,
        id: Oid,
        read: impl FnOnce(&[u8]) -> Result<R, ()>,
    ) -> Result<R, StoreError> {
        let data = self.read_object(id, ObjectType::Tree)?;
        read(&data).map_err(|()| self.malformed_tree(id))
    }

    fn malformed_tree(&self, id: Oid) -> StoreError {
        StoreError::Git {
            repo: self.name(),
            action: "read tree".to_owned(),
            message: format!("tree {id} is malformed"),
        }
    }

    /// The content of blob `id`.
    pub(super) fn load_blob(&self, id: Oid) -> Result<Vec<u8>, StoreError> {
        self.counter.bump(|c| c.blobs_read += 1);
        self.read_object(id, ObjectType::Blob)
    }

    /// The blobs `ids`, read on every core.
    pub(super) fn load_blobs(&self, ids: &[Oid]) -> Result<Vec<Vec<u8>>, StoreError> {
        if ids.len() < 2 {
            return ids.iter().map(|id| self.load_blob(*id)).collect();
        }
        self.counter.bump(|c| c.blobs_read += ids.len() as u64);
        let (git_dir, objects) = (self.repo.path(), &self.objects);
        // libgit2 handles are not shared between threads: each thread opens the repository
        // again.
        ids.par_iter()
            .map_init(
                || Repository::open(git_dir),
                |repo, id| match repo {
                    Ok(repo) => read_object(repo, objects, *id, ObjectType::Blob).map_err(Ok),
                    Err(e) => Err(Err(git2::Error::new(e.code(), e.class(), e.message()))),
                },
            )
            .collect::<Vec<_>>()
            .into_iter()
            .map(|read| {
                read.map_err(|failure| match failure {
                    Ok(damage) => self.damaged(damage),
                    Err(e) => self.error("read blob", e),
                })
            })
            .collect()
    }

    /// The entry at `/`-separated `path` below `root`: its id and kind, loading only the
    /// folders on the way.
    pub(super) fn entry_at(
        &self,
        root: &Tree<'_>,
        path: &str,
    ) -> Result<Option<(Oid, Option<ObjectType>)>, StoreError> {
        let mut components = path.split('/').filter(|c| !c.is_empty()).peekable();
        let mut folder: Option<Tree<'_>> = None;
        while let Some(name) = components.next() {
            let found = {
                let tree = folder.as_ref().unwrap_or(root);
                tree.get_name(name).map(|entry| (entry.id(), entry.kind()))
            };
            let Some((id, kind)) = found else {
                return Ok(None);
            };
            if components.peek().is_none() {
                return Ok(Some((id, kind)));
            }
            if kind != Some(ObjectType::Tree) {
                return Ok(None);
            }
            folder = Some(self.load_tree(id)?);
        }
        Ok(None)
    }

    /// The folder at `path` below `root`, if there is one.
    pub(super) fn subtree_at(
        &self,
        root: &Tree<'_>,
        path: &str,
    ) -> Result<Option<Tree<'_>>, StoreError> {
        match self.entry_at(root, path)? {
            Some((id, Some(ObjectType::Tree))) => self.load_tree(id).map(Some),
            _ => Ok(None),
        }
    }
}

/// The largest git object the store reads: a commit of a fleet-wide promote names every host
/// (about 5 MB for 10,000), a fleet folder of 100,000 baselines is about 5 MB. A larger one is
/// no baseline store's and is refused before it is inflated.
pub(super) const MAX_OBJECT: usize = 256 << 20;

/// `tree <40 hex digits>\n`, the first line of every commit.
const TREE_LINE: usize = 46;

/// An object that cannot be read: which, where, why.
#[derive(Debug)]
pub(super) struct Damage {
    object: Oid,
    /// The loose object's file, or the folder of the packs.
    path: PathBuf,
    reason: String,
}

impl Damage {
    fn loose(object: Oid, path: PathBuf, error: loose::LooseError) -> Self {
        Damage {
            object,
            path,
            reason: error.to_string(),
        }
    }

    fn packed(repo: &Repository, object: Oid, reason: String) -> Self {
        Damage {
            object,
            path: repo.commondir().join("objects").join("pack"),
            reason,
        }
    }
}

/// The content of object `id` of `repo` (whose objects folder is `objects`), which must be a
/// `kind`: a loose object is read by `loose.rs` (bounded, its size and name checked), a packed
/// one by libgit2 once its header says it is a `kind` of at most [`MAX_OBJECT`] bytes. An
/// object that is neither loose nor packed is missing: the store names it, so it is damaged.
fn read_object(
    repo: &Repository,
    objects: &Path,
    id: Oid,
    kind: ObjectType,
) -> Result<Vec<u8>, Damage> {
    let file = loose::path(objects, id);
    match loose::read(&file, id, kind, MAX_OBJECT) {
        Ok(Some((_, content))) => Ok(content),
        Ok(None) => read_packed(repo, id, kind),
        Err(e) => Err(Damage::loose(id, file, e)),
    }
}

/// [`read_object`] of an object that is not loose.
fn read_packed(repo: &Repository, id: Oid, kind: ObjectType) -> Result<Vec<u8>, Damage> {
    let damage = |reason: String| Damage::packed(repo, id, reason);
    let odb = repo.odb().map_err(|e| damage(e.message().to_owned()))?;
    let (size, found) = odb.read_header(id).map_err(|e| {
        damage(if e.code() == ErrorCode::NotFound {
            "it is missing: neither a loose object nor in a pack".to_owned()
        } else {
            e.message().to_owned()
        })
    })?;
    if size > MAX_OBJECT {
        return Err(damage(format!(
            "its pack entry declares {size} bytes, more than the {MAX_OBJECT} an object may have"
        )));
    }
    if found != kind {
        return Err(damage(format!("it is a {found}, not a {kind}")));
    }
    let object = odb.read(id).map_err(|e| damage(e.message().to_owned()))?;
    if object.len() != size {
        return Err(damage(format!(
            "its pack entry declares {size} bytes and holds {}",
            object.len()
        )));
    }
    Ok(object.data().to_vec())
}

#[cfg(test)]
mod tests {
    use git2::{ObjectType, Oid};

    #[test]
    fn entries_are_found_in_a_raw_tree_as_libgit2_finds_them() {
        let dir = tempfile::tempdir().unwrap();
        let repo = git2::Repository::init(dir.path()).unwrap();
        let blob = repo.blob(b"x").unwrap();
        let mut folder = repo.treebuilder(None).unwrap();
        folder.insert("inner.json", blob, 0o100644).unwrap();
        let folder = folder.write().unwrap();
        let mut root = repo.treebuilder(None).unwrap();
        for name in [
            "a.json",
            "b c.json",
            "node0001.json",
            "node0001.json.bak",
            "z",
        ] {
            root.insert(name, blob, 0o100644).unwrap();
        }
        root.insert("run.sh", blob, 0o100755).unwrap();
        root.insert("link", blob, 0o120000).unwrap();
        root.insert("node0001", folder, 0o040000).unwrap();
        let root = repo.find_tree(root.write().unwrap()).unwrap();
        let odb = repo.odb().unwrap();
        let raw = odb.read(root.id()).unwrap();
        for entry in root.iter() {
            let name = entry.name().unwrap();
            assert_eq!(
                super::raw_tree_entry(raw.data(), name.as_bytes()),
                Ok(Some((entry.id(), entry.kind().unwrap()))),
                "{name}"
            );
        }
        for absent in ["node0001.jso", "node0001.json.ba", "", "inner.json"] {
            assert_eq!(
                super::raw_tree_entry(raw.data(), absent.as_bytes()),
                Ok(None)
            );
        }
        let data = raw.data();
        // Every entry, in libgit2's order, with its kind.
        let listed: Vec<(Vec<u8>, Oid, ObjectType)> = super::raw_tree_entries(data)
            .map(|e| e.map(|(name, id, kind)| (name.to_vec(), id, kind)).unwrap())
            .collect();
        let expected: Vec<(Vec<u8>, Oid, ObjectType)> = root
            .iter()
            .map(|e| (e.name_bytes().to_vec(), e.id(), e.kind().unwrap()))
            .collect();
        assert_eq!(listed, expected);
        // Cut anywhere inside an entry, a tree is malformed, never read past its end: the
        // listing ends with one error.
        for cut in [1, 7, data.len() - 1] {
            assert_eq!(super::raw_tree_entry(&data[..cut], b"z"), Err(()), "{cut}");
            let last = super::raw_tree_entries(&data[..cut]).last();
            assert_eq!(last.map(|e| e.is_err()), Some(true), "{cut}");
            assert_eq!(
                super::raw_tree_entries(&data[..cut])
                    .filter(Result::is_err)
                    .count(),
                1
            );
        }
        assert_eq!(super::raw_tree_entries(&[]).count(), 0);
    }

    #[test]
    fn a_commits_tree_is_found_whether_the_commit_is_loose_or_packed() {
        let (dir, store) = crate::testing::committer_store();
        let repo = &store.repo;
        let blob = repo.blob(b"x").unwrap();
        let mut root = repo.treebuilder(None).unwrap();
        root.insert("a.json", blob, 0o100644).unwrap();
        let tree = repo.find_tree(root.write().unwrap()).unwrap();
        let me = git2::Signature::now("t", "t@example.com").unwrap();
        let message = format!("big\n\n{}", "host line\n".repeat(10_000));
        let commit = repo.commit(None, &me, &me, &message, &tree, &[]).unwrap();
        // Loose: inflated as far as the commit's first line.
        assert_eq!(store.commit_tree_id(commit).unwrap(), tree.id());
        assert_eq!(store.commit_tree(commit).unwrap().id(), tree.id());
        // Not a commit: no tree id is made up.
        for other in [tree.id(), blob] {
            let error = store.commit_tree_id(other).unwrap_err().to_string();
            assert!(error.contains("not a commit"), "{error}");
        }
        // Packed (and the loose copy gone): read from the pack.
        let mut pack = repo.packbuilder().unwrap();
        pack.insert_commit(commit).unwrap();
        pack.write(&dir.path().join(".git/objects/pack"), 0o644)
            .unwrap();
        let hex = commit.to_string();
        std::fs::remove_file(
            dir.path()
                .join(".git/objects")
                .join(&hex[..2])
                .join(&hex[2..]),
        )
        .unwrap();
        let reopened = crate::Store::discover(dir.path()).unwrap();
        assert_eq!(reopened.commit_tree_id(commit).unwrap(), tree.id());
        assert_eq!(reopened.commit_tree(commit).unwrap().id(), tree.id());
    }

    #[test]
    fn blob_ids_are_the_ids_git_gives() {
        let big = "x".repeat(200_000);
        for content in ["", "a", "{\n}\n", big.as_str()] {
            assert_eq!(
                super::blob_id(content.as_bytes()),
                Oid::hash_object(ObjectType::Blob, content.as_bytes()).unwrap(),
                "{} bytes",
                content.len()
            );
        }
        // `git hash-object /dev/null`
        assert_eq!(
            super::blob_id(b"").to_string(),
            "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"
        );
    }
}
