//! The canonical snapshot text and its digest.
//!
//! Keys are sorted at every level, indentation is two spaces, every fact and every source
//! sits on one line, and the text ends with a newline, so `git diff` of two snapshots shows
//! exactly the facts that changed. The digest is the SHA-256 of this text rendered without
//! the `digest` line; since `digest` is never the last key, deleting that one line of a
//! canonical file gives the hashed bytes (`grep -v '^  "digest": ' FILE | sha256sum`).
//!
//! Every string and value is written straight into one buffer (the same bytes
//! `serde_json::to_string` gives, without a `String` per fact), and the file form is that
//! same buffer with the digest line spliced in: a snapshot is rendered once per digest. A
//! file already in this layout is not rendered at all when it is read: [`super::strict`]
//! checks it byte for byte and hashes it in place.

use sha2::{Digest as _, Sha256};

use crate::document::{SCHEMA_ID, Snapshot, SourceRecord};
use crate::value::{FactValue, Scalar};

/// The canonical text with its `digest` line.
pub(super) fn render_with_digest(snapshot: &Snapshot) -> String {
    let (body, digest_at) = render(snapshot);
    let digest = digest_of(&[&body]);
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
    digest_of(&[&render(snapshot).0])
}

/// `sha256:` + lowercase hex of the hashed form, given as consecutive pieces.
pub(super) fn digest_of(pieces: &[&[u8]]) -> String {
    let mut hasher = Sha256::new();
    for piece in pieces {
        hasher.update(piece);
    }
    format!("sha256:{}", hex::encode(hasher.finalize()))
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
            json_str(&mut out, path.as_str());
            out.extend_from_slice(b": ");
            json_value(&mut out, value);
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
    json_str(&mut out, &snapshot.tool);
    out.extend_from_slice(b"\n}\n");
    (out, digest_at)
}

/// `  "key": "value",` and a newline.
fn field(out: &mut Vec<u8>, key: &str, value: &str) {
    out.extend_from_slice(b"  \"");
    out.extend_from_slice(key.as_bytes());
    out.extend_from_slice(b"\": ");
    json_str(out, value);
    out.extend_from_slice(b",\n");
}

/// One source as a single-line object with sorted keys.
pub(super) fn source_line(out: &mut Vec<u8>, source: &SourceRecord) {
    out.push(b'{');
    if let Some(error) = &source.error {
        out.extend_from_slice(b"\"error\": ");
        json_str(out, error);
        out.extend_from_slice(b", ");
    }
    out.extend_from_slice(b"\"name\": ");
    json_str(out, &source.name);
    out.extend_from_slice(b", \"status\": ");
    json_str(out, source.status.as_str());
    out.extend_from_slice(b", \"target\": ");
    json_str(out, &source.target);
    out.push(b'}');
}

/// Appends a fact value's compact JSON, as `serde_json::to_string` spells it.
fn json_value(out: &mut Vec<u8>, value: &FactValue) {
    match value {
        FactValue::Scalar(scalar) => json_scalar(out, scalar),
        FactValue::List(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                json_scalar(out, item);
            }
            out.push(b']');
        }
    }
}

fn json_scalar(out: &mut Vec<u8>, scalar: &Scalar) {
    match scalar {
        Scalar::Text(text) => json_str(out, text),
        other => json(out, other),
    }
}

/// Appends `text` as a JSON string, as `serde_json::to_string` spells it. serde_json escapes
/// only `"`, `\` and control characters below U+0020, which most strings lack; those are
/// copied whole after one check the compiler vectorizes. serde_json's escape scan, one byte at
/// a time, would be the largest cost of verifying a digest.
fn json_str(out: &mut Vec<u8>, text: &str) {
    let plain = text.bytes().fold(true, |plain, byte| {
        plain & (byte >= b' ' && byte != b'"' && byte != b'\\')
    });
    if plain {
        out.push(b'"');
        out.extend_from_slice(text.as_bytes());
        out.push(b'"');
    } else {
        json(out, text);
    }
}

/// Appends the compact JSON of `value`, as `serde_json::to_string` spells it.
fn json(out: &mut Vec<u8>, value: &(impl serde::Serialize + ?Sized)) {
    serde_json::to_writer(out, value).expect("strings and fact values always serialize");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_and_values_are_written_as_serde_json_writes_them() {
        let mut texts: Vec<String> = (0u32..=0x80)
            .filter_map(char::from_u32)
            .map(|c| format!("a{c}b"))
            .collect();
        texts.extend(
            [
                "",
                "plain",
                "\u{85}",
                "é ü",
                "tab\there",
                "quote\"",
                "back\\slash",
                "\u{2028}",
            ]
            .map(str::to_owned),
        );
        for text in &texts {
            let mut out = Vec::new();
            json_str(&mut out, text);
            assert_eq!(out, serde_json::to_vec(text).unwrap(), "{text:?}");
        }
        let values = [
            FactValue::from("x\ny"),
            FactValue::from(true),
            FactValue::from(-3),
            FactValue::Scalar(Scalar::Number(serde_json::Number::from_f64(2.5).unwrap())),
            FactValue::list(vec![]),
            FactValue::list(vec![
                Scalar::Text("b\"".into()),
                Scalar::Bool(false),
                Scalar::Number(7.into()),
                Scalar::Text("a".into()),
            ]),
        ];
        for value in &values {
            let mut out = Vec::new();
            json_value(&mut out, value);
            assert_eq!(out, serde_json::to_vec(value).unwrap(), "{value:?}");
        }
    }
}
