//! `driftgate capture`.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context as _;
use driftgate::collect::transport::ProcessOptions;
use driftgate::collect::{self, CaptureOptions, SourceSpec};
use driftgate::compare::Verdict;
use driftgate::fsutil::write_atomic;
use driftgate::snapshot::{HostName, SourceStatus};

use super::Context;
use crate::exit::Outcome;

/// Capture a host's configuration from its sources into a snapshot.
///
/// The snapshot is written even when a source fails: that source is recorded as partial or
/// failed with the reason, and capture exits 3 so that a pipeline never mistakes it for a
/// complete capture.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Host name recorded in the snapshot (and its baseline file name).
    #[arg(long)]
    host: HostName,
    /// KIND=LOCATION. KIND: esxi. LOCATION: ssh://[user@]host[:port], local: (on this
    /// machine) or dir:PATH (recorded outputs, one file per command).
    #[arg(long = "source", value_name = "KIND=LOCATION", required = true, value_parser = SourceSpec::parse)]
    sources: Vec<SourceSpec>,
    /// Write the snapshot here (atomically) instead of standard output.
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// Seconds one command may run before it is stopped.
    #[arg(long, value_name = "SECONDS", default_value_t = 60)]
    command_timeout: u64,
    /// OpenSSH client configuration for ssh:// sources (ssh -F FILE).
    #[arg(long, value_name = "FILE", env = "DRIFTGATE_SSH_CONFIG")]
    ssh_config: Option<PathBuf>,
}

pub fn run(args: Args, ctx: &Context<'_>) -> anyhow::Result<Outcome> {
    let options = CaptureOptions {
        process: ProcessOptions {
            timeout: Duration::from_secs(args.command_timeout),
            ssh_config: args.ssh_config,
            ..ProcessOptions::default()
        },
    };
    let snapshot = collect::capture_host(args.host, &args.sources, &options);
    let text = snapshot.to_canonical_json();
    match &args.out {
        Some(out) => write_atomic(out, text.as_bytes())
            .with_context(|| format!("{}: cannot write", out.display()))?,
        None => ctx.printer.stdout(|w| w.write_all(text.as_bytes()))?,
    }
    for source in &snapshot.sources {
        if source.status != SourceStatus::Complete {
            let error = source.error.as_deref().unwrap_or("no reason recorded");
            ctx.printer.warn(&format!(
                "source {} ({}) is {}: {error}",
                source.name,
                source.target,
                source.status.as_str()
            ));
        }
    }
    Ok(if snapshot.is_complete() {
        Outcome::Done
    } else {
        Outcome::Judged(Verdict::Incomplete)
    })
}
