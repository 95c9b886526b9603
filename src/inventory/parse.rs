//! Reading `inventory.toml` with spans: every problem names its line, and all of them are
//! collected before the file is refused. Two passes over the document: one for keys that
//! would hold a secret (anywhere, in any table), one for the schema and the values.

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::time::Duration;

use toml::Spanned;
use toml::de::{DeTable, DeValue};

use super::{CredentialsRef, Inventory, InventoryErrors, InventoryHost, Problem, Timeouts};
use crate::collect::SourceSpec;
use crate::collect::redfish::RedfishLocation;
use crate::collect::transport::Location;
use crate::limits::file_names::{self, BadName, NameKind};
use crate::line_index::LineIndex;
use crate::snapshot::HostName;

/// Keys of the top level.
const TOP_KEYS: &[&str] = &["defaults", "fleet", "cluster", "host"];
/// Keys every level (`[defaults]`, `[fleet.X]`, `[cluster.X]`, `[[host]]`) may set.
const SETTING_KEYS: &[&str] = &["credentials", "credentials_file", "ca_file", "timeouts"];
/// Keys of `[defaults]`.
const DEFAULTS_KEYS: &[&str] = &[
    "fleet",
    "credentials",
    "credentials_file",
    "ca_file",
    "timeouts",
];
/// Keys of a `[[host]]`.
const HOST_KEYS: &[&str] = &[
    "name",
    "fleet",
    "cluster",
    "tags",
    "sources",
    "credentials",
    "credentials_file",
    "ca_file",
    "timeouts",
];
/// Keys of `credentials = { … }`.
pub(super) const CREDENTIALS_KEYS: &[&str] = &["username_env", "password_env"];
/// Keys of `timeouts = { … }`.
pub(super) const TIMEOUT_KEYS: &[&str] = &["bmc_seconds", "host_seconds", "command_seconds"];

/// What a key that would hold a secret is told.
pub(super) const NO_SECRETS: &str = "never put a secret in the inventory: reference it with credentials = { username_env, password_env } or credentials_file";

type Table<'i> = DeTable<'i>;
type Value<'i> = Spanned<DeValue<'i>>;

/// Parses and validates an inventory; see [`Inventory::parse`].
///
/// An inventory is read one `[[host]]` at a time where its text allows it (see
/// [`host_headers`]): the toml crate's document costs about 1 KB per host, and a fleet's
/// inventory held whole would set a fleet check's peak memory.
pub(super) fn parse(text: &str, file: &Path) -> Result<Inventory, InventoryErrors> {
    read(text, file, true).0
}

/// Reads `text`, in pieces if `pieces` and the text allows it, else whole; and whether it was
/// read in pieces.
pub(super) fn read(
    text: &str,
    file: &Path,
    pieces: bool,
) -> (Result<Inventory, InventoryErrors>, bool) {
    let mut reader = Reader {
        lines: LineIndex::new(text),
        offset: 0,
        file: file.display().to_string(),
        base: file.parent().unwrap_or(Path::new("")).to_path_buf(),
        problems: Vec::new(),
    };
    let in_pieces = pieces.then(|| reader.in_pieces(text)).flatten();
    let read_in_pieces = in_pieces.is_some();
    let hosts = in_pieces.unwrap_or_else(|| {
        reader.problems.clear();
        reader.whole(text)
    });
    let mut problems = reader.problems;
    if problems.is_empty() {
        let inventory = Inventory {
            file: file.to_path_buf(),
            hosts: hosts.into_iter().map(std::sync::Arc::new).collect(),
        };
        return (Ok(inventory), read_in_pieces);
    }
    problems.sort_by_key(|p| p.line);
    problems.dedup();
    (Err(InventoryErrors { problems }), read_in_pieces)
}

/// The byte offset of every line that is a `[[host]]` header as written by people and
/// generators (`[[host]]`, then nothing or a comment), were it outside a multi-line string or
/// array. Whether it is one is not decided here: the piece before a line that is inside such a
/// value ends inside it, so that piece is not TOML and the text is read whole.
fn host_headers(text: &str) -> Vec<usize> {
    let mut starts = Vec::new();
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        if let Some(rest) = line.trim_start().strip_prefix("[[host]]") {
            let rest = rest.trim_start();
            if rest.is_empty() || rest.starts_with('#') {
                starts.push(at);
            }
        }
        at += line.len();
    }
    starts
}

/// Settings one level gives; `None` inherits from the level above.
#[derive(Debug, Clone, Default)]
struct Settings {
    credentials: Option<CredentialsRef>,
    ca_file: Option<PathBuf>,
    timeouts: Timeouts,
}

impl Settings {
    /// `self` where it says something, else `fallback`.
    fn over(&self, fallback: &Settings) -> Settings {
        Settings {
            credentials: self
                .credentials
                .clone()
                .or_else(|| fallback.credentials.clone()),
            ca_file: self.ca_file.clone().or_else(|| fallback.ca_file.clone()),
            timeouts: Timeouts {
                bmc: self.timeouts.bmc.or(fallback.timeouts.bmc),
                host: self.timeouts.host.or(fallback.timeouts.host),
                command: self.timeouts.command.or(fallback.timeouts.command),
            },
        }
    }
}

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
    settings: Settings,
    line: usize,
}

/// The top level's settings and groups, and the hosts resolved with them so far.
struct Hosts {
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

struct Reader {
    /// Where the text's lines start.
    lines: LineIndex,
    /// Where the piece of the text being read starts: the toml crate's spans are offsets
    /// into the piece.
    offset: usize,
    file: String,
    base: PathBuf,
    problems: Vec<Problem>,
}

impl Reader {
    /// The 1-based line of byte `offset`.
    fn line(&self, offset: usize) -> usize {
        let offset = self.offset + offset;
        self.lines.line(offset)
    }

    fn problem(&mut self, span: &Range<usize>, message: impl Into<String>) {
        self.problem_at(self.line(span.start), message);
    }

    fn problem_at(&mut self, line: usize, message: impl Into<String>) {
        self.problems.push(Problem {
            file: self.file.clone(),
            line,
            message: message.into(),
        });
    }

    /// Refuses every key that would hold a secret, in any table. Known keys never do
    /// (`password_env` names a variable); the names of `[fleet.X]` / `[cluster.X]` tables are
    /// group names, checked as names.
    fn find_secrets(&mut self, table: &Table<'_>, scope: Scope) {
        for (key, value) in table.iter() {
            let name = key.get_ref().as_ref();
            let known = [
                TOP_KEYS,
                HOST_KEYS,
                DEFAULTS_KEYS,
                CREDENTIALS_KEYS,
                TIMEOUT_KEYS,
            ]
            .iter()
            .any(|keys| keys.contains(&name));
            if scope != Scope::Groups && !known && is_secret_key(name) {
                self.problem(&key.span(), format!("key `{name}`: {NO_SECRETS}"));
                continue;
            }
            let inner = match (scope, name) {
                (Scope::Document, "fleet" | "cluster") => Scope::Groups,
                _ => Scope::Nested,
            };
            self.find_secrets_in(value, inner);
        }
    }

    fn find_secrets_in(&mut self, value: &Value<'_>, scope: Scope) {
        match value.get_ref() {
            DeValue::Table(table) => self.find_secrets(table, scope),
            DeValue::Array(items) => {
                for item in items.iter() {
                    self.find_secrets_in(item, Scope::Nested);
                }
            }
            _ => {}
        }
    }

    /// Reports keys of `table` outside `known`; keys that would hold a secret were reported
    /// by [`Self::find_secrets`] already.
    fn check_keys(&mut self, table: &Table<'_>, known: &[&str], place: &str) {
        for key in table.keys() {
            let name = key.get_ref().as_ref();
            if !known.contains(&name) && !is_secret_key(name) {
                self.problem(
                    &key.span(),
                    format!(
                        "unknown key `{name}` in {place} (known: {})",
                        known.join(", ")
                    ),
                );
            }
        }
    }

    /// Reads the whole text as one document.
    fn whole(&mut self, text: &str) -> Vec<InventoryHost> {
        self.offset = 0;
        let (document, errors) = DeTable::parse_recoverable(text);
        self.not_toml(errors);
        let document = document.get_ref();
        self.find_secrets(document, Scope::Document);
        let mut hosts = self.top_level(document, 0);
        match document.get("host") {
            // Fail closed: an inventory that lists nobody gates nobody.
            None => self.problem_at(1, "no [[host]]: an inventory lists at least one host"),
            Some(value) => self.host_items(value, &mut hosts),
        }
        self.finish(hosts)
    }

    /// Reads the text as the part before the first `[[host]]` header, then each host from its
    /// header to the next one, each parsed and dropped in turn. `None` when the text does not
    /// read like that with the meaning it has whole: a piece that is not TOML on its own, a
    /// host's piece that sets more than its host (`[defaults]` after a host), or a `host` key
    /// before the first header. Then nothing read here counts.
    fn in_pieces(&mut self, text: &str) -> Option<Vec<InventoryHost>> {
        let starts = host_headers(text);
        let first = *starts.first()?;
        let (document, errors) = DeTable::parse_recoverable(&text[..first]);
        if !errors.is_empty() || document.get_ref().contains_key("host") {
            return None;
        }
        self.find_secrets(document.get_ref(), Scope::Document);
        let mut hosts = self.top_level(document.get_ref(), starts.len());
        drop(document);
        for (i, &start) in starts.iter().enumerate() {
            let end = starts.get(i + 1).copied().unwrap_or(text.len());
            self.offset = start;
            let (document, errors) = DeTable::parse_recoverable(&text[start..end]);
            let document = document.get_ref();
            if !errors.is_empty() || document.len() != 1 {
                return None;
            }
            self.find_secrets(document, Scope::Document);
            self.host_items(document.get("host")?, &mut hosts);
        }
        self.offset = 0;
        Some(self.finish(hosts))
    }

    /// Every error of the toml parser, at its line.
    fn not_toml(&mut self, errors: Vec<toml::de::Error>) {
        for error in errors {
            // The message only: toml's Display quotes the line, which may hold a secret.
            let span = error.span().unwrap_or(0..0);
            self.problem(&span, format!("not TOML: {}", error.message()));
        }
    }

    /// The top level's keys, `[defaults]` and the groups, ready to resolve `expected` hosts.
    fn top_level(&mut self, document: &Table<'_>, expected: usize) -> Hosts {
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
    fn host_items(&mut self, value: &Value<'_>, hosts: &mut Hosts) {
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
        hosts.hosts.push(InventoryHost {
            name,
            fleet,
            cluster: host.cluster,
            tags: host.tags,
            sources: host.sources,
            credentials: settings.credentials,
            ca_file: settings.ca_file,
            timeouts: settings.timeouts,
            line: host.line,
        });
    }

    /// What can only be told once every host is read: names given twice, unused groups.
    fn finish(&mut self, mut hosts: Hosts) -> Vec<InventoryHost> {
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
        let sources = self.sources(table, header, name.as_ref().map(|(n, _)| n.as_str()));
        let settings = self.settings(table);
        RawHost {
            name,
            fleet,
            fleet_given,
            cluster,
            tags,
            sources,
            settings,
            line,
        }
    }

    /// A string value; a problem when it is another type or empty.
    fn string(&mut self, value: &Value<'_>, key: &str) -> Option<String> {
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

    fn sources(
        &mut self,
        table: &Table<'_>,
        header: &Range<usize>,
        host: Option<&str>,
    ) -> Vec<SourceSpec> {
        let host = host
            .map(|h| format!("host `{h}`"))
            .unwrap_or("the host".into());
        let Some(value) = table.get("sources") else {
            self.problem(
                header,
                format!("{host} has no `sources` (e.g. sources = [\"redfish=https://bmc\"])"),
            );
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
                Err(message) => self.problem(&item.span(), message),
            }
        }
        sources
    }

    /// `credentials`, `credentials_file`, `ca_file` and `timeouts` of one level.
    fn settings(&mut self, table: &Table<'_>) -> Settings {
        let mut settings = Settings::default();
        let credentials = table.get_key_value("credentials");
        let file = table.get("credentials_file");
        // Both are read, so the problems of each are reported too.
        let from_env = credentials.and_then(|(_, value)| self.credentials(value));
        let from_file = file
            .and_then(|value| self.path(value, "credentials_file"))
            .map(CredentialsRef::File);
        if let (Some((key, _)), Some(file)) = (credentials, file) {
            let later = if key.span().start > file.span().start {
                key.span()
            } else {
                file.span()
            };
            self.problem(
                &later,
                "give either `credentials` or `credentials_file` at one level, not both",
            );
        }
        settings.credentials = from_env.or(from_file);
        settings.ca_file = table.get("ca_file").and_then(|v| self.path(v, "ca_file"));
        if let Some(value) = table.get("timeouts") {
            settings.timeouts = self.timeouts(value);
        }
        settings
    }

    fn path(&mut self, value: &Value<'_>, key: &str) -> Option<PathBuf> {
        self.string(value, key).map(|p| self.base.join(p))
    }

    fn credentials(&mut self, value: &Value<'_>) -> Option<CredentialsRef> {
        let DeValue::Table(table) = value.get_ref() else {
            self.problem(
                &value.span(),
                "`credentials` must be { username_env = \"…\", password_env = \"…\" }",
            );
            return None;
        };
        self.check_keys(table, CREDENTIALS_KEYS, "`credentials`");
        let mut variable = |key: &str| match table.get(key) {
            None => {
                self.problem(&value.span(), format!("`credentials` without `{key}`"));
                None
            }
            Some(value) => {
                let name = self.string(value, key)?;
                if is_env_name(&name) {
                    Some(name)
                } else {
                    // Not quoted: a value that is no variable name may be the secret itself.
                    self.problem(&value.span(), not_an_env_name(key));
                    None
                }
            }
        };
        let username_env = variable("username_env");
        let password_env = variable("password_env");
        Some(CredentialsRef::Env {
            username_env: username_env?,
            password_env: password_env?,
        })
    }

    fn timeouts(&mut self, value: &Value<'_>) -> Timeouts {
        let DeValue::Table(table) = value.get_ref() else {
            self.problem(
                &value.span(),
                "`timeouts` must be { bmc_seconds = N, host_seconds = N, command_seconds = N }",
            );
            return Timeouts::default();
        };
        self.check_keys(table, TIMEOUT_KEYS, "`timeouts`");
        let mut seconds = |key: &str| {
            let value = table.get(key)?;
            let positive = value
                .get_ref()
                .as_integer()
                .and_then(|n| u64::from_str_radix(n.as_str(), n.radix()).ok())
                .filter(|n| *n > 0);
            if positive.is_none() {
                self.problem(
                    &value.span(),
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

/// Parses one `KIND=LOCATION` source of an inventory; `dir:` and `mockup:` folders are
/// relative to `base` (the inventory's folder). The error is the whole message, without the
/// secret a refused query parameter would hold.
pub(super) fn source(text: &str, base: &Path) -> Result<SourceSpec, String> {
    // SourceSpec's messages hide `user:password@`, but quote the rest of the text.
    if let Some(key) = secret_query_key(text) {
        return Err(format!("bad source: query parameter `{key}`: {NO_SECRETS}"));
    }
    SourceSpec::parse(text)
        .map(|source| relative_source(source, base))
        .map_err(|e| format!("bad source: {e}"))
}

/// `dir:` and `mockup:` folders are relative to the inventory's folder.
fn relative_source(source: SourceSpec, base: &Path) -> SourceSpec {
    let dir = |location: Location| match location {
        Location::Dir(path) => Location::Dir(base.join(path)),
        other => other,
    };
    match source {
        SourceSpec::Redfish(RedfishLocation::Mockup(path)) => {
            SourceSpec::Redfish(RedfishLocation::Mockup(base.join(path)))
        }
        SourceSpec::Redfish(live) => SourceSpec::Redfish(live),
        SourceSpec::Windows(location) => SourceSpec::Windows(dir(location)),
        SourceSpec::Linux(location) => SourceSpec::Linux(dir(location)),
        SourceSpec::Esxi(location) => SourceSpec::Esxi(dir(location)),
    }
}

/// Where a table stands, for the secret scan.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Scope {
    /// The top level.
    Document,
    /// The top-level `fleet` or `cluster` table: its keys are group names.
    Groups,
    /// Anywhere else.
    Nested,
}

/// Whether a key name says it holds a secret (`password`, `token`, `api_key`, `community`…).
pub(super) fn is_secret_key(name: &str) -> bool {
    crate::secrets::is_secret_name(name)
}

/// A query parameter of a location whose name says it holds a secret (`?password=…`).
pub(super) fn secret_query_key(location: &str) -> Option<&str> {
    let (_, query) = location.split_once('?')?;
    query
        .split('&')
        .map(|pair| pair.split_once('=').map_or(pair, |(key, _)| key))
        // `pin` is a certificate's public fingerprint, not a PIN.
        .find(|key| *key != "pin" && is_secret_key(key))
}

/// Fleet, cluster and tag names: spelled as host names, as they become folder names and
/// selection arguments, and no longer than [`file_names`] allows their kind.
pub(super) fn check_name(name: &str, kind: NameKind) -> Result<(), String> {
    match file_names::check(kind, name) {
        Ok(()) => Ok(()),
        Err(BadName::Spelling { .. }) => Err(format!(
            "{name:?}: use letters, digits, `.`, `_` and `-`, starting with a letter or digit"
        )),
        Err(BadName::TooLong(too_long)) => Err(too_long.to_string()),
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

/// What a credentials key that does not hold a variable name is told. The value is never
/// quoted: a value that is no variable name may be the secret itself.
pub(super) fn not_an_env_name(key: &str) -> String {
    format!(
        "`{key}` must name an environment variable (letters, digits and `_`, not starting with a digit), not hold the value"
    )
}

pub(super) fn is_env_name(name: &str) -> bool {
    name.chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}
