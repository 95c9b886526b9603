//! A gate step's report ([`GateReport`]) as text, JSON and Markdown: a headline for the run,
//! then per host its verdict line and one story per port (root cause first), then what is
//! not the update's: pre-existing drift, allowed findings, expected firmware changes; then
//! warnings and what `--promote` did.

use std::collections::HashSet;
use std::fmt::Write as _;
use std::io::{self, Write};

use super::markdown::escape;
use super::text::{BOLD, DIM, severity_style, short, verdict_style};
use super::{firmware_line_listed, headline, port_of, role_word};
use crate::compare::{
    Allowance, AllowedFinding, Finding, FindingKind, Origin, Report, Severity, Story, Verdict,
    change_text,
};
use crate::gate::{GateReport, HostOutcome, PromotionOutcome, Step};

/// The largest Markdown report: what GitHub accepts in a comment or an issue body. Past it the
/// stories are summarized, then hosts left out.
pub const MARKDOWN_LIMIT: usize = 65_536;

/// `BLOCK gate post run 42 (post 1): 1 of 1 hosts blocked`.
pub fn gate_headline(report: &GateReport) -> String {
    let run = &report.run;
    let step = match run.step {
        Step::Pre => "pre",
        Step::Post => "post",
    };
    let attempt = match (run.step, run.attempt) {
        (Step::Post, Some(n)) => format!(" (post {n})"),
        _ => String::new(),
    };
    let total = report.hosts.len();
    let count = |verdict: Verdict| report.hosts.iter().filter(|h| h.verdict == verdict).count();
    let mut parts = Vec::new();
    for (verdict, word) in [
        (Verdict::Incomplete, "incomplete"),
        (Verdict::Block, "blocked"),
        (Verdict::Warn, "with warnings"),
    ] {
        let n = count(verdict);
        if n > 0 {
            parts.push(format!("{n} of {total} hosts {word}"));
        }
    }
    if parts.is_empty() {
        parts.push(format!("{total} of {total} hosts passed"));
    }
    format!(
        "{} gate {step} run {}{attempt}: {}",
        report.verdict.as_upper(),
        run.id,
        parts.join(", ")
    )
}

/// Text: the run's headline, then per host its verdict line and its stories (ANSI styles, as
/// [`super::text`] writes them).
pub fn text(report: &GateReport, out: &mut dyn Write) -> io::Result<()> {
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
    if !report.expired_allowances.is_empty() || !report.warnings.is_empty() {
        let style = severity_style(Severity::Warn);
        writeln!(out, "\n{style}WARNINGS{style:#}")?;
        for allowance in &report.expired_allowances {
            writeln!(out, "  {}", expired_warning(allowance))?;
        }
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
        for source in &report.incomplete_sources {
            writeln!(
                out,
                "    {} source {} ({}): {}",
                role_word(source.role),
                source.name,
                source.target,
                source.status.as_str()
            )?;
            if let Some(error) = &source.error {
                writeln!(out, "      {error}")?;
            }
        }
        writeln!(
            out,
            "{DIM}    facts these sources did not read show up below as removed{DIM:#}"
        )?;
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
        for finding in story_findings(report, story) {
            text_finding(finding, &mut seen, out)?;
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
            text_finding(finding, &mut seen, out)?;
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

fn text_finding<'r>(
    finding: &'r Finding,
    seen: &mut Seen<'r>,
    out: &mut dyn Write,
) -> io::Result<()> {
    let style = severity_style(finding.severity);
    writeln!(
        out,
        "      {}  [{}]  {style}{}{style:#}",
        finding.path,
        finding.id,
        detail(finding)
    )?;
    if is_multiline_change(finding)
        && let (Some(old), Some(new)) = (&finding.old, &finding.new)
    {
        let mut diff = Vec::new();
        super::text::write_unified_diff(old, new, &mut diff)?;
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

/// What a host's report said already: a rule's reason is given with its first finding, a
/// port's firmware with its first attributed finding.
struct Seen<'r> {
    rules: HashSet<&'r str>,
    ports: HashSet<&'r str>,
    /// Where the host's firmware changes are listed.
    listed: &'static str,
}

impl<'r> Seen<'r> {
    fn new(step: Step) -> Self {
        Seen {
            rules: HashSet::new(),
            ports: HashSet::new(),
            listed: match step {
                Step::Pre => "listed under firmware below",
                Step::Post => "listed under expected below",
            },
        }
    }

    fn why(&mut self, finding: &'r Finding) -> Option<&'r str> {
        (!finding.why.is_empty() && self.rules.insert(finding.id.as_str()))
            .then_some(finding.why.as_str())
    }

    fn firmware(&mut self, finding: &'r Finding) -> Option<String> {
        let line = firmware_line_listed(finding, self.listed)?;
        port_of(finding)
            .is_none_or(|port| self.ports.insert(port))
            .then_some(line)
    }
}

/// `"ieee" → "disabled"` for a live change; the message otherwise (a staged change's says it
/// takes effect at the next reboot).
fn detail(finding: &Finding) -> String {
    if is_multiline_change(finding) {
        return "changed (multi-line value):".to_owned();
    }
    match finding.kind {
        FindingKind::Changed if !finding.pending => change_text(finding),
        _ => finding.message.clone(),
    }
}

fn is_multiline_change(finding: &Finding) -> bool {
    finding.kind == FindingKind::Changed
        && [&finding.old, &finding.new]
            .into_iter()
            .flatten()
            .any(|v| v.is_multiline())
}

fn story_findings<'r>(report: &'r Report, story: &'r Story) -> impl Iterator<Item = &'r Finding> {
    story
        .findings
        .iter()
        .filter_map(|&i| report.findings.get(i))
}

fn pre_existing(report: &Report) -> Vec<&Finding> {
    report
        .findings
        .iter()
        .filter(|f| f.origin == Some(Origin::PreExisting))
        .collect()
}

/// The allowed findings per allowance, in the order the allowances first matched.
fn by_allowance(allowed: &[AllowedFinding]) -> Vec<(&Allowance, Vec<&Finding>)> {
    let mut groups: Vec<(&Allowance, Vec<&Finding>)> = Vec::new();
    for a in allowed {
        match groups
            .iter_mut()
            .find(|(allowance, _)| *allowance == &a.allowance)
        {
            Some((_, findings)) => findings.push(&a.finding),
            None => groups.push((&a.allowance, vec![&a.finding])),
        }
    }
    groups
}

/// `allowed by PATH=VALUE (given at FILE:LINE): reason "…", ticket CHG-1, expires 2026-12-31`.
fn allowed_by(a: &Allowance) -> String {
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
    let rule = match &a.value {
        Some(value) => format!("{}={value}", a.path),
        None => a.path.clone(),
    };
    let detail = if parts.is_empty() {
        String::new()
    } else {
        format!(": {}", parts.join(", "))
    };
    format!("allowed by {rule} (given at {}){detail}", a.given_at)
}

fn expired_warning(a: &Allowance) -> String {
    let expired = a
        .expires
        .map(|day| format!(" expired after {day}"))
        .unwrap_or_default();
    format!(
        "allowance {} (given at {}){expired}: ignored",
        a.path, a.given_at
    )
}

/// Firmware changes since the baseline, one entry per old → new with the facts that say so.
fn firmware_groups(report: &Report) -> Vec<(String, Vec<String>)> {
    let mut groups: Vec<(String, Vec<String>)> = Vec::new();
    for f in &report.firmware_changes {
        let change = change_text(f);
        match groups.iter_mut().find(|(c, _)| *c == change) {
            Some((_, paths)) => paths.push(f.path.to_string()),
            None => groups.push((change, vec![f.path.to_string()])),
        }
    }
    groups
}

fn firmware_title(step: Step, count: usize) -> String {
    let changes = if count == 1 { "change" } else { "changes" };
    match step {
        Step::Post => format!("expected: {count} firmware {changes}"),
        Step::Pre => format!("firmware: {count} {changes} since the baseline"),
    }
}

fn promotion_line(promotion: &PromotionOutcome) -> String {
    match promotion {
        PromotionOutcome::Promoted(p) => {
            let commit = p.commit.as_deref().map_or_else(
                || "no commit: every baseline was already up to date".to_owned(),
                |c| format!("commit {c}"),
            );
            let reference = p
                .reference
                .as_deref()
                .map(|r| format!(" on {r}"))
                .unwrap_or_default();
            let files = match p.files.len() {
                1 => "1 baseline file".to_owned(),
                n => format!("{n} baseline files"),
            };
            format!("promoted: {commit}{reference}, {files}")
        }
        PromotionOutcome::Skipped { reason } => format!("not promoted: {reason}"),
    }
}

/// JSON following `driftgate schema gate-report`.
pub fn json(report: &GateReport, out: &mut dyn Write) -> io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, report)?;
    out.write_all(b"\n")
}

/// Markdown for a change ticket: the run's headline, a table of hosts, then per host its
/// stories as lists. Kept under [`MARKDOWN_LIMIT`]: past it stories lose their finding
/// lists, then hosts are left out, saying so.
pub fn markdown(report: &GateReport, out: &mut dyn Write) -> io::Result<()> {
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
            for finding in story_findings(report, story) {
                markdown_finding(&mut s, finding, &mut seen);
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
            markdown_finding(&mut s, finding, &mut seen);
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

fn markdown_finding<'r>(s: &mut String, finding: &'r Finding, seen: &mut Seen<'r>) {
    let _ = writeln!(
        s,
        "- `{}` [`{}`]: {}",
        finding.path,
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
    if !report.expired_allowances.is_empty() || !report.warnings.is_empty() {
        let _ = writeln!(s, "\n### Warnings\n");
        for allowance in &report.expired_allowances {
            let _ = writeln!(s, "- {}", escape(&expired_warning(allowance)));
        }
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

#[cfg(test)]
mod tests;
