//! The Prometheus text exposition format (0.0.4) for node_exporter's textfile collector: each
//! host's verdict, findings by severity and rule, last complete read, capture duration and
//! incomplete sources; hosts by verdict, fleet findings, and when the run ran, so that an alert
//! sees a job that stopped. No sample carries a timestamp (the collector refuses them). Every
//! series has a `report` label naming the command that wrote the file (`fleet`, `gate-pre`,
//! `gate-post`, `check`): node_exporter merges every textfile of its directory, and a nightly
//! fleet file and a gate's on one node must not have the same series.
//!
//! The model (`Textfile`) is built from the [`View`] and then written through the
//! `prometheus` crate's registry and `TextEncoder`, which sorts families by name and samples by
//! their label values and escapes label values and help texts. A host this run could not read
//! keeps the last success time the file being replaced had for it ([`textfile`]): the file is
//! never reset to "unknown" by a night the BMCs were down.

pub mod textfile;

use std::collections::BTreeMap;
use std::io::{self, Write};

use prometheus::core::Collector;
use prometheus::{Encoder as _, GaugeVec, IntGaugeVec, Opts, Registry, TextEncoder};

use crate::document::FleetFinding;
use crate::format::Extras;
use crate::view::{HostView, View, hosts_at};
use driftgate_compare::{Severity, Verdict};

/// Every verdict, in the order a host's `driftgate_verdict` samples are built.
const VERDICTS: [Verdict; 4] = [
    Verdict::Pass,
    Verdict::Warn,
    Verdict::Block,
    Verdict::Incomplete,
];

/// The labels that name a host: a single `check` has no fleet or cluster (`""`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct HostLabels {
    /// `host`.
    pub host: String,
    /// `fleet`, `""` when the document has none.
    pub fleet: String,
    /// `cluster`, `""` when the host is in none.
    pub cluster: String,
}

/// What the textfile says of one host.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct HostMetrics {
    /// Its labels.
    pub labels: HostLabels,
    /// Its verdict (`driftgate_verdict` is 1 for it, 0 for the three others).
    pub verdict: Verdict,
    /// Findings per (severity, rule): its own judgement's and the fleet findings naming it.
    pub findings: BTreeMap<(Severity, String), u64>,
    /// Its last complete read, Unix seconds: this run's, the fleet state's, else the file
    /// being replaced; `None` (no sample) when none of them knows one.
    pub last_success: Option<f64>,
    /// How long this run's capture took, when this run captured it.
    pub capture_seconds: Option<f64>,
    /// Its sources that did not capture completely.
    pub sources_incomplete: u64,
}

impl HostMetrics {
    /// The metrics of `host`, with the fleet findings that name it and the last success time
    /// the file being replaced had for it.
    fn of(
        host: &HostView<'_>,
        fleet: &[&FleetFinding],
        earlier: Option<f64>,
    ) -> io::Result<HostMetrics> {
        let mut findings: BTreeMap<(Severity, String), u64> = BTreeMap::new();
        for f in &host.report()?.findings {
            *findings
                .entry((f.severity, label_value(&f.id)))
                .or_default() += 1;
        }
        for f in fleet {
            *findings
                .entry((f.severity, label_value(&f.rule)))
                .or_default() += 1;
        }
        Ok(HostMetrics {
            labels: HostLabels {
                host: label_value(host.host),
                fleet: label_value(host.fleet.unwrap_or_default()),
                cluster: label_value(host.cluster.unwrap_or_default()),
            },
            verdict: host.verdict,
            findings,
            last_success: host.last_success_at.map(seconds).or(earlier),
            capture_seconds: host.capture_ms.map(|ms| ms as f64 / 1000.0),
            sources_incomplete: host.incomplete_sources as u64,
        })
    }
}

/// The whole textfile, before it is written.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Textfile {
    /// The `report` label of every series: which command wrote the file
    /// ([`crate::ViewKind::name`]), so that a nightly fleet file and a gate's on one
    /// node never have the same series.
    pub report: &'static str,
    /// Every host, by name.
    pub hosts: Vec<HostMetrics>,
    /// Hosts per verdict, all four verdicts.
    pub verdicts: [(Verdict, u64); 4],
    /// Fleet findings per (rule, severity).
    pub fleet_findings: BTreeMap<(String, Severity), u64>,
    /// When the run finished (a check or gate step records no end: when it started), Unix
    /// seconds; `None` when the document's time does not parse (the view names it).
    pub run_timestamp: Option<f64>,
}

impl Textfile {
    /// The textfile of `view`; `previous` is the file it replaces, if any.
    pub(crate) fn of(view: &View<'_>, previous: Option<&str>) -> io::Result<Textfile> {
        let earlier = previous
            .map(textfile::last_success_times)
            .unwrap_or_default();
        // The fleet findings naming each host, looked up once per host.
        let mut naming: BTreeMap<&str, Vec<&FleetFinding>> = BTreeMap::new();
        for f in view.fleet_findings {
            for host in &f.hosts {
                naming.entry(host).or_default().push(f);
            }
        }
        let hosts = view
            .hosts
            .iter()
            .map(|h| {
                let fleet = naming.get(h.host).map_or(&[][..], Vec::as_slice);
                HostMetrics::of(h, fleet, earlier.get(h.host).copied())
            })
            .collect::<io::Result<_>>()?;
        let mut fleet_findings: BTreeMap<(String, Severity), u64> = BTreeMap::new();
        for f in view.fleet_findings {
            *fleet_findings
                .entry((label_value(&f.rule), f.severity))
                .or_default() += 1;
        }
        Ok(Textfile {
            hosts,
            report: view.kind.name(),
            verdicts: VERDICTS.map(|v| (v, hosts_at(&view.counts, v) as u64)),
            fleet_findings,
            run_timestamp: view.finished_at.or(view.started_at).map(seconds),
        })
    }

    /// The registry holding every sample of the file.
    pub(crate) fn registry(&self) -> prometheus::Result<Registry> {
        let registry = Registry::new();
        let per_host = HostGauges::new()?;
        let hosts = int_gauges(
            "driftgate_hosts",
            "Hosts of the run by verdict.",
            &["report", "verdict"],
        )?;
        let fleet_findings = int_gauges(
            "driftgate_fleet_findings",
            "Fleet findings (cluster disagreement, stale or missing baselines and captures) by rule and severity.",
            &["report", "rule", "severity"],
        )?;
        let run = gauges(
            "driftgate_run_timestamp_seconds",
            "When the run that wrote this file finished (a check or gate step records no end: when it started), Unix seconds.",
            &["report"],
        )?;
        let report = self.report;
        per_host.set(report, &self.hosts)?;
        for (v, n) in self.verdicts {
            hosts
                .get_metric_with_label_values(&[report, label(v)])?
                .set(count(n));
        }
        for ((rule, severity), n) in &self.fleet_findings {
            fleet_findings
                .get_metric_with_label_values(&[report, rule.as_str(), severity.as_str()])?
                .set(count(*n));
        }
        if let Some(at) = self.run_timestamp {
            run.get_metric_with_label_values(&[report])?.set(at);
        }
        let collectors: [Box<dyn Collector>; 8] = [
            Box::new(per_host.verdict),
            Box::new(per_host.findings),
            Box::new(per_host.last_success),
            Box::new(per_host.duration),
            Box::new(per_host.incomplete),
            Box::new(hosts),
            Box::new(fleet_findings),
            Box::new(run),
        ];
        for collector in collectors {
            registry.register(collector)?;
        }
        Ok(registry)
    }
}

/// The gauges with samples per host: its verdict, findings, last success, capture time and
/// incomplete sources.
struct HostGauges {
    verdict: IntGaugeVec,
    findings: IntGaugeVec,
    last_success: GaugeVec,
    duration: GaugeVec,
    incomplete: IntGaugeVec,
}

impl HostGauges {
    fn new() -> prometheus::Result<HostGauges> {
        const HOST: [&str; 4] = ["report", "host", "fleet", "cluster"];
        let verdict = int_gauges(
            "driftgate_verdict",
            "The host's verdict: 1 for the verdict it got, 0 for the three others.",
            &["report", "host", "fleet", "cluster", "verdict"],
        )?;
        let findings = int_gauges(
            "driftgate_findings",
            "Findings of the host by severity and rule id (its own judgement's, without the facts a partial capture lost, and the fleet findings naming it).",
            &["report", "host", "fleet", "cluster", "severity", "rule"],
        )?;
        let last_success = gauges(
            "driftgate_last_success_timestamp_seconds",
            "When the host was last read completely, Unix seconds; kept from earlier runs while it cannot be read.",
            &HOST,
        )?;
        let duration = gauges(
            "driftgate_capture_duration_seconds",
            "How long the host's capture took in this run.",
            &HOST,
        )?;
        let incomplete = int_gauges(
            "driftgate_sources_incomplete",
            "Sources of the host that did not capture completely in this run (any makes it INCOMPLETE).",
            &HOST,
        )?;
        Ok(HostGauges {
            verdict,
            findings,
            last_success,
            duration,
            incomplete,
        })
    }

    /// Sets the samples of `hosts` in the file of `report`.
    fn set(&self, report: &str, hosts: &[HostMetrics]) -> prometheus::Result<()> {
        for h in hosts {
            let l = &h.labels;
            let host = [
                report,
                l.host.as_str(),
                l.fleet.as_str(),
                l.cluster.as_str(),
            ];
            let [_, name, fleet, cluster] = host;
            for v in VERDICTS {
                self.verdict
                    .get_metric_with_label_values(&[report, name, fleet, cluster, label(v)])?
                    .set(i64::from(v == h.verdict));
            }
            for ((severity, rule), n) in &h.findings {
                self.findings
                    .get_metric_with_label_values(&[
                        report,
                        name,
                        fleet,
                        cluster,
                        severity.as_str(),
                        rule,
                    ])?
                    .set(count(*n));
            }
            if let Some(at) = h.last_success {
                self.last_success
                    .get_metric_with_label_values(&host)?
                    .set(at);
            }
            if let Some(took) = h.capture_seconds {
                self.duration.get_metric_with_label_values(&host)?.set(took);
            }
            self.incomplete
                .get_metric_with_label_values(&host)?
                .set(count(h.sources_incomplete));
        }
        Ok(())
    }
}

/// Writes `view` as a textfile; a host this run could not read keeps the last success time of
/// `extras.previous_textfile`.
pub fn render(view: &View<'_>, extras: &Extras, mut out: &mut dyn Write) -> io::Result<()> {
    let textfile = Textfile::of(view, extras.previous_textfile.as_deref())?;
    let registry = textfile.registry().map_err(into_io)?;
    TextEncoder::new()
        .encode(&registry.gather(), &mut out)
        .map_err(into_io)
}

/// A label value as read: control characters shown ([`crate::visible`]) before the
/// encoder escapes `\\`, `"` and line feeds, so that `\\u{1b}` reads back as `\u{1b}`.
fn label_value(text: &str) -> String {
    crate::visible(text).into_owned()
}

/// A verdict as a label value: lower case (`block`).
fn label(verdict: Verdict) -> &'static str {
    match verdict {
        Verdict::Pass => "pass",
        Verdict::Warn => "warn",
        Verdict::Block => "block",
        Verdict::Incomplete => "incomplete",
    }
}

/// A time as Unix seconds (to the millisecond).
fn seconds(at: jiff::Timestamp) -> f64 {
    at.as_millisecond() as f64 / 1000.0
}

/// A count as a gauge value (no count of a run reaches `i64::MAX`).
fn count(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

fn gauges(name: &str, help: &str, labels: &[&str]) -> prometheus::Result<GaugeVec> {
    GaugeVec::new(Opts::new(name, help), labels)
}

fn int_gauges(name: &str, help: &str, labels: &[&str]) -> prometheus::Result<IntGaugeVec> {
    IntGaugeVec::new(Opts::new(name, help), labels)
}

/// The encoder's and the registry's errors as the writer's.
fn into_io(error: prometheus::Error) -> io::Error {
    match error {
        prometheus::Error::Io(error) => error,
        other => io::Error::other(other),
    }
}

#[cfg(test)]
mod tests;
