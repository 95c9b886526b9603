//! `gate pre`: capture the hosts, judge each against its baseline, record the run.

use std::sync::Arc;

use super::judge::{capture_and_judge, remember_good};
use super::plan::{
    Planned, baseline, check_host_settings, head, host_options, in_force, inventory_host,
    other_run, unique,
};
use super::report::gate_report;
use super::run::{self, MANIFEST_SCHEMA_ID, Manifest, RunDir, RunHost, RunId};
use super::{GateError, Progress, Settings};
use driftgate_report::document::{GateReport, Step};
use driftgate_snapshot::HostName;

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
    check_host_settings(settings, &hosts)?;
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
    let (step, ignored_now) = run.create()?;
    let step = Arc::new(step);
    if ignored_now {
        progress.ignore_created(&settings.store.location().join(driftgate_fs::PRIVATE_IGNORE));
    }
    run.write_manifest(&manifest)?;
    progress.run(&id, run.path());
    let outcomes = capture_and_judge(settings, &planned, Arc::clone(&step), progress).await?;
    remember_good(settings, &id, &outcomes, progress);
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

/// The manifest after this pre: a first pre's, or the earlier one's with this pre's hosts
/// added or replaced, each with this pre's allowances, strictness and baseline commit (a
/// host's fleet as the inventory says now).
pub(super) fn pre_manifest(
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
    manifest.tool = driftgate_snapshot::tool_version();
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
