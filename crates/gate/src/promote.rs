//! `gate post --promote`: after a passing post only, the post snapshots become the new
//! baselines in one commit (through [`driftgate_baseline::promote`]) whose message carries the
//! run id, each host's firmware changes pre → post and the allowances that were used.

use std::fmt::Write as _;

use super::{GateError, RunId, Settings};
use driftgate_baseline::{FleetSnapshot, PromoteOutcome, PromoteRequest};
use driftgate_compare::{Allowance, FindingKind, Report, Severity, Verdict};
use driftgate_report::document::FixState;
use driftgate_report::document::{Promotion, PromotionOutcome};
use driftgate_snapshot::{FactValue, VerifiedSnapshot};

/// One host of a passing post.
pub(super) struct Promoted<'a> {
    /// Its fleet.
    pub fleet: &'a str,
    /// Its pre snapshot.
    pub pre: &'a VerifiedSnapshot,
    /// Its post snapshot: the new baseline.
    pub post: VerifiedSnapshot,
    /// Its post judgement.
    pub report: &'a Report,
    /// The baselines the post may replace: the one its pre was judged against, and what
    /// earlier posts of the run promoted.
    pub replaces: Vec<String>,
    /// The fix steps applied to it in the run, as this post verified them.
    pub fixes: &'a [driftgate_report::document::FixCheck],
}

/// Promotes `hosts` when `verdict` passes; says why not otherwise.
pub(super) fn promote(
    settings: &Settings,
    run: &RunId,
    attempt: u32,
    verdict: Verdict,
    hosts: Vec<Promoted<'_>>,
) -> Result<PromotionOutcome, GateError> {
    if !matches!(verdict, Verdict::Pass | Verdict::Warn) {
        return Ok(PromotionOutcome::Skipped {
            reason: format!(
                "the post verdict is {}: only a passing post is promoted, nothing was committed",
                verdict.as_upper()
            ),
        });
    }
    let used = used_allowances(&hosts);
    let message = message(run, attempt, verdict, &hosts, &used);
    // `baseline promote` refuses a snapshot with blocking invariant or expectation findings;
    // the gate judged them allowed, so it overrides that refusal, saying by which allowances.
    let waived = hosts.iter().any(|h| {
        h.report.allowed.iter().any(|a| {
            a.finding.severity == Severity::Block
                && matches!(
                    a.finding.kind,
                    FindingKind::Invariant | FindingKind::Expectation
                )
        })
    });
    let force_reason = waived.then(|| {
        let list: Vec<String> = used.iter().map(describe).collect();
        format!(
            "gate run {run} post-{attempt} passed with blocking findings allowed by: {}",
            list.join("; ")
        )
    });
    let request = PromoteRequest {
        snapshots: hosts
            .into_iter()
            .map(|h| FleetSnapshot {
                fleet: h.fleet.to_owned(),
                snapshot: h.post,
                replaces: h.replaces,
            })
            .collect(),
        message: Some(message),
        force_reason,
        lock_wait: settings.lock_wait,
    };
    match driftgate_baseline::promote(&settings.store, &settings.policy, request)? {
        PromoteOutcome::Refused(refusals) => {
            let reasons: Vec<String> = refusals
                .iter()
                .flat_map(|r| {
                    r.reasons
                        .iter()
                        .map(move |why| format!("{}: {why}", r.host))
                })
                .collect();
            Ok(PromotionOutcome::Skipped {
                reason: format!("baseline promote refused: {}", reasons.join("; ")),
            })
        }
        PromoteOutcome::Promoted { hosts, commit, .. } => {
            Ok(PromotionOutcome::Promoted(Promotion {
                commit: commit.as_ref().map(|c| c.id.to_string()),
                reference: commit.map(|c| c.reference),
                files: hosts
                    .into_iter()
                    .filter(|h| h.change.is_some())
                    .map(|h| h.path)
                    .collect(),
            }))
        }
    }
}

/// The allowances that matched a finding of some host, each once.
fn used_allowances(hosts: &[Promoted<'_>]) -> Vec<Allowance> {
    let mut used: Vec<Allowance> = Vec::new();
    for allowed in hosts.iter().flat_map(|h| &h.report.allowed) {
        if !used.contains(&allowed.allowance) {
            used.push(allowed.allowance.clone());
        }
    }
    used
}

/// `nic/*/bmc/**/dcbx_mode=disabled (--allow): reason "…", ticket CHG-1`.
fn describe(a: &Allowance) -> String {
    let mut text = a.path.clone();
    if let Some(value) = &a.value {
        let _ = write!(text, "={}", plain(value));
    }
    let _ = write!(text, " ({})", a.given_at);
    if let Some(reason) = &a.reason {
        let _ = write!(text, ": reason {reason:?}");
    }
    if let Some(ticket) = &a.ticket {
        let _ = write!(text, ", ticket {ticket}");
    }
    text
}

/// A value as an operator writes it: a string without quotes.
fn plain(value: &FactValue) -> String {
    value
        .as_text()
        .map_or_else(|| value.to_string(), str::to_owned)
}

/// The gate's part of the commit message (`driftgate_baseline::promote` adds each host's summary).
fn message(
    run: &RunId,
    attempt: u32,
    verdict: Verdict,
    hosts: &[Promoted<'_>],
    used: &[Allowance],
) -> String {
    let mut text = format!(
        "Gate run {run}, post-{attempt}: {} ({} host{})\n\nFirmware changes (pre → post):\n",
        verdict.as_upper(),
        hosts.len(),
        if hosts.len() == 1 { "" } else { "s" }
    );
    let mut any = false;
    for host in hosts {
        for (change, paths) in firmware_changes(host.pre, &host.post) {
            any = true;
            let _ = writeln!(
                text,
                "  {}: {change} ({})",
                host.post.snapshot().host,
                paths.join(", ")
            );
        }
    }
    if !any {
        text.push_str("  none\n");
    }
    text.push_str("\nAllowances used:\n");
    if used.is_empty() {
        text.push_str("  none\n");
    }
    for a in used {
        let _ = writeln!(text, "  {}", describe(a));
    }
    let fixes: Vec<_> = hosts
        .iter()
        .flat_map(|h| h.fixes.iter().map(move |f| (h, f)))
        .collect();
    if !fixes.is_empty() {
        text.push_str("\nFixes applied (driftgate fix apply):\n");
        for (host, fix) in fixes {
            let _ = writeln!(
                text,
                "  {}: ticket {}: {} {} = {} ({}{})",
                host.post.snapshot().host,
                fix.ticket,
                fix.step,
                fix.fact,
                fix.planned,
                match fix.state {
                    FixState::TookEffect => "took effect",
                    FixState::Pending => "pending",
                    FixState::NotInEffect => "not in effect",
                },
                // As gate post says it: the apply that sent it stopped before an answer.
                if fix.unanswered {
                    "; sent, but no answer was recorded"
                } else {
                    ""
                }
            );
        }
    }
    let _ = write!(text, "\nRun: {run}");
    text
}

/// Firmware facts that changed from `pre` to `post`, one entry per `from → to` with every
/// fact that says so.
fn firmware_changes(pre: &VerifiedSnapshot, post: &VerifiedSnapshot) -> Vec<(String, Vec<String>)> {
    let mut grouped: Vec<(String, Vec<String>)> = Vec::new();
    let (pre, post) = (&pre.snapshot().facts, &post.snapshot().facts);
    for change in driftgate_compare::changes(pre, post) {
        if !driftgate_compare::is_firmware_version(change.path.as_str()) {
            continue;
        }
        let side = |v: Option<&FactValue>| v.map_or_else(|| "(none)".to_owned(), plain);
        let label = format!("{} → {}", side(change.old), side(change.new));
        match grouped.iter_mut().find(|(l, _)| *l == label) {
            Some((_, paths)) => paths.push(change.path.to_string()),
            None => grouped.push((label, vec![change.path.to_string()])),
        }
    }
    grouped
}

#[cfg(test)]
mod tests {
    use super::*;

    fn snapshot(version: &str, dcbx: &str) -> VerifiedSnapshot {
        crate::test_support::snapshot(&[
            ("firmware/nic.slot.3-1-1/version", version.into()),
            ("nic/00:0a:f7:12:34:56/bmc/firmware/version", version.into()),
            ("firmware/bmc/version", "7.10".into()),
            ("nic/00:0a:f7:12:34:56/bmc/dcbx_mode", dcbx.into()),
        ])
    }

    #[test]
    fn the_message_names_the_run_each_firmware_change_once_and_the_allowances_used() {
        let (pre, post) = (
            snapshot("229.0.166.0", "ieee"),
            snapshot("229.1.123.0", "disabled"),
        );
        let report = driftgate_compare::judge(
            &post,
            Some(&pre),
            &driftgate_compare::Policy::builtin(),
            &driftgate_compare::JudgeOptions::default(),
        );
        let hosts = vec![Promoted {
            fleet: "azure-local",
            pre: &pre,
            post: post.clone(),
            report: &report,
            replaces: Vec::new(),
            fixes: &[],
        }];
        let allowance = Allowance {
            path: "nic/*/bmc/**/dcbx_mode".into(),
            value: Some("disabled".into()),
            reason: Some("vendor advisory".into()),
            ticket: Some("CHG-7".into()),
            expires: None,
            given_at: "allow.toml:2".into(),
        };
        let run = RunId::new("CHG-7").unwrap();
        let text = message(&run, 2, Verdict::Pass, &hosts, &[allowance]);
        assert!(
            text.starts_with("Gate run CHG-7, post-2: PASS (1 host)\n"),
            "{text}"
        );
        assert!(
            text.contains(
                "  azl-node01: 229.0.166.0 → 229.1.123.0 (firmware/nic.slot.3-1-1/version, nic/00:0a:f7:12:34:56/bmc/firmware/version)\n"
            ),
            "{text}"
        );
        assert!(!text.contains("firmware/bmc/version"), "{text}");
        assert!(
            text.contains(
                "  nic/*/bmc/**/dcbx_mode=disabled (allow.toml:2): reason \"vendor advisory\", ticket CHG-7\n"
            ),
            "{text}"
        );
    }
}
