//! The order of a host's variables, lowest precedence first, as ansible-core's variable
//! manager merges an inventory's for a host (what `ansible-inventory --list` shows):
//!
//! 1. `all`'s variables in the inventory file;
//! 2. every other group's variables in the inventory file, its groups sorted by depth below
//!    `all` (a parent before its child), then `ansible_group_priority` (higher wins), then name;
//! 3. `group_vars/all`;
//! 4. `group_vars/<group>` of the other groups, in the same order;
//! 5. the host's variables in the inventory file;
//! 6. `host_vars/<host>`.
//!
//! Each mapping replaces the variables it sets whole (Ansible's default `hash_behaviour`
//! `replace`): a dict is never merged. Within a `group_vars/<group>/` folder, each file is read
//! after the one before it in name order, so a later file wins.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::priority::DEFAULT_PRIORITY;
use super::{Host, Reader, Var};

/// A host's variables by name, each with the rank of the mapping that set it.
pub(super) type HostVars = BTreeMap<String, (Var, usize)>;

/// The variables of each vars file, by group and host, each file's in the order read.
#[derive(Debug, Default)]
pub(super) struct FileVars {
    pub(super) groups: HashMap<String, Vec<Vec<Var>>>,
    pub(super) hosts: HashMap<String, Vec<Vec<Var>>>,
}

impl Reader<'_> {
    /// The variables of `host`, in `groups` (every group it is in, `depths` below `all`):
    /// each with the rank of the mapping that set it last (a higher rank takes precedence).
    pub(super) fn host_vars(
        &self,
        host: &Host,
        groups: &BTreeSet<String>,
        depths: &HashMap<String, usize>,
        files: &FileVars,
    ) -> HostVars {
        let mut vars = HostVars::new();
        for (rank, layer) in self
            .layers(host, groups, depths, files)
            .into_iter()
            .enumerate()
        {
            for var in layer {
                vars.insert(var.key.clone(), (var.clone(), rank));
            }
        }
        vars
    }

    /// The mappings that set `host`'s variables, lowest precedence first.
    fn layers<'a>(
        &'a self,
        host: &'a Host,
        groups: &BTreeSet<String>,
        depths: &HashMap<String, usize>,
        files: &'a FileVars,
    ) -> Vec<&'a [Var]> {
        let mut ordered: Vec<(usize, i64, &str)> = groups
            .iter()
            .filter(|g| *g != "all")
            .map(|g| {
                let depth = depths.get(g).copied().unwrap_or(0);
                let priority = self.groups.get(g).map_or(DEFAULT_PRIORITY, |g| g.priority);
                (depth, priority, g.as_str())
            })
            .collect();
        ordered.sort();
        let ordered: Vec<&str> = std::iter::once("all")
            .chain(ordered.into_iter().map(|(_, _, name)| name))
            .collect();
        let mut layers: Vec<&[Var]> = Vec::new();
        for group in &ordered {
            if let Some(group) = self.groups.get(*group) {
                layers.push(&group.vars);
            }
        }
        for group in &ordered {
            for file in files.groups.get(*group).into_iter().flatten() {
                layers.push(file);
            }
        }
        layers.push(&host.vars);
        for file in files.hosts.get(&host.name).into_iter().flatten() {
            layers.push(file);
        }
        layers
    }
}
