//! `driftgate report merge`: the output directories of the shards of a `check --all` run →
//! one fleet result, rendered as `check --all` renders it, with its exit code.

use std::path::PathBuf;

use driftgate::fleet;

use driftgate::store::Store;

use super::reports::{ReportArgs, ReportSources};
use super::{Context, OutputFormat};
use crate::exit::Outcome;

/// Work with the results of `check --all`.
#[derive(Debug, clap::Subcommand)]
#[command(defer = true)]
pub enum Command {
    /// Merge the --out-dir of every shard of one `check --all --shard K/N` run into the fleet
    /// result one unsharded run would give: the same hosts, verdicts, findings, counts and exit
    /// code (0 pass or warn, 1 block, 3 incomplete). Refuses (exit 2) a directory of a run
    /// that did not finish, overlapping or missing shards, and shards judged under different
    /// policies or strictness. Unsharded runs of disjoint selections (one per site) merge too,
    /// the report naming the selections.
    #[command(after_help = "Example:\n  \
        driftgate check --all --shard 1/3 --out-dir results/1   # on collector 1\n  \
        driftgate check --all --shard 2/3 --out-dir results/2   # on collector 2\n  \
        driftgate check --all --shard 3/3 --out-dir results/3   # on collector 3\n  \
        driftgate report merge results/1 results/2 results/3 --format markdown\n\
        The merged night's reports, for a pipeline and for node_exporter's textfile collector:\n  \
        driftgate report merge results/* --report junit=junit.xml --report sarif=driftgate.sarif \\\n      \
        --report html=fleet.html --report prometheus=/var/lib/node_exporter/textfile/driftgate.prom\n\
        One run per site, merged:\n  \
        driftgate check --all --tag site-a --out-dir results/site-a   # on site A's collector\n  \
        driftgate check --all --tag site-b --out-dir results/site-b   # on site B's collector\n  \
        driftgate report merge results/site-a results/site-b")]
    Merge {
        /// The shards' output directories.
        #[arg(required = true, value_name = "DIR")]
        dirs: Vec<PathBuf>,
        /// Report format: text (the one-screen summary), json (following `driftgate schema
        /// fleet-report`), markdown, or any other format of --report.
        #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
        format: OutputFormat,
        #[command(flatten)]
        reports: ReportArgs,
    },
}

pub fn run(command: Command, ctx: &Context<'_>) -> anyhow::Result<Outcome> {
    match command {
        Command::Merge {
            dirs,
            format,
            reports,
        } => {
            reports.check()?;
            let report = fleet::merge(&dirs)?;
            // The store is optional here (a merge job may run beside the results only): without
            // it SARIF has no lines and HTML no timelines.
            let dir = ctx.repo.clone().unwrap_or_else(|| PathBuf::from("."));
            let store = Store::discover(&dir).ok();
            let policy = store
                .as_ref()
                .and_then(|s| driftgate::input::policy(Some(s), None).ok());
            let sources = ReportSources {
                store: store.as_ref(),
                policy: policy.as_ref(),
            };
            super::check::print_fleet(&report, format, &reports, sources, ctx.printer)
        }
    }
}
