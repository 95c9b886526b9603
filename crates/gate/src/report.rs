//! How a gate step assembles its [`GateReport`].

use super::run::{Manifest, RunDir, RunId};
use driftgate_compare::{Allowance, Verdict};
use driftgate_report::document::{
    GATE_REPORT_SCHEMA_ID, GateReport, HostOutcome, RunSummary, Step,
};

#[allow(clippy::too_many_arguments)] // one place assembles the report of both steps
pub(super) fn gate_report(
    run: &RunDir,
    id: &RunId,
    step: Step,
    attempt: Option<u32>,
    manifest: &Manifest,
    policy_digest: &str,
    strict: bool,
    hosts: Vec<HostOutcome>,
    allowances: Vec<Allowance>,
    expired: Vec<Allowance>,
    mut warnings: Vec<String>,
) -> GateReport {
    for a in &expired {
        let value = a
            .value
            .as_ref()
            .map(|v| format!("={v}"))
            .unwrap_or_default();
        let expires = a.expires.map(|d| d.to_string()).unwrap_or_default();
        warnings.push(format!(
            "allowance {}{value} ({}) expired on {expires}: ignored",
            a.path, a.given_at
        ));
    }
    GateReport {
        schema: GATE_REPORT_SCHEMA_ID.to_owned(),
        tool: driftgate_snapshot::tool_version(),
        run: RunSummary {
            id: id.to_string(),
            dir: run.path().display().to_string(),
            step,
            attempt,
            started_at: manifest.created_at.to_string(),
            policy_digest: policy_digest.to_owned(),
        },
        verdict: worst(hosts.iter().map(|h| h.verdict)),
        strict,
        hosts,
        allowances,
        expired_allowances: expired,
        warnings,
        promotion: None,
    }
}

/// The step's verdict: incomplete, then block, warn, pass.
pub(super) fn worst(verdicts: impl Iterator<Item = Verdict>) -> Verdict {
    Verdict::worst_of(verdicts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_worst_verdict_decides_the_step() {
        use Verdict::*;
        assert_eq!(worst([Pass, Warn].into_iter()), Warn);
        assert_eq!(worst([Block, Incomplete, Pass].into_iter()), Incomplete);
        assert_eq!(worst([Pass, Block].into_iter()), Block);
    }
}
