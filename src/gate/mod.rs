//! The pre/post gate of a firmware rollout: capture each host from the inventory, judge it
//! against its baseline (pre), then baseline → pre → post (post), keep everything in a run
//! directory, and promote the post snapshots after a passing post. Prints nothing; returns a
//! [`GateReport`] and tells a [`Progress`] what it is doing. Imports: [`crate::inventory`],
//! [`crate::collect`], [`crate::store`], [`crate::baseline`], [`crate::compare`],
//! [`crate::snapshot`], [`crate::limits`].
//!
//! ```no_run
//! # #[tokio::main]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use driftgate::collect::Reporter;
//! use driftgate::gate::{self, Progress, Settings};
//! use driftgate::snapshot::HostName;
//!
//! struct Quiet;
//! impl Reporter for Quiet {}
//! impl Progress for Quiet {}
//!
//! let store = driftgate::store::Store::discover(std::path::Path::new("/srv/baselines"))?;
//! let inventory = driftgate::inventory::Inventory::load("/srv/baselines/inventory.toml".as_ref())?;
//! let settings = Settings::new(store, inventory, driftgate::compare::Policy::builtin());
//! let hosts = vec![HostName::new("azl-node01")?];
//! let pre = gate::pre(&settings, None, &hosts, &Quiet).await?;
//! // … update the firmware, reboot …
//! let run = gate::RunId::new(pre.run.id.clone())?;
//! let post = gate::post(&settings, &run, &[], true, &Quiet).await?;
//! println!("{:?}", post.verdict);
//! # Ok(()) }
//! ```

mod capture;
mod promote;
mod report;
mod run;
#[cfg(test)]
mod test_support;
mod waive;

use std::path::{Path, PathBuf};
use std::time::Duration;

pub use report::{
    GATE_REPORT_SCHEMA_ID, GateReport, HostOutcome, Promotion, PromotionOutcome, RunSummary, Step,
};
pub use run::{BadRunId, MANIFEST_SCHEMA_ID, Manifest, RUNS_DIR, RunDir, RunHost, RunId};

use crate::collect::{self, CaptureOptions};
use crate::compare::{self, Allowance, Comparison, JudgeOptions, Policy, Verdict};
use crate::fsutil::Folder;
use crate::inventory::{Inventory, InventoryHost};
use crate::snapshot::{HostName, SnapshotError, VerifiedSnapshot};
use crate::store::{BaselineReadError, Store, StoreError};

/// What a gate step works with: chosen by the caller, the same for every host.
#[derive(Debug)]
pub struct Settings {
    /// The baseline store: `baselines/<fleet>/<host>.json` at HEAD are the baselines.
    pub store: Store,
    /// Which hosts exist and where each is read from.
    pub inventory: Inventory,
    /// The effective policy.
    pub policy: Policy,
    /// The run directory itself, instead of `<store>/.driftgate/runs/<ID>/`.
    pub run_dir: Option<PathBuf>,
    /// Warnings block.
    pub strict: bool,
    /// This step's allowances (`--allow`, `--allow-file`); expired ones are ignored with a
    /// warning.
    pub allowances: Vec<Allowance>,
    /// Hosts captured at once.
    pub concurrency: usize,
    /// Capture settings every host starts from; its inventory entry's CA file, time limits
    /// and credentials replace these. Its `cancel` stops the step: no new host starts.
    pub capture: CaptureOptions,
    /// How long `--promote` waits for another promote's lock.
    pub lock_wait: Duration,
}

impl Settings {
    /// Settings with no allowances, not strict, 8 hosts at a time, default capture options.
    pub fn new(store: Store, inventory: Inventory, policy: Policy) -> Self {
        Settings {
            store,
            inventory,
            policy,
            run_dir: None,
            strict: false,
            allowances: Vec::new(),
            concurrency: 8,
            capture: CaptureOptions::default(),
            lock_wait: Duration::from_secs(10),
        }
    }
}

/// What a gate step tells its caller while it works (the library prints nothing): the
/// capture's [`collect::Reporter`] (each source of each host) and the step's own events. One
/// reporter pattern for every command that captures.
pub trait Progress: collect::Reporter {
    /// The step works on run `id` in `dir`.
    fn run(&self, _id: &RunId, _dir: &Path) {}
    /// A host's capture started.
    fn started(&self, _host: &HostName) {}
    /// A host was captured, written to the run directory and judged.
    fn finished(&self, _host: &HostName, _verdict: Verdict, _took: Duration) {}
}

/// Why a gate step could not run (exit 2): bad input, configuration or run directory.
#[derive(Debug, thiserror::Error)]
pub enum GateError {
    /// No host given to `pre`.
    #[error("no host given: name the hosts of the run (see `driftgate inventory list`)")]
    NoHosts,
    /// A host the inventory does not list.
    #[error("{inventory}: no host {host} in the inventory")]
    UnknownHost {
        /// The host.
        host: HostName,
        /// The inventory file.
        inventory: String,
    },
    /// A host without a baseline to gate against.
    #[error(
        "host {host} has no baseline in {store} (baselines/{fleet}/{host}.json at HEAD): capture it and promote one first, e.g. `driftgate capture --host {host} … --out {host}.json && driftgate baseline promote {host}.json --fleet {fleet}`"
    )]
    NoBaseline {
        /// The host.
        host: HostName,
        /// Its fleet in the inventory.
        fleet: String,
        /// The store.
        store: String,
    },
    /// The inventory and the store disagree on a host's fleet.
    #[error(
        "{inventory}: host {host} is in fleet {fleet}, but its baseline is {baseline}; fix the inventory or move the baseline"
    )]
    OtherFleet {
        /// The host.
        host: HostName,
        /// Its fleet in the inventory.
        fleet: String,
        /// Its baseline file.
        baseline: String,
        /// The inventory file.
        inventory: String,
    },
    /// A baseline of another host.
    #[error(transparent)]
    HostMismatch(#[from] compare::HostMismatch),
    /// A bare store has no work tree to keep runs in.
    #[error("{store} is a bare repository: give the run directory with --run-dir DIR")]
    BareStore {
        /// The store.
        store: String,
    },
    /// `post` of a run that does not exist.
    #[error(
        "no run {id}: {dir} has no manifest.json (start the run with `driftgate gate pre --run {id} HOST…`)"
    )]
    NoSuchRun {
        /// The run id.
        id: RunId,
        /// Where it was looked for.
        dir: String,
    },
    /// The run directory holds another run.
    #[error("{dir} holds run {found}, not {id}")]
    OtherRun {
        /// The run id asked for.
        id: String,
        /// The run the directory holds.
        found: String,
        /// The directory.
        dir: String,
    },
    /// `pre` of a host that already had a post in the run.
    #[error(
        "host {host} already has a post in run {id} ({dir}/post-{post}): its pre is what that post was judged against and stays; start a new run for a new pre"
    )]
    HasPost {
        /// The host.
        host: HostName,
        /// The run.
        id: RunId,
        /// Its directory.
        dir: String,
        /// The latest post.
        post: u32,
    },
    /// `post` for a host that is not in the run.
    #[error(
        "host {host} is not in run {id} (its hosts: {hosts}); run `gate pre --run {id} {host}` first"
    )]
    NotInRun {
        /// The host.
        host: HostName,
        /// The run.
        id: RunId,
        /// The run's hosts.
        hosts: String,
    },
    /// `post` for a host of the run whose pre never finished.
    #[error(
        "host {host} has no pre snapshot in run {id} ({file} is missing): run `gate pre --run {id} {host}` again"
    )]
    NoPre {
        /// The host.
        host: HostName,
        /// The run.
        id: RunId,
        /// The missing file.
        file: String,
    },
    /// A host's inventory entry gives no capture settings (its CA file, its BMC account).
    #[error(transparent)]
    HostOptions(#[from] crate::inventory::HostOptionsError),
    /// Something other than driftgate's own folder or file where a run keeps one.
    #[error(transparent)]
    NotOurs(#[from] crate::fsutil::NotOurs),
    /// A run file cannot be read or written.
    #[error("{file}: {error}")]
    Io {
        /// The file.
        file: String,
        /// Why.
        error: std::io::Error,
    },
    /// A manifest that does not read as one.
    #[error("{file}: not a driftgate run manifest: {reason}")]
    Manifest {
        /// The file.
        file: String,
        /// Why.
        reason: String,
    },
    /// A snapshot (baseline or pre) that does not verify.
    #[error(transparent)]
    Snapshot(#[from] SnapshotError),
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// Promoting failed (the lock, the commit).
    #[error(transparent)]
    Promote(#[from] crate::baseline::PromoteError),
    /// The step was stopped (`Settings::capture.cancel`) before it finished: no report was
    /// written, nor a snapshot of a host whose capture it cut short.
    #[error("stopped before it finished")]
    Interrupted,
}

/// One host's inputs, resolved before anything is captured.
struct Planned<'a> {
    host: &'a InventoryHost,
    fleet: String,
    cluster: Option<String>,
    baseline: Baseline,
    pre: Option<VerifiedSnapshot>,
    options: CaptureOptions,
    /// Judged with `--strict`.
    strict: bool,
    /// Allowances that apply to any of its findings.
    allowances: Vec<Allowance>,
    /// Waivers given at its pre: they apply only to drift already there at pre.
    waivers: Vec<Allowance>,
}

/// A host's baseline and the store commit it was read at.
struct Baseline {
    snapshot: VerifiedSnapshot,
    commit: String,
}

/// `gate pre`: captures `hosts`, judges each against its baseline, and records the run
/// (`run_id`, or a generated id) with its pre snapshots. A host already drifted (block) or
/// not completely readable fails the step before anything is flashed.
pub async fn pre(
    settings: &Settings,
    run_id: Option<RunId>,
    hosts: &[HostName],
    progress: &dyn Progress,
) -> Result<GateReport, GateError> {
    if hosts.is_empty() {
        return Err(GateError::NoHosts);
    }
    let hosts = unique(hosts);
    let (allowances, expired) = in_force(settings.allowances.clone());
    let head = head(&settings.store)?;
    let mut planned = Vec::new();
    for name in &hosts {
        let host = inventory_host(settings, name)?;
        planned.push(Planned {
            host,
            fleet: host.fleet.clone(),
            cluster: host.cluster.clone(),
            baseline: baseline(settings, host, head.as_deref())?,
            pre: None,
            options: host_options(settings, host)?,
            strict: settings.strict,
            allowances: allowances.clone(),
            waivers: Vec::new(),
        });
    }
    let id = run_id.unwrap_or_else(|| RunId::generate(jiff::Timestamp::now()));
    let run = RunDir::locate(&settings.store, settings.run_dir.as_deref(), &id)?;
    let existing = run.manifest()?;
    if let Some(existing) = &existing
        && existing.id != id.as_str()
    {
        return Err(other_run(&run, &id, existing));
    }
    // A serial rollout gates node after node in one run: only a host that was already
    // posted keeps its pre.
    for name in &hosts {
        if let Some(post) = run.last_post_of(name)? {
            return Err(GateError::HasPost {
                host: name.clone(),
                id,
                dir: run.path().display().to_string(),
                post,
            });
        }
    }
    let policy_digest = run::policy_digest(&settings.policy);
    let manifest = pre_manifest(existing, &id, settings, &policy_digest, &planned);
    let step = run.create()?;
    run.write_manifest(&manifest)?;
    progress.run(&id, run.path());
    let outcomes = capture_and_judge(settings, &planned, &step, progress).await?;
    let report = gate_report(
        &run,
        &id,
        Step::Pre,
        None,
        &manifest,
        &policy_digest,
        settings.strict,
        outcomes.into_iter().map(|(o, _)| o).collect(),
        allowances,
        expired,
        Vec::new(),
    );
    RunDir::write_report(&step, &report)?;
    Ok(report)
}

/// `gate post`: captures the run's `hosts` (all of them when empty) again, judges each
/// baseline → pre → post with the run's allowances and this step's, keeps the result as the
/// run's next `post-N`, and with `promote`, after a passing verdict only, makes the post
/// snapshots the new baselines in one commit.
pub async fn post(
    settings: &Settings,
    run_id: &RunId,
    hosts: &[HostName],
    promote: bool,
    progress: &dyn Progress,
) -> Result<GateReport, GateError> {
    let run = RunDir::locate(&settings.store, settings.run_dir.as_deref(), run_id)?;
    let manifest = run.manifest()?.ok_or_else(|| GateError::NoSuchRun {
        id: run_id.clone(),
        dir: run.path().display().to_string(),
    })?;
    if manifest.id != run_id.as_str() {
        return Err(other_run(&run, run_id, &manifest));
    }
    let hosts = if hosts.is_empty() {
        manifest.hosts.iter().map(|h| h.name.clone()).collect()
    } else {
        unique(hosts)
    };
    let (own, mut expired) = in_force(settings.allowances.clone());
    let mut allowances = Vec::new();
    let mut warnings = Vec::new();
    let mut moved = Vec::new();
    let mut planned = Vec::new();
    for name in &hosts {
        let Some(in_run) = manifest.hosts.iter().find(|h| h.name == *name) else {
            let names: Vec<&str> = manifest.hosts.iter().map(|h| h.name.as_str()).collect();
            return Err(GateError::NotInRun {
                host: name.clone(),
                id: run_id.clone(),
                hosts: names.join(", "),
            });
        };
        let pre = run.pre(name)?.ok_or_else(|| GateError::NoPre {
            host: name.clone(),
            id: run_id.clone(),
            file: RunDir::snapshot_file(&run.pre_dir(), name)
                .display()
                .to_string(),
        })?;
        if pre.snapshot().host != *name {
            return Err(GateError::HostMismatch(compare::HostMismatch {
                snapshot: pre.origin().to_owned(),
                host: pre.snapshot().host.to_string(),
                baseline: format!("host {name} of run {run_id}"),
                baseline_host: name.to_string(),
            }));
        }
        let host = inventory_host(settings, name)?;
        // The pre's allowances, as expired today; a value declares a change, none waives.
        let (recorded, gone) = in_force(in_run.allowances.clone());
        add_new(&mut expired, gone);
        let (declared, waivers): (Vec<Allowance>, Vec<Allowance>) =
            recorded.into_iter().partition(|a| a.value.is_some());
        let mut host_allowances = declared;
        add_new(&mut host_allowances, own.clone());
        add_new(&mut allowances, host_allowances.clone());
        add_new(&mut allowances, waivers.clone());
        let baseline = baseline(settings, host, Some(&in_run.baseline_commit))?;
        if let Some(warning) = moved_baseline(settings, &run, host, in_run, run_id)? {
            moved.push(name.to_string());
            warnings.push(warning);
        }
        planned.push(Planned {
            host,
            fleet: in_run.fleet.clone(),
            cluster: in_run.cluster.clone(),
            baseline,
            pre: Some(pre),
            options: host_options(settings, host)?,
            strict: settings.strict || in_run.strict,
            allowances: host_allowances,
            waivers,
        });
    }
    let strict_at_pre: Vec<&str> = planned
        .iter()
        .filter(|p| p.strict && !settings.strict)
        .map(|p| p.host.name.as_str())
        .collect();
    if !strict_at_pre.is_empty() {
        warnings.push(format!(
            "the pre of {} in run {run_id} was judged with --strict: this post is too (warnings block)",
            strict_at_pre.join(", ")
        ));
    }
    let policy_digest = run::policy_digest(&settings.policy);
    // Each host is held to the policy its own pre was judged by: a serial rollout may add
    // hosts to the run under a newer policy.
    let changed_policy: Vec<(&str, &str)> = planned
        .iter()
        .filter_map(|p| {
            let in_run = manifest.hosts.iter().find(|h| h.name == p.host.name)?;
            (in_run.policy_digest != policy_digest)
                .then_some((p.host.name.as_str(), in_run.policy_digest.as_str()))
        })
        .collect();
    let policy_changed = !changed_policy.is_empty();
    let then: Vec<String> = changed_policy
        .iter()
        .map(|(host, digest)| format!("{host}: {digest}"))
        .collect();
    let then = then.join(", ");
    if policy_changed {
        warnings.push(format!(
            "the policy changed since the pre of run {run_id} ({then} then, {policy_digest} now): findings may differ for that reason alone"
        ));
    }
    let (attempt, step) = run.claim_post()?;
    progress.run(run_id, run.path());
    let judged = capture_and_judge(settings, &planned, &step, progress).await?;
    let verdict = worst(judged.iter().map(|(o, _)| o.verdict));
    let (outcomes, posts): (Vec<HostOutcome>, Vec<VerifiedSnapshot>) = judged.into_iter().unzip();
    let promotion = if !promote {
        None
    } else if policy_changed && matches!(verdict, Verdict::Pass | Verdict::Warn) {
        Some(PromotionOutcome::Skipped {
            reason: format!(
                "the policy changed since pre ({then} → {policy_digest}): a baseline is only promoted under the policy its pre was judged by; run the gate again from pre"
            ),
        })
    } else if !moved.is_empty() && matches!(verdict, Verdict::Pass | Verdict::Warn) {
        // Someone promoted since the pre: committing the post would silently replace that.
        Some(PromotionOutcome::Skipped {
            reason: format!(
                "the baseline of {} moved since pre: promoting would replace a baseline this run never judged; run the gate again from pre",
                moved.join(", ")
            ),
        })
    } else {
        if settings.capture.cancel.is_cancelled() {
            return Err(GateError::Interrupted);
        }
        let hosts: Vec<promote::Promoted<'_>> = planned
            .iter()
            .zip(&outcomes)
            .zip(posts)
            .map(|((plan, outcome), post)| {
                let mut replaces = vec![plan.baseline.snapshot.digest().to_owned()];
                replaces.extend(run.post_digests(&plan.host.name)?);
                Ok(promote::Promoted {
                    fleet: &plan.fleet,
                    pre: plan.pre.as_ref().expect("every post host has a pre"),
                    post,
                    report: &outcome.report,
                    replaces,
                })
            })
            .collect::<Result<_, GateError>>()?;
        // The judgement stands whatever the store does: a promote that fails is reported.
        Some(
            promote::promote(settings, run_id, attempt, verdict, hosts).unwrap_or_else(|error| {
                PromotionOutcome::Skipped {
                    reason: format!("promote failed: {error}; nothing was committed"),
                }
            }),
        )
    };
    let mut report = gate_report(
        &run,
        run_id,
        Step::Post,
        Some(attempt),
        &manifest,
        &policy_digest,
        planned.iter().any(|p| p.strict),
        outcomes,
        allowances,
        expired,
        warnings,
    );
    report.promotion = promotion;
    RunDir::write_report(&step, &report)?;
    Ok(report)
}

/// Captures every planned host into the folder `step` and judges it: (outcome, sealed
/// snapshot) per host, in plan order.
async fn capture_and_judge(
    settings: &Settings,
    planned: &[Planned<'_>],
    step: &Folder,
    progress: &dyn Progress,
) -> Result<Vec<(HostOutcome, VerifiedSnapshot)>, GateError> {
    let jobs = planned
        .iter()
        .map(|p| capture::Job {
            host: p.host.name.clone(),
            sources: p.host.sources.clone(),
            options: p.options.clone(),
        })
        .collect();
    let cancel = &settings.capture.cancel;
    let mut results: Vec<Option<(HostOutcome, VerifiedSnapshot)>> =
        planned.iter().map(|_| None).collect();
    capture::capture_all(
        jobs,
        settings.concurrency,
        progress,
        |index, captured, took| {
            // A capture the stop cut short is not a whole answer: it is not kept.
            if cancel.is_cancelled() {
                return Ok(());
            }
            let plan = &planned[index];
            let file = RunDir::snapshot_file(step.path(), &plan.host.name);
            let snapshot = VerifiedSnapshot::seal(captured.snapshot, &file.display().to_string());
            run::write_snapshot(step, &plan.host.name, &snapshot)?;
            let options = JudgeOptions {
                strict: plan.strict,
                changes_only: false,
                without_rule_counts: false,
                allowances: plan.allowances.clone(),
            };
            let mut report = compare::judge_comparison(
                &Comparison {
                    snapshot: &snapshot,
                    baseline: Some(&plan.baseline.snapshot),
                    pre: plan.pre.as_ref(),
                },
                &settings.policy,
                &options,
            );
            waive::waive_pre_existing(&mut report, &plan.waivers);
            let outcome = HostOutcome {
                host: plan.host.name.to_string(),
                fleet: plan.fleet.clone(),
                cluster: plan.cluster.clone(),
                verdict: report.verdict,
                stories: compare::stories(&report, &snapshot.snapshot().facts),
                report,
                snapshot_file: file.display().to_string(),
                capture_ms: u64::try_from(took.as_millis()).unwrap_or(u64::MAX),
                notes: captured.notes,
            };
            RunDir::write_result(step, &plan.host.name, &outcome)?;
            progress.finished(&plan.host.name, outcome.verdict, took);
            results[index] = Some((outcome, snapshot));
            Ok::<(), GateError>(())
        },
    )
    .await?;
    if cancel.is_cancelled() {
        return Err(GateError::Interrupted);
    }
    Ok(results
        .into_iter()
        .map(|r| r.expect("without a stop every host is captured"))
        .collect())
}

#[allow(clippy::too_many_arguments)] // one place assembles the report of both steps
fn gate_report(
    run: &RunDir,
    id: &RunId,
    step: Step,
    attempt: Option<u32>,
    manifest: &Manifest,
    policy_digest: &str,
    strict: bool,
    hosts: Vec<HostOutcome>,
    allowances: Vec<Allowance>,
    expired: Vec<Allowance>,
    mut warnings: Vec<String>,
) -> GateReport {
    for a in &expired {
        let value = a
            .value
            .as_ref()
            .map(|v| format!("={v}"))
            .unwrap_or_default();
        let expires = a.expires.map(|d| d.to_string()).unwrap_or_default();
        warnings.push(format!(
            "allowance {}{value} ({}) expired on {expires}: ignored",
            a.path, a.given_at
        ));
    }
    GateReport {
        schema: GATE_REPORT_SCHEMA_ID.to_owned(),
        tool: crate::tool_version(),
        run: RunSummary {
            id: id.to_string(),
            dir: run.path().display().to_string(),
            step,
            attempt,
            started_at: manifest.created_at.to_string(),
            policy_digest: policy_digest.to_owned(),
        },
        verdict: worst(hosts.iter().map(|h| h.verdict)),
        strict,
        hosts,
        allowances,
        expired_allowances: expired,
        warnings,
        promotion: None,
    }
}

/// The step's verdict: incomplete, then block, warn, pass.
fn worst(verdicts: impl Iterator<Item = Verdict>) -> Verdict {
    Verdict::worst_of(verdicts)
}

/// The manifest after this pre: a first pre's, or the earlier one's with this pre's hosts
/// added or replaced, each with this pre's allowances, strictness and baseline commit (a
/// host's fleet as the inventory says now).
fn pre_manifest(
    existing: Option<Manifest>,
    id: &RunId,
    settings: &Settings,
    policy_digest: &str,
    planned: &[Planned<'_>],
) -> Manifest {
    let mut manifest = existing.unwrap_or_else(|| Manifest {
        schema: MANIFEST_SCHEMA_ID.to_owned(),
        id: id.to_string(),
        created_at: jiff::Timestamp::now()
            .round(jiff::Unit::Second)
            .unwrap_or_else(|_| jiff::Timestamp::now()),
        tool: String::new(),
        policy_digest: String::new(),
        hosts: Vec::new(),
        store: String::new(),
    });
    manifest.tool = crate::tool_version();
    manifest.policy_digest = policy_digest.to_owned();
    manifest.store = settings.store.location().display().to_string();
    for plan in planned {
        let host = RunHost {
            name: plan.host.name.clone(),
            fleet: plan.fleet.clone(),
            cluster: plan.cluster.clone(),
            strict: plan.strict,
            policy_digest: policy_digest.to_owned(),
            allowances: plan.allowances.clone(),
            baseline_commit: plan.baseline.commit.clone(),
            baseline_digest: plan.baseline.snapshot.digest().to_owned(),
        };
        match manifest.hosts.iter_mut().find(|h| h.name == host.name) {
            Some(known) => *known = host,
            None => manifest.hosts.push(host),
        }
    }
    manifest
}

fn other_run(run: &RunDir, id: &RunId, found: &Manifest) -> GateError {
    GateError::OtherRun {
        id: id.to_string(),
        found: found.id.clone(),
        dir: run.path().display().to_string(),
    }
}

/// `hosts` without repeats, in order.
fn unique(hosts: &[HostName]) -> Vec<HostName> {
    let mut seen = Vec::new();
    for host in hosts {
        if !seen.contains(host) {
            seen.push(host.clone());
        }
    }
    seen
}

/// `allowances` in force today (UTC), and those that expired.
fn in_force(allowances: Vec<Allowance>) -> (Vec<Allowance>, Vec<Allowance>) {
    let today = jiff::tz::TimeZone::UTC
        .to_datetime(jiff::Timestamp::now())
        .date();
    compare::allow::split_expired(allowances, today)
}

fn inventory_host<'a>(
    settings: &'a Settings,
    name: &HostName,
) -> Result<&'a InventoryHost, GateError> {
    settings
        .inventory
        .host(name.as_str())
        .ok_or_else(|| GateError::UnknownHost {
            host: name.clone(),
            inventory: settings.inventory.file.display().to_string(),
        })
}

/// The store's HEAD commit (hex), if it has one.
fn head(store: &Store) -> Result<Option<String>, GateError> {
    Ok(store.head_commit()?)
}

/// `host`'s baseline at `commit` (none: the store has no commit yet), which must be in the
/// fleet the inventory names and of that host.
fn baseline(
    settings: &Settings,
    host: &InventoryHost,
    commit: Option<&str>,
) -> Result<Baseline, GateError> {
    let store = &settings.store;
    let file = match commit {
        Some(commit) => store.host_file(commit, host.name.as_str())?,
        None => None,
    };
    let commit = commit.unwrap_or_default();
    let Some(file) = file else {
        return Err(GateError::NoBaseline {
            host: host.name.clone(),
            fleet: host.fleet.clone(),
            store: store.location().display().to_string(),
        });
    };
    let expected = format!(
        "{}/{}/{}.json",
        crate::store::BASELINES_DIR,
        host.fleet,
        host.name
    );
    if file.path != expected {
        return Err(GateError::OtherFleet {
            host: host.name.clone(),
            fleet: host.fleet.clone(),
            baseline: file.path,
            inventory: settings.inventory.file.display().to_string(),
        });
    }
    let baseline = store
        .read_listed_baseline(commit, &file, host.name.as_str())
        .map_err(|error| match error {
            BaselineReadError::Store(error) => GateError::Store(error),
            BaselineReadError::Invalid(error) => GateError::Snapshot(error),
            BaselineReadError::OtherHost { origin, found, .. } => {
                GateError::HostMismatch(compare::HostMismatch {
                    snapshot: format!("host {} of the inventory", host.name),
                    host: host.name.to_string(),
                    baseline: origin,
                    baseline_host: found,
                })
            }
        })?;
    Ok(Baseline {
        snapshot: baseline,
        commit: commit.to_owned(),
    })
}

/// A warning when `host`'s baseline at HEAD is no longer the one its pre in the run was
/// judged against (another promote since): the post still judges against the pre's. What an
/// earlier post of this same run promoted is not a move.
fn moved_baseline(
    settings: &Settings,
    run: &RunDir,
    host: &InventoryHost,
    in_run: &RunHost,
    run_id: &RunId,
) -> Result<Option<String>, GateError> {
    let Some(head) = head(&settings.store)? else {
        return Ok(None);
    };
    if head == in_run.baseline_commit {
        return Ok(None);
    }
    let now = match baseline(settings, host, Some(&head)) {
        Ok(now) => now.snapshot.digest().to_owned(),
        Err(GateError::NoBaseline { .. }) => "none".to_owned(),
        Err(error) => return Err(error),
    };
    if now == in_run.baseline_digest || run.post_digests(&host.name)?.contains(&now) {
        return Ok(None);
    }
    Ok(Some(format!(
        "the baseline of {} moved since the pre of run {run_id} ({} at commit {}, {now} at HEAD {}): this post judges against the pre's",
        host.name,
        in_run.baseline_digest,
        short(&in_run.baseline_commit),
        short(&head)
    )))
}

/// The first 12 digits of a commit id.
fn short(commit: &str) -> &str {
    commit.get(..12).unwrap_or(commit)
}

/// Adds those of `more` that `list` does not hold yet, in order.
fn add_new(list: &mut Vec<Allowance>, more: Vec<Allowance>) {
    for a in more {
        if !list.contains(&a) {
            list.push(a);
        }
    }
}

/// The capture settings of `host`: the step's, with what its inventory entry says instead.
fn host_options(settings: &Settings, host: &InventoryHost) -> Result<CaptureOptions, GateError> {
    Ok(settings
        .inventory
        .capture_options(host, &settings.capture)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_worst_verdict_decides_the_step() {
        use Verdict::*;
        assert_eq!(worst([Pass, Warn].into_iter()), Warn);
        assert_eq!(worst([Block, Incomplete, Pass].into_iter()), Incomplete);
        assert_eq!(worst([Pass, Block].into_iter()), Block);
    }
}
