//! Reading an Ansible inventory, YAML (`hosts.yml`) or INI (`hosts`, `hosts.ini`), with the
//! `group_vars/` and `host_vars/` beside it, into the same [`Inventory`] as `inventory.toml`.
//! Groups nest (`children:` / `[g:children]`); a host's variables resolve as Ansible resolves
//! them (`precedence.rs`; a dict such as `driftgate_timeouts` replaces, never merges).
//!
//! Only `driftgate_*` variables and `ansible_host`, `ansible_user`, `ansible_port` are read;
//! every other variable (`ansible_password`, vault blobs…) is skipped unread. An unknown
//! `driftgate_*` variable is a typo; one whose name says it holds a secret is refused.
//!
//! `yaml.rs` and `ini.rs` read the two formats into the groups and hosts as written (a
//! [`Reader`]); `groups.rs` resolves the group tree; `vars_dirs.rs` finds and reads the
//! `group_vars/`/`host_vars/` files (the only file access here), `vars_file.rs` parses one;
//! `precedence.rs` orders a host's variables, `host.rs` reads them into an [`InventoryHost`].
//!
//! [`InventoryHost`]: crate::InventoryHost

mod groups;
mod host;
mod ini;
mod precedence;
mod priority;
mod range;
#[cfg(test)]
mod tests;
mod vars_dirs;
mod vars_file;
#[cfg(test)]
mod vars_tests;
mod yaml;

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use yaml_serde::Value;

use super::checks::{NO_SECRETS, is_secret_key};
use crate::problems::last_line;
use crate::{Inventory, InventoryErrors, Problem};
use priority::DEFAULT_PRIORITY;
use vars_dirs::{Names, VarsFiles};

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
/// The group variable that orders groups of one depth (Ansible's `ansible_group_priority`).
const PRIORITY_VAR: &str = "ansible_group_priority";

/// Whether driftgate reads variable `key`: its own, the connection variables and a group's
/// priority. Every other one (`ansible_password`, vault blobs…) is skipped unread.
fn is_read(key: &str) -> bool {
    key.starts_with("driftgate_") || CONNECTION_VARS.contains(&key) || key == PRIORITY_VAR
}

/// The two forms of an Ansible inventory file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Format {
    /// `hosts.yml`.
    Yaml,
    /// `hosts`, `hosts.ini`.
    Ini,
}

/// Reads an Ansible inventory `text` (read from `file`) and the `group_vars/` and `host_vars/`
/// files beside it; see [`Inventory::load`].
pub(super) fn load(text: &str, file: &Path, format: Format) -> Result<Inventory, InventoryErrors> {
    let base = file.parent().unwrap_or(Path::new("")).to_path_buf();
    read(text, file, format, |names| vars_dirs::read(&base, names))
}

/// Parses an Ansible YAML inventory alone, without vars files.
#[cfg(test)]
pub(super) fn parse_yaml(text: &str, file: &Path) -> Result<Inventory, InventoryErrors> {
    read(text, file, Format::Yaml, |_| VarsFiles::default())
}

/// Parses an Ansible INI inventory alone, without vars files.
#[cfg(test)]
pub(super) fn parse_ini(text: &str, file: &Path) -> Result<Inventory, InventoryErrors> {
    read(text, file, Format::Ini, |_| VarsFiles::default())
}

/// Parses `text`, then resolves its hosts with the vars files `vars` gives for the groups and
/// hosts it names (what Ansible would read for them).
fn read(
    text: &str,
    file: &Path,
    format: Format,
    vars: impl FnOnce(&Names) -> VarsFiles,
) -> Result<Inventory, InventoryErrors> {
    let mut reader = Reader::new(text, file);
    match format {
        Format::Yaml => reader.yaml_text(),
        Format::Ini => reader.ini_document(),
    }
    reader.finish(vars)
}

/// A file variables come from: the inventory (0) or a vars file, by its index in
/// [`Reader::files`].
type FileId = usize;

/// Where something is written: a file and its 1-based line (0: the whole file).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct At {
    file: FileId,
    line: usize,
}

impl At {
    /// `line` of the inventory file.
    fn inventory(line: usize) -> At {
        At { file: 0, line }
    }
}

/// One variable as written, where it is written.
#[derive(Debug, Clone)]
struct Var {
    key: String,
    value: Value,
    at: At,
}

/// A group as written: its variables, child groups and hosts, at the line it first appears;
/// its `ansible_group_priority` (which Ansible keeps out of its variables).
#[derive(Debug)]
struct Group {
    vars: Vec<Var>,
    children: Vec<String>,
    hosts: Vec<String>,
    line: usize,
    priority: i64,
}

impl Group {
    fn at(line: usize) -> Group {
        Group {
            vars: Vec::new(),
            children: Vec::new(),
            hosts: Vec::new(),
            line,
            priority: DEFAULT_PRIORITY,
        }
    }
}

/// A host as written, with its own variables (not yet its groups').
#[derive(Debug)]
struct Host {
    name: String,
    vars: Vec<Var>,
    line: usize,
}

/// A file variables are read from, for its problems.
#[derive(Debug)]
struct SourceFile {
    name: std::sync::Arc<str>,
    /// The text's last line: the YAML parser places an error at the end past it.
    last_line: usize,
}

/// The groups and hosts of an inventory as written, and every problem found so far.
struct Reader<'t> {
    text: &'t str,
    /// The inventory, then each vars file read.
    files: Vec<SourceFile>,
    path: PathBuf,
    base: PathBuf,
    problems: Vec<Problem>,
    groups: BTreeMap<String, Group>,
    hosts: Vec<Host>,
    host_index: HashMap<String, usize>,
}

impl<'t> Reader<'t> {
    fn new(text: &'t str, file: &Path) -> Self {
        // Ansible's two implicit groups: every host is in `all`, one in no other in `ungrouped`.
        let mut groups = BTreeMap::new();
        let mut all = Group::at(1);
        all.children.push("ungrouped".to_owned());
        groups.insert("all".to_owned(), all);
        groups.insert("ungrouped".to_owned(), Group::at(1));
        Reader {
            text,
            files: vec![SourceFile {
                name: file.display().to_string().into(),
                last_line: last_line(text),
            }],
            path: file.to_path_buf(),
            base: file.parent().unwrap_or(Path::new("")).to_path_buf(),
            problems: Vec::new(),
            groups,
            hosts: Vec::new(),
            host_index: HashMap::new(),
        }
    }

    /// A problem at `line` of the inventory file.
    fn problem(&mut self, line: usize, message: impl Into<String>) {
        self.problem_at(At::inventory(line), message);
    }

    fn problem_at(&mut self, at: At, message: impl Into<String>) {
        let file = &self.files[at.file];
        let problem = Problem::at(&file.name, at.line, file.last_line, message);
        self.problems.push(problem);
    }

    fn group(&mut self, name: &str, line: usize) -> &mut Group {
        self.groups
            .entry(name.to_owned())
            .or_insert_with(|| Group::at(line))
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

    /// Adds `vars` to `group`; `ansible_group_priority` is its priority, as in Ansible.
    fn add_group_vars(&mut self, group: &str, vars: Vec<Var>, line: usize) {
        self.check_vars(&vars, &format!("group `{group}`"));
        let (priority, vars): (Vec<Var>, Vec<Var>) =
            vars.into_iter().partition(|v| v.key == PRIORITY_VAR);
        for var in priority {
            match priority::priority(&var.value) {
                Some(priority) => self.group(group, line).priority = priority,
                None => self.problem_at(
                    var.at,
                    format!("group `{group}`: `{PRIORITY_VAR}` must be a whole number"),
                ),
            }
        }
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
                self.problem_at(var.at, format!("{owner}: variable `{key}`: {NO_SECRETS}"));
            } else {
                self.problem_at(
                    var.at,
                    format!(
                        "{owner}: unknown variable `{key}` (a typo? known: {})",
                        DRIFTGATE_VARS.join(", ")
                    ),
                );
            }
        }
    }
}
