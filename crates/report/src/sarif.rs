//! SARIF 2.1.0 for code scanning of the baseline repository (GitHub code scanning, Azure
//! DevOps' SARIF viewer): one result per finding of every host, located at the line of the
//! fact's key in the host's baseline file as committed (`baselines/<fleet>/<host>.json`),
//! with a fingerprint of host, rule, fact path and kind of finding (a drift, an `expect`
//! rule, an invariant) so a finding is tracked across nights.
//!
//! Levels: a blocking finding is `error`, a warning `warning` (`error` under `--strict`,
//! where it blocks), an info `note`. Allowed or waived findings are kept as results with the
//! spec's external suppression (the allowance's reason), but at level `note` with
//! `properties.allowed = true`: GitHub code scanning ignores `suppressions` and would show
//! them as open alerts at their rule's level. They are not left out: the setting still
//! differs from the baseline, the alert keeps its fingerprint (it drops to a note while
//! allowed and comes back at its level when the allowance expires, instead of being closed
//! as fixed and reopened), and the SARIF viewers and the `advanced-security/dismiss-alerts`
//! action that do honour `suppressions` see them.
//!
//! A host that could not be read completely is an error result of rule `capture/incomplete`;
//! the settings it could not read have no results, so code scanning closes their open
//! alerts as fixed for that night (its message and help say so). Fleet findings (cluster
//! disagreement, stale or missing baselines) are results at the first host they name,
//! fingerprinted by cluster, rule and path (not by the hosts they name: one more node that
//! disagrees is the same alert). A run keeps at most [`MAX_RESULTS`] results, the most
//! severe; how many were left out is in `runs[0].properties.results_omitted` and a
//! tool execution notification. `runs[0].properties` holds each host's verdict and the
//! counts by verdict, as every format states them.
//!
//! The model (`model`) is built from the [`View`] and the [`Extras`]' baseline lines, then
//! serialized by serde_json (which escapes every captured string); this module reads
//! nothing and has no clock.

mod location;
mod model;
mod rules;

pub use location::SRCROOT;
pub use rules::INCOMPLETE_RULE;

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::io::{self, Write};

use sha2::{Digest as _, Sha256};

use crate::document::BaselineLines;
use crate::document::FleetFinding;
use driftgate_compare::{AllowedFinding, Finding, FindingKind, Report, Severity, Verdict};

use crate::format::Extras;
use crate::view::{HostView, View};
use crate::wording::{origin_name, origin_phrase, role_word, value_text};
use location::{directory_uri, location, path_uri};
use model::{
    ArtifactLocation, Configuration, Driver, FindingProperties, FleetProperties, HostProperties,
    IncompleteProperties, Invocation, Level, Location, Log, Notification, PhysicalLocation, Region,
    ResultProperties, Rule, Run, RunProperties, SarifResult, SourceProperties, Suppression,
    SuppressionProperties, Text, Tool, VersionControlDetails,
};
use rules::RuleDraft;

/// The schema the log names: the OASIS Committee Specification 01's, the one committed under
/// `tests/fixtures/reports/sarif/` that the tests validate every log against.
pub const SCHEMA_URI: &str =
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/cs01/schemas/sarif-schema-2.1.0.json";

/// The key of each result's fingerprint in `partialFingerprints`.
pub const FINGERPRINT_KEY: &str = "driftgateFinding/v1";

/// The most results a run holds: GitHub code scanning rejects a whole upload with more
/// (and shows the 5,000 most severe of those it accepts).
pub const MAX_RESULTS: usize = 25_000;

/// The id of the notification that says results were left out.
pub const RESULTS_OMITTED: &str = "driftgate/results-omitted";

/// Writes `view` as a SARIF 2.1.0 log, locating results with `extras.baseline_lines`.
pub fn render(view: &View<'_>, extras: &Extras, out: &mut dyn Write) -> io::Result<()> {
    // Results are ranked across hosts before any is written: every report is read at once.
    let reports: Vec<Cow<'_, Report>> = view
        .hosts
        .iter()
        .map(HostView::report)
        .collect::<io::Result<_>>()?;
    let log = build(view, &reports, extras);
    serde_json::to_writer_pretty(&mut *out, &log).map_err(io::Error::other)?;
    writeln!(out)
}

/// One result before the rules are numbered, with what its rule says.
struct Draft<'a> {
    /// Sort key: host, rule, path, then kind.
    key: (String, String, String, u8),
    rule: RuleDraft,
    level: Level,
    message: String,
    location: Location,
    fingerprint: String,
    suppressions: Vec<Suppression<'a>>,
    properties: ResultProperties<'a>,
}

/// A draft result for every finding and allowed finding of every host, each incomplete
/// host, and each fleet finding.
fn drafts<'a>(
    view: &'a View<'a>,
    reports: &'a [Cow<'a, Report>],
    extras: &'a Extras,
) -> Vec<Draft<'a>> {
    let mut drafts: Vec<Draft<'a>> = Vec::new();
    for (host, report) in view.hosts.iter().zip(reports) {
        let lines = extras.baseline_lines.get(host.host);
        if host.incomplete() {
            drafts.push(incomplete(host, report, lines));
        }
        let strict = view.strict || report.strict;
        for finding in &report.findings {
            drafts.push(finding_result(host, report, lines, finding, None, strict));
        }
        for allowed in &report.allowed {
            drafts.push(finding_result(
                host,
                report,
                lines,
                &allowed.finding,
                Some(allowed),
                strict,
            ));
        }
    }
    for finding in view.fleet_findings {
        drafts.push(fleet_result(view, reports, extras, finding));
    }
    drafts
}

/// The log of `view`, whose hosts' reports are `reports`, in the same order.
fn build<'a>(view: &'a View<'a>, reports: &'a [Cow<'a, Report>], extras: &'a Extras) -> Log<'a> {
    let (drafts, omitted) = most_severe(drafts(view, reports, extras), MAX_RESULTS);

    // One rule per id, at the most severe level its results report; texts of the first.
    let mut rules: BTreeMap<String, (RuleDraft, Level)> = BTreeMap::new();
    for draft in &drafts {
        let entry = rules
            .entry(draft.rule.id.clone())
            .or_insert_with(|| (draft.rule.clone(), draft.level));
        entry.1 = entry.1.max(draft.level);
    }
    let index: BTreeMap<&str, usize> = rules
        .keys()
        .enumerate()
        .map(|(i, id)| (id.as_str(), i))
        .collect();
    let results = drafts
        .into_iter()
        .map(|d| SarifResult {
            rule_index: index[d.rule.id.as_str()],
            rule_id: d.rule.id,
            level: d.level,
            message: Text::new(d.message),
            locations: [d.location],
            partial_fingerprints: BTreeMap::from([(FINGERPRINT_KEY, d.fingerprint)]),
            suppressions: d.suppressions,
            properties: d.properties,
        })
        .collect();
    let rules = rules
        .into_values()
        .map(|(rule, level)| Rule {
            name: rule.id.clone(),
            id: rule.id,
            short_description: Text::new(rule.short),
            full_description: Text::new(rule.full),
            default_configuration: Configuration { level },
            help: Text::new(rule.help),
        })
        .collect();

    let (provenance, base_ids) = provenance(extras);
    Log {
        schema: SCHEMA_URI,
        version: "2.1.0",
        runs: [Run {
            tool: Tool {
                driver: Driver {
                    name: "driftgate",
                    version: env!("CARGO_PKG_VERSION"),
                    semantic_version: env!("CARGO_PKG_VERSION"),
                    information_uri: Some(env!("CARGO_PKG_REPOSITORY"))
                        .filter(|uri| uri.contains("://")),
                    rules,
                },
            },
            invocations: [invocation(view, omitted)],
            version_control_provenance: provenance,
            original_uri_base_ids: base_ids,
            results,
            properties: RunProperties {
                title: &view.title,
                kind: view.kind.name(),
                run: view.run.as_deref(),
                verdict: view.verdict.as_upper(),
                strict: view.strict,
                started_at: view.started_at,
                finished_at: view.finished_at,
                counts: view.counts,
                hosts: view
                    .hosts
                    .iter()
                    .map(|h| HostProperties {
                        host: h.host,
                        fleet: h.fleet.unwrap_or_default(),
                        cluster: h.cluster.unwrap_or_default(),
                        verdict: h.verdict.as_upper(),
                    })
                    .collect(),
                results_omitted: omitted,
            },
        }],
    }
}

/// The `limit` most severe drafts (error, warning, note, then by host, rule and path), in
/// the order of their keys, and how many were left out.
fn most_severe(mut drafts: Vec<Draft<'_>>, limit: usize) -> (Vec<Draft<'_>>, usize) {
    let omitted = drafts.len().saturating_sub(limit);
    if omitted > 0 {
        drafts.sort_by(|a, b| b.level.cmp(&a.level).then_with(|| a.key.cmp(&b.key)));
        drafts.truncate(limit);
    }
    drafts.sort_by(|a, b| a.key.cmp(&b.key));
    (drafts, omitted)
}

/// The notification of a run whose results were capped at [`MAX_RESULTS`], if they were.
fn omitted_notification(omitted: usize) -> Vec<Notification> {
    if omitted == 0 {
        return Vec::new();
    }
    vec![Notification {
        descriptor: model::DescriptorReference {
            id: RESULTS_OMITTED,
        },
        level: Level::Warning,
        message: Text::new(format!(
            "{omitted} results left out: a run holds at most {MAX_RESULTS} (GitHub code scanning rejects a larger upload). The most severe were kept: errors, then warnings, then notes, by host, rule and path. The fleet's other reports have every finding."
        )),
    }]
}

/// How the run ended: the exit code of the command (0 pass, 1 block, 3 incomplete); a run
/// that could not read every host did not execute successfully. A run whose results were
/// capped says so in a notification.
fn invocation(view: &View<'_>, omitted: usize) -> Invocation {
    let exit_code = match view.verdict {
        Verdict::Pass | Verdict::Warn => 0,
        Verdict::Block => 1,
        Verdict::Incomplete => 3,
    };
    // SARIF wants RFC 3339 UTC times: a `Timestamp` displays as one.
    let utc = |at: jiff::Timestamp| at.to_string();
    Invocation {
        execution_successful: view.verdict != Verdict::Incomplete,
        exit_code,
        exit_code_description: view.verdict.as_upper(),
        start_time_utc: view.started_at.map(utc),
        end_time_utc: view.finished_at.map(utc),
        tool_execution_notifications: omitted_notification(omitted),
    }
}

/// The baseline store and commits the locations were read at, and the base id's root.
fn provenance(
    extras: &Extras,
) -> (
    Vec<VersionControlDetails>,
    BTreeMap<&'static str, ArtifactLocation>,
) {
    let mut details: Vec<VersionControlDetails> = Vec::new();
    let mut base_ids = BTreeMap::new();
    for lines in extras.baseline_lines.values() {
        let Some(root) = directory_uri(&lines.repository) else {
            continue;
        };
        base_ids.entry(SRCROOT).or_insert_with(|| ArtifactLocation {
            uri: Some(root.clone()),
            uri_base_id: None,
        });
        let entry = VersionControlDetails {
            repository_uri: root,
            revision_id: lines.commit.clone(),
            mapped_to: ArtifactLocation {
                uri: None,
                uri_base_id: Some(SRCROOT),
            },
        };
        if !details.contains(&entry) {
            details.push(entry);
        }
    }
    details.sort();
    (details, base_ids)
}

/// `sha256` of what names a finding (each part ended by a NUL, so no two lists of parts
/// hash alike): the same finding gets the same fingerprint every night.
fn fingerprint(parts: &[&str]) -> String {
    let mut hash = Sha256::new();
    for part in parts {
        hash.update(part.as_bytes());
        hash.update([0]);
    }
    hex::encode(hash.finalize())
}

/// A host finding's fingerprint: host, rule, path and the kind of finding, a drift (changed,
/// added or removed: one alert as the change takes another form), an `expect` rule or an
/// invariant, so two findings of one rule and path are two alerts.
fn finding_fingerprint(host: &str, finding: &Finding) -> String {
    let kind = match finding.kind {
        FindingKind::Changed | FindingKind::Added | FindingKind::Removed => "drift",
        FindingKind::Expectation => "expectation",
        FindingKind::Invariant => "invariant",
    };
    fingerprint(&["host", host, &finding.id, finding.path.as_str(), kind])
}

/// A fleet finding's fingerprint: a cluster finding's cluster, rule and path, whichever nodes
/// disagree; another fleet finding's host (it names one, an orphan baseline none), rule and
/// path.
fn fleet_fingerprint(finding: &FleetFinding) -> String {
    let path = finding.path.as_deref().unwrap_or_default();
    match &finding.cluster {
        Some(cluster) => fingerprint(&["cluster", cluster, &finding.rule, path]),
        None => fingerprint(&["hosts", &finding.hosts.join(","), &finding.rule, path]),
    }
}

/// The level of a severity; a warning blocks under `--strict`, so it is an error there.
fn level(severity: Severity, strict: bool) -> Level {
    match severity {
        Severity::Block => Level::Error,
        Severity::Warn if strict => Level::Error,
        Severity::Warn => Level::Warning,
        Severity::Info => Level::Note,
        Severity::Ignore => Level::None,
    }
}

/// `text` ending as a sentence does.
fn sentence(text: &str) -> String {
    let text = text.trim_end();
    if text.ends_with(['.', '!', '?']) {
        text.to_owned()
    } else {
        format!("{text}.")
    }
}

/// A host's finding; an allowed one is a suppressed note with the allowance (see the module's
/// documentation), with the fingerprint it has when it is not allowed.
fn finding_result<'a>(
    host: &HostView<'a>,
    report: &Report,
    lines: Option<&BaselineLines>,
    finding: &'a Finding,
    allowed: Option<&'a AllowedFinding>,
    strict: bool,
) -> Draft<'a> {
    let path = finding.path.as_str();
    let rule = format!("{}, {}", finding.id, finding.severity.as_str());
    let new = value_text(finding.new.as_ref());
    let mut message = match (finding.kind, &finding.expected) {
        // The change is the whole story: the finding's own message says it again.
        (FindingKind::Changed | FindingKind::Added | FindingKind::Removed, _) => format!(
            "{}: {path}: {} → {new} ({rule}).",
            host.host,
            value_text(finding.old.as_ref()),
        ),
        (_, Some(expected)) => format!(
            "{}: {path} is {new}, expected {expected} ({rule}). {}",
            host.host,
            sentence(&finding.message)
        ),
        (_, None) => format!(
            "{}: {path} is {new} ({rule}). {}",
            host.host,
            sentence(&finding.message)
        ),
    };
    if finding.pending {
        message.push_str(" Staged: takes effect at the next reboot.");
    }
    if let Some(origin) = finding.origin {
        message.push_str(&format!(" Origin: {}.", origin_phrase(origin)));
    }
    if let Some(line) = crate::wording::firmware_line_listed(finding, "each a result of its own") {
        message.push_str(&format!(" Firmware: {line}."));
    }
    let suppressions = allowed
        .map(|a| {
            let allowance = &a.allowance;
            let mut justification = allowance
                .reason
                .clone()
                .unwrap_or_else(|| format!("allowed by {}", allowance.given_at));
            if let Some(ticket) = &allowance.ticket {
                justification.push_str(&format!(" ({ticket})"));
            }
            message.push_str(&format!(" Allowed: {justification}."));
            vec![Suppression {
                kind: "external",
                justification,
                properties: SuppressionProperties {
                    given_at: &allowance.given_at,
                    path: &allowance.path,
                    value: allowance.value.as_ref(),
                    ticket: allowance.ticket.as_deref(),
                    expires: allowance.expires.map(|d| d.to_string()),
                },
            }]
        })
        .unwrap_or_default();
    let (kind, kind_rank) = kind_name(finding.kind);
    Draft {
        key: (
            host.host.to_owned(),
            finding.id.clone(),
            path.to_owned(),
            kind_rank,
        ),
        rule: rules::finding(finding),
        level: match allowed {
            Some(_) => Level::Note,
            None => level(finding.severity, strict),
        },
        message,
        location: location(host, report, lines, Some(path)),
        fingerprint: finding_fingerprint(host.host, finding),
        suppressions,
        properties: ResultProperties::Finding(FindingProperties {
            host: host.host,
            fleet: host.fleet.unwrap_or_default(),
            cluster: host.cluster.unwrap_or_default(),
            path,
            old: finding.old.as_ref(),
            new: finding.new.as_ref(),
            expected: finding.expected.as_ref(),
            kind,
            severity: finding.severity.as_str(),
            origin: finding.origin.map(origin_name),
            pending: finding.pending,
            allowed: allowed.is_some(),
        }),
    }
}

fn kind_name(kind: FindingKind) -> (&'static str, u8) {
    match kind {
        FindingKind::Changed => ("changed", 0),
        FindingKind::Added => ("added", 1),
        FindingKind::Removed => ("removed", 2),
        FindingKind::Expectation => ("expectation", 3),
        FindingKind::Invariant => ("invariant", 4),
    }
}

fn incomplete<'a>(
    host: &HostView<'a>,
    report: &'a Report,
    lines: Option<&BaselineLines>,
) -> Draft<'a> {
    let sources: Vec<SourceProperties<'a>> = report
        .incomplete_sources
        .iter()
        .map(|s| SourceProperties {
            role: role_word(s.role),
            name: &s.name,
            target: &s.target,
            status: s.status.as_str(),
            error: s.error.as_deref(),
        })
        .collect();
    let why = host
        .failure
        .clone()
        .unwrap_or_else(|| "a source did not capture completely".to_owned());
    Draft {
        key: (
            host.host.to_owned(),
            INCOMPLETE_RULE.to_owned(),
            String::new(),
            0,
        ),
        rule: rules::incomplete(),
        level: Level::Error,
        message: format!(
            "{}: INCOMPLETE: {} {}",
            host.host,
            sentence(&why),
            rules::INCOMPLETE_ALERTS
        ),
        location: location(host, report, lines, None),
        fingerprint: fingerprint(&["host", host.host, INCOMPLETE_RULE, ""]),
        suppressions: Vec::new(),
        properties: ResultProperties::Incomplete(IncompleteProperties {
            host: host.host,
            fleet: host.fleet.unwrap_or_default(),
            cluster: host.cluster.unwrap_or_default(),
            verdict: host.verdict.as_upper(),
            sources,
        }),
    }
}

fn fleet_result<'a>(
    view: &View<'a>,
    reports: &[Cow<'_, Report>],
    extras: &Extras,
    finding: &'a FleetFinding,
) -> Draft<'a> {
    let path = finding.path.as_deref().unwrap_or_default();
    let first = finding.hosts.first().map(String::as_str);
    let at = first.and_then(|name| view.hosts.iter().position(|h| h.host == name));
    let host = at.map(|i| &view.hosts[i]);
    let location = match at {
        Some(i) => {
            let host = &view.hosts[i];
            location(
                host,
                &reports[i],
                extras.baseline_lines.get(host.host),
                Some(path),
            )
        }
        // No host of the run: an orphan baseline names its own file.
        None => Location {
            physical_location: PhysicalLocation {
                artifact_location: ArtifactLocation {
                    uri: path_uri(if path.is_empty() { "baselines" } else { path }),
                    uri_base_id: Some(SRCROOT),
                },
                region: Region { start_line: 1 },
            },
        },
    };
    Draft {
        key: (
            first.unwrap_or_default().to_owned(),
            finding.rule.clone(),
            path.to_owned(),
            0,
        ),
        rule: rules::fleet(&finding.rule),
        level: level(finding.severity, view.strict),
        message: finding.message.clone(),
        location,
        fingerprint: fleet_fingerprint(finding),
        suppressions: Vec::new(),
        properties: ResultProperties::Fleet(FleetProperties {
            hosts: &finding.hosts,
            fleet: host.and_then(|h| h.fleet).unwrap_or_default(),
            cluster: finding.cluster.as_deref().unwrap_or_default(),
            path,
            values: &finding.values,
            majority: finding.majority.as_ref(),
            severity: finding.severity.as_str(),
        }),
    }
}

#[cfg(test)]
mod tests;
