//! A host's drift timeline: each commit that changed its baseline, with the settings and
//! firmware it changed. Read from the store's history by `driftgate_baseline`.

use driftgate_compare::Severity;
use driftgate_snapshot::{FactPath, FactValue};

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
    /// Whether this commit removed the baseline.
    pub removed: bool,
    /// Why the baseline (or its previous version) could not be read at this commit: its
    /// changes are unknown, the rest of the timeline stands.
    pub unreadable: Option<String>,
    /// Changed settings the policy blocks on (and warns on), old → new; most severe first,
    /// then by path.
    pub changes: Vec<SettingChange>,
    /// Firmware versions that changed in the same commit, by path.
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
