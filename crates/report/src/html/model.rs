//! What the page shows, decided once from the [`View`] and the [`Extras`]: problems first
//! (blocked, incomplete, warned, then passing hosts, each by name), findings by port (most
//! severe port first), timelines newest first. The markup only lays it out.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashSet};

use crate::document::TimelineEntry;
use jiff::Timestamp;

use crate::document::FleetFinding;
use crate::view::{View, hosts_at};
use crate::why_column::why;
use crate::wording::{allowed_by, firmware_line_listed, headline, port_of};
use driftgate_compare::{Counts, Finding, FindingKind, Origin, Report, Severity, Verdict};

/// The verdicts in the order the summary, the filter, the hosts table and the host sections
/// list them: what an operator acts on first.
pub(super) const VERDICTS: [Verdict; 4] = [
    Verdict::Block,
    Verdict::Incomplete,
    Verdict::Warn,
    Verdict::Pass,
];

/// The whole page.
pub(super) struct Page<'a> {
    /// `driftgate fleet check`, …
    pub title: &'a str,
    /// The run's verdict.
    pub verdict: Verdict,
    /// What ran: `fleet`, `gate-post`, `check` ([`crate::ViewKind::name`]).
    pub kind: &'static str,
    /// When it started, if the document's time parses.
    pub started_at: Option<Timestamp>,
    /// When it finished, if known.
    pub finished_at: Option<Timestamp>,
    /// The document's times that did not parse, each said in a line.
    pub unreadable_times: Vec<String>,
    /// The gate run or the fleet's shards.
    pub run: Option<&'a str>,
    /// Warnings were made to block.
    pub strict: bool,
    /// Hosts per verdict, in [`VERDICTS`] order.
    pub counts: [(Verdict, usize); 4],
    /// Every host, problems first (in [`VERDICTS`] order, then by name).
    pub rows: Vec<Row<'a>>,
    /// The hosts with something to show, in the order of `rows`.
    pub sections: Vec<Section<'a>>,
    /// What no single host shows.
    pub fleet_findings: &'a [FleetFinding],
}

/// One row of the hosts table.
pub(super) struct Row<'a> {
    /// The host.
    pub host: &'a str,
    /// The `id` of its section, when it has one.
    pub anchor: Option<String>,
    /// Its fleet (`""` for a single check).
    pub fleet: &'a str,
    /// Its cluster, if any.
    pub cluster: &'a str,
    /// Its verdict.
    pub verdict: Verdict,
    /// Its findings per severity.
    pub counts: Counts,
    /// Why it did not pass, in a few words (see [`crate::why`]); `None` when it passed.
    pub why: Option<String>,
    /// How long its capture took, when this run captured it.
    pub capture_ms: Option<u64>,
    /// When it was last read completely.
    pub last_success_at: Option<Timestamp>,
}

/// One host's section.
pub(super) struct Section<'a> {
    /// `host-<name>` (see [`anchors`]).
    pub anchor: String,
    /// The host.
    pub host: &'a str,
    /// Its verdict.
    pub verdict: Verdict,
    /// The verdict line every format shares (`BLOCK azl-node01: 1 blocking [dcbx-mode] …`).
    pub headline: String,
    /// Fleet and cluster, when known.
    pub placement: Option<String>,
    /// The snapshot's capture time and origin.
    pub captured: String,
    /// Why it could not be read completely.
    pub failure: Option<String>,
    /// Findings by port (a gate's stories), most severe first.
    pub groups: Vec<Group<'a>>,
    /// A gate's drift from before the update.
    pub pre_existing: Vec<Item<'a>>,
    /// Allowed findings by the allowance that matched them.
    pub allowed: Vec<(String, Vec<Item<'a>>)>,
    /// Firmware that changed (`old → new`, facts).
    pub firmware: Vec<(String, Vec<&'a str>)>,
    /// Its drift timeline, newest first.
    pub timeline: &'a [TimelineEntry],
}

/// Findings about one port, or one other subject.
pub(super) struct Group<'a> {
    /// How an operator knows it.
    pub label: String,
    /// The most severe finding's.
    pub severity: Severity,
    /// A gate story's one line.
    pub headline: Option<&'a str>,
    /// Its findings.
    pub items: Vec<Item<'a>>,
}

/// One finding, or a rule's findings with the same detail on several facts of the group
/// (`3 → 0` on `num_tcs/current/ets`, `…/max`, `…/pfc`).
pub(super) struct Item<'a> {
    /// Their severity.
    pub severity: Severity,
    /// The facts, relative to the group's port when it has one.
    pub paths: Vec<&'a str>,
    /// The rule or invariant.
    pub id: &'a str,
    /// `old → new`, or the message.
    pub detail: String,
    /// The firmware named beside it (once per port).
    pub firmware: Option<String>,
    /// Why it matters (once per rule per host).
    pub why: Option<&'a str>,
}

impl<'a> Page<'a> {
    /// The page of `view`, whose hosts' reports are `reports` (in the same order), with the
    /// timelines of `extras`.
    pub(super) fn of(
        view: &'a View<'a>,
        reports: &'a [Cow<'a, Report>],
        extras: &'a crate::format::Extras,
    ) -> Page<'a> {
        let counts = VERDICTS.map(|v| (v, hosts_at(&view.counts, v)));
        let anchors = anchors(view.hosts.iter().map(|h| h.host));
        let mut rows = Vec::with_capacity(view.hosts.len());
        let mut sections = Vec::new();
        for ((host, report), anchor) in view.hosts.iter().zip(reports).zip(anchors) {
            let timeline = extras
                .timelines
                .get(host.host)
                .map_or(&[][..], Vec::as_slice);
            let section = section(host, report, anchor, timeline);
            let anchor = section.as_ref().map(|s| s.anchor.clone());
            sections.extend(section);
            let named: Vec<&FleetFinding> = view
                .fleet_findings
                .iter()
                .filter(|f| f.hosts.iter().any(|h| h == host.host))
                .collect();
            rows.push(Row {
                host: host.host,
                anchor,
                fleet: host.fleet.unwrap_or(""),
                cluster: host.cluster.unwrap_or(""),
                verdict: host.verdict,
                counts: report.counts,
                why: why(host.verdict, host.failure.as_deref(), report, &named),
                capture_ms: host.capture_ms,
                last_success_at: host.last_success_at,
            });
        }
        // Stable: within a verdict the view's order, by name, holds.
        rows.sort_by_key(|r| rank(r.verdict));
        sections.sort_by_key(|s| rank(s.verdict));
        Page {
            title: &view.title,
            verdict: view.verdict,
            kind: view.kind.name(),
            started_at: view.started_at,
            finished_at: view.finished_at,
            unreadable_times: view
                .unreadable_times
                .iter()
                .map(ToString::to_string)
                .collect(),
            run: view.run.as_deref(),
            strict: view.strict,
            counts,
            rows,
            sections,
            fleet_findings: view.fleet_findings,
        }
    }
}

/// Where `verdict` comes in [`VERDICTS`].
fn rank(verdict: Verdict) -> usize {
    VERDICTS
        .iter()
        .position(|v| *v == verdict)
        .expect("VERDICTS has every verdict")
}

/// Each host's section id, in `hosts` order: `host-<name>`, so that a link to a host
/// survives the next night's report. A host name (`HostName`: ASCII letters, digits, `.`,
/// `_`, `-`) is a valid id as it is, and ids are case-sensitive as names are. A name a
/// document holds that is not spelled so (a merged report edited by hand) has every other
/// character written `~XX` (its UTF-8 bytes in hex), and a name seen before gets `~~2`,
/// `~~3`, …: `~` is in no host name and an escape never has two, so no two hosts share an id.
pub(super) fn anchors<'h>(hosts: impl Iterator<Item = &'h str>) -> Vec<String> {
    let mut seen: HashSet<String> = HashSet::new();
    hosts
        .map(|host| {
            let mut id = String::from("host-");
            for c in host.chars() {
                if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                    id.push(c);
                } else {
                    let mut bytes = [0; 4];
                    for b in c.encode_utf8(&mut bytes).bytes() {
                        id.push_str(&format!("~{b:02X}"));
                    }
                }
            }
            let mut unique = id.clone();
            let mut n = 1;
            while !seen.insert(unique.clone()) {
                n += 1;
                unique = format!("{id}~~{n}");
            }
            unique
        })
        .collect()
}

/// A host's section, when it has anything beyond its row to show.
fn section<'a>(
    host: &crate::view::HostView<'a>,
    report: &'a Report,
    anchor: String,
    timeline: &'a [TimelineEntry],
) -> Option<Section<'a>> {
    let mut seen = Seen::default();
    let groups = if host.stories.is_empty() {
        port_groups(&report.findings, &mut seen)
    } else {
        host.stories
            .iter()
            .map(|story| Group {
                label: story.label.clone(),
                severity: story.severity,
                headline: Some(&story.headline),
                items: items(
                    story
                        .findings
                        .iter()
                        .filter_map(|&i| report.findings.get(i)),
                    Some(&story.subject),
                    &mut seen,
                ),
            })
            .collect()
    };
    let pre_existing: Vec<Item<'a>> = if host.stories.is_empty() {
        Vec::new()
    } else {
        let drift = report
            .findings
            .iter()
            .filter(|f| f.origin == Some(Origin::PreExisting));
        items(drift, None, &mut seen)
    };
    let mut allowed: Vec<(String, Vec<&'a Finding>)> = Vec::new();
    for a in &report.allowed {
        let by = allowed_by(&a.allowance);
        match allowed.iter_mut().find(|(b, _)| *b == by) {
            Some((_, found)) => found.push(&a.finding),
            None => allowed.push((by, vec![&a.finding])),
        }
    }
    let allowed: Vec<(String, Vec<Item<'a>>)> = allowed
        .into_iter()
        .map(|(by, found)| (by, items(found.into_iter(), None, &mut seen)))
        .collect();
    let mut firmware: Vec<(String, Vec<&'a str>)> = Vec::new();
    for f in &report.firmware_changes {
        let change = driftgate_compare::change_text(f);
        match firmware.iter_mut().find(|(c, _)| *c == change) {
            Some((_, paths)) => paths.push(f.path.as_str()),
            None => firmware.push((change, vec![f.path.as_str()])),
        }
    }
    let empty = groups.is_empty()
        && pre_existing.is_empty()
        && allowed.is_empty()
        && firmware.is_empty()
        && timeline.is_empty()
        && host.failure.is_none();
    if empty {
        return None;
    }
    let placement = match (host.fleet, host.cluster) {
        (Some(fleet), Some(cluster)) => Some(format!("fleet {fleet}, cluster {cluster}")),
        (Some(fleet), None) => Some(format!("fleet {fleet}")),
        (None, Some(cluster)) => Some(format!("cluster {cluster}")),
        (None, None) => None,
    };
    Some(Section {
        anchor,
        host: host.host,
        verdict: host.verdict,
        headline: headline(report),
        placement,
        captured: format!(
            "captured {} ({})",
            report.snapshot.captured_at, report.snapshot.origin
        ),
        failure: host.failure.clone(),
        groups,
        pre_existing,
        allowed,
        firmware,
        timeline,
    })
}

/// Outside a gate: one group per port (`nic/<key>`), the rest under "host-wide", most
/// severe first, then by port.
fn port_groups<'a>(findings: &'a [Finding], seen: &mut Seen<'a>) -> Vec<Group<'a>> {
    let mut by_port: BTreeMap<Option<&str>, Vec<&'a Finding>> = BTreeMap::new();
    for f in findings {
        by_port.entry(port_of(f)).or_default().push(f);
    }
    let mut groups: Vec<Group<'a>> = by_port
        .into_iter()
        .map(|(port, findings)| Group {
            label: port.map_or_else(|| "host-wide".to_owned(), |p| format!("port {p}")),
            severity: findings
                .iter()
                .map(|f| f.severity)
                .max()
                .unwrap_or(Severity::Info),
            headline: None,
            items: items(findings.into_iter(), port, seen),
        })
        .collect();
    // Stable: equal severities keep the port order.
    groups.sort_by_key(|g| std::cmp::Reverse(g.severity));
    groups
}

/// What a section said already: a rule's reason is given with its first finding, a port's
/// firmware with its first finding (once for the update's findings, once for drift from
/// before it: they name different firmware).
#[derive(Default)]
struct Seen<'a> {
    rules: HashSet<&'a str>,
    ports: HashSet<(bool, &'a str)>,
}

/// `findings` as items, those of a rule with the same detail together; paths relative to
/// `subject` (a port, `nic/<key>`) when under it.
fn items<'a>(
    findings: impl Iterator<Item = &'a Finding>,
    subject: Option<&str>,
    seen: &mut Seen<'a>,
) -> Vec<Item<'a>> {
    let mut items: Vec<Item<'a>> = Vec::new();
    for f in findings {
        let path = f.path.as_str();
        let path = subject
            .and_then(|s| path.strip_prefix(s))
            .and_then(|p| p.strip_prefix('/'))
            .unwrap_or(path);
        let detail = detail(f);
        if let Some(item) = items
            .iter_mut()
            .find(|i| i.id == f.id && i.detail == detail)
        {
            item.paths.push(path);
            continue;
        }
        let pre_existing = f.origin == Some(Origin::PreExisting);
        let firmware = firmware_line_listed(f, "listed under firmware changes")
            .filter(|_| port_of(f).is_none_or(|port| seen.ports.insert((pre_existing, port))));
        items.push(Item {
            severity: f.severity,
            paths: vec![path],
            id: &f.id,
            detail,
            firmware,
            why: (!f.why.is_empty() && seen.rules.insert(&f.id)).then_some(f.why.as_str()),
        });
    }
    items
}

/// `"ieee" → "disabled"` for a live change; the message otherwise (a staged change's says it
/// takes effect at the next reboot).
fn detail(f: &Finding) -> String {
    match f.kind {
        FindingKind::Changed if f.pending => f.message.clone(),
        _ => driftgate_compare::change_text(f),
    }
}
