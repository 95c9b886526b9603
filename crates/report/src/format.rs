//! What a command asks to render: the document, its format, and what some formats need
//! beyond it.

use std::collections::BTreeMap;

use crate::document::{BaselineLines, FleetReport, GateReport, TimelineEntry};
use driftgate_compare::{Report, Story};

/// A report format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Format {
    /// A verdict line, then findings grouped by severity (ANSI styles; see the module docs).
    Text,
    /// JSON following `driftgate schema report` (`gate-report`, `fleet-report`).
    Json,
    /// Markdown for a change ticket or a pull-request comment, under 65,536 characters.
    Markdown,
    /// JUnit XML: a test suite per host, a test case per rule (Jenkins, GitLab, Azure DevOps).
    Junit,
    /// SARIF 2.1.0: a result per finding, located at the fact's line of the baseline file.
    Sarif,
    /// Prometheus text format for node_exporter's textfile collector.
    Prometheus,
    /// One self-contained HTML page: hosts, findings by port, drift timelines.
    Html,
}

impl Format {
    /// Every format, in the order `--help` lists them.
    pub const ALL: [Format; 7] = [
        Format::Text,
        Format::Json,
        Format::Markdown,
        Format::Junit,
        Format::Sarif,
        Format::Prometheus,
        Format::Html,
    ];

    /// The name on the command line (`--report junit=FILE`).
    pub fn name(self) -> &'static str {
        match self {
            Format::Text => "text",
            Format::Json => "json",
            Format::Markdown => "markdown",
            Format::Junit => "junit",
            Format::Sarif => "sarif",
            Format::Prometheus => "prometheus",
            Format::Html => "html",
        }
    }

    /// The format of a command-line name.
    pub fn from_name(name: &str) -> Option<Format> {
        Format::ALL.into_iter().find(|f| f.name() == name)
    }
}

/// What some formats need beyond the document, read by the caller before rendering (a
/// renderer reads nothing). Empty parts make those formats render without them: SARIF
/// results without a line, HTML without timelines, Prometheus without earlier success times.
#[derive(Debug, Clone, Default)]
pub struct Extras {
    /// Per host, its baseline file and the line of each fact in it (SARIF locations).
    pub baseline_lines: BTreeMap<String, BaselineLines>,
    /// Per host, the changes its baseline went through in the store's history, newest first
    /// (HTML).
    pub timelines: BTreeMap<String, Vec<TimelineEntry>>,
    /// The Prometheus textfile this render replaces: a host this run could not read keeps the
    /// last success time it had there.
    pub previous_textfile: Option<String>,
    /// The columns the fleet's one-screen summary may fill (the terminal's); without it,
    /// [`crate::fleet::DEFAULT_COLUMNS`].
    pub columns: Option<usize>,
}

/// What a command reports: one host's judgement, or a gate step's.
#[derive(Debug, Clone, Copy)]
pub enum Document<'a> {
    /// `check` and `diff`: the judgement and its stories, one per port
    /// ([`driftgate_compare::stories`] of the judged snapshot), which the text, Markdown and
    /// HTML tell before the findings.
    Check(&'a Report, &'a [Story]),
    /// `gate pre` and `gate post`.
    Gate(&'a GateReport),
    /// `check --all` and `report merge`.
    Fleet(&'a FleetReport),
}

impl<'a> From<&'a FleetReport> for Document<'a> {
    fn from(report: &'a FleetReport) -> Self {
        Document::Fleet(report)
    }
}

impl<'a> From<&'a GateReport> for Document<'a> {
    fn from(report: &'a GateReport) -> Self {
        Document::Gate(report)
    }
}
