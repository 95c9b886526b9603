//! The canonical snapshot text and its digest.
//!
//! Keys are sorted at every level, indentation is two spaces, every fact and every source
//! sits on one line, and the text ends with a newline, so `git diff` of two snapshots shows
//! exactly the facts that changed. The digest is the SHA-256 of this text rendered without
//! the `digest` line; since `digest` is never the last key, deleting that one line of a
//! canonical file gives the hashed bytes (`grep -v '^  "digest": ' FILE | sha256sum`).
//!
//! Every string and value is written straight into one buffer by `serde_json` (the same bytes
//! `serde_json::to_string` gives, without a `String` per fact), and the file form is that
//! same buffer with the digest line spliced in: a snapshot is rendered once per digest.

use sha2::{Digest as _, Sha256};

use super::{SCHEMA_ID, Snapshot, SourceRecord};

/// The canonical text with its `digest` line.
pub(super) fn render_with_digest(snapshot: &Snapshot) -> String {
    let (body, digest_at) = render(snapshot);
    let digest = digest_of(&body);
    splice(&body, digest_at, &digest)
}

/// The canonical text with a `digest` line already known to be its digest (verified when it
/// was parsed): rendered once and not hashed again.
pub(super) fn render_with_verified_digest(snapshot: &Snapshot, digest: &str) -> String {
    let (body, digest_at) = render(snapshot);
    splice(&body, digest_at, digest)
}

/// `body` with the digest line at `digest_at`.
fn splice(body: &[u8], digest_at: usize, digest: &str) -> String {
    let mut out = Vec::with_capacity(body.len() + digest.len() + 16);
    out.extend_from_slice(&body[..digest_at]);
    field(&mut out, "digest", digest);
    out.extend_from_slice(&body[digest_at..]);
    String::from_utf8(out).expect("serde_json writes UTF-8 and so do the literals here")
}

/// `sha256:` + lowercase hex of the canonical form without the digest.
pub(super) fn digest(snapshot: &Snapshot) -> String {
    digest_of(&render(snapshot).0)
}

fn digest_of(body: &[u8]) -> String {
    format!("sha256:{}", hex::encode(Sha256::digest(body)))
}

/// The canonical text without the digest line, and the offset where that line belongs (right
/// after `captured_at`, the only key sorted before it).
fn render(snapshot: &Snapshot) -> (Vec<u8>, usize) {
    let mut out = Vec::with_capacity(80 * (snapshot.facts.len() + 8));
    out.extend_from_slice(b"{\n");
    field(&mut out, "captured_at", &snapshot.captured_at.to_string());
    let digest_at = out.len();
    if snapshot.facts.is_empty() {
        out.extend_from_slice(b"  \"facts\": {},\n");
    } else {
        out.extend_from_slice(b"  \"facts\": {\n");
        let last = snapshot.facts.len() - 1;
        for (i, (path, value)) in snapshot.facts.iter().enumerate() {
            out.extend_from_slice(b"    ");
            json(&mut out, path.as_str());
            out.extend_from_slice(b": ");
            json(&mut out, value);
            out.extend_from_slice(if i == last { b"\n" } else { b",\n" });
        }
        out.extend_from_slice(b"  },\n");
    }
    field(&mut out, "host", snapshot.host.as_str());
    field(&mut out, "schema", SCHEMA_ID);
    if snapshot.sources.is_empty() {
        out.extend_from_slice(b"  \"sources\": [],\n");
    } else {
        out.extend_from_slice(b"  \"sources\": [\n");
        let last = snapshot.sources.len() - 1;
        for (i, source) in snapshot.sources.iter().enumerate() {
            out.extend_from_slice(b"    ");
            source_line(&mut out, source);
            out.extend_from_slice(if i == last { b"\n" } else { b",\n" });
        }
        out.extend_from_slice(b"  ],\n");
    }
    out.extend_from_slice(b"  \"tool\": ");
    json(&mut out, &snapshot.tool);
    out.extend_from_slice(b"\n}\n");
    (out, digest_at)
}

/// `  "key": "value",` and a newline.
fn field(out: &mut Vec<u8>, key: &str, value: &str) {
    out.extend_from_slice(b"  \"");
    out.extend_from_slice(key.as_bytes());
    out.extend_from_slice(b"\": ");
    json(out, value);
    out.extend_from_slice(b",\n");
}

/// One source as a single-line object with sorted keys.
fn source_line(out: &mut Vec<u8>, source: &SourceRecord) {
    out.push(b'{');
    if let Some(error) = &source.error {
        out.extend_from_slice(b"\"error\": ");
        json(out, error);
        out.extend_from_slice(b", ");
    }
    out.extend_from_slice(b"\"name\": ");
    json(out, &source.name);
    out.extend_from_slice(b", \"status\": ");
    json(out, source.status.as_str());
    out.extend_from_slice(b", \"target\": ");
    json(out, &source.target);
    out.push(b'}');
}

/// Appends the compact JSON of `value`, as `serde_json::to_string` spells it.
fn json(out: &mut Vec<u8>, value: &(impl serde::Serialize + ?Sized)) {
    serde_json::to_writer(out, value).expect("strings and fact values always serialize");
}
