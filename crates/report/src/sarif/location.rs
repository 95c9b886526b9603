//! Where results point: the line of a fact's key in the host's baseline file as committed,
//! relative to the repository root, else the first line of the file the baseline came from;
//! paths as URI references.

use crate::document::BaselineLines;
use crate::view::HostView;
use driftgate_compare::Report;

use super::model::{ArtifactLocation, Location, PhysicalLocation, Region};

/// The base id every location's URI is relative to: the root of the baseline repository
/// (the name GitHub code scanning's documentation uses for the checked-out repository).
pub const SRCROOT: &str = "%SRCROOT%";

/// `file:///…/` of an absolute directory, or `None`.
pub(super) fn directory_uri(dir: &str) -> Option<String> {
    (!dir.is_empty())
        .then(|| url::Url::from_directory_path(dir).ok())
        .flatten()
        .map(String::from)
}

/// A path as a URI reference: relative paths percent-encoded segment by segment (`.` and
/// `..` kept: they mean the same in a URI), absolute ones as `file:` URIs.
pub(super) fn path_uri(path: &str) -> Option<String> {
    if std::path::Path::new(path).is_absolute() {
        return url::Url::from_file_path(path).ok().map(String::from);
    }
    let segments: Option<Vec<String>> = path.split('/').map(segment).collect();
    Some(segments?.join("/"))
}

/// One path segment percent-encoded as the `url` crate encodes a URL's path.
fn segment(text: &str) -> Option<String> {
    if matches!(text, "." | "..") {
        return Some(text.to_owned());
    }
    let mut url = url::Url::parse("file:///").expect("a constant URL");
    url.path_segments_mut().ok()?.clear().push(text);
    Some(url.path().trim_start_matches('/').to_owned())
}

/// Where a host's results point: the fact's line in its baseline file as committed, else
/// (no baseline lines) the first line of the file its baseline came from or would live in.
pub(super) fn location(
    host: &HostView<'_>,
    report: &Report,
    lines: Option<&BaselineLines>,
    fact: Option<&str>,
) -> Location {
    let (uri, base, line) = match lines {
        Some(lines) => (
            Some(lines.path.clone()),
            Some(SRCROOT),
            fact.and_then(|f| fact_line(lines, f)).unwrap_or(1),
        ),
        None => {
            let (uri, base) = fallback_file(host, report);
            (uri, base, 1)
        }
    };
    let uri = match base {
        Some(_) => uri.and_then(|u| path_uri(&u)),
        None => uri,
    };
    Location {
        physical_location: PhysicalLocation {
            artifact_location: ArtifactLocation {
                uri: Some(uri.unwrap_or_else(|| format!("{}.json", host.host))),
                uri_base_id: base,
            },
            region: Region { start_line: line },
        },
    }
}

/// The line of `fact` in the baseline; for a path a cluster finding names a port by its
/// name (`nic/SLOT 3 Port 1/os/...`), the one fact of the host under another port key with
/// the same rest, when there is exactly one.
fn fact_line(lines: &BaselineLines, fact: &str) -> Option<u32> {
    if let Some(line) = lines.lines.get(fact) {
        return Some(*line);
    }
    let (_, rest) = fact.strip_prefix("nic/")?.split_once('/')?;
    let mut same = lines.lines.iter().filter(|(path, _)| {
        path.strip_prefix("nic/")
            .and_then(|p| p.split_once('/'))
            .is_some_and(|(_, r)| r == rest)
    });
    match (same.next(), same.next()) {
        (Some((_, line)), None) => Some(*line),
        _ => None,
    }
}

/// The file of a host without baseline lines: a `git:` baseline's path, the fleet's
/// baseline path, else the baseline (or snapshot) file as given on the command line.
fn fallback_file(host: &HostView<'_>, report: &Report) -> (Option<String>, Option<&'static str>) {
    if let Some(path) = report
        .baseline
        .as_ref()
        .and_then(|b| b.origin.strip_prefix("git:"))
        .and_then(|rest| rest.split_once(':'))
        .map(|(_, path)| path)
    {
        return (Some(path.to_owned()), Some(SRCROOT));
    }
    if let Some(fleet) = host.fleet.filter(|f| !f.is_empty()) {
        return (
            Some(format!("baselines/{fleet}/{}.json", host.host)),
            Some(SRCROOT),
        );
    }
    let file = [report.baseline.as_ref(), Some(&report.snapshot)]
        .into_iter()
        .flatten()
        .map(|s| s.origin.as_str())
        .find(|o| !o.starts_with("git:") && !o.starts_with("baseline:") && !o.starts_with('<'));
    (file.and_then(path_uri), None)
}
