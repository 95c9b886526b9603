//! The judgement: verdict, findings and the report every renderer draws from.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::severity::Severity;
use driftgate_snapshot::{FactPath, FactValue, SourceStatus};

/// How a staged change's message ends.
pub(crate) const AT_NEXT_REBOOT: &str = "takes effect at the next reboot";

/// The schema id of JSON reports.
pub const REPORT_SCHEMA_ID: &str = "driftgate.report/v1";

/// The outcome for one host.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// Nothing to report above `info`.
    Pass,
    /// Warnings only; passes unless `--strict`.
    Warn,
    /// A blocking finding (or a warning under `--strict`).
    Block,
    /// A capture was partial or failed: never a pass.
    Incomplete,
}

impl Verdict {
    /// Upper-case word used in text output.
    pub fn as_upper(self) -> &'static str {
        match self {
            Verdict::Pass => "PASS",
            Verdict::Warn => "WARN",
            Verdict::Block => "BLOCK",
            Verdict::Incomplete => "INCOMPLETE",
        }
    }

    /// The worse of two verdicts: INCOMPLETE > BLOCK > WARN > PASS (the gate's step and the
    /// fleet's hosts rank them alike).
    pub fn worst(self, other: Verdict) -> Verdict {
        if other.rank() > self.rank() {
            other
        } else {
            self
        }
    }

    /// The worst of `verdicts`; PASS for none.
    pub fn worst_of(verdicts: impl IntoIterator<Item = Verdict>) -> Verdict {
        verdicts.into_iter().fold(Verdict::Pass, Verdict::worst)
    }

    fn rank(self) -> u8 {
        match self {
            Verdict::Pass => 0,
            Verdict::Warn => 1,
            Verdict::Block => 2,
            Verdict::Incomplete => 3,
        }
    }
}

/// What kind of finding this is.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum FindingKind {
    /// The fact has a different value than in the baseline.
    Changed,
    /// The fact is new since the baseline.
    Added,
    /// The fact was in the baseline and is gone.
    Removed,
    /// A policy `expect` does not hold.
    Expectation,
    /// A built-in invariant does not hold.
    Invariant,
}

/// One finding, explaining itself.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Finding {
    /// Kind of finding.
    pub kind: FindingKind,
    /// Rule or invariant id that produced it (`unmatched` for a change no rule covers).
    pub id: String,
    /// Severity (never `ignore`).
    pub severity: Severity,
    /// The fact concerned.
    pub path: FactPath,
    /// Value in the baseline.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub old: Option<FactValue>,
    /// Value now.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub new: Option<FactValue>,
    /// Value the policy expects (expectations only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expected: Option<FactValue>,
    /// What happened, in one sentence.
    pub message: String,
    /// Why it matters.
    pub why: String,
    /// The fact is a value staged for the next reboot (its path has a `pending` segment): not
    /// live yet, it takes effect at the next reboot. Left out when false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub pending: bool,
    /// Firmware that changed in the same window, for a finding on a NIC port
    /// (`nic/<key>/...`): that port's own firmware first (`this_port`), then the rest of the
    /// host's. The window is baseline → snapshot; three-way, pre → post for the update's
    /// findings and baseline → pre for pre-existing drift. Left out when empty.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub firmware: Vec<FirmwareChange>,
    /// Why the firmware of the finding's own port cannot be named, beside [`Finding::firmware`]
    /// (firmware changed in the window), for a warning or blocking finding on a NIC port
    /// (`nic/<key>/...`) whose snapshots (either side of the window) hold no firmware fact
    /// under that `nic/<key>/` and no inventory link: a report then says so instead of "no
    /// firmware change of this port". Left out when the port's firmware is known, when no
    /// firmware changed, and for a finding on no port.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub firmware_unknown: Option<FirmwareUnknown>,
    /// Where the finding comes from in a three-way (baseline → pre → post) comparison; left
    /// out of a two-way one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub origin: Option<Origin>,
}

/// Why a port's own firmware is unknown (see [`Finding::firmware_unknown`]).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum FirmwareUnknown {
    /// The BMC reports the port but links it to no firmware inventory entry and gives it no
    /// firmware version.
    NotLinked,
    /// Only an operating system reports the port (no BMC fact), and it names no firmware.
    NoSource,
}

/// Where a finding of a three-way comparison (baseline → pre → post) comes from.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Origin {
    /// Pre equalled the baseline; post differs: the update did it.
    Update,
    /// Already different at pre: drift from before the update.
    PreExisting,
    /// Meant to change: a firmware version the update changed (between pre and post).
    Expected,
}

/// A finding an allowance declared or waived: it does not count towards the verdict.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct AllowedFinding {
    /// The finding as it would have been reported.
    pub finding: Finding,
    /// The allowance that matched it.
    pub allowance: super::allow::Allowance,
}

/// One firmware fact that changed, as named beside a finding for attribution.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct FirmwareChange {
    /// The firmware fact.
    pub path: FactPath,
    /// Its value in the baseline.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub old: Option<FactValue>,
    /// Its value now.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub new: Option<FactValue>,
    /// The firmware belongs to the finding's own port: a firmware fact under the same
    /// `nic/<key>/`, or the inventory component that port's `bmc/firmware/inventory` names.
    pub this_port: bool,
    /// The firmware is staged (flashed, not running yet): it takes effect at the next reboot.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub pending: bool,
}

/// Which snapshot a source belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// The snapshot being judged.
    Snapshot,
    /// The baseline it is compared with.
    Baseline,
    /// The pre-update snapshot of a three-way comparison.
    Pre,
}

/// A snapshot the report is about.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SnapshotSummary {
    /// File or reference it was read from.
    pub origin: String,
    /// Host it describes.
    pub host: String,
    /// When it was captured (RFC 3339).
    pub captured_at: String,
    /// Its verified digest.
    pub digest: String,
    /// Number of facts.
    pub facts: usize,
}

/// A source that did not capture completely.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct IncompleteSource {
    /// Snapshot it belongs to.
    pub role: Role,
    /// Source kind.
    pub name: String,
    /// Where it was read from.
    pub target: String,
    /// `partial` or `failed`.
    pub status: SourceStatus,
    /// What went wrong.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Findings kept out of the report because this source did not read their fact: what a
    /// source did not read is unknown, not removed.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub not_judged: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// Number of findings per reported severity.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Counts {
    /// Blocking findings.
    pub block: usize,
    /// Warnings.
    pub warn: usize,
    /// Informational findings.
    pub info: usize,
}

/// The result of judging one snapshot: what `schemas/report.schema.json` describes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(title = "driftgate report v1")]
pub struct Report {
    /// Always `driftgate.report/v1`.
    pub schema: String,
    /// Tool and version.
    pub tool: String,
    /// The verdict; decides the exit code.
    pub verdict: Verdict,
    /// Whether warnings were made to block.
    pub strict: bool,
    /// The snapshot judged.
    pub snapshot: SnapshotSummary,
    /// The baseline, when compared with one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub baseline: Option<SnapshotSummary>,
    /// The pre-update snapshot, in a three-way comparison.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pre: Option<SnapshotSummary>,
    /// Sources that did not capture completely (any makes the verdict `incomplete`).
    pub incomplete_sources: Vec<IncompleteSource>,
    /// Firmware facts that changed in the same window, for attribution: since the baseline;
    /// in a three-way comparison between pre and post (the update's).
    pub firmware_changes: Vec<Finding>,
    /// Findings per severity.
    pub counts: Counts,
    /// Findings, most severe first, then by path.
    pub findings: Vec<Finding>,
    /// Findings an allowance declared or waived (not counted, not in `findings`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub allowed: Vec<AllowedFinding>,
    /// The rules that applied to the host, sorted by id then kind: each policy rule whose
    /// pattern governs at least one fact (a drift rule only with a baseline), and each
    /// invariant that ran. Rules and invariants set to `ignore` are left out. Empty in a
    /// report written before driftgate recorded them.
    #[serde(default)]
    pub rules: Vec<AppliedRule>,
}

/// What a rule that applied to a host checks.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum RuleKind {
    /// A built-in cross-fact check.
    Invariant,
    /// A policy rule's `on_change`: changes since the baseline.
    Drift,
    /// A policy rule's `expect`: the value every matching fact must have.
    Expectation,
}

/// One rule that applied to a host, whether or not it found anything.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct AppliedRule {
    /// Rule or invariant id, as findings name it.
    pub id: String,
    /// What it checks (a policy rule with both `on_change` and `expect` applies twice).
    pub kind: RuleKind,
    /// Its effective severity: `on_change`, `on_violation`, or the invariant's.
    pub severity: Severity,
    /// How many facts it checked: a drift rule the facts of the snapshot or baseline it is the
    /// most specific rule for, an expectation those it is the most specific expectation for
    /// (a missing literal fact counts), an invariant every fact of the snapshot it ran over.
    pub facts: usize,
}

impl Report {
    /// Findings of one severity, in report order.
    pub fn findings_at(&self, severity: Severity) -> impl Iterator<Item = &Finding> {
        self.findings.iter().filter(move |f| f.severity == severity)
    }
}
