//! Command-line definitions and dispatch. Each subcommand is `Args` + `run`: read inputs, call
//! one library function, render. Nothing else imports this module.

mod check;
mod diff;
mod policy;
mod schema;
mod snapshot;

use clap::{Parser, Subcommand, ValueEnum};

use crate::exit::Outcome;
use crate::output::{ColorWhen, Printer};

/// Guard firmware rollouts: compare a server's captured configuration with a known-good
/// baseline and block when a setting that keeps storage traffic lossless changed silently.
///
/// Exit codes of judging commands: 0 pass (warnings allowed unless --strict), 1 blocked,
/// 2 usage, configuration or input error, 3 incomplete capture (never a pass).
#[derive(Debug, Parser)]
#[command(name = "driftgate", version, max_term_width = 100)]
pub struct Cli {
    /// When to colour output; `auto` colours a terminal unless NO_COLOR is set.
    #[arg(long, value_enum, default_value_t = ColorWhen::Auto, global = true)]
    pub color: ColorWhen,
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Judge a snapshot: invariants and `expect` rules, and drift against a baseline if given.
    Check(check::Args),
    /// Classify the differences between two snapshots by policy.
    Diff(diff::Args),
    /// Show the effective policy.
    #[command(subcommand)]
    Policy(policy::Command),
    /// Print the JSON Schema of a file format.
    Schema(schema::Args),
    /// Work with snapshot files.
    #[command(subcommand)]
    Snapshot(snapshot::Command),
}

/// Report formats of judging commands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OutputFormat {
    /// A verdict line, then findings grouped by severity.
    Text,
    /// JSON following `driftgate schema report`.
    Json,
    /// Markdown for a change ticket or a pull-request comment.
    Markdown,
}

/// Runs one subcommand.
pub fn run(command: Command, printer: &Printer) -> anyhow::Result<Outcome> {
    match command {
        Command::Check(args) => check::run(args, printer),
        Command::Diff(args) => diff::run(args, printer),
        Command::Policy(command) => policy::run(command, printer),
        Command::Schema(args) => schema::run(args, printer),
        Command::Snapshot(command) => snapshot::run(command, printer),
    }
}

/// Renders `report` in `format` on standard output and returns the verdict.
fn print_report(
    report: &driftgate::compare::Report,
    format: OutputFormat,
    printer: &Printer,
) -> anyhow::Result<Outcome> {
    use driftgate::report;
    printer.stdout(|out| match format {
        OutputFormat::Text => report::text::render(report, out),
        OutputFormat::Json => report::json::render(report, out),
        OutputFormat::Markdown => report::markdown::render(report, out),
    })?;
    Ok(Outcome::Judged(report.verdict))
}
