//! `driftgate baseline`.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context as _;
use driftgate_baseline::input::{Loader, SnapshotRef};
use driftgate_baseline::{PromoteOutcome, PromoteRequest};
use driftgate_compare::{JudgeOptions, Verdict};
use driftgate_snapshot::HostName;

use super::common::{Context, parse_ref};
use crate::exit::Outcome;
use driftgate_report::Format;

/// Baseline store subcommands. The store is `--repo DIR`, `DRIFTGATE_REPO`, or the repository
/// around the current directory.
#[derive(Debug, clap::Subcommand)]
pub(crate) enum Command {
    /// Make DIR a baseline store (a new or existing git repository): adds `baselines/` and a
    /// commented driftgate.toml and a .gitignore of .driftgate/ in one commit; existing files
    /// are left alone.
    #[command(after_help = "Examples:\n  \
        driftgate baseline init /srv/baselines\n  \
        # then point every command at it, or run them inside it\n  \
        export DRIFTGATE_REPO=/srv/baselines")]
    Init {
        /// The repository folder (created if missing).
        dir: PathBuf,
    },
    /// Verify snapshots and commit them as their hosts' baselines, in one commit.
    ///
    /// Refuses a partial snapshot (exit 3) or one with blocking invariant or expectation
    /// findings (exit 1) unless --force --reason TEXT; the reason goes into the commit.
    /// Promoting facts identical to the current baseline commits nothing.
    #[command(after_help = "Examples:\n  \
        driftgate baseline promote --fleet azure-local node01.json node02.json -m 'after CHG-4711'\n  \
        # a host whose snapshot blocks, accepted on purpose\n  \
        driftgate baseline promote --fleet lab lab01.json --force --reason 'lab host, DCBX off by design'")]
    Promote {
        /// Snapshots: files, `-`, `git:REV:PATH` or `baseline:HOST[@REV]`.
        #[arg(required = true, value_name = "REF", value_parser = parse_ref)]
        snapshots: Vec<SnapshotRef>,
        /// Fleet folder: baselines/<FLEET>/<host>.json.
        #[arg(long, value_name = "NAME")]
        fleet: String,
        /// Message added to the commit.
        #[arg(short, long)]
        message: Option<String>,
        /// Promote even a partial or blocking snapshot.
        #[arg(long, requires = "reason")]
        force: bool,
        /// Why --force is justified; recorded in the commit.
        #[arg(long, value_name = "TEXT", requires = "force")]
        reason: Option<String>,
        /// Seconds to wait for another promote to finish.
        #[arg(long, value_name = "SECONDS", default_value_t = 10)]
        lock_wait: u64,
        /// Policy file layered over the store's driftgate.toml.
        #[arg(long, value_name = "FILE", env = "DRIFTGATE_POLICY")]
        policy: Option<PathBuf>,
    },
    /// Print a host's baseline (canonical JSON).
    #[command(after_help = "Examples:\n  \
        driftgate baseline show azl-node01\n  \
        driftgate baseline show azl-node01 --rev HEAD~1 > node01-before.json")]
    Show {
        /// The host.
        host: HostName,
        /// Revision to read it at.
        #[arg(long, default_value = "HEAD")]
        rev: String,
    },
    /// Commits that changed baselines (of HOST only, when given), newest first, with what
    /// each changed.
    #[command(after_help = "Examples:\n  \
        driftgate baseline log azl-node01 --limit 5\n  \
        driftgate baseline log                 # every host's baselines")]
    Log {
        /// The host.
        host: Option<HostName>,
        /// At most this many commits.
        #[arg(long, default_value_t = 20)]
        limit: usize,
        /// Policy file layered over the store's driftgate.toml.
        #[arg(long, value_name = "FILE", env = "DRIFTGATE_POLICY")]
        policy: Option<PathBuf>,
    },
    /// Policy-classified diff of a host's baseline between two revisions (REV2: HEAD).
    #[command(after_help = "Examples:\n  \
        driftgate baseline diff azl-node01 HEAD~1\n  \
        driftgate baseline diff azl-node01 HEAD~5 HEAD~1 --format markdown")]
    Diff {
        /// The host.
        host: HostName,
        /// The earlier revision.
        rev1: String,
        /// The later revision.
        #[arg(default_value = "HEAD")]
        rev2: String,
        /// Policy file layered over the store's driftgate.toml.
        #[arg(long, value_name = "FILE", env = "DRIFTGATE_POLICY")]
        policy: Option<PathBuf>,
        /// Report format.
        #[arg(long, value_parser = super::common::format_parser(), default_value = Format::Text.name())]
        format: Format,
    },
}

const INIT_LOCK_WAIT: Duration = Duration::from_secs(10);

pub(super) fn run(command: Command, ctx: &Context<'_>) -> anyhow::Result<Outcome> {
    match command {
        Command::Init { dir } => init(&dir, ctx),
        Command::Promote {
            snapshots,
            fleet,
            message,
            force: _,
            reason,
            lock_wait,
            policy,
        } => {
            let mut loader = Loader::new(ctx.repo.clone());
            let snapshots = loader.snapshots(&snapshots)?;
            let policy = super::common::effective_policy(&mut loader, true, policy.as_deref())?;
            let request = PromoteRequest {
                message,
                force_reason: reason,
                ..PromoteRequest::one_fleet(&fleet, snapshots, Duration::from_secs(lock_wait))
            };
            let outcome = driftgate_baseline::promote(loader.store()?, &policy, request)?;
            print_promote(&outcome, loader.store()?, ctx)
        }
        Command::Show { host, rev } => {
            let mut loader = Loader::new(ctx.repo.clone());
            let text = loader.canonical_text(&SnapshotRef::Baseline { host, rev })?;
            // JSON has no styles to strip: written as it is.
            ctx.printer
                .stdout_raw(|out| out.write_all(text.as_bytes()))?;
            Ok(Outcome::Done)
        }
        Command::Log {
            host,
            limit,
            policy,
        } => {
            let mut loader = Loader::new(ctx.repo.clone());
            let policy = super::common::effective_policy(&mut loader, true, policy.as_deref())?;
            let entries = driftgate_baseline::log(loader.store()?, &policy, host.as_ref(), limit)?;
            ctx.printer.stdout(|out| {
                if entries.is_empty() {
                    writeln!(out, "no baseline commits")?;
                }
                for entry in &entries {
                    writeln!(
                        out,
                        "{} {} {}  {}",
                        entry.id,
                        entry.time.strftime("%Y-%m-%d %H:%M"),
                        entry.author,
                        entry.summary
                    )?;
                    for (path, change) in &entry.changes {
                        match change {
                            Ok(summary) => writeln!(out, "    {path}: {}", summary.describe())?,
                            Err(problem) => writeln!(out, "    {path}: {problem}")?,
                        }
                    }
                }
                Ok(())
            })?;
            Ok(Outcome::Done)
        }
        Command::Diff {
            host,
            rev1,
            rev2,
            policy,
            format,
        } => {
            let mut loader = Loader::new(ctx.repo.clone());
            let old = loader.snapshot(&SnapshotRef::Baseline {
                host: host.clone(),
                rev: rev1,
            })?;
            let new = loader.snapshot(&SnapshotRef::Baseline { host, rev: rev2 })?;
            let policy = super::common::effective_policy(&mut loader, true, policy.as_deref())?;
            let report = driftgate_compare::judge(
                &new,
                Some(&old),
                &policy,
                &JudgeOptions {
                    strict: false,
                    changes_only: true,
                    ..JudgeOptions::default()
                },
            );
            super::reports::print_report(
                &report,
                &new,
                format,
                &super::reports::ReportArgs::default(),
                super::reports::ReportSources::default(),
                ctx.printer,
            )
        }
    }
}

fn init(dir: &std::path::Path, ctx: &Context<'_>) -> anyhow::Result<Outcome> {
    std::fs::create_dir_all(dir).with_context(|| format!("{}: cannot create", dir.display()))?;
    let outcome = driftgate_baseline::init(dir, INIT_LOCK_WAIT)?;
    warn_removed_locks(&outcome.removed_git_locks, ctx);
    let location = outcome.store.location().display().to_string();
    ctx.printer.stdout(|out| match &outcome.commit {
        Some(commit) => writeln!(
            out,
            "initialized baseline store {location}: added {} in {} on {}",
            outcome.created.join(", "),
            outcome.store.short_id(commit.id),
            commit.reference
        ),
        None => writeln!(
            out,
            "{location} is already a baseline store; nothing to add"
        ),
    })?;
    Ok(Outcome::Done)
}

/// Says which leftovers of an interrupted promote were removed, so nothing happens silently.
fn warn_removed_locks(removed: &[std::path::PathBuf], ctx: &Context<'_>) {
    for path in removed {
        ctx.printer.warn(&format!(
            "removed {}, a git lock file an interrupted promote had left (no process held it)",
            path.display()
        ));
    }
}

fn print_promote(
    outcome: &PromoteOutcome,
    store: &driftgate_store::Store,
    ctx: &Context<'_>,
) -> anyhow::Result<Outcome> {
    match outcome {
        PromoteOutcome::Refused(refusals) => {
            ctx.printer.stdout(|out| {
                for refusal in refusals {
                    let what = match refusal.verdict {
                        Verdict::Incomplete => "its capture is incomplete",
                        _ => "it has blocking findings",
                    };
                    writeln!(out, "REFUSED {} ({}): {what}", refusal.host, refusal.origin)?;
                    for reason in &refusal.reasons {
                        writeln!(out, "  {reason}")?;
                    }
                }
                writeln!(out, "nothing committed; to promote anyway: --force --reason TEXT (the reason is recorded in the commit)")
            })?;
            let verdict = if refusals.iter().any(|r| r.verdict == Verdict::Incomplete) {
                Verdict::Incomplete
            } else {
                Verdict::Block
            };
            Ok(Outcome::Judged(verdict))
        }
        PromoteOutcome::Promoted {
            hosts,
            commit,
            removed_git_locks,
        } => {
            warn_removed_locks(removed_git_locks, ctx);
            ctx.printer.stdout(|out| {
                for host in hosts {
                    match &host.change {
                        Some(change) => {
                            writeln!(out, "{} → {}: {}", host.host, host.path, change.describe())?
                        }
                        None => writeln!(
                            out,
                            "{} → {}: unchanged (same facts as the current baseline)",
                            host.host, host.path
                        )?,
                    }
                }
                match commit {
                    Some(commit) => writeln!(
                        out,
                        "committed {} on {}",
                        store.short_id(commit.id),
                        commit.reference
                    ),
                    None => writeln!(out, "no changes; nothing committed"),
                }
            })?;
            Ok(Outcome::Done)
        }
    }
}
