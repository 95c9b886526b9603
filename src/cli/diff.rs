//! `driftgate diff`.

use std::path::PathBuf;

use driftgate_baseline::input::{Loader, SnapshotRef};
use driftgate_compare::JudgeOptions;

use super::common::{Context, parse_ref};
use crate::exit::Outcome;
use driftgate_report::Format;

/// Classify the differences between two snapshots by policy.
///
/// Only changes are judged (no invariants or `expect` rules); the exit code follows the
/// verdict like `check`. The snapshots may be of different hosts (a warning says so).
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  \
    driftgate diff examples/azure-local-dcbx/baseline.json examples/azure-local-dcbx/post-update.json\n  \
    driftgate diff baseline:azl-node01@HEAD~1 baseline:azl-node01 --format markdown")]
pub(crate) struct Args {
    /// The earlier snapshot: a file, `-` (standard input), `git:REV:PATH` or `baseline:HOST[@REV]`.
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
    #[arg(long, value_parser = super::common::format_parser(), default_value = Format::Text.name())]
    format: Format,
}

pub(super) fn run(args: Args, ctx: &Context<'_>) -> anyhow::Result<Outcome> {
    let printer = ctx.printer;
    let mut loader = Loader::new(ctx.repo.clone());
    let old = loader.snapshot(&args.old)?;
    let new = loader.snapshot(&args.new)?;
    let policy =
        super::common::effective_policy(&mut loader, ctx.repo.is_some(), args.policy.as_deref())?;
    for warning in policy.warnings() {
        ctx.printer.warn(warning);
    }
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
        ..JudgeOptions::default()
    };
    let report = driftgate_compare::judge(&new, Some(&old), &policy, &options);
    super::reports::print_report(
        &report,
        &new,
        args.format,
        &super::reports::ReportArgs::default(),
        super::reports::ReportSources::default(),
        printer,
    )
}
