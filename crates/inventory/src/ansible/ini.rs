//! The INI form of an Ansible inventory (`hosts`, `hosts.ini`): `[group]` host lines with
//! `key=value` variables, `[group:vars]` and `[group:children]` sections.

use std::collections::BTreeSet;

use yaml_serde::Value;

use super::range::expand_range;
use super::{At, Reader, Var, is_read};
use crate::checks::check_name;
use driftgate_snapshot::file_names::NameKind;

impl Reader<'_> {
    /// Reads the whole text, section by section; a group no other lists is a child of `all`.
    pub(super) fn ini_document(&mut self) {
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
                        if !is_read(key) {
                            continue;
                        }
                        match ini_value(value.trim()) {
                            Ok(value) => {
                                let var = Var {
                                    key: key.to_owned(),
                                    value,
                                    at: At::inventory(line),
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
                    // Only driftgate's variables are read: `ansible_password`… are not.
                    if !is_read(key) {
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
                        at: At::inventory(line),
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
}

/// An INI value that starts as a list or mapping and is not one; the value is not quoted,
/// as it may be a secret.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("not a valid list or mapping (write it as [\"a\", \"b\"] or {{key: value}})")]
struct NotAListOrMapping;

/// An INI value: a `[…]` / `{…}` literal (read as YAML flow, quoted or not), quoted text,
/// or bare text.
fn ini_value(text: &str) -> Result<Value, NotAListOrMapping> {
    let inner = text
        .strip_prefix('"')
        .and_then(|t| t.strip_suffix('"'))
        .or_else(|| text.strip_prefix('\'').and_then(|t| t.strip_suffix('\'')))
        .unwrap_or(text);
    if inner.starts_with('[') || inner.starts_with('{') {
        return yaml_serde::from_str::<Value>(inner).map_err(|_| NotAListOrMapping);
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
