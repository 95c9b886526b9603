//! `driftgate inventory` (minimal until the inventory helper's version lands).

use std::path::PathBuf;

use anyhow::Context as _;
use driftgate::inventory::{FILE_NAME, Inventory};

use super::Context;

/// `--inventory FILE`.
#[derive(Debug, Clone, clap::Args)]
pub struct InventoryArg {
    /// Inventory file (default: inventory.toml at the baseline store's root).
    #[arg(long, value_name = "FILE", env = "DRIFTGATE_INVENTORY")]
    pub inventory: Option<PathBuf>,
}

/// The inventory `arg` names, else the store's.
pub fn load(arg: &InventoryArg, ctx: &Context<'_>) -> anyhow::Result<Inventory> {
    let file = match &arg.inventory {
        Some(file) => file.clone(),
        None => {
            let dir = ctx.repo.clone().unwrap_or_else(|| PathBuf::from("."));
            let store = driftgate::store::Store::discover(&dir)?;
            store.location().join(FILE_NAME)
        }
    };
    Inventory::load(&file).with_context(|| format!("{}: bad inventory", file.display()))
}
