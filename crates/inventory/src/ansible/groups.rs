//! The group tree of an Ansible inventory: each group's parents and depth below `all`, the
//! groups a host belongs to, and the end of reading, when every host is resolved.

use std::collections::{BTreeSet, HashMap};

use super::Reader;
use crate::{Inventory, InventoryErrors};

impl Reader<'_> {
    /// Resolves every host; the inventory, or every problem of the file.
    pub(super) fn finish(mut self) -> Result<Inventory, InventoryErrors> {
        let parents = self.parents();
        let depths = self.depths();
        let mut hosts = Vec::new();
        if self.hosts.is_empty() && self.problems.is_empty() {
            self.problem(1, "no host: an inventory lists at least one host");
        }
        let raw = std::mem::take(&mut self.hosts);
        for host in &raw {
            let groups = self.groups_of(&host.name, &parents);
            if let Some(resolved) = self.resolve(host, &groups, &depths) {
                hosts.push(resolved);
            }
        }
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

    /// Every group `host` belongs to, with the groups above them.
    fn groups_of(&self, host: &str, parents: &HashMap<String, Vec<String>>) -> BTreeSet<String> {
        let mut groups = BTreeSet::new();
        let mut todo: Vec<String> = self
            .groups
            .iter()
            .filter(|(_, g)| g.hosts.iter().any(|h| h == host))
            .map(|(name, _)| name.clone())
            .collect();
        while let Some(group) = todo.pop() {
            if groups.insert(group.clone()) {
                todo.extend(parents.get(&group).into_iter().flatten().cloned());
            }
        }
        groups.insert("all".to_owned());
        groups
    }
}
