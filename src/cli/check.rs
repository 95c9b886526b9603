//! `driftgate check`.

use std::path::PathBuf;

use anyhow::bail;
use driftgate::compare::{self, JudgeOptions};
use driftgate::input::{self, Loader, SnapshotRef};

use super::OutputFormat;
use crate::exit::Outcome;
use crate::output::Printer;

/// Judge a snapshot.
///
/// Without --baseline only invariants and `expect` rules run. A snapshot or baseline with a
/// source that is not complete is INCOMPLETE (exit 3) whatever else it shows.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Snapshot to judge: a file, or `-` for standard input.
    #[arg(long, value_name = "REF", value_parser = parse_ref)]
    snapshot: SnapshotRef,
    /// Known-good snapshot of the same host to compare with.
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

pub(super) fn parse_ref(text: &str) -> Result<SnapshotRef, String> {
    if text.is_empty() {
        return Err("empty snapshot reference".into());
    }
    Ok(SnapshotRef::parse(text))
}

pub fn run(args: Args, printer: &Printer) -> anyhow::Result<Outcome> {
    let policy = input::policy(args.policy.as_deref())?;
    let mut loader = Loader::default();
    let snapshot = loader.snapshot(&args.snapshot)?;
    let baseline = args
        .baseline
        .as_ref()
        .map(|r| loader.snapshot(r))
        .transpose()?;
    if let Some(baseline) = &baseline {
        let (host, base_host) = (&snapshot.snapshot().host, &baseline.snapshot().host);
        if host != base_host {
            bail!(
                "{} is a snapshot of host {host} but baseline {} is of host {base_host}; use `driftgate diff` to compare different hosts",
                snapshot.origin(),
                baseline.origin()
            );
        }
    }
    let options = JudgeOptions {
        strict: args.strict,
        changes_only: false,
    };
    let report = compare::judge(&snapshot, baseline.as_ref(), &policy, &options);
    super::print_report(&report, args.format, printer)
}
