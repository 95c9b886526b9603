//! Every baseline file at a revision, in one walk of `baselines/`: what a fleet check reads
//! instead of asking for each host's file (thousands of tree lookups).

use git2::{ObjectType, Oid, Tree};

use super::{BASELINES_DIR, Store, StoreError};

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

impl Store {
    /// Every `baselines/<fleet>/<host>.json` at `rev`, sorted by path (none when there is no
    /// `baselines/` folder). Other files and deeper folders are not baselines and are left out.
    pub fn baseline_files(&self, rev: &str) -> Result<Vec<BaselineFile>, StoreError> {
        let mut files = Vec::new();
        for (fleet_name, fleet_tree) in self.fleet_trees(rev)? {
            for file in fleet_tree
                .iter()
                .filter(|e| e.kind() == Some(ObjectType::Blob))
            {
                let Some(host) = file.name().ok().and_then(|n| n.strip_suffix(".json")) else {
                    continue;
                };
                files.push(BaselineFile {
                    fleet: fleet_name.clone(),
                    host: host.to_owned(),
                    path: format!("{BASELINES_DIR}/{fleet_name}/{host}.json"),
                    blob: file.id(),
                });
            }
        }
        files.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(files)
    }

    /// The content of a file [`Store::baseline_files`] listed, read by its blob id.
    pub fn read_file(&self, file: &BaselineFile) -> Result<Vec<u8>, StoreError> {
        self.repo
            .find_blob(file.blob)
            .map(|blob| blob.content().to_vec())
            .map_err(|e| self.error(&format!("read {}", file.path), e))
    }

    /// The folders of `baselines/` at `rev` (each a fleet) with their trees; none when there
    /// is no `baselines/` folder.
    pub(super) fn fleet_trees(&self, rev: &str) -> Result<Vec<(String, Tree<'_>)>, StoreError> {
        let tree = self.tree_at(rev)?;
        let Ok(entry) = tree.get_path(std::path::Path::new(BASELINES_DIR)) else {
            return Ok(Vec::new());
        };
        let Ok(baselines) = entry.to_object(&self.repo).and_then(|o| o.peel_to_tree()) else {
            return Ok(Vec::new());
        };
        let mut fleets = Vec::new();
        for fleet in baselines
            .iter()
            .filter(|e| e.kind() == Some(ObjectType::Tree))
        {
            let Ok(name) = fleet.name() else {
                continue;
            };
            let fleet_tree = fleet
                .to_object(&self.repo)
                .and_then(|o| o.peel_to_tree())
                .map_err(|e| self.error("read tree", e))?;
            fleets.push((name.to_owned(), fleet_tree));
        }
        Ok(fleets)
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::super::{FileWrite, Store};

    #[test]
    fn every_baseline_of_every_fleet_is_listed_in_one_walk_and_nothing_else() {
        let (_dir, store) = crate::store::testing::committer_store();
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
        .map(|p| FileWrite {
            path: (*p).into(),
            content: b"{}".to_vec(),
        })
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
