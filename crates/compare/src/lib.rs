//! Compare: diff two snapshots, classify each change by policy, check `expect` rules and
//! invariants, and reach a verdict. It never sees sources or files: it judges snapshots
//! ([`driftgate_snapshot`]) whose values it reads as protocol types ([`driftgate_model`]), and
//! keeps the values of secrets out of a report ([`driftgate_secrets`]).
//!
//! ```
//! use driftgate_compare::{JudgeOptions, Policy, Verdict, judge};
//! use driftgate_snapshot::VerifiedSnapshot;
//!
//! let file = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/esxi-mscs-psp/current.json");
//! let text = std::fs::read_to_string(file).unwrap();
//! let current = VerifiedSnapshot::parse(&text, "current.json").unwrap();
//! let report = judge(&current, None, &Policy::builtin(), &JudgeOptions::default());
//! assert_eq!(report.verdict, Verdict::Block);
//! ```

pub mod allow;
mod applied;
mod capability;
mod diff;
mod fact_kind;
pub mod functions;
mod glob;
mod invariants;
mod peer;
mod policy;
mod port_firmware;
mod refiled;
mod severity;
mod stories;
mod three_way;
mod unread;
mod verdict;
mod violations;

pub use allow::Allowance;
pub use diff::{Change, changes};
pub use fact_kind::{is_firmware_version, is_peer_fact};
pub use invariants::{INVARIANTS, Invariant, Violation};
pub use policy::{
    Classification, Policy, PolicyDocument, PolicyError, Rule, RuleDocument, UNMATCHED_ID,
};
pub use severity::Severity;
pub use stories::{Story, change_text, stories};

pub use verdict::{
    AllowedFinding, AppliedRule, Counts, Finding, FindingKind, FirmwareChange, FirmwareUnknown,
    IncompleteSource, Origin, REPORT_SCHEMA_ID, Report, Role, RuleKind, SnapshotSummary, Verdict,
};

use driftgate_snapshot::{FactValue, VerifiedSnapshot};
use fact_kind::port_key;
use verdict::AT_NEXT_REBOOT;
use violations::violations;

/// What to check besides changes.
#[derive(Debug, Clone, Default)]
pub struct JudgeOptions {
    /// Warnings block.
    pub strict: bool,
    /// Only classify changes against the baseline: no invariants, no `expect` rules
    /// (`driftgate diff`).
    pub changes_only: bool,
    /// Leave [`Report::rules`] without the drift rules' fact counts, which take one policy
    /// match per fact: for a caller that reads only the findings (promote's commit summary).
    pub without_rule_counts: bool,
    /// Declared changes and waivers in force (expired ones already removed).
    pub allowances: Vec<Allowance>,
}

/// What one judgement compares: a snapshot, optionally with its baseline, and, for a gate's
/// post step, the pre-update snapshot between them (baseline → pre → post). A two-way
/// `check` is the case without `pre`.
#[derive(Debug, Clone, Copy)]
pub struct Comparison<'a> {
    /// The snapshot judged (post, in a gate).
    pub snapshot: &'a VerifiedSnapshot,
    /// Its known-good baseline.
    pub baseline: Option<&'a VerifiedSnapshot>,
    /// The snapshot taken before the update, for a three-way comparison.
    pub pre: Option<&'a VerifiedSnapshot>,
}

/// A baseline of another host than the snapshot it would judge: its facts would all read as
/// drift. `diff` compares different hosts on purpose; `check` and the gate refuse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{snapshot} is a snapshot of host {host} but baseline {baseline} is of host {baseline_host}; use `driftgate diff` to compare different hosts"
)]
pub struct HostMismatch {
    /// Where the snapshot came from.
    pub snapshot: String,
    /// Its host.
    pub host: String,
    /// Where the baseline came from.
    pub baseline: String,
    /// The baseline's host.
    pub baseline_host: String,
}

/// Whether `baseline` is a baseline of the host `snapshot` describes.
pub fn same_host(
    snapshot: &VerifiedSnapshot,
    baseline: &VerifiedSnapshot,
) -> Result<(), HostMismatch> {
    let (host, baseline_host) = (&snapshot.snapshot().host, &baseline.snapshot().host);
    if host == baseline_host {
        return Ok(());
    }
    Err(HostMismatch {
        snapshot: snapshot.origin().to_owned(),
        host: host.to_string(),
        baseline: baseline.origin().to_owned(),
        baseline_host: baseline_host.to_string(),
    })
}

/// Judges `snapshot` (against `baseline`, when given) under `policy`: the two-way case of
/// [`judge_comparison`].
///
/// Linear in the number of facts: one merge pass for the diff, one pass for expectations,
/// and invariants that look facts up by path.
pub fn judge(
    snapshot: &VerifiedSnapshot,
    baseline: Option<&VerifiedSnapshot>,
    policy: &Policy,
    options: &JudgeOptions,
) -> Report {
    let comparison = Comparison {
        snapshot,
        baseline,
        pre: None,
    };
    judge_comparison(&comparison, policy, options)
}

/// Judges `comparison` under `policy`. The findings are those of the snapshot against the
/// baseline (changes classified by the policy, `expect` rules, invariants); allowances in
/// `options` move the findings they match to [`Report::allowed`], out of the counts.
///
/// With a `pre` snapshot (a gate's post step, baseline → pre → post) each finding also gets
/// its [`Origin`], a finding of the update names the firmware that changed between pre and
/// post (its own port's first), pre-existing drift the firmware that changed between the
/// baseline and pre, [`Report::firmware_changes`] holds the firmware changes between pre and
/// post only, a staged change says to run `gate post` again after the reboot, and the pre
/// snapshot's sources count for completeness.
pub fn judge_comparison(
    comparison: &Comparison<'_>,
    policy: &Policy,
    options: &JudgeOptions,
) -> Report {
    let Comparison {
        snapshot,
        baseline,
        pre,
    } = *comparison;
    let facts = &snapshot.snapshot().facts;
    let (mut findings, since_baseline) = match baseline {
        Some(baseline) => change_findings(&baseline.snapshot().facts, facts, policy),
        None => (Vec::new(), Vec::new()),
    };
    // Three-way, the firmware the update changed is what changed between pre and post; what
    // changed between the baseline and pre is pre-existing (its findings say so).
    let mut firmware_changes = match pre {
        Some(pre) => change_findings(&pre.snapshot().facts, facts, policy).1,
        None => since_baseline,
    };
    let mut tally = applied::Tally::new(policy, baseline.is_some());
    for removed in findings.iter().filter(|f| f.kind == FindingKind::Removed) {
        tally.removed(&removed.id);
    }
    if !options.changes_only {
        findings.extend(violations(facts, policy, &mut tally));
    } else if baseline.is_some() && !options.without_rule_counts {
        // No expectations to check: the pass is for the drift rules' counts alone.
        facts.keys().for_each(|path| {
            tally.fact(path);
        });
    }
    let rules = tally.finish(!options.changes_only, facts.len());
    // What a source did not read is unknown, not drift: kept out of the findings and counted
    // on the source that missed it.
    let mut incomplete_sources = unread::incomplete_sources(snapshot, baseline, pre);
    let unread_now = unread::Unread::of(snapshot, baseline);
    let unread_before = baseline
        .map(|b| unread::Unread::of(b, None))
        .unwrap_or_default();
    findings.retain(
        |finding| match unread::not_read(finding, &unread_before, &unread_now) {
            Some((role, kind)) => {
                unread::count_not_judged(&mut incomplete_sources, role, kind);
                false
            }
            None => true,
        },
    );
    // The firmware changes are pre → post three-way, baseline → snapshot two-way.
    let unread_pre = pre.map(|pre| unread::Unread::of(pre, None));
    let unread_old = unread_pre.as_ref().unwrap_or(&unread_before);
    firmware_changes.retain(|f| unread::not_read(f, unread_old, &unread_now).is_none());
    if let Some(pre) = pre {
        three_way::label(&mut findings, pre, policy, options.changes_only);
    }
    let (mut findings, mut allowed) = allow_findings(findings, &options.allowances);
    findings
        .iter_mut()
        .chain(allowed.iter_mut().map(|a| &mut a.finding))
        .chain(&mut firmware_changes)
        .for_each(hide_secret);
    let targets = findings
        .iter_mut()
        .chain(allowed.iter_mut().map(|a| &mut a.finding));
    attribute_all(targets.collect(), &firmware_changes, comparison, policy);
    findings.sort_by(finding_order);
    allowed.sort_by(|a, b| finding_order(&a.finding, &b.finding));
    let counts = counts(&findings);
    let verdict = verdict(incomplete_sources.is_empty(), &counts, options.strict);
    Report {
        schema: REPORT_SCHEMA_ID.to_owned(),
        tool: driftgate_snapshot::tool_version(),
        verdict,
        strict: options.strict,
        snapshot: summary(snapshot),
        baseline: baseline.map(summary),
        pre: pre.map(summary),
        incomplete_sources,
        firmware_changes,
        counts,
        findings,
        allowed,
        rules,
    }
}

/// How many of `findings` block, warn and inform.
fn counts(findings: &[Finding]) -> Counts {
    let count = |severity: Severity| findings.iter().filter(|f| f.severity == severity).count();
    Counts {
        block: count(Severity::Block),
        warn: count(Severity::Warn),
        info: count(Severity::Info),
    }
}

/// The verdict of a judgement whose sources were all read (`complete`) or not, with `counts`.
fn verdict(complete: bool, counts: &Counts, strict: bool) -> Verdict {
    if !complete {
        Verdict::Incomplete
    } else if counts.block > 0 || (strict && counts.warn > 0) {
        Verdict::Block
    } else if counts.warn > 0 {
        Verdict::Warn
    } else {
        Verdict::Pass
    }
}

/// Report order: most severe first, then by path, kind and id.
fn finding_order(a: &Finding, b: &Finding) -> std::cmp::Ordering {
    b.severity
        .cmp(&a.severity)
        .then_with(|| a.path.cmp(&b.path))
        .then_with(|| a.kind.cmp(&b.kind))
        .then_with(|| a.id.cmp(&b.id))
}

/// Every change from `old` to `new` the policy does not ignore, and every firmware change
/// (ignored or not, for attribution).
fn change_findings(
    old: &driftgate_snapshot::Facts,
    new: &driftgate_snapshot::Facts,
    policy: &Policy,
) -> (Vec<Finding>, Vec<Finding>) {
    let mut findings = Vec::new();
    let mut firmware_changes = Vec::new();
    for change in refiled::changes_refiled(old, new) {
        let class = policy.classify_change(change.path);
        let mut finding = change_finding(&change, &class);
        if let Some(capability) =
            capability::CapabilityChange::of(change.path.as_str(), change.old, change.new)
        {
            finding.severity = finding.severity.min(capability.cap());
            if capability == capability::CapabilityChange::Lost {
                finding.message = format!("a DCB capability lost: {}", finding.message);
            }
        }
        if let Some(message) =
            peer::change_message(change.path.as_str(), change.old, change.new, old, new)
        {
            finding.message = message;
        }
        if is_firmware_version(change.path.as_str()) {
            firmware_changes.push(finding.clone());
        }
        if finding.severity != Severity::Ignore {
            findings.push(finding);
        }
    }
    peer::fold_vanished(&mut findings, old, new);
    (findings, firmware_changes)
}

/// `findings` split into those no allowance matches and those one does (with the first
/// allowance, in the order given, that matches the finding's path and current value).
fn allow_findings(
    findings: Vec<Finding>,
    allowances: &[Allowance],
) -> (Vec<Finding>, Vec<AllowedFinding>) {
    let set = allow::AllowSet::new(allowances);
    let mut kept = Vec::with_capacity(findings.len());
    let mut allowed = Vec::new();
    for finding in findings {
        match set.find(&finding.path, finding.new.as_ref()) {
            Some(allowance) => allowed.push(AllowedFinding {
                finding,
                allowance: allowance.clone(),
            }),
            None => kept.push(finding),
        }
    }
    (kept, allowed)
}

/// Names the firmware beside each finding. Two-way: the firmware that changed since the
/// baseline (`firmware_changes`). Three-way: a finding of the update the firmware that
/// changed between pre and post (`firmware_changes`), pre-existing drift the firmware that
/// changed between the baseline and pre (the update did not cause it).
fn attribute_all(
    findings: Vec<&mut Finding>,
    firmware_changes: &[Finding],
    comparison: &Comparison<'_>,
    policy: &Policy,
) {
    let snapshot = comparison.snapshot;
    let Some(pre) = comparison.pre else {
        if let Some(baseline) = comparison.baseline {
            attribute_firmware(findings, firmware_changes, [baseline, snapshot]);
        }
        return;
    };
    let (before, update): (Vec<&mut Finding>, Vec<&mut Finding>) = findings
        .into_iter()
        .partition(|f| f.origin == Some(Origin::PreExisting));
    attribute_firmware(update, firmware_changes, [pre, snapshot]);
    if let Some(baseline) = comparison.baseline {
        let (_, mut before_firmware) =
            change_findings(&baseline.snapshot().facts, &pre.snapshot().facts, policy);
        before_firmware.iter_mut().for_each(hide_secret);
        attribute_firmware(before, &before_firmware, [baseline, pre]);
    }
}

/// A fact that holds a secret (in a snapshot written before the secret filter, or by hand) is
/// judged like any other, but its values never reach a report: they become
/// [`driftgate_secrets::REDACTED`], and so does the message that would quote them.
fn hide_secret(finding: &mut Finding) {
    let path = finding.path.as_str();
    let secret = [&finding.old, &finding.new, &finding.expected]
        .into_iter()
        .flatten()
        .any(|value| {
            serde_json::to_value(value)
                .is_ok_and(|value| driftgate_secrets::is_secret_fact(path, &value))
        });
    if !secret {
        return;
    }
    for value in [&mut finding.old, &mut finding.new, &mut finding.expected]
        .into_iter()
        .flatten()
    {
        *value = FactValue::from(driftgate_secrets::REDACTED);
    }
    finding.message = match finding.kind {
        FindingKind::Changed => "changed (a secret: values are not shown)",
        FindingKind::Added => "new fact (a secret: its value is not shown)",
        FindingKind::Removed => "no longer reported (a secret: its value is not shown)",
        FindingKind::Expectation | FindingKind::Invariant => {
            "does not hold (a secret: values are not shown)"
        }
    }
    .to_owned();
}

/// Names, beside each warning or blocking finding on a NIC port, the firmware that changed
/// between the two snapshots `sides` (old, new): that port's own first (firmware facts under
/// the same `nic/<key>/`, and the inventory component its `bmc/firmware/inventory` names in
/// either snapshot), then the rest; and, when neither snapshot names any firmware of that
/// port, why ([`Finding::firmware_unknown`]). Nothing when no firmware changed.
fn attribute_firmware<'f>(
    findings: impl IntoIterator<Item = &'f mut Finding>,
    firmware_changes: &[Finding],
    sides: [&VerifiedSnapshot; 2],
) {
    // Without a firmware change there is nothing to attribute, nor to say of a port's own.
    if firmware_changes.is_empty() {
        return;
    }
    for finding in findings {
        if finding.severity < Severity::Warn || is_firmware_version(finding.path.as_str()) {
            continue;
        }
        let Some(key) = port_key(finding.path.as_str()) else {
            continue;
        };
        finding.firmware_unknown = port_firmware::unknown(key, sides);
        let own_prefix = format!("nic/{key}/");
        let inventory = format!("nic/{key}/bmc/firmware/inventory");
        let components: Vec<String> = sides
            .iter()
            .filter_map(|s| s.snapshot().facts.get(inventory.as_str()))
            .filter_map(FactValue::as_text)
            .map(|component| format!("firmware/{component}/"))
            .collect();
        let is_own = |path: &str| {
            path.starts_with(&own_prefix) || components.iter().any(|c| path.starts_with(c))
        };
        let note = |f: &Finding, this_port: bool| FirmwareChange {
            path: f.path.clone(),
            old: f.old.clone(),
            new: f.new.clone(),
            this_port,
            pending: f.pending,
        };
        let (own, other): (Vec<&Finding>, Vec<&Finding>) = firmware_changes
            .iter()
            .partition(|f| is_own(f.path.as_str()));
        finding.firmware = own
            .into_iter()
            .map(|f| note(f, true))
            .chain(other.into_iter().map(|f| note(f, false)))
            .collect();
    }
}

/// What a staged value's change means: it is not live, it takes effect at the next reboot.
fn change_finding(change: &Change<'_>, class: &Classification<'_>) -> Finding {
    let mut severity = class.severity;
    let (mut id, mut why) = (class.id, class.why);
    let (kind, message) = match (change.old, change.new, class.pending) {
        (Some(old), Some(new), false) => {
            (FindingKind::Changed, format!("changed from {old} to {new}"))
        }
        (None, Some(new), false) => (FindingKind::Added, format!("new fact, value {new}")),
        (Some(old), None, false) => (
            FindingKind::Removed,
            format!("no longer reported (was {old})"),
        ),
        (Some(old), Some(new), true) => (
            FindingKind::Changed,
            format!("staged change from {old} to {new}: {AT_NEXT_REBOOT}"),
        ),
        (None, Some(new), true) => (
            FindingKind::Added,
            format!("new staged value {new}: {AT_NEXT_REBOOT}"),
        ),
        (Some(old), None, true) => {
            // A staged value that is gone was applied at a reboot (its live fact changes, and
            // is judged on its own) or discarded (nothing changes): no risk of its own, unless
            // a rule that names staged values says otherwise.
            match class.staged_rule {
                Some(rule) => {
                    id = &rule.id;
                    why = &rule.why;
                    severity = rule.on_change.unwrap_or(severity);
                }
                None => severity = severity.min(Severity::Info),
            }
            (
                FindingKind::Removed,
                format!(
                    "no longer staged (was {old}): applied at a reboot or discarded; the live value is judged on its own"
                ),
            )
        }
        (None, None, _) => unreachable!("a change has at least one side"),
    };
    Finding {
        kind,
        id: id.to_owned(),
        severity,
        path: change.path.clone(),
        old: change.old.cloned(),
        new: change.new.cloned(),
        expected: None,
        message,
        why: why.to_owned(),
        pending: class.pending,
        firmware: Vec::new(),
        firmware_unknown: None,
        origin: None,
    }
}

fn summary(s: &VerifiedSnapshot) -> SnapshotSummary {
    SnapshotSummary {
        origin: s.origin().to_owned(),
        host: s.snapshot().host.to_string(),
        captured_at: s.snapshot().captured_at.to_string(),
        digest: s.digest().to_owned(),
        facts: s.snapshot().facts.len(),
    }
}

#[cfg(test)]
mod tests;

#[cfg(any(test, feature = "testing"))]
#[doc(hidden)]
pub mod testing;
