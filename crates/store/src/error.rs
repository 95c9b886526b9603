//! What can go wrong in the store, each error naming the repository (and the object, file
//! or revision) it concerns.

use std::time::Duration;

use driftgate_snapshot::SnapshotError;

/// Why a baseline cannot be read from the store (the gate and the fleet check read them alike).
#[derive(Debug, thiserror::Error)]
pub enum BaselineReadError {
    /// The file cannot be read at the commit.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// It is no valid snapshot.
    #[error(transparent)]
    Invalid(#[from] SnapshotError),
    /// It is another host's snapshot.
    #[error("baseline {origin} is a snapshot of host {found}, not {host}")]
    OtherHost {
        /// `git:<commit>:<path>`.
        origin: String,
        /// Whose it is.
        found: String,
        /// Whose it should be.
        host: String,
    },
}

/// Why a store operation failed; every variant names the repository.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// No repository at or above the directory.
    #[error("{dir}: not inside a git repository (give --repo DIR or set DRIFTGATE_REPO)")]
    NotFound {
        /// Where the search started.
        dir: String,
    },
    /// A revision that does not resolve to a commit.
    #[error("{repo}: unknown revision {rev:?}")]
    UnknownRevision {
        /// The repository.
        repo: String,
        /// The revision asked for.
        rev: String,
    },
    /// A path that does not exist at a revision.
    #[error("{repo}: no file {path:?} at revision {rev:?}")]
    UnknownPath {
        /// The repository.
        repo: String,
        /// The revision.
        rev: String,
        /// The path asked for.
        path: String,
    },
    /// A host with baselines in several fleets.
    #[error("{repo}: host {host} has baselines in several fleets at {rev:?}: {paths}")]
    AmbiguousHost {
        /// The repository.
        repo: String,
        /// The revision.
        rev: String,
        /// The host.
        host: String,
        /// The paths found.
        paths: String,
    },
    /// The lock is held by another promote.
    #[error(
        "{repo}: another driftgate promote holds {lock} (waited {waited:?}); try again when it has finished"
    )]
    Locked {
        /// The repository.
        repo: String,
        /// The lock file.
        lock: String,
        /// How long this one waited.
        waited: Duration,
    },
    /// No author identity is configured.
    #[error(
        "{repo}: no author identity: set git config user.name and user.email, or GIT_AUTHOR_NAME and GIT_AUTHOR_EMAIL"
    )]
    NoIdentity {
        /// The repository.
        repo: String,
    },
    /// A file in the work tree has uncommitted changes that a write would overwrite.
    #[error(
        "{repo}: {path} has uncommitted changes; commit or discard them before promoting over it"
    )]
    DirtyPath {
        /// The repository.
        repo: String,
        /// The file.
        path: String,
    },
    /// A git lock file that driftgate cannot tell to be a leftover of its own.
    #[error(
        "{repo}: git lock file {lock} is in the way ({holder}); nothing was committed. Wait for the git process that holds it and try again; if no git process is working on this repository (`fuser {lock}` names none), remove {lock}"
    )]
    GitLocked {
        /// The repository.
        repo: String,
        /// The lock file.
        lock: String,
        /// Who holds it, as far as can be told.
        holder: String,
    },
    /// HEAD moved while the commit was being built (someone committed without the lock).
    #[error(
        "{repo}: the branch moved while committing ({message}); nothing was committed, try again"
    )]
    Raced {
        /// The repository.
        repo: String,
        /// libgit2's message.
        message: String,
    },
    /// A git object the store needs cannot be read: cut short, not zlib, of another size
    /// than its header says, missing, or in a damaged pack.
    #[error(
        "{repo}: git object {object} ({path}) cannot be read: {reason}; the store is damaged: `git fsck --full` in it lists every damaged object; restore them from another clone or a backup"
    )]
    Damaged {
        /// The repository.
        repo: String,
        /// The object's id.
        object: String,
        /// Its loose file, or the folder of the packs.
        path: String,
        /// What is wrong with it.
        reason: String,
    },
    /// Any other git or file-system failure.
    #[error("{repo}: {action}: {message}")]
    Git {
        /// The repository.
        repo: String,
        /// What was being done.
        action: String,
        /// The underlying message.
        message: String,
    },
}

/// The error of a failed git operation `action` in `repo`.
pub(super) fn git_error(repo: &str, action: &str, e: git2::Error) -> StoreError {
    StoreError::Git {
        repo: repo.to_owned(),
        action: action.to_owned(),
        message: e.message().to_owned(),
    }
}
