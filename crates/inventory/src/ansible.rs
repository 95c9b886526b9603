//! Reading an Ansible inventory, YAML (`hosts.yml`) or INI (`hosts`, `hosts.ini`), into the
//! same [`Inventory`] as `inventory.toml`. Groups nest (`children:` / `[g:children]`); a
//! host's variables resolve as Ansible resolves them: host vars > child group vars > parent
//! group vars > `all` vars (a dict such as `driftgate_timeouts` replaces, never merges).
//!
//! Only `driftgate_*` variables and `ansible_host`, `ansible_user`, `ansible_port` are read;
//! every other variable (`ansible_password`, vault blobs…) is skipped unread. An unknown
//! `driftgate_*` variable is a typo; one whose name says it holds a secret is refused.
//!
//! `yaml.rs` and `ini.rs` read the two formats into the groups and hosts as written (a
//! [`Reader`]); `groups.rs` resolves the group tree, `host.rs` one host's variables.

mod groups;
mod host;
mod ini;
mod range;
#[cfg(test)]
mod tests;
mod yaml;

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use yaml_serde::Value;

use super::checks::{NO_SECRETS, is_secret_key};
use super::{Inventory, InventoryErrors, Problem, last_line};

/// The host variables driftgate reads (docs/inventory.md documents each).
const DRIFTGATE_VARS: &[&str] = &[
    "driftgate_fleet",
    "driftgate_cluster",
    "driftgate_tags",
    "driftgate_bmc",
    "driftgate_os",
    "driftgate_sources",
    "driftgate_credentials",
    "driftgate_credentials_file",
    "driftgate_ca_file",
    "driftgate_timeouts",
];
/// Ansible's connection variables that locate an `ssh://` source.
const CONNECTION_VARS: &[&str] = &["ansible_host", "ansible_user", "ansible_port"];

/// Whether driftgate reads variable `key`: its own and the connection variables. Every other
/// one (`ansible_password`, vault blobs…) is skipped unread.
fn is_read(key: &str) -> bool {
    key.starts_with("driftgate_") || CONNECTION_VARS.contains(&key)
}

/// Parses an Ansible YAML inventory; see [`Inventory::parse`].
pub(super) fn parse_yaml(text: &str, file: &Path) -> Result<Inventory, InventoryErrors> {
    let mut reader = Reader::new(text, file);
    reader.yaml_text();
    reader.finish()
}

/// Parses an Ansible INI inventory; see [`Inventory::parse`].
pub(super) fn parse_ini(text: &str, file: &Path) -> Result<Inventory, InventoryErrors> {
    let mut reader = Reader::new(text, file);
    reader.ini_document();
    reader.finish()
}

/// One variable as written, at its line.
#[derive(Debug, Clone)]
struct Var {
    key: String,
    value: Value,
    line: usize,
}

/// A group as written: its variables, child groups and hosts, at the line it first appears.
#[derive(Debug, Default)]
struct Group {
    vars: Vec<Var>,
    children: Vec<String>,
    hosts: Vec<String>,
    line: usize,
}

/// A host as written, with its own variables (not yet its groups').
#[derive(Debug)]
struct Host {
    name: String,
    vars: Vec<Var>,
    line: usize,
}

/// The groups and hosts of an inventory as written, and every problem found so far.
struct Reader<'t> {
    text: &'t str,
    /// The text's last line: the YAML parser places an error at the end past it.
    last_line: usize,
    file: String,
    path: PathBuf,
    base: PathBuf,
    problems: Vec<Problem>,
    groups: BTreeMap<String, Group>,
    hosts: Vec<Host>,
    host_index: HashMap<String, usize>,
}

impl<'t> Reader<'t> {
    fn new(text: &'t str, file: &Path) -> Self {
        let mut groups = BTreeMap::new();
        groups.insert(
            "all".to_owned(),
            Group {
                line: 1,
                ..Group::default()
            },
        );
        Reader {
            text,
            last_line: last_line(text),
            file: file.display().to_string(),
            path: file.to_path_buf(),
            base: file.parent().unwrap_or(Path::new("")).to_path_buf(),
            problems: Vec::new(),
            groups,
            hosts: Vec::new(),
            host_index: HashMap::new(),
        }
    }

    fn problem(&mut self, line: usize, message: impl Into<String>) {
        let problem = Problem::at(&self.file, line, self.last_line, message);
        self.problems.push(problem);
    }

    fn group(&mut self, name: &str, line: usize) -> &mut Group {
        self.groups.entry(name.to_owned()).or_insert_with(|| Group {
            line,
            ..Group::default()
        })
    }

    /// Adds `name` (once) to the hosts and to `group`, with `vars`.
    fn add_host(&mut self, name: &str, group: &str, vars: Vec<Var>, line: usize) {
        let index = match self.host_index.get(name) {
            Some(index) => *index,
            None => {
                self.hosts.push(Host {
                    name: name.to_owned(),
                    vars: Vec::new(),
                    line,
                });
                self.host_index
                    .insert(name.to_owned(), self.hosts.len() - 1);
                self.hosts.len() - 1
            }
        };
        self.check_vars(&vars, &format!("host `{name}`"));
        self.hosts[index].vars.extend(vars);
        let members = &mut self.group(group, line).hosts;
        if !members.iter().any(|m| m == name) {
            members.push(name.to_owned());
        }
    }

    fn add_group_vars(&mut self, group: &str, vars: Vec<Var>, line: usize) {
        self.check_vars(&vars, &format!("group `{group}`"));
        self.group(group, line).vars.extend(vars);
    }

    fn add_child(&mut self, parent: &str, child: &str, line: usize) {
        self.group(child, line);
        let children = &mut self.group(parent, line).children;
        if !children.iter().any(|c| c == child) {
            children.push(child.to_owned());
        }
    }

    /// Refuses `driftgate_*` variables that hold a secret or that driftgate does not know.
    fn check_vars(&mut self, vars: &[Var], owner: &str) {
        for var in vars {
            let key = var.key.as_str();
            if !key.starts_with("driftgate_") || DRIFTGATE_VARS.contains(&key) {
                continue;
            }
            if is_secret_key(key) {
                self.problem(var.line, format!("{owner}: variable `{key}`: {NO_SECRETS}"));
            } else {
                self.problem(
                    var.line,
                    format!(
                        "{owner}: unknown variable `{key}` (a typo? known: {})",
                        DRIFTGATE_VARS.join(", ")
                    ),
                );
            }
        }
    }
}
