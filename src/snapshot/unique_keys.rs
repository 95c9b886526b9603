//! Duplicate object keys in JSON text. `serde_json` keeps the last of two equal keys in a map,
//! so a snapshot that says a fact twice would be judged on whichever came last while a
//! reviewer reading the file may see the other: such a file is refused, not interpreted.

use std::borrow::Cow;
use std::collections::HashSet;
use std::fmt;

use serde::Deserialize;
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

use super::{FactPath, FactValue, Facts};

/// Deserializes a snapshot's `facts` object, refusing a path given twice (a map would keep the
/// last). Every other object of a snapshot is a struct, whose derived deserializer refuses a
/// repeated field itself, so a whole document parses in one pass; [`first_duplicate_key`] runs
/// only when that parse fails, to say where. Canonical files list facts in ascending order:
/// they are collected as they come and the map is built from them in one sweep.
pub(super) fn unique_facts<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Facts, D::Error> {
    deserializer.deserialize_map(FactsVisitor)
}

struct FactsVisitor;

impl<'de> Visitor<'de> for FactsVisitor {
    type Value = Facts;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object of fact paths and values")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Facts, A::Error> {
        let mut facts: Vec<(FactPath, FactValue)> =
            Vec::with_capacity(map.size_hint().unwrap_or(0));
        let mut ascending = true;
        while let Some((path, value)) = map.next_entry::<FactPath, FactValue>()? {
            ascending &= facts.last().is_none_or(|(last, _)| *last < path);
            facts.push((path, value));
        }
        if !ascending {
            facts.sort_by(|a, b| a.0.cmp(&b.0));
            if let Some(pair) = facts.windows(2).find(|pair| pair[0].0 == pair[1].0) {
                return Err(de::Error::custom(format!(
                    "fact {:?} appears twice",
                    pair[0].0.as_str()
                )));
            }
        }
        Ok(facts.into_iter().collect())
    }
}

/// A key that appears twice in one object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DuplicateKey {
    /// The keys of the objects around it, outermost first (array levels are skipped).
    pub within: Vec<String>,
    /// The duplicated key.
    pub key: String,
}

impl fmt::Display for DuplicateKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "key {:?} appears twice", self.key)?;
        match self.within.as_slice() {
            [] => f.write_str(" at the top level"),
            within => write!(f, " in {:?}", within.join(" → ")),
        }
    }
}

/// The first key that appears twice in one JSON object of `text`, or `None`. Text that is not
/// JSON yields `None`: the caller's own parse reports that, with its position.
///
/// Keys are borrowed from
/// `text` (owned only when they hold escapes), the path above a value is one stack of them,
/// and an object whose keys come in ascending order (every canonical file) needs no set.
pub fn first_duplicate_key(text: &str) -> Option<DuplicateKey> {
    let mut de = serde_json::Deserializer::from_str(text);
    let mut path = Vec::new();
    (Walk { path: &mut path })
        .deserialize(&mut de)
        .ok()
        .flatten()
}

/// Walks any JSON value; `path` holds the object keys above it.
struct Walk<'p, 'de> {
    path: &'p mut Vec<Cow<'de, str>>,
}

/// One object key, borrowed from the text when it has no escapes.
struct Key<'de>(Cow<'de, str>);

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_str(KeyVisitor)
    }
}

struct KeyVisitor;

impl<'de> Visitor<'de> for KeyVisitor {
    type Value = Key<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object key")
    }
    fn visit_borrowed_str<E>(self, key: &'de str) -> Result<Key<'de>, E> {
        Ok(Key(Cow::Borrowed(key)))
    }
    fn visit_str<E>(self, key: &str) -> Result<Key<'de>, E> {
        Ok(Key(Cow::Owned(key.to_owned())))
    }
    fn visit_string<E>(self, key: String) -> Result<Key<'de>, E> {
        Ok(Key(Cow::Owned(key)))
    }
}

/// The keys of one object so far: a list while they ascend, a set from the first that does not.
#[derive(Default)]
struct Keys<'de> {
    ascending: Vec<Cow<'de, str>>,
    seen: Option<HashSet<Cow<'de, str>>>,
}

impl<'de> Keys<'de> {
    /// Records `key`; false when the object already had it.
    fn insert(&mut self, key: Cow<'de, str>) -> bool {
        if let Some(seen) = &mut self.seen {
            return seen.insert(key);
        }
        if self.ascending.last().is_none_or(|last| *last < key) {
            self.ascending.push(key);
            return true;
        }
        let mut seen: HashSet<Cow<'de, str>> = self.ascending.drain(..).collect();
        let new = seen.insert(key);
        self.seen = Some(seen);
        new
    }
}

impl<'de> DeserializeSeed<'de> for Walk<'_, 'de> {
    type Value = Option<DuplicateKey>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Walk<'_, 'de> {
    type Value = Option<DuplicateKey>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut found = None;
        while let Some(inner) = seq.next_element_seed(Walk {
            path: &mut *self.path,
        })? {
            found = found.or(inner);
        }
        Ok(found)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut keys = Keys::default();
        let mut found = None;
        while let Some(Key(key)) = map.next_key::<Key<'de>>()? {
            self.path.push(key);
            let inner = map.next_value_seed(Walk {
                path: &mut *self.path,
            })?;
            let key = self.path.pop().expect("the key pushed above");
            if found.is_none() && !keys.insert(key.clone()) {
                let within = self.path.iter().map(|k| k.clone().into_owned()).collect();
                found = Some(DuplicateKey {
                    within,
                    key: key.into_owned(),
                });
            }
            found = found.or(inner);
        }
        Ok(found)
    }
}

#[cfg(test)]
mod tests {
    use super::first_duplicate_key;

    #[test]
    fn finds_duplicates_at_any_depth_and_names_their_path() {
        for (text, expected) in [
            (r#"{"a": 1, "b": 2}"#, None),
            (
                r#"{"a": 1, "a": 2}"#,
                Some("key \"a\" appears twice at the top level"),
            ),
            (
                r#"{"facts": {"x/y": true, "x/y": false}}"#,
                Some("key \"x/y\" appears twice in \"facts\""),
            ),
            (
                r#"{"sources": [{"name": "a"}, {"name": "b", "name": "c"}]}"#,
                Some("key \"name\" appears twice in \"sources\""),
            ),
            (r#"{"a": {"k": 1}, "b": {"k": 1}}"#, None),
            (
                r#"{"o": [1, {"z": [], "z": {}}]}"#,
                Some("key \"z\" appears twice in \"o\""),
            ),
            ("not json", None),
            // An escaped spelling of the same key is the same key.
            (
                r#"{"facts": {"a": 1, "b": 2, "\u0061": 3}}"#,
                Some("key \"a\" appears twice in \"facts\""),
            ),
            // Out of order (the set takes over from the ascending list), found later on.
            (
                r#"{"f": {"c": 1, "a": 2, "b": 3, "d": 4, "a": 5}}"#,
                Some("key \"a\" appears twice in \"f\""),
            ),
            (r#"{"f": {"c": 1, "a": 2, "b": 3, "d": 4}}"#, None),
            // The first duplicate met wins, and the path names only the objects above it.
            (
                r#"{"x": {"y": {"k": 1, "k": 2}}, "x": 1}"#,
                Some("key \"k\" appears twice in \"x → y\""),
            ),
        ] {
            let found = first_duplicate_key(text).map(|d| d.to_string());
            assert_eq!(found.as_deref(), expected, "{text}");
        }
    }
}
