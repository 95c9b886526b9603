//! What `report merge` checks of each host before it believes its record: the record is the
//! judgement its own snapshot gets, against the baseline the record names, under the policy
//! the run judged with. A record edited to PASS beside a snapshot that shows the drift, a
//! baseline swapped or dropped, a host moved to another cluster: each is a disagreement that
//! refuses the merge (exit 2), naming the shard and the host.

use std::collections::HashMap;
use std::path::Path;

use super::cluster::ClusterFacts;
use super::host;
use super::outdir::{HostRecord, OutDir, PlannedHost, RunFile, RunIdentity};
use crate::error::FleetError;
use driftgate_compare::{JudgeOptions, Policy, Report};
use driftgate_snapshot::VerifiedSnapshot;
use driftgate_store::Store;

/// The store and policy a merge judges the hosts again with (`report merge` without
/// `--no-rejudge`).
#[derive(Debug, Clone, Copy)]
pub struct Rejudge<'a> {
    /// The baseline store the shards read their baselines from.
    pub store: &'a Store,
    /// `--policy FILE` of the run, layered over the store's policy as `check --all` does.
    pub policy_file: Option<&'a Path>,
}

/// One shard (or run) of a merge, for checks and messages.
pub(super) struct Part<'r> {
    /// Its output directory.
    pub dir: &'r Path,
    /// Its run file.
    pub run: &'r RunFile,
    /// Its identity.
    pub identity: &'r RunIdentity,
}

impl Part<'_> {
    /// `shard 2/3 (DIR)`, or `run DIR`: what a refusal names.
    pub(crate) fn label(&self) -> String {
        match self.run.shard {
            Some(shard) => format!("shard {shard} ({})", self.dir.display()),
            None => format!("run {}", self.dir.display()),
        }
    }

    /// The refusal of host `host` of this part.
    pub(crate) fn refuse(&self, host: &str, reason: impl std::fmt::Display) -> FleetError {
        FleetError::BadResults {
            path: self.dir.display().to_string(),
            reason: format!("{}: host {host}: {reason}; refusing to merge", self.label()),
        }
    }
}

/// Judges the hosts of a merge again, each policy loaded once per store commit.
pub(super) struct Judge<'a> {
    with: Rejudge<'a>,
    policies: HashMap<Option<String>, Policy>,
}

impl<'a> Judge<'a> {
    pub(crate) fn new(with: Rejudge<'a>) -> Self {
        Judge {
            with,
            policies: HashMap::new(),
        }
    }

    /// The policy `part` judged under: the store's at the commit the run read its baselines
    /// at, with `--policy`; refused unless its digest is the run's.
    fn policy(&mut self, part: &Part<'_>) -> Result<&Policy, FleetError> {
        let head = part.identity.store_head.clone();
        if !self.policies.contains_key(&head) {
            let policy = driftgate_baseline::input::policy_at(
                Some(self.with.store),
                head.as_deref(),
                self.with.policy_file,
            )
            .map_err(|error| FleetError::BadResults {
                path: part.dir.display().to_string(),
                reason: format!(
                    "{}: the policy to judge it again with: {error}",
                    part.label()
                ),
            })?;
            self.policies.insert(head.clone(), policy);
        }
        let policy = &self.policies[&head];
        if policy.digest() != part.run.policy_digest {
            let at = head.as_deref().unwrap_or("(no commit)");
            return Err(FleetError::BadResults {
                path: part.dir.display().to_string(),
                reason: format!(
                    "{}: judged under policy {}, but the store's policy at commit {at}{} is {}: give the run's --policy FILE, or --no-rejudge to trust the records",
                    part.label(),
                    part.run.policy_digest,
                    self.with
                        .policy_file
                        .map(|f| format!(" with {}", f.display()))
                        .unwrap_or_default(),
                    policy.digest()
                ),
            });
        }
        Ok(policy)
    }

    /// Refuses `record` of `part` (planned as `planned`) unless it is what its snapshot, its
    /// baseline and the run's policy give.
    pub(crate) fn check(
        &mut self,
        part: &Part<'_>,
        planned: &PlannedHost,
        record: &HostRecord,
    ) -> Result<(), FleetError> {
        let host = planned.name.as_str();
        let result = &record.result;
        if result.fleet != planned.fleet || result.cluster != planned.cluster {
            return Err(part.refuse(
                host,
                format!(
                    "its record puts it in fleet {} cluster {}, the run planned fleet {} cluster {}",
                    result.fleet,
                    result.cluster.as_deref().unwrap_or("(none)"),
                    planned.fleet,
                    planned.cluster.as_deref().unwrap_or("(none)")
                ),
            ));
        }
        let recorded = result
            .report
            .get()
            .map_err(|error| part.refuse(host, format!("its report cannot be read: {error}")))?;
        let Some(snapshot) = read_snapshot(part, host, record, &recorded.snapshot.origin)? else {
            // Nothing was read of the host: its record can only say INCOMPLETE (`read_host`
            // refuses anything else), which no edit can make pass.
            return Ok(());
        };
        let baseline = self.baseline(part, host, &recorded, record)?;
        let policy = self.policy(part)?;
        let options = JudgeOptions {
            strict: part.run.strict,
            changes_only: false,
            ..JudgeOptions::default()
        };
        let mut judged = driftgate_compare::judge(&snapshot, baseline.as_ref(), policy, &options);
        // Which build wrote the report is no part of the judgement.
        judged.tool.clone_from(&recorded.tool);
        if judged != *recorded {
            return Err(part.refuse(host, disagreement(&recorded, &judged)));
        }
        let complete = snapshot.snapshot().is_complete();
        let failure =
            (!judged.incomplete_sources.is_empty()).then(|| host::incomplete_sources(&judged));
        let cluster_facts = if complete && planned.cluster.is_some() {
            ClusterFacts::extract(snapshot.snapshot())
        } else {
            ClusterFacts::default()
        };
        let mismatch = if record.complete != complete {
            Some("whether it was read completely")
        } else if result.failure != failure {
            Some("why it was not read completely")
        } else if record.cluster_facts != cluster_facts {
            Some("the facts its cluster compares")
        } else if record.captured_good != complete.then_some(snapshot.snapshot().captured_at) {
            Some("when it was last read completely")
        } else if record.baseline_captured_at != baseline.as_ref().map(|b| b.snapshot().captured_at)
        {
            Some("when its baseline was captured")
        } else {
            None
        };
        match mismatch {
            Some(what) => Err(part.refuse(
                host,
                format!(
                    "its record and its snapshot {} disagree on {what} (edited?)",
                    OutDir::snapshot_name(host)
                ),
            )),
            None => Ok(()),
        }
    }

    /// The baseline `recorded` (of `record`) was judged against, read from the store; `None`
    /// when it was judged without one, which the store must confirm.
    fn baseline(
        &self,
        part: &Part<'_>,
        host: &str,
        recorded: &Report,
        record: &HostRecord,
    ) -> Result<Option<VerifiedSnapshot>, FleetError> {
        let store = self.with.store;
        let Some(summary) = &recorded.baseline else {
            let head = part.identity.store_head.as_deref();
            let at_head = match head {
                Some(head) => store.host_file(head, host)?,
                None => None,
            };
            if let Some(file) = at_head
                && !record.baseline_unread
            {
                return Err(part.refuse(
                    host,
                    format!(
                        "its record was judged without a baseline, but the store has {} at the run's commit",
                        file.path
                    ),
                ));
            }
            return Ok(None);
        };
        let named = summary
            .origin
            .strip_prefix("git:")
            .and_then(|rest| rest.split_once(':'));
        let Some((commit, path)) = named else {
            return Err(part.refuse(
                host,
                format!(
                    "its record names baseline {:?}, which is not in the store",
                    summary.origin
                ),
            ));
        };
        let baseline = store.read_baseline(commit, path, host).map_err(|error| {
            part.refuse(host, format!("its baseline {}: {error}", summary.origin))
        })?;
        if baseline.digest() != summary.digest {
            return Err(part.refuse(
                host,
                format!(
                    "its record names baseline {} of digest {}, the store holds {} there",
                    summary.origin,
                    summary.digest,
                    baseline.digest()
                ),
            ));
        }
        Ok(Some(baseline))
    }
}

/// The snapshot `record` names in `part`'s directory, read and verified as the run named it
/// (`origin`); `None` when the record names none.
fn read_snapshot(
    part: &Part<'_>,
    host: &str,
    record: &HostRecord,
    origin: &str,
) -> Result<Option<VerifiedSnapshot>, FleetError> {
    let Some(name) = &record.result.snapshot_file else {
        return Ok(None);
    };
    if *name != OutDir::snapshot_name(host) {
        return Err(part.refuse(
            host,
            format!("its record names snapshot {name:?}, not its own"),
        ));
    }
    let file = part.dir.join(name);
    let bytes = std::fs::read(&file)
        .map_err(|error| part.refuse(host, format!("its snapshot {}: {error}", file.display())))?;
    let snapshot = VerifiedSnapshot::parse_bytes(&bytes, origin)
        .map_err(|error| part.refuse(host, format!("its snapshot {}: {error}", file.display())))?;
    if snapshot.snapshot().host.as_str() != host {
        return Err(part.refuse(
            host,
            format!(
                "its snapshot {} is of host {}",
                file.display(),
                snapshot.snapshot().host
            ),
        ));
    }
    Ok(Some(snapshot))
}

/// What a record says and what its snapshot gives, in a line.
fn disagreement(recorded: &Report, judged: &Report) -> String {
    let say = |report: &Report| {
        let blocking = report.counts.block;
        format!(
            "{} ({blocking} blocking, {} warning{})",
            report.verdict.as_upper(),
            report.counts.warn,
            if report.counts.warn == 1 { "" } else { "s" }
        )
    };
    let against = judged
        .baseline
        .as_ref()
        .map_or_else(|| "no baseline".to_owned(), |b| b.origin.clone());
    if recorded.verdict == judged.verdict && recorded.counts == judged.counts {
        format!(
            "its record's findings are not the ones its snapshot gives against {against} (both {}): edited?",
            say(judged)
        )
    } else {
        format!(
            "its record says {}, but its snapshot judged against {against} gives {}: the record was edited, or the run judged under another policy",
            say(recorded),
            say(judged)
        )
    }
}
