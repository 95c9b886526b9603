//! Fact paths: `/`-separated, keyed by stable identity (MAC, component id, `naa.` id), never
//! by list position.

use std::borrow::{Borrow, Cow};
use std::fmt;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Serialize};

/// A validated fact path such as `nic/00:0a:f7:12:34:56/bmc/dcbx_mode`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct FactPath(String);

/// Why a string is not a fact path.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid fact path {path:?}: {reason}")]
pub struct BadFactPath {
    /// The rejected text.
    pub path: String,
    /// What is wrong with it.
    pub reason: &'static str,
}

impl FactPath {
    /// Validates `path`: non-empty segments, no whitespace or control characters.
    pub fn new(path: impl Into<String>) -> Result<Self, BadFactPath> {
        let path = path.into();
        match defect(&path) {
            Some(reason) => Err(BadFactPath { path, reason }),
            None => Ok(Self(path)),
        }
    }

    /// The path as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// What one pass over a path's bytes finds.
struct Scan {
    /// An ASCII space, control character or DEL.
    blank: bool,
    /// A byte of a non-ASCII character.
    wide: bool,
    /// Two `/` in a row.
    doubled: bool,
    /// A backslash: in a JSON string, where an escape starts.
    backslash: bool,
}

/// Every fact of every snapshot read is validated here, so the bytes are checked in one loop
/// without early exits, which the compiler turns into vector code.
fn scan(bytes: &[u8]) -> Scan {
    let mut found = Scan {
        blank: false,
        wide: false,
        doubled: false,
        backslash: false,
    };
    for &byte in bytes {
        // ASCII whitespace and control characters are exactly the bytes up to a space and DEL.
        found.blank |= byte <= b' ' || byte == 0x7f;
        found.wide |= !byte.is_ascii();
        found.backslash |= byte == b'\\';
    }
    found.doubled = bytes
        .iter()
        .zip(bytes.get(1..).unwrap_or_default())
        .fold(false, |doubled, (&a, &b)| {
            doubled | (a == b'/' && b == b'/')
        });
    found
}

/// What is wrong with `path`, if anything; paths are ASCII but for the rare vendor string,
/// checked by `char`.
fn defect(path: &str) -> Option<&'static str> {
    defect_of(path, &scan(path.as_bytes()))
}

fn defect_of(path: &str, scan: &Scan) -> Option<&'static str> {
    let bytes = path.as_bytes();
    let (Some(first), Some(last)) = (bytes.first(), bytes.last()) else {
        return Some("empty");
    };
    let blank =
        scan.blank || (scan.wide && path.chars().any(|c| c.is_whitespace() || c.is_control()));
    if *first == b'/' || *last == b'/' || scan.doubled {
        Some("empty segment (leading, trailing or doubled `/`)")
    } else if blank {
        Some("whitespace or control character")
    } else {
        None
    }
}

impl FactPath {
    /// The text between a JSON string's quotes as a path, if it is one as it stands: `None`
    /// for a text that is not a fact path or has a backslash (an escape would make it other
    /// text). A path has no control character, so this is also every check a JSON string's
    /// plain text needs, in the same pass.
    pub(super) fn from_plain_json(text: &str) -> Option<Self> {
        Self::is_plain_json(text).then(|| Self(text.to_owned()))
    }

    /// Whether [`FactPath::from_plain_json`] takes `text`, without making the path.
    pub(super) fn is_plain_json(text: &str) -> bool {
        let found = scan(text.as_bytes());
        !found.backslash && defect_of(text, &found).is_none()
    }
}

/// Makes `text` (a device id, a vendor name) usable as one path segment: trimmed, with
/// whitespace, control characters and `/` replaced by `_`; `_` when nothing is left.
pub fn path_segment(text: &str) -> String {
    let segment: String = text
        .trim()
        .chars()
        .map(|c| {
            if c.is_whitespace() || c.is_control() || c == '/' {
                '_'
            } else {
                c
            }
        })
        .collect();
    if segment.is_empty() {
        "_".to_owned()
    } else {
        segment
    }
}

impl TryFrom<String> for FactPath {
    type Error = BadFactPath;
    fn try_from(s: String) -> Result<Self, BadFactPath> {
        Self::new(s)
    }
}

impl From<FactPath> for String {
    fn from(p: FactPath) -> String {
        p.0
    }
}

impl Borrow<str> for FactPath {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for FactPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl JsonSchema for FactPath {
    fn schema_name() -> Cow<'static, str> {
        "FactPath".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "`/`-separated fact path keyed by stable identity, e.g. `nic/00:0a:f7:12:34:56/bmc/dcbx_mode`.",
            "type": "string",
            "pattern": "^[^/\\s]+(/[^/\\s]+)*$"
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn validates_segments() {
        assert!(FactPath::new("nic/00:0a:f7:12:34:56/bmc/dcbx_mode").is_ok());
        for bad in [
            "",
            "/a",
            "a/",
            "a//b",
            "/",
            "a b",
            "a/\tb",
            "a/\u{b}b",
            "a\u{a0}b",
            "a/\u{2003}",
            "a/\u{85}",
        ] {
            assert!(FactPath::new(bad).is_err(), "{bad:?}");
        }
        assert_eq!(
            FactPath::new("a b//").unwrap_err().reason,
            "empty segment (leading, trailing or doubled `/`)"
        );
        assert!(FactPath::new("nic/Intel®_X710/ünïcode").is_ok());
        let p = FactPath::new(format!(
            "storage/satp_rule/{}/psp",
            path_segment(" DVD-RW DU8A6SH/x ")
        ))
        .unwrap();
        assert_eq!(p.as_str(), "storage/satp_rule/DVD-RW_DU8A6SH_x/psp");
        assert_eq!(path_segment("  "), "_");
    }

    /// A JSON string's text as it stands is a path when `FactPath::new` takes it and it has no
    /// backslash.
    #[test]
    fn plain_json_text_is_a_path_as_new_would_take_it() {
        for text in [
            "nic/00:0a:f7:12:34:56/bmc/dcbx_mode",
            "nic/Intel®_X710/ünïcode",
            "a",
            "",
            "/a",
            "a//b",
            "a b",
            "a/\u{7f}",
            "a/\u{85}",
            "a\\b",
            "a\\",
        ] {
            let plain = FactPath::from_plain_json(text);
            let new = FactPath::new(text).ok().filter(|_| !text.contains('\\'));
            assert_eq!(plain, new, "{text:?}");
        }
        assert!(FactPath::new("a\\b").is_ok());
        assert!(FactPath::from_plain_json("a\\b").is_none());
    }
}
