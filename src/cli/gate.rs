//! `driftgate gate pre|post`: arguments → gate settings → one library call → render.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context as _;
use driftgate_collect::Cancel;
use driftgate_compare::allow::{self, Allowance};
use driftgate_compare::{Policy, Verdict};
use driftgate_gate::{GateError, Progress, RunId, Settings};
use driftgate_report::document::{GateReport, PromotionOutcome};
use driftgate_snapshot::HostName;
use driftgate_store::Store;

use super::capture::CaptureFlags;
use super::common::Context;
use super::inventory::{self, InventoryArg};
use super::reports::{ReportArgs, ReportSources};
use crate::exit::Outcome;
use crate::interrupt::Interrupts;
use crate::output::Printer;
use driftgate_report::Format;

/// The two steps of a gated firmware update.
#[derive(Debug, clap::Subcommand)]
pub(crate) enum Command {
    /// Before the update: capture each host from the inventory and judge it against its
    /// baseline. A host already drifted (BLOCK, exit 1) or not completely readable
    /// (INCOMPLETE, exit 3) fails the step: do not flash it. Records the run (pre snapshots,
    /// manifest, allowances) in <store>/.driftgate/runs/<ID>/ or --run-dir.
    #[command(after_help = "Examples:\n  \
        driftgate gate pre --run CHG-4711 azl-node01 azl-node02\n  \
        driftgate gate pre --allow 'bios/pending/*' --allow-file waivers.toml azl-node01\n  \
        driftgate gate pre --run CHG-4711 --report junit=pre-junit.xml --report markdown=pre.md azl-node01\n\n\
        Without --run an id is generated and printed on standard error: pass it to `gate post --run`.")]
    Pre(PreArgs),
    /// After the update (and its reboot): capture the run's hosts again and judge them three
    /// ways, baseline → pre → post. A change the update made to a setting that keeps storage
    /// lossless blocks (exit 1), naming the firmware that changed on the same port. Each post
    /// is kept (post-1, post-2, …); --promote makes a passing post's snapshots the new
    /// baselines in one commit.
    #[command(after_help = "Examples:\n  \
        driftgate gate post --run CHG-4711\n  \
        driftgate gate post --run CHG-4711 --promote azl-node01\n  \
        driftgate gate post --run CHG-4711 --allow 'nic/*/bmc/**/dcbx_mode=disabled' --format json\n  \
        driftgate gate post --run CHG-4711 --report junit=post-junit.xml --report html=post.html")]
    Post(PostArgs),
}

/// `gate pre`.
#[derive(Debug, clap::Args)]
pub(crate) struct PreArgs {
    /// Run id (a pipeline's build id, a change number); generated when not given.
    #[arg(long, value_name = "ID")]
    run: Option<RunId>,
    #[command(flatten)]
    step: StepArgs,
    /// Hosts of the inventory to gate.
    #[arg(required = true, value_name = "HOST")]
    hosts: Vec<HostName>,
}

/// `gate post`.
#[derive(Debug, clap::Args)]
pub(crate) struct PostArgs {
    /// The run `gate pre` started.
    #[arg(long, value_name = "ID")]
    run: RunId,
    /// After a passing verdict only, commit the post snapshots as the new baselines. A
    /// passing post that could not be promoted exits 2: nothing was committed.
    #[arg(long)]
    promote: bool,
    /// Seconds --promote waits for another promote to finish.
    #[arg(
        long,
        value_name = "SECONDS",
        default_value_t = 10,
        requires = "promote"
    )]
    lock_wait: u64,
    #[command(flatten)]
    step: StepArgs,
    /// Hosts of the run to gate (default: every host of the run).
    #[arg(value_name = "HOST")]
    hosts: Vec<HostName>,
}

/// What both steps take.
#[derive(Debug, clap::Args)]
struct StepArgs {
    /// The run directory itself (default: <store>/.driftgate/runs/<ID>/; needed with a bare
    /// store).
    #[arg(long, value_name = "DIR")]
    run_dir: Option<PathBuf>,
    #[command(flatten)]
    inventory: InventoryArg,
    /// Allow a change: PATH=VALUE (PATH a glob as in policy rules; PATH alone: any value).
    /// Given at pre, an allowance is recorded for that pre's hosts: at their posts, PATH=VALUE
    /// still allows that change, PATH alone only drift that was already there at pre.
    #[arg(long, value_name = "PATH=VALUE")]
    allow: Vec<String>,
    /// TOML file of [[allow]] entries (path, value, reason, ticket, expires).
    #[arg(long, value_name = "FILE")]
    allow_file: Option<PathBuf>,
    /// Policy file layered over the store's driftgate.toml.
    #[arg(long, value_name = "FILE", env = "DRIFTGATE_POLICY")]
    policy: Option<PathBuf>,
    /// Warnings block too. Given at pre, the run's posts of those hosts are strict too.
    #[arg(long)]
    strict: bool,
    /// Hosts captured at once, and as many more slow ones (a host that has run three times as
    /// long as the typical host steps aside for a new one).
    #[arg(long, value_name = "N", default_value_t = 8, value_parser = clap::value_parser!(u16).range(1..=1024))]
    concurrency: u16,
    /// Report format: text (one story per port, root cause first), json (following
    /// `driftgate schema gate-report`), markdown (for a change ticket), or any other format of
    /// --report.
    #[arg(
        long,
        value_parser = super::common::format_parser(),
        default_value = Format::Text.name(),
        hide_possible_values = true
    )]
    format: Format,
    #[command(flatten)]
    reports: ReportArgs,
    #[command(flatten)]
    capture: CaptureFlags,
}

pub(super) fn run(command: Command, ctx: &Context<'_>) -> anyhow::Result<Outcome> {
    let cancel = Cancel::new();
    let runtime = super::common::runtime()?;
    let interrupts = match Interrupts::watch(runtime.handle(), cancel.clone(), *ctx.printer) {
        Ok(interrupts) => Some(interrupts),
        Err(e) => {
            ctx.printer.warn(&format!(
                "cannot handle signals ({e}): a signal will end the gate without deleting its Redfish sessions"
            ));
            None
        }
    };
    let (result, settings, step) = match command {
        Command::Pre(args) => {
            args.step.reports.check()?;
            let settings = settings(&args.step, ctx, cancel)?;
            let progress = Lines {
                printer: ctx.printer,
                announce: args.run.is_none(),
                pending: Default::default(),
            };
            let result = runtime.block_on(driftgate_gate::pre(
                &settings,
                args.run,
                &args.hosts,
                &progress,
            ));
            (result, settings, args.step)
        }
        Command::Post(args) => {
            args.step.reports.check()?;
            let settings = Settings {
                lock_wait: Duration::from_secs(args.lock_wait),
                ..settings(&args.step, ctx, cancel)?
            };
            let progress = Lines {
                printer: ctx.printer,
                announce: false,
                pending: Default::default(),
            };
            let result = runtime.block_on(driftgate_gate::post(
                &settings,
                &args.run,
                &args.hosts,
                args.promote,
                &progress,
            ));
            (result, settings, args.step)
        }
    };
    if let Some(signal) = interrupts.as_ref().and_then(Interrupts::received)
        && matches!(result, Err(GateError::Interrupted))
    {
        ctx.printer.error(&anyhow::anyhow!(
            "the gate was stopped by {signal}: no host started after it, no report was written"
        ));
        return Ok(Outcome::Interrupted(signal));
    }
    let report = result?;
    let sources = ReportSources {
        store: Some(&settings.store),
        policy: Some(&settings.policy),
    };
    print(&report, &step, sources, ctx.printer)
}

/// The settings `step` gives.
fn settings(step: &StepArgs, ctx: &Context<'_>, cancel: Cancel) -> anyhow::Result<Settings> {
    let dir = ctx.repo.clone().unwrap_or_else(|| PathBuf::from("."));
    let store = Store::discover(&dir)?;
    let policy: Policy = driftgate_baseline::input::policy(Some(&store), step.policy.as_deref())?;
    for warning in policy.warnings() {
        ctx.printer.warn(warning);
    }
    let inventory = inventory::load(&step.inventory, ctx)?;
    let sources = inventory.hosts.iter().flat_map(|h| &h.sources);
    step.capture.warn_insecure(sources, ctx);
    let mut allowances = step
        .allow
        .iter()
        .map(|a| Allowance::parse_arg(a))
        .collect::<Result<Vec<_>, _>>()?;
    if let Some(file) = &step.allow_file {
        let text = std::fs::read_to_string(file)
            .with_context(|| format!("{}: cannot read", file.display()))?;
        allowances.extend(allow::parse_allow_file(&text, &file.display().to_string())?);
    }
    Ok(Settings {
        run_dir: step.run_dir.clone(),
        strict: step.strict,
        allowances,
        concurrency: usize::from(step.concurrency),
        capture: step.capture.options(None, cancel)?,
        ..Settings::new(store, inventory, policy)
    })
}

/// Renders `report` and returns the verdict. Text and Markdown carry the warnings and what
/// `--promote` did; beside JSON (read by a program) they are said on standard error too, for
/// whoever reads the pipeline's log.
fn print(
    report: &GateReport,
    step: &StepArgs,
    sources: ReportSources<'_>,
    printer: &Printer,
) -> anyhow::Result<Outcome> {
    if !matches!(
        step.reports.stdout_format(step.format),
        Format::Text | Format::Markdown
    ) {
        for warning in &report.warnings {
            printer.warn(warning);
        }
        match &report.promotion {
            Some(PromotionOutcome::Promoted(p)) => match &p.commit {
                Some(commit) => printer.status(&format!(
                    "promoted {} baseline(s) in commit {commit}",
                    p.files.len()
                )),
                None => printer.status("promote: every baseline was already up to date"),
            },
            Some(PromotionOutcome::Skipped { reason }) => {
                printer.status(&format!("not promoted: {reason}"));
            }
            None => {}
        }
    }
    super::reports::emit(report.into(), step.format, &step.reports, sources, printer)?;
    // A pipeline that asked for a promote of a passing post must not go on as if it happened.
    if let Some(PromotionOutcome::Skipped { reason }) = &report.promotion
        && matches!(report.verdict, Verdict::Pass | Verdict::Warn)
    {
        anyhow::bail!(
            "the post passed but was not promoted ({reason}): exit 2, the baselines are unchanged"
        );
    }
    Ok(Outcome::Judged(report.verdict))
}

/// Progress lines on standard error, one per host as it finishes, and the hosts still
/// running once no other is left.
struct Lines<'a> {
    printer: &'a Printer,
    /// Say the run id: it was generated.
    announce: bool,
    pending: super::pending::Pending,
}

/// Sources say nothing: a host's line says how it went.
impl driftgate_collect::Reporter for Lines<'_> {}

impl Progress for Lines<'_> {
    fn run(&self, id: &RunId, _dir: &std::path::Path) {
        if self.announce {
            self.printer
                .status(&format!("run {id}: pass it to gate post --run {id}"));
        }
    }

    fn planned(&self, hosts: usize) {
        self.pending.planned(hosts);
    }

    fn started(&self, host: &HostName) {
        self.pending.started(host);
    }

    fn finished(&self, host: &HostName, verdict: Verdict, took: Duration) {
        self.printer.status(&format!(
            "{host}: {} ({:.1} s)",
            verdict.as_upper(),
            took.as_secs_f64()
        ));
        if let Some(waiting) = self.pending.finished(host) {
            self.printer.status(&waiting);
        }
    }

    fn notice(&self, notice: &driftgate_fleet::Notice) {
        super::check::print_notice(self.printer, notice);
    }

    fn ignore_created(&self, file: &std::path::Path) {
        self.printer.status(&format!(
            "driftgate: wrote {} (`*`): git ignores driftgate's run folders in this store",
            file.display()
        ));
    }
}
