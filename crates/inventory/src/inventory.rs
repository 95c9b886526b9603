//! An inventory and its hosts, as read and validated.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use driftgate_collect::SourceSpec;
use driftgate_snapshot::HostName;

use crate::credentials::CredentialsRef;

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

impl Inventory {
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
