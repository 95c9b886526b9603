//! Snapshots written before network device functions were keyed by what identifies them.
//!
//! A capture keys each function of a port by its MAC (`nic/<port>/bmc/function/<mac>/…`),
//! since the BMC's `Id` for it is a name the BMC may change (a BMC firmware update renames
//! `eth0f0` to `p0f0`, or renumbers `NetworkDeviceFunction1` to `2`). Earlier captures keyed a
//! function by that `Id` when it was a name (`function/NIC.Slot.3-1-1/…`) and recorded its MAC
//! as `function/<id>/mac`. Such a snapshot (a baseline in a store, an example, a run's pre)
//! is read as its capture would be written today: each function that recorded a MAC moves to
//! the key of that MAC and keeps its old name as `function/<mac>/id`, so that it compares with
//! a new capture without a function "no longer reported" and "new". A function without a MAC,
//! or whose MAC another function of the port also gives (today's capture keys those by name
//! too), keeps its key.

use std::collections::{BTreeMap, BTreeSet};

use crate::facts::Facts;
use crate::path::{FactPath, path_segment};
use crate::value::FactValue;

/// Where a port's functions are, in a fact path.
const FUNCTIONS: &str = "/bmc/function/";

/// The facts with every function that recorded its MAC keyed by it, or `None` when no key
/// changes (a snapshot written by this version, or one without functions).
pub(crate) fn rekeyed(facts: &Facts) -> Option<Facts> {
    let moves = moves(facts);
    if moves.is_empty() {
        return None;
    }
    let mut out = Facts::new();
    for (path, value) in facts.iter() {
        let path = moved(&moves, path.as_str())
            .and_then(|moved| FactPath::new(moved).ok())
            .unwrap_or_else(|| path.clone());
        out.insert(path, value.clone());
    }
    for ((functions, key), mac) in &moves {
        if let Ok(path) = FactPath::new(format!("{functions}{mac}/id")) {
            out.insert(path, FactValue::from(*key));
        }
    }
    Some(out)
}

/// Each path of `facts` that moves, with where it moves to.
pub(crate) fn moved_paths(facts: &Facts) -> Vec<(String, String)> {
    let moves = moves(facts);
    facts
        .keys()
        .filter_map(|path| Some((path.as_str().to_owned(), moved(&moves, path.as_str())?)))
        .collect()
}

/// Where the fact at `path` moves to, if its function moves.
fn moved(moves: &BTreeMap<(&str, &str), String>, path: &str) -> Option<String> {
    let (functions, key, leaf) = split(path)?;
    let mac = moves.get(&(functions, key))?;
    Some(format!("{functions}{mac}/{leaf}"))
}

/// (the port's `nic/<key>/bmc/function/`, the function's key) → the key of its MAC, for each
/// function that moves.
fn moves(facts: &Facts) -> BTreeMap<(&str, &str), String> {
    // (the port's `nic/<key>/bmc/function/`, the function's key) → the key of its MAC.
    let mut moves: BTreeMap<(&str, &str), String> = BTreeMap::new();
    // The function keys of each port, and the MAC keys more than one of them would take.
    let mut keys: BTreeSet<(&str, &str)> = BTreeSet::new();
    let mut taken: BTreeMap<(&str, String), usize> = BTreeMap::new();
    for (path, value) in facts.iter() {
        let Some((functions, key, leaf)) = split(path.as_str()) else {
            continue;
        };
        keys.insert((functions, key));
        if leaf != "mac" {
            continue;
        }
        if let Some(mac) = value.as_text().map(path_segment) {
            *taken.entry((functions, mac.clone())).or_default() += 1;
            moves.insert((functions, key), mac);
        }
    }
    moves.retain(|(functions, key), mac| {
        *key != mac.as_str()
            && taken.get(&(*functions, mac.clone())) == Some(&1)
            && !keys.contains(&(*functions, mac.as_str()))
    });
    moves
}

/// `nic/<port>/bmc/function/`, the function's key and the rest of the path, for a fact of a
/// function.
fn split(path: &str) -> Option<(&str, &str, &str)> {
    if !path.starts_with("nic/") {
        return None;
    }
    let at = path.find(FUNCTIONS)? + FUNCTIONS.len();
    // The port's key is one segment: `nic/<key>/bmc/function/`.
    if path[4..at].matches('/').count() != 3 {
        return None;
    }
    let (key, leaf) = path[at..].split_once('/')?;
    Some((&path[..at], key, leaf))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts(pairs: &[(&str, &str)]) -> Facts {
        let mut facts = Facts::new();
        for (path, value) in pairs {
            facts.insert(FactPath::new(*path).unwrap(), FactValue::from(*value));
        }
        facts
    }

    #[test]
    fn a_function_named_by_its_id_moves_to_its_mac_and_keeps_the_id() {
        let port = "nic/00:0a:f7:12:34:56/bmc";
        let old = facts(&[
            (&format!("{port}/dcbx_mode"), "ieee"),
            (
                &format!("{port}/function/NIC.Slot.3-1-1/mac"),
                "00:0a:f7:12:34:56",
            ),
            (&format!("{port}/function/NIC.Slot.3-1-1/dcbx_mode"), "ieee"),
            (
                &format!("{port}/function/NIC.Slot.3-1-1/pending/dcbx_mode"),
                "disabled",
            ),
            // Already keyed by its MAC: stays.
            (
                &format!("{port}/function/02:00:00:00:00:02/mac"),
                "02:00:00:00:00:02",
            ),
            // No MAC: nothing to key it by.
            (
                &format!("{port}/function/FC.Slot.2-1/function_type"),
                "fibre_channel",
            ),
        ]);
        let new = rekeyed(&old).expect("one function moves");
        let keys: Vec<&str> = new.keys().map(FactPath::as_str).collect();
        let f = format!("{port}/function/00:0a:f7:12:34:56");
        assert_eq!(
            keys,
            [
                format!("{port}/dcbx_mode"),
                format!("{port}/function/00:0a:f7:12:34:56/dcbx_mode"),
                format!("{f}/id"),
                format!("{f}/mac"),
                format!("{f}/pending/dcbx_mode"),
                format!("{port}/function/02:00:00:00:00:02/mac"),
                format!("{port}/function/FC.Slot.2-1/function_type"),
            ]
        );
        assert_eq!(
            new.get(format!("{f}/id").as_str()),
            Some(&"NIC.Slot.3-1-1".into())
        );
        assert_eq!(rekeyed(&new), None, "a rekeyed snapshot stays as it is");
    }

    #[test]
    fn two_functions_of_one_port_with_one_mac_keep_their_keys() {
        let port = "nic/00:0a:f7:12:34:56/bmc/function";
        let old = facts(&[
            (&format!("{port}/F1/mac"), "00:0a:f7:12:34:56"),
            (&format!("{port}/F2/mac"), "00:0a:f7:12:34:56"),
            (&format!("{port}/F2/function_type"), "ethernet"),
        ]);
        assert_eq!(rekeyed(&old), None);
        // The same MAC on functions of two ports is two moves.
        let two = facts(&[
            ("nic/a/bmc/function/F1/mac", "02:00:00:00:00:01"),
            ("nic/b/bmc/function/F1/mac", "02:00:00:00:00:01"),
        ]);
        let new = rekeyed(&two).expect("both move");
        assert!(new.contains_key("nic/a/bmc/function/02:00:00:00:00:01/id"));
        assert!(new.contains_key("nic/b/bmc/function/02:00:00:00:00:01/id"));
    }
}
