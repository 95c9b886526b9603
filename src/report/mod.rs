//! Renderers of a [`Report`]: each writes to a writer and decides nothing.
//!
//! The text renderer always writes ANSI styles; the caller's stream strips them when colour is
//! off (not a terminal, `NO_COLOR`). Imports: [`crate::gate`] and [`crate::fleet`] (their report types) and
//! [`crate::compare`].

pub mod fleet;
pub mod gate;
pub mod json;
pub mod markdown;
pub mod text;

use std::io::{self, Write};

use crate::compare::{Finding, FirmwareChange, Report, Role, Severity, Verdict};
use crate::fleet::FleetReport;
use crate::gate::GateReport;
use crate::snapshot::SourceStatus;

/// A report format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// A verdict line, then findings grouped by severity (ANSI styles; see the module docs).
    Text,
    /// JSON following `driftgate schema report`.
    Json,
    /// Markdown for a change ticket or a pull-request comment.
    Markdown,
}

/// What a command reports: one host's judgement, or a gate step's.
#[derive(Debug, Clone, Copy)]
pub enum Document<'a> {
    /// `check` and `diff`.
    Check(&'a Report),
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

impl<'a> From<&'a Report> for Document<'a> {
    fn from(report: &'a Report) -> Self {
        Document::Check(report)
    }
}

impl<'a> From<&'a GateReport> for Document<'a> {
    fn from(report: &'a GateReport) -> Self {
        Document::Gate(report)
    }
}

/// Writes `document` in `format`: the one entry every command that reports goes through.
pub fn render<'a>(
    document: impl Into<Document<'a>>,
    format: Format,
    out: &mut dyn Write,
) -> io::Result<()> {
    match (document.into(), format) {
        (Document::Check(report), Format::Text) => text::render(report, out),
        (Document::Check(report), Format::Json) => json::render(report, out),
        (Document::Check(report), Format::Markdown) => markdown::render(report, out),
        (Document::Gate(report), Format::Text) => gate::text(report, out),
        (Document::Gate(report), Format::Json) => gate::json(report, out),
        (Document::Gate(report), Format::Markdown) => gate::markdown(report, out),
        (Document::Fleet(report), Format::Text) => fleet::text(report, out),
        (Document::Fleet(report), Format::Json) => fleet::json(report, out),
        (Document::Fleet(report), Format::Markdown) => fleet::markdown(report, out),
    }
}

/// The firmware named beside a finding, in one line: what changed on the finding's own port,
/// one entry per old → new with every fact that says so (`NIC firmware of this port:
/// "22.31.1014" → "22.36.1010" (nic/…/bmc/firmware/version, firmware/nic.slot.3-1-1/version);
/// 2 other firmware changes on this host (listed above)`), or `None` when the finding names
/// none. The rest of the host's changes are only counted: the report lists them once.
pub fn firmware_line(finding: &Finding) -> Option<String> {
    firmware_line_listed(finding, "listed above")
}

/// [`firmware_line`], saying where the report lists the host's other firmware changes
/// (`listed` replaces "listed above").
pub fn firmware_line_listed(finding: &Finding, listed: &str) -> Option<String> {
    if finding.firmware.is_empty() {
        return None;
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
        parts.push("no firmware change of this port".to_owned());
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

/// The port a finding is about (`nic/<key>`), for naming its firmware once per port.
pub fn port_of(finding: &Finding) -> Option<&str> {
    let path = finding.path.as_str();
    let rest = path.strip_prefix("nic/")?;
    let key = rest.split('/').next()?;
    Some(&path[..4 + key.len()])
}

fn firmware_change(f: &FirmwareChange) -> String {
    let value = |v: &Option<crate::snapshot::FactValue>| {
        v.as_ref()
            .map_or_else(|| "(none)".to_owned(), ToString::to_string)
    };
    let staged = if f.pending {
        " (staged, takes effect at the next reboot)"
    } else {
        ""
    };
    format!("{} → {}{staged}", value(&f.old), value(&f.new))
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
mod tests;
