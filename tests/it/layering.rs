//! The crates depend on each other only downward, along the arrows of ARCHITECTURE.md: read from
//! `cargo metadata`, so an upward edge fails here and not only in review.

use std::collections::{BTreeMap, BTreeSet};
use std::process::Command;

use serde_json::Value;

use crate::common::root;

/// Every workspace crate and its rank. A dependency (normal, build or dev) must point to a lower
/// rank.
const RANKS: &[(&str, u8)] = &[
    ("driftgate-test-data", 0),
    ("driftgate-model", 1),
    ("driftgate-secrets", 1),
    ("driftgate-fs", 1),
    ("driftgate-snapshot", 2),
    ("driftgate-simulator", 2),
    ("driftgate-http", 2),
    ("driftgate-compare", 3),
    ("driftgate-store", 3),
    ("driftgate-redfish", 3),
    ("driftgate-collect", 4),
    ("driftgate-report", 5),
    ("driftgate-fix", 5),
    ("driftgate-inventory", 5),
    ("driftgate-baseline", 6),
    ("driftgate-gate", 7),
    ("driftgate-fleet", 7),
    ("driftgate", 8),
];

/// Downward edges the design still refuses outside tests: a report renders what it is given
/// and reads nothing; the test data is for tests.
fn refused(from: &str, to: &str) -> bool {
    matches!(
        (from, to),
        ("driftgate-report", "driftgate-store" | "driftgate-collect") | (_, "driftgate-test-data")
    )
}

/// What is wrong with the crate graph `metadata` (the JSON of `cargo metadata --no-deps`)
/// describes, one line each.
fn wrong_edges(metadata: &Value) -> Vec<String> {
    let ranks: BTreeMap<&str, u8> = RANKS.iter().copied().collect();
    let mut wrong = Vec::new();
    let mut seen = BTreeSet::new();
    for package in metadata["packages"].as_array().expect("packages") {
        let from = package["name"].as_str().expect("a package name");
        seen.insert(from);
        let Some(&rank) = ranks.get(from) else {
            wrong.push(format!(
                "{from}: a workspace crate without a rank (add it to RANKS)"
            ));
            continue;
        };
        for dep in package["dependencies"].as_array().expect("dependencies") {
            let to = dep["name"].as_str().expect("a dependency name");
            // null for a normal dependency, "dev" or "build".
            let kind = dep["kind"].as_str().unwrap_or("normal");
            if dep["path"].is_null() {
                if ranks.contains_key(to) {
                    wrong.push(format!("{from} → {to}: an internal crate not by path"));
                }
                continue;
            }
            match ranks.get(to) {
                None => wrong.push(format!("{from} → {to} ({kind}): not in RANKS")),
                Some(&r) if r >= rank => wrong.push(format!(
                    "{from} (rank {rank}) → {to} (rank {r}), {kind}: not downward"
                )),
                Some(_) if kind != "dev" && refused(from, to) => {
                    wrong.push(format!("{from} → {to} ({kind}): refused by the design"));
                }
                Some(_) => {}
            }
        }
        // A member without `[lints] workspace = true` silently loses missing_docs and clippy's table.
        let manifest_path = package["manifest_path"].as_str().expect("a manifest path");
        let manifest: toml::Table = std::fs::read_to_string(manifest_path)
            .expect("a readable manifest")
            .parse()
            .expect("a TOML manifest");
        let inherits = manifest
            .get("lints")
            .and_then(|l| l.get("workspace"))
            .and_then(toml::Value::as_bool);
        if inherits != Some(true) {
            wrong.push(format!("{from}: no `[lints] workspace = true`"));
        }
    }
    for (name, _) in RANKS {
        if !seen.contains(name) {
            wrong.push(format!("{name}: in RANKS but not a workspace member"));
        }
    }
    wrong
}

/// `cargo metadata --no-deps` of the workspace, as JSON.
pub(crate) fn metadata() -> Value {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let out = Command::new(cargo)
        .args([
            "metadata",
            "--format-version",
            "1",
            "--no-deps",
            "--offline",
        ])
        .arg("--manifest-path")
        .arg(root().join("Cargo.toml"))
        .output()
        .expect("cargo metadata runs");
    assert!(
        out.status.success(),
        "cargo metadata: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("cargo metadata prints JSON")
}

#[test]
fn every_internal_dependency_points_down() {
    let wrong = wrong_edges(&metadata());
    assert!(
        wrong.is_empty(),
        "the crate graph goes against the arrows:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn an_upward_or_refused_edge_is_named() {
    let mut metadata = metadata();
    let packages = metadata["packages"].as_array_mut().unwrap();
    let edge = |name: &str, kind: Option<&str>| serde_json::json!({"name": name, "kind": kind, "path": "/somewhere"});
    let add = |packages: &mut Vec<Value>, from: &str, dep: Value| {
        let package = packages.iter_mut().find(|p| p["name"] == from).unwrap();
        package["dependencies"].as_array_mut().unwrap().push(dep);
    };
    add(
        packages,
        "driftgate-report",
        edge("driftgate-gate", Some("dev")),
    );
    add(packages, "driftgate-report", edge("driftgate-store", None));
    add(
        packages,
        "driftgate-http",
        edge("driftgate-compare", Some("dev")),
    );
    add(
        packages,
        "driftgate-model",
        edge("driftgate-test-data", Some("build")),
    );
    let wrong: BTreeSet<String> = wrong_edges(&metadata).into_iter().collect();
    let expected: BTreeSet<String> = [
        "driftgate-report (rank 5) → driftgate-gate (rank 7), dev: not downward",
        "driftgate-report → driftgate-store (normal): refused by the design",
        "driftgate-http (rank 2) → driftgate-compare (rank 3), dev: not downward",
        "driftgate-model → driftgate-test-data (build): refused by the design",
    ]
    .map(String::from)
    .into();
    assert_eq!(wrong, expected);
}
