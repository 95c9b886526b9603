//! A fleet check's report: the one-screen summary (text), the fleet result (JSON, following
//! `driftgate schema fleet-report`) and Markdown for a ticket.
//!
//! Both human formats say the same, from `Summary`: the headline (hosts by verdict, the
//! shards merged), the top findings of the hosts' own reports by rule, the cluster findings,
//! stale and missing baselines and captures, hosts that failed to capture with why, the
//! slowest BMCs, and where the per-host results are. Every list is bounded and the rest
//! counted, so the text fits one screen (at most [`TEXT_LINES`] lines) whatever the number of
//! hosts; Markdown adds a table of the hosts that did not pass (blocked, incomplete, then
//! warned, each with why) and stays under [`MARKDOWN_LIMIT`].

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::{self, Write};
use std::path::Path;

use super::markdown::{MARKDOWN_LIMIT, code, code_cell, escape, fit};
use super::text::{BOLD, DIM, severity_style, verdict_style};
use crate::document::{FleetFinding, FleetReport, HostResult};
use crate::why_column::{WHY_CHARS, why};
use driftgate_compare::{Severity, Verdict};

/// The most lines the text summary takes.
pub const TEXT_LINES: usize = 24;

/// Rules listed under the top findings (text).
const TOP_RULES: usize = 5;
/// Cluster findings listed (text).
const CLUSTER_SHOWN: usize = 3;
/// Hosts that failed to capture listed (text).
const FAILED_SHOWN: usize = 5;
/// Slowest BMCs named.
const SLOWEST: usize = 3;
/// The columns a line of the text summary listing a host or finding fills unless told the
/// terminal's: cut there, its 24 lines fit 24 rows of a terminal 100 columns wide (and a
/// summary piped into a file or a chat reads the same everywhere).
pub const DEFAULT_COLUMNS: usize = 100;
/// Fewer columns than this are not honoured: a line must still name the host and its reason.
const MIN_COLUMNS: usize = 40;
/// Lists of Markdown are longer, still bounded.
const MD_RULES: usize = 15;
const MD_FINDINGS: usize = 50;
const MD_FAILED: usize = 25;
/// A message or reason is cut to this many characters in Markdown.
const MD_CHARS: usize = 300;

/// What both human formats say.
struct Summary<'r> {
    report: &'r FleetReport,
    /// Rule, severity, hosts with a finding of it: most severe first, then most hosts.
    rules: Vec<(String, Severity, usize)>,
    cluster: Vec<&'r FleetFinding>,
    stale: Stale,
    /// Incomplete hosts with why, by name.
    failed: Vec<(&'r str, &'r str)>,
    /// Hosts by capture time, slowest first.
    slowest: Vec<&'r HostResult>,
    /// The output directory, from the snapshot files written.
    results: Option<String>,
}

#[derive(Default)]
struct Stale {
    baselines: usize,
    missing: usize,
    orphans: usize,
    captures: usize,
}

impl Stale {
    fn parts(&self) -> Vec<String> {
        [
            (self.baselines, "stale baseline", "stale baselines"),
            (
                self.missing,
                "host without a baseline",
                "hosts without a baseline",
            ),
            (self.orphans, "baseline of no host", "baselines of no host"),
            (self.captures, "stale capture", "stale captures"),
        ]
        .into_iter()
        .filter(|(n, _, _)| *n > 0)
        .map(|(n, one, many)| format!("{n} {}", if n == 1 { one } else { many }))
        .collect()
    }
}

impl<'r> Summary<'r> {
    fn of(report: &'r FleetReport) -> io::Result<Self> {
        let mut by_rule: BTreeMap<(String, Severity), usize> = BTreeMap::new();
        // A host that could not be read completely shows every fact of its failed sources as
        // gone: those findings say nothing about the rule, its failure says what happened.
        for host in report.hosts.iter().filter(|h| h.failure.is_none()) {
            let judged = host.report.get()?;
            let mut seen: Vec<(&str, Severity)> = judged
                .findings
                .iter()
                .filter(|f| f.severity > Severity::Ignore)
                .map(|f| (f.id.as_str(), f.severity))
                .collect();
            seen.sort();
            seen.dedup();
            for (rule, severity) in seen {
                *by_rule.entry((rule.to_owned(), severity)).or_default() += 1;
            }
        }
        let mut rules: Vec<(String, Severity, usize)> =
            by_rule.into_iter().map(|((r, s), n)| (r, s, n)).collect();
        rules.sort_by(|a, b| b.1.cmp(&a.1).then(b.2.cmp(&a.2)).then(a.0.cmp(&b.0)));
        let mut cluster: Vec<&FleetFinding> = report
            .findings
            .iter()
            .filter(|f| f.rule.starts_with("cluster/"))
            .collect();
        cluster.sort_by_key(|f| std::cmp::Reverse(f.severity));
        let mut stale = Stale::default();
        for f in &report.findings {
            match f.rule.as_str() {
                "fleet/stale-baseline" => stale.baselines += 1,
                "fleet/missing-baseline" => stale.missing += 1,
                "fleet/orphan-baseline" => stale.orphans += 1,
                "fleet/stale-capture" => stale.captures += 1,
                _ => {}
            }
        }
        let failed = report
            .hosts
            .iter()
            .filter(|h| h.verdict == Verdict::Incomplete)
            .map(|h| {
                let why = h.failure.as_deref().unwrap_or("incomplete");
                (h.host.as_str(), why)
            })
            .collect();
        let mut slowest: Vec<&HostResult> =
            report.hosts.iter().filter(|h| h.capture_ms > 0).collect();
        slowest.sort_by(|a, b| b.capture_ms.cmp(&a.capture_ms).then(a.host.cmp(&b.host)));
        slowest.truncate(SLOWEST);
        let results = report.hosts.iter().find_map(|h| {
            let file = Path::new(h.snapshot_file.as_deref()?);
            // `DIR/snapshots/<host>.json` → `DIR/hosts`; a bare relative name tells no DIR.
            let dir = file
                .parent()?
                .parent()
                .filter(|d| !d.as_os_str().is_empty())?;
            Some(dir.join("hosts").display().to_string())
        });
        Ok(Summary {
            report,
            rules,
            cluster,
            stale,
            failed,
            slowest,
            results,
        })
    }

    /// `FLEET BLOCK — 1000 hosts: 950 pass · 20 warn · 18 block · 12 incomplete`.
    fn headline(&self) -> String {
        let c = &self.report.counts;
        let mut line = format!(
            "FLEET {} — {} hosts: {} pass · {} warn · {} block · {} incomplete",
            self.report.verdict.as_upper(),
            c.total,
            c.pass,
            c.warn,
            c.block,
            c.incomplete
        );
        if !self.report.shards.is_empty() {
            // The shards' names are in the JSON report: 64 of them would not fit a line.
            let _ = write!(line, " ({} shards merged)", self.report.shards.len());
        }
        if !self.report.selections.is_empty() {
            let _ = write!(
                line,
                " (selections {} merged)",
                self.report.selections.join(", ")
            );
        }
        if self.report.records_trusted {
            line.push_str(
                " (records trusted as the shards wrote them, not judged again: --no-rejudge)",
            );
        }
        line
    }

    fn run_line(&self) -> String {
        let r = self.report;
        let strict = if r.strict { ", --strict" } else { "" };
        format!(
            "started {}, finished {}{strict}",
            r.started_at, r.finished_at
        )
    }

    fn slowest_line(&self) -> Option<String> {
        let named: Vec<String> = self
            .slowest
            .iter()
            .map(|h| format!("{} {}", h.host, seconds(h.capture_ms)))
            .collect();
        (!named.is_empty()).then(|| named.join(" · "))
    }
}

/// `23.1 s`.
fn seconds(ms: u64) -> String {
    format!("{}.{} s", ms / 1000, (ms % 1000) / 100)
}

/// `text` cut to `max` characters, with `…` when cut.
pub(super) fn cut(text: &str, max: usize) -> String {
    // Control characters are cut as they will be shown.
    let line = crate::visible(text).replace('\n', " ");
    match line.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &line[..i]),
        None => line,
    }
}

/// `… and 12 more`.
fn more(n: usize) -> Option<String> {
    (n > 0).then(|| format!("… and {n} more"))
}

/// The one-screen summary: the headline, hosts by verdict, top findings by rule, cluster and
/// stale findings, hosts that failed to capture with why, the slowest BMCs. At most
/// [`TEXT_LINES`] lines whatever the number of hosts; the rest is counted. A line listing a
/// host or finding is cut at `columns` (the terminal's), [`DEFAULT_COLUMNS`] without it.
pub fn text(report: &FleetReport, columns: Option<usize>, out: &mut dyn Write) -> io::Result<()> {
    let line_chars = columns.unwrap_or(DEFAULT_COLUMNS).max(MIN_COLUMNS);
    let s = Summary::of(report)?;
    let line = s.headline();
    let word = report.verdict.as_upper();
    let style = verdict_style(report.verdict);
    let rest = &line["FLEET ".len() + word.len()..];
    writeln!(out, "{BOLD}FLEET{BOLD:#} {style}{word}{style:#}{rest}")?;
    writeln!(out, "{DIM}  {}{DIM:#}", s.run_line())?;
    if !s.rules.is_empty() {
        writeln!(out, "{BOLD}top findings by rule{BOLD:#}")?;
        let width = s
            .rules
            .iter()
            .take(TOP_RULES)
            .map(|r| r.0.len())
            .max()
            .unwrap_or(0);
        for (rule, severity, hosts) in s.rules.iter().take(TOP_RULES) {
            let style = severity_style(*severity);
            let word = severity.as_str();
            let plural = if *hosts == 1 { "host" } else { "hosts" };
            writeln!(
                out,
                "  {style}{word:<5}{style:#}  {rule:<width$}  {hosts} {plural}"
            )?;
        }
        if let Some(more) = more(s.rules.len().saturating_sub(TOP_RULES)).map(|m| m + " rules") {
            writeln!(out, "  {DIM}{more}{DIM:#}")?;
        }
    }
    if !s.cluster.is_empty() {
        writeln!(out, "{BOLD}cluster findings ({}){BOLD:#}", s.cluster.len())?;
        for f in s.cluster.iter().take(CLUSTER_SHOWN) {
            let style = severity_style(f.severity);
            let word = f.severity.as_str();
            writeln!(
                out,
                "  {style}{word:<5}{style:#}  {}",
                cut(&f.message, line_chars - 10)
            )?;
        }
        if let Some(more) = more(s.cluster.len().saturating_sub(CLUSTER_SHOWN)) {
            writeln!(out, "  {DIM}{}{DIM:#}", more)?;
        }
    }
    let stale = s.stale.parts();
    if !stale.is_empty() {
        let style = severity_style(Severity::Warn);
        writeln!(out, "{style}stale{style:#}  {}", stale.join(" · "))?;
    }
    if !s.failed.is_empty() {
        let style = verdict_style(Verdict::Incomplete);
        writeln!(
            out,
            "{style}failed to capture ({}){style:#}",
            s.failed.len()
        )?;
        for (host, why) in s.failed.iter().take(FAILED_SHOWN) {
            writeln!(out, "  {}", cut(&format!("{host}: {why}"), line_chars - 3))?;
        }
        if let Some(more) = more(s.failed.len().saturating_sub(FAILED_SHOWN)) {
            writeln!(out, "  {DIM}{}{DIM:#}", more)?;
        }
    }
    if let Some(slowest) = s.slowest_line() {
        writeln!(out, "{BOLD}slowest{BOLD:#}  {slowest}")?;
    }
    if let Some(results) = &s.results {
        writeln!(out, "{DIM}per-host results in {results}{DIM:#}")?;
    }
    Ok(())
}

/// The fleet result as pretty JSON.
pub fn json(report: &FleetReport, out: &mut dyn Write) -> io::Result<()> {
    // Each spooled report is copied as the spool holds it, indented for its place.
    crate::document::to_writer_nested(&mut *out, report)?;
    writeln!(out)
}

/// The summary as Markdown, then a table of the hosts that did not pass (blocked, incomplete,
/// then warned, each by name, with why it did not pass), under
/// [`MARKDOWN_LIMIT`] characters: past it the table stops and says how many hosts it left
/// out (the JSON report has them all).
pub fn markdown(report: &FleetReport, out: &mut dyn Write) -> io::Result<()> {
    let s = Summary::of(report)?;
    let mut head = markdown_head(report, &s);
    // Problems first: blocked, incomplete, then warned hosts, each by name (the report's
    // order; the sort is stable).
    let mut failing: Vec<&HostResult> = report
        .hosts
        .iter()
        .filter(|h| h.verdict != Verdict::Pass)
        .collect();
    failing.sort_by_key(|h| match h.verdict {
        Verdict::Block => 0,
        Verdict::Incomplete => 1,
        Verdict::Warn | Verdict::Pass => 2,
    });
    if failing.is_empty() {
        return out.write_all(head.as_bytes());
    }
    let _ = write!(
        head,
        "\n### Hosts not passing ({})\n\n| host | cluster | verdict | block | warn | info | why |\n|---|---|---|---:|---:|---:|---|\n",
        failing.len()
    );
    let rows = failing_rows(report, failing)?;
    fit(out, &head, &rows, "", |shown| {
        format!(
            "\n_{} more hosts not shown: a Markdown report stays under {MARKDOWN_LIMIT} characters; the JSON report has every host._\n",
            rows.len() - shown
        )
    })?;
    Ok(())
}

/// The Markdown above the table of hosts not passing: headline, top rules, cluster, stale
/// and missing findings, hosts that failed to capture, the slowest BMCs.
fn markdown_head(report: &FleetReport, s: &Summary<'_>) -> String {
    let mut head = String::new();
    let _ = writeln!(head, "## {}\n", escape(&s.headline()));
    let _ = writeln!(head, "_{}_", escape(&s.run_line()));
    if !s.rules.is_empty() {
        let _ = writeln!(head, "\n### Top findings by rule\n");
        let _ = writeln!(head, "| rule | severity | hosts |\n|---|---|---:|");
        for (rule, severity, hosts) in s.rules.iter().take(MD_RULES) {
            let _ = writeln!(
                head,
                "| {} | {} | {hosts} |",
                code_cell(rule),
                severity.as_str()
            );
        }
        if let Some(more) = more(s.rules.len().saturating_sub(MD_RULES)).map(|m| m + " rules") {
            let _ = writeln!(head, "\n_{more}_");
        }
    }
    let list = |head: &mut String, title: &str, findings: &[&FleetFinding]| {
        if findings.is_empty() {
            return;
        }
        let _ = writeln!(head, "\n### {title} ({})\n", findings.len());
        for f in findings.iter().take(MD_FINDINGS) {
            let _ = writeln!(
                head,
                "- **{}** {}: {}",
                f.severity.as_str(),
                code(&f.rule),
                escape(&cut(&f.message, MD_CHARS))
            );
        }
        if let Some(more) = more(findings.len().saturating_sub(MD_FINDINGS)) {
            let _ = writeln!(head, "- _{}_", more);
        }
    };
    list(&mut head, "Cluster findings", &s.cluster);
    let stale: Vec<&FleetFinding> = report
        .findings
        .iter()
        .filter(|f| f.rule.starts_with("fleet/"))
        .collect();
    if !stale.is_empty() {
        let _ = writeln!(head, "\n_{}_", s.stale.parts().join(" · "));
    }
    list(&mut head, "Stale and missing", &stale);
    if !s.failed.is_empty() {
        let _ = writeln!(head, "\n### Failed to capture ({})\n", s.failed.len());
        let _ = writeln!(head, "| host | why |\n|---|---|");
        for (host, why) in s.failed.iter().take(MD_FAILED) {
            let _ = writeln!(
                head,
                "| {} | {} |",
                escape(host),
                escape(&cut(why, MD_CHARS))
            );
        }
        if let Some(more) = more(s.failed.len().saturating_sub(MD_FAILED)) {
            let _ = writeln!(head, "\n_{}_", more);
        }
    }
    if let Some(slowest) = s.slowest_line() {
        let _ = writeln!(head, "\n**Slowest BMCs:** {}", escape(&slowest));
    }
    if let Some(results) = &s.results {
        let _ = writeln!(head, "\nPer-host results: {}", code(results));
    }
    head
}

/// A table row for each host of `failing`, with why it did not pass.
fn failing_rows(report: &FleetReport, failing: Vec<&HostResult>) -> io::Result<Vec<String>> {
    let mut rows = Vec::with_capacity(failing.len());
    for h in failing {
        let named: Vec<&FleetFinding> = report
            .findings
            .iter()
            .filter(|f| f.hosts.contains(&h.host))
            .collect();
        // An incomplete host's reason is its failure: its report is not read for it.
        let why = match &h.failure {
            Some(failure) => Some(failure.clone()),
            None => why(h.verdict, None, h.report.get()?.as_ref(), &named),
        };
        rows.push(format!(
            "| {} | {} | {} | {} | {} | {} | {} |\n",
            escape(&h.host),
            escape(h.cluster.as_deref().unwrap_or("")),
            h.verdict.as_upper(),
            h.counts.block,
            h.counts.warn,
            h.counts.info,
            escape(&why.map(|w| cut(&w, WHY_CHARS)).unwrap_or_default())
        ));
    }
    Ok(rows)
}

#[cfg(test)]
mod tests;
