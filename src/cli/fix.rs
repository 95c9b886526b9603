//! `driftgate fix plan|apply`: arguments → settings → one library call → render.

use std::io::{BufRead as _, IsTerminal as _, Write as _};
use std::path::{Path, PathBuf};

use anyhow::{Context as _, bail};
use driftgate_baseline::input::{Loader, SnapshotRef};
use driftgate_collect::Cancel;
use driftgate_compare::{JudgeOptions, Verdict};
use driftgate_fix::Plan;
use driftgate_gate::fix::{self, ApplyRequest, LayerChoice, LockEvent, Planned};
use driftgate_gate::{RunId, Settings};
use driftgate_snapshot::HostName;
use driftgate_store::Store;

use super::capture::CaptureFlags;
use super::common::Context;
use super::inventory::{self, InventoryArg};
use crate::exit::Outcome;
use crate::interrupt::Interrupts;
use crate::output::Printer;

/// Plan and apply the remediation of blocking findings.
#[derive(Debug, clap::Subcommand)]
pub(crate) enum Command {
    /// For each blocking finding whose known-good value is known (the baseline's, a policy
    /// rule's `expect`, an invariant's), the step of the layer that owns the setting: a
    /// Redfish settings PATCH (the BMC is read to find the attribute and check the value
    /// against its registry), PowerShell, esxcli or mlxconfig lines; and why no setting fixes
    /// the rest (a firmware version, a capability). Sends nothing. Exit 0 planned (or nothing
    /// to fix), 2 bad input or an incomplete host, 3 a BMC could not be read.
    #[command(after_help = "Examples:\n  \
        driftgate fix plan --run CHG-4711\n  \
        driftgate fix plan --run CHG-4711 azl-node01 --format json > plan.json\n  \
        driftgate fix plan --snapshot current.json --baseline baseline.json --emit-scripts fix/\n  \
        driftgate fix plan --out-dir /var/lib/driftgate/nightly")]
    Plan(PlanArgs),
    /// Apply the plan of a run: the BMC's steps (default) as Redfish PATCHes staged for the
    /// next reset and read back as pending, or with --layer os the OS steps through the hosts'
    /// transports. A value already current or staged is skipped; a read-only attribute, a
    /// value its registry does not allow or an incomplete host is refused and nothing is sent;
    /// another value staged for the same attribute refuses that step. Everything sent is
    /// recorded in the run directory with the ticket; `gate post --run ID` verifies it.
    ///
    /// One apply of a run at a time: it locks the run (fix/apply.lock, released by the kernel
    /// however the apply ends) before reading the BMCs; a second apply of the run exits 2
    /// naming the holder (pid, machine, since when, ticket), or waits for it with --wait. Each
    /// request is recorded in fix/apply-N.json (step "sending") before it is sent, and again
    /// with its answer. SIGINT or SIGTERM lets the request in flight finish (within 10 s),
    /// records it, sends nothing more, deletes the BMC sessions and exits 130 or 143; a rerun
    /// names the stopped apply's record and ticket for a step it finds staged.
    ///
    /// Exit 0 applied (or nothing to apply, or a dry run), 1 not applied: partly applied or
    /// failed (a step was refused by the BMC, conflicted or did not take, or a reset was
    /// refused), 2 refused before sending, bad input or the run is locked, 3 a BMC could not
    /// be read (nothing is sent to any host then), 128 + N stopped by signal N.
    #[command(after_help = "Examples:\n  \
        driftgate fix apply --run CHG-4711 --ticket CHG-4711 --dry-run\n  \
        driftgate fix apply --run CHG-4711 --ticket CHG-4711 --yes\n  \
        driftgate fix apply --run CHG-4711 --ticket CHG-4711 --yes --reset azl-node01\n  \
        driftgate gate post --run CHG-4711   # after the reset: verifies each step")]
    Apply(ApplyArgs),
}

/// Output formats of `fix plan`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(super) enum PlanFormat {
    /// For a change ticket.
    Text,
    /// Following `driftgate schema fix-plan`.
    Json,
}

/// `fix plan`.
#[derive(Debug, clap::Args)]
pub(crate) struct PlanArgs {
    /// The run (after a blocked `gate pre` or `gate post`): each host's latest step.
    #[arg(long, value_name = "ID", group = "from")]
    run: Option<RunId>,
    /// A nightly `check --all --out-dir`: its snapshots judged again against the store.
    #[arg(long, value_name = "DIR", group = "from")]
    out_dir: Option<PathBuf>,
    /// One snapshot (a file, `-`, `git:REV:PATH`, `baseline:HOST[@REV]`).
    #[arg(long, value_name = "SNAP", group = "from", value_parser = super::common::parse_ref)]
    snapshot: Option<SnapshotRef>,
    /// Its baseline (with --snapshot).
    #[arg(long, value_name = "SNAP", requires = "snapshot", value_parser = super::common::parse_ref)]
    baseline: Option<SnapshotRef>,
    /// The run directory itself (default: <store>/.driftgate/runs/<ID>/).
    #[arg(long, value_name = "DIR", requires = "run")]
    run_dir: Option<PathBuf>,
    #[command(flatten)]
    inventory: InventoryArg,
    /// Policy file layered over the store's driftgate.toml, to judge --out-dir and --snapshot
    /// (a run's steps were judged at the gate, under the policy of its pre).
    #[arg(
        long,
        value_name = "FILE",
        env = "DRIFTGATE_POLICY",
        conflicts_with = "run"
    )]
    policy: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = PlanFormat::Text)]
    format: PlanFormat,
    /// Write runnable scripts per host and layer here (POSIX sh for ESXi, Linux and the BMC's
    /// requests, PowerShell for Windows), for a change process to review and run.
    #[arg(long, value_name = "DIR")]
    emit_scripts: Option<PathBuf>,
    #[command(flatten)]
    capture: CaptureFlags,
    /// Hosts to plan (default: all).
    #[arg(value_name = "HOST")]
    hosts: Vec<HostName>,
}

/// Layers `fix apply` applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(super) enum LayerArg {
    /// The BMC's Redfish settings.
    Bmc,
    /// The operating system's commands, through the host's transports.
    Os,
}

/// `fix apply`.
#[derive(Debug, clap::Args)]
pub(crate) struct ApplyArgs {
    /// The run whose plan to apply.
    #[arg(long, value_name = "ID")]
    run: RunId,
    /// The change ticket: recorded with every step and in the next promote's commit.
    #[arg(long, value_name = "TEXT")]
    ticket: String,
    /// Which layer's steps.
    #[arg(long, value_enum, default_value_t = LayerArg::Bmc)]
    layer: LayerArg,
    /// Reset each system whose BMC steps were staged (ComputerSystem.Reset, GracefulRestart).
    #[arg(long)]
    reset: bool,
    /// Apply at once where a BMC offers no staged apply time.
    #[arg(long)]
    immediate: bool,
    /// Do not ask for confirmation.
    #[arg(long)]
    yes: bool,
    /// Print exactly what would be sent; send nothing (and take no lock).
    #[arg(long)]
    dry_run: bool,
    /// When another fix apply of the run holds its lock, wait for it to end (then plan from
    /// what it did) instead of exiting 2.
    #[arg(long)]
    wait: bool,
    /// The run directory itself (default: <store>/.driftgate/runs/<ID>/).
    #[arg(long, value_name = "DIR")]
    run_dir: Option<PathBuf>,
    #[command(flatten)]
    inventory: InventoryArg,
    #[command(flatten)]
    capture: CaptureFlags,
    /// Hosts of the run (default: all).
    #[arg(value_name = "HOST")]
    hosts: Vec<HostName>,
}

/// Runs `fix plan` or `fix apply`.
pub(super) fn run(command: Command, ctx: &Context<'_>) -> anyhow::Result<Outcome> {
    match command {
        Command::Plan(args) => plan(args, ctx),
        Command::Apply(args) => apply(args, ctx),
    }
}

fn store_settings(
    ctx: &Context<'_>,
    inventory: &InventoryArg,
    capture: &CaptureFlags,
    policy: Option<&Path>,
    run_dir: Option<PathBuf>,
    cancel: Cancel,
) -> anyhow::Result<Settings> {
    let dir = ctx.repo.clone().unwrap_or_else(|| PathBuf::from("."));
    let store = Store::discover(&dir)?;
    let policy = driftgate_baseline::input::policy(Some(&store), policy)?;
    let inventory = inventory::load(inventory, ctx)?;
    let sources = inventory.hosts.iter().flat_map(|h| &h.sources);
    capture.warn_insecure(sources, ctx);
    Ok(Settings {
        run_dir,
        capture: capture.options(None, cancel)?,
        ..Settings::new(store, inventory, policy)
    })
}

fn plan(args: PlanArgs, ctx: &Context<'_>) -> anyhow::Result<Outcome> {
    let runtime = super::common::runtime()?;
    let planned = if let Some(run) = &args.run {
        let settings = store_settings(
            ctx,
            &args.inventory,
            &args.capture,
            args.policy.as_deref(),
            args.run_dir.clone(),
            Cancel::new(),
        )?;
        runtime.block_on(fix::plan_run(&settings, run, &args.hosts))?
    } else if let Some(dir) = &args.out_dir {
        let settings = store_settings(
            ctx,
            &args.inventory,
            &args.capture,
            args.policy.as_deref(),
            None,
            Cancel::new(),
        )?;
        let judged = fix::out_dir(&settings, dir, &args.hosts)?;
        let from = format!("nightly out-dir {}", dir.display());
        runtime.block_on(fix::plan_judged(
            &judged,
            Some(&settings),
            &settings.capture,
            from,
        ))
    } else if let Some(reference) = &args.snapshot {
        let mut loader = Loader::new(ctx.repo.clone());
        let snapshot = loader.snapshot(reference)?;
        let baseline = args
            .baseline
            .as_ref()
            .map(|r| loader.snapshot(r))
            .transpose()?;
        let policy = super::common::effective_policy(
            &mut loader,
            ctx.repo.is_some(),
            args.policy.as_deref(),
        )?;
        if let Some(baseline) = &baseline {
            driftgate_compare::same_host(&snapshot, baseline)?;
        }
        let report = driftgate_compare::judge(
            &snapshot,
            baseline.as_ref(),
            &policy,
            &JudgeOptions::default(),
        );
        let from = match &baseline {
            Some(b) => format!("snapshot {} against {}", snapshot.origin(), b.origin()),
            None => format!("snapshot {}", snapshot.origin()),
        };
        let capture = args.capture.options(None, Cancel::new())?;
        let judged = [fix::Judged { snapshot, report }];
        runtime.block_on(fix::plan_judged(&judged, None, &capture, from))
    } else {
        bail!("give what to plan from: --run ID, --out-dir DIR or --snapshot SNAP");
    };
    render_plan(&planned, args.format, args.emit_scripts.as_deref(), ctx)
}

fn render_plan(
    planned: &Planned,
    format: PlanFormat,
    scripts: Option<&Path>,
    ctx: &Context<'_>,
) -> anyhow::Result<Outcome> {
    let plan = &planned.plan;
    match format {
        PlanFormat::Text => ctx
            .printer
            .stdout(|out| out.write_all(driftgate_fix::text(plan).as_bytes()))?,
        PlanFormat::Json => {
            let mut text = serde_json::to_string_pretty(plan)?;
            text.push('\n');
            ctx.printer
                .stdout_raw(|out| out.write_all(text.as_bytes()))?;
        }
    }
    if let Some(dir) = scripts {
        write_scripts(plan, dir, ctx)?;
    }
    if !planned.incomplete.is_empty() {
        bail!(
            "no plan for {}: judged on an incomplete capture (a fix is planned only from a whole one; capture again first)",
            planned.incomplete.join(", ")
        );
    }
    if planned.unread() {
        ctx.printer
            .warn("a BMC could not be read: its BMC findings have no step (exit 3)");
        return Ok(Outcome::Judged(Verdict::Incomplete));
    }
    Ok(Outcome::Done)
}

fn write_scripts(plan: &Plan, dir: &Path, ctx: &Context<'_>) -> anyhow::Result<()> {
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::create_dir_all(dir).with_context(|| format!("{}: cannot create", dir.display()))?;
    for (name, text) in driftgate_fix::script_files(plan) {
        let file = dir.join(&name);
        let temp = tempfile::NamedTempFile::new_in(dir)
            .with_context(|| format!("{}: cannot write", dir.display()))?;
        std::fs::write(temp.path(), text)
            .with_context(|| format!("{}: cannot write", file.display()))?;
        std::fs::set_permissions(temp.path(), std::fs::Permissions::from_mode(0o755))?;
        temp.persist(&file)
            .with_context(|| format!("{}: cannot write", file.display()))?;
        ctx.printer.status(&format!("wrote {}", file.display()));
    }
    Ok(())
}

fn apply(args: ApplyArgs, ctx: &Context<'_>) -> anyhow::Result<Outcome> {
    let cancel = Cancel::new();
    let settings = store_settings(
        ctx,
        &args.inventory,
        &args.capture,
        None,
        args.run_dir.clone(),
        cancel.clone(),
    )?;
    let runtime = super::common::runtime()?;
    let request = ApplyRequest {
        run: args.run.clone(),
        ticket: args.ticket.clone(),
        hosts: args.hosts.clone(),
        layer: match args.layer {
            LayerArg::Bmc => LayerChoice::Bmc,
            LayerArg::Os => LayerChoice::Os,
        },
        reset: args.reset,
        immediate: args.immediate,
        dry_run: args.dry_run,
        wait: args.wait,
    };
    // Nothing is sent unless asked for: `--yes`, or a yes on a terminal after the plan.
    let can_ask = std::io::stdin().is_terminal() && std::io::stderr().is_terminal();
    if !(args.yes || args.dry_run || can_ask) {
        bail!(
            "fix apply asks for confirmation on a terminal and there is none: review `fix plan --run {}` (or `fix apply --dry-run`), then pass --yes; nothing was sent",
            args.run
        );
    }
    let printer = ctx.printer;
    let interrupts = match Interrupts::watch(runtime.handle(), cancel.clone(), *printer) {
        Ok(interrupts) => Some(interrupts),
        Err(e) => {
            printer.warn(&format!(
                "cannot handle signals ({e}): a signal will end fix apply without recording the request in flight or deleting its Redfish sessions"
            ));
            None
        }
    };
    let signal = || interrupts.as_ref().and_then(Interrupts::received);
    let mut confirm = |plan: &Plan| {
        let _ = printer.stdout(|out| out.write_all(driftgate_fix::text(plan).as_bytes()));
        args.yes || ask(plan, &args.ticket, &cancel)
    };
    let mut locked = |event: LockEvent<'_>| say_lock(printer, &args.run, event);
    let applied = match runtime.block_on(fix::apply(&settings, &request, &mut confirm, &mut locked))
    {
        Ok(applied) => applied,
        Err(e) => {
            if let Some(signal) = signal() {
                printer.error(&anyhow::anyhow!("{e} (stopped by {signal})"));
                return Ok(Outcome::Interrupted(signal));
            }
            return Err(e.into());
        }
    };
    if applied.declined {
        bail!("not confirmed: nothing was sent");
    }
    printer.fix_applied(&applied)?;
    if let Some(signal) = signal().filter(|_| applied.stopped) {
        printer.fix_stopped(&applied, signal, &args.ticket);
        return Ok(Outcome::Interrupted(signal));
    }
    if let Some(error) = &applied.record_error {
        bail!(
            "the steps above were sent, but their record could not be written ({error}): `gate post` cannot verify them; keep this output with ticket {}",
            args.ticket
        );
    }
    printer.fix_outcome(&applied, &args.ticket);
    Ok(Outcome::Applied(applied.outcome()))
}

/// Says whom `fix apply` waits for, or that the apply before it was killed.
fn say_lock(printer: &Printer, run: &RunId, event: LockEvent<'_>) {
    match event {
        LockEvent::Waiting(holder) => {
            let who = holder.map_or_else(
                || "its holder has not said who it is yet".to_owned(),
                ToString::to_string,
            );
            printer.status(&format!(
                "waiting for the fix apply of run {run} ({who}) to end"
            ));
        }
        LockEvent::Stale(holder) => printer.warn(&format!(
            "the fix apply of run {run} before this one ({holder}) ended without releasing \
             its lock: it was killed or its machine stopped; its record says what it sent and \
             what it was sending"
        )),
    }
}

/// Asks on the terminal; no on anything but yes, and no once `cancel` is (a signal while
/// asking: the line is read on a thread of its own, left blocked as the process ends).
fn ask(plan: &Plan, ticket: &str, cancel: &Cancel) -> bool {
    let steps: usize = plan.hosts.iter().map(|h| h.steps.len()).sum();
    let mut stderr = std::io::stderr().lock();
    let _ = write!(
        stderr,
        "driftgate: apply {steps} step(s) on {} host(s) under ticket {ticket}? [y/N] ",
        plan.hosts.len()
    );
    let _ = stderr.flush();
    drop(stderr);
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut answer = String::new();
        let read = std::io::stdin()
            .lock()
            .read_line(&mut answer)
            .map(|_| answer);
        let _ = sender.send(read);
    });
    loop {
        match receiver.recv_timeout(std::time::Duration::from_millis(100)) {
            Ok(Ok(answer)) => {
                return matches!(answer.trim().to_ascii_lowercase().as_str(), "y" | "yes");
            }
            Ok(Err(_)) | Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => return false,
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) if cancel.is_cancelled() => {
                return false;
            }
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {}
        }
    }
}
