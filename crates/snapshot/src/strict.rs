//! A reader of exactly the layout [`super::canonical`] writes, checked byte for byte as it goes.
//!
//! Every snapshot driftgate writes is canonical, so reading one with a general JSON parser and
//! then rendering it again to hash it does the work twice. This reader accepts a text only if
//! each piece it reads is the bytes the renderer would write for the value read, so the text
//! without its `digest` line *is* the hashed form and is hashed in place. Anything else (an
//! escape in a string, a hand-edited file, another key order, a trailing space) makes it give
//! up, and the caller reads the text with serde, which explains what is wrong; giving up is
//! never an error of its own.

use crate::document::{SCHEMA_ID, Snapshot, SourceRecord};
use crate::facts::Facts;
use crate::host::HostName;
use crate::path::FactPath;
use crate::value::{FactValue, Scalar};

/// A canonical text's snapshot, the digest its file records and the digest its content has.
pub(super) struct Read<'t> {
    /// What the text says.
    pub snapshot: Snapshot,
    /// The `digest` line's value.
    pub recorded: &'t str,
    /// The `sha256:` digest of the text without that line.
    pub computed: String,
}

/// The digests of a canonical text that was checked and not kept.
pub(super) struct Checked<'t> {
    /// The `digest` line's value.
    pub recorded: &'t str,
    /// The `sha256:` digest of the text without that line.
    pub computed: String,
}

/// Reads `text` if it is in the canonical layout; `None` when it is not (or not a snapshot).
pub(super) fn read(text: &str) -> Option<Read<'_>> {
    walk::<true>(text).map(|(snapshot, recorded, computed)| Read {
        snapshot,
        recorded,
        computed,
    })
}

/// Checks `text` as [`read`] does without building its facts, for a caller that only needs to
/// know that the text is a canonical snapshot and what its digests are (`baseline show` prints
/// the text itself: building the facts, a path allocated for each, only to drop them was 4 % of
/// its instructions).
pub(super) fn check(text: &str) -> Option<Checked<'_>> {
    walk::<false>(text).map(|(_, recorded, computed)| Checked { recorded, computed })
}

/// The pass behind [`read`] and [`check`]: the snapshot (with no facts unless `KEEP_FACTS`),
/// the recorded digest and the computed one.
fn walk<const KEEP_FACTS: bool>(text: &str) -> Option<(Snapshot, &str, String)> {
    let mut at = Cursor { text, at: 0 };
    at.lit(b"{\n  \"captured_at\": ")?;
    let captured = at.string()?;
    let captured_at: jiff::Timestamp = captured.parse().ok()?;
    if captured_at.to_string() != captured {
        return None;
    }
    at.lit(b",\n")?;
    let digest_from = at.at;
    at.lit(b"  \"digest\": ")?;
    let recorded = at.string()?;
    at.lit(b",\n")?;
    let digest_to = at.at;
    at.lit(b"  \"facts\": {")?;
    let facts = if at.lit(b"},\n").is_some() {
        Facts::new()
    } else {
        at.lit(b"\n")?;
        facts::<KEEP_FACTS>(&mut at)?
    };
    at.lit(b"  \"host\": ")?;
    let host = HostName::new(at.string()?).ok()?;
    at.lit(b",\n  \"schema\": ")?;
    if at.string()? != SCHEMA_ID {
        return None;
    }
    at.lit(b",\n  \"sources\": [")?;
    let sources = if at.lit(b"],\n").is_some() {
        Vec::new()
    } else {
        at.lit(b"\n")?;
        sources(&mut at)?
    };
    at.lit(b"  \"tool\": ")?;
    let tool = at.string()?.to_owned();
    at.lit(b"\n}\n")?;
    if at.at != text.len() {
        return None;
    }
    Some((
        Snapshot {
            host,
            captured_at,
            tool,
            sources,
            facts,
        },
        recorded,
        super::canonical::digest_of(&[
            &text.as_bytes()[..digest_from],
            &text.as_bytes()[digest_to..],
        ]),
    ))
}

/// Fact lines up to and including the `  },` that closes them, paths strictly ascending;
/// kept only if `KEEP`.
fn facts<const KEEP: bool>(at: &mut Cursor<'_>) -> Option<Facts> {
    // One fact a line: the lines left are a bound that never grows the list. A guess from the
    // text's length fell short of the Dell capture's facts, and the list was copied at its end.
    // A check only (`KEEP` false) builds no list, so it does not count.
    let lines = if KEEP {
        memchr::memchr_iter(b'\n', &at.text.as_bytes()[at.at..]).count()
    } else {
        0
    };
    let mut facts: Vec<(FactPath, FactValue)> = Vec::with_capacity(lines);
    let mut last: Option<&str> = None;
    loop {
        at.lit(b"    ")?;
        // Checked as it is made a path: plain text and a path at once.
        let path = at.quoted()?;
        if last.is_some_and(|last| last >= path) {
            return None;
        }
        last = Some(path);
        let path = if KEEP {
            Some(FactPath::from_plain_json(path)?)
        } else if FactPath::is_plain_json(path) {
            None
        } else {
            return None;
        };
        at.lit(b": ")?;
        let value = value(at)?;
        if let Some(path) = path {
            facts.push((path, value));
        }
        if at.lit(b",\n").is_none() {
            at.lit(b"\n  },\n")?;
            return Some(Facts::from_sorted(facts));
        }
    }
}

/// Source lines up to and including the `  ],` that closes them. There are a handful per
/// snapshot, so each is read by serde and kept only if it renders back to the same bytes.
fn sources(at: &mut Cursor<'_>) -> Option<Vec<SourceRecord>> {
    let mut sources = Vec::new();
    loop {
        at.lit(b"    ")?;
        let rest = &at.text[at.at..];
        let line = &rest[..rest.find('\n')?];
        let object = line.strip_suffix(',').unwrap_or(line);
        let source: SourceRecord = serde_json::from_str(object).ok()?;
        let mut rendered = Vec::with_capacity(object.len());
        super::canonical::source_line(&mut rendered, &source);
        if rendered != object.as_bytes() {
            return None;
        }
        sources.push(source);
        at.at += object.len();
        if at.lit(b",\n").is_none() {
            at.lit(b"\n  ],\n")?;
            return Some(sources);
        }
    }
}

fn value(at: &mut Cursor<'_>) -> Option<FactValue> {
    if at.lit(b"[").is_none() {
        return scalar(at).map(FactValue::Scalar);
    }
    let mut items: Vec<Scalar> = Vec::new();
    if at.lit(b"]").is_some() {
        return Some(FactValue::List(items));
    }
    loop {
        let item = scalar(at)?;
        // serde's reader refuses an unsorted list, with its reason.
        if items.last().is_some_and(|last| *last > item) {
            return None;
        }
        items.push(item);
        if at.lit(b",").is_none() {
            at.lit(b"]")?;
            return Some(FactValue::List(items));
        }
    }
}

fn scalar(at: &mut Cursor<'_>) -> Option<Scalar> {
    match at.text.as_bytes().get(at.at)? {
        b'"' => at.string().map(|text| Scalar::Text(text.into())),
        b't' => at.lit(b"true").map(|()| Scalar::Bool(true)),
        b'f' => at.lit(b"false").map(|()| Scalar::Bool(false)),
        b'-' | b'0'..=b'9' => {
            let rest = &at.text[at.at..];
            let len = rest
                .bytes()
                .position(|b| !matches!(b, b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E'))
                .unwrap_or(rest.len());
            let number = number(&rest[..len])?;
            at.at += len;
            Some(Scalar::Number(number))
        }
        _ => None,
    }
}

/// `token` as a number, if serde_json writes that number as exactly `token`.
fn number(token: &str) -> Option<serde_json::Number> {
    let digits = token.strip_prefix('-').unwrap_or(token);
    let integer = !digits.is_empty()
        && digits.bytes().all(|b| b.is_ascii_digit())
        && (digits == "0" || !digits.starts_with('0'));
    if integer {
        // `-0` is a float to serde_json (`-0.0`), so it falls to the general check below.
        if let Ok(n) = token.parse::<u64>() {
            return Some(n.into());
        }
        if let Ok(n) = token.parse::<i64>()
            && n < 0
        {
            return Some(n.into());
        }
    }
    let number: serde_json::Number = token.parse().ok()?;
    (serde_json::to_string(&number).ok()? == token).then_some(number)
}

/// A position in the text; every step either matches and moves on or gives up.
struct Cursor<'t> {
    text: &'t str,
    at: usize,
}

impl<'t> Cursor<'t> {
    /// Moves past `expected` if the text continues with it.
    fn lit(&mut self, expected: &[u8]) -> Option<()> {
        let found = self
            .text
            .as_bytes()
            .get(self.at..self.at + expected.len())?;
        (found == expected).then(|| self.at += expected.len())
    }

    /// A JSON string that serde_json would write as it stands: no escape, no control
    /// character. The bytes are checked in one loop without early exits (vector code): a
    /// byte-at-a-time scan was a tenth of a fleet check.
    fn string(&mut self) -> Option<&'t str> {
        let content = self.quoted()?;
        let plain = content
            .bytes()
            .fold(true, |plain, b| plain & (b >= b' ' && b != b'\\'));
        plain.then_some(content)
    }

    /// The text between a quote here and the next one (found by `memchr`), unchecked: the
    /// caller checks that it needs no escape. Its quotes are ASCII, so the slice between them
    /// is whole characters.
    fn quoted(&mut self) -> Option<&'t str> {
        self.lit(b"\"")?;
        let start = self.at;
        let end = start + memchr::memchr(b'"', &self.text.as_bytes()[start..])?;
        self.at = end + 1;
        Some(&self.text[start..end])
    }
}
