//! What a gate step's text and Markdown both say: the run's headline, what a host's report
//! said already, story lines, pre-existing drift, allowed findings by allowance, firmware
//! groups and the promotion.

use std::collections::HashSet;

use crate::document::{GateReport, PromotionOutcome, Step};
use crate::wording::{firmware_line_listed, port_of};
use driftgate_compare::{
    Allowance, AllowedFinding, Finding, FindingKind, Origin, Report, Story, Verdict, change_text,
};

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

/// What a host's report said already: a rule's reason is given with its first finding, a
/// port's firmware with its first attributed finding (once for the update's findings, once
/// for pre-existing drift: they name different firmware, baseline → pre).
pub(super) struct Seen<'r> {
    pub(super) rules: HashSet<&'r str>,
    pub(super) ports: HashSet<(bool, &'r str)>,
    /// Where the host's firmware changes are listed.
    pub(super) listed: &'static str,
}

impl<'r> Seen<'r> {
    pub(super) fn new(step: Step) -> Self {
        Seen {
            rules: HashSet::new(),
            ports: HashSet::new(),
            listed: match step {
                Step::Pre => "listed under firmware below",
                Step::Post => "listed under expected below",
            },
        }
    }

    pub(super) fn why(&mut self, finding: &'r Finding) -> Option<&'r str> {
        (!finding.why.is_empty() && self.rules.insert(finding.id.as_str()))
            .then_some(finding.why.as_str())
    }

    pub(super) fn firmware(&mut self, finding: &'r Finding) -> Option<String> {
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
pub(super) fn detail(finding: &Finding) -> String {
    if is_multiline_change(finding) {
        return "changed (multi-line value):".to_owned();
    }
    match finding.kind {
        FindingKind::Changed if !finding.pending => change_text(finding),
        _ => finding.message.clone(),
    }
}

pub(super) fn is_multiline_change(finding: &Finding) -> bool {
    finding.kind == FindingKind::Changed
        && [&finding.old, &finding.new]
            .into_iter()
            .flatten()
            .any(|v| v.is_multiline())
}

pub(super) fn story_findings<'r>(
    report: &'r Report,
    story: &'r Story,
) -> impl Iterator<Item = &'r Finding> {
    story
        .findings
        .iter()
        .filter_map(|&i| report.findings.get(i))
}

/// One line of a story: a rule's findings with the same detail (`3 → 0` on `num_tcs/current/ets`,
/// `…/max`, `…/pfc`) together, so a port's story reads as what changed, not as one line per
/// fact.
pub(super) struct StoryLine<'r> {
    /// The first of the findings: its rule, detail, firmware and why stand for all.
    pub(super) first: &'r Finding,
    /// Their paths, relative to the story's port (its label names the port).
    pub(super) paths: Vec<&'r str>,
}

impl StoryLine<'_> {
    pub(super) fn paths(&self) -> String {
        self.paths.join(", ")
    }
}

pub(super) fn story_lines<'r>(report: &'r Report, story: &'r Story) -> Vec<StoryLine<'r>> {
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

pub(super) fn pre_existing(report: &Report) -> Vec<&Finding> {
    report
        .findings
        .iter()
        .filter(|f| f.origin == Some(Origin::PreExisting))
        .collect()
}

/// The allowed findings per allowance, in the order the allowances first matched.
pub(super) fn by_allowance(allowed: &[AllowedFinding]) -> Vec<(&Allowance, Vec<&Finding>)> {
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
pub(super) fn firmware_groups(report: &Report) -> Vec<(String, Vec<String>)> {
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

pub(super) fn firmware_title(step: Step, count: usize) -> String {
    let changes = if count == 1 { "change" } else { "changes" };
    match step {
        Step::Post => format!("expected: {count} firmware {changes}"),
        Step::Pre => format!("firmware: {count} {changes} since the baseline"),
    }
}

pub(super) fn promotion_line(promotion: &PromotionOutcome) -> String {
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
