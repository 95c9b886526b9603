//! A fleet check's result (also `report merge`'s): what `driftgate schema fleet-report`
//! describes. `check --all` and `report merge` fill it; the formats render it.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::spool::HostReport;
use driftgate_compare::{Counts, Severity, Verdict};

/// `schema` of a [`FleetReport`].
pub const FLEET_REPORT_SCHEMA_ID: &str = "driftgate.fleet-report/v1";

/// The result of a fleet check or of `report merge`: what `driftgate schema fleet-report`
/// describes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(title = "driftgate fleet report v1")]
pub struct FleetReport {
    /// Always `driftgate.fleet-report/v1`.
    pub schema: String,
    /// Tool and version.
    pub tool: String,
    /// When the run (the earliest shard) started, RFC 3339.
    pub started_at: String,
    /// When the run (the latest shard) finished, RFC 3339.
    pub finished_at: String,
    /// The shards merged (`K/N`), empty for one unsharded run.
    pub shards: Vec<String>,
    /// The selections merged (`--tag site-a`, …: unsharded runs of disjoint host sets), empty
    /// unless several were.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub selections: Vec<String>,
    /// The worst verdict of all hosts and fleet findings: decides the exit code.
    pub verdict: Verdict,
    /// Whether warnings were made to block.
    pub strict: bool,
    /// Hosts by verdict.
    pub counts: HostCounts,
    /// Every host, by name.
    pub hosts: Vec<HostResult>,
    /// What no single host's baseline shows: cluster disagreement, stale and missing
    /// baselines and captures.
    pub findings: Vec<FleetFinding>,
    /// Whether `report merge` took the hosts' records as the shards wrote them
    /// (`--no-rejudge`) instead of judging each host again from its snapshot.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub records_trusted: bool,
}

/// Hosts by verdict.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct HostCounts {
    /// Every host of the run.
    pub total: usize,
    /// PASS.
    pub pass: usize,
    /// WARN.
    pub warn: usize,
    /// BLOCK.
    pub block: usize,
    /// INCOMPLETE.
    pub incomplete: usize,
}

/// One host's result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct HostResult {
    /// The host.
    pub host: String,
    /// Its fleet.
    pub fleet: String,
    /// Its cluster, if any.
    pub cluster: Option<String>,
    /// The worst of its own judgement and the fleet findings that name it.
    pub verdict: Verdict,
    /// Its own judgement's findings by severity.
    pub counts: Counts,
    /// Why the host could not be read completely (each source not complete, or the per-host
    /// deadline), when it could not.
    pub failure: Option<String>,
    /// How long its capture took, in milliseconds.
    pub capture_ms: u64,
    /// Its snapshot file in the output directory, when one was written.
    pub snapshot_file: Option<String>,
    /// When the host was last read completely (RFC 3339): this run's capture, or what the
    /// store's state file remembers of an earlier run when this one could not read it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_success_at: Option<String>,
    /// Its own judgement against its baseline (invariants and `expect` rules only without one).
    pub report: HostReport,
}

/// A finding about the fleet rather than one host's drift: the nodes of a cluster disagree, a
/// baseline is stale, missing or has no host.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct FleetFinding {
    /// `cluster/<what>`, `fleet/stale-baseline`, `fleet/missing-baseline`,
    /// `fleet/orphan-baseline`, `fleet/stale-capture`.
    pub rule: String,
    /// How it counts: the hosts it names get at least this verdict.
    pub severity: Severity,
    /// The cluster, for a cluster finding.
    pub cluster: Option<String>,
    /// The hosts it is about (a cluster finding: the odd nodes out).
    pub hosts: Vec<String>,
    /// What was compared (a fact path, or a path pattern across ports), when it is a fact.
    pub path: Option<String>,
    /// The odd nodes' values, one per host in `hosts` order, for a cluster finding.
    pub values: Vec<serde_json::Value>,
    /// The value most nodes of the cluster have, and how many have it.
    pub majority: Option<Majority>,
    /// One line for a human, naming the hosts and values.
    pub message: String,
}

/// The value most nodes of a cluster agree on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Majority {
    /// The value.
    pub value: serde_json::Value,
    /// How many nodes have it.
    pub hosts: usize,
    /// How many nodes were compared.
    pub of: usize,
}
