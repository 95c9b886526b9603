//! Reading one section of the collector's document: its elements as objects, each property
//! converted to the type expected or recorded as a [`Gap`].

use serde_json::{Map, Value};

use super::gap::Gap;

/// A value for messages, cut to a readable length.
pub(super) fn shown(value: &Value) -> String {
    let text = value.to_string();
    match text.char_indices().nth(40) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text,
    }
}

/// Conversions from JSON values; `None` is a wrong type.
pub(super) fn string(v: &Value) -> Option<String> {
    v.as_str().map(str::to_owned)
}
pub(super) fn boolean(v: &Value) -> Option<bool> {
    v.as_bool()
}
pub(super) fn integer(v: &Value) -> Option<i64> {
    v.as_i64()
}
pub(super) fn priority(v: &Value) -> Option<u8> {
    v.as_u64()
        .and_then(|n| u8::try_from(n).ok())
        .filter(|p| *p < 8)
}
pub(super) fn small(v: &Value) -> Option<u8> {
    v.as_u64().and_then(|n| u8::try_from(n).ok())
}
pub(super) fn percent(v: &Value) -> Option<u8> {
    small(v).filter(|p| *p <= 100)
}
pub(super) fn tc_count(v: &Value) -> Option<i64> {
    v.as_i64().filter(|n| (0..=8).contains(n))
}
pub(super) fn scalar(v: &Value) -> Option<Value> {
    (!v.is_array() && !v.is_object()).then(|| v.clone())
}
pub(super) fn object(v: &Value) -> Option<&Map<String, Value>> {
    v.as_object()
}
/// An array of `each`, or one element that PowerShell wrote without its array.
pub(super) fn many<T>(each: fn(&Value) -> Option<T>) -> impl Fn(&Value) -> Option<Vec<T>> {
    move |v| match v {
        Value::Array(items) => items.iter().map(each).collect(),
        one => each(one).map(|x| vec![x]),
    }
}

/// One element of a section, with the gaps found in it.
pub(super) struct Item<'a> {
    pub(super) section: &'static str,
    pub(super) index: usize,
    pub(super) map: &'a Map<String, Value>,
    pub(super) adapter: Option<String>,
}

impl<'a> Item<'a> {
    pub(super) fn gap(&self, gaps: &mut Vec<Gap>, message: String) {
        gaps.push(Gap {
            section: format!("{}[{}]", self.section, self.index),
            adapter: self.adapter.clone(),
            message,
        });
    }

    /// A property that must be there and not null.
    pub(super) fn req<T>(
        &self,
        gaps: &mut Vec<Gap>,
        key: &str,
        what: &str,
        convert: impl Fn(&'a Value) -> Option<T>,
    ) -> Option<T> {
        match self.map.get(key) {
            None => {
                self.gap(
                    gaps,
                    format!("no {key} (the collector always writes it): expected {what}"),
                );
                None
            }
            Some(value) => {
                let converted = convert(value);
                if converted.is_none() {
                    self.gap(gaps, format!("{key} is {}, expected {what}", shown(value)));
                }
                converted
            }
        }
    }

    /// A property that must be there and may be null: `Some(None)` for null.
    pub(super) fn opt<T>(
        &self,
        gaps: &mut Vec<Gap>,
        key: &str,
        what: &str,
        convert: impl Fn(&'a Value) -> Option<T>,
    ) -> Option<Option<T>> {
        match self.map.get(key) {
            Some(Value::Null) => Some(None),
            _ => self
                .req(gaps, key, &format!("{what} or null"), convert)
                .map(Some),
        }
    }
}

/// The elements of `section` that are objects; anything else is a gap.
pub(super) fn section<'a>(
    root: &'a Map<String, Value>,
    name: &'static str,
    gaps: &mut Vec<Gap>,
) -> Vec<Item<'a>> {
    let items: Vec<&Value> = match root.get(name) {
        None => {
            gaps.push(Gap {
                section: name.to_owned(),
                adapter: None,
                message: "missing (the collector always writes every section)".to_owned(),
            });
            return Vec::new();
        }
        Some(Value::Array(items)) => items.iter().collect(),
        Some(one @ Value::Object(_)) => vec![one],
        Some(other) => {
            gaps.push(Gap {
                section: name.to_owned(),
                adapter: None,
                message: format!("is {}, expected an array of objects", shown(other)),
            });
            return Vec::new();
        }
    };
    let mut objects = Vec::new();
    for (index, item) in items.into_iter().enumerate() {
        match item.as_object() {
            Some(map) => {
                let adapter = map
                    .get("Name")
                    .filter(|_| matches!(name, "Adapters" | "AdapterQos" | "Rdma"))
                    .or_else(|| map.get("IfAlias"))
                    .and_then(Value::as_str)
                    .filter(|a| !a.is_empty())
                    .map(str::to_owned);
                objects.push(Item {
                    section: name,
                    index,
                    map,
                    adapter,
                });
            }
            None => gaps.push(Gap {
                section: format!("{name}[{index}]"),
                adapter: None,
                message: format!("is {}, expected an object", shown(item)),
            }),
        }
    }
    objects
}
