//! Markdown report, for a change ticket or a pull-request comment.

use std::fmt::Write as _;
use std::io::{self, Write};

use super::gate::MARKDOWN_LIMIT;
use super::headline;
use crate::compare::{Finding, Report, Severity};
use crate::snapshot::FactValue;

/// Writes the report as GitHub-flavoured Markdown, under [`MARKDOWN_LIMIT`] bytes (so under
/// as many characters): past it the firmware list is summarized and multi-line diffs left
/// out, then the findings table stops, saying how many findings of each severity it left out.
pub fn render(report: &Report, out: &mut dyn Write) -> io::Result<()> {
    let full = parts(report, true);
    let parts = if full.len() < MARKDOWN_LIMIT {
        full
    } else {
        parts(report, false)
    };
    out.write_all(parts.head.as_bytes())?;
    if parts.len() < MARKDOWN_LIMIT {
        for (_, row) in &parts.rows {
            out.write_all(row.as_bytes())?;
        }
        return out.write_all(parts.tail.as_bytes());
    }
    // What the note on left-out findings needs, at most.
    const NOTE: usize = 300;
    let mut used = parts.head.len() + NOTE;
    let mut shown = 0;
    for (_, row) in &parts.rows {
        if used + row.len() >= MARKDOWN_LIMIT {
            break;
        }
        used += row.len();
        out.write_all(row.as_bytes())?;
        shown += 1;
    }
    let left: Vec<Severity> = parts.rows[shown..].iter().map(|(s, _)| *s).collect();
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
    writeln!(
        out,
        "\n_{} more findings not shown ({}): a Markdown report stays under {MARKDOWN_LIMIT} characters; the JSON report has every finding._",
        left.len(),
        by_severity.join(", ")
    )
}

/// A report's Markdown in three parts: what comes before the findings, one table row per
/// finding (with its severity), and the multi-line values' diffs.
struct Parts {
    head: String,
    rows: Vec<(Severity, String)>,
    tail: String,
}

impl Parts {
    fn len(&self) -> usize {
        self.head.len() + self.rows.iter().map(|(_, r)| r.len()).sum::<usize>() + self.tail.len()
    }
}

/// The parts of `report`'s Markdown; without `detail`, the firmware changes in one line and
/// the multi-line values' diffs left to the JSON report.
fn parts(report: &Report, detail: bool) -> Parts {
    let mut head = String::new();
    let (word, rest) = headline(report)
        .split_once(' ')
        .map(|(w, r)| (w.to_owned(), r.to_owned()))
        .unwrap_or_default();
    let _ = writeln!(head, "### driftgate: **{word}** {}\n", escape(&rest));
    let s = &report.snapshot;
    let _ = writeln!(
        head,
        "- Snapshot: `{}` (`{}`, captured {})",
        s.origin, s.digest, s.captured_at
    );
    if let Some(b) = &report.baseline {
        let _ = writeln!(
            head,
            "- Baseline: `{}` (`{}`, captured {})",
            b.origin, b.digest, b.captured_at
        );
    }
    if detail {
        for f in &report.firmware_changes {
            let _ = writeln!(
                head,
                "- Firmware changed alongside: `{}` {}",
                f.path,
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
        let _ = writeln!(
            head,
            "- **Incomplete** {} source `{}` (`{}`) is {}{error}",
            super::role_word(source.role),
            source.name,
            source.target,
            source.status.as_str()
        );
    }
    let mut parts = Parts {
        head,
        rows: Vec::new(),
        tail: String::new(),
    };
    if report.findings.is_empty() {
        parts.head.push_str("\nNo findings.\n");
        return parts;
    }
    parts.head.push_str(
        "\n| Severity | Rule | Fact | Baseline | Now | Finding |\n|---|---|---|---|---|---|\n",
    );
    let mut long_values = Vec::new();
    let mut attributed = std::collections::HashSet::new();
    for severity in [Severity::Block, Severity::Warn, Severity::Info] {
        for f in report.findings_at(severity) {
            // A port's firmware is named with its first (most severe) finding only.
            let firmware = super::firmware_line(f)
                .filter(|_| super::port_of(f).is_none_or(|port| attributed.insert(port)));
            let row = format!(
                "| {} | `{}` | `{}` | {} | {} | {} |\n",
                severity.as_str(),
                f.id,
                f.path,
                cell(f.old.as_ref()),
                cell(f.new.as_ref()),
                escape(&match firmware {
                    Some(firmware) => format!("{} ({firmware}) — {}", f.message, f.why),
                    None => format!("{} — {}", f.message, f.why),
                }),
            );
            parts.rows.push((severity, row));
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

fn write_diff_block(f: &Finding, out: &mut String) {
    let text = |v: &Option<FactValue>| {
        v.as_ref()
            .map(|v| v.as_text().map_or_else(|| v.to_string(), str::to_owned))
            .unwrap_or_default()
    };
    let (old, new) = (text(&f.old), text(&f.new));
    let diff = similar::TextDiff::from_lines(&old, &new);
    let _ = writeln!(out, "\n`{}`:\n\n```diff", f.path);
    let _ = write!(
        out,
        "{}",
        diff.unified_diff()
            .context_radius(3)
            .header("baseline", "snapshot")
    );
    let _ = writeln!(out, "```");
}

fn cell(value: Option<&FactValue>) -> String {
    match value {
        None => "—".to_owned(),
        Some(v) if v.is_multiline() => "(multi-line, see below)".to_owned(),
        Some(v) => format!("`{}`", v.to_string().replace('|', "\\|").replace('`', "'")),
    }
}

/// Escapes what would break a table row or start Markdown formatting.
pub(super) fn escape(text: &str) -> String {
    text.replace('\\', "\\\\")
        .replace('|', "\\|")
        .replace('*', "\\*")
        .replace('<', "&lt;")
        .replace('\n', " ")
}

#[cfg(test)]
mod tests;
