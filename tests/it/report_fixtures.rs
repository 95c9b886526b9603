//! The fleet findings the report crate's unit tests render are kept as fixtures
//! (`tests/fixtures/reports/fleet-findings/`), because the report crate does not depend on the
//! fleet crate that finds them. This test finds them again, the way `check --all` does, from
//! the same example snapshots and inputs, so a fixture cannot drift from what the fleet says.
//! `DRIFTGATE_BLESS=1` rewrites them.

use std::time::Duration;

use driftgate_fleet::cluster::{ClusterFacts, consistency};
use driftgate_fleet::stale::{StaleInput, findings};
use driftgate_report::document::FleetFinding;
use driftgate_snapshot::{FactPath, FactValue, HostName, Snapshot, VerifiedSnapshot};

use crate::common::root;

fn example(rel: &str) -> VerifiedSnapshot {
    let text = std::fs::read_to_string(crate::common::example(rel)).unwrap();
    VerifiedSnapshot::parse(&text, rel).unwrap()
}

/// `from` as host `host`, its MACs `00:0a:f7:12:34:…` made `00:0a:f7:<mac>:…` (as the report
/// tests' `renamed`).
fn renamed(from: &VerifiedSnapshot, host: &str, mac: &str) -> Snapshot {
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
    snapshot
}

/// Azure Local node01 after the update that reset its DCBX beside two clean nodes. (A report
/// test that also sets node02's BIOS profile to `Custom` gets the same findings: the cluster
/// compares no BIOS profile.)
fn cluster() -> Vec<FleetFinding> {
    let base = example("azure-local-dcbx/baseline.json");
    let post = example("azure-local-dcbx/post-update.json");
    let n2 = renamed(&base, "azl-node02", "56:78");
    let n3 = renamed(&base, "azl-node03", "9a:bc");
    let facts = [
        ("azl-node01", ClusterFacts::extract(post.snapshot())),
        ("azl-node02", ClusterFacts::extract(&n2)),
        ("azl-node03", ClusterFacts::extract(&n3)),
    ];
    let members: Vec<(&str, &ClusterFacts)> = facts.iter().map(|(h, f)| (*h, f)).collect();
    consistency("azl", &members)
}

fn stale(host: &str, baseline: Option<&str>, good: &str) -> StaleInput {
    StaleInput {
        host: host.into(),
        baseline_captured_at: baseline.map(|t| t.parse().unwrap()),
        baseline_unread: false,
        last_good: Some(good.parse().unwrap()),
    }
}

/// Every fixture and how the fleet finds it.
fn fixtures() -> Vec<(&'static str, Vec<FleetFinding>)> {
    let month = Some(Duration::from_secs(30 * 86_400));
    let now = "2026-12-01T02:00:00Z".parse().unwrap();
    vec![
        ("cluster-azl", cluster()),
        (
            "stale-lab",
            findings(
                &[
                    stale(
                        "azl-node01",
                        Some("2026-11-30T02:00:00Z"),
                        "2026-12-01T02:00:00Z",
                    ),
                    stale(
                        "azl-node04",
                        Some("2026-10-01T02:00:00Z"),
                        "2026-10-20T02:00:00Z",
                    ),
                    stale("rdma-node08", None, "2026-12-01T02:00:00Z"),
                ],
                &["baselines/lab/old-node.json".to_owned()],
                month,
                now,
            ),
        ),
        (
            "stale-azure-local",
            findings(
                &[
                    stale(
                        "azl-node04",
                        Some("2026-10-01T02:00:00Z"),
                        "2026-10-20T02:00:00Z",
                    ),
                    stale("azl-node05", None, "2026-12-01T02:00:00Z"),
                ],
                &["baselines/azure-local/old node.json".to_owned()],
                month,
                now,
            ),
        ),
    ]
}

#[test]
fn the_report_tests_fleet_findings_are_what_the_fleet_finds() {
    let dir = root().join("tests/fixtures/reports/fleet-findings");
    for (name, found) in fixtures() {
        assert!(!found.is_empty(), "{name}: the fleet finds nothing");
        let file = dir.join(format!("{name}.json"));
        let mut generated = serde_json::to_string_pretty(&found).unwrap();
        generated.push('\n');
        if std::env::var_os("DRIFTGATE_BLESS").is_some() {
            std::fs::write(&file, &generated).unwrap();
        }
        let fixture =
            std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        assert!(
            fixture == generated,
            "{} is not what the fleet finds now: rerun with DRIFTGATE_BLESS=1",
            file.display()
        );
    }
}
