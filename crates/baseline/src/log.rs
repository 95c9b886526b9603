//! `baseline log`: the commits that changed baselines, newest first, each with the
//! policy-classified change of every baseline it touched.

use std::collections::HashMap;
use std::ops::ControlFlow;
use std::sync::Arc;

use super::streamed;
use super::summary::{ChangeSummary, summarize};
use driftgate_compare::Policy;
use driftgate_snapshot::{HostName, SnapshotError, VerifiedSnapshot};
use driftgate_store::{HistoryEntry, HistoryScope, Store, StoreError};

/// One commit in a baseline's history, with what it changed.
#[derive(Debug, Clone)]
pub struct LogEntry {
    /// Short commit id.
    pub id: String,
    /// Author name.
    pub author: String,
    /// Author date.
    pub time: jiff::Timestamp,
    /// First line of the message.
    pub summary: String,
    /// Per baseline file touched: its path and the change, or why there is none to show.
    pub changes: Vec<(String, Result<ChangeSummary, LogChangeError>)>,
}

/// Why `baseline log` shows no change for a baseline file a commit touched.
#[derive(Debug, Clone, thiserror::Error)]
pub enum LogChangeError {
    /// A version of the file (before or after the commit) does not verify; the error names
    /// it as `git:REV:PATH`. Shared: the version a commit replaced is the next one's.
    #[error("unreadable: {0}")]
    Unreadable(Arc<SnapshotError>),
    /// The commit removed the file.
    #[error("baseline removed")]
    Removed,
}

/// Parsed versions by path, with their blob ids.
type Parsed = HashMap<String, (git2::Oid, Result<VerifiedSnapshot, LogChangeError>)>;

/// Commits that touched baselines (of `host` only, when given), newest first.
pub fn log(
    store: &Store,
    policy: &Policy,
    host: Option<&HostName>,
    limit: usize,
) -> Result<Vec<LogEntry>, StoreError> {
    let scope = match host {
        Some(host) => HistoryScope::Host(host.as_str()),
        None => HistoryScope::All,
    };
    // The store (not `Sync`) walks the history on this thread while the other cores read,
    // parse and summarize both versions of every change, each thread with a handle of its
    // own and over runs of consecutive commits: the version a commit replaced is the one the
    // next (older) commit wrote, read and parsed once.
    let location = store.location();
    let mut listed = 0;
    let summarized = streamed::map_streamed(
        LOG_RUN,
        || (Parsed::new(), None),
        |(replaced, reader): &mut (Parsed, Option<Result<Store, String>>),
         (id, entry): (String, HistoryEntry)| {
            let reader = reader
                .get_or_insert_with(|| Store::discover(location).map_err(|e| e.to_string()))
                .as_ref()
                .map_err(|message| StoreError::Git {
                    repo: location.display().to_string(),
                    action: "open".to_owned(),
                    message: message.clone(),
                })?;
            let mut parsed = Parsed::new();
            let mut changes = Vec::with_capacity(entry.changes.len());
            for c in entry.changes.iter().filter(|c| c.path.ends_with(".json")) {
                let parse = |version: Option<git2::Oid>, rev: &str| {
                    version
                        .map(|blob| {
                            let origin = format!("git:{rev}:{}", c.path);
                            let bytes = reader.read_blob(blob)?;
                            let snapshot = VerifiedSnapshot::parse_bytes(&bytes, &origin)
                                .map_err(|e| LogChangeError::Unreadable(Arc::new(e)));
                            Ok((blob, snapshot))
                        })
                        .transpose()
                };
                let new = match (replaced.remove(&c.path), c.new) {
                    (Some(kept), Some(new)) if kept.0 == new => Some(kept),
                    _ => parse(c.new, &id)?,
                };
                let old = parse(c.old, &format!("{id}~1"))?;
                let summary = match (&old, &new) {
                    (Some((_, Err(e))), _) | (_, Some((_, Err(e)))) => Err(e.clone()),
                    (old, Some((_, Ok(new)))) => Ok(summarize(
                        old.as_ref().and_then(|(_, o)| o.as_ref().ok()),
                        new,
                        policy,
                    )),
                    (_, None) => Err(LogChangeError::Removed),
                };
                if let Some(old) = old {
                    parsed.insert(c.path.clone(), old);
                }
                changes.push((c.path.clone(), summary));
            }
            *replaced = parsed;
            let entry = LogEntry {
                id,
                author: entry.author,
                time: jiff::Timestamp::from_second(entry.time)
                    .unwrap_or(jiff::Timestamp::UNIX_EPOCH),
                summary: entry.summary,
                changes,
            };
            Ok((entry, reader.take_object_counts()))
        },
        |emit| {
            if limit == 0 {
                return Ok(());
            }
            store.walk_history(scope, &mut |entry| {
                emit((store.short_id(entry.id), entry));
                listed += 1;
                if listed >= limit {
                    ControlFlow::Break(())
                } else {
                    ControlFlow::Continue(())
                }
            })
        },
    )?;
    summarized
        .into_iter()
        .map(|done| {
            done.map(|(entry, counts)| {
                store.add_object_counts(counts);
                entry
            })
        })
        .collect()
}

/// Commits a thread of `log` summarizes in a row: small, so that the walk's first commits
/// are being summarized while it goes on and the last ones are shared at the end, yet a run
/// parses the version its commits share once.
const LOG_RUN: usize = 4;
