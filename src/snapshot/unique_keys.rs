//! Duplicate object keys in JSON text. `serde_json` keeps the last of two equal keys in a map,
//! so a snapshot that says a fact twice would be judged on whichever came last while a
//! reviewer reading the file may see the other: such a file is refused, not interpreted.

use std::collections::HashSet;
use std::fmt;

use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

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
pub fn first_duplicate_key(text: &str) -> Option<DuplicateKey> {
    let mut de = serde_json::Deserializer::from_str(text);
    (Walk { path: Vec::new() })
        .deserialize(&mut de)
        .ok()
        .flatten()
}

/// Walks any JSON value, remembering the object keys above it.
struct Walk {
    path: Vec<String>,
}

impl Walk {
    fn child(&self, key: Option<&str>) -> Walk {
        let mut path = self.path.clone();
        path.extend(key.map(str::to_owned));
        Walk { path }
    }
}

impl<'de> DeserializeSeed<'de> for Walk {
    type Value = Option<DuplicateKey>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Walk {
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
        while let Some(inner) = seq.next_element_seed(self.child(None))? {
            found = found.or(inner);
        }
        Ok(found)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut seen = HashSet::new();
        let mut found = None;
        while let Some(key) = map.next_key::<String>()? {
            let inner = map.next_value_seed(self.child(Some(&key)))?;
            if found.is_none() && !seen.insert(key.clone()) {
                found = Some(DuplicateKey {
                    within: self.path.clone(),
                    key,
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
        ] {
            let found = first_duplicate_key(text).map(|d| d.to_string());
            assert_eq!(found.as_deref(), expected, "{text}");
        }
    }
}
