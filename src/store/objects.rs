//! Every git object the store reads or writes goes through here, and is counted.
//!
//! libgit2 keeps no tree larger than 4 KiB in its object cache and checks the hash of every
//! object it loads, so a fleet folder of 10,000 baselines (a 500 KB tree) costs its whole size
//! again on each load. The store therefore loads each tree it needs once per operation and
//! navigates by entry ids itself; the counts let a test prove that no operation turns into a
//! scan of every baseline.

use std::cell::Cell;
use std::collections::{BTreeMap, HashSet};

use git2::{Commit, ObjectType, OdbLookupFlags, Oid, Repository, Tree};

use super::{FileWrite, Store, StoreError};

/// How many git objects a [`Store`] has read and written since it was opened.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ObjectCounts {
    /// Commits read.
    pub commits_read: u64,
    /// Trees read (each folder on the way to a file counts).
    pub trees_read: u64,
    /// Blobs read.
    pub blobs_read: u64,
    /// Blobs written.
    pub blobs_written: u64,
}

impl ObjectCounts {
    /// All objects read.
    pub fn read(&self) -> u64 {
        self.commits_read + self.trees_read + self.blobs_read
    }
}

/// The id git gives `content` as a blob, computed without writing it: to tell whether a file
/// holds a blob already stored, and to name the blobs a pack holds (`pack.rs`). Plain SHA-1
/// with the CPU's SHA instructions: libgit2's collision-detecting SHA-1 was a fifth of a big
/// promote. What is written is a canonical snapshot text whose own SHA-256 digest verified;
/// a crafted SHA-1 collision in it is still caught by git's `fsck` and by every clone or
/// fetch (`index-pack` detects collisions). Loose objects still go through libgit2's.
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

/// The counters a [`Store`] carries (a `Store` is not `Sync`, so a `Cell` is enough).
#[derive(Debug, Default)]
pub(super) struct Counter(Cell<ObjectCounts>);

impl Counter {
    fn bump(&self, update: impl FnOnce(&mut ObjectCounts)) {
        let mut counts = self.0.get();
        update(&mut counts);
        self.0.set(counts);
    }
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

    /// The commit `id`.
    pub(super) fn load_commit(&self, id: Oid) -> Result<Commit<'_>, StoreError> {
        self.counter.bump(|c| c.commits_read += 1);
        self.repo
            .find_commit(id)
            .map_err(|e| self.error("read commit", e))
    }

    /// The root tree of commit `id`.
    pub(super) fn commit_tree(&self, id: Oid) -> Result<Tree<'_>, StoreError> {
        let tree = match self.commit_tree_id(id) {
            Some(tree) => {
                self.counter.bump(|c| c.commits_read += 1);
                tree
            }
            None => self.load_commit(id)?.tree_id(),
        };
        self.load_tree(tree)
    }

    /// The tree id on the first line of commit `id`, read without inflating the rest of it:
    /// a fleet promote's message names every host (about 1 MB for 2,000 hosts), which libgit2
    /// would inflate and copy in full. `None` when the object cannot be streamed (a packed
    /// one) or does not start as a commit does; the caller then loads the commit.
    fn commit_tree_id(&self, id: Oid) -> Option<Oid> {
        let odb = self.repo.odb().ok()?;
        let (mut reader, _, kind) = odb.reader(id).ok()?;
        if kind != ObjectType::Commit {
            return None;
        }
        let mut first = [0u8; 46];
        std::io::Read::read_exact(&mut reader, &mut first).ok()?;
        let hex = first.strip_prefix(b"tree ")?.strip_suffix(b"\n")?;
        Oid::from_str(std::str::from_utf8(hex).ok()?).ok()
    }

    /// The tree `id`.
    pub(super) fn load_tree(&self, id: Oid) -> Result<Tree<'_>, StoreError> {
        self.counter.bump(|c| c.trees_read += 1);
        self.repo
            .find_tree(id)
            .map_err(|e| self.error("read tree", e))
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
        let odb = self.repo.odb().map_err(|e| self.error("read tree", e))?;
        let object = odb.read(id).map_err(|e| self.error("read tree", e))?;
        if object.kind() != ObjectType::Tree {
            return Err(self.malformed_tree(id));
        }
        read(object.data()).map_err(|()| self.malformed_tree(id))
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
        self.repo
            .find_blob(id)
            .map(|blob| blob.content().to_vec())
            .map_err(|e| self.error("read blob", e))
    }

    /// Writes `content` as a blob (libgit2 skips the write when the object exists).
    pub(super) fn write_blob(&self, content: &[u8]) -> Result<Oid, StoreError> {
        self.counter.bump(|c| c.blobs_written += 1);
        self.repo
            .blob(content)
            .map_err(|e| self.error("write blob", e))
    }

    /// Writes every content as a blob, on every core: hashing and compressing them is most of
    /// a big promote's commit.
    pub(super) fn write_blobs(&self, files: &[FileWrite]) -> Result<Vec<Oid>, StoreError> {
        let contents: Vec<&[u8]> = files.iter().map(FileWrite::content).collect();
        if contents.len() < 2 {
            return contents.iter().map(|c| self.write_blob(c)).collect();
        }
        self.counter
            .bump(|c| c.blobs_written += contents.len() as u64);
        if contents.len() < super::pack::PACK_AT {
            return self.on_every_core("write blob", &contents, |repo, content| repo.blob(content));
        }
        let ids = crate::parallel::map(files, FileWrite::blob_id);
        let odb = self.repo.odb().map_err(|e| self.error("open objects", e))?;
        // Only what the store lacks, each once: an object stored twice is harmless, but a
        // pack index must not list one twice.
        let mut seen = HashSet::new();
        let new: Vec<(&[u8], Oid)> = contents
            .iter()
            .zip(&ids)
            .filter(|(_, id)| {
                seen.insert(**id) && !odb.exists_ext(**id, OdbLookupFlags::NO_REFRESH)
            })
            .map(|(content, id)| (*content, *id))
            .collect();
        let pack_dir = self.repo.path().join("objects").join("pack");
        super::pack::write_packs(&pack_dir, &new).map_err(|e| StoreError::Git {
            repo: self.name(),
            action: format!(
                "write a pack of {} blobs into {}",
                new.len(),
                pack_dir.display()
            ),
            message: e.to_string(),
        })?;
        odb.refresh()
            .map_err(|e| self.error("read the new pack", e))?;
        Ok(ids)
    }

    /// The blobs `ids`, read on every core.
    pub(super) fn load_blobs(&self, ids: &[Oid]) -> Result<Vec<Vec<u8>>, StoreError> {
        if ids.len() < 2 {
            return ids.iter().map(|id| self.load_blob(*id)).collect();
        }
        self.counter.bump(|c| c.blobs_read += ids.len() as u64);
        self.on_every_core("read blob", ids, |repo, id| {
            repo.find_blob(*id).map(|blob| blob.content().to_vec())
        })
    }

    /// `f` of every item with a repository handle of the thread's own, in the items' order:
    /// libgit2 handles are not shared between threads, so each thread opens the repository
    /// again. The first failure is the error, named by `action`.
    fn on_every_core<T: Sync, R: Send>(
        &self,
        action: &str,
        items: &[T],
        f: impl Fn(&Repository, &T) -> Result<R, git2::Error> + Sync,
    ) -> Result<Vec<R>, StoreError> {
        let git_dir = self.repo.path();
        crate::parallel::map_with(
            items,
            || Repository::open(git_dir),
            |repo, item| match repo {
                Ok(repo) => f(repo, item),
                Err(e) => Err(git2::Error::new(e.code(), e.class(), e.message())),
            },
        )
        .into_iter()
        .map(|done| done.map_err(|e| self.error(action, e)))
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
        let (dir, store) = crate::store::testing::committer_store();
        let repo = &store.repo;
        let blob = repo.blob(b"x").unwrap();
        let mut root = repo.treebuilder(None).unwrap();
        root.insert("a.json", blob, 0o100644).unwrap();
        let tree = repo.find_tree(root.write().unwrap()).unwrap();
        let me = git2::Signature::now("t", "t@example.com").unwrap();
        let message = format!("big\n\n{}", "host line\n".repeat(10_000));
        let commit = repo.commit(None, &me, &me, &message, &tree, &[]).unwrap();
        // Loose: streamed from the commit's first line.
        assert_eq!(store.commit_tree_id(commit), Some(tree.id()));
        assert_eq!(store.commit_tree(commit).unwrap().id(), tree.id());
        // Not a commit: no tree id is made up.
        assert_eq!(store.commit_tree_id(tree.id()), None);
        assert_eq!(store.commit_tree_id(blob), None);
        // Packed (and the loose copy gone): it cannot be streamed, so the commit is loaded.
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
        let reopened = crate::store::Store::discover(dir.path()).unwrap();
        assert_eq!(reopened.commit_tree_id(commit), None);
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
