//! Each host's drift timeline from the store's history: when each blocked setting of its
//! baseline changed, from what to what, which commit (and gate run) promoted it, and which
//! firmware changed in the same commit. Read through [`Store::history`] (git2), never by
//! running `git`.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::ops::ControlFlow;

use driftgate_compare::{Finding, JudgeOptions, Policy, Severity};
use driftgate_report::document::{SettingChange, TimelineEntry};
use driftgate_snapshot::VerifiedSnapshot;
use driftgate_store::{BASELINES_DIR, FileChange, HistoryScope, Store, StoreError};

/// The timelines of `hosts`, newest first, at most `limit` commits each, from one walk of
/// the history of `baselines/`. A host with no commit has no entry in the map. A baseline
/// that cannot be read at some commit (a corrupt file) makes that entry say so, never an
/// error: only a store that cannot be walked is one. The walk stops as soon as every host
/// has `limit` entries.
pub fn timelines(
    store: &Store,
    policy: &Policy,
    hosts: &[&str],
    limit: usize,
) -> Result<BTreeMap<String, Vec<TimelineEntry>>, StoreError> {
    let wanted: HashSet<&str> = hosts.iter().copied().collect();
    let mut out: BTreeMap<String, Vec<TimelineEntry>> = BTreeMap::new();
    if wanted.is_empty() || limit == 0 {
        return Ok(out);
    }
    // One host: the walk looks up its file alone; many: one walk of the whole folder.
    let scope = match hosts {
        [one] => HistoryScope::Host(one),
        _ => HistoryScope::All,
    };
    // The walk stops once every wanted host has `limit` entries: older commits are never read.
    let mut full = 0;
    // The versions the last commit replaced (the next one walked wrote them), and a failed
    // read, which ends the walk.
    let mut replaced = Blobs::new();
    let mut failed = None;
    store.walk_history(scope, &mut |commit| {
        let mut replacing = Blobs::new();
        let id = store.short_id(commit.id);
        let time = jiff::Timestamp::from_second(commit.time).unwrap_or(jiff::Timestamp::UNIX_EPOCH);
        let run = run_of(&commit.message);
        for change in &commit.changes {
            let Some(host) = host_of(&change.path).filter(|h| wanted.contains(h)) else {
                continue;
            };
            let entries = out.entry(host.to_owned()).or_default();
            if entries.len() >= limit {
                continue;
            }
            if entries.len() + 1 == limit {
                full += 1;
            }
            let mut entry = TimelineEntry {
                commit: id.clone(),
                time,
                author: commit.author.clone(),
                summary: commit.summary.clone(),
                run: run.clone(),
                first: change.old.is_none(),
                removed: change.new.is_none(),
                unreadable: None,
                changes: Vec::new(),
                firmware: Vec::new(),
            };
            match versions(store, change, &id, &mut replaced, &mut replacing) {
                Ok(Ok((Some(old), Some(new)))) => {
                    (entry.changes, entry.firmware) = setting_changes(&old, &new, policy);
                }
                Ok(Ok(_)) => {}
                Ok(Err(reason)) => entry.unreadable = Some(reason),
                Err(e) => {
                    failed = Some(e);
                    return ControlFlow::Break(());
                }
            }
            entries.push(entry);
        }
        replaced = replacing;
        if full == wanted.len() {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    })?;
    match failed {
        Some(e) => Err(e),
        None => Ok(out),
    }
}

/// Blob contents by id.
type Blobs = HashMap<git2::Oid, Vec<u8>>;

/// A baseline before and after a change, each if it exists.
type Versions = (Option<VerifiedSnapshot>, Option<VerifiedSnapshot>);

/// The host of a baseline file `baselines/<fleet>/<host>.json`.
fn host_of(path: &str) -> Option<&str> {
    let rest = path.strip_prefix(BASELINES_DIR)?.strip_prefix('/')?;
    let (_fleet, file) = rest.split_once('/')?;
    file.strip_suffix(".json").filter(|h| !h.contains('/'))
}

/// The gate run a commit message names in its `Run: <id>` line (the last one, as a trailer).
fn run_of(message: &str) -> Option<String> {
    message
        .lines()
        .filter_map(|line| line.strip_prefix("Run:"))
        .map(str::trim)
        .rfind(|id| !id.is_empty())
        .map(str::to_owned)
}

/// Both versions of a changed baseline file, verified; why one cannot be read otherwise. The
/// new version is taken from `replaced` when the commit walked before replaced it; the old
/// one is left in `replacing` for the next commit.
fn versions(
    store: &Store,
    change: &FileChange,
    commit: &str,
    replaced: &mut Blobs,
    replacing: &mut Blobs,
) -> Result<Result<Versions, String>, StoreError> {
    let parse = |bytes: &[u8], rev: &str, which: &str| {
        let origin = format!("git:{rev}:{}", change.path);
        VerifiedSnapshot::parse_bytes(bytes, &origin)
            .map_err(|e| format!("{which} unreadable: {e}"))
    };
    let new = match change.new {
        Some(blob) => Some(match replaced.remove(&blob) {
            Some(bytes) => bytes,
            None => store.read_blob(blob)?,
        }),
        None => None,
    };
    let old = change.old.map(|blob| store.read_blob(blob)).transpose()?;
    let parsed = (|| {
        let new = new
            .as_deref()
            .map(|bytes| parse(bytes, commit, "this version"))
            .transpose()?;
        let old = old
            .as_deref()
            .map(|bytes| parse(bytes, &format!("{commit}~1"), "the previous version"))
            .transpose()?;
        Ok((old, new))
    })();
    if let (Some(blob), Some(bytes)) = (change.old, old) {
        replacing.insert(blob, bytes);
    }
    Ok(parsed)
}

/// The settings that changed from `old` to `new` and that `policy` blocks or warns on, and
/// the firmware versions that changed, each rated by the policy (secrets hidden as the
/// judgement hides them).
fn setting_changes(
    old: &VerifiedSnapshot,
    new: &VerifiedSnapshot,
    policy: &Policy,
) -> (Vec<SettingChange>, Vec<SettingChange>) {
    let options = JudgeOptions {
        changes_only: true,
        without_rule_counts: true,
        ..JudgeOptions::default()
    };
    let report = driftgate_compare::judge(new, Some(old), policy, &options);
    let setting = |f: &Finding| SettingChange {
        path: f.path.clone(),
        severity: f.severity,
        old: f.old.clone(),
        new: f.new.clone(),
    };
    let changes = report
        .findings
        .iter()
        .filter(|f| f.severity >= Severity::Warn)
        .filter(|f| !driftgate_compare::is_firmware_version(f.path.as_str()))
        .map(setting)
        .collect();
    let mut firmware: Vec<SettingChange> = report.firmware_changes.iter().map(setting).collect();
    firmware.sort_by(|a, b| a.path.cmp(&b.path));
    (changes, firmware)
}

#[cfg(test)]
mod tests;
