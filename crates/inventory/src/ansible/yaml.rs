//! The YAML form of an Ansible inventory (`hosts.yml`): `all:` and its groups, each with
//! `hosts`, `children` and `vars`. YAML keeps no spans, so a key's line is found in the text.

use yaml_serde::{Mapping, Value};

use super::range::expand_range;
use super::{At, Reader, Var, is_read};

impl Reader<'_> {
    /// Reads the whole text; text that is not YAML is one problem, at its line.
    pub(super) fn yaml_text(&mut self) {
        match yaml_serde::from_str::<Value>(self.text) {
            Ok(document) => self.yaml_document(&document),
            Err(e) => {
                let (line, message) = not_yaml(&e);
                self.problem(line, message);
            }
        }
    }

    /// The 1-based line of the first `key:` at or after line `from` of the inventory.
    fn yaml_line(&self, key: &str, from: usize) -> usize {
        key_line(self.text, key, from)
    }

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
                if !is_read(&key) {
                    return None;
                }
                let line = self.yaml_line(&key, line);
                Some(Var {
                    key,
                    value: value.clone(),
                    at: At::inventory(line),
                })
            })
            .collect()
    }
}

/// The 1-based line of the first `key:` at or after line `from` of `text` (YAML keeps no
/// spans); `from` when there is none.
pub(super) fn key_line(text: &str, key: &str, from: usize) -> usize {
    let quoted = [
        format!("{key}:"),
        format!("\"{key}\":"),
        format!("'{key}':"),
    ];
    text.lines()
        .enumerate()
        .skip(from.saturating_sub(1))
        .find(|(_, line)| {
            let line = line.trim_start().trim_start_matches("- ");
            quoted.iter().any(|q| line.starts_with(q.as_str()))
        })
        .map_or(from.max(1), |(i, _)| i + 1)
}

/// The line of a YAML parser's error, and what to tell: the kind of error only, as its
/// message may quote the text, which may hold a secret.
pub(super) fn not_yaml(error: &yaml_serde::Error) -> (usize, String) {
    let line = error.location().map_or(1, |l| l.line());
    let message = error.to_string();
    let message = message.split(" at line ").next().unwrap_or(&message);
    (line, format!("not YAML: {message}"))
}
