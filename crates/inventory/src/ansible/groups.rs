//! The group tree of an Ansible inventory: each group's parents and depth below `all`, the
//! groups a host belongs to, and the end of reading, when every host is resolved.

use std::collections::{BTreeSet, HashMap};

use super::Reader;
use super::vars_dirs::{Names, VarsFiles};
use crate::{Inventory, InventoryErrors};

impl Reader<'_> {
    /// Resolves every host with the vars files `vars` gives for the groups and hosts in use;
    /// the inventory, or every problem of the inventory and its vars files.
    pub(super) fn finish(
        mut self,
        vars: impl FnOnce(&Names) -> VarsFiles,
    ) -> Result<Inventory, InventoryErrors> {
        let parents = self.parents();
        let depths = self.depths();
        let mut hosts = Vec::new();
        if self.hosts.is_empty() && self.problems.is_empty() {
            self.problem(1, "no host: an inventory lists at least one host");
        }
        let raw = std::mem::take(&mut self.hosts);
        let memberships: Vec<BTreeSet<String>> = raw
            .iter()
            .map(|host| self.groups_of(&host.name, &parents))
            .collect();
        let names = Names {
            groups: memberships.iter().flatten().cloned().collect(),
            hosts: raw.iter().map(|h| h.name.clone()).collect(),
        };
        let files = self.vars_files(vars(&names));
        for (host, groups) in raw.iter().zip(&memberships) {
            let vars = self.host_vars(host, groups, &depths, &files);
            if let Some(resolved) = self.resolve(host, groups, &vars) {
                hosts.push(resolved);
            }
        }
        // The inventory's own problems first, then its vars files' in the order read.
        let inventory = self.files[0].name.clone();
        self.problems.sort_by_key(|p| *p.file != *inventory);
        InventoryErrors::refuse(self.problems)?;
        Ok(Inventory {
            file: self.path,
            hosts: hosts.into_iter().map(std::sync::Arc::new).collect(),
        })
    }

    /// Each group's parents.
    fn parents(&self) -> HashMap<String, Vec<String>> {
        let mut parents: HashMap<String, Vec<String>> = HashMap::new();
        for (name, group) in &self.groups {
            for child in &group.children {
                parents.entry(child.clone()).or_default().push(name.clone());
            }
        }
        parents
    }

    /// Each group's depth below `all` (the longest path), which orders group vars.
    fn depths(&mut self) -> HashMap<String, usize> {
        let mut depths = HashMap::new();
        let mut frontier = vec![("all".to_owned(), 0usize)];
        let limit = self.groups.len() + 1;
        let mut cycle = false;
        while let Some((name, depth)) = frontier.pop() {
            if depth > limit {
                cycle = true;
                continue;
            }
            let known = depths.entry(name.clone()).or_insert(depth);
            if *known > depth {
                continue;
            }
            *known = depth;
            if let Some(group) = self.groups.get(&name) {
                for child in &group.children {
                    frontier.push((child.clone(), depth + 1));
                }
            }
        }
        if cycle {
            self.problem(1, "the groups' children form a cycle");
        }
        depths
    }

    /// Every group `host` belongs to, with the groups above them. As Ansible reconciles an
    /// inventory, a host in no group but `all` is in `ungrouped`, and one in another group is
    /// not in `ungrouped`.
    fn groups_of(&self, host: &str, parents: &HashMap<String, Vec<String>>) -> BTreeSet<String> {
        let mut groups = BTreeSet::new();
        let mut todo: Vec<String> = self
            .groups
            .iter()
            .filter(|(_, g)| g.hosts.iter().any(|h| h == host))
            .map(|(name, _)| name.clone())
            .collect();
        let implicit = |g: &String| g == "all" || g == "ungrouped";
        if todo.iter().all(implicit) {
            todo = vec!["ungrouped".to_owned()];
        } else {
            todo.retain(|g| g != "ungrouped");
        }
        while let Some(group) = todo.pop() {
            if groups.insert(group.clone()) {
                todo.extend(parents.get(&group).into_iter().flatten().cloned());
            }
        }
        groups.insert("all".to_owned());
        groups
    }
}
