//! An attribute registry (DMTF `AttributeRegistry`, `RegistryEntries.Attributes[]`) read once
//! and indexed by `AttributeName`, borrowing the registry as crawled: what classification
//! needs of each entry (display name, help text, read-only, type).

use std::collections::HashMap;

use serde_json::Value;

/// An entry's `Type`, keeping a type this reader does not know.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AttributeType<'a> {
    /// `Enumeration`.
    Enumeration,
    /// `String`.
    String,
    /// `Integer`.
    Integer,
    /// `Boolean`.
    Boolean,
    /// `Password`.
    Password,
    /// `OrderedList`.
    OrderedList,
    /// Anything else, as the registry spells it.
    Other(&'a str),
}

impl<'a> AttributeType<'a> {
    fn parse(text: &'a str) -> Self {
        match text {
            "Enumeration" => Self::Enumeration,
            "String" => Self::String,
            "Integer" => Self::Integer,
            "Boolean" => Self::Boolean,
            "OrderedList" => Self::OrderedList,
            _ if text.eq_ignore_ascii_case("Password") => Self::Password,
            _ => Self::Other(text),
        }
    }
}

/// What a registry says of one attribute.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Entry<'a> {
    /// `DisplayName`: what setup shows.
    pub display_name: Option<&'a str>,
    /// `HelpText`.
    pub help_text: Option<&'a str>,
    /// `ReadOnly` is `true` (absent or anything else: the attribute may be set).
    pub read_only: bool,
    /// `Type`, when given.
    pub kind: Option<AttributeType<'a>>,
}

/// The entries of one attribute registry, by `AttributeName`.
#[derive(Debug, Clone)]
pub struct Registry<'a> {
    value: &'a Value,
    entries: HashMap<&'a str, Entry<'a>>,
}

impl<'a> Registry<'a> {
    /// Indexes `RegistryEntries.Attributes` of `registry` (an entry without an
    /// `AttributeName` is skipped; anything but an array gives no entries).
    pub fn new(registry: &'a Value) -> Registry<'a> {
        let text = |entry: &'a Value, key: &str| entry.get(key).and_then(Value::as_str);
        let entries = registry["RegistryEntries"]["Attributes"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|entry| {
                let name = text(entry, "AttributeName")?;
                Some((
                    name,
                    Entry {
                        display_name: text(entry, "DisplayName"),
                        help_text: text(entry, "HelpText"),
                        read_only: entry.get("ReadOnly") == Some(&Value::Bool(true)),
                        kind: text(entry, "Type").map(AttributeType::parse),
                    },
                ))
            })
            .collect();
        Registry {
            value: registry,
            entries,
        }
    }

    /// The registry as served (for the secret filter, which reads it itself).
    pub fn value(&self) -> &'a Value {
        self.value
    }

    /// The entry of the attribute `name`, spelt as the registry spells it.
    pub fn entry(&self, name: &str) -> Option<&Entry<'a>> {
        self.entries.get(name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_are_read_by_name_keeping_unknown_types() {
        // The shape of iDRAC's NetworkAttributesRegistry entries
        // (`../shared/data/redfish/libredfish-dell`).
        let registry = serde_json::json!({"RegistryEntries": {"Attributes": [
            {"AttributeName": "FamilyVersion", "DisplayName": "Family Firmware Version",
             "HelpText": null, "ReadOnly": true, "Type": "String"},
            {"AttributeName": "Broadcom_DCBX", "DisplayName": "DCBX Mode", "ReadOnly": false,
             "Type": "Enumeration", "Value": [{"ValueName": "Disabled", "ValueDisplayName": "Disabled"}]},
            {"AttributeName": "Odd", "ReadOnly": "yes", "Type": "Bitmask"},
            {"DisplayName": "no name"}
        ]}});
        let registry = Registry::new(&registry);
        let family = registry.entry("FamilyVersion").copied();
        assert_eq!(
            family,
            Some(Entry {
                display_name: Some("Family Firmware Version"),
                help_text: None,
                read_only: true,
                kind: Some(AttributeType::String),
            })
        );
        let dcbx = registry.entry("Broadcom_DCBX").unwrap();
        assert_eq!(
            (dcbx.read_only, dcbx.kind),
            (false, Some(AttributeType::Enumeration))
        );
        let odd = registry.entry("Odd").unwrap();
        assert_eq!(
            (odd.read_only, odd.kind),
            (false, Some(AttributeType::Other("Bitmask")))
        );
        assert!(registry.entry("familyversion").is_none());
        assert!(
            Registry::new(&serde_json::json!({}))
                .entry("FamilyVersion")
                .is_none()
        );
    }
}
