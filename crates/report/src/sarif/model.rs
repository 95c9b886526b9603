//! The part of SARIF 2.1.0 driftgate writes, as serde types: fields serialize in the order
//! declared, maps are sorted, and what is absent is left out, so the same run gives the
//! same bytes.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::document::HostCounts;
use driftgate_snapshot::FactValue;

/// The SARIF log: one run.
#[derive(Debug, Serialize)]
pub(super) struct Log<'a> {
    #[serde(rename = "$schema")]
    pub schema: &'static str,
    pub version: &'static str,
    pub runs: [Run<'a>; 1],
}

/// The run: the tool, how it ended, the results, and each host's verdict.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Run<'a> {
    pub tool: Tool,
    pub invocations: [Invocation; 1],
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub version_control_provenance: Vec<VersionControlDetails>,
    #[serde(
        rename = "originalUriBaseIds",
        skip_serializing_if = "BTreeMap::is_empty"
    )]
    pub original_uri_base_ids: BTreeMap<&'static str, ArtifactLocation>,
    pub results: Vec<SarifResult<'a>>,
    pub properties: RunProperties<'a>,
}

/// `tool`: only the driver.
#[derive(Debug, Serialize)]
pub(super) struct Tool {
    pub driver: Driver,
}

/// driftgate and every rule its results use.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Driver {
    pub name: &'static str,
    pub version: &'static str,
    pub semantic_version: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub information_uri: Option<&'static str>,
    pub rules: Vec<Rule>,
}

/// A `reportingDescriptor`: one rule id.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Rule {
    pub id: String,
    pub name: String,
    pub short_description: Text,
    pub full_description: Text,
    pub default_configuration: Configuration,
    pub help: Text,
}

/// A plain-text message (`message`, `multiformatMessageString`).
#[derive(Debug, Clone, Serialize)]
pub(super) struct Text {
    pub text: String,
}

impl Text {
    /// A message as a reader sees it: control characters shown ([`crate::visible`]).
    pub(super) fn new(text: impl Into<String>) -> Self {
        let text = text.into();
        Text {
            text: crate::visible(&text).into_owned(),
        }
    }
}

/// `reportingConfiguration`: the level a rule reports at.
#[derive(Debug, Serialize)]
pub(super) struct Configuration {
    pub level: Level,
}

/// A result's or rule's level.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub(super) enum Level {
    None,
    Note,
    Warning,
    Error,
}

/// How the run ended: the verdict as the exit code says it.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Invocation {
    pub execution_successful: bool,
    pub exit_code: i32,
    pub exit_code_description: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub start_time_utc: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end_time_utc: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tool_execution_notifications: Vec<Notification>,
}

/// A `notification`: something about the run itself (results left out).
#[derive(Debug, Serialize)]
pub(super) struct Notification {
    pub descriptor: DescriptorReference,
    pub level: Level,
    pub message: Text,
}

/// A `reportingDescriptorReference` by id: which notification it is.
#[derive(Debug, Serialize)]
pub(super) struct DescriptorReference {
    pub id: &'static str,
}

/// The baseline store and the commit the results' locations were read at.
#[derive(Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct VersionControlDetails {
    pub repository_uri: String,
    pub revision_id: String,
    pub mapped_to: ArtifactLocation,
}

/// `artifactLocation`: a URI, relative to a base id or absolute.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct ArtifactLocation {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub uri: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub uri_base_id: Option<&'static str>,
}

/// One result: a finding, an allowed finding (suppressed), an incomplete capture or a fleet
/// finding.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct SarifResult<'a> {
    pub rule_id: String,
    pub rule_index: usize,
    pub level: Level,
    pub message: Text,
    pub locations: [Location; 1],
    pub partial_fingerprints: BTreeMap<&'static str, String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub suppressions: Vec<Suppression<'a>>,
    pub properties: ResultProperties<'a>,
}

/// `location` with a physical location only.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Location {
    pub physical_location: PhysicalLocation,
}

/// A file and the line in it.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct PhysicalLocation {
    pub artifact_location: ArtifactLocation,
    pub region: Region,
}

/// The line of a fact's key.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Region {
    pub start_line: u32,
}

/// An allowance that declared or waived the finding.
#[derive(Debug, Serialize)]
pub(super) struct Suppression<'a> {
    pub kind: &'static str,
    pub justification: String,
    pub properties: SuppressionProperties<'a>,
}

/// Where the allowance was given and what it names.
#[derive(Debug, Serialize)]
pub(super) struct SuppressionProperties<'a> {
    pub given_at: &'a str,
    pub path: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<&'a FactValue>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ticket: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expires: Option<String>,
}

/// What a result is about, for queries and dashboards.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub(super) enum ResultProperties<'a> {
    /// A finding of one host's comparison.
    Finding(FindingProperties<'a>),
    /// A host whose capture was not complete.
    Incomplete(IncompleteProperties<'a>),
    /// A finding about several hosts or the fleet.
    Fleet(FleetProperties<'a>),
}

/// A host's finding: the fact, from → to.
#[derive(Debug, Serialize)]
pub(super) struct FindingProperties<'a> {
    pub host: &'a str,
    pub fleet: &'a str,
    pub cluster: &'a str,
    pub path: &'a str,
    pub old: Option<&'a FactValue>,
    pub new: Option<&'a FactValue>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expected: Option<&'a FactValue>,
    pub kind: &'static str,
    pub severity: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub origin: Option<&'static str>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub pending: bool,
    /// An allowance declared or waived it (the result is a suppressed note); left out when
    /// false.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub allowed: bool,
}

/// An incomplete host and its sources that failed.
#[derive(Debug, Serialize)]
pub(super) struct IncompleteProperties<'a> {
    pub host: &'a str,
    pub fleet: &'a str,
    pub cluster: &'a str,
    pub verdict: &'static str,
    pub sources: Vec<SourceProperties<'a>>,
}

/// One source that did not capture completely.
#[derive(Debug, Serialize)]
pub(super) struct SourceProperties<'a> {
    pub role: &'static str,
    pub name: &'a str,
    pub target: &'a str,
    pub status: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<&'a str>,
}

/// A fleet finding: the hosts it names and their values.
#[derive(Debug, Serialize)]
pub(super) struct FleetProperties<'a> {
    pub hosts: &'a [String],
    pub fleet: &'a str,
    pub cluster: &'a str,
    pub path: &'a str,
    pub values: &'a [serde_json::Value],
    #[serde(skip_serializing_if = "Option::is_none")]
    pub majority: Option<&'a crate::document::Majority>,
    pub severity: &'static str,
}

/// The run's verdict and each host's, the same in every format.
#[derive(Debug, Serialize)]
pub(super) struct RunProperties<'a> {
    pub title: &'a str,
    pub kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub run: Option<&'a str>,
    pub verdict: &'static str,
    pub strict: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub started_at: Option<jiff::Timestamp>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub finished_at: Option<jiff::Timestamp>,
    pub counts: HostCounts,
    pub hosts: Vec<HostProperties<'a>>,
    /// Results left out past [`super::MAX_RESULTS`], the least severe.
    pub results_omitted: usize,
}

/// One host's verdict.
#[derive(Debug, Serialize)]
pub(super) struct HostProperties<'a> {
    pub host: &'a str,
    pub fleet: &'a str,
    pub cluster: &'a str,
    pub verdict: &'static str,
}
