//! A gate report as Markdown for a change ticket: the run's headline, a table of hosts, per
//! host its stories as lists, kept under [`MARKDOWN_LIMIT`].

use std::fmt::Write as _;
use std::io::{self, Write};

use super::{
    Seen, allowed_by, by_allowance, detail, firmware_groups, firmware_title, gate_headline,
    is_multiline_change, pre_existing, promotion_line, story_lines,
};
use crate::compare::Finding;
use crate::gate::{GateReport, HostOutcome, PromotionOutcome, Step};
use crate::report::markdown::escape;
use crate::report::{headline, role_word};

/// The largest Markdown report: what GitHub accepts in a comment or an issue body. Past it the
/// stories are summarized, then hosts left out.
pub const MARKDOWN_LIMIT: usize = 65_536;

/// Markdown for a change ticket: the run's headline, a table of hosts, then per host its
/// stories as lists. Kept under [`MARKDOWN_LIMIT`]: past it stories lose their finding
/// lists, then hosts are left out, saying so.
pub(super) fn render(report: &GateReport, out: &mut dyn Write) -> io::Result<()> {
    let head = markdown_head(report);
    let tail = markdown_tail(report);
    let full: Vec<String> = report
        .hosts
        .iter()
        .map(|h| markdown_host(h, report.run.step, true))
        .collect();
    let fits = |hosts: &[String]| {
        head.len() + tail.len() + hosts.iter().map(String::len).sum::<usize>() < MARKDOWN_LIMIT
    };
    let hosts = if fits(&full) {
        full
    } else {
        report
            .hosts
            .iter()
            .map(|h| markdown_host(h, report.run.step, false))
            .collect()
    };
    out.write_all(head.as_bytes())?;
    // What the note on left-out hosts needs, at most.
    const NOTE: usize = 200;
    let mut used = head.len() + tail.len() + NOTE;
    let mut shown = 0;
    for host in &hosts {
        if used + host.len() >= MARKDOWN_LIMIT {
            break;
        }
        used += host.len();
        out.write_all(host.as_bytes())?;
        shown += 1;
    }
    if shown < hosts.len() {
        writeln!(
            out,
            "\n_{} more hosts not shown: a Markdown report stays under {MARKDOWN_LIMIT} characters; the JSON report has every finding._",
            hosts.len() - shown
        )?;
    }
    out.write_all(tail.as_bytes())
}

fn markdown_head(report: &GateReport) -> String {
    let mut s = String::new();
    let line = gate_headline(report);
    let (word, rest) = line.split_once(' ').unwrap_or((&line, ""));
    let _ = writeln!(s, "## driftgate: **{word}** {}\n", escape(rest));
    let run = &report.run;
    let _ = writeln!(
        s,
        "Run `{}` in `{}`, started {}, policy `{}`.\n",
        run.id, run.dir, run.started_at, run.policy_digest
    );
    let _ = writeln!(
        s,
        "| Host | Fleet | Verdict | Blocking | Warnings | Info | Allowed | Pre-existing |"
    );
    let _ = writeln!(s, "|---|---|---|---|---|---|---|---|");
    for host in &report.hosts {
        let c = host.report.counts;
        let _ = writeln!(
            s,
            "| {} | {} | **{}** | {} | {} | {} | {} | {} |",
            escape(&host.host),
            escape(&host.fleet),
            host.verdict.as_upper(),
            c.block,
            c.warn,
            c.info,
            host.report.allowed.len(),
            pre_existing(&host.report).len()
        );
    }
    s
}

fn markdown_host(host: &HostOutcome, step: Step, with_findings: bool) -> String {
    let report = &host.report;
    let mut s = String::new();
    let line = headline(report);
    let (word, rest) = line.split_once(' ').unwrap_or((&line, ""));
    let _ = writeln!(s, "\n### **{word}** {}\n", escape(rest));
    if let Some(pre) = &report.pre {
        let _ = writeln!(s, "- Pre: `{}` (`{}`)", pre.origin, pre.digest);
    }
    let _ = writeln!(s, "- Captured: `{}`", host.snapshot_file);
    for note in &host.notes {
        let _ = writeln!(s, "- Note: {}", escape(note));
    }
    for source in &report.incomplete_sources {
        let error = source
            .error
            .as_deref()
            .map(|e| format!(": {}", escape(e)))
            .unwrap_or_default();
        let _ = writeln!(
            s,
            "- **Incomplete** {} source `{}` (`{}`) is {}{error}",
            role_word(source.role),
            source.name,
            source.target,
            source.status.as_str()
        );
    }
    let mut seen = Seen::new(step);
    for story in &host.stories {
        let _ = writeln!(
            s,
            "\n#### {} — {}\n\n**{}**\n",
            escape(&story.label),
            story.severity.as_str(),
            escape(&story.headline)
        );
        if with_findings {
            for line in story_lines(report, story) {
                markdown_finding(&mut s, line.first, &line.paths(), &mut seen);
            }
        } else {
            let _ = writeln!(
                s,
                "- {} findings (summarized to keep this report short; see the JSON report)",
                story.findings.len()
            );
        }
    }
    let pre_existing = pre_existing(report);
    if !pre_existing.is_empty() {
        let _ = writeln!(s, "\n#### Pre-existing drift ({})\n", pre_existing.len());
        for finding in pre_existing {
            markdown_finding(&mut s, finding, finding.path.as_str(), &mut seen);
        }
    }
    if !report.allowed.is_empty() {
        let _ = writeln!(s, "\n#### Allowed ({})\n", report.allowed.len());
        for (allowance, findings) in by_allowance(&report.allowed) {
            let _ = writeln!(s, "- {}", escape(&allowed_by(allowance)));
            for f in findings {
                let _ = writeln!(
                    s,
                    "  - `{}` [`{}`]: {}",
                    f.path,
                    f.id,
                    escape(&markdown_detail(f))
                );
            }
        }
    }
    let firmware = firmware_groups(report);
    if !firmware.is_empty() {
        let title = firmware_title(step, report.firmware_changes.len());
        let _ = writeln!(s, "\n#### {}\n", capitalized(&title));
        for (change, paths) in firmware {
            let paths: Vec<String> = paths.iter().map(|p| format!("`{p}`")).collect();
            let _ = writeln!(s, "- {}: {}", escape(&change), paths.join(", "));
        }
    }
    s
}

/// A finding (standing for the findings at `paths`) as a list item.
fn markdown_finding<'r>(s: &mut String, finding: &'r Finding, paths: &str, seen: &mut Seen<'r>) {
    let _ = writeln!(
        s,
        "- `{}` [`{}`]: {}",
        paths.replace(", ", "`, `"),
        finding.id,
        escape(&markdown_detail(finding))
    );
    if let Some(firmware) = seen.firmware(finding) {
        let _ = writeln!(s, "  - {}", escape(&firmware));
    }
    if let Some(why) = seen.why(finding) {
        let _ = writeln!(s, "  - Why: {}", escape(why));
    }
}

fn markdown_detail(finding: &Finding) -> String {
    if is_multiline_change(finding) {
        // A list item has no room for a diff; the JSON report keeps both values.
        return "changed (a multi-line value: the JSON report has both)".to_owned();
    }
    detail(finding)
}

fn markdown_tail(report: &GateReport) -> String {
    let mut s = String::new();
    // An expired allowance is among the warnings already (the gate says it there).
    if !report.warnings.is_empty() {
        let _ = writeln!(s, "\n### Warnings\n");
        for warning in &report.warnings {
            let _ = writeln!(s, "- {}", escape(warning));
        }
    }
    if let Some(promotion) = &report.promotion {
        let _ = writeln!(
            s,
            "\n### Promotion\n\n{}",
            escape(&capitalized(&promotion_line(promotion)))
        );
        if let PromotionOutcome::Promoted(p) = promotion {
            let _ = writeln!(s);
            for file in &p.files {
                let _ = writeln!(s, "- `{file}`");
            }
        }
    }
    s
}

fn capitalized(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map_or_else(String::new, |first| {
        first.to_uppercase().chain(chars).collect()
    })
}
