//! `driftgate man` (hidden): the man pages of the command tree, for packagers.

use std::path::PathBuf;

use anyhow::Context as _;

use crate::exit::Outcome;
use crate::output::Printer;

/// Write a man page per command (driftgate.1, driftgate-gate.1, driftgate-gate-pre.1, …) into
/// a directory; scripts/package-deb.sh ships them.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  \
    driftgate man target/man && man -l target/man/driftgate-gate-pre.1")]
pub(crate) struct Args {
    /// Where the pages go (made when missing; pages of the same name are replaced).
    #[arg(value_name = "DIR")]
    out_dir: PathBuf,
}

/// Writes a man page for `tree` (the whole command line) and each of its commands.
pub(super) fn run(args: Args, tree: clap::Command, printer: &Printer) -> anyhow::Result<Outcome> {
    let dir = &args.out_dir;
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let mut root = tree.disable_help_subcommand(true);
    // Built once from the top, every command knows its full name (`driftgate-gate-pre`).
    root.build();
    let mut written = 0;
    let mut pending = vec![root];
    while let Some(command) = pending.pop() {
        pending.extend(
            command
                .get_subcommands()
                .filter(|c| !c.is_hide_set())
                .cloned(),
        );
        // Every page says which release it documents, not only the top one.
        let man = clap_mangen::Man::new(command)
            .source(concat!("driftgate ", env!("CARGO_PKG_VERSION")))
            .manual("driftgate manual");
        let path = dir.join(man.get_filename());
        let mut page = Vec::new();
        man.render(&mut page)?;
        std::fs::write(&path, page).with_context(|| format!("cannot write {}", path.display()))?;
        written += 1;
    }
    printer.status(&format!("{written} man pages written to {}", dir.display()));
    Ok(Outcome::Done)
}
