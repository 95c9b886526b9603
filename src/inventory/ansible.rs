//! Reading an Ansible inventory, YAML (`hosts.yml`) or INI (`hosts`, `hosts.ini`), into the
//! same [`Inventory`] as `inventory.toml`. Groups nest (`children:` / `[g:children]`); a
//! host's variables resolve as Ansible resolves them: host vars > child group vars > parent
//! group vars > `all` vars (a dict such as `driftgate_timeouts` replaces, never merges).
//!
//! Only `driftgate_*` variables and `ansible_host`, `ansible_user`, `ansible_port` are read;
//! every other variable (`ansible_password`, vault blobs…) is skipped unread. An unknown
//! `driftgate_*` variable is a typo; one whose name says it holds a secret is refused.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::time::Duration;

use yaml_serde::{Mapping, Value};

use super::parse::{
    CREDENTIALS_KEYS, NO_SECRETS, TIMEOUT_KEYS, check_name, is_env_name, is_secret_key,
    not_an_env_name, source,
};
use super::{CredentialsRef, Inventory, InventoryErrors, InventoryHost, Problem, Timeouts};
use crate::collect::SourceSpec;
use crate::limits::file_names::NameKind;
use crate::snapshot::HostName;

#[cfg(test)]
mod tests;

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
/// Groups that are no tag.
const IMPLICIT_GROUPS: &[&str] = &["all", "ungrouped"];

/// Parses an Ansible YAML inventory; see [`Inventory::parse`].
pub(super) fn parse_yaml(text: &str, file: &Path) -> Result<Inventory, InventoryErrors> {
    let mut reader = Reader::new(text, file);
    match yaml_serde::from_str::<Value>(text) {
        Ok(document) => reader.yaml_document(&document),
        Err(e) => {
            let line = e.location().map_or(1, |l| l.line());
            // The kind of error only: a message may quote the text, which may hold a secret.
            let message = e.to_string();
            let message = message.split(" at line ").next().unwrap_or(&message);
            reader.problem(line, format!("not YAML: {message}"));
        }
    }
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

#[derive(Debug, Default)]
struct Group {
    vars: Vec<Var>,
    children: Vec<String>,
    hosts: Vec<String>,
    line: usize,
}

#[derive(Debug)]
struct Host {
    name: String,
    vars: Vec<Var>,
    line: usize,
}

struct Reader<'t> {
    text: &'t str,
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
        self.problems.push(Problem {
            file: self.file.clone(),
            line,
            message: message.into(),
        });
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

    /// The 1-based line of the first `key:` at or after line `from` (YAML keeps no spans).
    fn yaml_line(&self, key: &str, from: usize) -> usize {
        let quoted = [
            format!("{key}:"),
            format!("\"{key}\":"),
            format!("'{key}':"),
        ];
        self.text
            .lines()
            .enumerate()
            .skip(from.saturating_sub(1))
            .find(|(_, line)| {
                let line = line.trim_start().trim_start_matches("- ");
                quoted.iter().any(|q| line.starts_with(q.as_str()))
            })
            .map_or(from.max(1), |(i, _)| i + 1)
    }

    // ---- YAML -------------------------------------------------------------------------

    fn yaml_document(&mut self, document: &Value) {
        let Some(top) = document.as_mapping() else {
            if !document.is_null() {
                self.problem(
                    1,
                    "an Ansible YAML inventory is a mapping of groups (all: …)",
                );
            }
            return;
        };
        for (key, body) in top {
            let Some(name) = self.yaml_key(key, 1, "group") else {
                continue;
            };
            let line = self.yaml_line(&name, 1);
            if name != "all" {
                self.add_child("all", &name, line);
            }
            self.yaml_group(&name, body, line);
        }
    }

    fn yaml_key(&mut self, key: &Value, line: usize, what: &str) -> Option<String> {
        match key {
            Value::String(text) => Some(text.clone()),
            Value::Number(n) => Some(n.to_string()),
            _ => {
                self.problem(line, format!("a {what} name must be a string"));
                None
            }
        }
    }

    fn yaml_group(&mut self, name: &str, body: &Value, line: usize) {
        self.group(name, line);
        let place = format!("group `{name}`");
        let Some(body) = self.yaml_mapping(body, line, &place) else {
            return;
        };
        for (key, value) in body {
            let key = key.as_str().unwrap_or_default();
            match key {
                "hosts" => {
                    let Some(hosts) = self.yaml_mapping(value, line, &format!("{place}: `hosts`"))
                    else {
                        continue;
                    };
                    for (host, vars) in hosts {
                        let Some(host) = self.yaml_key(host, line, "host") else {
                            continue;
                        };
                        let host_line = self.yaml_line(&host, line);
                        let vars = self.yaml_vars(vars, host_line, &format!("host `{host}`"));
                        match expand_range(&host) {
                            Ok(names) => {
                                for one in names {
                                    self.add_host(&one, name, vars.clone(), host_line);
                                }
                            }
                            Err(message) => {
                                self.problem(host_line, format!("host `{host}`: {message}"))
                            }
                        }
                    }
                }
                "children" => {
                    let Some(children) =
                        self.yaml_mapping(value, line, &format!("{place}: `children`"))
                    else {
                        continue;
                    };
                    for (child, body) in children {
                        let Some(child) = self.yaml_key(child, line, "group") else {
                            continue;
                        };
                        let child_line = self.yaml_line(&child, line);
                        self.add_child(name, &child, child_line);
                        self.yaml_group(&child, body, child_line);
                    }
                }
                "vars" => {
                    let vars_line = self.yaml_line("vars", line);
                    let vars = self.yaml_vars(value, vars_line, &place);
                    self.add_group_vars(name, vars, vars_line);
                }
                other => self.problem(
                    line,
                    format!(
                        "{place}: unknown key `{other}` (a group has hosts, children and vars)"
                    ),
                ),
            }
        }
    }

    /// A mapping, or nothing for `~`; a problem for anything else.
    fn yaml_mapping<'v>(
        &mut self,
        value: &'v Value,
        line: usize,
        place: &str,
    ) -> Option<&'v Mapping> {
        match value {
            Value::Mapping(mapping) => Some(mapping),
            Value::Null => None,
            _ => {
                self.problem(line, format!("{place} must be a mapping"));
                None
            }
        }
    }

    fn yaml_vars(&mut self, value: &Value, line: usize, place: &str) -> Vec<Var> {
        let Some(mapping) = self.yaml_mapping(value, line, &format!("{place}: its variables"))
        else {
            return Vec::new();
        };
        mapping
            .iter()
            .filter_map(|(key, value)| {
                let key = key.as_str()?.to_owned();
                // Only driftgate's variables are kept: `ansible_password`, vault blobs… are not.
                if !key.starts_with("driftgate_") && !CONNECTION_VARS.contains(&key.as_str()) {
                    return None;
                }
                let line = self.yaml_line(&key, line);
                Some(Var {
                    key,
                    value: value.clone(),
                    line,
                })
            })
            .collect()
    }

    // ---- INI --------------------------------------------------------------------------

    fn ini_document(&mut self) {
        #[derive(Clone, Copy, PartialEq)]
        enum Kind {
            Hosts,
            Vars,
            Children,
        }
        let mut section = ("ungrouped".to_owned(), Kind::Hosts);
        let text = self.text;
        for (index, raw) in text.lines().enumerate() {
            let line = index + 1;
            let trimmed = raw.trim();
            if trimmed.is_empty() || trimmed.starts_with('#') || trimmed.starts_with(';') {
                continue;
            }
            if let Some(header) = trimmed.strip_prefix('[').and_then(|h| h.strip_suffix(']')) {
                let (name, kind) = match header.split_once(':') {
                    None => (header, Kind::Hosts),
                    Some((name, "vars")) => (name, Kind::Vars),
                    Some((name, "children")) => (name, Kind::Children),
                    Some((_, other)) => {
                        self.problem(
                            line,
                            format!("[{header}]: unknown section kind `{other}` (use :vars or :children)"),
                        );
                        (header, Kind::Hosts)
                    }
                };
                if let Err(message) = check_name(name, NameKind::Tag) {
                    self.problem(line, format!("[{header}]: bad group name: {message}"));
                }
                self.group(name, line);
                section = (name.to_owned(), kind);
                continue;
            }
            let group = section.0.clone();
            match section.1 {
                Kind::Hosts => self.ini_host(&group, trimmed, line),
                Kind::Vars => match trimmed.split_once('=') {
                    Some((key, value)) => {
                        let key = key.trim();
                        if !key.starts_with("driftgate_") && !CONNECTION_VARS.contains(&key) {
                            continue;
                        }
                        match ini_value(value.trim()) {
                            Ok(value) => {
                                let var = Var {
                                    key: key.to_owned(),
                                    value,
                                    line,
                                };
                                self.add_group_vars(&group, vec![var], line);
                            }
                            Err(message) => self.problem(
                                line,
                                format!("group `{group}`: variable `{key}`: {message}"),
                            ),
                        }
                    }
                    None => {
                        self.problem(line, format!("[{group}:vars]: a variable is `key=value`"))
                    }
                },
                Kind::Children => {
                    let child = trimmed.split_whitespace().next().unwrap_or(trimmed);
                    if let Err(message) = check_name(child, NameKind::Tag) {
                        self.problem(
                            line,
                            format!("[{group}:children]: bad group name: {message}"),
                        );
                    }
                    self.add_child(&group, child, line);
                }
            }
        }
        // Every group no other group lists is a child of `all`.
        let listed: BTreeSet<String> = self
            .groups
            .values()
            .flat_map(|g| g.children.iter().cloned())
            .collect();
        let roots: Vec<String> = self
            .groups
            .keys()
            .filter(|name| *name != "all" && !listed.contains(*name))
            .cloned()
            .collect();
        for root in roots {
            self.add_child("all", &root, 1);
        }
    }

    /// `name key=value …` in a hosts section.
    fn ini_host(&mut self, group: &str, text: &str, line: usize) {
        let mut tokens = split_ini(text).into_iter();
        let Some(name) = tokens.next() else {
            return;
        };
        let mut vars = Vec::new();
        for token in tokens {
            if token.starts_with('#') {
                break;
            }
            match token.split_once('=') {
                Some((key, value)) if !key.is_empty() => {
                    // Only driftgate's own variables are parsed; the rest are kept unread.
                    // Only driftgate's variables are read: `ansible_password`… are not.
                    if !key.starts_with("driftgate_") && !CONNECTION_VARS.contains(&key) {
                        continue;
                    }
                    let value = match ini_value(value) {
                        Ok(value) => value,
                        Err(message) => {
                            self.problem(
                                line,
                                format!("host `{name}`: variable `{key}`: {message}"),
                            );
                            continue;
                        }
                    };
                    vars.push(Var {
                        key: key.to_owned(),
                        value,
                        line,
                    });
                }
                _ => {
                    // Not quoted: it may be a secret written without its key.
                    self.problem(
                        line,
                        format!(
                            "host `{name}`: a host variable is `key=value`; this one has no `=`"
                        ),
                    );
                }
            }
        }
        match expand_range(&name) {
            Ok(names) => {
                for one in names {
                    self.add_host(&one, group, vars.clone(), line);
                }
            }
            Err(message) => self.problem(line, format!("host `{name}`: {message}")),
        }
    }

    // ---- Resolution -------------------------------------------------------------------

    fn finish(mut self) -> Result<Inventory, InventoryErrors> {
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
        let mut problems = self.problems;
        if problems.is_empty() {
            return Ok(Inventory {
                file: self.path,
                hosts: hosts.into_iter().map(std::sync::Arc::new).collect(),
            });
        }
        problems.sort_by_key(|p| p.line);
        problems.dedup();
        Err(InventoryErrors { problems })
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

    fn resolve(
        &mut self,
        host: &Host,
        groups: &BTreeSet<String>,
        depths: &HashMap<String, usize>,
    ) -> Option<InventoryHost> {
        // Lowest precedence first: `all`, then by depth (a child over its parent), then name.
        let mut ordered: Vec<&String> = groups.iter().collect();
        ordered.sort_by_key(|g| (depths.get(*g).copied().unwrap_or(0), (*g).clone()));
        let mut vars: BTreeMap<String, (Var, usize)> = BTreeMap::new();
        let mut rank = 0;
        for group in ordered {
            rank += 1;
            for var in self
                .groups
                .get(group)
                .map(|g| g.vars.clone())
                .unwrap_or_default()
            {
                vars.insert(var.key.clone(), (var, rank));
            }
        }
        rank += 1;
        for var in &host.vars {
            vars.insert(var.key.clone(), (var.clone(), rank));
        }
        let mut r = HostResolver {
            reader: self,
            host: &host.name,
            line: host.line,
            vars: &vars,
        };
        let name = match HostName::new(&host.name) {
            Ok(name) => Some(name),
            Err(e) => {
                r.problem(host.line, e.to_string());
                None
            }
        };
        let fleet = r.name_var("driftgate_fleet", NameKind::Fleet);
        if !vars.contains_key("driftgate_fleet") {
            r.problem(
                host.line,
                "has no fleet: set `driftgate_fleet` (usually as a group variable)",
            );
        }
        let cluster = r.name_var("driftgate_cluster", NameKind::Cluster);
        let mut tags = BTreeSet::new();
        for group in groups {
            if IMPLICIT_GROUPS.contains(&group.as_str()) {
                continue;
            }
            match check_name(group, NameKind::Tag) {
                Ok(()) => {
                    tags.insert(group.clone());
                }
                Err(message) => {
                    let line = r.reader.groups.get(group).map_or(host.line, |g| g.line);
                    r.problem(line, format!("group `{group}` as a tag: {message}"));
                }
            }
        }
        for tag in r.strings("driftgate_tags") {
            match check_name(&tag, NameKind::Tag) {
                Ok(()) => {
                    tags.insert(tag);
                }
                Err(message) => {
                    r.problem(r.line_of("driftgate_tags"), format!("bad tag: {message}"))
                }
            }
        }
        let sources = r.sources();
        let credentials = r.credentials();
        let ca_file = r.path("driftgate_ca_file");
        let timeouts = r.timeouts();
        Some(InventoryHost {
            name: name?,
            fleet: fleet?,
            cluster,
            tags: tags.into_iter().collect(),
            sources,
            credentials,
            ca_file,
            timeouts,
            line: host.line,
        })
    }
}

/// Reads one host's resolved variables; every problem names the host.
struct HostResolver<'a, 't> {
    reader: &'a mut Reader<'t>,
    host: &'a str,
    line: usize,
    vars: &'a BTreeMap<String, (Var, usize)>,
}

impl HostResolver<'_, '_> {
    fn problem(&mut self, line: usize, message: impl AsRef<str>) {
        let message = format!("host `{}`: {}", self.host, message.as_ref());
        self.reader.problem(line, message);
    }

    fn line_of(&self, key: &str) -> usize {
        self.vars.get(key).map_or(self.line, |(v, _)| v.line)
    }

    fn get(&self, key: &str) -> Option<&Var> {
        self.vars.get(key).map(|(v, _)| v)
    }

    /// A non-empty string variable.
    fn string(&mut self, key: &str) -> Option<String> {
        let var = self.get(key)?.clone();
        match &var.value {
            Value::String(text) if !text.is_empty() => Some(text.clone()),
            Value::String(_) => {
                self.problem(var.line, format!("`{key}` is empty"));
                None
            }
            other => {
                self.problem(
                    var.line,
                    format!("`{key}` must be a string, not {}", type_str(other)),
                );
                None
            }
        }
    }

    fn name_var(&mut self, key: &str, kind: NameKind) -> Option<String> {
        let text = self.string(key)?;
        match check_name(&text, kind) {
            Ok(()) => Some(text),
            Err(message) => {
                self.problem(self.line_of(key), format!("bad {kind}: {message}"));
                None
            }
        }
    }

    /// A list of strings (or one string).
    fn strings(&mut self, key: &str) -> Vec<String> {
        let Some(var) = self.get(key).cloned() else {
            return Vec::new();
        };
        match &var.value {
            Value::String(text) => vec![text.clone()],
            Value::Sequence(items) => {
                let mut out = Vec::new();
                for item in items {
                    match item {
                        Value::String(text) if !text.is_empty() => out.push(text.clone()),
                        other => self.problem(
                            var.line,
                            format!(
                                "`{key}` must be a list of strings, not of {}",
                                type_str(other)
                            ),
                        ),
                    }
                }
                out
            }
            other => {
                self.problem(
                    var.line,
                    format!("`{key}` must be a list of strings, not {}", type_str(other)),
                );
                Vec::new()
            }
        }
    }

    fn sources(&mut self) -> Vec<SourceSpec> {
        let mut texts: Vec<(String, usize)> = Vec::new();
        if let Some(bmc) = self.string("driftgate_bmc") {
            let location = if bmc.contains("://") || bmc.starts_with("mockup:") {
                bmc
            } else {
                format!("https://{bmc}")
            };
            texts.push((format!("redfish={location}"), self.line_of("driftgate_bmc")));
        }
        if let Some(os) = self.string("driftgate_os") {
            let line = self.line_of("driftgate_os");
            if matches!(os.as_str(), "windows" | "linux" | "esxi") {
                if let Some(location) = self.ssh_location() {
                    texts.push((format!("{os}={location}"), line));
                }
            } else {
                self.problem(line, "`driftgate_os` must be windows, linux or esxi");
            }
        }
        let line = self.line_of("driftgate_sources");
        for text in self.strings("driftgate_sources") {
            texts.push((text, line));
        }
        if texts.is_empty() {
            self.problem(
                self.line,
                "has no driftgate source: set `driftgate_bmc`, `driftgate_os` or `driftgate_sources`",
            );
        }
        let mut sources: Vec<SourceSpec> = Vec::new();
        let mut kinds = BTreeSet::new();
        let base = self.reader.base.clone();
        for (text, line) in texts {
            match source(&text, &base) {
                Ok(source) => {
                    let kind = source.kind();
                    if kinds.insert(kind.as_str()) {
                        sources.push(source);
                    } else {
                        self.problem(
                            line,
                            format!("two `{kind}` sources: a host has one source of each kind"),
                        );
                    }
                }
                Err(message) => self.problem(line, message),
            }
        }
        sources
    }

    /// `ssh://[ansible_user@]<ansible_host or the name>[:ansible_port]`.
    fn ssh_location(&mut self) -> Option<String> {
        let host = self
            .string("ansible_host")
            .unwrap_or_else(|| self.host.to_owned());
        let user = self.string("ansible_user");
        let port = match self.get("ansible_port").map(|v| (v.value.clone(), v.line)) {
            None => None,
            Some((value, line)) => match whole_number(&value).and_then(|n| u16::try_from(n).ok()) {
                Some(port) => Some(port),
                None => {
                    self.problem(line, "`ansible_port` must be a port number");
                    return None;
                }
            },
        };
        let mut location = "ssh://".to_owned();
        if let Some(user) = user {
            location.push_str(&user);
            location.push('@');
        }
        location.push_str(&host);
        if let Some(port) = port {
            location.push_str(&format!(":{port}"));
        }
        Some(location)
    }

    fn path(&mut self, key: &str) -> Option<PathBuf> {
        self.string(key).map(|p| self.reader.base.join(p))
    }

    fn credentials(&mut self) -> Option<CredentialsRef> {
        let env = self.vars.get("driftgate_credentials").cloned();
        let file = self
            .vars
            .get("driftgate_credentials_file")
            .map(|(_, rank)| *rank);
        if let (Some((var, env_rank)), Some(file_rank)) = (&env, file)
            && *env_rank == file_rank
        {
            self.problem(
                var.line,
                "give either `driftgate_credentials` or `driftgate_credentials_file` at one level, not both",
            );
        }
        let from_env = env.as_ref().and_then(|(var, _)| self.credentials_env(var));
        let from_file = self
            .path("driftgate_credentials_file")
            .map(CredentialsRef::File);
        match (env.map(|(_, rank)| rank), file) {
            (Some(env), Some(file)) if file > env => from_file,
            (Some(_), _) => from_env,
            (None, _) => from_file,
        }
    }

    fn credentials_env(&mut self, var: &Var) -> Option<CredentialsRef> {
        let Value::Mapping(mapping) = &var.value else {
            self.problem(
                var.line,
                "`driftgate_credentials` must be {username_env: …, password_env: …}",
            );
            return None;
        };
        self.check_keys(mapping, CREDENTIALS_KEYS, "driftgate_credentials", var.line);
        let mut variable = |key: &str| match mapping.get(key) {
            Some(Value::String(name)) if is_env_name(name) => Some(name.clone()),
            None => {
                self.problem(var.line, format!("`driftgate_credentials` without `{key}`"));
                None
            }
            Some(_) => {
                // Not quoted: a value that is no variable name may be the secret itself.
                self.problem(var.line, not_an_env_name(key));
                None
            }
        };
        let username_env = variable("username_env");
        let password_env = variable("password_env");
        Some(CredentialsRef::Env {
            username_env: username_env?,
            password_env: password_env?,
        })
    }

    fn check_keys(&mut self, mapping: &Mapping, known: &[&str], place: &str, line: usize) {
        for key in mapping.keys() {
            let name = key.as_str().unwrap_or_default();
            if known.contains(&name) {
                continue;
            }
            if is_secret_key(name) {
                self.problem(line, format!("`{place}` key `{name}`: {NO_SECRETS}"));
            } else {
                self.problem(
                    line,
                    format!(
                        "unknown key `{name}` in `{place}` (known: {})",
                        known.join(", ")
                    ),
                );
            }
        }
    }

    fn timeouts(&mut self) -> Timeouts {
        let Some(var) = self.get("driftgate_timeouts").cloned() else {
            return Timeouts::default();
        };
        let Value::Mapping(mapping) = &var.value else {
            self.problem(
                var.line,
                "`driftgate_timeouts` must be {bmc_seconds: N, host_seconds: N, command_seconds: N}",
            );
            return Timeouts::default();
        };
        self.check_keys(mapping, TIMEOUT_KEYS, "driftgate_timeouts", var.line);
        let mut seconds = |key: &str| {
            let value = mapping.get(key)?;
            let positive = whole_number(value).filter(|n| *n > 0);
            if positive.is_none() {
                self.problem(
                    var.line,
                    format!("`{key}` must be a positive whole number of seconds"),
                );
            }
            positive.map(Duration::from_secs)
        };
        Timeouts {
            bmc: seconds("bmc_seconds"),
            host: seconds("host_seconds"),
            command: seconds("command_seconds"),
        }
    }
}

/// A whole number written as a number or (INI) as digits.
fn whole_number(value: &Value) -> Option<u64> {
    match value {
        Value::Number(n) => n.as_u64(),
        Value::String(text) => text.parse().ok(),
        _ => None,
    }
}

fn type_str(value: &Value) -> &'static str {
    match value {
        Value::Null => "nothing",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Sequence(_) => "a list",
        Value::Mapping(_) => "a mapping",
        Value::Tagged(_) => "a tagged value (such as !vault)",
    }
}

/// An INI value: a `[…]` / `{…}` literal (read as YAML flow, quoted or not), quoted text,
/// or bare text.
fn ini_value(text: &str) -> Result<Value, String> {
    let inner = text
        .strip_prefix('"')
        .and_then(|t| t.strip_suffix('"'))
        .or_else(|| text.strip_prefix('\'').and_then(|t| t.strip_suffix('\'')))
        .unwrap_or(text);
    if inner.starts_with('[') || inner.starts_with('{') {
        return yaml_serde::from_str::<Value>(inner).map_err(|_| {
            "not a valid list or mapping (write it as [\"a\", \"b\"] or {key: value})".to_owned()
        });
    }
    Ok(Value::String(inner.to_owned()))
}

/// Splits an INI host line at blanks outside quotes and brackets.
fn split_ini(text: &str) -> Vec<String> {
    let mut tokens = Vec::new();
    let mut current = String::new();
    let mut quote: Option<char> = None;
    let mut depth = 0usize;
    for c in text.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => {
                quote = None;
                current.push(c);
            }
            (Some(_), c) => current.push(c),
            (None, '"' | '\'') => {
                quote = Some(c);
                current.push(c);
            }
            (None, '[' | '{') => {
                depth += 1;
                current.push(c);
            }
            (None, ']' | '}') => {
                depth = depth.saturating_sub(1);
                current.push(c);
            }
            (None, c) if c.is_whitespace() && depth == 0 => {
                if !current.is_empty() {
                    tokens.push(std::mem::take(&mut current));
                }
            }
            (None, c) => current.push(c),
        }
    }
    if !current.is_empty() {
        tokens.push(current);
    }
    tokens
}

/// Expands one numeric host range (`node[01:04]`, `node[1:9:2]`); refuses letter ranges.
fn expand_range(name: &str) -> Result<Vec<String>, String> {
    let Some((prefix, rest)) = name.split_once('[') else {
        return Ok(vec![name.to_owned()]);
    };
    let Some((range, suffix)) = rest.split_once(']') else {
        return Err("an unclosed `[` in a host name".to_owned());
    };
    if suffix.contains('[') {
        return Err("only one host range `[a:b]` per name is read".to_owned());
    }
    let parts: Vec<&str> = range.split(':').collect();
    let numbers: Option<Vec<u64>> = parts.iter().map(|p| p.parse().ok()).collect();
    let (start, end, step) = match (parts.len(), numbers) {
        (2, Some(n)) => (n[0], n[1], 1),
        (3, Some(n)) if n[2] > 0 => (n[0], n[1], n[2]),
        _ => {
            return Err(format!(
                "host range `[{range}]`: only numeric ranges `[START:END]` or `[START:END:STEP]` are read"
            ));
        }
    };
    if start > end || (end - start) / step > 10_000 {
        return Err(format!("host range `[{range}]` is empty or too long"));
    }
    let width = if parts[0].starts_with('0') {
        parts[0].len()
    } else {
        0
    };
    Ok((start..=end)
        .step_by(usize::try_from(step).unwrap_or(1))
        .map(|n| format!("{prefix}{n:0width$}{suffix}"))
        .collect())
}
