//! `driftgate snapshot`.

use std::path::PathBuf;

use anyhow::Context;
use driftgate_baseline::input::read_text;
use driftgate_fs::{WriteOptions, write_output};
use driftgate_snapshot::Snapshot;

use crate::exit::Outcome;
use crate::output::Printer;

/// Snapshot subcommands.
#[derive(Debug, clap::Subcommand)]
pub(crate) enum Command {
    /// Validate a hand-written snapshot and write it in canonical form with its digest.
    ///
    /// The file must have no digest, or a correct one: to re-seal an edited snapshot, delete
    /// its `digest` line deliberately. The digest guards against accidental edits and
    /// corruption; it is not a signature.
    #[command(after_help = "Examples:\n  \
        driftgate snapshot seal hand-written.json --out node01.json\n  \
        driftgate check --snapshot node01.json")]
    Seal {
        /// The snapshot to seal.
        file: PathBuf,
        /// Where to write the sealed snapshot (a file atomically, a device, FIFO or socket as a
        /// stream, a symbolic link followed); standard output without it.
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
    },
}

pub(super) fn run(command: Command, printer: &Printer) -> anyhow::Result<Outcome> {
    match command {
        Command::Seal { file, out } => {
            if let Some(out) = &out {
                super::common::check_out("--out", out)?;
            }
            let sealed = Snapshot::seal(&read_text(&file)?, &file.display().to_string())?;
            let text = sealed.to_canonical_json();
            match out {
                Some(out) => write_output(&out, text.as_bytes(), WriteOptions::PRIVATE)
                    .with_context(|| format!("{}: cannot write", out.display()))?,
                None => printer.stdout_raw(|w| w.write_all(text.as_bytes()))?,
            }
        }
    }
    Ok(Outcome::Done)
}
