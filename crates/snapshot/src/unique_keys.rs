//! Duplicate object keys in JSON text. `serde_json` keeps the last of two equal keys in a map,
//! so a snapshot that says a fact twice would be judged on whichever came last while a
//! reviewer reading the file may see the other: such a file is refused, not interpreted. A
//! BMC's answer is read the same way ([`parse_unique`]).

use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::map::Entry;
use serde_json::{Map, Number, Value};

use crate::facts::Facts;
use crate::path::FactPath;
use crate::value::FactValue;

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
/// JSON (before such a key) yields `None`: the caller's own parse reports that, with its
/// position.
pub(crate) fn first_duplicate_key(text: &str) -> Option<DuplicateKey> {
    match parse_unique(text.as_bytes()) {
        Err(UniqueKeysError::Duplicate(duplicate)) => Some(duplicate),
        Ok(_) | Err(UniqueKeysError::Json(_)) => None,
    }
}

/// Why JSON text was not read as one value.
#[derive(Debug, thiserror::Error)]
pub enum UniqueKeysError {
    /// It is not JSON, or not only one value.
    #[error(transparent)]
    Json(#[from] serde_json::Error),
    /// An object gives a key twice.
    #[error("{0}")]
    Duplicate(DuplicateKey),
}

/// `bytes` as one JSON value, refused at the first object that gives a key twice (what a
/// document that says two things means is not for the reader to pick). One pass, at the cost
/// of `serde_json::from_slice::<Value>`: the object being built finds the repeated key, and
/// the keys above it are collected only on the way out of a refusal.
pub fn parse_unique(bytes: &[u8]) -> Result<Value, UniqueKeysError> {
    parse_unique_pruned(bytes, &Pruned::default())
}

/// What [`parse_unique_pruned`] does not build, by paths of object keys from the top, arrays
/// passed through (`["RegistryEntries", "Attributes"]` is every attribute of a registry).
#[derive(Debug, Clone, Copy, Default)]
pub struct Pruned<'p> {
    /// Members skipped.
    pub skip: &'p [&'p [&'p str]],
    /// Objects of which only the members named are built: `(path, names)`.
    pub keep_only: &'p [(&'p [&'p str], &'p [&'p str])],
}

/// [`parse_unique`] without the members `pruned` names: they are skipped as the text is
/// read, never built, so a reader that never looks at them does not pay for them. What is
/// skipped is not checked for keys given twice either: it is not read.
pub fn parse_unique_pruned(bytes: &[u8], pruned: &Pruned<'_>) -> Result<Value, UniqueKeysError> {
    let mut found = None;
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let rules: Vec<Rule<'_>> = pruned
        .skip
        .iter()
        .map(|path| Rule::Skip(path))
        .chain(
            pruned
                .keep_only
                .iter()
                .map(|(path, kept)| Rule::KeepOnly(path, kept)),
        )
        .collect();
    let parsed = UniqueValue {
        found: &mut found,
        rules: &rules,
    }
    .deserialize(&mut de)
    .and_then(|value| de.end().map(|()| value));
    match (parsed, found) {
        (_, Some(mut duplicate)) => {
            // Collected innermost first, on the way out.
            duplicate.within.reverse();
            Err(UniqueKeysError::Duplicate(duplicate))
        }
        (Ok(value), None) => Ok(value),
        (Err(error), None) => Err(UniqueKeysError::Json(error)),
    }
}

/// A [`Pruned`] path, relative to the value being built.
#[derive(Debug, Clone, Copy)]
enum Rule<'p> {
    /// The member at this path is skipped.
    Skip(&'p [&'p str]),
    /// Of the object(s) at this path, only these members are built.
    KeepOnly(&'p [&'p str], &'p [&'p str]),
}

/// Builds any JSON value; on a key given twice, records it in `found` and stops the parse.
/// `rules`: what below this value is not built.
struct UniqueValue<'f, 'a, 'p> {
    found: &'f mut Option<DuplicateKey>,
    rules: &'a [Rule<'p>],
}

impl<'de> DeserializeSeed<'de> for UniqueValue<'_, '_, '_> {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for UniqueValue<'_, '_, '_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, value: bool) -> Result<Value, E> {
        Ok(Value::Bool(value))
    }
    fn visit_i64<E>(self, value: i64) -> Result<Value, E> {
        Ok(Value::Number(value.into()))
    }
    fn visit_u64<E>(self, value: u64) -> Result<Value, E> {
        Ok(Value::Number(value.into()))
    }
    fn visit_f64<E>(self, value: f64) -> Result<Value, E> {
        // As serde_json's own `Value` does: a non-finite number cannot be JSON.
        Ok(Number::from_f64(value).map_or(Value::Null, Value::Number))
    }
    fn visit_str<E>(self, value: &str) -> Result<Value, E> {
        Ok(Value::String(value.to_owned()))
    }
    fn visit_string<E>(self, value: String) -> Result<Value, E> {
        Ok(Value::String(value))
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        while let Some(item) = seq.next_element_seed(UniqueValue {
            found: &mut *self.found,
            rules: self.rules,
        })? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let kept = self.rules.iter().find_map(|rule| match rule {
            Rule::KeepOnly([], kept) => Some(*kept),
            _ => None,
        });
        let mut members = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let mut skipped = kept.is_some_and(|kept| !kept.contains(&key.as_str()));
            // The rules that continue below this key (most values have none).
            let mut below = Vec::new();
            for rule in self.rules {
                match *rule {
                    Rule::Skip([first, rest @ ..]) if *first == key => {
                        skipped |= rest.is_empty();
                        below.push(Rule::Skip(rest));
                    }
                    Rule::KeepOnly([first, rest @ ..], kept) if *first == key => {
                        below.push(Rule::KeepOnly(rest, kept));
                    }
                    _ => {}
                }
            }
            if skipped {
                map.next_value::<de::IgnoredAny>()?;
                continue;
            }
            let value = match map.next_value_seed(UniqueValue {
                found: &mut *self.found,
                rules: &below,
            }) {
                Ok(value) => value,
                Err(error) => {
                    if let Some(duplicate) = self.found.as_mut() {
                        duplicate.within.push(key);
                    }
                    return Err(error);
                }
            };
            match members.entry(key) {
                Entry::Vacant(slot) => {
                    slot.insert(value);
                }
                Entry::Occupied(given) => {
                    *self.found = Some(DuplicateKey {
                        within: Vec::new(),
                        key: given.key().clone(),
                    });
                    return Err(de::Error::custom("a key appears twice"));
                }
            }
        }
        Ok(Value::Object(members))
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use serde_json::Value;

    use super::{Pruned, UniqueKeysError, first_duplicate_key, parse_unique, parse_unique_pruned};

    #[test]
    fn pruned_members_are_not_built_and_the_rest_is_checked_as_ever() {
        let text = br#"{"RegistryEntries": {"Attributes": [{"AttributeName": "A", "MenuPath": "./x"},
            {"AttributeName": "B", "MenuPath": {"deep": [1, 2]}}], "Dependencies": [{"x": 1, "x": 2}]},
            "Id": "R"}"#;
        let pruned = &Pruned {
            skip: &[
                &["RegistryEntries", "Dependencies"],
                &["RegistryEntries", "Attributes", "MenuPath"],
            ],
            keep_only: &[],
        };
        let value = parse_unique_pruned(text, pruned).unwrap();
        assert_eq!(
            value,
            serde_json::json!({"RegistryEntries": {"Attributes": [
                {"AttributeName": "A"}, {"AttributeName": "B"}]}, "Id": "R"})
        );
        // What is read is still refused when it says a key twice.
        let twice = br#"{"RegistryEntries": {"Attributes": [{"AttributeName": "A", "AttributeName": "B"}]}}"#;
        assert!(matches!(
            parse_unique_pruned(twice, pruned),
            Err(UniqueKeysError::Duplicate(_))
        ));
        // And it is still JSON that is read: a broken skipped member is an error too.
        assert!(matches!(
            parse_unique_pruned(br#"{"RegistryEntries": {"Dependencies": [1,}}"#, pruned),
            Err(UniqueKeysError::Json(_))
        ));
    }

    #[test]
    fn of_a_kept_only_object_the_other_members_are_not_built_at_that_depth_alone() {
        let text = br#"{"Attributes": [{"AttributeName": "A", "Value": [{"ValueName": "x"}],
            "Type": "Enumeration", "Hidden": false},
            {"AttributeName": "B", "Nested": {"AttributeName": "kept below?"}}],
            "Other": {"AttributeName": "C", "Value": 1}}"#;
        let pruned = &Pruned {
            skip: &[],
            keep_only: &[(&["Attributes"], &["AttributeName", "Type"])],
        };
        assert_eq!(
            parse_unique_pruned(text, pruned).unwrap(),
            serde_json::json!({"Attributes": [
                {"AttributeName": "A", "Type": "Enumeration"}, {"AttributeName": "B"}],
                "Other": {"AttributeName": "C", "Value": 1}})
        );
        // A kept member is checked as ever; a member not kept is not read.
        let twice = br#"{"Attributes": [{"Type": "String", "Type": "Password"}]}"#;
        assert!(matches!(
            parse_unique_pruned(twice, pruned),
            Err(UniqueKeysError::Duplicate(_))
        ));
        let skipped = br#"{"Attributes": [{"Value": {"x": 1, "x": 2}}]}"#;
        assert_eq!(
            parse_unique_pruned(skipped, pruned).unwrap(),
            serde_json::json!({"Attributes": [{}]})
        );
    }

    #[test]
    fn parses_to_what_serde_json_parses_or_names_the_key_given_twice() {
        let mut files = Vec::new();
        let recorded = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
            .join("examples/azure-local-dcbx/recorded");
        let mut folders = vec![recorded];
        while let Some(folder) = folders.pop() {
            for entry in std::fs::read_dir(&folder).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    folders.push(path);
                } else if path.extension().is_some_and(|e| e == "json") {
                    files.push(std::fs::read(&path).unwrap());
                }
            }
        }
        assert!(files.len() > 50, "{}", files.len());
        let odd = [
            r#"[0, -1, 18446744073709551615, -9223372036854775808, 1.5, -2e-3, 1e300]"#,
            r#"{"a\u00e9\"": "\ud83d\ude00", "b": [null, true, false, {}, []], "c": ""}"#,
            "  {\"x\": {\"y\": [1, {\"z\": 2}]}}\n",
        ];
        for text in files
            .iter()
            .map(Vec::as_slice)
            .chain(odd.map(str::as_bytes))
        {
            let expected: Value = serde_json::from_slice(text).unwrap();
            assert_eq!(parse_unique(text).unwrap(), expected);
        }
        for broken in ["", "{", r#"{"a": 1} x"#, "[1,]", "1e400", r#"{"a" 1}"#] {
            assert!(
                matches!(
                    parse_unique(broken.as_bytes()),
                    Err(UniqueKeysError::Json(_))
                ),
                "{broken}"
            );
        }
        let twice =
            parse_unique(br#"{"Attributes": {"DCBX": "Disabled", "DCBX": "Enabled_IEEE"}}"#);
        assert_eq!(
            twice.unwrap_err().to_string(),
            "key \"DCBX\" appears twice in \"Attributes\""
        );
    }

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
