//! A gate step's report ([`GateReport`]) as text, JSON and Markdown: a headline for the run,
//! then per host its verdict line and one story per port (root cause first), then what is
//! not the update's: pre-existing drift, allowed findings, expected firmware changes; then
//! warnings and what `--promote` did. What both human formats say lives here; each format
//! lays it out in its own module.

mod markdown;
mod text;

use std::collections::HashSet;
use std::io::{self, Write};

use super::{allowed_by, firmware_line_listed, port_of};
use crate::document::{GateReport, PromotionOutcome, Step};
use driftgate_compare::{
    Allowance, AllowedFinding, Finding, FindingKind, Origin, Report, Story, Verdict, change_text,
};

pub use markdown::MARKDOWN_LIMIT;

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
    text::render(report, out)
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
    markdown::render(report, out)
}

/// What a host's report said already: a rule's reason is given with its first finding, a
/// port's firmware with its first attributed finding (once for the update's findings, once
/// for pre-existing drift: they name different firmware, baseline → pre).
struct Seen<'r> {
    rules: HashSet<&'r str>,
    ports: HashSet<(bool, &'r str)>,
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
        let pre_existing = finding.origin == Some(Origin::PreExisting);
        let listed = if pre_existing {
            "between the baseline and pre"
        } else {
            self.listed
        };
        let line = firmware_line_listed(finding, listed)?;
        port_of(finding)
            .is_none_or(|port| self.ports.insert((pre_existing, port)))
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

/// One line of a story: a rule's findings with the same detail (`3 → 0` on `num_tcs/current/ets`,
/// `…/max`, `…/pfc`) together, so a port's story reads as what changed, not as one line per
/// fact.
struct StoryLine<'r> {
    /// The first of the findings: its rule, detail, firmware and why stand for all.
    first: &'r Finding,
    /// Their paths, relative to the story's port (its label names the port).
    paths: Vec<&'r str>,
}

impl StoryLine<'_> {
    fn paths(&self) -> String {
        self.paths.join(", ")
    }
}

fn story_lines<'r>(report: &'r Report, story: &'r Story) -> Vec<StoryLine<'r>> {
    let prefix = format!("{}/", story.subject);
    let mut lines: Vec<StoryLine<'r>> = Vec::new();
    for finding in story_findings(report, story) {
        let path = finding.path.as_str();
        let path = path.strip_prefix(prefix.as_str()).unwrap_or(path);
        let same = |line: &&mut StoryLine<'r>| {
            line.first.id == finding.id
                && !is_multiline_change(finding)
                && detail(line.first) == detail(finding)
        };
        match lines.iter_mut().find(same) {
            Some(line) => line.paths.push(path),
            None => lines.push(StoryLine {
                first: finding,
                paths: vec![path],
            }),
        }
    }
    lines
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

/// The report's firmware changes (since the baseline; at a post step between pre and post),
/// one entry per old → new with the facts that say so.
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

#[cfg(test)]
mod tests;
