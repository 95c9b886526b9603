//! Fact values: a JSON scalar or a sorted array of scalars.

use std::borrow::Cow;
use std::cmp::Ordering;
use std::fmt;

use compact_str::CompactString;
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::de::{self, Deserializer, SeqAccess, Visitor};
use serde::ser::{SerializeSeq, Serializer};
use serde::{Deserialize, Serialize};
use serde_json::Number;

/// One JSON scalar: boolean, number or string. `null` is not a value: an unknown fact is absent.
#[derive(Debug, Clone, PartialEq)]
pub enum Scalar {
    /// `true` / `false`.
    Bool(bool),
    /// An integer or a finite float, kept as JSON wrote it.
    Number(Number),
    /// A string. Held in place up to 24 bytes (nearly every value a capture reads: `Enabled`,
    /// a version, a MAC), so reading a snapshot allocates nothing for most of its values.
    Text(CompactString),
}

/// The value of one fact.
#[derive(Debug, Clone, PartialEq)]
pub enum FactValue {
    /// A single scalar.
    Scalar(Scalar),
    /// A set-like list, always sorted (booleans, then numbers, then strings), so that the same
    /// set always has the same canonical form.
    List(Vec<Scalar>),
}

impl Eq for Scalar {}
impl Eq for FactValue {}

impl Ord for Scalar {
    fn cmp(&self, other: &Self) -> Ordering {
        fn rank(s: &Scalar) -> u8 {
            match s {
                Scalar::Bool(_) => 0,
                Scalar::Number(_) => 1,
                Scalar::Text(_) => 2,
            }
        }
        match (self, other) {
            (Scalar::Bool(a), Scalar::Bool(b)) => a.cmp(b),
            (Scalar::Number(a), Scalar::Number(b)) => compare_numbers(a, b),
            (Scalar::Text(a), Scalar::Text(b)) => a.cmp(b),
            _ => rank(self).cmp(&rank(other)),
        }
    }
}

impl PartialOrd for Scalar {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

fn compare_numbers(a: &Number, b: &Number) -> Ordering {
    match (a.as_i64(), b.as_i64(), a.as_u64(), b.as_u64()) {
        (Some(x), Some(y), _, _) => x.cmp(&y),
        (_, _, Some(x), Some(y)) => x.cmp(&y),
        // Mixed integer/float: by value, then integers first, so that `Ord` agrees with `Eq`
        // (JSON `3` and `3.0` are different values).
        _ => {
            let x = a.as_f64().unwrap_or(f64::NAN);
            let y = b.as_f64().unwrap_or(f64::NAN);
            x.total_cmp(&y).then(a.is_f64().cmp(&b.is_f64()))
        }
    }
}

impl fmt::Display for Scalar {
    /// JSON form: strings quoted, so `"true"` and `true` never look alike.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Scalar::Bool(b) => write!(f, "{b}"),
            Scalar::Number(n) => write!(f, "{n}"),
            Scalar::Text(s) => {
                let quoted = serde_json::to_string(s.as_str()).map_err(|_| fmt::Error)?;
                f.write_str(&quoted)
            }
        }
    }
}

impl fmt::Display for FactValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FactValue::Scalar(s) => s.fmt(f),
            FactValue::List(items) => {
                f.write_str("[")?;
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    item.fmt(f)?;
                }
                f.write_str("]")
            }
        }
    }
}

impl FactValue {
    /// A list value; sorts the items so that equal sets compare equal.
    pub fn list(mut items: Vec<Scalar>) -> Self {
        items.sort();
        FactValue::List(items)
    }

    /// The string, when this is a string scalar.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            FactValue::Scalar(Scalar::Text(s)) => Some(s),
            _ => None,
        }
    }

    /// The boolean, when this is a boolean scalar.
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            FactValue::Scalar(Scalar::Bool(b)) => Some(*b),
            _ => None,
        }
    }

    /// The integer, when this is an integral number.
    pub fn as_i64(&self) -> Option<i64> {
        match self {
            FactValue::Scalar(Scalar::Number(n)) => n.as_i64(),
            _ => None,
        }
    }

    /// Whether the value spans several lines (shown as a unified diff in reports).
    pub fn is_multiline(&self) -> bool {
        self.as_text().is_some_and(|s| s.contains('\n'))
    }
}

impl From<bool> for FactValue {
    fn from(b: bool) -> Self {
        FactValue::Scalar(Scalar::Bool(b))
    }
}

impl From<i64> for FactValue {
    fn from(n: i64) -> Self {
        FactValue::Scalar(Scalar::Number(n.into()))
    }
}

impl From<&str> for FactValue {
    fn from(s: &str) -> Self {
        FactValue::Scalar(Scalar::Text(s.into()))
    }
}

impl From<String> for FactValue {
    fn from(s: String) -> Self {
        FactValue::Scalar(Scalar::Text(s.into()))
    }
}

impl Serialize for Scalar {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Scalar::Bool(b) => serializer.serialize_bool(*b),
            Scalar::Number(n) => n.serialize(serializer),
            Scalar::Text(s) => serializer.serialize_str(s),
        }
    }
}

impl Serialize for FactValue {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            FactValue::Scalar(s) => s.serialize(serializer),
            FactValue::List(items) => {
                let mut seq = serializer.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(item)?;
                }
                seq.end()
            }
        }
    }
}

const EXPECTING: &str = "a fact value: a string, number or boolean, or an array of them";

/// Visits one JSON value; `allow_list` is false inside an array (no nesting).
struct ValueVisitor {
    allow_list: bool,
}

impl<'de> Visitor<'de> for ValueVisitor {
    type Value = FactValue;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.allow_list {
            f.write_str(EXPECTING)
        } else {
            f.write_str("a string, number or boolean (arrays of facts hold scalars only)")
        }
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<FactValue, E> {
        Ok(v.into())
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<FactValue, E> {
        Ok(v.into())
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<FactValue, E> {
        Ok(FactValue::Scalar(Scalar::Number(v.into())))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<FactValue, E> {
        Number::from_f64(v)
            .map(|n| FactValue::Scalar(Scalar::Number(n)))
            .ok_or_else(|| E::custom("a fact number must be finite"))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<FactValue, E> {
        Ok(v.into())
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<FactValue, E> {
        Ok(v.into())
    }

    fn visit_unit<E: de::Error>(self) -> Result<FactValue, E> {
        Err(E::custom(
            "a fact value cannot be null: leave an unknown fact out",
        ))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<FactValue, A::Error> {
        if !self.allow_list {
            return Err(de::Error::invalid_type(de::Unexpected::Seq, &self));
        }
        let mut items = Vec::new();
        while let Some(item) = seq.next_element::<NestedScalar>()? {
            items.push(item.0);
        }
        if items.windows(2).any(|pair| pair[0] > pair[1]) {
            return Err(de::Error::custom(
                "a fact array must be sorted (booleans, numbers, then strings, each ascending)",
            ));
        }
        Ok(FactValue::List(items))
    }
}

/// A scalar inside a fact array.
struct NestedScalar(Scalar);

impl<'de> Deserialize<'de> for NestedScalar {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        match deserializer.deserialize_any(ValueVisitor { allow_list: false })? {
            FactValue::Scalar(s) => Ok(NestedScalar(s)),
            FactValue::List(_) => Err(de::Error::custom("nested arrays are not fact values")),
        }
    }
}

impl<'de> Deserialize<'de> for FactValue {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(ValueVisitor { allow_list: true })
    }
}

impl JsonSchema for FactValue {
    fn schema_name() -> Cow<'static, str> {
        "FactValue".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "A JSON scalar, or an array of scalars sorted booleans, numbers, then strings.",
            "oneOf": [
                {"type": ["string", "number", "boolean"]},
                {"type": "array", "items": {"type": ["string", "number", "boolean"]}}
            ]
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_are_sorted_on_construction_and_checked_on_read() {
        let list = FactValue::list(vec![
            Scalar::Text("b".into()),
            Scalar::Number(4.into()),
            Scalar::Number(3.into()),
            Scalar::Bool(true),
        ]);
        assert_eq!(serde_json::to_string(&list).unwrap(), r#"[true,3,4,"b"]"#);
        let back: FactValue = serde_json::from_str(r#"[true,3,4,"b"]"#).unwrap();
        assert_eq!(back, list);
        let err = serde_json::from_str::<FactValue>("[4,3]").unwrap_err();
        assert!(err.to_string().contains("sorted"), "{err}");
    }

    #[test]
    fn rejects_null_objects_and_nested_arrays() {
        for bad in ["null", "{}", "[[1]]", r#"{"a":1}"#, "[null]"] {
            assert!(serde_json::from_str::<FactValue>(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn display_quotes_strings_only() {
        assert_eq!(FactValue::from("IEEE").to_string(), r#""IEEE""#);
        assert_eq!(FactValue::from(true).to_string(), "true");
        assert_eq!(FactValue::from(3).to_string(), "3");
    }
}
