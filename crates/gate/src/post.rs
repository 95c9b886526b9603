//! `gate post`: capture the run's hosts again, judge each baseline → pre → post, and promote
//! the post snapshots after a passing verdict when asked.

use std::sync::Arc;

use super::fix::{self, ApplyRecord};
use super::judge::{capture_and_judge, remember_good};
use super::plan::{
    Planned, add_new, baseline, check_host_settings, existing_run, host_options, in_force,
    inventory_host, moved_baseline, unique,
};
use super::report::{gate_report, worst};
use super::run::{self, Manifest, RunDir, RunId};
use super::{GateError, Progress, Settings, promote};
use driftgate_compare::{Allowance, Verdict};
use driftgate_report::document::{GateReport, HostOutcome, PromotionOutcome, Step};
use driftgate_snapshot::{HostName, VerifiedSnapshot};

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
    let (run, manifest) = existing_run(settings, run_id)?;
    let hosts = if hosts.is_empty() {
        manifest.hosts.iter().map(|h| h.name.clone()).collect()
    } else {
        unique(hosts)
    };
    check_host_settings(settings, &hosts)?;
    let mut plan = plan_hosts(settings, &run, &manifest, run_id, &hosts)?;
    let policy = policy_drift(
        settings,
        &manifest,
        &plan.planned,
        run_id,
        &mut plan.warnings,
    );
    // Capture and judge.
    let (attempt, step) = run.claim_post()?;
    let step = Arc::new(step);
    progress.run(run_id, run.path());
    let judged = capture_and_judge(settings, &plan.planned, Arc::clone(&step), progress).await?;
    remember_good(settings, run_id, &judged, progress);
    let verdict = worst(judged.iter().map(|(o, _)| o.verdict));
    let (mut outcomes, posts): (Vec<HostOutcome>, Vec<VerifiedSnapshot>) =
        judged.into_iter().unzip();
    check_fixes(&run, &mut outcomes, &posts, &mut plan.warnings)?;
    let promotion = if promote {
        let judged = Judged {
            run: &run,
            run_id,
            attempt,
            verdict,
        };
        Some(promotion(
            settings, &judged, &plan, &policy, &outcomes, posts,
        )?)
    } else {
        None
    };
    let mut report = gate_report(
        &run,
        run_id,
        Step::Post,
        Some(attempt),
        &manifest,
        &policy.digest,
        plan.planned.iter().any(|p| p.strict),
        outcomes,
        plan.allowances,
        plan.expired,
        plan.warnings,
    );
    report.promotion = promotion;
    RunDir::write_report(&step, &report)?;
    Ok(report)
}

/// What a post works from, planned before anything is captured.
struct PostPlan<'a> {
    /// Each host's inputs.
    planned: Vec<Planned<'a>>,
    /// Every allowance in force for the report.
    allowances: Vec<Allowance>,
    /// Allowances that expired.
    expired: Vec<Allowance>,
    /// What the report warns of.
    warnings: Vec<String>,
    /// Hosts whose baseline moved since their pre.
    moved: Vec<String>,
}

/// The policy of this post against the one each host's pre was judged by.
struct PolicyDrift {
    /// The digest of this post's policy.
    digest: String,
    /// The pre's digests (`host: digest`) where they differ: none when no host's did.
    then: Option<String>,
}

/// What a post judged, for the promote decision.
struct Judged<'r> {
    run: &'r RunDir,
    run_id: &'r RunId,
    attempt: u32,
    verdict: Verdict,
}

/// Planning: each host of the run with its pre, baseline, options and allowances (the pre's,
/// as expired today, and this step's), and the warnings of a moved baseline or a strict pre.
fn plan_hosts<'a>(
    settings: &'a Settings,
    run: &RunDir,
    manifest: &Manifest,
    run_id: &RunId,
    hosts: &[HostName],
) -> Result<PostPlan<'a>, GateError> {
    let (own, expired) = in_force(settings.allowances.clone());
    let mut plan = PostPlan {
        planned: Vec::new(),
        allowances: Vec::new(),
        expired,
        warnings: Vec::new(),
        moved: Vec::new(),
    };
    for name in hosts {
        let Some(in_run) = manifest.hosts.iter().find(|h| h.name == *name) else {
            let names: Vec<&str> = manifest.hosts.iter().map(|h| h.name.as_str()).collect();
            return Err(GateError::NotInRun {
                host: name.clone(),
                id: run_id.clone(),
                hosts: names.join(", "),
            });
        };
        let pre = pre_of(run, run_id, name)?;
        let host = inventory_host(settings, name)?;
        // The pre's allowances, as expired today; a value declares a change, none waives.
        let (recorded, gone) = in_force(in_run.allowances.clone());
        add_new(&mut plan.expired, gone);
        let (declared, waivers): (Vec<Allowance>, Vec<Allowance>) =
            recorded.into_iter().partition(|a| a.value.is_some());
        let mut host_allowances = declared;
        add_new(&mut host_allowances, own.clone());
        add_new(&mut plan.allowances, host_allowances.clone());
        add_new(&mut plan.allowances, waivers.clone());
        let baseline = baseline(settings, host, Some(&in_run.baseline_commit))?;
        if let Some(warning) = moved_baseline(settings, run, host, in_run, run_id)? {
            plan.moved.push(name.to_string());
            plan.warnings.push(warning);
        }
        plan.planned.push(Planned {
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
    let strict_at_pre: Vec<&str> = plan
        .planned
        .iter()
        .filter(|p| p.strict && !settings.strict)
        .map(|p| p.host.name.as_str())
        .collect();
    if !strict_at_pre.is_empty() {
        plan.warnings.push(format!(
            "the pre of {} in run {run_id} was judged with --strict: this post is too (warnings block)",
            strict_at_pre.join(", ")
        ));
    }
    Ok(plan)
}

/// The pre snapshot of `name` in the run, which must be of that host.
fn pre_of(run: &RunDir, run_id: &RunId, name: &HostName) -> Result<VerifiedSnapshot, GateError> {
    let pre = run.pre(name)?.ok_or_else(|| GateError::NoPre {
        host: name.clone(),
        id: run_id.clone(),
        file: RunDir::snapshot_file(&run.pre_dir(), name)
            .display()
            .to_string(),
    })?;
    if pre.snapshot().host != *name {
        return Err(GateError::HostMismatch(driftgate_compare::HostMismatch {
            snapshot: pre.origin().to_owned(),
            host: pre.snapshot().host.to_string(),
            baseline: format!("host {name} of run {run_id}"),
            baseline_host: name.to_string(),
        }));
    }
    Ok(pre)
}

/// Policy drift: each host is held to the policy its own pre was judged by (a serial rollout
/// may add hosts to the run under a newer policy); a change is warned of.
fn policy_drift(
    settings: &Settings,
    manifest: &Manifest,
    planned: &[Planned<'_>],
    run_id: &RunId,
    warnings: &mut Vec<String>,
) -> PolicyDrift {
    let digest = run::policy_digest(&settings.policy);
    let then: Vec<String> = planned
        .iter()
        .filter_map(|p| {
            let in_run = manifest.hosts.iter().find(|h| h.name == p.host.name)?;
            (in_run.policy_digest != digest)
                .then(|| format!("{}: {}", p.host.name, in_run.policy_digest))
        })
        .collect();
    let then = (!then.is_empty()).then(|| then.join(", "));
    if let Some(then) = &then {
        warnings.push(format!(
            "the policy changed since the pre of run {run_id} ({then} then, {digest} now): findings may differ for that reason alone"
        ));
    }
    PolicyDrift { digest, then }
}

/// Fix checks: what each post shows of the steps `fix apply` recorded in the run.
fn check_fixes(
    run: &RunDir,
    outcomes: &mut [HostOutcome],
    posts: &[VerifiedSnapshot],
    warnings: &mut Vec<String>,
) -> Result<(), GateError> {
    let records = fix_records(run, warnings)?;
    for (outcome, post) in outcomes.iter_mut().zip(posts) {
        outcome.fixes = fix::checks(&records, &post.snapshot().host, &post.snapshot().facts);
    }
    Ok(())
}

/// The promote decision: skipped when the policy or a baseline moved since the pre (of a
/// passing post), else the posts promoted, a failed promote reported rather than fatal.
fn promotion(
    settings: &Settings,
    judged: &Judged<'_>,
    plan: &PostPlan<'_>,
    policy: &PolicyDrift,
    outcomes: &[HostOutcome],
    posts: Vec<VerifiedSnapshot>,
) -> Result<PromotionOutcome, GateError> {
    let passed = matches!(judged.verdict, Verdict::Pass | Verdict::Warn);
    if let Some(then) = policy.then.as_ref().filter(|_| passed) {
        return Ok(PromotionOutcome::Skipped {
            reason: format!(
                "the policy changed since pre ({then} → {}): a baseline is only promoted under the policy its pre was judged by; run the gate again from pre",
                policy.digest
            ),
        });
    }
    if !plan.moved.is_empty() && passed {
        // Someone promoted since the pre: committing the post would silently replace that.
        return Ok(PromotionOutcome::Skipped {
            reason: format!(
                "the baseline of {} moved since pre: promoting would replace a baseline this run never judged; run the gate again from pre",
                plan.moved.join(", ")
            ),
        });
    }
    if settings.capture.cancel.is_cancelled() {
        return Err(GateError::Interrupted);
    }
    let hosts: Vec<promote::Promoted<'_>> = plan
        .planned
        .iter()
        .zip(outcomes)
        .zip(posts)
        .map(|((planned, outcome), post)| {
            let mut replaces = vec![planned.baseline.snapshot.digest().to_owned()];
            replaces.extend(judged.run.post_digests(&planned.host.name)?);
            Ok(promote::Promoted {
                fleet: &planned.fleet,
                pre: planned.pre.as_ref().expect("every post host has a pre"),
                post,
                report: &outcome.report,
                replaces,
                fixes: &outcome.fixes,
            })
        })
        .collect::<Result<_, GateError>>()?;
    // The judgement stands whatever the store does: a promote that fails is reported.
    Ok(promote::promote(
        settings,
        judged.run_id,
        judged.attempt,
        judged.verdict,
        hosts,
    )
    .unwrap_or_else(|error| PromotionOutcome::Skipped {
        reason: format!("promote failed: {error}; nothing was committed"),
    }))
}

/// The run's `fix apply` records; one that cannot be read is said, not fatal (the verdict
/// stands on the capture either way).
fn fix_records(run: &RunDir, warnings: &mut Vec<String>) -> Result<Vec<ApplyRecord>, GateError> {
    let mut records = Vec::new();
    for (file, bytes) in run.fix_records()? {
        match serde_json::from_slice(&bytes) {
            Ok(record) => records.push(record),
            Err(e) => warnings.push(format!(
                "{}: not a fix apply record ({e}); its steps are not verified",
                file.display()
            )),
        }
    }
    Ok(records)
}
