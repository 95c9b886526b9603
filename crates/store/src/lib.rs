//! The git baseline store: read files at any revision, find a host's baseline, and commit
//! files in one atomic commit under a lock. Written with `git2`, never by running `git`.
//!
//! Layout: `baselines/<fleet>/<host>.json`, optional `driftgate.toml` (policy) at the root.
//! A commit is built from HEAD's tree plus the files it writes, never from the index, so
//! whatever else the user has staged or modified stays exactly as it was. libgit2 writes
//! every object; the store makes them durable before the branch moves (`write.rs`). Every
//! object is read with a bound and checked before libgit2 parses it (`objects.rs`,
//! `loose.rs`): a damaged one is an error naming it, never a hang. Knows nothing of
//! snapshots' meaning beyond verifying a baseline as one ([`driftgate_snapshot`]); writes the
//! work tree through [`driftgate_fs`]'s folders.
//!
//! The store sets no libgit2 option: they are process-wide, the embedding program's to choose
//! (driftgate's `main` turns off libgit2's re-hashing of every object it reads).
//!
//! Files by job: `open.rs` opens a repository, `revision.rs` resolves revisions, `read.rs`
//! reads files and baselines at one, `listing.rs` lists them, `history.rs` walks their
//! history, `commit.rs` builds and lands a commit under the lock (`lock.rs`, `git_locks.rs`),
//! `write.rs` writes its objects, `store.rs` is the handle (`counts.rs` what it has read), `side_branch.rs` keeps a branch of driftgate's own beside
//! the baselines (the nightly state), `worktree.rs` its work-tree files, `objects.rs` and
//! `loose.rs` read objects, `error.rs` says what failed.

mod commit;
mod counts;
mod error;
mod file_write;
mod git_locks;
mod history;
mod listing;
mod lock;
mod loose;
mod objects;
mod open;
mod read;
mod revision;
mod side_branch;
mod store;
mod worktree;
mod write;

pub use commit::Committed;
pub use counts::ObjectCounts;
pub use error::{BaselineReadError, StoreError};
pub use file_write::FileWrite;
pub use history::{FileChange, HistoryEntry, HistoryScope};
pub use listing::{BaselineFile, Fleets};
pub use lock::StoreLock;
pub use objects::blob_id;
pub use side_branch::SideBranch;
pub use store::{BASELINES_DIR, POLICY_FILE, Store};

#[cfg(any(test, feature = "testing"))]
#[doc(hidden)]
pub mod testing;
#[cfg(test)]
mod tests;
