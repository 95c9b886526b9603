//! A body that gives one key twice, as `--fault duplicate-key=URI#/POINTER=VALUE` serves it.
//! A [`Value`] cannot hold a key twice, so the second one is written while serializing.

use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};
use serde_json::Value;

/// `resource` as pretty JSON text in which the key `pointer` names (RFC 6901) is given a
/// second time, after the first, holding `again`; `None` when the resource has no such key
/// (nothing would be said twice).
pub(super) fn with_key_twice(resource: &Value, pointer: &str, again: &Value) -> Option<Vec<u8>> {
    let steps: Vec<String> = pointer
        .split('/')
        .skip(1)
        .map(|step| step.replace("~1", "/").replace("~0", "~"))
        .collect();
    let (key, path) = steps.split_last()?;
    let (parent, _) = pointer.rsplit_once('/')?;
    if !resource.pointer(parent)?.as_object()?.contains_key(key) {
        return None;
    }
    let twice = Twice {
        value: resource,
        path,
        key,
        again,
    };
    Some(serde_json::to_vec_pretty(&twice).expect("JSON values serialize"))
}

/// `value`, with `key` written again at the end of the object that `path` leads to.
#[derive(Clone, Copy)]
struct Twice<'a> {
    value: &'a Value,
    path: &'a [String],
    key: &'a str,
    again: &'a Value,
}

impl Serialize for Twice<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let below = |value, rest| Twice {
            value,
            path: rest,
            ..*self
        };
        match (self.value, self.path.split_first()) {
            (Value::Object(members), None) => {
                let mut map = serializer.serialize_map(Some(members.len() + 1))?;
                for (name, value) in members {
                    map.serialize_entry(name, value)?;
                }
                map.serialize_entry(self.key, self.again)?;
                map.end()
            }
            (Value::Object(members), Some((step, rest))) => {
                let mut map = serializer.serialize_map(Some(members.len()))?;
                for (name, value) in members {
                    if name == step {
                        map.serialize_entry(name, &below(value, rest))?;
                    } else {
                        map.serialize_entry(name, value)?;
                    }
                }
                map.end()
            }
            (Value::Array(items), Some((step, rest))) => {
                let mut seq = serializer.serialize_seq(Some(items.len()))?;
                for (index, item) in items.iter().enumerate() {
                    if step.parse() == Ok(index) {
                        seq.serialize_element(&below(item, rest))?;
                    } else {
                        seq.serialize_element(item)?;
                    }
                }
                seq.end()
            }
            (value, _) => value.serialize(serializer),
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::with_key_twice;

    #[test]
    fn the_key_comes_again_after_the_first_at_any_depth() {
        let resource = json!({"Attributes": {"Broadcom_DCBX": "Disabled", "Mode": 1},
            "Ports": [{"a/b": 0}], "Id": "x"});
        let text = |pointer: &str, again| {
            String::from_utf8(with_key_twice(&resource, pointer, &again).unwrap()).unwrap()
        };
        let nested = text("/Attributes/Broadcom_DCBX", json!("Enabled_IEEE"));
        let first = nested.find(r#""Broadcom_DCBX": "Disabled""#).unwrap();
        let second = nested.find(r#""Broadcom_DCBX": "Enabled_IEEE""#).unwrap();
        assert!(first < second, "{nested}");
        // serde_json keeps the last: what a client that does not look would believe.
        let read: serde_json::Value = serde_json::from_str(&nested).unwrap();
        assert_eq!(read["Attributes"]["Broadcom_DCBX"], "Enabled_IEEE");
        assert_eq!(read["Attributes"]["Mode"], 1);
        let in_array = text("/Ports/0/a~1b", json!(1));
        assert_eq!(in_array.matches(r#""a/b""#).count(), 2, "{in_array}");
        assert_eq!(text("/Id", json!("y")).matches(r#""Id""#).count(), 2);
        for absent in [
            "/Attributes/Other",
            "/Ports/1/a~1b",
            "/Nothing/Id",
            "/Ports/0",
        ] {
            assert!(
                with_key_twice(&resource, absent, &json!(1)).is_none(),
                "{absent}"
            );
        }
    }
}
