//! `driftgate check`: one snapshot (`--snapshot`), or the whole fleet (`--all`).

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use driftgate_baseline::input::{Loader, SnapshotRef};
use driftgate_collect::Cancel;
use driftgate_compare::{JudgeOptions, Verdict};
use driftgate_fleet::{FleetError, FleetSettings, Notice, Shard};
use driftgate_report::document::FleetReport;
use driftgate_snapshot::HostName;
use driftgate_store::Store;

use super::capture::CaptureFlags;
use super::common::{Context, parse_ref};
use super::inventory::{self, InventoryArg, SelectionArgs};
use super::reports::{ReportArgs, ReportSources};
use crate::exit::Outcome;
use crate::interrupt::Interrupts;
use crate::output::Printer;
use driftgate_report::Format;

/// Judge a snapshot, or with --all every host of the inventory.
///
/// Without --baseline only invariants and `expect` rules run. A snapshot or baseline with a
/// source that is not complete is INCOMPLETE (exit 3) whatever else it shows.
///
/// --all captures every selected host of the inventory concurrently and judges each against
/// its baseline at HEAD of the store (`baselines/<fleet>/<host>.json`), checks that the nodes
/// of each cluster agree, and reports stale and missing baselines. A host that cannot be read
/// (unreachable, partial, past its --host-timeout) is INCOMPLETE and counted; it never stops
/// the run. Exit code: the worst host verdict or fleet finding (0 pass or warn, 1 block,
/// 3 incomplete; 2 a usage or configuration error).
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  \
    driftgate check --snapshot node01.json --baseline baseline:node01\n  \
    # the text on standard output, and the JSON and Markdown reports into files\n  \
    driftgate check --snapshot node01.json --baseline baseline:node01 \\\n      \
    --report json=node01-report.json --report markdown=node01-ticket.md\n  \
    # nightly: every host, results streamed to an output directory\n  \
    driftgate check --all --out-dir /var/lib/driftgate/nightly --stale-after 30d\n  \
    # and the reports a pipeline publishes (written whatever the verdict)\n  \
    driftgate check --all --out-dir nightly --report junit=junit.xml \\\n      \
    --report sarif=driftgate.sarif --report html=fleet.html\n  \
    # three collectors (a Kubernetes Indexed Job: --shard $((JOB_COMPLETION_INDEX + 1))/3), then one merge\n  \
    driftgate check --all --shard 1/3 --run nightly-1201 --out-dir results/1\n  \
    driftgate check --all --shard 2/3 --run nightly-1201 --out-dir results/2\n  \
    driftgate check --all --shard 3/3 --run nightly-1201 --out-dir results/3\n  \
    driftgate report merge results/1 results/2 results/3\n  \
    # the first run of a new store, then promote its snapshots as the baselines\n  \
    driftgate check --all --bootstrap --out-dir first\n  \
    driftgate baseline promote first/snapshots/*.json --fleet azure-local\n  \
    # judge snapshots a site collector shipped, instead of capturing\n  \
    driftgate check --all --snapshots site-b/nightly --format json")]
pub(crate) struct Args {
    /// Snapshot to judge: a file, `-` (standard input), `git:REV:PATH` or `baseline:HOST[@REV]`.
    #[arg(long, value_name = "REF", value_parser = parse_ref, required_unless_present = "all", conflicts_with_all = FLEET_ONLY)]
    snapshot: Option<SnapshotRef>,
    /// Known-good snapshot of the same host to compare with, e.g. `baseline:HOST`.
    #[arg(long, value_name = "REF", value_parser = parse_ref, conflicts_with = "all")]
    baseline: Option<SnapshotRef>,
    /// Policy file that extends and overrides the built-in policy (with --all: layered over
    /// the store's driftgate.toml).
    #[arg(long, value_name = "FILE", env = "DRIFTGATE_POLICY")]
    policy: Option<PathBuf>,
    /// Warnings block too.
    #[arg(long)]
    strict: bool,
    /// Report format (with --all: text is the one-screen summary, json follows
    /// `driftgate schema fleet-report`).
    #[arg(long, value_parser = super::common::format_parser(), default_value = Format::Text.name())]
    format: Format,
    #[command(flatten)]
    reports: ReportArgs,
    #[command(flatten)]
    fleet: FleetArgs,
}

/// The flags that only `check --all` takes.
const FLEET_ONLY: [&str; 12] = [
    "all",
    "fleet",
    "cluster",
    "tag",
    "shard",
    "concurrency",
    "out_dir",
    "snapshots",
    "stale_after",
    "run_id",
    "bootstrap",
    "quiet",
];

/// The flags of `check --all`.
#[derive(Debug, clap::Args)]
struct FleetArgs {
    /// Check every selected host of the inventory.
    #[arg(long)]
    all: bool,
    #[command(flatten)]
    inventory: InventoryArg,
    #[command(flatten)]
    selection: SelectionArgs,
    /// Only the hosts of shard K of N (a stable hash of the host name; every host is in
    /// exactly one shard). Merge the shards' --out-dir with `driftgate report merge`.
    #[arg(long, value_name = "K/N")]
    shard: Option<Shard>,
    /// Hosts captured at once, and as many more slow ones (a host that has run three times as
    /// long as the typical host steps aside for a new one). With --snapshots: hosts judged at
    /// once, at most one per core. Default 64: see docs/fleet.md for choosing it.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    concurrency: Option<u16>,
    /// Write snapshots/<host>.json and hosts/<host>.json here as each host finishes, and
    /// run.json at the end (what `report merge` reads).
    #[arg(long, value_name = "DIR")]
    out_dir: Option<PathBuf>,
    /// Judge DIR/<host>.json (or DIR/snapshots/<host>.json, another run's --out-dir) instead
    /// of capturing; a missing or corrupt file makes its host INCOMPLETE.
    #[arg(long, value_name = "DIR")]
    snapshots: Option<PathBuf>,
    /// Report baselines and last good captures older than AGE: 30d, 12h, 90m (a number
    /// alone is days).
    #[arg(long, value_name = "AGE", value_parser = driftgate_fleet::stale::parse_age)]
    stale_after: Option<Duration>,
    /// The run's id, recorded in run.json: `report merge` refuses shards of different runs (a
    /// Kubernetes Job passes its name).
    // Spelt as `gate`'s `--run`; `--run-id`, the first spelling, stays a hidden alias.
    #[arg(long = "run", alias = "run-id", value_name = "ID")]
    run_id: Option<String>,
    /// A first run of a new store: no baselines/ at HEAD is fine (without it that is refused
    /// with exit 2, as a store in the wrong directory); promote OUT/snapshots/*.json after.
    #[arg(long)]
    bootstrap: bool,
    /// No progress bar.
    #[arg(long, short)]
    quiet: bool,
    #[command(flatten)]
    capture: CaptureFlags,
}

/// `--concurrency` of `check --all` when not given: sized for one collector.
const DEFAULT_CONCURRENCY: u16 = 64;

pub(super) fn run(args: Args, ctx: &Context<'_>) -> anyhow::Result<Outcome> {
    args.reports.check()?;
    if args.fleet.all {
        return run_all(args, ctx);
    }
    let mut loader = Loader::new(ctx.repo.clone());
    let reference = args
        .snapshot
        .as_ref()
        .expect("clap requires --snapshot without --all");
    let snapshot = loader.snapshot(reference)?;
    let baseline = args
        .baseline
        .as_ref()
        .map(|r| loader.snapshot(r))
        .transpose()?;
    let policy =
        super::common::effective_policy(&mut loader, ctx.repo.is_some(), args.policy.as_deref())?;
    for warning in policy.warnings() {
        ctx.printer.warn(warning);
    }
    if let Some(baseline) = &baseline {
        driftgate_compare::same_host(&snapshot, baseline)?;
    }
    let options = JudgeOptions {
        strict: args.strict,
        changes_only: false,
        ..JudgeOptions::default()
    };
    let report = driftgate_compare::judge(&snapshot, baseline.as_ref(), &policy, &options);
    let store = if loader.store_in_use() {
        Some(loader.store()?)
    } else {
        None
    };
    let sources = ReportSources {
        store,
        policy: Some(&policy),
    };
    super::reports::print_report(
        &report,
        &snapshot,
        args.format,
        &args.reports,
        sources,
        ctx.printer,
    )
}

/// `check --all`.
fn run_all(args: Args, ctx: &Context<'_>) -> anyhow::Result<Outcome> {
    let flags = &args.fleet;
    let dir = ctx.repo.clone().unwrap_or_else(|| PathBuf::from("."));
    let store = Store::discover(&dir)?;
    let policy = driftgate_baseline::input::policy(Some(&store), args.policy.as_deref())?;
    for warning in policy.warnings() {
        ctx.printer.warn(warning);
    }
    let inventory = inventory::load(&flags.inventory, ctx)?;
    // Hundreds of hosts at once, each with its connections, need more than the usual 1,024
    // descriptors: a host that cannot open a socket would be INCOMPLETE for no reason of its own.
    let concurrency = usize::from(flags.concurrency.unwrap_or(DEFAULT_CONCURRENCY));
    let limit = super::open_files::raise_open_file_limit();
    // Up to twice --concurrency hosts run at once: the slow ones step aside.
    if limit.soft < 16 * concurrency as u64 + 64 {
        ctx.printer.warn(&format!(
            "the open file limit is {} (hard limit {}): too few for {} hosts at once (--concurrency {concurrency} and as many slow ones); lower --concurrency",
            limit.soft, limit.hard, 2 * concurrency
        ));
    }
    if flags.snapshots.is_none() {
        flags
            .capture
            .warn_insecure(inventory.hosts.iter().flat_map(|h| &h.sources), ctx);
    }
    let cancel = Cancel::new();
    let stop = cancel.clone();
    let settings = FleetSettings {
        store,
        inventory: Arc::new(inventory),
        policy,
        selection: flags.selection.selection(),
        shard: flags.shard,
        concurrency,
        strict: args.strict,
        capture: flags.capture.options(None, cancel.clone())?,
        out_dir: flags.out_dir.clone(),
        stale_after: flags.stale_after,
        run_id: flags.run_id.clone(),
        bootstrap: flags.bootstrap,
    };
    let runtime = super::common::runtime()?;
    let interrupts = match Interrupts::watch(runtime.handle(), cancel, *ctx.printer) {
        Ok(interrupts) => Some(interrupts),
        Err(e) => {
            ctx.printer.warn(&format!(
                "cannot handle signals ({e}): a signal will end the run without deleting its Redfish sessions"
            ));
            None
        }
    };
    let progress = Progress::new(flags.quiet, *ctx.printer);
    progress.say_when_stopped(runtime.handle(), stop, *ctx.printer);
    // Snapshot files are judged on this thread and plain threads; the runtime only watches
    // for signals then.
    let result = match &flags.snapshots {
        Some(snapshots) => driftgate_fleet::check_snapshots(&settings, snapshots, &progress),
        None => runtime.block_on(driftgate_fleet::check_all(&settings, &progress)),
    };
    // A capture abandoned at its deadline may still hold a blocking thread: do not wait for it.
    runtime.shutdown_background();
    progress.done();
    if let Some(signal) = interrupts.as_ref().and_then(Interrupts::received)
        && matches!(result, Err(FleetError::Interrupted))
    {
        ctx.printer.error(&anyhow::anyhow!(
            "the run was stopped by {signal}: no host started after it, no run.json was written"
        ));
        return Ok(Outcome::Interrupted(signal));
    }
    let sources = ReportSources {
        store: Some(&settings.store),
        policy: Some(&settings.policy),
    };
    print_fleet(&result?, args.format, &args.reports, sources, ctx.printer)
}

/// Renders a fleet result on standard output and into every `--report` file, and returns its
/// verdict.
pub(super) fn print_fleet(
    report: &FleetReport,
    format: Format,
    reports: &ReportArgs,
    sources: ReportSources<'_>,
    printer: &Printer,
) -> anyhow::Result<Outcome> {
    super::reports::emit(report.into(), format, reports, sources, printer)?;
    Ok(Outcome::Judged(report.verdict))
}

/// The progress of `check --all` on standard error: a bar on a terminal (not with --quiet,
/// not in CI), else, with -v, one log line per host.
struct Progress {
    bar: Option<indicatif::ProgressBar>,
    pending: super::pending::Pending,
    notices: Notices,
}

impl Progress {
    fn new(quiet: bool, printer: Printer) -> Progress {
        let bar = (!quiet && std::env::var_os("CI").is_none() && {
            use std::io::IsTerminal as _;
            std::io::stderr().is_terminal()
        })
        .then(|| {
            let bar = indicatif::ProgressBar::new(0);
            bar.set_style(
                indicatif::ProgressStyle::with_template(
                    "{elapsed_precise} [{bar:30}] {pos}/{len} hosts  {msg}",
                )
                .expect("the template is valid")
                .progress_chars("=> "),
            );
            bar
        });
        Progress {
            bar,
            pending: super::pending::Pending::default(),
            notices: Notices(printer),
        }
    }

    /// When the run is stopped, says so above the bar (`suspend`: a line printed while the
    /// bar is drawn would be torn by it); without a bar the run's end says it.
    fn say_when_stopped(&self, runtime: &tokio::runtime::Handle, stop: Cancel, printer: Printer) {
        if let Some(bar) = self.bar.clone() {
            runtime.spawn(async move {
                stop.cancelled().await;
                bar.suspend(|| {
                    printer
                        .warn("stopping: no new host starts; waiting for the running hosts to end")
                });
            });
        }
    }

    fn done(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

impl driftgate_collect::Reporter for Progress {}

impl driftgate_fleet::Reporter for Progress {
    fn planned(&self, hosts: usize) {
        self.pending.planned(hosts);
        if let Some(bar) = &self.bar {
            bar.set_length(u64::try_from(hosts).unwrap_or(u64::MAX));
        }
    }

    fn host_started(&self, host: &HostName) {
        self.pending.started(host);
        if self.bar.is_none() {
            tracing::debug!("{host}: capture started");
        }
    }

    fn host_finished(&self, host: &HostName, verdict: Verdict, took: Duration) {
        let waiting = self.pending.finished(host);
        match &self.bar {
            Some(bar) => {
                bar.inc(1);
                bar.set_message(
                    waiting.unwrap_or_else(|| format!("{host}: {}", verdict.as_upper())),
                );
            }
            None => {
                tracing::info!(
                    "{host}: {} ({:.1} s)",
                    verdict.as_upper(),
                    took.as_secs_f64()
                );
                if let Some(waiting) = waiting {
                    tracing::info!("{waiting}");
                }
            }
        }
    }

    fn notice(&self, notice: &Notice) {
        match &self.bar {
            Some(bar) => bar.suspend(|| self.notices.notice(notice)),
            None => self.notices.notice(notice),
        }
    }
}

/// Prints what a fleet run tells the operator beside its result, whatever `--quiet` says.
pub(super) struct Notices(pub Printer);

impl driftgate_collect::Reporter for Notices {}

impl driftgate_fleet::Reporter for Notices {
    fn notice(&self, notice: &Notice) {
        print_notice(&self.0, notice);
    }
}

/// A state that was not saved is a warning.
pub(super) fn print_notice(printer: &Printer, notice: &Notice) {
    match notice {
        Notice::StateNotSaved { .. } => printer.warn(&notice.to_string()),
    }
}
