//! `driftgate completions`: the shell completion script, as other tools print theirs.

use clap_complete::Shell;

use crate::exit::Outcome;
use crate::output::Printer;

/// Print the completion script for a shell (the Debian package installs bash, zsh and fish's).
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  \
    source <(driftgate completions bash)                      # this bash session\n  \
    driftgate completions bash > ~/.local/share/bash-completion/completions/driftgate\n  \
    driftgate completions zsh > ~/.zfunc/_driftgate            # with fpath+=(~/.zfunc) in ~/.zshrc\n  \
    driftgate completions fish > ~/.config/fish/completions/driftgate.fish")]
pub(crate) struct Args {
    /// The shell to complete in.
    #[arg(value_enum)]
    shell: Shell,
}

/// Prints the completion script of `tree` (the whole command line) for `args.shell`.
pub(super) fn run(args: Args, tree: clap::Command, printer: &Printer) -> anyhow::Result<Outcome> {
    // Rendered whole first: the generator panics on a write error, and `… | head` closes the
    // pipe early, which is no error.
    let mut script = Vec::new();
    clap_complete::generate(
        args.shell,
        &mut visible_tree(tree),
        "driftgate",
        &mut script,
    );
    printer.stdout_raw(|out| out.write_all(&script))?;
    Ok(Outcome::Done)
}

/// The command tree without its hidden top-level commands (`man`), which some generators (bash)
/// would offer.
fn visible_tree(full: clap::Command) -> clap::Command {
    let visible: Vec<clap::Command> = full
        .get_subcommands()
        .filter(|command| !command.is_hide_set())
        .cloned()
        .collect();
    clap::Command::new("driftgate")
        .version(env!("CARGO_PKG_VERSION"))
        .args(full.get_arguments().cloned())
        .subcommands(visible)
}
