//! One fleet result from host records: cluster consistency over the complete hosts of each
//! cluster, stale and missing findings, host verdicts raised by the fleet findings that name
//! them, counts and the fleet verdict. The one function both `check --all` and `report merge`
//! end in, so that a merge of shards equals one run.

use std::collections::BTreeMap;
use std::time::Duration;

use jiff::Timestamp;

use super::outdir::HostRecord;
use super::{cluster, stale};
use driftgate_compare::{Severity, Verdict};
use driftgate_report::document::{FLEET_REPORT_SCHEMA_ID, FleetFinding, FleetReport, HostCounts};

/// What a fleet result is made of.
#[derive(Debug)]
pub(super) struct Assembly {
    /// The shards (`K/N`), empty for one unsharded run.
    pub shards: Vec<String>,
    /// When the (earliest) run started.
    pub started_at: Timestamp,
    /// When the (latest) run finished: also the "now" of the stale check.
    pub finished_at: Timestamp,
    /// Warnings block.
    pub strict: bool,
    /// `--stale-after`.
    pub stale_after: Option<Duration>,
    /// Baselines of no inventory host.
    pub orphans: Vec<String>,
    /// Every host's record.
    pub records: Vec<HostRecord>,
    /// Whether the records hold every node of their clusters. One shard of a run holds only
    /// some: comparing them would name nodes odd out of a part, so the cluster check waits for
    /// the merge of every shard.
    pub whole_clusters: bool,
}

/// The fleet result of `assembly`.
pub(super) fn assemble(assembly: Assembly) -> FleetReport {
    let Assembly {
        shards,
        started_at,
        finished_at,
        strict,
        stale_after,
        mut orphans,
        mut records,
        whole_clusters,
    } = assembly;
    records.sort_by(|a, b| a.result.host.cmp(&b.result.host));
    orphans.sort();
    let mut findings = if whole_clusters {
        cluster_findings(&records)
    } else {
        Vec::new()
    };
    let stale_inputs: Vec<stale::StaleInput> = records
        .iter()
        .map(|r| stale::StaleInput {
            host: r.result.host.clone(),
            baseline_captured_at: r.baseline_captured_at,
            baseline_unread: r.baseline_unread,
            last_good: r.last_good,
        })
        .collect();
    findings.extend(stale::findings(
        &stale_inputs,
        &orphans,
        stale_after,
        finished_at,
    ));
    // Host → the worst a finding naming it gives: one pass over the findings' hosts.
    let mut raised_to: BTreeMap<&str, Verdict> = BTreeMap::new();
    for finding in &findings {
        let verdict = raised(finding.severity, strict);
        for host in &finding.hosts {
            let entry = raised_to.entry(host.as_str()).or_insert(Verdict::Pass);
            *entry = entry.worst(verdict);
        }
    }
    let mut hosts: Vec<_> = records.into_iter().map(|r| r.result).collect();
    for host in &mut hosts {
        if let Some(verdict) = raised_to.get(host.host.as_str()) {
            host.verdict = host.verdict.worst(*verdict);
        }
    }
    let mut counts = HostCounts {
        total: hosts.len(),
        ..HostCounts::default()
    };
    for host in &hosts {
        match host.verdict {
            Verdict::Pass => counts.pass += 1,
            Verdict::Warn => counts.warn += 1,
            Verdict::Block => counts.block += 1,
            Verdict::Incomplete => counts.incomplete += 1,
        }
    }
    let verdict = hosts
        .iter()
        .map(|h| h.verdict)
        .chain(findings.iter().map(|f| raised(f.severity, strict)))
        .fold(Verdict::Pass, Verdict::worst);
    FleetReport {
        schema: FLEET_REPORT_SCHEMA_ID.to_owned(),
        tool: driftgate_snapshot::tool_version(),
        started_at: started_at.to_string(),
        finished_at: finished_at.to_string(),
        shards,
        selections: Vec::new(),
        verdict,
        strict,
        counts,
        hosts,
        findings,
        records_trusted: false,
    }
}

/// The cluster findings of every cluster with two or more complete nodes, by cluster name.
fn cluster_findings(records: &[HostRecord]) -> Vec<FleetFinding> {
    let mut clusters: BTreeMap<&str, Vec<(&str, &cluster::ClusterFacts)>> = BTreeMap::new();
    for record in records.iter().filter(|r| r.complete) {
        if let Some(name) = &record.result.cluster {
            clusters
                .entry(name.as_str())
                .or_default()
                .push((record.result.host.as_str(), &record.cluster_facts));
        }
    }
    clusters
        .into_iter()
        .filter(|(_, members)| members.len() > 1)
        .flat_map(|(name, members)| cluster::consistency(name, &members))
        .collect()
}

/// The verdict a finding of `severity` gives the hosts it names.
fn raised(severity: Severity, strict: bool) -> Verdict {
    match severity {
        Severity::Block => Verdict::Block,
        Severity::Warn if strict => Verdict::Block,
        Severity::Warn => Verdict::Warn,
        Severity::Info | Severity::Ignore => Verdict::Pass,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outdir::HOST_SCHEMA_ID;
    use driftgate_report::document::HostResult;

    fn record(host: &str, verdict: Verdict) -> HostRecord {
        let report = crate::tests::empty_report(host, Timestamp::UNIX_EPOCH);
        HostRecord {
            schema: HOST_SCHEMA_ID.into(),
            result: HostResult {
                host: host.into(),
                fleet: "f".into(),
                cluster: Some("c".into()),
                verdict,
                counts: report.counts,
                failure: None,
                capture_ms: 0,
                snapshot_file: None,
                last_success_at: None,
                report: report.into(),
            },
            complete: true,
            cluster_facts: Default::default(),
            // A baseline, old but with no --stale-after: no fleet finding raises the verdict.
            baseline_captured_at: Some(Timestamp::UNIX_EPOCH),
            baseline_unread: false,
            last_good: None,
            captured_good: None,
        }
    }

    fn assembly(records: Vec<HostRecord>) -> Assembly {
        Assembly {
            shards: Vec::new(),
            started_at: Timestamp::UNIX_EPOCH,
            finished_at: Timestamp::UNIX_EPOCH,
            strict: false,
            stale_after: None,
            orphans: Vec::new(),
            records,
            whole_clusters: true,
        }
    }

    /// `record` of cluster "c" whose NIC firmware DCBX mode is `mode`.
    fn node(host: &str, mode: &str) -> HostRecord {
        let mut record = record(host, Verdict::Pass);
        record.cluster_facts.values.insert(
            "nic/NIC.Slot.3-1/bmc/dcbx_mode".to_owned(),
            cluster::ClusterValue {
                what: cluster::Compared::DcbxMode,
                severity: Severity::Block,
                name: "DCBX mode of NIC.Slot.3-1 (BMC)".to_owned(),
                value: serde_json::json!(mode),
                by_mac: false,
            },
        );
        record
    }

    #[test]
    fn one_shard_leaves_the_cluster_check_to_the_merge_of_all() {
        let nodes = || vec![node("a", "ieee"), node("b", "ieee"), node("c", "disabled")];
        let whole = assemble(assembly(nodes()));
        assert_eq!(whole.findings.len(), 1, "{:?}", whole.findings);
        assert_eq!(whole.findings[0].hosts, ["c"]);
        assert_eq!(whole.verdict, Verdict::Block);
        let shard = assemble(Assembly {
            shards: vec!["1/3".to_owned()],
            whole_clusters: false,
            ..assembly(nodes())
        });
        assert!(shard.findings.is_empty(), "{:?}", shard.findings);
        assert_eq!(shard.verdict, Verdict::Pass);
    }

    #[test]
    fn hosts_are_counted_by_verdict_sorted_by_name_and_the_worst_decides() {
        let report = assemble(assembly(vec![
            record("b", Verdict::Block),
            record("a", Verdict::Pass),
            record("d", Verdict::Incomplete),
            record("c", Verdict::Warn),
        ]));
        let names: Vec<&str> = report.hosts.iter().map(|h| h.host.as_str()).collect();
        assert_eq!(names, ["a", "b", "c", "d"]);
        assert_eq!(
            report.counts,
            HostCounts {
                total: 4,
                pass: 1,
                warn: 1,
                block: 1,
                incomplete: 1
            }
        );
        assert_eq!(report.verdict, Verdict::Incomplete);
        let report = assemble(assembly(vec![record("a", Verdict::Pass)]));
        assert_eq!(report.verdict, Verdict::Pass);
    }

    #[test]
    fn a_finding_raises_the_hosts_it_names_never_lowers_them_and_strict_makes_warn_block() {
        assert_eq!(raised(Severity::Warn, false), Verdict::Warn);
        assert_eq!(raised(Severity::Warn, true), Verdict::Block);
        assert_eq!(raised(Severity::Info, true), Verdict::Pass);
        assert_eq!(
            Verdict::Incomplete.worst(Verdict::Block),
            Verdict::Incomplete
        );
        assert_eq!(Verdict::Pass.worst(Verdict::Block), Verdict::Block);
        assert_eq!(Verdict::Warn.worst(Verdict::Pass), Verdict::Warn);
        assert_eq!(
            Verdict::worst_of([Verdict::Warn, Verdict::Pass]),
            Verdict::Warn
        );
    }
}
