//! The canonical snapshot text and its digest.
//!
//! Keys are sorted at every level, indentation is two spaces, every fact and every source
//! sits on one line, and the text ends with a newline, so `git diff` of two snapshots shows
//! exactly the facts that changed. The digest is the SHA-256 of this text rendered without
//! the `digest` line; since `digest` is never the last key, deleting that one line of a
//! canonical file gives the hashed bytes (`grep -v '^  "digest": ' FILE | sha256sum`).

use std::fmt::Write as _;

use sha2::{Digest as _, Sha256};

use super::{SCHEMA_ID, Snapshot, SourceRecord};

/// Renders `snapshot`; `digest` is included when given.
pub(super) fn render(snapshot: &Snapshot, digest: Option<&str>) -> String {
    let mut out = String::with_capacity(64 * (snapshot.facts.len() + 8));
    out.push_str("{\n");
    field(
        &mut out,
        "captured_at",
        &json_string(&snapshot.captured_at.to_string()),
    );
    if let Some(digest) = digest {
        field(&mut out, "digest", &json_string(digest));
    }
    if snapshot.facts.is_empty() {
        out.push_str("  \"facts\": {},\n");
    } else {
        out.push_str("  \"facts\": {\n");
        let last = snapshot.facts.len() - 1;
        for (i, (path, value)) in snapshot.facts.iter().enumerate() {
            let value = serde_json::to_string(value).expect("fact values always serialize");
            let comma = if i == last { "" } else { "," };
            let _ = writeln!(out, "    {}: {value}{comma}", json_string(path.as_str()));
        }
        out.push_str("  },\n");
    }
    field(&mut out, "host", &json_string(snapshot.host.as_str()));
    field(&mut out, "schema", &json_string(SCHEMA_ID));
    if snapshot.sources.is_empty() {
        out.push_str("  \"sources\": [],\n");
    } else {
        out.push_str("  \"sources\": [\n");
        let last = snapshot.sources.len() - 1;
        for (i, source) in snapshot.sources.iter().enumerate() {
            let comma = if i == last { "" } else { "," };
            let _ = writeln!(out, "    {}{comma}", source_line(source));
        }
        out.push_str("  ],\n");
    }
    let _ = writeln!(out, "  \"tool\": {}", json_string(&snapshot.tool));
    out.push_str("}\n");
    out
}

/// `sha256:` + lowercase hex of the canonical form without the digest.
pub(super) fn digest(snapshot: &Snapshot) -> String {
    let hash = Sha256::digest(render(snapshot, None).as_bytes());
    format!("sha256:{}", hex::encode(hash))
}

fn field(out: &mut String, key: &str, rendered_value: &str) {
    let _ = writeln!(out, "  \"{key}\": {rendered_value},");
}

/// One source as a single-line object with sorted keys.
fn source_line(source: &SourceRecord) -> String {
    let mut parts = Vec::with_capacity(4);
    if let Some(error) = &source.error {
        parts.push(format!("\"error\": {}", json_string(error)));
    }
    parts.push(format!("\"name\": {}", json_string(&source.name)));
    parts.push(format!(
        "\"status\": {}",
        json_string(source.status.as_str())
    ));
    parts.push(format!("\"target\": {}", json_string(&source.target)));
    format!("{{{}}}", parts.join(", "))
}

fn json_string(s: &str) -> String {
    serde_json::to_string(s).expect("strings always serialize")
}
