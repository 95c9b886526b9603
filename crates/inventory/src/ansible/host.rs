//! One host of an Ansible inventory: its variables merged by Ansible's precedence, then read
//! into an [`InventoryHost`]; every problem names the host.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::time::Duration;

use yaml_serde::{Mapping, Value};

use super::precedence::HostVars;
use super::{At, Host, Reader, Var};
use crate::checks::{
    CREDENTIALS_KEYS, NO_SECRETS, TIMEOUT_KEYS, check_name, is_env_name, is_secret_key,
    not_an_env_name, source,
};
use crate::{CredentialsRef, InventoryHost, Origin, Timeouts};
use driftgate_collect::SourceSpec;
use driftgate_snapshot::HostName;
use driftgate_snapshot::file_names::NameKind;

/// Groups that are no tag.
const IMPLICIT_GROUPS: &[&str] = &["all", "ungrouped"];

impl Reader<'_> {
    /// `host`, in `groups` (all it belongs to), with its variables `vars` (see
    /// `precedence.rs`); `None` when a problem leaves no host (each is recorded).
    pub(super) fn resolve(
        &mut self,
        host: &Host,
        groups: &BTreeSet<String>,
        vars: &HostVars,
    ) -> Option<InventoryHost> {
        let at = At::inventory(host.line);
        let mut r = HostResolver {
            reader: self,
            host: &host.name,
            at,
            vars,
        };
        let name = match HostName::new(&host.name) {
            Ok(name) => Some(name),
            Err(e) => {
                r.problem(at, e.to_string());
                None
            }
        };
        let fleet = r.name_var("driftgate_fleet", NameKind::Fleet);
        if !vars.contains_key("driftgate_fleet") {
            r.problem(
                at,
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
                    let message = format!("group `{group}` as a tag: {message}");
                    r.problem(At::inventory(line), message);
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
            origins: self.origins(vars),
        })
    }
}

impl Reader<'_> {
    /// Where each of `vars` was set; of the two credentials variables, the one used.
    fn origins(&self, vars: &HostVars) -> Vec<Origin> {
        let rank = |key: &str| vars.get(key).map(|(_, rank)| *rank);
        let unused = match (
            rank("driftgate_credentials"),
            rank("driftgate_credentials_file"),
        ) {
            (Some(env), Some(file)) if file > env => Some("driftgate_credentials"),
            (Some(_), Some(_)) => Some("driftgate_credentials_file"),
            _ => None,
        };
        vars.values()
            .filter(|(var, _)| Some(var.key.as_str()) != unused)
            .map(|(var, _)| Origin {
                variable: var.key.clone(),
                file: self.files[var.at.file].name.clone(),
                line: var.at.line,
            })
            .collect()
    }
}

/// Reads one host's resolved variables; every problem names the host.
struct HostResolver<'a, 't> {
    reader: &'a mut Reader<'t>,
    host: &'a str,
    /// The host's line in the inventory.
    at: At,
    vars: &'a HostVars,
}

impl HostResolver<'_, '_> {
    fn problem(&mut self, at: At, message: impl AsRef<str>) {
        let message = format!("host `{}`: {}", self.host, message.as_ref());
        self.reader.problem_at(at, message);
    }

    /// Where `key` is set, else the host's line.
    fn line_of(&self, key: &str) -> At {
        self.vars.get(key).map_or(self.at, |(v, _)| v.at)
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
                self.problem(var.at, format!("`{key}` is empty"));
                None
            }
            other => {
                self.problem(
                    var.at,
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
                            var.at,
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
                    var.at,
                    format!("`{key}` must be a list of strings, not {}", type_str(other)),
                );
                Vec::new()
            }
        }
    }

    fn sources(&mut self) -> Vec<SourceSpec> {
        let mut texts: Vec<(String, At)> = Vec::new();
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
                self.at,
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
                Err(error) => self.problem(line, error.to_string()),
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
        let port = match self.get("ansible_port").map(|v| (v.value.clone(), v.at)) {
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
                var.at,
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
                var.at,
                "`driftgate_credentials` must be {username_env: …, password_env: …}",
            );
            return None;
        };
        self.check_keys(mapping, CREDENTIALS_KEYS, "driftgate_credentials", var.at);
        let mut variable = |key: &str| match mapping.get(key) {
            Some(Value::String(name)) if is_env_name(name) => Some(name.clone()),
            None => {
                self.problem(var.at, format!("`driftgate_credentials` without `{key}`"));
                None
            }
            Some(_) => {
                // Not quoted: a value that is no variable name may be the secret itself.
                self.problem(var.at, not_an_env_name(key));
                None
            }
        };
        let username_env = variable("username_env");
        let password_env = variable("password_env");
        Some(CredentialsRef::Env {
            username_env: username_env?.into(),
            password_env: password_env?.into(),
        })
    }

    fn check_keys(&mut self, mapping: &Mapping, known: &[&str], place: &str, line: At) {
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
                var.at,
                "`driftgate_timeouts` must be {bmc_seconds: N, host_seconds: N, command_seconds: N}",
            );
            return Timeouts::default();
        };
        self.check_keys(mapping, TIMEOUT_KEYS, "driftgate_timeouts", var.at);
        let mut seconds = |key: &str| {
            let value = mapping.get(key)?;
            let positive = whole_number(value).filter(|n| *n > 0);
            if positive.is_none() {
                self.problem(
                    var.at,
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

pub(super) fn type_str(value: &Value) -> &'static str {
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
