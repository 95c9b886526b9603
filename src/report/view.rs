//! The hosts of any document in one shape, for the formats that report per host the same way
//! whatever command judged them (JUnit, SARIF, Prometheus, HTML).

use crate::compare::{Report, Story, Verdict};
use crate::fleet::{FleetFinding, HostCounts};
use crate::gate::Step;

use super::Document;

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
    /// When the run started (RFC 3339): the fleet's start, the gate run's, else the capture's.
    pub started_at: &'a str,
    /// When the run finished (RFC 3339), when the document says.
    pub finished_at: Option<&'a str>,
    /// The gate run's id, or the fleet's shards (`1/3, 2/3`), when there is one.
    pub run: Option<String>,
    /// Hosts by verdict.
    pub counts: HostCounts,
    /// Every host.
    pub hosts: Vec<HostView<'a>>,
    /// What no single host's baseline shows (a fleet's cluster, stale and missing findings).
    pub fleet_findings: &'a [FleetFinding],
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
    /// Its own judgement.
    pub report: &'a Report,
    /// Why it could not be read completely, when it could not.
    pub failure: Option<String>,
    /// How long its capture took, when it was captured by this run.
    pub capture_ms: Option<u64>,
    /// When it was last read completely (RFC 3339): this run's capture unless it is
    /// INCOMPLETE, else what the fleet's state file remembers.
    pub last_success_at: Option<&'a str>,
    /// The gate's stories (one per port, root cause first); empty outside a gate.
    pub stories: &'a [Story],
}

impl<'a> View<'a> {
    /// The view of `document`.
    pub fn of(document: Document<'a>) -> View<'a> {
        let mut view = match document {
            Document::Check(report) => View {
                kind: ViewKind::Check,
                title: format!("driftgate check {}", report.snapshot.host),
                verdict: report.verdict,
                strict: report.strict,
                started_at: &report.snapshot.captured_at,
                finished_at: None,
                run: None,
                counts: HostCounts::default(),
                hosts: vec![HostView {
                    host: &report.snapshot.host,
                    fleet: None,
                    cluster: None,
                    verdict: report.verdict,
                    report,
                    failure: failure_of(report),
                    capture_ms: None,
                    last_success_at: success_of(report),
                    stories: &[],
                }],
                fleet_findings: &[],
            },
            Document::Gate(gate) => View {
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
                started_at: &gate.run.started_at,
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
                        report: &h.report,
                        failure: failure_of(&h.report),
                        capture_ms: Some(h.capture_ms),
                        last_success_at: success_of(&h.report),
                        stories: &h.stories,
                    })
                    .collect(),
                fleet_findings: &[],
            },
            Document::Fleet(fleet) => View {
                kind: ViewKind::Fleet,
                title: "driftgate fleet check".to_owned(),
                verdict: fleet.verdict,
                strict: fleet.strict,
                started_at: &fleet.started_at,
                finished_at: Some(&fleet.finished_at),
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
                        report: &h.report,
                        failure: h.failure.clone(),
                        capture_ms: Some(h.capture_ms),
                        last_success_at: h.last_success_at.as_deref(),
                        stories: &[],
                    })
                    .collect(),
                fleet_findings: &fleet.findings,
            },
        };
        view.hosts.sort_by(|a, b| a.host.cmp(b.host));
        if view.kind != ViewKind::Fleet {
            view.counts = count(&view.hosts);
        }
        view
    }
}

/// Hosts by verdict.
fn count(hosts: &[HostView<'_>]) -> HostCounts {
    let mut counts = HostCounts {
        total: hosts.len(),
        ..HostCounts::default()
    };
    for host in hosts {
        match host.verdict {
            Verdict::Pass => counts.pass += 1,
            Verdict::Warn => counts.warn += 1,
            Verdict::Block => counts.block += 1,
            Verdict::Incomplete => counts.incomplete += 1,
        }
    }
    counts
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
                super::status_phrase(s.status)
            ),
        })
        .collect();
    Some(parts.join("; "))
}

/// The capture time of a host read completely.
fn success_of(report: &Report) -> Option<&str> {
    (report.verdict != Verdict::Incomplete).then_some(report.snapshot.captured_at.as_str())
}
