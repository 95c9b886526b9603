//! A host's capture settings: the caller's, with what the host's inventory entry says instead
//! (its CA file, time limits and BMC account). The gate and the fleet check both start every
//! capture here.

use driftgate_collect::CaptureOptions;

use super::{CredentialsRefError, Inventory, InventoryHost};

/// Why a host's inventory entry gives no capture settings. Names the host, the inventory and
/// the file or variable, never a value.
#[derive(Debug, thiserror::Error)]
pub enum HostOptionsError {
    /// A CA file named by the inventory cannot be read.
    #[error("{inventory}:{line}: host {host}: ca_file {file}: {error}")]
    CaFile {
        /// The host.
        host: String,
        /// The inventory.
        inventory: String,
        /// The line of the host's entry.
        line: usize,
        /// The CA file.
        file: String,
        /// Why.
        error: std::io::Error,
    },
    /// A host's BMC account cannot be read.
    #[error("{inventory}:{line}: host {host}: {error}")]
    Credentials {
        /// The host.
        host: String,
        /// The inventory.
        inventory: String,
        /// The line of the host's entry.
        line: usize,
        /// Why (names the variable or file, never a value).
        error: CredentialsRefError,
    },
}

impl Inventory {
    /// The capture settings of `host`: `base`, with its entry's CA file, time limits and BMC
    /// account instead. No child process (ssh, a local tool) of any host sees a variable the
    /// inventory names for an account.
    pub fn capture_options(
        &self,
        host: &InventoryHost,
        base: &CaptureOptions,
    ) -> Result<CaptureOptions, HostOptionsError> {
        self.host_capture_options(host, &self.withholding_env(base))
    }

    /// `base` with every variable the inventory names for an account withheld from child
    /// processes: computed once per inventory (a fleet run), not once per host.
    pub fn withholding_env(&self, base: &CaptureOptions) -> CaptureOptions {
        let mut options = base.clone();
        let mut withheld: std::collections::BTreeSet<String> =
            options.process.withheld_env.iter().cloned().collect();
        for name in self
            .hosts
            .iter()
            .filter_map(|h| h.credentials.as_ref())
            .flat_map(|c| c.env_names())
        {
            if withheld.insert(name.to_owned()) {
                options.process.withheld_env.push(name.to_owned());
            }
        }
        options
    }

    /// [`Inventory::capture_options`] of `host` from a `base` that already went through
    /// [`Inventory::withholding_env`].
    pub fn host_capture_options(
        &self,
        host: &InventoryHost,
        base: &CaptureOptions,
    ) -> Result<CaptureOptions, HostOptionsError> {
        let mut options = base.clone();
        if let Some(timeout) = host.timeouts.bmc {
            options.redfish.client.timeout = timeout;
        }
        if let Some(timeout) = host.timeouts.host {
            options.redfish.client.host_timeout = timeout;
        }
        if let Some(timeout) = host.timeouts.command {
            options.process.timeout = timeout;
        }
        if let Some(file) = &host.ca_file {
            let pem = std::fs::read(file).map_err(|error| HostOptionsError::CaFile {
                host: host.name.to_string(),
                inventory: self.file.display().to_string(),
                line: host.line,
                file: file.display().to_string(),
                error,
            })?;
            options.redfish.ca_cert = Some(pem);
        }
        if let Some(credentials) = &host.credentials {
            let account = credentials
                .resolve()
                .map_err(|error| HostOptionsError::Credentials {
                    host: host.name.to_string(),
                    inventory: self.file.display().to_string(),
                    line: host.line,
                    error,
                })?;
            options.redfish.credentials = Some(account);
        }
        Ok(options)
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn a_hosts_inventory_entry_gives_its_account_ca_and_limits_and_no_child_sees_the_variables() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("ca.pem"), "PEM").unwrap();
        // Variables every test process has, standing in for the account's.
        let text = r#"
[defaults]
fleet = "azure-local"
credentials = { username_env = "HOME", password_env = "PATH" }

[[host]]
name = "azl-node01"
sources = ["redfish=https://bmc-azl-node01"]
ca_file = "ca.pem"
timeouts = { bmc_seconds = 7, host_seconds = 70, command_seconds = 9 }
"#;
        let inventory = Inventory::parse(text, &dir.path().join("inventory.toml")).unwrap();
        let host = &inventory.hosts[0];
        let options = inventory
            .capture_options(host, &CaptureOptions::default())
            .unwrap();
        let account = options.redfish.credentials.expect("an account");
        assert_eq!(account.username, std::env::var("HOME").unwrap());
        assert_eq!(options.redfish.ca_cert.as_deref(), Some(&b"PEM"[..]));
        assert_eq!(options.redfish.client.timeout, Duration::from_secs(7));
        assert_eq!(options.redfish.client.host_timeout, Duration::from_secs(70));
        assert_eq!(options.process.timeout, Duration::from_secs(9));
        assert_eq!(options.process.withheld_env, ["HOME", "PATH"]);
    }

    #[test]
    fn an_unreadable_ca_file_names_the_host_inventory_and_file() {
        let dir = tempfile::tempdir().unwrap();
        let text = "[[host]]\nname = \"h1\"\nfleet = \"f\"\nsources = [\"redfish=https://bmc\"]\nca_file = \"missing.pem\"\n";
        let inventory = Inventory::parse(text, &dir.path().join("inventory.toml")).unwrap();
        let error = inventory
            .capture_options(&inventory.hosts[0], &CaptureOptions::default())
            .unwrap_err()
            .to_string();
        assert!(error.contains("host h1: ca_file"), "{error}");
        assert!(error.contains("missing.pem"), "{error}");
        assert!(error.contains("inventory.toml"), "{error}");
    }
}
