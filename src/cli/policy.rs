//! `driftgate policy`.

use std::path::PathBuf;

use driftgate::input;

use crate::exit::Outcome;
use crate::output::Printer;

/// Policy subcommands.
#[derive(Debug, clap::Subcommand)]
pub enum Command {
    /// Print the effective policy (built-in, extended by --policy) as TOML.
    Show {
        /// Policy file that extends and overrides the built-in policy.
        #[arg(long, value_name = "FILE", env = "DRIFTGATE_POLICY")]
        policy: Option<PathBuf>,
    },
}

pub fn run(command: Command, printer: &Printer) -> anyhow::Result<Outcome> {
    match command {
        Command::Show { policy } => {
            let policy = input::policy(policy.as_deref())?;
            printer.stdout(|out| out.write_all(policy.to_toml().as_bytes()))?;
        }
    }
    Ok(Outcome::Done)
}
