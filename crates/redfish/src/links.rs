//! Reading Redfish links and naming a property of the wrong type: what the crawl (following
//! links), the transport's errors and the shape checks share. A leaf: it imports only
//! `serde_json`, so none of them depends on another through it.

use serde_json::Value;

/// A property whose value is of the wrong type (or outside the vocabulary) for its schema.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{uri}: {property} is {found}, expected {expected}")]
pub struct ShapeError {
    /// The resource it was read from.
    pub uri: String,
    /// Where in the resource, `/`-separated (`Ethernet/FlowControlStatus`, `Members/2`).
    pub property: String,
    /// What its schema allows.
    pub expected: String,
    /// What was there.
    pub found: String,
}

impl ShapeError {
    /// `property` of `uri` holds `value`, where the schema wants `expected`.
    pub fn new(uri: &str, property: &str, expected: &str, value: &Value) -> Self {
        ShapeError {
            uri: uri.to_owned(),
            property: property.to_owned(),
            expected: expected.to_owned(),
            found: describe(value),
        }
    }
}

/// A value as a message names it: its type, and a short form of a scalar.
pub fn describe(value: &Value) -> String {
    match value {
        Value::Null => "null".to_owned(),
        Value::Bool(b) => format!("the boolean {b}"),
        Value::Number(n) => format!("the number {n}"),
        Value::String(s) => {
            let short: String = s.chars().take(40).collect();
            let more = if short.len() < s.len() { "…" } else { "" };
            format!("the string {short:?}{more}")
        }
        Value::Array(_) => "an array".to_owned(),
        Value::Object(_) => "an object".to_owned(),
    }
}

/// The URI a resource names itself by, without a fragment; `fallback` when it names none.
pub fn uri_of<'v>(resource: &'v Value, fallback: &'v str) -> &'v str {
    resource["@odata.id"]
        .as_str()
        .map_or(fallback, |uri| uri.split('#').next().unwrap_or(uri))
}

/// The value at `path` of `resource`: `Ok(None)` when a step is absent or `null`, an error
/// when a step that must be an object is something else.
pub fn at<'v>(
    uri: &str,
    resource: &'v Value,
    path: &[&str],
) -> Result<Option<&'v Value>, ShapeError> {
    let mut node = resource;
    for (depth, key) in path.iter().enumerate() {
        let next = match node {
            Value::Object(map) => map.get(*key),
            // A numeric step indexes an array (`Controllers/0`).
            Value::Array(items) if key.parse::<usize>().is_ok() => {
                key.parse::<usize>().ok().and_then(|index| items.get(index))
            }
            Value::Null => return Ok(None),
            other => {
                let expected = if key.parse::<usize>().is_ok() {
                    "an array"
                } else {
                    "an object"
                };
                return Err(ShapeError::new(
                    uri,
                    &path[..depth].join("/"),
                    expected,
                    other,
                ));
            }
        };
        node = match next {
            None | Some(Value::Null) => return Ok(None),
            Some(value) => value,
        };
    }
    Ok(Some(node))
}

/// The link at `path` of `resource` (read from `uri`): `Ok(None)` when absent or `null`, an
/// error unless it is an object whose `@odata.id` is a string (Resource `Link`/`idRef`).
pub fn link<'v>(
    uri: &str,
    resource: &'v Value,
    path: &[&str],
) -> Result<Option<&'v str>, ShapeError> {
    let Some(node) = at(uri, resource, path)? else {
        return Ok(None);
    };
    match link_target(node) {
        Some(target) => Ok(Some(target)),
        None => Err(ShapeError::new(
            uri,
            &path.join("/"),
            "a link (an object with a string @odata.id)",
            node,
        )),
    }
}

/// The URI a link object points to (without a fragment), if `value` is one.
pub fn link_target(value: &Value) -> Option<&str> {
    let target = value.as_object()?.get("@odata.id")?.as_str()?;
    Some(target.split('#').next().unwrap_or(target))
}

/// The targets an array of links names, read leniently, as some BMCs write one (Cisco CIMC 4.1
/// serves `"RelatedItem": "/redfish/v1/Managers/CIMC"`): an array of links, one link, a URI
/// string where a link belongs, or an array mixing them; `null` items name nothing. Each target
/// as written, fragment included. `None` when a part names no target at all (a number, an empty
/// string, an object without a string `@odata.id`): what it meant cannot be told.
pub fn lenient_targets(value: &Value) -> Option<Vec<&str>> {
    fn one(item: &Value) -> Option<Option<&str>> {
        match item {
            Value::Null => Some(None),
            Value::String(uri) if !uri.trim().is_empty() => Some(Some(uri)),
            Value::Object(link) => link.get("@odata.id")?.as_str().map(Some),
            _ => None,
        }
    }
    match value {
        Value::Array(items) => items
            .iter()
            .map(one)
            .collect::<Option<Vec<_>>>()
            .map(|targets| targets.into_iter().flatten().collect()),
        other => one(other).map(|target| target.into_iter().collect()),
    }
}

/// What identifies the resource a link names when links are compared: its path without a
/// fragment (`…/NetworkAdapters/NIC1#/Controllers/0` names a part of `…/NIC1`), without a
/// trailing `/`, without the scheme and host of a full URL, in lower case (iLO spells one
/// resource's URI in two cases).
pub fn uri_key(uri: &str) -> String {
    let uri = uri.split('#').next().unwrap_or(uri);
    let path = match uri.split_once("://") {
        Some((_, rest)) => rest.find('/').map_or("", |slash| &rest[slash..]),
        None => uri,
    };
    path.trim_end_matches('/').to_ascii_lowercase()
}

/// Whether the resource keyed `key` ([`uri_key`]) is `base` or below it.
pub fn key_below(key: &str, base: &str) -> bool {
    !base.is_empty()
        && key
            .strip_prefix(base)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_read_leniently_take_a_uri_string_for_a_link() {
        let cimc = serde_json::json!("/redfish/v1/Managers/CIMC");
        assert_eq!(
            lenient_targets(&cimc),
            Some(vec!["/redfish/v1/Managers/CIMC"])
        );
        let mixed = serde_json::json!([{"@odata.id": "/a#/b"}, "/c", null]);
        assert_eq!(lenient_targets(&mixed), Some(vec!["/a#/b", "/c"]));
        assert_eq!(lenient_targets(&Value::Null), Some(vec![]));
        for unreadable in [
            serde_json::json!(7),
            serde_json::json!(""),
            serde_json::json!([{"@odata.id": 10}]),
            serde_json::json!({"href": "/a"}),
        ] {
            assert_eq!(lenient_targets(&unreadable), None, "{unreadable}");
        }
    }

    #[test]
    fn links_to_one_resource_compare_equal_however_written() {
        let adapter = "/redfish/v1/chassis/1/networkadapters/nic1";
        for uri in [
            "/redfish/v1/Chassis/1/NetworkAdapters/NIC1",
            "/redfish/v1/Chassis/1/NetworkAdapters/NIC1/",
            "/redfish/v1/Chassis/1/NetworkAdapters/NIC1#/Controllers/0",
            "https://bmc.example:443/redfish/v1/Chassis/1/NetworkAdapters/NIC1",
        ] {
            assert_eq!(uri_key(uri), adapter, "{uri}");
        }
        assert!(key_below(adapter, adapter));
        assert!(key_below(&format!("{adapter}/ports/1"), adapter));
        assert!(
            !key_below(&format!("{adapter}0"), adapter),
            "NIC10 is not below NIC1"
        );
        assert!(!key_below(adapter, ""));
        assert_eq!(uri_key("https://bmc"), "");
    }
}
