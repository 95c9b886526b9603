//! Builders shared by the report tests: fleet views over hosts judged from the shipped examples.

use crate::document::HostOutcome;
use crate::document::{FLEET_REPORT_SCHEMA_ID, FleetFinding, FleetReport, HostCounts, HostResult};
use driftgate_compare::{JudgeOptions, Policy, Report, Severity, Verdict};
use driftgate_snapshot::{FactPath, FactValue, HostName, Snapshot, VerifiedSnapshot};

/// `snapshot` judged against `baseline` under the built-in policy.
pub(crate) fn judge(snapshot: &VerifiedSnapshot, baseline: Option<&VerifiedSnapshot>) -> Report {
    driftgate_compare::judge(
        snapshot,
        baseline,
        &Policy::builtin(),
        &JudgeOptions::default(),
    )
}

/// `from` as host `host`, its MACs `00:0a:f7:12:34:…` made `00:0a:f7:<mac>:…`.
pub(crate) fn renamed(from: &VerifiedSnapshot, host: &str, mac: &str) -> VerifiedSnapshot {
    let mut snapshot: Snapshot = from.snapshot().clone();
    snapshot.host = HostName::new(host).unwrap();
    let swap = |text: &str| text.replace("00:0a:f7:12:34:", &format!("00:0a:f7:{mac}:"));
    snapshot.facts = snapshot
        .facts
        .iter()
        .map(|(p, v)| {
            let v = v
                .as_text()
                .map_or_else(|| v.clone(), |t| FactValue::from(swap(t)));
            (FactPath::new(swap(p.as_str())).unwrap(), v)
        })
        .collect();
    VerifiedSnapshot::parse(&snapshot.to_canonical_json(), &format!("{host}.json")).unwrap()
}

/// The fleet findings of fixture `name` (`tests/fixtures/reports/fleet-findings/`): what the
/// fleet finds for the example snapshots, as `tests/it/report_fixtures.rs` checks.
pub(crate) fn fleet_findings(name: &str) -> Vec<FleetFinding> {
    let path = format!(
        "{}/tests/fixtures/reports/fleet-findings/{name}.json",
        concat!(env!("CARGO_MANIFEST_DIR"), "/../..")
    );
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Every host a blocking fleet finding names is blocked.
pub(crate) fn block_by_findings(hosts: &mut [HostResult], findings: &[FleetFinding]) {
    for h in hosts {
        for f in findings.iter().filter(|f| f.hosts.contains(&h.host)) {
            if f.severity == Severity::Block {
                h.verdict = h.verdict.worst(Verdict::Block);
            }
        }
    }
}

/// How many of `hosts` have each verdict.
pub(crate) fn host_counts(hosts: &[HostResult]) -> HostCounts {
    let mut counts = HostCounts {
        total: hosts.len(),
        ..HostCounts::default()
    };
    for h in hosts {
        match h.verdict {
            Verdict::Pass => counts.pass += 1,
            Verdict::Warn => counts.warn += 1,
            Verdict::Block => counts.block += 1,
            Verdict::Incomplete => counts.incomplete += 1,
        }
    }
    counts
}

/// A fleet report by `tool` of one unsharded run from 02:00:00Z to 02:03:10Z on 2026-12-01,
/// its verdict the worst of its hosts'.
pub(crate) fn fleet_report(
    tool: &str,
    hosts: Vec<HostResult>,
    findings: Vec<FleetFinding>,
) -> FleetReport {
    FleetReport {
        schema: FLEET_REPORT_SCHEMA_ID.into(),
        tool: tool.into(),
        started_at: "2026-12-01T02:00:00Z".into(),
        finished_at: "2026-12-01T02:03:10Z".into(),
        shards: Vec::new(),
        selections: Vec::new(),
        verdict: Verdict::worst_of(hosts.iter().map(|h| h.verdict)),
        strict: false,
        counts: host_counts(&hosts),
        hosts,
        findings,
        records_trusted: false,
    }
}

/// Host azl-node01 of cluster azl-cluster-a in fleet azure-local, judged as `report` after
/// the update captured as `post`, its capture kept at `snapshot_file`.
pub(crate) fn gate_host(
    report: Report,
    post: &VerifiedSnapshot,
    snapshot_file: &str,
    capture_ms: u64,
) -> HostOutcome {
    HostOutcome {
        host: report.snapshot.host.clone(),
        fleet: "azure-local".into(),
        cluster: Some("azl-cluster-a".into()),
        verdict: report.verdict,
        stories: driftgate_compare::stories(&report, &post.snapshot().facts),
        report,
        snapshot_file: snapshot_file.into(),
        capture_ms,
        notes: Vec::new(),
        fixes: Vec::new(),
    }
}

/// `snapshot` judged against `baseline` under the built-in policy and the allow file `allow`.
pub(crate) fn judge_allowing(
    snapshot: &VerifiedSnapshot,
    baseline: Option<&VerifiedSnapshot>,
    allow: &str,
) -> Report {
    let allowances = driftgate_compare::allow::parse_allow_file(allow, "allow.toml").unwrap();
    driftgate_compare::judge(
        snapshot,
        baseline,
        &Policy::builtin(),
        &JudgeOptions {
            allowances,
            ..JudgeOptions::default()
        },
    )
}
