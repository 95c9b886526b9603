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
use super::run::{self, RunDir, RunId};
use super::{
    GateError, GateReport, HostOutcome, Progress, PromotionOutcome, Settings, Step, promote,
};
use driftgate_compare::{Allowance, Verdict};
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
            return Err(GateError::HostMismatch(driftgate_compare::HostMismatch {
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
    let step = Arc::new(step);
    progress.run(run_id, run.path());
    let judged = capture_and_judge(settings, &planned, Arc::clone(&step), progress).await?;
    remember_good(settings, run_id, &judged, progress);
    let verdict = worst(judged.iter().map(|(o, _)| o.verdict));
    let (mut outcomes, posts): (Vec<HostOutcome>, Vec<VerifiedSnapshot>) =
        judged.into_iter().unzip();
    let records = fix_records(&run, &mut warnings)?;
    for (outcome, post) in outcomes.iter_mut().zip(&posts) {
        outcome.fixes = fix::checks(&records, &post.snapshot().host, &post.snapshot().facts);
    }
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
                    fixes: &outcome.fixes,
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
