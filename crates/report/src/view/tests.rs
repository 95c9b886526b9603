//! The view parses a document's times once; a time that does not parse is `None` and named.

use crate::document::{FLEET_REPORT_SCHEMA_ID, FleetReport, HostCounts, HostResult};
use crate::format::Document;
use crate::view::{View, ViewKind};
use driftgate_compare::testing::example;
use driftgate_compare::{JudgeOptions, Policy, Report, Verdict};

use super::hosts_at;

fn judged() -> Report {
    let base = example("baseline.json");
    driftgate_compare::judge(
        &base,
        Some(&base),
        &Policy::builtin(),
        &JudgeOptions::default(),
    )
}

fn fleet(last_success: [Option<&str>; 2], finished_at: &str) -> FleetReport {
    let hosts = ["b-node", "a-node"]
        .into_iter()
        .zip(last_success)
        .map(|(name, ok)| {
            let report = judged();
            HostResult {
                host: name.into(),
                fleet: "lab".into(),
                cluster: None,
                verdict: Verdict::Incomplete,
                counts: report.counts,
                failure: Some("redfish: timed out".into()),
                capture_ms: 30_000,
                snapshot_file: None,
                last_success_at: ok.map(Into::into),
                report: report.into(),
            }
        })
        .collect();
    FleetReport {
        schema: FLEET_REPORT_SCHEMA_ID.into(),
        tool: "driftgate test".into(),
        started_at: "2026-12-01T02:00:00Z".into(),
        finished_at: finished_at.into(),
        shards: Vec::new(),
        selections: Vec::new(),
        verdict: Verdict::Incomplete,
        strict: false,
        counts: HostCounts {
            total: 2,
            incomplete: 2,
            ..HostCounts::default()
        },
        hosts,
        findings: Vec::new(),
        records_trusted: false,
    }
}

#[test]
fn times_are_parsed_once_into_timestamps() {
    let fleet = fleet(
        [Some("2026-11-30T02:00:03+01:00"), None],
        "2026-12-01T02:03:10Z",
    );
    let view = View::of(Document::Fleet(&fleet));
    assert_eq!(
        view.started_at,
        Some("2026-12-01T02:00:00Z".parse().unwrap())
    );
    assert_eq!(
        view.finished_at,
        Some("2026-12-01T02:03:10Z".parse().unwrap())
    );
    assert_eq!(view.hosts[0].host, "a-node");
    assert_eq!(view.hosts[0].last_success_at, None);
    assert_eq!(
        view.hosts[1].last_success_at,
        Some("2026-11-30T01:00:03Z".parse().unwrap())
    );
    assert!(
        view.unreadable_times.is_empty(),
        "{:?}",
        view.unreadable_times
    );
}

#[test]
fn an_unparseable_time_is_none_and_named() {
    let fleet = fleet([Some("last tuesday"), None], "soon");
    let view = View::of(Document::Fleet(&fleet));
    assert_eq!(view.finished_at, None);
    assert_eq!(view.hosts[1].host, "b-node");
    assert_eq!(view.hosts[1].last_success_at, None);
    let said: Vec<String> = view
        .unreadable_times
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(said.len(), 2, "{said:?}");
    assert!(
        said[0].starts_with("finished_at \"soon\" is not an RFC 3339 time ("),
        "{said:?}"
    );
    assert!(
        said[1].starts_with("b-node: last_success_at \"last tuesday\" is not an RFC 3339 time ("),
        "{said:?}"
    );
    assert!(said[1].ends_with("); treated as unknown"), "{said:?}");
}

#[test]
fn a_check_counts_its_host_and_names_its_kind() {
    let report = judged();
    let view = View::of(Document::Check(&report, &[]));
    assert_eq!(view.kind, ViewKind::Check);
    assert_eq!(view.kind.name(), "check");
    assert_eq!(view.started_at, view.hosts[0].captured_at);
    assert_eq!(view.hosts[0].last_success_at, view.hosts[0].captured_at);
    assert!(view.started_at.is_some());
    assert_eq!(hosts_at(&view.counts, report.verdict), 1);
    assert_eq!(view.counts.total, 1);
    assert!(!view.hosts[0].incomplete());
}

#[test]
fn incomplete_hosts_are_told_apart() {
    let fleet = fleet([None, None], "2026-12-01T02:03:10Z");
    let view = View::of(Document::Fleet(&fleet));
    assert!(view.hosts.iter().all(|h| h.incomplete()));
    assert_eq!(hosts_at(&view.counts, Verdict::Incomplete), 2);
    assert_eq!(hosts_at(&view.counts, Verdict::Pass), 0);
}
