//! The settings every level of `inventory.toml` may give (`[defaults]`, `[fleet.X]`,
//! `[cluster.X]`, `[[host]]`): the BMC account's reference, the CA file, time limits and the
//! vCenter that reads the group's ESXi hosts.

use std::path::PathBuf;
use std::time::Duration;

use toml::de::DeValue;

use super::{Reader, Table, Value};
use crate::checks::{CREDENTIALS_KEYS, TIMEOUT_KEYS, is_env_name, not_an_env_name};
use crate::{CredentialsRef, Timeouts};
use driftgate_collect::vcenter::VcenterLocation;

/// Settings one level gives; `None` inherits from the level above.
#[derive(Debug, Clone, Default)]
pub(super) struct Settings {
    pub(super) credentials: Option<CredentialsRef>,
    pub(super) ca_file: Option<PathBuf>,
    pub(super) timeouts: Timeouts,
    /// `vcenter = "vcenter://[user@]VC[:PORT][?pin=…]"`: a host with no `esxi` source is read
    /// through it, as the host of its own name.
    pub(super) vcenter: Option<VcenterLocation>,
}

impl Settings {
    /// `self` where it says something, else `fallback`.
    pub(super) fn over(&self, fallback: &Settings) -> Settings {
        Settings {
            credentials: self
                .credentials
                .clone()
                .or_else(|| fallback.credentials.clone()),
            ca_file: self.ca_file.clone().or_else(|| fallback.ca_file.clone()),
            vcenter: self.vcenter.clone().or_else(|| fallback.vcenter.clone()),
            timeouts: Timeouts {
                bmc: self.timeouts.bmc.or(fallback.timeouts.bmc),
                host: self.timeouts.host.or(fallback.timeouts.host),
                command: self.timeouts.command.or(fallback.timeouts.command),
            },
        }
    }
}

impl Reader {
    /// `credentials`, `credentials_file`, `ca_file` and `timeouts` of one level.
    pub(super) fn settings(&mut self, table: &Table<'_>) -> Settings {
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
        if let Some(value) = table.get("vcenter")
            && let Some(text) = self.string(value, "vcenter")
        {
            match VcenterLocation::parse_group(&text) {
                Ok(vcenter) => settings.vcenter = Some(vcenter),
                Err(e) => self.problem(&value.span(), e.to_string()),
            }
        }
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
            username_env: username_env?.into(),
            password_env: password_env?.into(),
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
