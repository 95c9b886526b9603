//! Where every command that reads the inventory finds it: `--inventory FILE`, else the
//! store's `inventory.toml`.

use std::path::PathBuf;

use anyhow::{Context as _, bail};
use driftgate_inventory::Inventory;
use driftgate_store::Store;

use super::common::Context;

/// `--inventory FILE`, shared by every command that reads the inventory.
#[derive(Debug, Clone, clap::Args)]
pub(crate) struct InventoryArg {
    /// Inventory file (default: inventory.toml at the root of the baseline store); `.yml`/`.yaml`
    /// is read as an Ansible YAML inventory, `.ini`, `.cfg` or no extension as Ansible INI.
    #[arg(long, value_name = "FILE", env = "DRIFTGATE_INVENTORY")]
    pub inventory: Option<PathBuf>,
}

/// Reads the inventory: `--inventory` / `DRIFTGATE_INVENTORY`, else `inventory.toml` at the
/// root of the store (`--repo`, `DRIFTGATE_REPO`, or the repository around the current
/// directory). Every problem of a bad file is in the error, one `FILE:LINE: message` a line.
pub(super) fn load(arg: &InventoryArg, ctx: &Context<'_>) -> anyhow::Result<Inventory> {
    let file = locate(arg, ctx)?;
    Ok(Inventory::load(&file)?)
}

/// The inventory file: the one `arg` names, else the store's `inventory.toml`.
pub(super) fn locate(arg: &InventoryArg, ctx: &Context<'_>) -> anyhow::Result<PathBuf> {
    const HOW: &str = "give one with --inventory FILE or DRIFTGATE_INVENTORY";
    if let Some(file) = &arg.inventory {
        return Ok(file.clone());
    }
    let dir = ctx.repo.clone().unwrap_or_else(|| PathBuf::from("."));
    let store = Store::discover(&dir)
        .with_context(|| format!("no inventory: no baseline store to look in; {HOW}"))?;
    let file = store.location().join(driftgate_inventory::FILE_NAME);
    if !file.exists() {
        bail!(
            "no inventory: {} does not exist; create it, or {HOW}",
            file.display()
        );
    }
    Ok(file)
}
