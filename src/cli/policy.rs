//! `driftgate policy`.

use std::path::PathBuf;

use driftgate_baseline::input::Loader;

use super::common::Context;
use crate::exit::Outcome;

/// Policy subcommands.
#[derive(Debug, clap::Subcommand)]
pub(crate) enum Command {
    /// Print the effective policy as TOML: built-in, then the store's driftgate.toml (with
    /// --repo), then --policy.
    #[command(after_help = "Examples:\n  \
        driftgate policy show                          # built-in, then the store's driftgate.toml\n  \
        driftgate policy show --policy site.toml > effective.toml")]
    Show {
        /// Policy file that extends and overrides the built-in policy.
        #[arg(long, value_name = "FILE", env = "DRIFTGATE_POLICY")]
        policy: Option<PathBuf>,
    },
}

pub(super) fn run(command: Command, ctx: &Context<'_>) -> anyhow::Result<Outcome> {
    match command {
        Command::Show { policy } => {
            let mut loader = Loader::new(ctx.repo.clone());
            let policy = super::common::effective_policy(
                &mut loader,
                ctx.repo.is_some(),
                policy.as_deref(),
            )?;
            for warning in policy.warnings() {
                ctx.printer.warn(warning);
            }
            ctx.printer
                .stdout(|out| out.write_all(policy.to_toml().as_bytes()))?;
        }
    }
    Ok(Outcome::Done)
}
