//! `driftgate report merge`: the output directories of the shards of a `check --all` run →
//! one fleet result, rendered as `check --all` renders it, with its exit code.

use std::path::PathBuf;

use anyhow::Context as _;
use driftgate_fleet::{MergeOptions, Rejudge};
use driftgate_inventory::Inventory;
use driftgate_store::Store;

use super::inventory::InventoryArg;

use super::common::Context;
use super::reports::{ReportArgs, ReportSources};
use crate::exit::Outcome;
use driftgate_report::Format;

/// Work with the results of `check --all`.
#[derive(Debug, clap::Subcommand)]
pub(crate) enum Command {
    /// Merge the --out-dir of every shard of one `check --all --shard K/N` run into the fleet
    /// result one unsharded run would give: the same hosts, verdicts, findings, counts and exit
    /// code (0 pass or warn, 1 block, 3 incomplete). Trusts nothing it can check: every host
    /// the run planned must be in its shard's directory with its record and snapshot, and each
    /// host is judged again from its snapshot against the baseline its record names, in the
    /// baseline store (--repo), under the run's policy. Refuses (exit 2, naming the shard and
    /// the host) a host missing, added or twice, a record its snapshot disagrees with, a
    /// directory of a run that did not finish, overlapping or missing shards, and shards judged
    /// under different policies or strictness. Unsharded runs of disjoint selections (one per
    /// site) merge too, the report naming the selections.
    #[command(after_help = "Examples:\n  \
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
        #[arg(long, value_parser = super::common::format_parser(), default_value = Format::Text.name())]
        format: Format,
        #[command(flatten)]
        reports: ReportArgs,
        /// Take each host's record as its shard wrote it instead of judging it again from its
        /// snapshot (for a merge job without the baseline store); the report says so.
        #[arg(long)]
        no_rejudge: bool,
        /// The --policy FILE the shards ran with, layered over the store's policy as
        /// `check --all` does.
        #[arg(long, value_name = "FILE", env = "DRIFTGATE_POLICY")]
        policy: Option<PathBuf>,
        #[command(flatten)]
        inventory: InventoryArg,
    },
}

pub(super) fn run(command: Command, ctx: &Context<'_>) -> anyhow::Result<Outcome> {
    match command {
        Command::Merge {
            dirs,
            format,
            reports,
            no_rejudge,
            policy,
            inventory,
        } => {
            reports.check()?;
            let dir = ctx.repo.clone().unwrap_or_else(|| PathBuf::from("."));
            let store = match Store::discover(&dir) {
                Ok(store) => Some(store),
                // A merge job may run beside the results only: it then trusts them, saying so.
                Err(_) if no_rejudge => None,
                Err(error) => {
                    return Err(anyhow::Error::new(error).context(
                        "report merge judges every host again against its baseline: give the baseline store with --repo DIR (or DRIFTGATE_REPO), or --no-rejudge to trust the records",
                    ));
                }
            };
            // The inventory the shards planned from: given, else the store's, when it has one.
            let file = match (&inventory.inventory, &store) {
                (Some(file), _) => Some(file.clone()),
                (None, Some(store)) => Some(store.location().join(driftgate_inventory::FILE_NAME))
                    .filter(|file| file.exists()),
                (None, None) => None,
            };
            let inventory = file
                .map(|file| {
                    Inventory::load(&file).with_context(|| {
                        format!(
                            "report merge checks the hosts the shards planned against their inventory, {}: give the one they ran with by --inventory FILE",
                            file.display()
                        )
                    })
                })
                .transpose()?;
            let options = MergeOptions {
                rejudge: store.as_ref().filter(|_| !no_rejudge).map(|store| Rejudge {
                    store,
                    policy_file: policy.as_deref(),
                }),
                inventory: inventory.as_ref(),
            };
            let report = driftgate_fleet::merge(&dirs, &options)?;
            if let Some(store) = &store {
                let notices = super::check::Notices(*ctx.printer);
                driftgate_fleet::record_merged_state(store, &report, &notices);
            }
            // Without the store SARIF has no lines and HTML no timelines.
            let policy = store
                .as_ref()
                .and_then(|s| driftgate_baseline::input::policy(Some(s), policy.as_deref()).ok());
            let sources = ReportSources {
                store: store.as_ref(),
                policy: policy.as_ref(),
            };
            super::check::print_fleet(&report, format, &reports, sources, ctx.printer)
        }
    }
}
