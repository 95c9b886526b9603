//! Text report: the verdict on the first line, then one story per port (what the NIC firmware
//! is set to, what the OS shows, the firmware that changed), then the findings grouped by
//! severity, most severe first. Multi-line values are shown as a unified diff.

use std::collections::HashSet;
use std::io::{self, Write};

use anstyle::{AnsiColor, Style};

use crate::visible::Paint;

use crate::port_summary::{Part, tell};
use crate::wording::headline;
use driftgate_compare::{Finding, FindingKind, Report, Severity, Story, Verdict};
use driftgate_snapshot::FactValue;

pub(super) const DIM: Paint = Paint::new(Style::new().dimmed());
pub(super) const BOLD: Paint = Paint::new(Style::new().bold());

pub(super) fn verdict_style(verdict: Verdict) -> Paint {
    let color = match verdict {
        Verdict::Pass => AnsiColor::Green,
        Verdict::Warn => AnsiColor::Yellow,
        Verdict::Block => AnsiColor::Red,
        Verdict::Incomplete => AnsiColor::Magenta,
    };
    Paint::new(Style::new().bold().fg_color(Some(color.into())))
}

pub(super) fn severity_style(severity: Severity) -> Paint {
    let color = match severity {
        Severity::Block => AnsiColor::Red,
        Severity::Warn => AnsiColor::Yellow,
        Severity::Info | Severity::Ignore => AnsiColor::Cyan,
    };
    Paint::new(Style::new().bold().fg_color(Some(color.into())))
}

/// Writes the text report of `report` and its `stories` (see
/// [`driftgate_compare::stories`]), with ANSI styles (strip them for plain output).
pub fn render(report: &Report, stories: &[Story], out: &mut dyn Write) -> io::Result<()> {
    let headline = headline(report);
    let word = report.verdict.as_upper();
    let style = verdict_style(report.verdict);
    writeln!(out, "{style}{word}{style:#}{}", &headline[word.len()..])?;
    let s = &report.snapshot;
    writeln!(
        out,
        "{DIM}  snapshot  {} ({}, captured {}){DIM:#}",
        s.origin,
        short(&s.digest),
        s.captured_at
    )?;
    if let Some(b) = &report.baseline {
        writeln!(
            out,
            "{DIM}  baseline  {} ({}, captured {}){DIM:#}",
            b.origin,
            short(&b.digest),
            b.captured_at
        )?;
    }
    if !report.firmware_changes.is_empty() {
        writeln!(out, "  firmware changed alongside:")?;
        for f in &report.firmware_changes {
            writeln!(out, "    {} {}", f.path, f.message)?;
        }
    }
    if !report.incomplete_sources.is_empty() {
        let style = verdict_style(Verdict::Incomplete);
        writeln!(
            out,
            "\n{style}INCOMPLETE SOURCES ({}){style:#}",
            report.incomplete_sources.len()
        )?;
        write_incomplete_sources(report, "  ", out)?;
    }
    write_stories(report, stories, out)?;
    let mut explained = HashSet::new();
    let mut attributed = HashSet::new();
    for severity in [Severity::Block, Severity::Warn, Severity::Info] {
        let findings: Vec<&Finding> = report.findings_at(severity).collect();
        if findings.is_empty() {
            continue;
        }
        let style = severity_style(severity);
        writeln!(
            out,
            "\n{style}{} ({}){style:#}",
            severity.as_str().to_uppercase(),
            findings.len()
        )?;
        for finding in findings {
            // A rule's reason is printed with its first finding only; fifty ports drifting the
            // same way should read as one story.
            let first = explained.insert(finding.id.as_str());
            // A port's firmware is named with its first (most severe) finding only.
            let firmware =
                crate::wording::port_of(finding).is_none_or(|port| attributed.insert(port));
            render_finding(finding, first, firmware, out)?;
        }
    }
    Ok(())
}

/// The stories, one per port, before the findings they group.
fn write_stories(report: &Report, stories: &[Story], out: &mut dyn Write) -> io::Result<()> {
    let told = tell(report, stories);
    if told.is_empty() {
        return Ok(());
    }
    writeln!(
        out,
        "\n{BOLD}STORIES ({}){BOLD:#}{DIM}  one per port or device, the findings below{DIM:#}",
        told.len()
    )?;
    for t in told {
        let style = severity_style(t.story.severity);
        let n = t.story.findings.len();
        let findings = if n == 1 { "finding" } else { "findings" };
        writeln!(
            out,
            "  {style}{:<5}{style:#}  {BOLD}{}{BOLD:#}{DIM}  ({n} {findings}){DIM:#}",
            t.story.severity.as_str(),
            t.story.label
        )?;
        if let Some(headline) = t.headline {
            writeln!(out, "         {headline}")?;
        }
        write_part("setting in the NIC firmware", &t.settings, out)?;
        write_part("what the OS shows", &t.os, out)?;
        if let Some(firmware) = &t.firmware {
            writeln!(
                out,
                "         {:<28} {firmware}",
                "the firmware that changed"
            )?;
        }
    }
    Ok(())
}

fn write_part(title: &str, part: &Part, out: &mut dyn Write) -> io::Result<()> {
    for (i, line) in part.lines.iter().enumerate() {
        let title = if i == 0 { title } else { "" };
        writeln!(
            out,
            "         {title:<28} {}{}",
            line.paths.join(", "),
            line.what
        )?;
    }
    if part.more > 0 {
        writeln!(
            out,
            "         {:<28} {DIM}and {} more{DIM:#}",
            "", part.more
        )?;
    }
    Ok(())
}

fn render_finding(
    f: &Finding,
    with_why: bool,
    with_firmware: bool,
    out: &mut dyn Write,
) -> io::Result<()> {
    writeln!(out, "  {BOLD}{}{BOLD:#}  [{}]", f.path, f.id)?;
    match (f.kind, &f.old, &f.new) {
        (FindingKind::Changed, Some(old), Some(new))
            if old.is_multiline() || new.is_multiline() =>
        {
            writeln!(out, "    changed:")?;
            write_unified_diff(old, new, out)?;
        }
        (FindingKind::Changed, Some(old), Some(new)) if f.pending => writeln!(
            out,
            "    {old} → {new} (staged: takes effect at the next reboot)"
        )?,
        (FindingKind::Changed, Some(old), Some(new))
            if driftgate_compare::is_peer_fact(f.path.as_str()) =>
        {
            writeln!(out, "    {old} → {new}: {}", f.message)?
        }
        (FindingKind::Changed, Some(old), Some(new)) => writeln!(out, "    {old} → {new}")?,
        _ => writeln!(out, "    {}", f.message)?,
    }
    if let Some(firmware) = crate::wording::firmware_line(f).filter(|_| with_firmware) {
        writeln!(out, "    {firmware}")?;
    }
    if with_why && !f.why.is_empty() {
        writeln!(out, "{DIM}    why: {}{DIM:#}", f.why)?;
    }
    Ok(())
}

pub(super) fn write_unified_diff(
    old: &FactValue,
    new: &FactValue,
    out: &mut dyn Write,
) -> io::Result<()> {
    let (old, new) = (text_of(old), text_of(new));
    let diff = similar::TextDiff::from_lines(&old, &new);
    for line in diff
        .unified_diff()
        .context_radius(3)
        .header("baseline", "snapshot")
        .to_string()
        .lines()
    {
        writeln!(out, "      {line}")?;
    }
    Ok(())
}

fn text_of(value: &FactValue) -> String {
    let mut text = value
        .as_text()
        .map_or_else(|| value.to_string(), str::to_owned);
    if !text.ends_with('\n') {
        text.push('\n');
    }
    text
}

/// `sha256:0123456789ab…`
pub(super) fn short(digest: &str) -> String {
    match digest.get(..19) {
        Some(prefix) if digest.len() > 19 => format!("{prefix}…"),
        _ => digest.to_owned(),
    }
}

/// Each incomplete source with its error, indented by `indent`, and how many findings it kept
/// out of the report.
pub(super) fn write_incomplete_sources(
    report: &Report,
    indent: &str,
    out: &mut dyn Write,
) -> io::Result<()> {
    for source in &report.incomplete_sources {
        writeln!(
            out,
            "{indent}{} {} ({}): {}",
            crate::wording::role_word(source.role),
            source.name,
            source.target,
            source.status.as_str()
        )?;
        if let Some(error) = &source.error {
            writeln!(out, "{indent}  {error}")?;
        }
        if source.not_judged > 0 {
            writeln!(
                out,
                "{DIM}{indent}  {} not judged: facts it did not read are unknown, not removed{DIM:#}",
                crate::wording::plural(source.not_judged, "finding")
            )?;
        }
    }
    Ok(())
}
