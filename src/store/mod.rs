//! The git baseline store: read files at any revision, find a host's baseline, and commit
//! files in one atomic commit under a lock. Written with `git2`, never by running `git`.
//!
//! Layout: `baselines/<fleet>/<host>.json`, optional `driftgate.toml` (policy) at the root.
//! A commit is built from HEAD's tree plus the files it writes, never from the index, so
//! whatever else the user has staged or modified stays exactly as it was. Every object is read
//! with a bound and checked before libgit2 parses it (`objects.rs`, `loose.rs`): a damaged one
//! is an error naming it, never a hang. Knows nothing of snapshots' meaning beyond verifying a
//! baseline as one (`snapshot`); writes the work tree through `fsutil`'s folders.

mod git_locks;
mod history;
mod listing;
mod lock;
mod loose;
mod objects;
mod pack;
mod worktree;

use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::Duration;

use git2::build::TreeUpdateBuilder;
use git2::{ErrorCode, FileMode, ObjectType, Oid, Repository, Signature, Tree};

pub use history::{FileChange, HistoryEntry, HistoryScope};
pub use listing::{BaselineFile, Fleets};
pub use lock::StoreLock;
pub use objects::{ObjectCounts, blob_id};
use worktree::WorktreeUndo;

use crate::snapshot::{SnapshotError, VerifiedSnapshot};

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

/// Folder of the baselines inside the store.
pub const BASELINES_DIR: &str = "baselines";
/// Policy file at the store's root.
pub const POLICY_FILE: &str = "driftgate.toml";

/// Id of the empty tree in SHA-1 repositories.
const EMPTY_TREE: &str = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";

/// A baseline store: a git repository, bare or with a work tree.
pub struct Store {
    repo: Repository,
    location: PathBuf,
    /// The objects folder (shared by every work tree of the repository).
    objects: PathBuf,
    /// Objects read and found whole, which libgit2 may then read ([`Store::check`]).
    checked: RefCell<HashSet<Oid>>,
    counter: objects::Counter,
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

/// One file a commit writes.
#[derive(Debug, Clone)]
pub struct FileWrite {
    /// Path inside the repository, `/`-separated.
    pub path: String,
    content: Vec<u8>,
    /// The content's blob id, when [`FileWrite::hashed`] computed it already.
    id: Option<Oid>,
}

impl FileWrite {
    /// `content` at `path`.
    pub fn new(path: impl Into<String>, content: Vec<u8>) -> Self {
        FileWrite {
            path: path.into(),
            content,
            id: None,
        }
    }

    /// [`FileWrite::new`] with its blob id computed now, for a caller that needs the id
    /// itself (promote tells an unchanged baseline by it): the commit does not hash the
    /// content again.
    pub fn hashed(path: impl Into<String>, content: Vec<u8>) -> Self {
        let id = Some(blob_id(&content));
        FileWrite {
            path: path.into(),
            content,
            id,
        }
    }

    /// The content.
    pub fn content(&self) -> &[u8] {
        &self.content
    }

    /// The id git gives the content as a blob.
    pub fn blob_id(&self) -> Oid {
        self.id.unwrap_or_else(|| blob_id(&self.content))
    }
}

/// A commit that was made.
#[derive(Debug, Clone)]
pub struct Committed {
    /// The new commit.
    pub id: Oid,
    /// The branch it went on (`refs/heads/main`), or `HEAD` when detached.
    pub reference: String,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store")
            .field("location", &self.location)
            .finish_non_exhaustive()
    }
}

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
        // libgit2 re-hashes every object it reads (SHA-1 with collision detection), which git
        // itself does only in fsck: a 10,000-host fleet folder costs its 500 KB again on each
        // load. Corruption still fails: zlib checks every object's stream, and each baseline
        // carries its own SHA-256 digest, verified whenever it is parsed.
        git2::opts::strict_hash_verification(false);
        let location = repo.workdir().unwrap_or_else(|| repo.path()).to_path_buf();
        Store {
            objects: repo.commondir().join("objects"),
            repo,
            location,
            checked: RefCell::default(),
            counter: objects::Counter::default(),
        }
    }

    /// The HEAD commit (hex), if the repository has one.
    pub fn head_commit(&self) -> Result<Option<String>, StoreError> {
        if !self.has_commits() {
            return Ok(None);
        }
        Ok(Some(self.resolve("HEAD")?.to_string()))
    }

    /// The baseline at `path` of `commit`, verified, which must be a snapshot of `host`; its
    /// origin is `git:<commit>:<path>`.
    pub fn read_baseline(
        &self,
        commit: &str,
        path: &str,
        host: &str,
    ) -> Result<VerifiedSnapshot, BaselineReadError> {
        let bytes = self.read(commit, path)?;
        self.verify_baseline(&bytes, commit, path, host)
    }

    /// [`Store::read_baseline`] of a file that [`Store::baseline_files`] listed at `commit`:
    /// read by its blob id, with no tree lookup.
    pub fn read_listed_baseline(
        &self,
        commit: &str,
        file: &BaselineFile,
        host: &str,
    ) -> Result<VerifiedSnapshot, BaselineReadError> {
        let bytes = self.read_file(file)?;
        self.verify_baseline(&bytes, commit, &file.path, host)
    }

    fn verify_baseline(
        &self,
        bytes: &[u8],
        commit: &str,
        path: &str,
        host: &str,
    ) -> Result<VerifiedSnapshot, BaselineReadError> {
        let origin = format!("git:{commit}:{path}");
        let baseline = VerifiedSnapshot::parse_bytes(bytes, &origin)?;
        if baseline.snapshot().host.as_str() != host {
            return Err(BaselineReadError::OtherHost {
                origin,
                found: baseline.snapshot().host.to_string(),
                host: host.to_owned(),
            });
        }
        Ok(baseline)
    }

    /// The work tree, or the repository folder of a bare repository.
    pub fn location(&self) -> &Path {
        &self.location
    }

    /// Whether the repository has no work tree.
    pub fn is_bare(&self) -> bool {
        self.repo.is_bare()
    }

    fn name(&self) -> String {
        self.location.display().to_string()
    }

    fn error(&self, action: &str, e: git2::Error) -> StoreError {
        git_error(&self.name(), action, e)
    }

    /// Whether HEAD points at a commit yet.
    pub fn has_commits(&self) -> bool {
        self.repo.head().ok().and_then(|h| h.target()).is_some()
    }

    /// The commit `rev` names (`HEAD`, a branch, a tag, an id or a prefix of one, each
    /// followed by `~N`, `^N` steps to ancestors).
    ///
    /// Every object on the way is read by the store's own checked reads, never by libgit2's
    /// revision parser, which reads objects unchecked (see `loose.rs`); only a revision in
    /// another syntax (`@{1}`, `:/text`) is left to libgit2. A revision that names nothing is
    /// unknown; one that names an object the store does not hold whole is damage.
    pub fn resolve(&self, rev: &str) -> Result<Oid, StoreError> {
        let unknown = || StoreError::UnknownRevision {
            repo: self.name(),
            rev: rev.to_owned(),
        };
        let Some((base, steps)) = ancestry(rev) else {
            return self
                .repo
                .revparse_single(rev)
                .and_then(|object| object.peel_to_commit())
                .map(|commit| commit.id())
                .map_err(|_| unknown());
        };
        let mut id = self.peel_to_commit(self.name_base(base).ok_or_else(unknown)?, rev)?;
        for (parent, count) in steps {
            for _ in 0..count {
                id = match parent {
                    0 => id,
                    n => self
                        .load_commit(id)?
                        .parent_id(n - 1)
                        .map_err(|_| unknown())?,
                };
            }
        }
        Ok(id)
    }

    /// The object a revision's base names (a full id, a reference, a prefix of an id), found
    /// without reading it, and whether a reference named it.
    fn name_base(&self, base: &str) -> Option<(Oid, Named)> {
        let hex = !base.is_empty() && base.bytes().all(|b| b.is_ascii_hexdigit());
        if hex && base.len() == 40 {
            return Oid::from_str(base).ok().map(|id| (id, Named::ById));
        }
        if let Ok(id) = self
            .repo
            .resolve_reference_from_short_name(base)
            .and_then(|r| r.resolve())
            .and_then(|r| r.target().ok_or_else(|| git2::Error::from_str("symbolic")))
        {
            return Some((id, Named::ByReference));
        }
        if hex && base.len() >= 4 {
            let odb = self.repo.odb().ok()?;
            let id = odb
                .exists_prefix(Oid::from_str(base).ok()?, base.len())
                .ok()?;
            return Some((id, Named::ById));
        }
        None
    }

    /// The commit that `id` is or (a tag) points at; only the objects' headers are read. A
    /// missing object is an unknown revision when `rev` gave its id, and damage when a
    /// reference or a tag names it.
    fn peel_to_commit(
        &self,
        (mut id, mut named): (Oid, Named),
        rev: &str,
    ) -> Result<Oid, StoreError> {
        let unknown = || StoreError::UnknownRevision {
            repo: self.name(),
            rev: rev.to_owned(),
        };
        // A tag of a tag of … a commit.
        for _ in 0..8 {
            match self.object_kind(id)? {
                Some(ObjectType::Commit) => return Ok(id),
                Some(ObjectType::Tag) => {
                    self.check(id, ObjectType::Tag)?;
                    id = self
                        .repo
                        .find_tag(id)
                        .map_err(|e| self.error("read tag", e))?
                        .target_id();
                    named = Named::ByReference;
                }
                Some(_) => return Err(unknown()),
                None if named == Named::ById => return Err(unknown()),
                None => {
                    return Err(self
                        .read_object(id, ObjectType::Commit)
                        .err()
                        .unwrap_or_else(unknown));
                }
            }
        }
        Err(unknown())
    }

    fn tree_at(&self, rev: &str) -> Result<Tree<'_>, StoreError> {
        self.commit_tree(self.resolve(rev)?)
    }

    /// The content of `path` at `rev`.
    pub fn read(&self, rev: &str, path: &str) -> Result<Vec<u8>, StoreError> {
        let tree = self.tree_at(rev)?;
        match self.entry_at(&tree, path)? {
            Some((id, Some(ObjectType::Blob))) => self.load_blob(id),
            _ => Err(StoreError::UnknownPath {
                repo: self.name(),
                rev: rev.to_owned(),
                path: path.to_owned(),
            }),
        }
    }

    /// The content of `path` at HEAD, or `None` when the file or HEAD does not exist.
    pub fn read_head(&self, path: &str) -> Result<Option<Vec<u8>>, StoreError> {
        if !self.has_commits() {
            return Ok(None);
        }
        match self.read("HEAD", path) {
            Ok(bytes) => Ok(Some(bytes)),
            Err(StoreError::UnknownPath { .. }) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// `host`'s baseline (`baselines/<fleet>/<host>.json`) at `rev`, if any: one lookup by
    /// name in each fleet folder.
    pub fn host_file(&self, rev: &str, host: &str) -> Result<Option<BaselineFile>, StoreError> {
        self.fleets(rev)?.host_file(host)
    }

    /// Takes the store's promote lock, waiting up to `wait` for another holder to finish.
    ///
    /// Holding it, driftgate is the only writer of the store: git lock files that a killed
    /// promote left behind are removed (the lock lists them), and one that a live git process
    /// may own is an error naming it.
    pub fn lock(&self, wait: Duration) -> Result<StoreLock, StoreError> {
        let mut lock = self.acquire(wait)?;
        let branch = self
            .repo
            .find_reference("HEAD")
            .ok()
            .and_then(|head| head.symbolic_target().ok().flatten().map(str::to_owned));
        let marker = self.repo.path().join(git_locks::MARKER);
        let interrupted_at = StoreLock::interrupted_at(&marker);
        let cleared = git_locks::clear(
            self.repo.path(),
            branch.as_deref(),
            lock.acquired_at(),
            interrupted_at,
        );
        if let Some(held) = cleared.held.into_iter().next() {
            return Err(StoreError::GitLocked {
                repo: self.name(),
                lock: held.path.display().to_string(),
                holder: held.holder,
            });
        }
        lock.mark(marker.clone()).map_err(|e| StoreError::Git {
            repo: self.name(),
            action: format!("write {}", marker.display()),
            message: e.to_string(),
        })?;
        lock.set_removed_git_locks(cleared.removed);
        Ok(lock)
    }

    fn acquire(&self, wait: Duration) -> Result<StoreLock, StoreError> {
        StoreLock::acquire(&self.repo.path().join("driftgate.lock"), wait).map_err(|e| match e {
            lock::LockError::Timeout { path, waited } => StoreError::Locked {
                repo: self.name(),
                lock: path.display().to_string(),
                waited,
            },
            lock::LockError::Io { path, error } => StoreError::Git {
                repo: self.name(),
                action: format!("lock {}", path.display()),
                message: error.to_string(),
            },
        })
    }

    /// Commits `files` on top of HEAD in one commit on the current branch, under `lock`.
    ///
    /// The tree is HEAD's plus these files; the index and work tree change only at these
    /// paths. A work-tree file at such a path is overwritten only when it holds HEAD's
    /// content, the new content, or content `replaceable` accepts (a whole file an
    /// interrupted write left); anything else is someone's edit and refused.
    ///
    /// Order: work-tree files (each atomically) and their index entries, then the commit
    /// (libgit2 moves the branch only if it still points at the parent); if the commit fails,
    /// the work tree and index are put back. A crash at any point leaves HEAD at the old
    /// commit or the new one, and whole files.
    pub fn commit(
        &self,
        _lock: &StoreLock,
        files: &[FileWrite],
        message: &str,
        replaceable: &(dyn Fn(&[u8]) -> bool + Sync),
    ) -> Result<Committed, StoreError> {
        let signature = self.signature()?;
        let committer = self.committer().unwrap_or_else(|| signature.clone());
        let parent = match self.repo.head() {
            Ok(head) => match head.target() {
                Some(id) => Some(self.load_commit(id)?),
                None => return Err(self.error("read HEAD", git2::Error::from_str("no target"))),
            },
            Err(e) if matches!(e.code(), ErrorCode::UnbornBranch | ErrorCode::NotFound) => None,
            Err(e) => return Err(self.error("read HEAD", e)),
        };
        let base_tree = match &parent {
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
        let mut undo = WorktreeUndo::default();
        if let Err(e) = self.update_worktree(files, &blobs, befores, &mut undo) {
            self.restore(undo);
            return Err(e);
        }
        let parents: Vec<&git2::Commit<'_>> = parent.iter().collect();
        let id = match self.repo.commit(
            Some("HEAD"),
            &signature,
            &committer,
            message,
            &tree,
            &parents,
        ) {
            Ok(id) => id,
            Err(e) => {
                self.restore(undo);
                return Err(match e.code() {
                    ErrorCode::Locked => StoreError::GitLocked {
                        repo: self.name(),
                        lock: quoted_path(e.message())
                            .unwrap_or("a git lock file")
                            .to_owned(),
                        holder: e.message().to_owned(),
                    },
                    ErrorCode::Modified => StoreError::Raced {
                        repo: self.name(),
                        message: e.message().to_owned(),
                    },
                    _ => self.error("commit", e),
                });
            }
        };
        let reference = self
            .repo
            .head()
            .ok()
            .and_then(|h| h.name().ok().map(str::to_owned))
            .unwrap_or_else(|| "HEAD".to_owned());
        Ok(Committed { id, reference })
    }

    /// The blob ids that `base` holds at those of `paths` that are files in it, loading each
    /// folder on the way once, however many of the paths are in it.
    fn committed_ids<'p>(
        &self,
        base: &Tree<'_>,
        paths: &[&'p str],
    ) -> Result<HashMap<&'p str, Oid>, StoreError> {
        let mut by_folder: BTreeMap<&str, Vec<(&str, &'p str)>> = BTreeMap::new();
        for path in paths {
            let (folder, name) = path.rsplit_once('/').unwrap_or(("", path));
            by_folder.entry(folder).or_default().push((name, path));
        }
        let mut ids = HashMap::with_capacity(paths.len());
        for (folder, names) in by_folder {
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

    fn io_error(&self, path: &str, e: std::io::Error) -> StoreError {
        StoreError::Git {
            repo: self.name(),
            action: format!("write {path}"),
            message: e.to_string(),
        }
    }

    /// The short form of a commit id, as `git log --oneline` prints it.
    /// It is found from the objects' names alone, without reading the object.
    pub fn short_id(&self, id: Oid) -> String {
        let hex = id.to_string();
        let Ok(odb) = self.repo.odb() else {
            return hex[..7].to_owned();
        };
        (7..40)
            .find(|&len| {
                Oid::from_str(&hex[..len])
                    .is_ok_and(|prefix| odb.exists_prefix(prefix, len).is_ok())
            })
            .map_or(hex.clone(), |len| hex[..len].to_owned())
    }
}

/// How a revision named an object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Named {
    /// By its id (or a prefix of it), which may be a typing error.
    ById,
    /// By a reference or a tag, which the store's own objects must then hold.
    ByReference,
}

/// A revision split into its base and its steps to ancestors, each `(parent, count)`: `~N` is
/// N steps to the first parent, `^N` one step to the Nth (`^0` the commit itself); `None`
/// when the revision uses other syntax.
fn ancestry(rev: &str) -> Option<(&str, Vec<(usize, usize)>)> {
    let at = rev.find(['~', '^']).unwrap_or(rev.len());
    let (base, mut rest) = rev.split_at(at);
    if base.is_empty() || base.contains(['@', ':', '{', ' ']) {
        return None;
    }
    let mut steps = Vec::new();
    while let Some(op) = rest.chars().next() {
        let digits = rest[1..].bytes().take_while(u8::is_ascii_digit).count();
        let number = match &rest[1..1 + digits] {
            "" => 1,
            n => n.parse().ok()?,
        };
        steps.push(match op {
            '~' => (1, number),
            '^' => (number, 1),
            _ => return None,
        });
        rest = &rest[1 + digits..];
    }
    Some((base, steps))
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

fn git_error(repo: &str, action: &str, e: git2::Error) -> StoreError {
    StoreError::Git {
        repo: repo.to_owned(),
        action: action.to_owned(),
        message: e.message().to_owned(),
    }
}

#[cfg(test)]
pub(crate) mod testing;
#[cfg(test)]
mod tests;
