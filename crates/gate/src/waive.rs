//! Waivers given at pre: an allowance without a value, recorded at a host's pre, waives at
//! its posts only the drift that was already there at pre ([`Origin::PreExisting`]). Said
//! before the update, "any value" of a path cannot have meant whatever the update does to it.

use driftgate_compare::{
    Allowance, AllowedFinding, Counts, Finding, Origin, Report, Severity, Verdict,
};

/// Moves `report`'s pre-existing findings that one of `waivers` matches to its `allowed`
/// (with the first waiver that matches), then counts and decides again.
pub(super) fn waive_pre_existing(report: &mut Report, waivers: &[Allowance]) {
    if waivers.is_empty() {
        return;
    }
    for finding in std::mem::take(&mut report.findings) {
        let waiver = (finding.origin == Some(Origin::PreExisting))
            .then(|| {
                waivers
                    .iter()
                    .find(|w| w.matches(&finding.path, finding.new.as_ref()))
            })
            .flatten();
        match waiver {
            Some(allowance) => report.allowed.push(AllowedFinding {
                finding,
                allowance: allowance.clone(),
            }),
            None => report.findings.push(finding),
        }
    }
    report
        .allowed
        .sort_by(|a, b| report_order(&a.finding, &b.finding));
    let count = |severity| {
        report
            .findings
            .iter()
            .filter(|f| f.severity == severity)
            .count()
    };
    report.counts = Counts {
        block: count(Severity::Block),
        warn: count(Severity::Warn),
        info: count(Severity::Info),
    };
    if report.verdict != Verdict::Incomplete {
        report.verdict = if report.counts.block > 0 || (report.strict && report.counts.warn > 0) {
            Verdict::Block
        } else if report.counts.warn > 0 {
            Verdict::Warn
        } else {
            Verdict::Pass
        };
    }
}

/// A report's order: most severe first, then by path, kind and id.
fn report_order(a: &Finding, b: &Finding) -> std::cmp::Ordering {
    b.severity
        .cmp(&a.severity)
        .then_with(|| a.path.cmp(&b.path))
        .then_with(|| a.kind.cmp(&b.kind))
        .then_with(|| a.id.cmp(&b.id))
}

#[cfg(test)]
mod tests {
    use super::*;
    use driftgate_compare::{Comparison, JudgeOptions, Policy};
    use driftgate_snapshot::VerifiedSnapshot;

    fn snapshot(dcbx: &str, pfc: bool) -> VerifiedSnapshot {
        crate::test_support::snapshot(&[
            ("nic/00:0a:f7:12:34:56/bmc/dcbx_mode", dcbx.into()),
            (
                "nic/00:0a:f7:12:34:56/os/flow_control/operational/priority/3",
                pfc.into(),
            ),
        ])
    }

    #[test]
    fn a_waiver_allows_drift_already_there_at_pre_and_not_what_the_update_changed() {
        let baseline = snapshot("ieee", true);
        // Priority 3 flow control was already off at pre; the update disabled DCBX.
        let pre = snapshot("ieee", false);
        let post = snapshot("disabled", false);
        let mut report = driftgate_compare::judge_comparison(
            &Comparison {
                snapshot: &post,
                baseline: Some(&baseline),
                pre: Some(&pre),
            },
            &Policy::builtin(),
            &JudgeOptions::default(),
        );
        let blocking = report.counts.block;
        assert!(blocking >= 2, "{report:#?}");
        let waivers = ["nic/*/bmc/**", "nic/*/os/**"].map(|path| Allowance {
            path: path.into(),
            value: None,
            reason: None,
            ticket: None,
            expires: None,
            given_at: "--allow".into(),
        });
        waive_pre_existing(&mut report, &waivers);
        assert_eq!(report.verdict, Verdict::Block);
        assert!(
            report.findings.iter().any(
                |f| f.path.as_str().ends_with("/dcbx_mode") && f.origin == Some(Origin::Update)
            ),
            "{report:#?}"
        );
        assert!(
            report
                .allowed
                .iter()
                .all(|a| a.finding.origin == Some(Origin::PreExisting)),
            "{report:#?}"
        );
        assert!(
            report
                .allowed
                .iter()
                .any(|a| a.finding.path.as_str().ends_with("/priority/3")),
            "{report:#?}"
        );
        assert!(report.counts.block < blocking);
    }
}
