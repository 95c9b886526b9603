//! Reading an inventory file in any of its formats.

use std::path::Path;

use crate::inventory::{Format, Inventory};
use crate::problems::{InventoryErrors, Problem};
use crate::{ansible, parse};

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
}
