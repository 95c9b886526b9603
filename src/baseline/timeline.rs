//! Each host's drift timeline from the store's history: when each blocked setting of its
//! baseline changed, from what to what, which commit (and gate run) promoted it, and which
//! firmware changed in the same commit.
//! STAND-IN: the HTML helper implements this.

use std::collections::BTreeMap;

use crate::compare::{Policy, Severity};
use crate::snapshot::{FactPath, FactValue};
use crate::store::{Store, StoreError};

/// One commit that changed a host's baseline.
#[derive(Debug, Clone, PartialEq)]
pub struct TimelineEntry {
    /// Short commit id.
    pub commit: String,
    /// Author date.
    pub time: jiff::Timestamp,
    /// Author name.
    pub author: String,
    /// First line of the commit message.
    pub summary: String,
    /// The gate run that promoted it (`Run: <id>` in the message), if one did.
    pub run: Option<String>,
    /// Whether this commit created the baseline.
    pub first: bool,
    /// Changed settings the policy blocks on (and warns on), old → new.
    pub changes: Vec<SettingChange>,
    /// Firmware versions that changed in the same commit.
    pub firmware: Vec<SettingChange>,
}

/// A fact that changed between two versions of a baseline.
#[derive(Debug, Clone, PartialEq)]
pub struct SettingChange {
    /// The fact.
    pub path: FactPath,
    /// How the policy rates the change.
    pub severity: Severity,
    /// Before (none: it appeared).
    pub old: Option<FactValue>,
    /// After (none: it disappeared).
    pub new: Option<FactValue>,
}

/// The timelines of `hosts`, newest first, at most `limit` commits each, from one walk of
/// the history of `baselines/`.
pub fn timelines(
    store: &Store,
    policy: &Policy,
    hosts: &[&str],
    limit: usize,
) -> Result<BTreeMap<String, Vec<TimelineEntry>>, StoreError> {
    let _ = (store, policy, hosts, limit);
    Ok(BTreeMap::new())
}
