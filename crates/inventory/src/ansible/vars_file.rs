//! Parsing the `group_vars/` and `host_vars/` files found beside an Ansible inventory: each a
//! YAML (or JSON, which YAML reads) mapping of variables, kept as one layer of its group's or
//! host's variables. As in Ansible, a file with nothing in it (empty, only comments, `{}`, `~`)
//! sets nothing and anything else that is no mapping is refused; a file that cannot be read
//! or parsed is a problem naming it and the line. A file encrypted whole with Ansible Vault
//! is skipped unread: driftgate reads no secrets.

use yaml_serde::Value;

use super::precedence::FileVars;
use super::vars_dirs::{VarsFile, VarsFiles};
use super::yaml::{key_line, not_yaml};
use super::{At, Reader, SourceFile, Var, is_read};
use crate::problems::last_line;

/// How a file encrypted whole by `ansible-vault` starts.
const VAULT_HEADER: &str = "$ANSIBLE_VAULT;";

impl Reader<'_> {
    /// The variables of every file of `files`, each a problem when it cannot be read.
    pub(super) fn vars_files(&mut self, files: VarsFiles) -> FileVars {
        for folder in &files.folders {
            self.vars_file(folder, "");
        }
        let mut vars = FileVars::default();
        for (name, of_name) in &files.groups {
            let owner = format!("group `{name}`");
            let layers = of_name.iter().map(|f| self.vars_file(f, &owner)).collect();
            vars.groups.insert(name.clone(), layers);
        }
        for (name, of_name) in &files.hosts {
            let owner = format!("host `{name}`");
            let layers = of_name.iter().map(|f| self.vars_file(f, &owner)).collect();
            vars.hosts.insert(name.clone(), layers);
        }
        vars
    }

    /// The variables driftgate reads of one vars file of `owner` (`group `x``).
    fn vars_file(&mut self, file: &VarsFile, owner: &str) -> Vec<Var> {
        let id = self.files.len();
        let text = file.text.as_deref().unwrap_or_default();
        self.files.push(SourceFile {
            name: file.path.display().to_string().into(),
            last_line: last_line(text),
        });
        let whole = At { file: id, line: 0 };
        let text = match &file.text {
            Ok(text) => text,
            Err(reason) => {
                self.problem_at(whole, format!("cannot read: {reason}"));
                return Vec::new();
            }
        };
        if text.trim_start().starts_with(VAULT_HEADER) {
            return Vec::new();
        }
        let value = match yaml_serde::from_str::<Value>(text) {
            Ok(value) => value,
            Err(e) => {
                let (line, message) = not_yaml(&e);
                self.problem_at(At { file: id, line }, message);
                return Vec::new();
            }
        };
        let mapping = match value {
            Value::Mapping(mapping) => mapping,
            // Ansible skips what Python counts false: nothing, `[]`, `""`, `false`, `0`.
            value if is_falsy(&value) => return Vec::new(),
            other => {
                self.problem_at(
                    At { file: id, line: 1 },
                    format!(
                        "{owner}: a vars file is a mapping of variables, not {}",
                        super::host::type_str(&other)
                    ),
                );
                return Vec::new();
            }
        };
        let vars: Vec<Var> = mapping
            .into_iter()
            .filter_map(|(key, value)| {
                let key = key.as_str()?.to_owned();
                // Only driftgate's variables are kept: `ansible_password`, vault blobs… are not.
                if !is_read(&key) {
                    return None;
                }
                let line = key_line(text, &key, 1);
                Some(Var {
                    key,
                    value,
                    at: At { file: id, line },
                })
            })
            .collect();
        self.check_vars(&vars, owner);
        vars
    }
}

fn is_falsy(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::Bool(b) => !b,
        Value::Number(n) => n.as_f64() == Some(0.0),
        Value::String(s) => s.is_empty(),
        Value::Sequence(items) => items.is_empty(),
        Value::Mapping(map) => map.is_empty(),
        Value::Tagged(_) => false,
    }
}
