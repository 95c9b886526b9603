//! `driftgate check`.

use std::path::PathBuf;

use driftgate::compare::{self, JudgeOptions};
use driftgate::input::{Loader, SnapshotRef};

use super::{Context, OutputFormat, parse_ref};
use crate::exit::Outcome;

/// Judge a snapshot.
///
/// Without --baseline only invariants and `expect` rules run. A snapshot or baseline with a
/// source that is not complete is INCOMPLETE (exit 3) whatever else it shows.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Snapshot to judge: a file, `-` (standard input), `git:REV:PATH` or `baseline:HOST[@REV]`.
    #[arg(long, value_name = "REF", value_parser = parse_ref)]
    snapshot: SnapshotRef,
    /// Known-good snapshot of the same host to compare with, e.g. `baseline:HOST`.
    #[arg(long, value_name = "REF", value_parser = parse_ref)]
    baseline: Option<SnapshotRef>,
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

pub fn run(args: Args, ctx: &Context<'_>) -> anyhow::Result<Outcome> {
    let mut loader = Loader::new(ctx.repo.clone());
    let snapshot = loader.snapshot(&args.snapshot)?;
    let baseline = args
        .baseline
        .as_ref()
        .map(|r| loader.snapshot(r))
        .transpose()?;
    let policy = super::effective_policy(&mut loader, ctx.repo.is_some(), args.policy.as_deref())?;
    for warning in policy.warnings() {
        ctx.printer.warn(warning);
    }
    if let Some(baseline) = &baseline {
        compare::same_host(&snapshot, baseline)?;
    }
    let options = JudgeOptions {
        strict: args.strict,
        changes_only: false,
        ..JudgeOptions::default()
    };
    let report = compare::judge(&snapshot, baseline.as_ref(), &policy, &options);
    super::print_report(&report, args.format, ctx.printer)
}
