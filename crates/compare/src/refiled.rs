//! Facts that a newer driftgate files under another path, read as the same fact.
//!
//! Read-only capability flags of a NIC (`DCBXSupport`, `PriorityFlowControl: "Available"`)
//! were filed as settings (`…/hii/<name>`, or `…/hii/dcb/<name>` when their words said DCB) and
//! are now `…/hii/capability/<name>` or `…/hii/capability/dcb/<name>`. A baseline promoted
//! before holds the old path: without this, the first check after an upgrade would call every
//! such flag removed (a block under `bmc-hii-dcb`) and added again, on every Dell host, though
//! the NIC changed nothing. A flag at its old path in the baseline and at its new one, of the
//! same scope and name, in the snapshot is one fact: equal, it is no change; different, it is
//! a change of the new path, judged as a capability (a loss blocks).

use std::collections::{BTreeMap, BTreeSet};

use driftgate_snapshot::{FactPath, FactValue, Facts};

use super::diff::{Change, changes};

/// Where capabilities are filed now below a port or function, and where they may have been
/// before: a DCB capability's name said DCB (`…/hii/dcb/`) unless a registry called it
/// read-only (`…/hii/`).
const MOVES: [(&str, &[&str]); 2] = [
    ("/hii/capability/dcb/", &["/hii/dcb/", "/hii/"]),
    ("/hii/capability/", &["/hii/"]),
];

/// The changes from `old` to `new` (as [`changes`]), with each capability that only moved to
/// its new path said as one change of that path, or not at all when its value is the same.
pub(crate) fn changes_refiled<'a>(old: &'a Facts, new: &'a Facts) -> Vec<Change<'a>> {
    let all: Vec<Change<'a>> = changes(old, new).collect();
    // The new path of each capability added, by each old path it may have had.
    let mut added: BTreeMap<String, &'a FactPath> = BTreeMap::new();
    for change in all.iter().filter(|change| change.old.is_none()) {
        for before in former_paths(change.path.as_str()) {
            added.insert(before, change.path);
        }
    }
    if added.is_empty() {
        return all;
    }
    // Removed old paths that a new one replaces, and the old value by the new path.
    let mut replaced: BTreeSet<&str> = BTreeSet::new();
    let mut moved: BTreeMap<&str, &'a FactValue> = BTreeMap::new();
    for change in &all {
        if let (Some(value), None) = (change.old, change.new)
            && let Some(now) = added.get(change.path.as_str())
            && !moved.contains_key(now.as_str())
        {
            moved.insert(now.as_str(), value);
            replaced.insert(change.path.as_str());
        }
    }
    all.into_iter()
        .filter_map(|change| {
            if change.new.is_none() && replaced.contains(change.path.as_str()) {
                return None;
            }
            match moved.get(change.path.as_str()) {
                Some(before) if change.old.is_none() => {
                    (change.new != Some(*before)).then_some(Change {
                        old: Some(*before),
                        ..change
                    })
                }
                _ => Some(change),
            }
        })
        .collect()
}

/// The paths a capability at `path` may have had before it was filed as one.
fn former_paths(path: &str) -> Vec<String> {
    MOVES
        .iter()
        .find_map(|(now, before)| {
            let (scope, name) = path.split_once(now)?;
            (!name.contains('/')).then(|| {
                before
                    .iter()
                    .map(|home| format!("{scope}{home}{name}"))
                    .collect()
            })
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    const FUNCTION: &str = "nic/00:0a:f7:12:34:56/bmc/function/00:0a:f7:12:34:56";

    fn facts(pairs: &[(&str, &str)]) -> Facts {
        pairs
            .iter()
            .map(|(leaf, value)| {
                (
                    FactPath::new(format!("{FUNCTION}/{leaf}")).unwrap(),
                    FactValue::from(*value),
                )
            })
            .collect()
    }

    fn said(old: &Facts, new: &Facts) -> Vec<String> {
        changes_refiled(old, new)
            .iter()
            .map(|c| {
                let leaf = c.path.as_str().strip_prefix(FUNCTION).unwrap_or("");
                let shown = |v: Option<&FactValue>| v.map_or("-".to_owned(), |v| v.to_string());
                format!("{leaf}: {} → {}", shown(c.old), shown(c.new))
            })
            .collect()
    }

    #[test]
    fn a_capability_filed_anew_with_its_value_is_no_change() {
        let old = facts(&[
            ("hii/dcb/PriorityFlowControl", "Available"),
            ("hii/SRIOVSupport", "Available"),
        ]);
        let new = facts(&[
            ("hii/capability/dcb/PriorityFlowControl", "Available"),
            ("hii/capability/SRIOVSupport", "Available"),
        ]);
        assert_eq!(said(&old, &new), Vec::<String>::new());
    }

    #[test]
    fn a_capability_filed_anew_with_another_value_is_a_change_of_its_new_path() {
        let new = facts(&[("hii/capability/dcb/DCBXSupport", "Unavailable")]);
        // Filed as a setting before (a registry said read-only), or as a DCB setting (no
        // registry): either way one change, of the new path, judged as a capability.
        for before in ["hii/DCBXSupport", "hii/dcb/DCBXSupport"] {
            let old = facts(&[(before, "Available")]);
            assert_eq!(
                said(&old, &new),
                ["/hii/capability/dcb/DCBXSupport: \"Available\" → \"Unavailable\""],
                "{before}"
            );
        }
    }

    #[test]
    fn a_setting_is_never_taken_for_a_capability_of_another_name_or_home() {
        let old = facts(&[("hii/dcb/SRIOVSupport", "Available"), ("hii/Other", "1")]);
        let new = facts(&[
            ("hii/capability/SRIOVSupport", "Available"),
            ("hii/capability/dcb/Another", "Available"),
        ]);
        assert_eq!(said(&old, &new).len(), 4);
    }

    #[test]
    fn other_changes_are_untouched() {
        let old = facts(&[("hii/VirtualizationMode", "NPAR"), ("dcbx_mode", "ieee")]);
        let new = facts(&[
            ("hii/VirtualizationMode", "NONE"),
            ("hii/capability/dcb/DCBXSupport", "Available"),
        ]);
        assert_eq!(said(&old, &new).len(), 3);
    }
}
