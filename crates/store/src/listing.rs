//! Every baseline file at a revision, in one walk of `baselines/`: what a fleet check reads
//! instead of asking for each host's file (thousands of tree lookups), and the lookup of one
//! host's file in those folders.

use git2::{ObjectType, Oid, Tree};

use crate::error::StoreError;
use crate::store::{BASELINES_DIR, Store};

/// One `baselines/<fleet>/<host>.json` at a revision.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BaselineFile {
    /// The folder it is in.
    pub fleet: String,
    /// The file name without `.json`.
    pub host: String,
    /// Its path in the store.
    pub path: String,
    /// Its content's blob at that revision: reading it needs no tree lookup.
    pub blob: Oid,
}

/// The fleet folders of `baselines/` at one revision, each loaded once: every lookup of a
/// host is a search by name in them, never another walk from the commit.
pub struct Fleets<'r> {
    store: &'r Store,
    rev: String,
    trees: Vec<(String, Tree<'r>)>,
}

impl Store {
    /// The fleet folders of `baselines/` at `rev` (none when there is no `baselines/`).
    pub fn fleets(&self, rev: &str) -> Result<Fleets<'_>, StoreError> {
        let root = self.tree_at(rev)?;
        let mut trees = Vec::new();
        if let Some(baselines) = self.subtree_at(&root, BASELINES_DIR)? {
            for fleet in baselines
                .iter()
                .filter(|e| e.kind() == Some(ObjectType::Tree))
            {
                let Ok(name) = fleet.name() else {
                    continue;
                };
                trees.push((name.to_owned(), self.load_tree(fleet.id())?));
            }
        }
        Ok(Fleets {
            store: self,
            rev: rev.to_owned(),
            trees,
        })
    }

    /// Every `baselines/<fleet>/<host>.json` at `rev`, sorted by path (none when there is no
    /// `baselines/` folder). Other files and deeper folders are not baselines and are left out.
    pub fn baseline_files(&self, rev: &str) -> Result<Vec<BaselineFile>, StoreError> {
        Ok(self.fleets(rev)?.files())
    }

    /// The content of a file [`Store::baseline_files`] listed, read by its blob id.
    pub fn read_file(&self, file: &BaselineFile) -> Result<Vec<u8>, StoreError> {
        self.load_blob(file.blob)
    }

    /// [`Store::read_file`] of many files, read on every core, in their order.
    pub fn read_files(&self, files: &[&BaselineFile]) -> Result<Vec<Vec<u8>>, StoreError> {
        let ids: Vec<_> = files.iter().map(|f| f.blob).collect();
        self.load_blobs(&ids)
    }
}

impl Fleets<'_> {
    /// Every baseline file in these folders, sorted by path.
    pub fn files(&self) -> Vec<BaselineFile> {
        let mut files = Vec::new();
        for (fleet, tree) in &self.trees {
            for entry in tree.iter().filter(|e| e.kind() == Some(ObjectType::Blob)) {
                let Some(host) = entry.name().ok().and_then(|n| n.strip_suffix(".json")) else {
                    continue;
                };
                files.push(BaselineFile::new(fleet, host, entry.id()));
            }
        }
        files.sort_by(|a, b| a.path.cmp(&b.path));
        files
    }

    /// `host`'s baseline file, if any; in several fleets it is an error naming them.
    pub fn host_file(&self, host: &str) -> Result<Option<BaselineFile>, StoreError> {
        let name = format!("{host}.json");
        let mut found: Vec<BaselineFile> = self
            .trees
            .iter()
            .filter_map(|(fleet, tree)| {
                let entry = tree.get_name(&name)?;
                (entry.kind() == Some(ObjectType::Blob))
                    .then(|| BaselineFile::new(fleet, host, entry.id()))
            })
            .collect();
        match found.len() {
            0 => Ok(None),
            1 => Ok(found.pop()),
            _ => Err(StoreError::AmbiguousHost {
                repo: self.store.name(),
                rev: self.rev.clone(),
                host: host.to_owned(),
                paths: found
                    .iter()
                    .map(|f| f.path.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
            }),
        }
    }
}

impl BaselineFile {
    fn new(fleet: &str, host: &str, blob: Oid) -> Self {
        BaselineFile {
            fleet: fleet.to_owned(),
            host: host.to_owned(),
            path: format!("{BASELINES_DIR}/{fleet}/{host}.json"),
            blob,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::super::{FileWrite, Store};

    #[test]
    fn every_baseline_of_every_fleet_is_listed_in_one_walk_and_nothing_else() {
        let (_dir, store) = crate::testing::committer_store();
        let store = Store::discover(store.location()).unwrap();
        let files: Vec<FileWrite> = [
            "baselines/a/h1.json",
            "baselines/a/h2.json",
            "baselines/b/h3.json",
            "baselines/b/README.md",
            "baselines/b/deeper/h4.json",
            "baselines/stray.json",
            "driftgate.toml",
        ]
        .iter()
        .map(|p| FileWrite::new(*p, b"{}".to_vec()))
        .collect();
        let lock = store.lock(Duration::from_secs(1)).unwrap();
        store.commit(&lock, &files, "test", &|_| false).unwrap();
        drop(lock);
        let listed: Vec<(String, String)> = store
            .baseline_files("HEAD")
            .unwrap()
            .into_iter()
            .map(|f| (f.fleet, f.host))
            .collect();
        let expected =
            [("a", "h1"), ("a", "h2"), ("b", "h3")].map(|(f, h)| (f.to_owned(), h.to_owned()));
        assert_eq!(listed, expected);
    }
}
