//! A gate report as text: the run's headline, per host its verdict line, its stories, then
//! pre-existing drift, allowed findings and expected firmware; ANSI styles as
//! [`crate::text`] writes them.

use std::io::{self, Write};

use super::parts::{
    Seen, by_allowance, detail, firmware_groups, firmware_title, gate_headline,
    is_multiline_change, pre_existing, promotion_line, story_lines,
};
use crate::document::{GateReport, HostOutcome, PromotionOutcome, Step};
use crate::text::{BOLD, DIM, severity_style, short, verdict_style};
use crate::wording::allowed_by;
use crate::wording::headline;
use driftgate_compare::{Finding, Severity, Verdict};

/// Text: the run's headline, then per host its verdict line and its stories (ANSI styles, as
/// [`super::text`] writes them).
pub(super) fn render(report: &GateReport, out: &mut dyn Write) -> io::Result<()> {
    let line = gate_headline(report);
    let word = report.verdict.as_upper();
    let style = verdict_style(report.verdict);
    writeln!(out, "{style}{word}{style:#}{}", &line[word.len()..])?;
    let run = &report.run;
    writeln!(
        out,
        "{DIM}  run {} in {}, started {}, policy {}{DIM:#}",
        run.id,
        run.dir,
        run.started_at,
        short(&run.policy_digest)
    )?;
    for host in &report.hosts {
        text_host(host, report.run.step, out)?;
    }
    // An expired allowance is among the warnings already (the gate says it there).
    if !report.warnings.is_empty() {
        let style = severity_style(Severity::Warn);
        writeln!(out, "\n{style}WARNINGS{style:#}")?;
        for warning in &report.warnings {
            writeln!(out, "  {warning}")?;
        }
    }
    if let Some(promotion) = &report.promotion {
        writeln!(out, "\n{}", promotion_line(promotion))?;
        if let PromotionOutcome::Promoted(p) = promotion {
            for file in &p.files {
                writeln!(out, "  {file}")?;
            }
        }
    }
    Ok(())
}

fn text_host(host: &HostOutcome, step: Step, out: &mut dyn Write) -> io::Result<()> {
    let report = &host.report;
    let line = headline(report);
    let word = report.verdict.as_upper();
    let style = verdict_style(report.verdict);
    writeln!(out, "\n{style}{word}{style:#}{}", &line[word.len()..])?;
    if let Some(pre) = &report.pre {
        writeln!(
            out,
            "{DIM}  pre       {} ({}){DIM:#}",
            pre.origin,
            short(&pre.digest)
        )?;
    }
    writeln!(out, "{DIM}  captured  {}{DIM:#}", host.snapshot_file)?;
    for note in &host.notes {
        writeln!(out, "{DIM}  note: {note}{DIM:#}")?;
    }
    if !report.incomplete_sources.is_empty() {
        let style = verdict_style(Verdict::Incomplete);
        writeln!(out, "  {style}incomplete sources{style:#}")?;
        crate::text::write_incomplete_sources(report, "    ", out)?;
    }
    if !host.fixes.is_empty() {
        writeln!(out, "\n  {BOLD}fix steps applied in this run{BOLD:#}")?;
        for fix in &host.fixes {
            writeln!(
                out,
                "    [{}] {} = {}: {}{}  (ticket {})",
                fix.step,
                fix.fact,
                fix.planned,
                fix_state(fix.state),
                unanswered(fix),
                fix.ticket
            )?;
        }
    }
    let mut seen = Seen::new(step);
    for story in &host.stories {
        let style = severity_style(story.severity);
        writeln!(
            out,
            "\n  {style}{}{style:#}  {BOLD}{}{BOLD:#}",
            story.severity.as_str(),
            story.label
        )?;
        writeln!(out, "    {}", story.headline)?;
        for line in story_lines(report, story) {
            text_finding(line.first, &line.paths(), &mut seen, out)?;
        }
    }
    let pre_existing = pre_existing(report);
    if !pre_existing.is_empty() {
        writeln!(
            out,
            "\n  {BOLD}pre-existing drift ({}){BOLD:#}",
            pre_existing.len()
        )?;
        for finding in pre_existing {
            text_finding(finding, finding.path.as_str(), &mut seen, out)?;
        }
    }
    if !report.allowed.is_empty() {
        writeln!(out, "\n  {BOLD}allowed ({}){BOLD:#}", report.allowed.len())?;
        for (allowance, findings) in by_allowance(&report.allowed) {
            writeln!(out, "    {}", allowed_by(allowance))?;
            for f in findings {
                writeln!(out, "      {}  [{}]  {}", f.path, f.id, detail(f))?;
            }
        }
    }
    let firmware = firmware_groups(report);
    if !firmware.is_empty() {
        writeln!(
            out,
            "\n  {BOLD}{}{BOLD:#}",
            firmware_title(step, report.firmware_changes.len())
        )?;
        for (change, paths) in firmware {
            writeln!(out, "      {change}: {}", paths.join(", "))?;
        }
    }
    Ok(())
}

/// A finding (standing for the findings at `paths`) with its detail, then its port's firmware
/// and its rule's why when not said yet.
fn text_finding<'r>(
    finding: &'r Finding,
    paths: &str,
    seen: &mut Seen<'r>,
    out: &mut dyn Write,
) -> io::Result<()> {
    let style = severity_style(finding.severity);
    writeln!(
        out,
        "      {paths}  [{}]  {style}{}{style:#}",
        finding.id,
        detail(finding)
    )?;
    if is_multiline_change(finding)
        && let (Some(old), Some(new)) = (&finding.old, &finding.new)
    {
        let mut diff = Vec::new();
        crate::text::write_unified_diff(old, new, &mut diff)?;
        for line in String::from_utf8_lossy(&diff).lines() {
            writeln!(out, "    {line}")?;
        }
    }
    if let Some(firmware) = seen.firmware(finding) {
        writeln!(out, "        {firmware}")?;
    }
    if let Some(why) = seen.why(finding) {
        writeln!(out, "{DIM}        why: {why}{DIM:#}")?;
    }
    Ok(())
}

/// What a post says of a step sent without a recorded answer, after its state.
pub(crate) fn unanswered(fix: &crate::document::FixCheck) -> &'static str {
    if fix.unanswered {
        " (sent, but no answer was recorded)"
    } else {
        ""
    }
}

/// How a fix step's value shows in a post, in words.
pub(crate) fn fix_state(state: crate::document::FixState) -> &'static str {
    match state {
        crate::document::FixState::TookEffect => "took effect",
        crate::document::FixState::Pending => {
            "pending: staged for the next reset, not in effect (not fixed yet)"
        }
        crate::document::FixState::NotInEffect => "NOT in effect: the step did not take",
    }
}
