//! What every OS source writes the same way: a fact at a path it built, and the note for an
//! adapter that cannot join the BMC's view.

use driftgate_snapshot::Facts;

use crate::nic;

/// Sets the fact at `path`, a path the caller built from constants and [`path_segment`]s.
///
/// [`path_segment`]: driftgate_snapshot::path_segment
pub(crate) fn set_fact(facts: &mut Facts, path: &str, value: driftgate_snapshot::FactValue) {
    let path = driftgate_snapshot::FactPath::new(path)
        .expect("paths are built from constants and sanitized segments");
    facts.insert(path, value);
}

/// Notes for adapters the OS reported without a MAC.
pub fn unjoined_notes(names: &[String]) -> Vec<String> {
    names
        .iter()
        .map(|name| {
            format!("adapter {name:?} has no MAC in the OS data: keyed by name ({}), it cannot join the BMC's view of its port", nic::port_key(None, "name", name))
        })
        .collect()
}
