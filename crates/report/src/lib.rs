//! Renderers of a [`Report`]: each writes to a writer and decides nothing.
//!
//! The text renderer always writes ANSI styles; the caller's stream strips them when colour is
//! off (not a terminal, `NO_COLOR`). JUnit, SARIF, Prometheus and HTML render a [`View`] (the
//! hosts of any document, one shape) with the [`Extras`] the caller read for them (baseline
//! lines, drift timelines, the textfile being replaced): renderers read nothing and have no
//! clock. What they render is [`driftgate_compare`]'s judgement and the [`document`]s of this
//! crate, which the gate, fleet and baseline operations fill: a report depends on nothing that
//! reads a store or a host.

pub mod document;
pub mod fleet;
pub mod gate;
pub mod html;
pub mod json;
pub mod junit;
pub mod markdown;
mod port_summary;
pub mod prometheus;
pub mod sarif;
pub mod schemas;
pub mod text;
pub mod view;
mod visible;
mod why_column;

use std::collections::BTreeMap;

use std::io::{self, Write};

use crate::document::FleetReport;
use crate::document::GateReport;
use driftgate_compare::{
    Allowance, Finding, FirmwareChange, FirmwareUnknown, Origin, Report, Role, Severity, Story,
    Verdict,
};
use driftgate_snapshot::FactValue;
use driftgate_snapshot::SourceStatus;
pub use view::{HostView, UnreadableTime, View, ViewKind, hosts_at};
pub use visible::{Shown, visible};

/// A report format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Format {
    /// A verdict line, then findings grouped by severity (ANSI styles; see the module docs).
    Text,
    /// JSON following `driftgate schema report` (`gate-report`, `fleet-report`).
    Json,
    /// Markdown for a change ticket or a pull-request comment, under 65,536 characters.
    Markdown,
    /// JUnit XML: a test suite per host, a test case per rule (Jenkins, GitLab, Azure DevOps).
    Junit,
    /// SARIF 2.1.0: a result per finding, located at the fact's line of the baseline file.
    Sarif,
    /// Prometheus text format for node_exporter's textfile collector.
    Prometheus,
    /// One self-contained HTML page: hosts, findings by port, drift timelines.
    Html,
}

impl Format {
    /// Every format, in the order `--help` lists them.
    pub const ALL: [Format; 7] = [
        Format::Text,
        Format::Json,
        Format::Markdown,
        Format::Junit,
        Format::Sarif,
        Format::Prometheus,
        Format::Html,
    ];

    /// The name on the command line (`--report junit=FILE`).
    pub fn name(self) -> &'static str {
        match self {
            Format::Text => "text",
            Format::Json => "json",
            Format::Markdown => "markdown",
            Format::Junit => "junit",
            Format::Sarif => "sarif",
            Format::Prometheus => "prometheus",
            Format::Html => "html",
        }
    }

    /// The format of a command-line name.
    pub fn from_name(name: &str) -> Option<Format> {
        Format::ALL.into_iter().find(|f| f.name() == name)
    }
}

/// What some formats need beyond the document, read by the caller before rendering (a
/// renderer reads nothing). Empty parts make those formats render without them: SARIF
/// results without a line, HTML without timelines, Prometheus without earlier success times.
#[derive(Debug, Clone, Default)]
pub struct Extras {
    /// Per host, its baseline file and the line of each fact in it (SARIF locations).
    pub baseline_lines: BTreeMap<String, crate::document::BaselineLines>,
    /// Per host, the changes its baseline went through in the store's history, newest first
    /// (HTML).
    pub timelines: BTreeMap<String, Vec<crate::document::TimelineEntry>>,
    /// The Prometheus textfile this render replaces: a host this run could not read keeps the
    /// last success time it had there.
    pub previous_textfile: Option<String>,
    /// The columns the fleet's one-screen summary may fill (the terminal's); without it,
    /// [`fleet::DEFAULT_COLUMNS`].
    pub columns: Option<usize>,
}

/// What a command reports: one host's judgement, or a gate step's.
#[derive(Debug, Clone, Copy)]
pub enum Document<'a> {
    /// `check` and `diff`: the judgement and its stories, one per port
    /// ([`driftgate_compare::stories`] of the judged snapshot), which the text, Markdown and
    /// HTML tell before the findings.
    Check(&'a Report, &'a [Story]),
    /// `gate pre` and `gate post`.
    Gate(&'a GateReport),
    /// `check --all` and `report merge`.
    Fleet(&'a FleetReport),
}

impl<'a> From<&'a FleetReport> for Document<'a> {
    fn from(report: &'a FleetReport) -> Self {
        Document::Fleet(report)
    }
}

impl<'a> From<&'a GateReport> for Document<'a> {
    fn from(report: &'a GateReport) -> Self {
        Document::Gate(report)
    }
}

/// Writes `document` in `format`: the one entry every command that reports goes through.
/// No control character a capture sent reaches `out` raw (see [`visible`]): text, Markdown,
/// HTML and JUnit show each as `\u{1b}`, JSON and SARIF as JSON escapes (JSON keeps the exact
/// value, SARIF's messages are shown visibly), Prometheus's label values take [`visible`]
/// ones before its own escaping.
pub fn render<'a>(
    document: impl Into<Document<'a>>,
    format: Format,
    extras: &Extras,
    out: &mut dyn Write,
) -> io::Result<()> {
    let document = document.into();
    let mut shown = match format {
        Format::Json | Format::Sarif => Shown::json(out),
        // A `\u{1b}` written after the textfile's escaping would be an escape it does not know:
        // its label values are shown by the sanitiser before they are escaped.
        Format::Prometheus => return render_to(document, format, extras, out),
        Format::Text | Format::Markdown | Format::Junit | Format::Html => Shown::visible(out),
    };
    render_to(document, format, extras, &mut shown)?;
    shown.flush()
}

fn render_to(
    document: Document<'_>,
    format: Format,
    extras: &Extras,
    out: &mut dyn Write,
) -> io::Result<()> {
    match (document, format) {
        (document, Format::Junit) => junit::render(&View::of(document), out),
        (document, Format::Sarif) => sarif::render(&View::of(document), extras, out),
        (document, Format::Prometheus) => prometheus::render(&View::of(document), extras, out),
        (document, Format::Html) => html::render(&View::of(document), extras, out),
        (Document::Check(report, stories), Format::Text) => text::render(report, stories, out),
        (Document::Check(report, _), Format::Json) => json::render(report, out),
        (Document::Check(report, stories), Format::Markdown) => {
            markdown::render(report, stories, out)
        }
        (Document::Gate(report), Format::Text) => gate::text(report, out),
        (Document::Gate(report), Format::Json) => gate::json(report, out),
        (Document::Gate(report), Format::Markdown) => gate::markdown(report, out),
        (Document::Fleet(report), Format::Text) => fleet::text(report, extras.columns, out),
        (Document::Fleet(report), Format::Json) => fleet::json(report, out),
        (Document::Fleet(report), Format::Markdown) => fleet::markdown(report, out),
    }
}

/// The firmware named beside a finding, in one line: what changed on the finding's own port,
/// one entry per old → new with every fact that says so (`NIC firmware of this port:
/// "22.31.1014" → "22.36.1010" (nic/…/bmc/firmware/version, firmware/nic.slot.3-1-1/version);
/// 2 other firmware changes on this host (listed above)`), "no firmware change of this port"
/// only when the port's firmware is known and did not change, why it cannot be named when it
/// is unknown ([`unknown_firmware`]), or `None` when the finding names no firmware and its
/// port's is known. The rest of the host's changes are only counted: the report lists them
/// once.
pub fn firmware_line(finding: &Finding) -> Option<String> {
    firmware_line_listed(finding, "listed above")
}

/// [`firmware_line`], saying where the report lists the host's other firmware changes
/// (`listed` replaces "listed above").
pub fn firmware_line_listed(finding: &Finding, listed: &str) -> Option<String> {
    if finding.firmware.is_empty() {
        return finding
            .firmware_unknown
            .map(|unknown| unknown_firmware(unknown).to_owned());
    }
    // Old → new, with the facts that report it, in the finding's order.
    let mut own: Vec<(String, Vec<String>)> = Vec::new();
    for f in finding.firmware.iter().filter(|f| f.this_port) {
        let change = firmware_change(f);
        match own.iter_mut().find(|(c, _)| *c == change) {
            Some((_, paths)) => paths.push(f.path.to_string()),
            None => own.push((change, vec![f.path.to_string()])),
        }
    }
    let others = finding.firmware.iter().filter(|f| !f.this_port).count();
    let mut parts = Vec::new();
    if own.is_empty() {
        parts.push(match finding.firmware_unknown {
            Some(unknown) => unknown_firmware(unknown).to_owned(),
            None => "no firmware change of this port".to_owned(),
        });
    } else {
        let own: Vec<String> = own
            .iter()
            .map(|(change, paths)| format!("{change} ({})", paths.join(", ")))
            .collect();
        parts.push(format!("NIC firmware of this port: {}", own.join(", ")));
    }
    if others > 0 {
        let word = if others == 1 { "change" } else { "changes" };
        let rest = if finding.firmware.iter().any(|f| f.this_port) {
            "other "
        } else {
            ""
        };
        parts.push(format!(
            "{others} {rest}firmware {word} on this host ({listed})"
        ));
    }
    Some(parts.join("; "))
}

/// Why a port's own firmware cannot be named, in words every report uses.
pub fn unknown_firmware(unknown: FirmwareUnknown) -> &'static str {
    match unknown {
        FirmwareUnknown::NotLinked => {
            "the BMC does not link this port to a firmware inventory entry"
        }
        FirmwareUnknown::NoSource => "no source names this port's firmware",
    }
}

/// The port a finding is about (`nic/<key>`), for naming its firmware once per port.
pub fn port_of(finding: &Finding) -> Option<&str> {
    let path = finding.path.as_str();
    let rest = path.strip_prefix("nic/")?;
    let key = rest.split('/').next()?;
    Some(&path[..4 + key.len()])
}

fn firmware_change(f: &FirmwareChange) -> String {
    let staged = if f.pending {
        " (staged, takes effect at the next reboot)"
    } else {
        ""
    };
    format!(
        "{} → {}{staged}",
        value_text(f.old.as_ref()),
        value_text(f.new.as_ref())
    )
}

/// A fact's value as every report writes it: `(none)` when the fact is absent.
pub fn value_text(value: Option<&FactValue>) -> String {
    value.map_or_else(|| "(none)".to_owned(), ToString::to_string)
}

/// Where a gate finding comes from, in words: `changed by the update`, …
pub fn origin_phrase(origin: Origin) -> &'static str {
    match origin {
        Origin::Update => "changed by the update",
        Origin::PreExisting => "pre-existing drift (already at pre)",
        Origin::Expected => "expected (firmware the update changed)",
    }
}

/// Where a gate finding comes from, as a property value: `update`, `pre_existing`,
/// `expected`.
pub fn origin_name(origin: Origin) -> &'static str {
    match origin {
        Origin::Update => "update",
        Origin::PreExisting => "pre_existing",
        Origin::Expected => "expected",
    }
}

/// What an allowance matches: `PATH=VALUE`, or `PATH` when it allows any value.
pub fn allowance_rule(a: &Allowance) -> String {
    match &a.value {
        Some(value) => format!("{}={value}", a.path),
        None => a.path.clone(),
    }
}

/// `allowed by PATH=VALUE (given at FILE:LINE): reason "…", ticket CHG-1, expires 2026-12-31`.
pub fn allowed_by(a: &Allowance) -> String {
    let mut parts = Vec::new();
    if let Some(reason) = &a.reason {
        parts.push(format!("reason {reason:?}"));
    }
    if let Some(ticket) = &a.ticket {
        parts.push(format!("ticket {ticket}"));
    }
    if let Some(expires) = a.expires {
        parts.push(format!("expires {expires}"));
    }
    let detail = if parts.is_empty() {
        String::new()
    } else {
        format!(": {}", parts.join(", "))
    };
    format!(
        "allowed by {} (given at {}){detail}",
        allowance_rule(a),
        a.given_at
    )
}

/// The one-line headline shared by every format, e.g.
/// `BLOCK azl-node01: 3 blocking, 1 warning, 2 info`.
pub fn headline(report: &Report) -> String {
    let host = &report.snapshot.host;
    let c = report.counts;
    let tally = {
        let mut parts = Vec::new();
        if c.block > 0 {
            parts.push(format!("{} blocking [{}]", c.block, blocking_ids(report)));
        }
        if c.warn > 0 {
            parts.push(plural(c.warn, "warning"));
        }
        if c.info > 0 {
            parts.push(format!("{} info", c.info));
        }
        parts.join(", ")
    };
    let against = match &report.baseline {
        Some(b) => format!("against baseline {}", b.origin),
        None => "invariants and expectations, no baseline".to_owned(),
    };
    let detail = match report.verdict {
        Verdict::Incomplete => {
            let sources: Vec<String> = report
                .incomplete_sources
                .iter()
                .map(|s| {
                    format!(
                        "{} source {} ({}) {}",
                        role_word(s.role),
                        s.name,
                        s.target,
                        status_phrase(s.status)
                    )
                })
                .collect();
            format!("{}; a partial capture never passes", sources.join("; "))
        }
        Verdict::Pass if tally.is_empty() => format!("no findings ({against})"),
        Verdict::Block if report.counts.block == 0 => {
            format!("{tally} ({against}; --strict: warnings block)")
        }
        _ => format!("{tally} ({against})"),
    };
    format!("{} {host}: {detail}", report.verdict.as_upper())
}

/// Distinct ids of blocking findings, at most five, in report order.
fn blocking_ids(report: &Report) -> String {
    const SHOWN: usize = 5;
    let mut ids: Vec<&str> = Vec::new();
    for finding in report
        .findings
        .iter()
        .filter(|f| f.severity == Severity::Block)
    {
        if !ids.contains(&finding.id.as_str()) {
            ids.push(&finding.id);
        }
    }
    let more = ids.len().saturating_sub(SHOWN);
    ids.truncate(SHOWN);
    let mut text = ids.join(", ");
    if more > 0 {
        text.push_str(&format!(", +{more} more"));
    }
    text
}

fn status_phrase(status: SourceStatus) -> &'static str {
    match status {
        SourceStatus::Complete => "is complete",
        SourceStatus::Partial => "is partial",
        SourceStatus::Failed => "failed",
    }
}

/// A source's role in words: `snapshot`, `baseline`, `pre-update`.
fn role_word(role: Role) -> &'static str {
    match role {
        Role::Snapshot => "snapshot",
        Role::Baseline => "baseline",
        Role::Pre => "pre-update",
    }
}

fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{n} {word}s")
    }
}

#[cfg(test)]
pub(crate) mod testing;
#[cfg(test)]
mod tests;
