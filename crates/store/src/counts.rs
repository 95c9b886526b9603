//! How many git objects a store has read and written.

use std::cell::Cell;

/// How many git objects a [`Store`](crate::Store) has read and written since it was opened.
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

/// The counters a [`Store`](crate::Store) carries (a `Store` is not `Sync`, so a `Cell` is enough).
#[derive(Debug, Default)]
pub(crate) struct Counter(pub(crate) Cell<ObjectCounts>);

impl Counter {
    pub(crate) fn bump(&self, update: impl FnOnce(&mut ObjectCounts)) {
        let mut counts = self.0.get();
        update(&mut counts);
        self.0.set(counts);
    }
}
