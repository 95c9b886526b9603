//! `driftgate diff`.

use std::path::PathBuf;

use driftgate::compare::{self, JudgeOptions};
use driftgate::input::{self, Loader, SnapshotRef};

use super::OutputFormat;
use super::check::parse_ref;
use crate::exit::Outcome;
use crate::output::Printer;

/// Classify the differences between two snapshots by policy.
///
/// Only changes are judged (no invariants or `expect` rules); the exit code follows the
/// verdict like `check`. The snapshots may be of different hosts (a warning says so).
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The earlier snapshot: a file, or `-` for standard input.
    #[arg(value_name = "OLD_REF", value_parser = parse_ref)]
    old: SnapshotRef,
    /// The later snapshot.
    #[arg(value_name = "NEW_REF", value_parser = parse_ref)]
    new: SnapshotRef,
    /// Policy file that extends and overrides the built-in policy.
    #[arg(long, value_name = "FILE", env = "DRIFTGATE_POLICY")]
    policy: Option<PathBuf>,
    /// Warnings block too.
    #[arg(long)]
    strict: bool,
    /// Report format.
    #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
    format: OutputFormat,
}

pub fn run(args: Args, printer: &Printer) -> anyhow::Result<Outcome> {
    let policy = input::policy(args.policy.as_deref())?;
    let mut loader = Loader::default();
    let old = loader.snapshot(&args.old)?;
    let new = loader.snapshot(&args.new)?;
    if old.snapshot().host != new.snapshot().host {
        printer.warn(&format!(
            "comparing different hosts: {} is {}, {} is {}",
            old.origin(),
            old.snapshot().host,
            new.origin(),
            new.snapshot().host
        ));
    }
    let options = JudgeOptions {
        strict: args.strict,
        changes_only: true,
    };
    let report = compare::judge(&new, Some(&old), &policy, &options);
    super::print_report(&report, args.format, printer)
}
