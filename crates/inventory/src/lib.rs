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
mod credentials;
mod inventory;
mod load;
mod options;
mod parse;
pub mod pin;
mod problems;
#[cfg(test)]
mod tests;

pub use credentials::{CredentialsRef, CredentialsRefError};
pub use inventory::{Format, Inventory, InventoryHost, Origin, Selection, Timeouts};
pub use options::HostOptionsError;
pub use problems::{InventoryErrors, Problem};

/// The inventory's file name at the root of a baseline store.
pub const FILE_NAME: &str = "inventory.toml";
