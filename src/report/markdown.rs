//! Markdown report, for a change ticket or a pull-request comment.

use std::io::{self, Write};

use super::headline;
use crate::compare::{Finding, Report, Severity};
use crate::snapshot::FactValue;

/// Writes the report as GitHub-flavoured Markdown.
pub fn render(report: &Report, out: &mut dyn Write) -> io::Result<()> {
    let (word, rest) = headline(report)
        .split_once(' ')
        .map(|(w, r)| (w.to_owned(), r.to_owned()))
        .unwrap_or_default();
    writeln!(out, "### driftgate: **{word}** {}\n", escape(&rest))?;
    let s = &report.snapshot;
    writeln!(
        out,
        "- Snapshot: `{}` (`{}`, captured {})",
        s.origin, s.digest, s.captured_at
    )?;
    if let Some(b) = &report.baseline {
        writeln!(
            out,
            "- Baseline: `{}` (`{}`, captured {})",
            b.origin, b.digest, b.captured_at
        )?;
    }
    for f in &report.firmware_changes {
        writeln!(
            out,
            "- Firmware changed alongside: `{}` {}",
            f.path,
            escape(&f.message)
        )?;
    }
    for source in &report.incomplete_sources {
        let error = source
            .error
            .as_deref()
            .map(|e| format!(": {}", escape(e)))
            .unwrap_or_default();
        writeln!(
            out,
            "- **Incomplete** {} source `{}` (`{}`) is {}{error}",
            super::role_word(source.role),
            source.name,
            source.target,
            source.status.as_str()
        )?;
    }
    if report.findings.is_empty() {
        writeln!(out, "\nNo findings.")?;
        return Ok(());
    }
    writeln!(
        out,
        "\n| Severity | Rule | Fact | Baseline | Now | Finding |"
    )?;
    writeln!(out, "|---|---|---|---|---|---|")?;
    let mut long_values = Vec::new();
    let mut attributed = std::collections::HashSet::new();
    for severity in [Severity::Block, Severity::Warn, Severity::Info] {
        for f in report.findings_at(severity) {
            // A port's firmware is named with its first (most severe) finding only.
            let firmware = super::firmware_line(f)
                .filter(|_| super::port_of(f).is_none_or(|port| attributed.insert(port)));
            writeln!(
                out,
                "| {} | `{}` | `{}` | {} | {} | {} |",
                severity.as_str(),
                f.id,
                f.path,
                cell(f.old.as_ref()),
                cell(f.new.as_ref()),
                escape(&match firmware {
                    Some(firmware) => format!("{} ({firmware}) — {}", f.message, f.why),
                    None => format!("{} — {}", f.message, f.why),
                }),
            )?;
            if f.old.as_ref().is_some_and(FactValue::is_multiline)
                || f.new.as_ref().is_some_and(FactValue::is_multiline)
            {
                long_values.push(f);
            }
        }
    }
    for f in long_values {
        write_diff_block(f, out)?;
    }
    Ok(())
}

fn write_diff_block(f: &Finding, out: &mut dyn Write) -> io::Result<()> {
    let text = |v: &Option<FactValue>| {
        v.as_ref()
            .map(|v| v.as_text().map_or_else(|| v.to_string(), str::to_owned))
            .unwrap_or_default()
    };
    let (old, new) = (text(&f.old), text(&f.new));
    let diff = similar::TextDiff::from_lines(&old, &new);
    writeln!(out, "\n`{}`:\n\n```diff", f.path)?;
    write!(
        out,
        "{}",
        diff.unified_diff()
            .context_radius(3)
            .header("baseline", "snapshot")
    )?;
    writeln!(out, "```")
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
