//! Markdown report, for a change ticket or a pull-request comment: the verdict, one story per
//! port, then the findings' table.

use std::fmt::Write as _;
use std::io::{self, Write};

mod escape;
mod fit;
#[cfg(test)]
pub(crate) mod inert;

pub(crate) use escape::{code, code_cell, escape, longest_backtick_run};
pub use fit::MARKDOWN_LIMIT;
pub(crate) use fit::{fit, fits};

use crate::port_summary::{Part, tell};
use crate::wording::headline;
use driftgate_compare::{Finding, Report, Severity, Story};
use driftgate_snapshot::FactValue;

/// Stories told before the findings' table; the rest are counted (the table has their
/// findings).
const STORIES: usize = 20;

/// Writes the report and its `stories` (see [`driftgate_compare::stories`]) as
/// GitHub-flavoured Markdown, under [`MARKDOWN_LIMIT`] bytes (so under as many characters):
/// past it the firmware list is summarized and multi-line diffs left out, then the findings
/// table stops, saying how many findings of each severity it left out.
pub fn render(report: &Report, stories: &[Story], out: &mut dyn Write) -> io::Result<()> {
    let full = parts(report, stories, true);
    let parts = if fits(&full.head, &full.rows, &full.tail) {
        full
    } else {
        parts(report, stories, false)
    };
    fit(out, &parts.head, &parts.rows, &parts.tail, |shown| {
        let left = &parts.severities[shown..];
        let by_severity: Vec<String> = [
            (Severity::Block, "blocking"),
            (Severity::Warn, "warnings"),
            (Severity::Info, "info"),
        ]
        .into_iter()
        .filter_map(|(severity, word)| {
            let n = left.iter().filter(|s| **s == severity).count();
            (n > 0).then(|| format!("{n} {word}"))
        })
        .collect();
        format!(
            "\n_{} more findings not shown ({}): a Markdown report stays under {MARKDOWN_LIMIT} characters; the JSON report has every finding._\n",
            left.len(),
            by_severity.join(", ")
        )
    })?;
    Ok(())
}

/// A report's Markdown in three parts: what comes before the findings, one table row per
/// finding (with each row's severity beside), and the multi-line values' diffs.
struct Parts {
    head: String,
    rows: Vec<String>,
    severities: Vec<Severity>,
    tail: String,
}

/// The parts of `report`'s Markdown; without `detail`, the firmware changes in one line and
/// the multi-line values' diffs left to the JSON report.
fn parts(report: &Report, stories: &[Story], detail: bool) -> Parts {
    let mut head = String::new();
    let (word, rest) = headline(report)
        .split_once(' ')
        .map(|(w, r)| (w.to_owned(), r.to_owned()))
        .unwrap_or_default();
    let _ = writeln!(head, "### driftgate: **{word}** {}\n", escape(&rest));
    let s = &report.snapshot;
    let _ = writeln!(
        head,
        "- Snapshot: {} ({}, captured {})",
        code(&s.origin),
        code(&s.digest),
        escape(&s.captured_at)
    );
    if let Some(b) = &report.baseline {
        let _ = writeln!(
            head,
            "- Baseline: {} ({}, captured {})",
            code(&b.origin),
            code(&b.digest),
            escape(&b.captured_at)
        );
    }
    if detail {
        for f in &report.firmware_changes {
            let _ = writeln!(
                head,
                "- Firmware changed alongside: {} {}",
                code(f.path.as_str()),
                escape(&f.message)
            );
        }
    } else if !report.firmware_changes.is_empty() {
        let _ = writeln!(
            head,
            "- Firmware changed alongside: {} facts (summarized to keep this report short; see the JSON report)",
            report.firmware_changes.len()
        );
    }
    for source in &report.incomplete_sources {
        let error = source
            .error
            .as_deref()
            .map(|e| format!(": {}", escape(e)))
            .unwrap_or_default();
        let not_judged = match source.not_judged {
            0 => String::new(),
            n => format!(
                " ({} not judged: facts it did not read are unknown, not removed)",
                crate::wording::plural(n, "finding")
            ),
        };
        let _ = writeln!(
            head,
            "- **Incomplete** {} source {} ({}) is {}{error}{not_judged}",
            crate::wording::role_word(source.role),
            code(&source.name),
            code(&source.target.to_string()),
            source.status.as_str()
        );
    }
    let mut parts = Parts {
        head,
        rows: Vec::new(),
        severities: Vec::new(),
        tail: String::new(),
    };
    if report.findings.is_empty() {
        parts.head.push_str("\nNo findings.\n");
        return parts;
    }
    if !stories.is_empty() {
        write_stories(&mut parts.head, report, stories);
        parts.head.push_str("\n#### Findings\n");
    }
    parts.head.push_str(
        "\n| Severity | Rule | Fact | Baseline | Now | Finding |\n|---|---|---|---|---|---|\n",
    );
    let mut long_values = Vec::new();
    let mut attributed = std::collections::HashSet::new();
    for severity in [Severity::Block, Severity::Warn, Severity::Info] {
        for f in report.findings_at(severity) {
            // A port's firmware is named with its first (most severe) finding only.
            let firmware = crate::wording::firmware_line(f)
                .filter(|_| crate::wording::port_of(f).is_none_or(|port| attributed.insert(port)));
            let row = format!(
                "| {} | {} | {} | {} | {} | {} |\n",
                severity.as_str(),
                code_cell(&f.id.to_string()),
                code_cell(f.path.as_str()),
                cell(f.old.as_ref()),
                cell(f.new.as_ref()),
                escape(&match firmware {
                    Some(firmware) => format!("{} ({firmware}) — {}", f.message, f.why),
                    None => format!("{} — {}", f.message, f.why),
                }),
            );
            parts.rows.push(row);
            parts.severities.push(severity);
            if f.old.as_ref().is_some_and(FactValue::is_multiline)
                || f.new.as_ref().is_some_and(FactValue::is_multiline)
            {
                long_values.push(f);
            }
        }
    }
    if detail {
        for f in long_values {
            write_diff_block(f, &mut parts.tail);
        }
    } else if !long_values.is_empty() {
        let _ = writeln!(
            parts.tail,
            "\n_{} multi-line values not shown as diffs to keep this report short: the JSON report has both values._",
            long_values.len()
        );
    }
    parts
}

/// The stories, one per port, as a heading and a list each.
fn write_stories(out: &mut String, report: &Report, stories: &[Story]) {
    let told = tell(report, stories);
    for t in told.iter().take(STORIES) {
        let n = t.story.findings.len();
        let findings = if n == 1 { "finding" } else { "findings" };
        let _ = writeln!(
            out,
            "\n#### {} — {} ({n} {findings})\n",
            escape(&t.story.label),
            t.story.severity.as_str()
        );
        if let Some(headline) = t.headline {
            let _ = writeln!(out, "- {}", escape(headline));
        }
        write_part(out, "Setting in the NIC firmware", &t.settings);
        write_part(out, "What the OS shows", &t.os);
        if let Some(firmware) = &t.firmware {
            let _ = writeln!(out, "- The firmware that changed: {}", escape(firmware));
        }
    }
    if told.len() > STORIES {
        let _ = writeln!(
            out,
            "\n_{} more stories not told here: the findings below have them._",
            told.len() - STORIES
        );
    }
}

fn write_part(out: &mut String, title: &str, part: &Part) {
    if part.is_empty() {
        return;
    }
    let mut lines: Vec<String> = part
        .lines
        .iter()
        .map(|l| {
            let paths: Vec<String> = l.paths.iter().map(|p| code(p)).collect();
            format!("{}{}", paths.join(", "), escape(&l.what))
        })
        .collect();
    if part.more > 0 {
        lines.push(format!("and {} more", part.more));
    }
    let _ = writeln!(out, "- {title}: {}", lines.join("; "));
}

fn write_diff_block(f: &Finding, out: &mut String) {
    let text = |v: &Option<FactValue>| {
        v.as_ref()
            .map(|v| v.as_text().map_or_else(|| v.to_string(), str::to_owned))
            .unwrap_or_default()
    };
    let (old, new) = (text(&f.old), text(&f.new));
    let diff = similar::TextDiff::from_lines(&old, &new);
    let diff = diff
        .unified_diff()
        .context_radius(3)
        .header("baseline", "snapshot")
        .to_string();
    // A fence longer than any run of backticks in the values, so that no line of theirs
    // closes it.
    let fence = "`".repeat(longest_backtick_run(&diff).max(2) + 1);
    let _ = writeln!(out, "\n{}:\n\n{fence}diff", code(f.path.as_str()));
    let _ = write!(out, "{diff}");
    if !diff.ends_with('\n') {
        let _ = writeln!(out);
    }
    let _ = writeln!(out, "{fence}");
}

fn cell(value: Option<&FactValue>) -> String {
    match value {
        None => "—".to_owned(),
        Some(v) if v.is_multiline() => "(multi-line, see below)".to_owned(),
        Some(v) => code_cell(&v.to_string()),
    }
}

#[cfg(test)]
mod tests;
