//! Command-line definitions and dispatch. Each subcommand is `Args` + `run`: read inputs, call
//! one library function, render. Nothing else imports this module, and the commands import
//! nothing from it: what they share is in `common.rs` (and `inventory_file.rs`).

mod baseline;
mod capture;
mod check;
mod common;
mod completions;
mod diff;
mod fix;
mod gate;
mod import;
mod inventory;
mod inventory_file;
mod man;
mod mockup;
mod open_files;
mod pending;
mod policy;
mod report;
mod reports;
mod schema;
mod snapshot;

use std::path::PathBuf;

use clap::{Parser, Subcommand};

pub(crate) use common::Context;

use crate::exit::Outcome;
use crate::output::ColorWhen;

/// Guard firmware rollouts: compare a server's captured configuration with a known-good
/// baseline and block when a setting that keeps storage traffic lossless changed silently.
///
/// Exit codes of judging commands: 0 pass (warnings allowed unless --strict), 1 blocked,
/// 2 usage, configuration or input error, 3 incomplete capture (never a pass).
#[derive(Debug, Parser)]
#[command(
    name = "driftgate",
    version,
    after_help = "Examples:\n  \
        # the incidents driftgate exists for, offline (exit 1: blocked)\n  \
        driftgate check --snapshot examples/azure-local-dcbx/post-update.json \\\n      \
        --baseline examples/azure-local-dcbx/baseline.json\n  \
        # a host's configuration, then the gate around its firmware update\n  \
        driftgate capture --host azl-node01 --source redfish=https://bmc-azl-node01 --out azl-node01.json\n  \
        driftgate gate pre --run CHG-4711 azl-node01\n  \
        driftgate gate post --run CHG-4711 --promote\n  \
        # every night, every host of the inventory\n  \
        driftgate check --all --out-dir /var/lib/driftgate/nightly",
    max_term_width = 100,
    args_override_self = true
)]
pub(crate) struct Cli {
    /// When to colour output; `auto` colours a terminal unless NO_COLOR is set.
    #[arg(long, value_enum, default_value_t = ColorWhen::Auto, global = true)]
    pub color: ColorWhen,
    /// Baseline store (a git repository) for `baseline` commands and `baseline:`/`git:`
    /// references; default: the repository around the current directory. Its committed
    /// driftgate.toml extends the built-in policy. Also an option of each command that reads a
    /// store (see [`command`]), and only of those.
    #[arg(long = REPO, value_name = "DIR", env = "DRIFTGATE_REPO")]
    pub repo: Option<PathBuf>,
    /// Log what driftgate does on standard error: -v progress, -vv every request, -vvv the
    /// HTTP and TLS libraries too. Credentials never appear at any level.
    #[arg(short, long, action = clap::ArgAction::Count, global = true)]
    pub verbose: u8,
    #[command(subcommand)]
    pub command: Command,
}

/// The store option's name.
const REPO: &str = "repo";

/// The commands that read the baseline store: they, and only they, take `--repo` after their
/// name too (`driftgate check --all --repo DIR`); the others would ignore it.
const STORE_COMMANDS: [&str; 8] = [
    "baseline",
    "check",
    "diff",
    "fix",
    "gate",
    "inventory",
    "policy",
    "report",
];

/// The command line, as parsed and as documented (help, man pages, completions): [`Cli`]'s,
/// with `--repo` on every command that reads the store, down to its subcommands.
pub(crate) fn command() -> clap::Command {
    use clap::CommandFactory as _;
    let root = Cli::command();
    let repo = root
        .get_arguments()
        .find(|arg| arg.get_id() == REPO)
        .cloned()
        .expect("the root declares --repo");
    fn with_repo(command: clap::Command, repo: &clap::Arg) -> clap::Command {
        let names: Vec<String> = command
            .get_subcommands()
            .map(|c| c.get_name().to_owned())
            .collect();
        let command = if names.is_empty() {
            command.arg(repo.clone())
        } else {
            command
        };
        names.iter().fold(command, |command, name| {
            command.mut_subcommand(name, |sub| with_repo(sub, repo))
        })
    }
    STORE_COMMANDS.iter().fold(root, |root, name| {
        root.mut_subcommand(name, |sub| with_repo(sub, &repo))
    })
}

/// The store `matches` name: the one given after the command's name, else the one before it,
/// else `DRIFTGATE_REPO`.
pub(crate) fn repo_of(matches: &clap::ArgMatches) -> Option<PathBuf> {
    let mut levels = vec![matches];
    while let Some((_, sub)) = levels.last().and_then(|m| m.subcommand()) {
        levels.push(sub);
    }
    let given = |level: &&clap::ArgMatches| {
        let value = level.try_get_one::<PathBuf>(REPO).ok().flatten()?;
        Some((value.clone(), level.value_source(REPO)))
    };
    let values: Vec<(PathBuf, Option<clap::parser::ValueSource>)> =
        levels.iter().rev().filter_map(given).collect();
    values
        .iter()
        .find(|(_, source)| *source == Some(clap::parser::ValueSource::CommandLine))
        .or(values.first())
        .map(|(path, _)| path.clone())
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Keep known-good baselines in a git repository: init, promote, show, log, diff.
    #[command(
        subcommand,
        after_help = "Examples:\n  \
            driftgate baseline init /srv/baselines\n  \
            driftgate --repo /srv/baselines baseline promote --fleet azure-local azl-node01.json\n  \
            driftgate --repo /srv/baselines baseline log azl-node01"
    )]
    Baseline(baseline::Command),
    /// Capture a host's configuration from its sources into a snapshot.
    Capture(capture::Args),
    /// Judge a snapshot: invariants and `expect` rules, and drift against a baseline if given.
    Check(check::Args),
    /// Print the shell completion script for bash, zsh, fish, elvish or PowerShell.
    Completions(completions::Args),
    /// Classify the differences between two snapshots by policy.
    Diff(diff::Args),
    /// Gate a firmware update: `gate pre` before it, `gate post` after it (and its reboot).
    #[command(
        subcommand,
        after_help = "Examples:\n  \
            driftgate gate pre --run CHG-4711 azl-node01 azl-node02\n  \
            # … update the firmware, reboot …\n  \
            driftgate gate post --run CHG-4711 --promote"
    )]
    Gate(gate::Command),
    /// Plan the remediation of blocking findings (`fix plan`) and apply it staged, audited
    /// and only when told (`fix apply`); `gate post` verifies it.
    #[command(
        subcommand,
        after_help = "Examples:\n  \
            driftgate fix plan --run CHG-4711\n  \
            driftgate fix apply --run CHG-4711 --ticket CHG-4711 --yes --reset\n  \
            driftgate gate post --run CHG-4711 --promote"
    )]
    Fix(fix::Command),
    /// Turn command output that operators already have (tickets, pastes) into a snapshot.
    #[command(
        subcommand,
        after_help = "Examples:\n  driftgate import windows-qos qos.txt --host azl-node01 --out azl-node01.json"
    )]
    Import(import::Command),
    /// List and validate the inventory, pin a BMC's certificate: check, list, pin.
    #[command(
        subcommand,
        after_help = "Examples:\n  driftgate inventory check\n  driftgate inventory list --fleet azure-local --format json\n  driftgate inventory pin azl-node01 --write"
    )]
    Inventory(inventory::Command),
    /// Write the man pages into a directory (for packagers).
    #[command(hide = true)]
    Man(man::Args),
    /// Serve a Redfish mockup folder (a BMC simulator with auth, latency and faults).
    #[command(
        subcommand,
        after_help = "Examples:\n  \
            driftgate mockup serve examples/azure-local-dcbx/recorded/post-update/bmc\n  \
            driftgate capture --host azl-node01 --source redfish=http://127.0.0.1:8000"
    )]
    Mockup(mockup::Command),
    /// Show the effective policy.
    #[command(
        subcommand,
        after_help = "Examples:\n  driftgate policy show --policy site.toml"
    )]
    Policy(policy::Command),
    /// Work with the results of `check --all`: merge the shards of a run.
    #[command(
        subcommand,
        after_help = "Examples:\n  driftgate report merge results/1 results/2 results/3 --format markdown"
    )]
    Report(report::Command),
    /// Print the JSON Schema of a file format.
    Schema(schema::Args),
    /// Work with snapshot files.
    #[command(
        subcommand,
        after_help = "Examples:\n  driftgate snapshot seal hand-written.json --out node01.json"
    )]
    Snapshot(snapshot::Command),
}

/// Runs one subcommand.
pub(crate) fn run(command: Command, ctx: &Context<'_>) -> anyhow::Result<Outcome> {
    let printer = ctx.printer;
    match command {
        Command::Baseline(command) => baseline::run(command, ctx),
        Command::Capture(args) => capture::run(args, ctx),
        Command::Check(args) => check::run(args, ctx),
        Command::Completions(args) => completions::run(args, self::command(), printer),
        Command::Diff(args) => diff::run(args, ctx),
        Command::Fix(command) => fix::run(command, ctx),
        Command::Gate(command) => gate::run(command, ctx),
        Command::Import(command) => import::run(command, ctx),
        Command::Inventory(command) => inventory::run(command, ctx),
        Command::Man(args) => man::run(args, self::command(), printer),
        Command::Mockup(command) => mockup::run(command, ctx),
        Command::Policy(command) => policy::run(command, ctx),
        Command::Report(command) => report::run(command, ctx),
        Command::Schema(args) => schema::run(args, printer),
        Command::Snapshot(command) => snapshot::run(command, printer),
    }
}
