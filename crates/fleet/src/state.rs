//! The nightly state a run or a merge leaves in the store: each host's last good capture
//! ([`driftgate_baseline::state`]), kept for the next night.

use driftgate_report::document::FleetReport;
use driftgate_store::Store;

use crate::reporter::Reporter;

/// Adds the last good captures that the merged fleet result `report` names (each host's
/// `last_success_at`) to the nightly state of `store`: what a merge job of shards that ran
/// in throwaway clones of the store keeps for the next night. A failure is told to
/// `reporter`, naming the store; it changes no verdict.
pub fn record_merged_state(store: &Store, report: &FleetReport, reporter: &dyn Reporter) {
    // A repository without baselines is no baseline store (a `--no-rejudge` merge started in
    // whatever repository holds the results): nothing is written into it.
    let has_baselines = store
        .head_commit()
        .ok()
        .flatten()
        .and_then(|head| store.baseline_files(&head).ok())
        .is_some_and(|files| !files.is_empty());
    if !has_baselines {
        return;
    }
    let good: Vec<(String, jiff::Timestamp)> = report
        .hosts
        .iter()
        .filter_map(|h| {
            let at = h.last_success_at.as_deref()?.parse().ok()?;
            Some((h.host.clone(), at))
        })
        .collect();
    record_state(store, &good, None, reporter);
}

/// Adds `good` to the store's nightly state. A run that could not save it still has its
/// verdict: the failure is told to `reporter`, naming the store, and the run goes on.
pub(crate) fn record_state(
    store: &Store,
    good: &[(String, jiff::Timestamp)],
    run: Option<&str>,
    reporter: &dyn Reporter,
) {
    if let Some(notice) = driftgate_baseline::state::record_telling(store, good, run) {
        reporter.notice(&notice);
    }
}
