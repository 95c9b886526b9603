//! The commits that changed baselines, newest first, each compared with its first parent by
//! entry ids: a folder whose id did not change is never opened, and of a changed fleet folder
//! only the host's entry is looked up when one host is asked for. In a linear history each
//! commit's parent is the next one walked, so what was read of the parent (its folders, its
//! fleet folders' files) is kept for its own turn. The walk names the versions; their bytes
//! are read by the caller, on whichever thread parses them.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap, HashMap, HashSet};
use std::ops::ControlFlow;

use git2::{Commit, ObjectType, Oid};

use crate::error::StoreError;
use crate::store::{BASELINES_DIR, Store};

/// Which baselines a walk of the history follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HistoryScope<'a> {
    /// Every `baselines/<fleet>/<host>.json`.
    All,
    /// `baselines/<fleet>/<host>.json` of this host, in any fleet.
    Host(&'a str),
}

/// One commit in the history of baselines, with the baseline files it changed.
#[derive(Debug, Clone)]
pub struct HistoryEntry {
    /// The commit.
    pub id: Oid,
    /// Its author's name.
    pub author: String,
    /// Seconds since the epoch of the author date.
    pub time: i64,
    /// The first line of its message.
    pub summary: String,
    /// Its whole message (trailers such as a gate's `Run: <id>` are read from it).
    pub message: String,
    /// Baseline files in scope that differ from the first parent, sorted by path.
    pub changes: Vec<FileChange>,
}

/// A file that a commit added, changed or removed, by the blobs of its versions: the same id
/// in two changes is the same content, to be read (and parsed) once ([`Store::read_blob`]).
#[derive(Debug, Clone)]
pub struct FileChange {
    /// The path.
    pub path: String,
    /// The version before, if the file existed.
    pub old: Option<Oid>,
    /// The version after, if the file still exists.
    pub new: Option<Oid>,
}

/// Blob ids of the baseline files in scope, by path.
type Files = BTreeMap<String, Oid>;

/// A file's blob before and after a commit (`None`: absent).
type Change = (Option<Oid>, Option<Oid>);

/// The files of fleet folders read as the parent side of the last commit, by fleet name and
/// folder id: the next commit walked is usually that parent.
type KeptFiles = HashMap<(String, Oid), Files>;

/// The fleet folders of a `baselines/` folder, by name, with their tree ids.
type Fleets = BTreeMap<String, Oid>;

/// The commits reachable from a commit, newest first by commit time (`git log`'s order), each
/// read once by the store's checked reads when it is first met as a parent: libgit2's own walk
/// reads commits unchecked (`loose.rs`). Nothing older than what was asked for is read.
struct NewestFirst<'r> {
    /// Commits met and not yet walked, by commit time; ties go to the first met.
    queue: BinaryHeap<(i64, Reverse<usize>, Oid)>,
    /// Those commits.
    pending: HashMap<Oid, Commit<'r>>,
    /// Every commit ever queued.
    met: HashSet<Oid>,
}

impl<'r> NewestFirst<'r> {
    fn new(store: &'r Store, head: Oid) -> Result<Self, StoreError> {
        let mut walk = NewestFirst {
            queue: BinaryHeap::new(),
            pending: HashMap::new(),
            met: HashSet::new(),
        };
        walk.meet(store, head)?;
        Ok(walk)
    }

    fn meet(&mut self, store: &'r Store, id: Oid) -> Result<(), StoreError> {
        if self.met.insert(id) {
            let commit = store.load_commit(id)?;
            self.queue
                .push((commit.time().seconds(), Reverse(self.met.len()), id));
            self.pending.insert(id, commit);
        }
        Ok(())
    }

    /// The next commit, its parents met.
    fn next(&mut self, store: &'r Store) -> Result<Option<Commit<'r>>, StoreError> {
        let Some((_, _, id)) = self.queue.pop() else {
            return Ok(None);
        };
        let commit = self
            .pending
            .remove(&id)
            .expect("a queued commit is pending");
        for parent in commit.parent_ids() {
            self.meet(store, parent)?;
        }
        Ok(Some(commit))
    }

    /// The tree of commit `id`, a parent met already unless the history's times go backwards.
    fn tree_of(&self, store: &'r Store, id: Oid) -> Result<Oid, StoreError> {
        match self.pending.get(&id) {
            Some(commit) => Ok(commit.tree_id()),
            None => store.load_commit(id).map(|c| c.tree_id()),
        }
    }
}

impl Store {
    /// Commits reachable from HEAD, newest first, that changed a baseline in `scope`
    /// (compared with their first parent), at most `limit` of them.
    pub fn history(
        &self,
        scope: HistoryScope<'_>,
        limit: usize,
    ) -> Result<Vec<HistoryEntry>, StoreError> {
        let mut entries = Vec::new();
        if limit == 0 {
            return Ok(entries);
        }
        self.walk_history(scope, &mut |entry| {
            entries.push(entry);
            if entries.len() >= limit {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        })?;
        Ok(entries)
    }

    /// Hands `visit` the commits [`Store::history`] lists, newest first, one at a time, until
    /// it breaks: a caller that wants a number of commits per file stops the walk as soon as
    /// it has them, and older commits are never read.
    pub fn walk_history(
        &self,
        scope: HistoryScope<'_>,
        visit: &mut dyn FnMut(HistoryEntry) -> ControlFlow<()>,
    ) -> Result<(), StoreError> {
        if !self.has_commits() {
            return Ok(());
        }
        let mut walk = NewestFirst::new(self, self.resolve("HEAD")?)?;
        // In a linear history each commit's parent is the next one walked: its baselines
        // folder is read once, as the parent, and kept for its own turn.
        let mut kept: Option<(Oid, Option<Fleets>)> = None;
        let mut kept_files = KeptFiles::new();
        while let Some(commit) = walk.next(self)? {
            let id = commit.id();
            let fleets = match kept.take() {
                Some((kept_id, fleets)) if kept_id == commit.tree_id() => fleets,
                _ => self.fleet_folders(commit.tree_id())?,
            };
            let parent_tree = commit
                .parent_ids()
                .next()
                .map(|parent| walk.tree_of(self, parent));
            let (parent_tree, parent_fleets) = match parent_tree.transpose()? {
                Some(tree) => (Some(tree), self.fleet_folders(tree)?),
                None => (None, None),
            };
            let changed = self.changed_files(
                parent_fleets.as_ref(),
                fleets.as_ref(),
                scope,
                &mut kept_files,
            )?;
            if let Some(tree) = parent_tree {
                kept = Some((tree, parent_fleets));
            }
            if changed.is_empty() {
                continue;
            }
            let changes = changed
                .into_iter()
                .map(|(path, (old, new))| FileChange { path, old, new })
                .collect();
            let entry = HistoryEntry {
                id,
                author: commit.author().name().unwrap_or("?").to_owned(),
                time: commit.author().when().seconds(),
                summary: commit.summary().ok().flatten().unwrap_or("").to_owned(),
                message: String::from_utf8_lossy(commit.message_bytes()).into_owned(),
                changes,
            };
            if visit(entry).is_break() {
                break;
            }
        }
        Ok(())
    }

    /// The content of a version that a [`FileChange`] names.
    pub fn read_blob(&self, id: Oid) -> Result<Vec<u8>, StoreError> {
        self.load_blob(id)
    }

    /// The fleet folders of the `baselines/` folder of root tree `tree`, if it has one, read
    /// from the raw trees: libgit2 would parse and cache both for one lookup each.
    fn fleet_folders(&self, tree: Oid) -> Result<Option<Fleets>, StoreError> {
        match self.tree_entry(tree, BASELINES_DIR)? {
            Some((folder, ObjectType::Tree)) => self.subtrees(folder).map(Some),
            _ => Ok(None),
        }
    }

    /// The baseline files in `scope` whose blob differs between the fleet folders of two
    /// `baselines/` folders, with their ids before and after. Fleet folders with the same id
    /// on both sides are skipped unopened; the new side's files are taken from `kept` when the last commit
    /// read them as its parent side, and `kept` is left with this commit's parent side.
    fn changed_files(
        &self,
        old: Option<&Fleets>,
        new: Option<&Fleets>,
        scope: HistoryScope<'_>,
        kept: &mut KeptFiles,
    ) -> Result<BTreeMap<String, Change>, StoreError> {
        let mut changed = BTreeMap::new();
        if old == new {
            return Ok(changed);
        }
        let mut parent_side = KeptFiles::new();
        let none = Fleets::new();
        let (old_fleets, new_fleets) = (old.unwrap_or(&none), new.unwrap_or(&none));
        let mut names: Vec<&String> = old_fleets.keys().chain(new_fleets.keys()).collect();
        names.sort();
        names.dedup();
        for fleet in names {
            let (before, after) = (old_fleets.get(fleet), new_fleets.get(fleet));
            if before == after {
                continue;
            }
            let after = match after.and_then(|id| kept.remove(&(fleet.clone(), *id))) {
                Some(files) => files,
                None => self.fleet_files(fleet, after.copied(), scope)?,
            };
            let before_id = before.copied();
            let before = self.fleet_files(fleet, before_id, scope)?;
            for (path, id) in &before {
                if after.get(path) != Some(id) {
                    changed.insert(path.clone(), (Some(*id), after.get(path).copied()));
                }
            }
            for (path, id) in after {
                if !before.contains_key(&path) {
                    changed.insert(path, (None, Some(id)));
                }
            }
            if let Some(id) = before_id {
                parent_side.insert((fleet.clone(), id), before);
            }
        }
        *kept = parent_side;
        Ok(changed)
    }

    /// The baseline files in `scope` of the fleet folder `tree` (none when absent).
    fn fleet_files(
        &self,
        fleet: &str,
        tree: Option<Oid>,
        scope: HistoryScope<'_>,
    ) -> Result<Files, StoreError> {
        let mut files = Files::new();
        let Some(tree) = tree else {
            return Ok(files);
        };
        let path = |name: &str| format!("{BASELINES_DIR}/{fleet}/{name}");
        match scope {
            HistoryScope::Host(host) => {
                let name = format!("{host}.json");
                if let Some((id, ObjectType::Blob)) = self.tree_entry(tree, &name)? {
                    files.insert(path(&name), id);
                }
            }
            HistoryScope::All => {
                let tree = self.load_tree(tree)?;
                for entry in tree.iter() {
                    let Some(name) = entry.name().ok().filter(|n| n.ends_with(".json")) else {
                        continue;
                    };
                    if entry.kind() == Some(ObjectType::Blob) {
                        files.insert(path(name), entry.id());
                    }
                }
            }
        }
        Ok(files)
    }
}
