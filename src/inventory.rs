//! The inventory: which hosts exist, their fleet, cluster and tags, where each is read from,
//! and references to (never copies of) their credentials. `inventory.toml` at the baseline
//! store's root, or a file given with `--inventory` / `DRIFTGATE_INVENTORY`.
//! Imports: [`crate::collect`] (source locations, credentials), [`crate::snapshot`].

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::collect::SourceSpec;
use crate::snapshot::HostName;

/// The inventory's file name at the root of a baseline store.
pub const FILE_NAME: &str = "inventory.toml";

/// A read and validated inventory.
#[derive(Debug, Clone)]
pub struct Inventory {
    /// The file it was read from.
    pub file: PathBuf,
    /// Every host, in file order.
    pub hosts: Vec<InventoryHost>,
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
}

/// Where a host's BMC account is: never the secret itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CredentialsRef {
    /// Two environment variables of the process that runs driftgate.
    Env {
        /// Holds the user name.
        username_env: String,
        /// Holds the password.
        password_env: String,
    },
    /// A TOML file with `username` and `password`, refused when group- or world-readable.
    File(PathBuf),
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
    /// 1-based line.
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

fn render_problems(problems: &[Problem]) -> String {
    let lines: Vec<String> = problems
        .iter()
        .map(|p| format!("{}:{}: {}", p.file, p.line, p.message))
        .collect();
    lines.join("\n")
}

impl Inventory {
    /// Parses and validates inventory `text` read from `file`; relative paths in it
    /// (`credentials_file`, `ca_file`, `dir:` and `mockup:` source locations) are relative to
    /// the file's folder.
    pub fn parse(text: &str, file: &Path) -> Result<Inventory, InventoryErrors> {
        // A minimal reading (no line numbers, no validation) until the inventory's own
        // parser lands.
        #[derive(serde::Deserialize)]
        struct Doc {
            #[serde(default)]
            defaults: Option<toml::Table>,
            #[serde(default)]
            host: Vec<HostDoc>,
        }
        #[derive(serde::Deserialize)]
        struct HostDoc {
            name: String,
            fleet: Option<String>,
            cluster: Option<String>,
            #[serde(default)]
            tags: Vec<String>,
            sources: Vec<String>,
        }
        let problem = |message: String| InventoryErrors {
            problems: vec![Problem {
                file: file.display().to_string(),
                line: 0,
                message,
            }],
        };
        let doc: Doc = toml::from_str(text).map_err(|e| problem(e.to_string()))?;
        let default_fleet = doc
            .defaults
            .as_ref()
            .and_then(|d| d.get("fleet"))
            .and_then(|f| f.as_str())
            .map(str::to_owned);
        let base = file.parent().unwrap_or(Path::new("."));
        let mut hosts = Vec::new();
        for h in doc.host {
            let sources = h
                .sources
                .iter()
                .map(|s| {
                    let joined = match s.split_once(':') {
                        Some((head, rest))
                            if (head.ends_with("=dir") || head.ends_with("=mockup"))
                                && !rest.starts_with('/') =>
                        {
                            format!("{head}:{}", base.join(rest).display())
                        }
                        _ => s.clone(),
                    };
                    SourceSpec::parse(&joined).map_err(|e| problem(e.to_string()))
                })
                .collect::<Result<Vec<_>, _>>()?;
            hosts.push(InventoryHost {
                name: HostName::new(h.name).map_err(|e| problem(e.to_string()))?,
                fleet: h
                    .fleet
                    .or_else(|| default_fleet.clone())
                    .ok_or_else(|| problem("a host without fleet".to_owned()))?,
                cluster: h.cluster,
                tags: h.tags,
                sources,
                credentials: None,
                ca_file: None,
                timeouts: Timeouts::default(),
                line: 0,
            });
        }
        Ok(Inventory {
            file: file.to_owned(),
            hosts,
        })
    }

    /// Reads and parses the inventory at `file`.
    pub fn load(file: &Path) -> Result<Inventory, InventoryErrors> {
        let text = std::fs::read_to_string(file).map_err(|e| InventoryErrors {
            problems: vec![Problem {
                file: file.display().to_string(),
                line: 0,
                message: format!("cannot read: {e}"),
            }],
        })?;
        Self::parse(&text, file)
    }

    /// The host called `name`.
    pub fn host(&self, name: &str) -> Option<&InventoryHost> {
        self.hosts.iter().find(|h| h.name.as_str() == name)
    }

    /// The hosts `selection` selects, in file order.
    pub fn select(&self, selection: &Selection) -> Vec<&InventoryHost> {
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
