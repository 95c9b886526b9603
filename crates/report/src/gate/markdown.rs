//! A gate report as Markdown for a change ticket: the run's headline, a table of hosts, per
//! host its stories as lists, kept under [`MARKDOWN_LIMIT`].

use std::fmt::Write as _;
use std::io::{self, Write};

use super::parts::{
    Seen, by_allowance, detail, firmware_groups, firmware_title, gate_headline,
    is_multiline_change, pre_existing, promotion_line, story_lines,
};
use crate::document::{GateReport, HostOutcome, PromotionOutcome, Step};
use crate::fleet::cut;
use crate::markdown::{code, escape, fit, fits};
use crate::wording::allowed_by;
use crate::wording::{headline, role_word};
use driftgate_compare::Finding;
use driftgate_compare::Verdict;

pub use crate::markdown::MARKDOWN_LIMIT;

/// Hosts in the table at the head; past it the worst come first and the rest are counted.
const TABLE_HOSTS: usize = 100;
/// Warnings listed at the tail, each cut to [`LINE_CHARS`] characters.
const WARNINGS: usize = 20;
/// Promoted files listed at the tail.
const FILES: usize = 50;
/// A warning's text is cut to this many characters.
const LINE_CHARS: usize = 300;

/// Markdown for a change ticket: the run's headline, a table of hosts, then per host its
/// stories as lists. Kept under [`MARKDOWN_LIMIT`]: the table and the tail's lists are
/// bounded; past the limit stories lose their finding lists, then hosts are left out, worst
/// (incomplete, blocked) kept first, saying so.
pub(super) fn render(report: &GateReport, out: &mut dyn Write) -> io::Result<()> {
    let head = markdown_head(report);
    let tail = markdown_tail(report);
    let full: Vec<String> = report
        .hosts
        .iter()
        .map(|h| markdown_host(h, report.run.step, true))
        .collect();
    let hosts = if fits(&head, &full, &tail) {
        full
    } else {
        worst_first(&report.hosts)
            .into_iter()
            .map(|h| markdown_host(h, report.run.step, false))
            .collect()
    };
    fit(out, &head, &hosts, &tail, |shown| {
        format!(
            "\n_{} more hosts not shown: a Markdown report stays under {MARKDOWN_LIMIT} characters; the JSON report has every finding._\n",
            hosts.len() - shown
        )
    })?;
    Ok(())
}

/// The hosts, incomplete first, then blocked, warned and passed, each by name: what is left
/// out of a long report is what needs the operator least.
fn worst_first(hosts: &[HostOutcome]) -> Vec<&HostOutcome> {
    let rank = |v: Verdict| match v {
        Verdict::Incomplete => 0,
        Verdict::Block => 1,
        Verdict::Warn => 2,
        Verdict::Pass => 3,
    };
    let mut hosts: Vec<&HostOutcome> = hosts.iter().collect();
    hosts.sort_by(|a, b| {
        rank(a.verdict)
            .cmp(&rank(b.verdict))
            .then_with(|| a.host.cmp(&b.host))
    });
    hosts
}

fn markdown_head(report: &GateReport) -> String {
    let mut s = String::new();
    let line = gate_headline(report);
    let (word, rest) = line.split_once(' ').unwrap_or((&line, ""));
    let _ = writeln!(s, "## driftgate: **{word}** {}\n", escape(rest));
    let run = &report.run;
    let _ = writeln!(
        s,
        "Run {} in {}, started {}, policy {}.\n",
        code(&run.id),
        code(&run.dir),
        escape(&run.started_at),
        code(&run.policy_digest)
    );
    let _ = writeln!(
        s,
        "| Host | Fleet | Verdict | Blocking | Warnings | Info | Allowed | Pre-existing |"
    );
    let _ = writeln!(s, "|---|---|---|---|---|---|---|---|");
    // A long table shows the worst hosts: the passing ones are the ones counted.
    let hosts = if report.hosts.len() > TABLE_HOSTS {
        worst_first(&report.hosts)
    } else {
        report.hosts.iter().collect()
    };
    for host in hosts.iter().take(TABLE_HOSTS) {
        let c = host.report.counts;
        let _ = writeln!(
            s,
            "| {} | {} | **{}** | {} | {} | {} | {} | {} |",
            escape(host.host.as_str()),
            escape(&host.fleet),
            host.verdict.as_upper(),
            c.block,
            c.warn,
            c.info,
            host.report.allowed.len(),
            pre_existing(&host.report).len()
        );
    }
    if let Some(left) = hosts.get(TABLE_HOSTS..).filter(|left| !left.is_empty()) {
        let _ = writeln!(
            s,
            "\n_{} more hosts not in this table ({}); the JSON report has every host._",
            left.len(),
            verdict_counts(left)
        );
    }
    s
}

/// `3 BLOCK, 120 PASS`: the hosts by verdict, worst first.
fn verdict_counts(hosts: &[&HostOutcome]) -> String {
    [
        Verdict::Incomplete,
        Verdict::Block,
        Verdict::Warn,
        Verdict::Pass,
    ]
    .into_iter()
    .filter_map(|verdict| {
        let n = hosts.iter().filter(|h| h.verdict == verdict).count();
        (n > 0).then(|| format!("{n} {}", verdict.as_upper()))
    })
    .collect::<Vec<_>>()
    .join(", ")
}

fn markdown_host(host: &HostOutcome, step: Step, with_findings: bool) -> String {
    let report = &host.report;
    let mut s = String::new();
    let line = headline(report);
    let (word, rest) = line.split_once(' ').unwrap_or((&line, ""));
    let _ = writeln!(s, "\n### **{word}** {}\n", escape(rest));
    if let Some(pre) = &report.pre {
        let _ = writeln!(s, "- Pre: {} ({})", code(&pre.origin), code(&pre.digest));
    }
    let _ = writeln!(s, "- Captured: {}", code(&host.snapshot_file));
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
            "- **Incomplete** {} source {} ({}) is {}{error}",
            role_word(source.role),
            code(&source.name),
            code(&source.target),
            source.status.as_str()
        );
    }
    for fix in &host.fixes {
        let _ = writeln!(
            s,
            "- Fix step {} (ticket {}): {} = {}: {}{}",
            code(&fix.step),
            escape(&fix.ticket),
            code(&fix.fact),
            code(&fix.planned),
            super::text::fix_state(fix.state),
            super::text::unanswered(fix)
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
                    "  - {} \\[{}\\]: {}",
                    code(f.path.as_str()),
                    code(&f.id),
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
            let paths: Vec<String> = paths.iter().map(|p| code(p.as_ref())).collect();
            let _ = writeln!(s, "- {}: {}", escape(&change), paths.join(", "));
        }
    }
    s
}

/// A finding (standing for the findings at `paths`) as a list item.
fn markdown_finding<'r>(s: &mut String, finding: &'r Finding, paths: &str, seen: &mut Seen<'r>) {
    let paths: Vec<String> = paths.split(", ").map(code).collect();
    let _ = writeln!(
        s,
        "- {} \\[{}\\]: {}",
        paths.join(", "),
        code(&finding.id),
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
        for warning in report.warnings.iter().take(WARNINGS) {
            let _ = writeln!(s, "- {}", escape(&cut(warning, LINE_CHARS)));
        }
        if let Some(left) = report
            .warnings
            .len()
            .checked_sub(WARNINGS)
            .filter(|n| *n > 0)
        {
            let _ = writeln!(
                s,
                "- _… and {left} more warnings (the JSON report has them all)_"
            );
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
            for file in p.files.iter().take(FILES) {
                let _ = writeln!(s, "- {}", code(file));
            }
            if let Some(left) = p.files.len().checked_sub(FILES).filter(|n| *n > 0) {
                let _ = writeln!(
                    s,
                    "- _… and {left} more files (the JSON report has them all)_"
                );
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
