//! JUnit XML for a pipeline's test tab (Jenkins, GitLab, Azure DevOps): one `testsuite` per
//! host, then for a fleet run one named `fleet` with what no single host shows.
//!
//! A host's suite has, in this order:
//! - `capture`: an `<error>` when the host could not be read completely (the source errors;
//!   INCOMPLETE never passes), its time the capture's;
//! - one test case per rule that applied to the host ([`Report::rules`]: each policy rule
//!   that governs a fact, each invariant that ran; not those set to `ignore`) and has no
//!   finding, by id, passing; the suite's `system-out` says how many facts each checked;
//! - one test case per finding, named `<rule> <fact path>`: `<failure>` when it blocks (a
//!   warning under `--strict` too), passing when it warns (the warning is in the suite's
//!   `system-out`), `<skipped>` when an allowance declared or waived it (with its reason).
//!
//! A rule with findings has a test case per finding, not per rule: a rule that blocks on three
//! ports is three failures a reader sees one by one; the Ant schema allows one outcome per
//! test case; and a test case's name stays the same across nights while its finding lasts (CI
//! keeps a test's history by class and name), however many other paths the same rule hits.
//! When the capture is incomplete the rules without findings are skipped, not passed: a check
//! over a partial capture proves nothing, and the `capture` test case's error says why. What
//! the sources that did answer show is judged as on any host; what a source did not read is no
//! finding at all (the judge leaves it out). Informational findings never change a verdict: they
//! are listed in `system-out`, and their rule passes. A report written before driftgate
//! recorded its rules has, as then, a test case per built-in invariant.
//!
//! The suite's `properties` state the host's verdict (`verdict`, [`driftgate_compare::Verdict::as_upper`]), its
//! fleet and cluster (`""` for a single check), the snapshot and baseline it was judged on,
//! and the run. Times come from the [`View`]: a suite's `timestamp` is the host's capture
//! time in UTC, its `time` the capture's duration (0 when the document has none); no clock.

mod xml;

use std::collections::{BTreeMap, BTreeSet};
use std::io::{self, Write};

use crate::document::FleetFinding;
use crate::view::{HostView, View, ViewKind};
use crate::wording::{
    allowance_rule, firmware_line_listed, headline, origin_phrase, role_word, status_phrase,
    value_text,
};
use driftgate_compare::{
    AllowedFinding, AppliedRule, Finding, FindingKind, INVARIANTS, Report, RuleKind, Severity,
    change_text,
};
use xml::{Outcome, Problem, Seconds, TestCase, TestSuite, TestSuites};

/// The name of the suite that holds a fleet run's cluster, stale and missing findings. Its
/// properties have no `verdict` (the fleet's is `fleet_verdict`), so a reader that counts
/// verdicts by suite counts hosts only, a host named `fleet` included.
pub const FLEET_SUITE: &str = "fleet";

/// Writes `view` as JUnit XML.
pub fn render(view: &View<'_>, out: &mut dyn Write) -> io::Result<()> {
    xml::write(&document(view)?, out)
}

/// The document of `view`: hosts in name order, then the fleet's suite (fleet runs only).
fn document(view: &View<'_>) -> io::Result<TestSuites> {
    let mut suites: Vec<TestSuite> = view
        .hosts
        .iter()
        .map(|h| host_suite(view, h))
        .collect::<io::Result<_>>()?;
    if view.kind == ViewKind::Fleet {
        suites.push(fleet_suite(view));
    }
    let time = duration(view)
        .unwrap_or_else(|| Seconds::from_ms(view.hosts.iter().filter_map(|h| h.capture_ms).sum()));
    Ok(TestSuites {
        name: "driftgate",
        time,
        suites,
    })
}

/// The run's duration, when the document says when it finished.
fn duration(view: &View<'_>) -> Option<Seconds> {
    Seconds::between(view.started_at?, view.finished_at?)
}

/// A time as the Ant schema's `timestamp`: UTC, no zone, whole seconds. A time the document
/// has but the view could not parse (named in [`View::unreadable_times`]) is kept as given,
/// `unparsed`: every document the tool writes has RFC 3339 times.
fn timestamp(at: Option<jiff::Timestamp>, unparsed: &str) -> String {
    at.map_or_else(
        || unparsed.to_owned(),
        |t| t.strftime("%Y-%m-%dT%H:%M:%S").to_string(),
    )
}

/// A time as a property's value (RFC 3339, UTC), `""` when unknown.
fn property_time(at: Option<jiff::Timestamp>) -> String {
    at.map(|t| t.to_string()).unwrap_or_default()
}

/// `driftgate.<fleet>.<host>`: a dot in a name would split it into packages, so it becomes `_`.
fn classname(fleet: Option<&str>, host: &str) -> String {
    let part = |s: &str| s.replace('.', "_");
    match fleet.filter(|f| !f.is_empty()) {
        Some(fleet) => format!("driftgate.{}.{}", part(fleet), part(host)),
        None => format!("driftgate.{}", part(host)),
    }
}

/// The suite's properties: the host's verdict and names, the snapshots judged, the run.
fn properties(
    view: &View<'_>,
    host: &HostView<'_>,
    report: &Report,
    strict: bool,
) -> Vec<(&'static str, String)> {
    let mut properties = vec![
        ("verdict", host.verdict.as_upper().to_owned()),
        ("host", host.host.to_owned()),
        ("fleet", host.fleet.unwrap_or("").to_owned()),
        ("cluster", host.cluster.unwrap_or("").to_owned()),
        ("snapshot", report.snapshot.origin.clone()),
        ("snapshot.digest", report.snapshot.digest.clone()),
        ("captured_at", report.snapshot.captured_at.clone()),
        (
            "baseline",
            report
                .baseline
                .as_ref()
                .map_or_else(String::new, |b| b.origin.clone()),
        ),
    ];
    if let Some(pre) = &report.pre {
        properties.push(("pre", pre.origin.clone()));
    }
    if let Some(at) = host.last_success_at {
        properties.push(("last_success_at", at.to_string()));
    }
    properties.extend([
        ("strict", strict.to_string()),
        ("title", view.title.clone()),
        ("run", view.run.clone().unwrap_or_default()),
        ("tool", report.tool.clone()),
    ]);
    properties
}

fn host_suite(view: &View<'_>, host: &HostView<'_>) -> io::Result<TestSuite> {
    let judged = host.report()?;
    let report: &Report = &judged;
    let class = classname(host.fleet, host.host);
    let strict = report.strict || view.strict;
    let incomplete = host.incomplete();
    let time = Seconds::from_ms(host.capture_ms.unwrap_or(0));
    let case = |name: String, time: Seconds, outcome: Outcome| TestCase {
        name,
        classname: class.clone(),
        time,
        outcome,
    };

    let mut cases = vec![case(
        "capture".to_owned(),
        time,
        capture_outcome(host, report, incomplete),
    )];
    let mut rest: Vec<TestCase> = Vec::new();
    let mut output = vec![headline(report)];
    for finding in &report.findings {
        let outcome = match finding.severity {
            Severity::Block => Outcome::Failure(failure(finding, None)),
            Severity::Warn if strict => Outcome::Failure(failure(
                finding,
                Some("a warning, made to block by --strict"),
            )),
            Severity::Warn => {
                output.push(finding_line("WARN", finding));
                Outcome::Passed
            }
            Severity::Info | Severity::Ignore => {
                output.push(finding_line("INFO", finding));
                continue;
            }
        };
        rest.push(case(finding_name(finding), Seconds::default(), outcome));
    }
    for allowed in &report.allowed {
        rest.push(case(
            finding_name(&allowed.finding),
            Seconds::default(),
            Outcome::Skipped(skipped(allowed)),
        ));
    }
    let (held, checked) = rules_that_held(report, incomplete);
    rest.extend(
        held.into_iter()
            .map(|(name, outcome)| case(name, Seconds::default(), outcome)),
    );
    rest.sort_by(|a, b| a.name.cmp(&b.name));
    cases.extend(rest);
    // Firmware a rule reports at `info` is listed above already.
    let listed: BTreeSet<&str> = report
        .findings_at(Severity::Info)
        .map(|f| f.path.as_str())
        .collect();
    for change in report
        .firmware_changes
        .iter()
        .filter(|c| !listed.contains(c.path.as_str()))
    {
        output.push(format!("FIRMWARE {}: {}", change.path, change_text(change)));
    }
    // A fleet's cluster and stale findings raise the verdict of the hosts they name.
    if host.verdict != report.verdict && !incomplete {
        output.push(format!(
            "{} by the fleet's findings (testsuite {FLEET_SUITE}); its own judgement: {}",
            host.verdict.as_upper(),
            report.verdict.as_upper()
        ));
    }
    output.extend(checked);

    let properties = properties(view, host, report, strict);
    Ok(TestSuite {
        name: host.host.to_owned(),
        hostname: host.host.to_owned(),
        package: class
            .rsplit_once('.')
            .map_or_else(|| class.clone(), |(package, _)| package.to_owned()),
        timestamp: timestamp(host.captured_at, &report.snapshot.captured_at),
        time,
        properties,
        cases,
        output,
    })
}

/// A test case, by rule id, for each rule that applied to the host and has no test case of a
/// finding (it held, or found only what is informational): passing, or skipped as not judged
/// when the capture is incomplete. With them, the `system-out` lines saying how many facts
/// each checked (the Ant schema gives a test case no output of its own). A report written
/// before driftgate recorded its rules gets, as it did then, one per built-in invariant.
fn rules_that_held(report: &Report, incomplete: bool) -> (Vec<(String, Outcome)>, Vec<String>) {
    let has_case: BTreeSet<&str> = report
        .findings
        .iter()
        .filter(|f| f.severity >= Severity::Warn)
        .chain(report.allowed.iter().map(|a| &a.finding))
        .map(|f| f.id.as_str())
        .collect();
    // Each applied rule's checks by id: a policy rule with `on_change` and `expect` has two.
    let mut by_id: BTreeMap<&str, Vec<&AppliedRule>> = BTreeMap::new();
    for rule in &report.rules {
        by_id.entry(rule.id.as_str()).or_default().push(rule);
    }
    let mut cases = Vec::new();
    let mut lines = Vec::new();
    if report.rules.is_empty() {
        for invariant in INVARIANTS.iter().filter(|i| !has_case.contains(i.id)) {
            cases.push((
                invariant.id.to_owned(),
                held_outcome(incomplete, invariant.summary.to_owned()),
            ));
        }
        return (cases, lines);
    }
    for (id, checks) in by_id.into_iter().filter(|(id, _)| !has_case.contains(id)) {
        let what = checks
            .iter()
            .map(|c| format!("{} over {} {}", kind_words(c), c.facts, facts_word(c.facts)))
            .collect::<Vec<_>>()
            .join("; ");
        let about = INVARIANTS
            .iter()
            .find(|i| i.id == id && checks.iter().all(|c| c.kind == RuleKind::Invariant))
            .map_or_else(|| what.clone(), |i| i.summary.to_owned());
        let word = if incomplete { "NOT JUDGED" } else { "PASS" };
        lines.push(format!("{word} {id}: {what}"));
        cases.push((id.to_owned(), held_outcome(incomplete, about)));
    }
    (cases, lines)
}

/// Passing, or skipped as not judged (a check over a partial capture proves nothing).
fn held_outcome(incomplete: bool, about: String) -> Outcome {
    if !incomplete {
        return Outcome::Passed;
    }
    Outcome::Skipped(Problem {
        kind: "not-judged".to_owned(),
        message: "not judged: the capture is incomplete".to_owned(),
        body: about,
    })
}

/// `drift rule (block)`: what an applied rule checks, at which severity.
fn kind_words(rule: &AppliedRule) -> String {
    let kind = match rule.kind {
        RuleKind::Invariant => "invariant",
        RuleKind::Drift => "drift rule",
        RuleKind::Expectation => "expectation",
    };
    format!("{kind} ({})", rule.severity.as_str())
}

fn facts_word(n: usize) -> &'static str {
    if n == 1 { "fact" } else { "facts" }
}

/// An error naming every source that was not complete, or passing.
fn capture_outcome(host: &HostView<'_>, report: &Report, incomplete: bool) -> Outcome {
    if !incomplete {
        return Outcome::Passed;
    }
    let sources: Vec<String> = report
        .incomplete_sources
        .iter()
        .map(|s| {
            let error = s
                .error
                .as_deref()
                .map(|e| format!(": {e}"))
                .unwrap_or_default();
            format!(
                "{} source {} ({}) {}{error}",
                role_word(s.role),
                s.name,
                s.target,
                status_phrase(s.status)
            )
        })
        .collect();
    let message = host
        .failure
        .clone()
        .or_else(|| sources.first().cloned())
        .unwrap_or_else(|| "the capture is incomplete".to_owned());
    let mut body = sources;
    body.push("A partial capture never passes: the verdict is INCOMPLETE.".to_owned());
    Outcome::Error(Problem {
        kind: "incomplete".to_owned(),
        message,
        body: body.join("\n"),
    })
}

/// `<rule> <fact path>`.
fn finding_name(finding: &Finding) -> String {
    format!("{} {}", finding.id, finding.path)
}

/// `WARN rule path: message`.
fn finding_line(word: &str, finding: &Finding) -> String {
    format!("{word} {}: {}", finding_name(finding), finding.message)
}

/// What a finding says beyond its message: the change, why it matters, the firmware that
/// changed with it, where it comes from.
fn details(finding: &Finding) -> Vec<String> {
    let value = |v: &Option<driftgate_snapshot::FactValue>| value_text(v.as_ref());
    let mut lines = vec![format!(
        "{}: {}",
        finding.path,
        match finding.kind {
            FindingKind::Changed | FindingKind::Added | FindingKind::Removed =>
                change_text(finding),
            FindingKind::Expectation => format!(
                "expected {}, found {}",
                value(&finding.expected),
                value(&finding.new)
            ),
            FindingKind::Invariant => value(&finding.new),
        }
    )];
    if finding.pending {
        lines.push("Staged: takes effect at the next reboot.".to_owned());
    }
    if !finding.why.is_empty() {
        lines.push(format!("Why: {}", finding.why));
    }
    if let Some(firmware) = firmware_line_listed(finding, "listed in the suite's system-out") {
        lines.push(format!("Firmware: {firmware}"));
    }
    if let Some(origin) = finding.origin {
        lines.push(format!("Origin: {}", origin_phrase(origin)));
    }
    lines
}

fn failure(finding: &Finding, note: Option<&str>) -> Problem {
    let mut body: Vec<String> = note.map(str::to_owned).into_iter().collect();
    body.extend(details(finding));
    Problem {
        kind: finding.id.clone(),
        message: finding.message.clone(),
        body: body.join("\n"),
    }
}

/// `allowed by PATH=VALUE (FILE:LINE): reason`, the allowance's ticket and expiry, then the
/// finding as it would have been reported.
fn skipped(allowed: &AllowedFinding) -> Problem {
    let a = &allowed.allowance;
    let rule = allowance_rule(a);
    let reason = a
        .reason
        .as_deref()
        .map(|r| format!(": {r}"))
        .unwrap_or_default();
    let mut body = Vec::new();
    if let Some(ticket) = &a.ticket {
        body.push(format!("Ticket: {ticket}"));
    }
    if let Some(expires) = a.expires {
        body.push(format!("Expires: {expires}"));
    }
    body.push(format!(
        "Would be {}: {}",
        allowed.finding.severity.as_str(),
        allowed.finding.message
    ));
    body.extend(details(&allowed.finding));
    Problem {
        kind: "allowed".to_owned(),
        message: format!("allowed by {rule} ({}){reason}", a.given_at),
        body: body.join("\n"),
    }
}

/// The fleet's suite: one test case per fleet finding (a cluster's disagreement, a stale,
/// missing or orphan baseline), and a passing `cluster-consistency <cluster>` for each
/// cluster of two or more hosts that no cluster finding names.
fn fleet_suite(view: &View<'_>) -> TestSuite {
    let mut cases = Vec::new();
    let mut output = Vec::new();
    for finding in view.fleet_findings {
        let class = match &finding.cluster {
            Some(cluster) => format!("driftgate.fleet.{}", cluster.replace('.', "_")),
            None => "driftgate.fleet".to_owned(),
        };
        let outcome = match finding.severity {
            Severity::Block => Outcome::Failure(fleet_failure(finding, None)),
            Severity::Warn if view.strict => Outcome::Failure(fleet_failure(
                finding,
                Some("a warning, made to block by --strict"),
            )),
            Severity::Warn => {
                output.push(format!("WARN {}: {}", fleet_name(finding), finding.message));
                Outcome::Passed
            }
            Severity::Info | Severity::Ignore => {
                output.push(format!("INFO {}: {}", fleet_name(finding), finding.message));
                continue;
            }
        };
        cases.push(TestCase {
            name: fleet_name(finding),
            classname: class,
            time: Seconds::default(),
            outcome,
        });
    }
    let mut clusters: Vec<&str> = view.hosts.iter().filter_map(|h| h.cluster).collect();
    clusters.sort_unstable();
    let sizes: Vec<(&str, usize)> = clusters
        .chunk_by(|a, b| a == b)
        .map(|c| (c[0], c.len()))
        .collect();
    for (cluster, _) in sizes.into_iter().filter(|(_, n)| *n >= 2) {
        if view
            .fleet_findings
            .iter()
            .any(|f| f.cluster.as_deref() == Some(cluster))
        {
            continue;
        }
        cases.push(TestCase {
            name: format!("cluster-consistency {cluster}"),
            classname: format!("driftgate.fleet.{}", cluster.replace('.', "_")),
            time: Seconds::default(),
            outcome: Outcome::Passed,
        });
    }
    cases.sort_by(|a, b| (&a.classname, &a.name).cmp(&(&b.classname, &b.name)));
    let c = view.counts;
    let properties = vec![
        ("kind", "fleet".to_owned()),
        ("fleet_verdict", view.verdict.as_upper().to_owned()),
        ("hosts.total", c.total.to_string()),
        ("hosts.pass", c.pass.to_string()),
        ("hosts.warn", c.warn.to_string()),
        ("hosts.block", c.block.to_string()),
        ("hosts.incomplete", c.incomplete.to_string()),
        ("started_at", property_time(view.started_at)),
        ("finished_at", property_time(view.finished_at)),
        ("strict", view.strict.to_string()),
        ("title", view.title.clone()),
        ("run", view.run.clone().unwrap_or_default()),
    ];
    TestSuite {
        name: FLEET_SUITE.to_owned(),
        hostname: "localhost".to_owned(),
        package: "driftgate".to_owned(),
        timestamp: timestamp(view.started_at, ""),
        time: duration(view).unwrap_or_default(),
        properties,
        cases,
        output,
    }
}

/// `<rule> [<cluster>] <path or hosts>`: unique per finding of one run.
fn fleet_name(finding: &FleetFinding) -> String {
    let mut name = finding.rule.clone();
    if let Some(cluster) = &finding.cluster {
        name.push(' ');
        name.push_str(cluster);
    }
    match &finding.path {
        Some(path) => {
            name.push(' ');
            name.push_str(path);
        }
        None if !finding.hosts.is_empty() => {
            name.push(' ');
            name.push_str(&finding.hosts.join(","));
        }
        None => {}
    }
    name
}

fn fleet_failure(finding: &FleetFinding, note: Option<&str>) -> Problem {
    let mut body: Vec<String> = note.map(str::to_owned).into_iter().collect();
    if !finding.hosts.is_empty() {
        body.push(format!("Hosts: {}", finding.hosts.join(", ")));
    }
    for (host, value) in finding.hosts.iter().zip(&finding.values) {
        body.push(format!("{host}: {value}"));
    }
    if let Some(m) = &finding.majority {
        body.push(format!(
            "Majority: {} ({} of {} nodes)",
            m.value, m.hosts, m.of
        ));
    }
    Problem {
        kind: finding.rule.clone(),
        message: finding.message.clone(),
        body: body.join("\n"),
    }
}

#[cfg(test)]
mod tests;
