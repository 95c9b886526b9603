//! Reading the [`Extras`] the requested formats need from the baseline store: SARIF the line of
//! each fact in its host's baseline file, HTML each host's drift timeline. A command only says
//! which formats it asks for; the reads are the baseline store's, the policy rates each change
//! of a timeline.
//!
//! The textfile a Prometheus report replaces is not read here: it belongs to the file the
//! caller writes, and only the caller knows it.

use driftgate_compare::Policy;
use driftgate_report::{Document, Extras, Format, View};
use driftgate_store::{Store, StoreError};

/// How many commits of each host's history the HTML report's timeline goes back.
pub const TIMELINE_COMMITS: usize = 100;

/// A read that failed: its format renders without that part, and the caller says so.
#[derive(Debug, thiserror::Error)]
pub enum ExtrasWarning {
    /// The baseline files could not be read from the store.
    #[error("the SARIF report has no baseline lines: {0}")]
    NoBaselineLines(#[source] StoreError),
    /// The store's history could not be walked.
    #[error("the HTML report has no drift timelines: {0}")]
    NoTimelines(#[source] StoreError),
}

/// Reads from `store` what `formats` need to render `document`: the baseline lines when
/// SARIF is among them, the timelines when HTML is (and a `policy` rates their changes;
/// without one there are none). A store that cannot be read costs only that part, returned
/// as a warning, never the report: the verdict does not depend on it.
pub fn read_extras(
    document: Document<'_>,
    formats: &[Format],
    store: &Store,
    policy: Option<&Policy>,
) -> (Extras, Vec<ExtrasWarning>) {
    let mut extras = Extras::default();
    let mut warnings = Vec::new();
    if !formats.contains(&Format::Sarif) && !formats.contains(&Format::Html) {
        return (extras, warnings);
    }
    let view = View::of(document);
    if formats.contains(&Format::Sarif) {
        // A report that cannot be read back has no lines here; rendering it says why.
        let origins: Vec<(&str, String)> = view
            .hosts
            .iter()
            .filter_map(|h| Some((h.host, h.report().ok()?.baseline.as_ref()?.origin.clone())))
            .collect();
        let origins: Vec<(&str, &str)> = origins.iter().map(|(h, o)| (*h, o.as_str())).collect();
        match super::baseline_lines(store, &origins) {
            Ok(lines) => extras.baseline_lines = lines,
            Err(e) => warnings.push(ExtrasWarning::NoBaselineLines(e)),
        }
    }
    if formats.contains(&Format::Html)
        && let Some(policy) = policy
    {
        let hosts: Vec<&str> = view.hosts.iter().map(|h| h.host).collect();
        match super::timelines(store, policy, &hosts, TIMELINE_COMMITS) {
            Ok(timelines) => extras.timelines = timelines,
            Err(e) => warnings.push(ExtrasWarning::NoTimelines(e)),
        }
    }
    (extras, warnings)
}

#[cfg(test)]
mod tests;
