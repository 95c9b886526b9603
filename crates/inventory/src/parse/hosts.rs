//! The `[[host]]` tables of `inventory.toml` and the `[fleet.X]` / `[cluster.X]` groups they
//! inherit from, resolved into [`InventoryHost`]s; what can only be told once every host is
//! read (names given twice, groups no host uses).

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;

use toml::de::DeValue;

use super::settings::Settings;
use super::{DEFAULTS_KEYS, HOST_KEYS, Reader, SETTING_KEYS, TOP_KEYS, Table, Value};
use crate::InventoryHost;
use crate::checks::{check_name, source};
use driftgate_collect::{SourceKind, SourceSpec};
use driftgate_snapshot::HostName;
use driftgate_snapshot::file_names::NameKind;

/// A `[fleet.X]` or `[cluster.X]` table.
struct Group {
    line: usize,
    settings: Settings,
}

/// A host as written, before the groups it belongs to are applied.
struct RawHost {
    /// The name and its line; `None` when it was missing or refused (already a problem).
    name: Option<(HostName, usize)>,
    fleet: Option<String>,
    /// `fleet` was written, even if it was refused (then "no fleet" would be noise).
    fleet_given: bool,
    cluster: Option<String>,
    tags: Vec<String>,
    sources: Vec<SourceSpec>,
    /// `sources` was written, even if each was refused (then "no sources" would be noise).
    sources_given: bool,
    settings: Settings,
    line: usize,
}

/// The top level's settings and groups, and the hosts resolved with them so far.
pub(super) struct Hosts {
    defaults: Settings,
    default_fleet: Option<String>,
    fleets: BTreeMap<String, Group>,
    clusters: BTreeMap<String, Group>,
    hosts: Vec<InventoryHost>,
    used_fleets: BTreeSet<String>,
    used_clusters: BTreeSet<String>,
    /// Every named host's name and the line of its `name`, for names given twice.
    names: Vec<(String, usize)>,
}

impl Reader {
    /// The top level's keys, `[defaults]` and the groups, ready to resolve `expected` hosts.
    pub(super) fn top_level(&mut self, document: &Table<'_>, expected: usize) -> Hosts {
        self.check_keys(document, TOP_KEYS, "the top level");
        let (defaults, default_fleet) = match document.get("defaults") {
            Some(value) => match value.get_ref() {
                DeValue::Table(table) => {
                    self.check_keys(table, DEFAULTS_KEYS, "[defaults]");
                    let fleet = self.group_name(table, "fleet");
                    (self.settings(table), fleet)
                }
                _ => {
                    self.problem(&value.span(), "`defaults` must be a table: [defaults]");
                    (Settings::default(), None)
                }
            },
            None => (Settings::default(), None),
        };
        Hosts {
            defaults,
            default_fleet,
            fleets: self.groups(document, "fleet"),
            clusters: self.groups(document, "cluster"),
            hosts: Vec::with_capacity(expected),
            used_fleets: BTreeSet::new(),
            used_clusters: BTreeSet::new(),
            names: Vec::with_capacity(expected),
        }
    }

    /// The `[[host]]` tables of `value` (the top-level `host`), each resolved into `hosts`.
    pub(super) fn host_items(&mut self, value: &Value<'_>, hosts: &mut Hosts) {
        let DeValue::Array(items) = value.get_ref() else {
            self.problem(&value.span(), "`host` must be an array of tables: [[host]]");
            return;
        };
        hosts.hosts.reserve(items.len());
        for item in items.iter() {
            let DeValue::Table(table) = item.get_ref() else {
                self.problem(&item.span(), "each host must be a table: [[host]]");
                continue;
            };
            let raw = self.host(table, &item.span());
            self.resolve(raw, hosts);
        }
    }

    /// Applies the groups and `[defaults]` to a host as written.
    fn resolve(&mut self, host: RawHost, hosts: &mut Hosts) {
        let fleet = host.fleet.or_else(|| hosts.default_fleet.clone());
        // Counted for hosts with a bad name too: their groups are not typos.
        hosts.used_fleets.extend(fleet.clone());
        hosts.used_clusters.extend(host.cluster.clone());
        let Some((name, name_line)) = host.name else {
            return;
        };
        hosts.names.push((name.as_str().to_owned(), name_line));
        let Some(fleet) = fleet else {
            if !host.fleet_given {
                self.problem_at(
                    host.line,
                    format!(
                        "host `{}` has no fleet: give `fleet = \"…\"` in its [[host]] or in [defaults]",
                        name.as_str()
                    ),
                );
            }
            return;
        };
        let group = |groups: &BTreeMap<String, Group>, name: Option<&String>| {
            name.and_then(|n| groups.get(n))
                .map(|g| g.settings.clone())
                .unwrap_or_default()
        };
        let settings = host.settings.over(
            &group(&hosts.clusters, host.cluster.as_ref())
                .over(&group(&hosts.fleets, Some(&fleet)).over(&hosts.defaults)),
        );
        let mut sources = host.sources;
        // A group's vCenter reads its ESXi hosts: a host with a Windows or Linux source (or
        // an esxi one of its own) is none of them.
        if let Some(vcenter) = &settings.vcenter
            && !sources.iter().any(|s| {
                matches!(
                    s.kind(),
                    SourceKind::Esxi | SourceKind::Windows | SourceKind::Linux
                )
            })
        {
            sources.push(SourceSpec::EsxiVcenter(vcenter.for_host(name.as_str())));
        }
        if sources.is_empty() {
            if host.sources_given {
                return;
            }
            self.problem_at(
                host.line,
                format!(
                    "host `{}` has no `sources` (e.g. sources = [\"redfish=https://bmc\"]) and no `vcenter` reaches it",
                    name.as_str()
                ),
            );
            return;
        }
        hosts.hosts.push(InventoryHost {
            name,
            fleet,
            cluster: host.cluster,
            tags: host.tags,
            sources,
            credentials: settings.credentials,
            ca_file: settings.ca_file,
            timeouts: settings.timeouts,
            line: host.line,
            origins: Vec::new(),
        });
    }

    /// What can only be told once every host is read: names given twice, unused groups.
    pub(super) fn finish(&mut self, mut hosts: Hosts) -> Vec<InventoryHost> {
        // Stable: the lines of one name stay in file order.
        hosts.names.sort_by(|a, b| a.0.cmp(&b.0));
        for same in hosts.names.chunk_by(|a, b| a.0 == b.0) {
            if same.len() > 1 {
                let list: Vec<String> = same.iter().map(|(_, line)| line.to_string()).collect();
                for (name, line) in same {
                    self.problem_at(
                        *line,
                        format!(
                            "host `{name}` is given more than once (lines {})",
                            list.join(", ")
                        ),
                    );
                }
            }
        }
        self.unused("fleet", &hosts.fleets, &hosts.used_fleets);
        self.unused("cluster", &hosts.clusters, &hosts.used_clusters);
        hosts.hosts
    }

    /// A `[fleet.X]` / `[cluster.X]` no host uses is a typo, not a harmless extra.
    fn unused(&mut self, kind: &str, groups: &BTreeMap<String, Group>, used: &BTreeSet<String>) {
        let in_use: Vec<&str> = used.iter().map(String::as_str).collect();
        let in_use = if in_use.is_empty() {
            "none".to_owned()
        } else {
            in_use.join(", ")
        };
        for (name, group) in groups {
            if !used.contains(name) {
                self.problem_at(
                    group.line,
                    format!(
                        "[{kind}.{name}] is used by no host (a typo? {kind}s of the hosts: {in_use})"
                    ),
                );
            }
        }
    }

    /// The `[fleet.X]` or `[cluster.X]` tables.
    fn groups(&mut self, document: &Table<'_>, kind: &str) -> BTreeMap<String, Group> {
        let mut groups = BTreeMap::new();
        let Some(value) = document.get(kind) else {
            return groups;
        };
        let DeValue::Table(table) = value.get_ref() else {
            self.problem(
                &value.span(),
                format!("`{kind}` must be tables of settings: [{kind}.NAME]"),
            );
            return groups;
        };
        for (key, value) in table.iter() {
            let name = key.get_ref().as_ref();
            if let Err(message) = check_name(name, group_kind(kind)) {
                self.problem(
                    &key.span(),
                    format!("[{kind}.…]: bad {kind} name: {message}"),
                );
            }
            let DeValue::Table(settings) = value.get_ref() else {
                self.problem(
                    &key.span(),
                    format!("`{kind}.{name}` must be a table: [{kind}.{name}]"),
                );
                continue;
            };
            self.check_keys(settings, SETTING_KEYS, &format!("[{kind}.{name}]"));
            let settings = self.settings(settings);
            groups.insert(
                name.to_owned(),
                Group {
                    line: self.line(key.span().start),
                    settings,
                },
            );
        }
        groups
    }

    fn host(&mut self, table: &Table<'_>, header: &Range<usize>) -> RawHost {
        self.check_keys(table, HOST_KEYS, "[[host]]");
        let line = self.line(header.start);
        let name = match table.get("name") {
            None => {
                self.problem(header, "a [[host]] without `name`");
                None
            }
            Some(value) => match self.string(value, "name") {
                Some(text) => match HostName::new(text) {
                    Ok(name) => Some((name, self.line(value.span().start))),
                    Err(e) => {
                        self.problem(&value.span(), e.to_string());
                        None
                    }
                },
                None => None,
            },
        };
        let fleet = self.group_name(table, "fleet");
        let fleet_given = table.contains_key("fleet");
        let cluster = self.group_name(table, "cluster");
        let tags = self.tags(table);
        let sources = self.sources(table, name.as_ref().map(|(n, _)| n.as_str()));
        let sources_given = table.contains_key("sources");
        let settings = self.settings(table);
        RawHost {
            name,
            fleet,
            fleet_given,
            cluster,
            tags,
            sources,
            sources_given,
            settings,
            line,
        }
    }

    /// A string value; a problem when it is another type or empty.
    pub(super) fn string(&mut self, value: &Value<'_>, key: &str) -> Option<String> {
        match value.get_ref() {
            DeValue::String(text) if text.is_empty() => {
                self.problem(&value.span(), format!("`{key}` is empty"));
                None
            }
            DeValue::String(text) => Some(text.to_string()),
            other => {
                self.problem(
                    &value.span(),
                    format!("`{key}` must be a string, not {}", other.type_str()),
                );
                None
            }
        }
    }

    /// `fleet` or `cluster` of `table`, checked as a name.
    fn group_name(&mut self, table: &Table<'_>, key: &str) -> Option<String> {
        let value = table.get(key)?;
        let text = self.string(value, key)?;
        match check_name(&text, group_kind(key)) {
            Ok(()) => Some(text),
            Err(message) => {
                self.problem(&value.span(), format!("bad {key} name: {message}"));
                None
            }
        }
    }

    fn tags(&mut self, table: &Table<'_>) -> Vec<String> {
        let Some(value) = table.get("tags") else {
            return Vec::new();
        };
        let DeValue::Array(items) = value.get_ref() else {
            self.problem(&value.span(), "`tags` must be an array of strings");
            return Vec::new();
        };
        let mut tags = Vec::with_capacity(items.len());
        for item in items.iter() {
            let Some(tag) = self.string(item, "tags") else {
                continue;
            };
            match check_name(&tag, NameKind::Tag) {
                Ok(()) => tags.push(tag),
                Err(message) => self.problem(&item.span(), format!("bad tag: {message}")),
            }
        }
        tags
    }

    fn sources(&mut self, table: &Table<'_>, host: Option<&str>) -> Vec<SourceSpec> {
        let host = host
            .map(|h| format!("host `{h}`"))
            .unwrap_or("the host".into());
        let Some(value) = table.get("sources") else {
            // A `vcenter` of the host's groups may still give it one: said once they are known.
            return Vec::new();
        };
        let DeValue::Array(items) = value.get_ref() else {
            self.problem(
                &value.span(),
                "`sources` must be an array of \"KIND=LOCATION\"",
            );
            return Vec::new();
        };
        if items.is_empty() {
            self.problem(&value.span(), format!("{host}: `sources` is empty"));
        }
        let mut sources: Vec<SourceSpec> = Vec::with_capacity(items.len());
        let mut kinds: BTreeMap<&'static str, usize> = BTreeMap::new();
        for item in items.iter() {
            let Some(text) = self.string(item, "sources") else {
                continue;
            };
            match source(&text, &self.base) {
                Ok(source) => {
                    let line = self.line(item.span().start);
                    let kind = source.kind();
                    if let Some(first) = kinds.insert(kind.as_str(), line) {
                        let lines = if first == line {
                            String::new()
                        } else {
                            format!(" (lines {first} and {line})")
                        };
                        self.problem(
                            &item.span(),
                            format!(
                                "two `{kind}` sources{lines}: a host has one source of each kind"
                            ),
                        );
                    } else {
                        sources.push(source);
                    }
                }
                Err(error) => self.problem(&item.span(), error.to_string()),
            }
        }
        sources
    }
}

/// The kind of a `fleet` or `cluster` key's names.
fn group_kind(key: &str) -> NameKind {
    if key == "fleet" {
        NameKind::Fleet
    } else {
        NameKind::Cluster
    }
}
