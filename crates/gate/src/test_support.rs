//! What the gate's unit tests share: a complete snapshot of `azl-node01` with given facts.

use driftgate_snapshot::{
    FactPath, FactValue, Facts, HostName, Snapshot, SourceRecord, SourceStatus, VerifiedSnapshot,
};

/// A sealed snapshot of `azl-node01` from one complete Redfish source, holding `facts`.
pub(super) fn snapshot(facts: &[(&str, FactValue)]) -> VerifiedSnapshot {
    let facts: Facts = facts
        .iter()
        .map(|(path, value)| (FactPath::new(*path).unwrap(), value.clone()))
        .collect();
    VerifiedSnapshot::seal(
        Snapshot {
            host: HostName::new("azl-node01").unwrap(),
            captured_at: "2026-12-01T14:00:00Z".parse().unwrap(),
            tool: "driftgate test".into(),
            sources: vec![SourceRecord {
                name: "redfish".into(),
                target: "https://bmc".into(),
                status: SourceStatus::Complete,
                error: None,
            }],
            facts,
        },
        "test",
    )
}
