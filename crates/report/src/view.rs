//! The hosts of any document in one shape, for the formats that report per host the same way
//! whatever command judged them (JUnit, SARIF, Prometheus, HTML).

use std::borrow::Cow;
use std::fmt;
use std::io;

use jiff::Timestamp;

use crate::document::Step;
use crate::document::{FleetFinding, FleetReport, GateReport, HostCounts, HostReport};
use driftgate_compare::{Report, Story, Verdict};

use crate::format::Document;

/// Which command's result a [`View`] shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ViewKind {
    /// `check --snapshot` or `diff`: one host.
    Check,
    /// `gate pre` or `gate post`.
    Gate(Step),
    /// `check --all` or `report merge`.
    Fleet,
}

impl ViewKind {
    /// The command's name as a word of a report (`check`, `gate-pre`, `gate-post`, `fleet`):
    /// SARIF's run `kind`, Prometheus's `report` label, the HTML page's header.
    pub fn name(self) -> &'static str {
        match self {
            ViewKind::Check => "check",
            ViewKind::Gate(Step::Pre) => "gate-pre",
            ViewKind::Gate(Step::Post) => "gate-post",
            ViewKind::Fleet => "fleet",
        }
    }
}

/// A time of the document that is not RFC 3339: the view has `None` in its place, and this
/// says why (every document the tool writes has RFC 3339 times; a file edited by hand may not).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnreadableTime<'a> {
    /// The host it belongs to; `None` for the run's own times.
    pub host: Option<&'a str>,
    /// Which time: `started_at`, `finished_at`, `captured_at`, `last_success_at`.
    pub field: &'static str,
    /// The text as the document has it.
    pub text: &'a str,
    /// Why it does not parse.
    pub error: String,
}

impl fmt::Display for UnreadableTime<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(host) = self.host {
            write!(f, "{host}: ")?;
        }
        write!(
            f,
            "{} {:?} is not an RFC 3339 time ({}); treated as unknown",
            self.field, self.text, self.error
        )
    }
}

/// A document's hosts, sorted by name, with what the run as a whole says.
#[derive(Debug, Clone)]
pub struct View<'a> {
    /// The command behind it.
    pub kind: ViewKind,
    /// A title for humans: `driftgate check azl-node01`, `driftgate gate post (run R)`,
    /// `driftgate fleet check`.
    pub title: String,
    /// The worst verdict: the exit code's.
    pub verdict: Verdict,
    /// Warnings were made to block.
    pub strict: bool,
    /// When the run started: the fleet's start, the gate run's, else the capture's; `None`
    /// when the document's time does not parse (see [`View::unreadable_times`]).
    pub started_at: Option<Timestamp>,
    /// When the run finished, when the document says (and its time parses).
    pub finished_at: Option<Timestamp>,
    /// The gate run's id, or the fleet's shards (`1/3, 2/3`), when there is one.
    pub run: Option<String>,
    /// Hosts by verdict.
    pub counts: HostCounts,
    /// Every host.
    pub hosts: Vec<HostView<'a>>,
    /// What no single host's baseline shows (a fleet's cluster, stale and missing findings).
    pub fleet_findings: &'a [FleetFinding],
    /// The document's times that did not parse (run's first, then by host), each `None` in
    /// the view: a report states them rather than show a wrong time.
    pub unreadable_times: Vec<UnreadableTime<'a>>,
}

/// One host of a [`View`].
#[derive(Debug, Clone)]
pub struct HostView<'a> {
    /// The host.
    pub host: &'a str,
    /// Its fleet, when the document knows it (a gate or fleet run; not a single check).
    pub fleet: Option<&'a str>,
    /// Its cluster, if any.
    pub cluster: Option<&'a str>,
    /// Its verdict (in a fleet: raised by the fleet findings that name it).
    pub verdict: Verdict,
    /// Its own judgement: read with [`HostView::report`].
    report: Judgement<'a>,
    /// How many of its sources did not capture completely.
    pub incomplete_sources: usize,
    /// Why it could not be read completely, when it could not.
    pub failure: Option<String>,
    /// How long its capture took, when it was captured by this run.
    pub capture_ms: Option<u64>,
    /// When its snapshot was captured; `None` when the snapshot's time does not parse.
    pub captured_at: Option<Timestamp>,
    /// When it was last read completely: this run's capture unless it is INCOMPLETE, else
    /// what the fleet's state file remembers; `None` when nothing knows one, or when the
    /// document's time does not parse (then [`View::unreadable_times`] names it, and a
    /// Prometheus textfile keeps the time of the file it replaces).
    pub last_success_at: Option<Timestamp>,
    /// The stories of a check or a gate (one per port, root cause first); empty in a fleet.
    pub stories: &'a [Story],
}

/// Where a host's report is: in the document, or in a fleet run's spool.
#[derive(Debug, Clone, Copy)]
enum Judgement<'a> {
    Report(&'a Report),
    Kept(&'a HostReport),
}

impl<'a> View<'a> {
    /// The view of `document`; its RFC 3339 times are parsed here, once.
    pub fn of(document: Document<'a>) -> View<'a> {
        let mut times = Times::default();
        let mut view = match document {
            Document::Check(report, stories) => View::of_check(report, stories, &mut times),
            Document::Gate(gate) => View::of_gate(gate, &mut times),
            Document::Fleet(fleet) => View::of_fleet(fleet, &mut times),
        };
        view.hosts.sort_by(|a, b| a.host.cmp(b.host));
        if view.kind != ViewKind::Fleet {
            view.counts = count(&view.hosts);
        }
        view.unreadable_times = times.unreadable;
        view.unreadable_times.sort_by(|a, b| a.host.cmp(&b.host));
        view
    }

    /// A check's view: its one host.
    fn of_check(report: &'a Report, stories: &'a [Story], times: &mut Times<'a>) -> View<'a> {
        View {
            kind: ViewKind::Check,
            title: format!("driftgate check {}", report.snapshot.host),
            verdict: report.verdict,
            strict: report.strict,
            // The capture's time, noted once if unreadable (by `captured`).
            started_at: report.snapshot.captured_at.parse().ok(),
            finished_at: None,
            run: None,
            counts: HostCounts::default(),
            hosts: vec![HostView {
                host: &report.snapshot.host,
                fleet: None,
                cluster: None,
                verdict: report.verdict,
                report: Judgement::Report(report),
                incomplete_sources: report.incomplete_sources.len(),
                failure: failure_of(report),
                capture_ms: None,
                captured_at: times.captured(report),
                last_success_at: times.success(report),
                stories,
            }],
            fleet_findings: &[],
            unreadable_times: Vec::new(),
        }
    }

    /// A gate step's view: its hosts, each with its own judgement.
    fn of_gate(gate: &'a GateReport, times: &mut Times<'a>) -> View<'a> {
        View {
            kind: ViewKind::Gate(gate.run.step),
            title: format!(
                "driftgate gate {} (run {})",
                match gate.run.step {
                    Step::Pre => "pre",
                    Step::Post => "post",
                },
                gate.run.id
            ),
            verdict: gate.verdict,
            strict: gate.strict,
            started_at: times.parse(None, "started_at", &gate.run.started_at),
            finished_at: None,
            run: Some(gate.run.id.clone()),
            counts: HostCounts::default(),
            hosts: gate
                .hosts
                .iter()
                .map(|h| HostView {
                    host: &h.host,
                    fleet: Some(&h.fleet),
                    cluster: h.cluster.as_deref(),
                    verdict: h.verdict,
                    report: Judgement::Report(&h.report),
                    incomplete_sources: h.report.incomplete_sources.len(),
                    failure: failure_of(&h.report),
                    capture_ms: Some(h.capture_ms),
                    captured_at: times.captured(&h.report),
                    last_success_at: times.success(&h.report),
                    stories: &h.stories,
                })
                .collect(),
            fleet_findings: &[],
            unreadable_times: Vec::new(),
        }
    }

    /// A fleet run's view: its hosts, their judgements in the run's spool.
    fn of_fleet(fleet: &'a FleetReport, times: &mut Times<'a>) -> View<'a> {
        View {
            kind: ViewKind::Fleet,
            title: "driftgate fleet check".to_owned(),
            verdict: fleet.verdict,
            strict: fleet.strict,
            started_at: times.parse(None, "started_at", &fleet.started_at),
            finished_at: times.parse(None, "finished_at", &fleet.finished_at),
            run: (!fleet.shards.is_empty()).then(|| fleet.shards.join(", ")),
            counts: fleet.counts,
            hosts: fleet
                .hosts
                .iter()
                .map(|h| HostView {
                    host: &h.host,
                    fleet: Some(&h.fleet),
                    cluster: h.cluster.as_deref(),
                    verdict: h.verdict,
                    report: Judgement::Kept(&h.report),
                    incomplete_sources: h.report.incomplete_sources(),
                    failure: h.failure.clone(),
                    capture_ms: Some(h.capture_ms),
                    captured_at: times.parse(Some(&h.host), "captured_at", h.report.captured_at()),
                    last_success_at: h
                        .last_success_at
                        .as_deref()
                        .and_then(|at| times.parse(Some(&h.host), "last_success_at", at)),
                    stories: &[],
                })
                .collect(),
            fleet_findings: &fleet.findings,
            unreadable_times: Vec::new(),
        }
    }
}

impl<'a> HostView<'a> {
    /// Its own judgement: a fleet run's is read back from the run's spool, one host at a
    /// time, so that rendering holds one report rather than the fleet's.
    pub fn report(&self) -> io::Result<Cow<'a, Report>> {
        match self.report {
            Judgement::Report(report) => Ok(Cow::Borrowed(report)),
            Judgement::Kept(kept) => kept.get(),
        }
    }

    /// The host could not be read completely: its verdict is INCOMPLETE, or a source failed
    /// (a fleet's verdict can be raised past INCOMPLETE's reason by its findings, never
    /// lowered: any of the three means the capture proves nothing).
    pub fn incomplete(&self) -> bool {
        self.verdict == Verdict::Incomplete || self.failure.is_some() || self.incomplete_sources > 0
    }
}

/// The number of hosts of `counts` at `verdict`.
pub fn hosts_at(counts: &HostCounts, verdict: Verdict) -> usize {
    let mut counts = *counts;
    *slot(&mut counts, verdict)
}

/// The count of `counts` that `verdict` adds to.
fn slot(counts: &mut HostCounts, verdict: Verdict) -> &mut usize {
    match verdict {
        Verdict::Pass => &mut counts.pass,
        Verdict::Warn => &mut counts.warn,
        Verdict::Block => &mut counts.block,
        Verdict::Incomplete => &mut counts.incomplete,
    }
}

/// Hosts by verdict.
fn count(hosts: &[HostView<'_>]) -> HostCounts {
    let mut counts = HostCounts {
        total: hosts.len(),
        ..HostCounts::default()
    };
    for host in hosts {
        *slot(&mut counts, host.verdict) += 1;
    }
    counts
}

/// The document's times, parsed, and the ones that did not parse.
#[derive(Default)]
struct Times<'a> {
    unreadable: Vec<UnreadableTime<'a>>,
}

impl<'a> Times<'a> {
    /// `text` as a time, or `None` noted as unreadable.
    fn parse(
        &mut self,
        host: Option<&'a str>,
        field: &'static str,
        text: &'a str,
    ) -> Option<Timestamp> {
        text.parse::<Timestamp>()
            .map_err(|error| {
                self.unreadable.push(UnreadableTime {
                    host,
                    field,
                    text,
                    error: error.to_string(),
                });
            })
            .ok()
    }

    /// When `report`'s snapshot was captured.
    fn captured(&mut self, report: &'a Report) -> Option<Timestamp> {
        self.parse(
            Some(&report.snapshot.host),
            "captured_at",
            &report.snapshot.captured_at,
        )
    }

    /// The capture time of a host read completely (an unreadable one is noted once, by
    /// [`Times::captured`]).
    fn success(&mut self, report: &'a Report) -> Option<Timestamp> {
        if report.verdict == Verdict::Incomplete {
            return None;
        }
        report.snapshot.captured_at.parse().ok()
    }
}

/// The sources that were not complete, with their errors, in one line.
fn failure_of(report: &Report) -> Option<String> {
    if report.incomplete_sources.is_empty() {
        return None;
    }
    let parts: Vec<String> = report
        .incomplete_sources
        .iter()
        .map(|s| match &s.error {
            Some(error) => format!("{} ({}): {error}", s.name, s.target),
            None => format!(
                "{} ({}) {}",
                s.name,
                s.target,
                crate::wording::status_phrase(s.status)
            ),
        })
        .collect();
    Some(parts.join("; "))
}

#[cfg(test)]
mod tests;
