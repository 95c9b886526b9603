//! The inventory: which hosts exist, their fleet, cluster and tags, where each is read from,
//! and references to (never copies of) their credentials. `inventory.toml` at the baseline
//! store's root, or a file given with `--inventory` / `DRIFTGATE_INVENTORY`.
//! An Ansible inventory (YAML or INI, by extension) is read too: see `ansible.rs`.
//!
//! Every problem of a file is reported at once, each at its 1-based line: an inventory is
//! written by hand and fixed in one pass, not one error per run. Resolution of the settings a
//! host inherits: host > `[cluster.X]` > `[fleet.X]` > `[defaults]`.
//! Source locations and credential references are parsed as [`driftgate_collect`] reads them,
//! so an inventory that loads is one the capture can use; host names are
//! [`driftgate_snapshot`]'s.

mod ansible;
mod checks;
mod options;
mod parse;
pub mod pin;
#[cfg(test)]
mod tests;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

pub use options::HostOptionsError;

use driftgate_collect::SourceSpec;
use driftgate_http::{
    AccountValue, AccountValueError, Credentials, CredentialsError, Found, account_value,
};
use driftgate_snapshot::HostName;

/// The inventory's file name at the root of a baseline store.
pub const FILE_NAME: &str = "inventory.toml";

/// A read and validated inventory.
#[derive(Debug, Clone)]
pub struct Inventory {
    /// The file it was read from.
    pub file: PathBuf,
    /// Every host, in file order; a run's plan shares them rather than copying each.
    pub hosts: Vec<Arc<InventoryHost>>,
}

/// One `[[host]]`, with the `[defaults]` (and group settings) it inherits applied.
#[derive(Debug, Clone)]
pub struct InventoryHost {
    /// Host name; also its baseline's file name.
    pub name: HostName,
    /// Fleet: the baseline folder `baselines/<fleet>/`.
    pub fleet: String,
    /// Cluster whose nodes must agree, if any.
    pub cluster: Option<String>,
    /// Free-form tags for selection.
    pub tags: Vec<String>,
    /// Where the host is read from.
    pub sources: Vec<SourceSpec>,
    /// How to find the BMC account, if the BMC needs one.
    pub credentials: Option<CredentialsRef>,
    /// PEM bundle of the CAs that sign this host's BMC certificate.
    pub ca_file: Option<PathBuf>,
    /// Time limits that differ from the defaults.
    pub timeouts: Timeouts,
    /// Line of its `[[host]]` header, for messages.
    pub line: usize,
    /// Where each variable of an Ansible host was set, by name (`-v` tells it); empty for
    /// `inventory.toml`, whose levels are fixed.
    pub origins: Vec<Origin>,
}

/// Where a variable of an Ansible host was set last: the inventory, a `group_vars/` or a
/// `host_vars/` file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origin {
    /// The variable (`driftgate_fleet`).
    pub variable: String,
    /// The file (shared by every variable it sets).
    pub file: Arc<str>,
    /// Its 1-based line.
    pub line: usize,
}

/// Where a host's BMC account is: never the secret itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CredentialsRef {
    /// Two environment variables of the process that runs driftgate. Shared: the hosts that
    /// inherit one reference hold the same names, not a copy each.
    Env {
        /// Holds the user name.
        username_env: Arc<str>,
        /// Holds the password.
        password_env: Arc<str>,
    },
    /// A TOML file with `username` and `password`, refused when group- or world-readable.
    File(PathBuf),
}

/// Why a [`CredentialsRef`] gave no account. Names the variable or file, never a value.
#[derive(Debug, thiserror::Error)]
pub enum CredentialsRefError {
    /// Neither the variable nor a systemd credential of its name is there.
    #[error(
        "environment variable {0} is not set, nor a credential of that name in $CREDENTIALS_DIRECTORY (the inventory names it for the BMC account)"
    )]
    Unset(String),
    /// The variable (or credential) is there but empty: what names it, as
    /// [`AccountValue::named`] says.
    #[error("{0} is empty (the inventory names it for the BMC account)")]
    Empty(String),
    /// The variable or credential cannot be read.
    #[error(transparent)]
    Value(#[from] AccountValueError),
    /// The credentials file was refused.
    #[error(transparent)]
    File(#[from] CredentialsError),
}

impl CredentialsRef {
    /// Reads the account the reference points at: each variable from the environment or, when
    /// not set there, from the systemd credential of its name (`LoadCredential=`); both must be
    /// non-empty. A file goes through [`Credentials::from_file`] (refused when others can read
    /// it).
    pub fn resolve(&self) -> Result<Credentials, CredentialsRefError> {
        match self {
            CredentialsRef::Env {
                username_env,
                password_env,
            } => {
                let username = named_value(username_env)?;
                let password = named_value(password_env)?;
                let origin = if (username.found, password.found)
                    == (Found::Environment, Found::Environment)
                {
                    format!("the environment variables {username_env} and {password_env}")
                } else {
                    format!(
                        "{} and {}",
                        username.named(username_env),
                        password.named(password_env)
                    )
                };
                Ok(Credentials {
                    username: username.value,
                    password: password.value,
                    origin: format!("{origin} (the host's `credentials` in the inventory)"),
                })
            }
            CredentialsRef::File(path) => Ok(Credentials::from_file(path)?),
        }
    }

    /// The environment variables the reference reads (none for a file): the caller withholds
    /// them from child processes (`ProcessOptions::withheld_env`).
    pub fn env_names(&self) -> Vec<&str> {
        match self {
            CredentialsRef::Env {
                username_env,
                password_env,
            } => vec![username_env, password_env],
            CredentialsRef::File(_) => Vec::new(),
        }
    }
}

fn named_value(name: &str) -> Result<AccountValue, CredentialsRefError> {
    match account_value(name)? {
        Some(value) if value.value.is_empty() => Err(CredentialsRefError::Empty(value.named(name))),
        Some(value) => Ok(value),
        None => Err(CredentialsRefError::Unset(name.to_owned())),
    }
}

/// The syntax of an inventory file, by its extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// driftgate's own `inventory.toml` (any extension not listed below).
    Toml,
    /// An Ansible YAML inventory (`.yml`, `.yaml`).
    AnsibleYaml,
    /// An Ansible INI inventory (`.ini`, `.cfg`, or no extension, as Ansible's `hosts`).
    AnsibleIni,
}

impl Format {
    /// The format of the inventory at `file`.
    pub fn of(file: &Path) -> Format {
        match file.extension().and_then(|e| e.to_str()) {
            Some("yml" | "yaml") => Format::AnsibleYaml,
            Some("ini" | "cfg") | None => Format::AnsibleIni,
            _ => Format::Toml,
        }
    }
}

/// Per-host time limits; `None` keeps the command line's (or built-in) value.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Timeouts {
    /// One BMC request.
    pub bmc: Option<Duration>,
    /// The whole capture of the host.
    pub host: Option<Duration>,
    /// One command of a command-based source.
    pub command: Option<Duration>,
}

/// Which hosts `--fleet`, `--cluster` and `--tag` select (all of them when empty).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Selection {
    /// Only this fleet.
    pub fleet: Option<String>,
    /// Only this cluster.
    pub cluster: Option<String>,
    /// Only hosts with this tag.
    pub tag: Option<String>,
}

/// One thing wrong with an inventory, at its line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// The inventory file.
    pub file: String,
    /// 1-based line; 0 when the problem is the whole file (it cannot be read).
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

/// Every problem found in an inventory (never only the first).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", render_problems(.problems))]
pub struct InventoryErrors {
    /// The problems, in file order.
    pub problems: Vec<Problem>,
}

impl InventoryErrors {
    /// `Ok` when nothing is wrong, else every problem once, file by file (an Ansible
    /// inventory's vars files after it), in line order.
    fn refuse(mut problems: Vec<Problem>) -> Result<(), InventoryErrors> {
        if problems.is_empty() {
            return Ok(());
        }
        let mut files: Vec<String> = Vec::new();
        for problem in &problems {
            if !files.contains(&problem.file) {
                files.push(problem.file.clone());
            }
        }
        problems.sort_by_key(|p| (files.iter().position(|f| *f == p.file), p.line));
        problems.dedup();
        Err(InventoryErrors { problems })
    }
}

impl Problem {
    /// A problem at 1-based `line` of `file`, whose last line is `last_line`. A parser that
    /// runs off the end of the text (an unclosed string, array or table) names the line after
    /// the last one, which no editor shows: that is told as the end of the file, at its last
    /// line.
    fn at(file: &str, line: usize, last_line: usize, message: impl Into<String>) -> Problem {
        let message = message.into();
        let (line, message) = if line > last_line {
            (last_line, format!("{message} (at the end of the file)"))
        } else {
            (line, message)
        };
        Problem {
            file: file.to_owned(),
            line,
            message,
        }
    }
}

/// The number of the last line of `text` (1 for an empty text): a final line ending starts
/// no line.
fn last_line(text: &str) -> usize {
    text.lines().count().max(1)
}

fn render_problems(problems: &[Problem]) -> String {
    let lines: Vec<String> = problems.iter().map(|p| p.to_string()).collect();
    lines.join("\n")
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.line {
            0 => write!(f, "{}: {}", self.file, self.message),
            line => write!(f, "{}:{line}: {}", self.file, self.message),
        }
    }
}

impl Inventory {
    /// Parses and validates inventory `text` read from `file`; relative paths in it
    /// (`credentials_file`, `ca_file`, `dir:` and `mockup:` source locations) are relative to
    /// the file's folder.
    pub fn parse(text: &str, file: &Path) -> Result<Inventory, InventoryErrors> {
        parse::parse(text, file)
    }

    /// Reads and parses the inventory at `file`, by its extension: `.toml` is driftgate's
    /// own format, `.yml`/`.yaml` an Ansible YAML inventory, and `.ini`, `.cfg` or none
    /// (Ansible's `hosts`) an Ansible INI inventory, read with the `group_vars/` and
    /// `host_vars/` beside it.
    pub fn load(file: &Path) -> Result<Inventory, InventoryErrors> {
        let text = std::fs::read_to_string(file).map_err(|e| InventoryErrors {
            problems: vec![Problem {
                file: file.display().to_string(),
                line: 0,
                message: format!("cannot read: {e}"),
            }],
        })?;
        match Format::of(file) {
            Format::AnsibleYaml => ansible::load(&text, file, ansible::Format::Yaml),
            Format::AnsibleIni => ansible::load(&text, file, ansible::Format::Ini),
            Format::Toml => Self::parse(&text, file),
        }
    }

    /// The host called `name`.
    pub fn host(&self, name: &str) -> Option<&InventoryHost> {
        self.hosts
            .iter()
            .find(|h| h.name.as_str() == name)
            .map(|h| &**h)
    }

    /// The hosts `selection` selects, in file order.
    pub fn select(&self, selection: &Selection) -> Vec<&Arc<InventoryHost>> {
        self.hosts
            .iter()
            .filter(|h| selection.fleet.as_ref().is_none_or(|f| *f == h.fleet))
            .filter(|h| {
                selection
                    .cluster
                    .as_ref()
                    .is_none_or(|c| h.cluster.as_ref() == Some(c))
            })
            .filter(|h| selection.tag.as_ref().is_none_or(|t| h.tags.contains(t)))
            .collect()
    }
}
