//! Cluster consistency: the nodes of one cluster must agree on what must be equal across
//! nodes (host PFC priorities, traffic classes and ETS bandwidths, DCBX mode and willing, NIC
//! firmware family per adapter model, and on ESXi the PSP of every device shared
//! cluster-wide). Needs no baseline. Each host's few facts that matter are extracted once as
//! it finishes ([`ClusterFacts`], kept in its result file), so a run holds no snapshot and a
//! merge of shards compares the same facts. Pure: no I/O.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::FleetFinding;
use crate::snapshot::Snapshot;

/// What of one host's snapshot the cluster check compares, keyed so that the same key means
/// the same thing on every node.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ClusterFacts {
    /// Comparison key → value.
    pub values: BTreeMap<String, serde_json::Value>,
}

impl ClusterFacts {
    /// The facts of `snapshot` that the nodes of a cluster must agree on.
    pub fn extract(snapshot: &Snapshot) -> ClusterFacts {
        let _ = snapshot;
        ClusterFacts::default()
    }
}

/// The findings of `cluster` whose `members` (host, facts) disagree: one per key where some
/// nodes differ from the majority, naming the odd nodes out and the majority value, most
/// severe first.
pub fn consistency(cluster: &str, members: &[(&str, &ClusterFacts)]) -> Vec<FleetFinding> {
    let _ = (cluster, members);
    Vec::new()
}
