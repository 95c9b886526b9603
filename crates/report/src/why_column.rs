//! Why a host did not pass, in a few words, for the "why" column of the fleet's HTML and
//! Markdown host tables: an incomplete host's failure reason; else its first blocking (then
//! warning) finding's rule and port or fact, or the fleet finding that raised its verdict.

use crate::document::FleetFinding;
use crate::wording::port_of;
use driftgate_compare::{Report, Severity, Verdict};

/// A "why" cell is cut to this many characters (with `…`): a host's row stays one line of a
/// table on a screen; the HTML keeps the whole text in the cell's title.
pub(crate) const WHY_CHARS: usize = 80;

/// Why the host of `report` has `verdict`: its `failure` (as the host result words it) when
/// it could not be read completely; `dcbx-mode on nic/00:0a:f7:12:34:56` for its first
/// finding at the severity that decided its verdict (blocking, else warning, as `--strict`
/// blocks on warnings); else the first of `fleet_findings` (those naming the host) at the
/// highest severity. `None` for a passing host.
pub(crate) fn why(
    verdict: Verdict,
    failure: Option<&str>,
    report: &Report,
    fleet_findings: &[&FleetFinding],
) -> Option<String> {
    if let Some(failure) = failure {
        return Some(failure.to_owned());
    }
    let severities: &[Severity] = match verdict {
        Verdict::Pass => return None,
        Verdict::Incomplete => return Some("could not be read completely".to_owned()),
        Verdict::Block => &[Severity::Block, Severity::Warn],
        Verdict::Warn => &[Severity::Warn],
    };
    for &severity in severities {
        if let Some(f) = report.findings.iter().find(|f| f.severity == severity) {
            let at = port_of(f).unwrap_or(f.path.as_str());
            return Some(format!("{} on {at}", f.id));
        }
    }
    let top = fleet_findings.iter().map(|f| f.severity).max()?;
    let fleet = fleet_findings.iter().find(|f| f.severity == top)?;
    Some(match (&fleet.path, &fleet.cluster) {
        (Some(path), _) => format!("{} on {path}", fleet.rule),
        (None, Some(cluster)) => format!("{} in cluster {cluster}", fleet.rule),
        (None, None) => fleet.rule.clone(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::judge;
    use driftgate_compare::testing::example;

    fn finding(rule: &str, severity: Severity, path: Option<&str>) -> FleetFinding {
        FleetFinding {
            rule: rule.into(),
            severity,
            cluster: Some("azl".into()),
            hosts: vec!["azl-node01".into()],
            path: path.map(Into::into),
            values: Vec::new(),
            majority: None,
            message: String::new(),
        }
    }

    #[test]
    fn a_blocked_host_names_its_first_blocking_rule_and_port() {
        let report = judge(
            &example("post-update.json"),
            Some(&example("baseline.json")),
        );
        assert_eq!(
            why(Verdict::Block, None, &report, &[]).as_deref(),
            Some("dcbx-mode on nic/00:0a:f7:12:34:56")
        );
        // A failure is said as the host result words it, whatever the findings.
        assert_eq!(
            why(
                Verdict::Incomplete,
                Some("connection refused"),
                &report,
                &[]
            )
            .as_deref(),
            Some("connection refused")
        );
        assert_eq!(why(Verdict::Pass, None, &report, &[]), None);
    }

    #[test]
    fn a_host_raised_by_the_fleet_names_the_fleet_finding() {
        let report = judge(&example("baseline.json"), Some(&example("baseline.json")));
        let stale = finding("fleet/stale-baseline", Severity::Warn, None);
        let cluster = finding(
            "cluster/dcbx-mode",
            Severity::Block,
            Some("nic/*/bmc/dcbx_mode"),
        );
        assert_eq!(
            why(Verdict::Block, None, &report, &[&stale, &cluster]).as_deref(),
            Some("cluster/dcbx-mode on nic/*/bmc/dcbx_mode")
        );
        let stale = FleetFinding {
            cluster: None,
            ..stale
        };
        assert_eq!(
            why(Verdict::Warn, None, &report, &[&stale]).as_deref(),
            Some("fleet/stale-baseline")
        );
        assert_eq!(
            why(Verdict::Incomplete, None, &report, &[]).as_deref(),
            Some("could not be read completely")
        );
    }
}
