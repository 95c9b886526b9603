//! JSON Schemas of the file formats, generated from the Rust types that read and write them.
//! The checked-in copies under `schemas/` are guarded by a test.

use crate::document::{FleetReport, GateReport};
use driftgate_compare::{PolicyDocument, Report};
use driftgate_snapshot::SnapshotDocument;

/// The documents driftgate has a schema for.
pub const NAMES: [&str; 5] = [
    "snapshot",
    "policy",
    "report",
    "gate-report",
    "fleet-report",
];

/// The schema called `name` as pretty JSON with a trailing newline, or `None` for an unknown
/// name.
pub fn render(name: &str) -> Option<String> {
    let schema = match name {
        "snapshot" => schemars::schema_for!(SnapshotDocument),
        "policy" => schemars::schema_for!(PolicyDocument),
        "report" => schemars::schema_for!(Report),
        "gate-report" => schemars::schema_for!(GateReport),
        "fleet-report" => schemars::schema_for!(FleetReport),
        _ => return None,
    };
    let mut text = serde_json::to_string_pretty(&schema).expect("schemas always serialize");
    text.push('\n');
    Some(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checked_in_schemas_are_current() {
        let dir =
            std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join("schemas");
        for name in NAMES {
            let file = dir.join(format!("{name}.schema.json"));
            let generated = render(name).unwrap();
            if std::env::var_os("DRIFTGATE_BLESS").is_some() {
                std::fs::write(&file, &generated).unwrap();
            }
            let checked_in = std::fs::read_to_string(&file)
                .unwrap_or_else(|e| panic!("{}: {e}", file.display()));
            assert!(
                checked_in == generated,
                "{} is stale: run `cargo run -- schema {name} > {}` (or DRIFTGATE_BLESS=1 cargo test)",
                file.display(),
                file.display()
            );
        }
    }
}
