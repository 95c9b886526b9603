//! The work tree's side of a commit: refusing to overwrite someone's edit, writing the files
//! and their index entries, putting both back when the commit fails, and tidying what a killed
//! promote left behind. Every folder of the work tree is reached through [`Folder`], never
//! through a symbolic link, and every file is read without following one or waiting on a FIFO.

use std::collections::{BTreeMap, HashMap};
use std::io;
use std::path::Path;
use std::sync::Arc;

use git2::{FileMode, Oid};
use rayon::prelude::*;

use crate::error::StoreError;
use crate::file_write::FileWrite;
use crate::lock::StoreLock;
use crate::objects::blob_id;
use crate::store::Store;
use driftgate_fs::{Folder, TEMP_PREFIX, TEMP_SUFFIX, WriteOptions};

/// What a work-tree file held before a commit wrote it.
pub(super) enum Before {
    /// No file.
    Absent,
    /// The bytes written: nothing to put back.
    Same,
    /// HEAD's blob at its path: put back from the object database, not kept in memory (a
    /// fleet-wide promote replaces thousands of baselines).
    Blob(Oid),
    /// Other bytes: a leftover of an interrupted promote.
    Bytes(Vec<u8>),
}

/// What the work tree and index held at the paths a commit writes, to put back on failure.
#[derive(Default)]
pub(super) struct WorktreeUndo {
    files: Vec<(Arc<Folder>, String, Before)>,
    entries: Vec<(String, Option<git2::IndexEntry>)>,
}

/// The folders of a work tree that one operation reads or writes, each opened once.
struct Folders {
    root: Arc<Folder>,
    open: HashMap<String, Option<Arc<Folder>>>,
}

impl Folders {
    fn new(workdir: &Path) -> io::Result<Folders> {
        let root =
            Folder::open_at(workdir)?.ok_or_else(|| io::Error::from(io::ErrorKind::NotFound))?;
        Ok(Folders {
            root: Arc::new(root),
            open: HashMap::new(),
        })
    }

    /// The folder of the `/`-separated `path` of a file and the file's name; the folder is
    /// created with `create`, else `None` when it does not exist.
    fn of(&mut self, path: &str, create: bool) -> io::Result<(Option<Arc<Folder>>, String)> {
        let (dir, name) = path.rsplit_once('/').unwrap_or(("", path));
        Ok((self.folder(dir, create)?, name.to_owned()))
    }

    fn folder(&mut self, dir: &str, create: bool) -> io::Result<Option<Arc<Folder>>> {
        if dir.is_empty() {
            return Ok(Some(Arc::clone(&self.root)));
        }
        if let Some(Some(folder)) = self.open.get(dir) {
            return Ok(Some(Arc::clone(folder)));
        }
        if !create && self.open.contains_key(dir) {
            return Ok(None);
        }
        let (parent, name) = dir.rsplit_once('/').unwrap_or(("", dir));
        let folder = match self.folder(parent, create)? {
            Some(parent) if create => Some(Arc::new(parent.create_child(name)?)),
            Some(parent) => parent.open_child(name)?.map(Arc::new),
            None => None,
        };
        self.open.insert(dir.to_owned(), folder.clone());
        Ok(folder)
    }
}

impl Store {
    /// Refuses to overwrite a work-tree file that holds someone's uncommitted edit: a file
    /// that is neither the new content, nor what `committed` (its blob at HEAD) holds, nor
    /// what `replaceable` accepts, and otherwise says what each file holds, for the undo of
    /// a commit that fails. The files are read and hashed on every core. A symbolic link
    /// where a file or folder of the store belongs is refused.
    pub(super) fn refuse_dirty(
        &self,
        files: &[FileWrite],
        committed: &HashMap<&str, Oid>,
        replaceable: &(dyn Fn(&[u8]) -> bool + Sync),
    ) -> Result<Vec<Before>, StoreError> {
        let Some(workdir) = self.repo.workdir() else {
            return Ok(Vec::new());
        };
        let mut folders = Folders::new(workdir).map_err(|e| self.io_error("", e))?;
        let mut located = Vec::with_capacity(files.len());
        for file in files {
            located.push(
                folders
                    .of(&file.path, false)
                    .map_err(|e| self.io_error(&file.path, e))?,
            );
        }
        // `None`: someone's own edit.
        let before = |(file, (folder, name)): (&FileWrite, &(Option<Arc<Folder>>, String))| -> io::Result<Option<Before>> {
            let on_disk = match folder.as_ref().map(|f| f.read(name)).transpose()?.flatten() {
                Some(bytes) => bytes,
                None => return Ok(Some(Before::Absent)),
            };
            if on_disk == file.content {
                return Ok(Some(Before::Same));
            }
            // Hashing the file is cheaper than reading HEAD's blob or parsing it as a
            // snapshot, and the undo then keeps the blob's id, not the bytes.
            if let Some(&id) = committed.get(file.path.as_str())
                && blob_id(&on_disk) == id
            {
                return Ok(Some(Before::Blob(id)));
            }
            Ok(replaceable(&on_disk).then_some(Before::Bytes(on_disk)))
        };
        let pairs: Vec<_> = files.iter().zip(&located).collect();
        let mut befores = Vec::with_capacity(files.len());
        for (file, before) in files.iter().zip(
            pairs
                .par_iter()
                .map(|pair| before(*pair))
                .collect::<Vec<_>>(),
        ) {
            match before {
                Ok(Some(before)) => befores.push(before),
                Ok(None) => {
                    return Err(StoreError::DirtyPath {
                        repo: self.name(),
                        path: file.path.clone(),
                    });
                }
                Err(e) => return Err(self.io_error(&file.path, e)),
            }
        }
        Ok(befores)
    }

    /// Puts the work-tree files at `paths` back in line with HEAD when an interrupted
    /// promote left them behind: stale temporary files go, and a file whose content
    /// `replaceable` recognises as such a leftover gets HEAD's content and index entry again.
    /// Someone's own edit is left alone.
    pub fn tidy(
        &self,
        _lock: &StoreLock,
        paths: &[String],
        replaceable: &dyn Fn(&[u8]) -> bool,
    ) -> Result<(), StoreError> {
        let Some(workdir) = self.repo.workdir() else {
            return Ok(());
        };
        if !self.has_commits() {
            return Ok(());
        }
        let head = self.tree_at("HEAD")?;
        let paths: Vec<&str> = paths.iter().map(String::as_str).collect();
        let committed = self.committed_ids(&head, &paths)?;
        let mut folders = Folders::new(workdir).map_err(|e| self.io_error("", e))?;
        let mut tidied = BTreeMap::new();
        let mut stale = Vec::new();
        let mut blobs = Vec::new();
        let mut befores = Vec::new();
        for path in paths {
            let (Some(folder), name) = folders
                .of(path, false)
                .map_err(|e| self.io_error(path, e))?
            else {
                continue;
            };
            tidied
                .entry(folder.path().to_owned())
                .or_insert_with(|| remove_stale_temporaries(&folder));
            let Some(&id) = committed.get(path) else {
                continue;
            };
            let Ok(Some(on_disk)) = folder.read(&name) else {
                continue;
            };
            if blob_id(&on_disk) != id && replaceable(&on_disk) {
                stale.push(FileWrite::new(path.to_owned(), self.load_blob(id)?));
                blobs.push(id);
                befores.push(Before::Bytes(on_disk));
            }
        }
        if stale.is_empty() {
            return Ok(());
        }
        let mut undo = WorktreeUndo::default();
        self.update_worktree(&stale, &blobs, befores, &mut undo)
    }

    /// Writes `files` into the work tree and points their index entries at `blobs`, leaving
    /// every other entry alone; records in `undo` what was there before.
    pub(super) fn update_worktree(
        &self,
        files: &[FileWrite],
        blobs: &[Oid],
        befores: Vec<Before>,
        undo: &mut WorktreeUndo,
    ) -> Result<(), StoreError> {
        let Some(workdir) = self.repo.workdir() else {
            return Ok(());
        };
        let mut index = self.repo.index().map_err(|e| self.error("read index", e))?;
        // The repository caches its index; what the user staged since must not be lost.
        index.read(true).map_err(|e| self.error("read index", e))?;
        let mut folders = Folders::new(workdir).map_err(|e| self.io_error("", e))?;
        let mut targets = Vec::with_capacity(files.len());
        let mut tidied = BTreeMap::new();
        for file in files {
            let (folder, name) = folders
                .of(&file.path, true)
                .map_err(|e| self.io_error(&file.path, e))?;
            let folder = folder.expect("a created folder exists");
            tidied
                .entry(folder.path().to_owned())
                .or_insert_with(|| remove_stale_temporaries(&folder));
            targets.push((folder, name));
        }
        // Replaced on every core: a fleet-wide promote writes thousands. Not flushed file by
        // file: the commit is the truth and the work tree a checkout of it (git flushes
        // neither a checkout nor loose objects). A file lost in a power cut is put back from
        // HEAD by `git checkout`; a rename never leaves half a file.
        let unsynced = WriteOptions {
            readable: false,
            sync: false,
        };
        let pairs: Vec<_> = files.iter().zip(&targets).collect();
        let written: Vec<_> = pairs
            .par_iter()
            .map(|(file, (folder, name))| folder.write_atomic(name, &file.content, unsynced))
            .collect();
        let mut failed = None;
        for (((result, file), (folder, name)), before) in
            written.into_iter().zip(files).zip(targets).zip(befores)
        {
            // Every file is in the undo, written or not: restoring an untouched one puts back
            // what it already holds.
            undo.files.push((folder, name, before));
            if let Err(e) = result {
                failed.get_or_insert_with(|| self.io_error(&file.path, e));
            }
        }
        if let Some(error) = failed {
            return Err(error);
        }
        for (file, blob) in files.iter().zip(blobs) {
            undo.entries
                .push((file.path.clone(), index.get_path(Path::new(&file.path), 0)));
            index
                .add(&index_entry(&file.path, *blob, file.content.len()))
                .map_err(|e| self.error("update index", e))?;
        }
        index.write().map_err(|e| self.error("write index", e))
    }

    /// Puts back what [`Self::update_worktree`] changed; best effort, on a path that already
    /// failed.
    pub(super) fn restore(&self, undo: WorktreeUndo) {
        for (folder, name, before) in undo.files.into_iter().rev() {
            let _ = match before {
                Before::Absent => folder.remove_file(&name),
                Before::Same => Ok(()),
                Before::Blob(id) => match self.load_blob(id) {
                    Ok(bytes) => folder.write_atomic(&name, &bytes, WriteOptions::PRIVATE),
                    Err(_) => Ok(()),
                },
                Before::Bytes(bytes) => folder.write_atomic(&name, &bytes, WriteOptions::PRIVATE),
            };
        }
        if undo.entries.is_empty() {
            return;
        }
        let Ok(mut index) = self.repo.index() else {
            return;
        };
        if index.read(true).is_err() {
            return;
        }
        for (path, entry) in undo.entries.into_iter().rev() {
            let _ = match entry {
                Some(entry) => index.add(&entry),
                None => index.remove_path(Path::new(&path)),
            };
        }
        let _ = index.write();
    }
}

/// An index entry for a file whose content is `blob`. The zero stat data makes git re-hash
/// the work-tree file once, which then matches.
fn index_entry(path: &str, blob: Oid, size: usize) -> git2::IndexEntry {
    git2::IndexEntry {
        ctime: git2::IndexTime::new(0, 0),
        mtime: git2::IndexTime::new(0, 0),
        dev: 0,
        ino: 0,
        mode: u32::from(FileMode::Blob),
        uid: 0,
        gid: 0,
        file_size: u32::try_from(size).unwrap_or(u32::MAX),
        id: blob,
        flags: 0,
        flags_extended: 0,
        path: path.as_bytes().to_vec(),
    }
}

/// Removes the temporary files of atomic writes in `folder` that a killed promote left behind.
/// Only a lock holder writes them, so while the lock is held every one of them is stale.
fn remove_stale_temporaries(folder: &Folder) {
    let Ok(names) = folder.names() else {
        return;
    };
    for name in names.iter().filter_map(|name| name.to_str()) {
        if name.starts_with(TEMP_PREFIX) && name.ends_with(TEMP_SUFFIX) {
            let _ = folder.remove_file(name);
        }
    }
}
