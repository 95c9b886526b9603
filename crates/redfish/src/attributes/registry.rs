//! An attribute registry (DMTF `AttributeRegistry`, `RegistryEntries.Attributes[]`) as judging
//! reads it: what classification needs of each entry (display name, help text, read-only,
//! type) by `AttributeName`, and the secret filter its types make. A registry is built once
//! per BMC and shared by every resource that names it; it owns its few strings, so the body it
//! was read from (a megabyte for Dell's BIOS) is not held while the host's crawl goes on.

use std::collections::HashMap;
use std::fmt;
use std::sync::OnceLock;

use serde::Deserialize;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use super::class::Learned;
use driftgate_secrets::SecretFilter;

/// An entry's `Type`, keeping a type this reader does not know.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AttributeType {
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
    Other(Box<str>),
}

impl AttributeType {
    fn parse(text: &str) -> Self {
        match text {
            "Enumeration" => Self::Enumeration,
            "String" => Self::String,
            "Integer" => Self::Integer,
            "Boolean" => Self::Boolean,
            "OrderedList" => Self::OrderedList,
            _ if text.eq_ignore_ascii_case("Password") => Self::Password,
            _ => Self::Other(text.into()),
        }
    }
}

/// What a registry says of one attribute.
#[derive(Debug, Clone, Eq)]
pub struct Entry {
    /// `DisplayName`: what setup shows.
    pub display_name: Option<Box<str>>,
    /// `HelpText`.
    pub help_text: Option<Box<str>>,
    /// `ReadOnly` is `true` (absent or anything else: the attribute may be set).
    pub read_only: bool,
    /// `Type`, when given.
    pub kind: Option<AttributeType>,
    /// The class of the attribute the entry names, worked out by the first to ask (see
    /// [`super::classify_in`]).
    pub(super) class: OnceLock<Learned>,
}

/// Entries are equal by what the registry says; what was worked out of it is not compared.
impl PartialEq for Entry {
    fn eq(&self, other: &Entry) -> bool {
        (
            &self.display_name,
            &self.help_text,
            self.read_only,
            &self.kind,
        ) == (
            &other.display_name,
            &other.help_text,
            other.read_only,
            &other.kind,
        )
    }
}

/// The members of an attribute's registry entry that judging reads: the JSON read of a registry
/// (`fetch::Body::JudgedRegistry`) keeps the same ones.
pub const ENTRY_MEMBERS: &[&str] = &[
    "AttributeName",
    "DisplayName",
    "HelpText",
    "ReadOnly",
    "WriteOnly",
    "Type",
];

/// The entries of one attribute registry, by `AttributeName`.
#[derive(Debug)]
pub struct Registry {
    id: Option<Box<str>>,
    entries: HashMap<Box<str>, Entry>,
    filter: SecretFilter,
    served: Option<Value>,
}

impl Registry {
    /// Reads `RegistryEntries.Attributes` of `registry` (an entry that is no object or has no
    /// `AttributeName` is skipped; anything but an array gives no entries). `keep`: the
    /// registry as served is kept for what writes (see [`Registry::served`]).
    pub fn new(registry: Value, keep: bool) -> Registry {
        let read = Read::deserialize(&registry).unwrap_or_default();
        Registry {
            served: keep.then_some(registry),
            ..read.into_registry()
        }
    }

    /// Reads a registry straight from the text of its body, building nothing of what judging
    /// does not read (most of a registry), with its `@odata.type`. `None` when the text is not
    /// an object with a string `@odata.type` and an array `RegistryEntries.Attributes`, or
    /// gives a member judging reads twice: the caller then parses it as JSON, which says what
    /// is wrong.
    pub fn from_text(text: &[u8]) -> Option<(Box<str>, Registry)> {
        let mut read: Read = serde_json::from_slice(text).ok()?;
        let odata_type = std::mem::take(&mut read.odata_type).into_text()?;
        read.attributes.as_ref()?;
        Some((odata_type, read.into_registry()))
    }

    /// The registry's `Id`, when it is a string.
    pub fn id(&self) -> Option<&str> {
        self.id.as_deref()
    }

    /// The entry of the attribute `name`, spelt as the registry spells it.
    pub fn entry(&self, name: &str) -> Option<&Entry> {
        self.entries.get(name)
    }

    /// The secret filter the registry's types make (see [`SecretFilter::add_entry`]).
    pub fn filter(&self) -> &SecretFilter {
        &self.filter
    }

    /// The secret filter of `registry`, or the one of names and values alone where the
    /// service publishes no registry.
    pub fn filter_of(registry: Option<&Registry>) -> &SecretFilter {
        static NAMES_AND_VALUES: SecretFilter = SecretFilter::new();
        registry.map_or(&NAMES_AND_VALUES, Registry::filter)
    }

    /// The registry as served, when it was read to be kept (a write checks the registry's
    /// `Dependencies`, which judging does not read).
    pub fn served(&self) -> Option<&Value> {
        self.served.as_ref()
    }
}

/// What is read of a registry, before it is indexed.
#[derive(Debug, Default)]
struct Read {
    odata_type: Loose,
    id: Loose,
    /// `RegistryEntries.Attributes`, when given.
    attributes: Option<AttributesRead>,
}

/// Each member of `Attributes`: an entry and its name, or `None` for one that is no object or
/// names no attribute.
type AttributesRead = Vec<Option<(Box<str>, LooseEntry)>>;

/// One attribute entry as read, its types still loose.
#[derive(Debug, Default)]
struct LooseEntry {
    display_name: Loose,
    help_text: Loose,
    read_only: Loose,
    write_only: Loose,
    kind: Loose,
}

impl Read {
    fn into_registry(self) -> Registry {
        let mut filter = SecretFilter::new();
        let attributes = self.attributes.unwrap_or_default();
        let mut entries = HashMap::with_capacity(attributes.len());
        for (name, entry) in attributes.into_iter().flatten() {
            let kind = entry.kind.into_text();
            filter.add_entry(&name, kind.as_deref(), entry.write_only.is_set());
            entries.insert(
                name,
                Entry {
                    display_name: entry.display_name.into_text(),
                    help_text: entry.help_text.into_text(),
                    read_only: entry.read_only == Loose::Bool(true),
                    kind: kind.as_deref().map(AttributeType::parse),
                    class: OnceLock::new(),
                },
            );
        }
        Registry {
            id: self.id.into_text(),
            entries,
            filter,
            served: None,
        }
    }
}

/// A member read whatever JSON it holds: what judging reads of a registry is tolerant of a
/// wrong type (a `ReadOnly` of `"yes"` is not `true`), as reading the `Value` was.
#[derive(Debug, Default, PartialEq, Eq)]
enum Loose {
    /// Not given.
    #[default]
    Absent,
    /// `null`.
    Null,
    /// A boolean.
    Bool(bool),
    /// A string.
    Text(Box<str>),
    /// A number, an array or an object.
    Other,
}

impl Loose {
    fn into_text(self) -> Option<Box<str>> {
        match self {
            Loose::Text(text) => Some(text),
            _ => None,
        }
    }

    /// Given as anything but `false` or `null`: a `WriteOnly` that counts.
    fn is_set(&self) -> bool {
        !matches!(self, Loose::Absent | Loose::Null | Loose::Bool(false))
    }
}

impl<'de> Deserialize<'de> for Loose {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct LooseVisitor;
        impl<'de> Visitor<'de> for LooseVisitor {
            type Value = Loose;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_bool<E>(self, v: bool) -> Result<Loose, E> {
                Ok(Loose::Bool(v))
            }
            fn visit_str<E>(self, v: &str) -> Result<Loose, E> {
                Ok(Loose::Text(v.into()))
            }
            fn visit_i64<E>(self, _: i64) -> Result<Loose, E> {
                Ok(Loose::Other)
            }
            fn visit_u64<E>(self, _: u64) -> Result<Loose, E> {
                Ok(Loose::Other)
            }
            fn visit_f64<E>(self, _: f64) -> Result<Loose, E> {
                Ok(Loose::Other)
            }
            fn visit_unit<E>(self) -> Result<Loose, E> {
                Ok(Loose::Null)
            }
            fn visit_none<E>(self) -> Result<Loose, E> {
                Ok(Loose::Null)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Loose, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Loose::Other)
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Loose, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Loose::Other)
            }
        }
        deserializer.deserialize_any(LooseVisitor)
    }
}

impl<'de> Deserialize<'de> for Read {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        /// The registry: its `@odata.type`, `Id` and `RegistryEntries.Attributes`; of
        /// `RegistryEntries` the rest (`Dependencies`, `Menus`) is passed over.
        struct ReadVisitor;
        impl<'de> Visitor<'de> for ReadVisitor {
            type Value = Read;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an attribute registry")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Read, A::Error> {
                let mut read = Read::default();
                let mut entries_given = false;
                while let Some(key) = map.next_key::<Key>()? {
                    let slot = match key {
                        Key::Known(known @ "@odata.type") => (&mut read.odata_type, known),
                        Key::Known(known @ "Id") => (&mut read.id, known),
                        Key::Known(known @ "RegistryEntries") => {
                            if std::mem::replace(&mut entries_given, true) {
                                return Err(de::Error::duplicate_field(known));
                            }
                            read.attributes = map.next_value::<Entries>()?.0;
                            continue;
                        }
                        Key::Known(_) | Key::Other => {
                            map.next_value::<IgnoredAny>()?;
                            continue;
                        }
                    };
                    put(slot, map.next_value()?)?;
                }
                Ok(read)
            }
        }
        deserializer.deserialize_map(ReadVisitor)
    }
}

/// `RegistryEntries`: its `Attributes`, when given.
struct Entries(Option<AttributesRead>);

impl<'de> Deserialize<'de> for Entries {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct EntriesVisitor;
        impl<'de> Visitor<'de> for EntriesVisitor {
            type Value = Entries;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("the RegistryEntries object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Entries, A::Error> {
                let mut attributes = None;
                while let Some(key) = map.next_key::<Key>()? {
                    match key {
                        Key::Known(known @ "Attributes") => {
                            if attributes.is_some() {
                                return Err(de::Error::duplicate_field(known));
                            }
                            attributes = Some(map.next_value::<AttributeList>()?.0);
                        }
                        Key::Known(_) | Key::Other => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Ok(Entries(attributes))
            }
        }
        deserializer.deserialize_map(EntriesVisitor)
    }
}

/// `Attributes`: each member an entry, or `None` for one that is no object or names no
/// attribute.
struct AttributeList(AttributesRead);

impl<'de> Deserialize<'de> for AttributeList {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ListVisitor;
        impl<'de> Visitor<'de> for ListVisitor {
            type Value = AttributeList;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an array of attribute entries")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<AttributeList, A::Error> {
                let mut list = Vec::with_capacity(seq.size_hint().unwrap_or(0));
                while let Some(entry) = seq.next_element::<EntryRead>()? {
                    list.push(entry.0);
                }
                Ok(AttributeList(list))
            }
        }
        deserializer.deserialize_seq(ListVisitor)
    }
}

/// One member of `Attributes`.
struct EntryRead(Option<(Box<str>, LooseEntry)>);

impl<'de> Deserialize<'de> for EntryRead {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct EntryVisitor;
        impl<'de> Visitor<'de> for EntryVisitor {
            type Value = EntryRead;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an attribute entry")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<EntryRead, A::Error> {
                let mut name = Loose::Absent;
                let mut entry = LooseEntry::default();
                while let Some(key) = map.next_key::<Key>()? {
                    let slot = match key {
                        Key::Known(known @ "AttributeName") => (&mut name, known),
                        Key::Known(known @ "DisplayName") => (&mut entry.display_name, known),
                        Key::Known(known @ "HelpText") => (&mut entry.help_text, known),
                        Key::Known(known @ "ReadOnly") => (&mut entry.read_only, known),
                        Key::Known(known @ "WriteOnly") => (&mut entry.write_only, known),
                        Key::Known(known @ "Type") => (&mut entry.kind, known),
                        Key::Known(_) | Key::Other => {
                            map.next_value::<IgnoredAny>()?;
                            continue;
                        }
                    };
                    put(slot, map.next_value()?)?;
                }
                Ok(EntryRead(name.into_text().map(|name| (name, entry))))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<EntryRead, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(EntryRead(None))
            }
            fn visit_bool<E>(self, _: bool) -> Result<EntryRead, E> {
                Ok(EntryRead(None))
            }
            fn visit_str<E>(self, _: &str) -> Result<EntryRead, E> {
                Ok(EntryRead(None))
            }
            fn visit_i64<E>(self, _: i64) -> Result<EntryRead, E> {
                Ok(EntryRead(None))
            }
            fn visit_u64<E>(self, _: u64) -> Result<EntryRead, E> {
                Ok(EntryRead(None))
            }
            fn visit_f64<E>(self, _: f64) -> Result<EntryRead, E> {
                Ok(EntryRead(None))
            }
            fn visit_unit<E>(self) -> Result<EntryRead, E> {
                Ok(EntryRead(None))
            }
        }
        deserializer.deserialize_any(EntryVisitor)
    }
}

/// Sets the member `slot` names to `value`: which of two values a key given twice means
/// cannot be told.
fn put<E: de::Error>((slot, key): (&mut Loose, &'static str), value: Loose) -> Result<(), E> {
    if *slot != Loose::Absent {
        return Err(E::duplicate_field(key));
    }
    *slot = value;
    Ok(())
}

/// A member's name: one of those read, without a copy, or another.
enum Key {
    Known(&'static str),
    Other,
}

impl<'de> Deserialize<'de> for Key {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl<'de> Visitor<'de> for KeyVisitor {
            type Value = Key;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a member name")
            }
            fn visit_str<E>(self, v: &str) -> Result<Key, E> {
                const REGISTRY: &[&str] = &["@odata.type", "Id", "RegistryEntries", "Attributes"];
                Ok(REGISTRY
                    .iter()
                    .chain(ENTRY_MEMBERS)
                    .find(|known| **known == v)
                    .map_or(Key::Other, |known| Key::Known(known)))
            }
        }
        deserializer.deserialize_identifier(KeyVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_are_read_by_name_keeping_unknown_types() {
        // The shape of iDRAC's NetworkAttributesRegistry entries
        // (`tests/fixtures/public/redfish/libredfish-dell`).
        let registry = serde_json::json!({"Id": "NetworkAttributesRegistry_NIC.Slot.5-1",
            "RegistryEntries": {"Attributes": [
            {"AttributeName": "FamilyVersion", "DisplayName": "Family Firmware Version",
             "HelpText": null, "ReadOnly": true, "Type": "String"},
            {"AttributeName": "Broadcom_DCBX", "DisplayName": "DCBX Mode", "ReadOnly": false,
             "Type": "Enumeration", "Value": [{"ValueName": "Disabled", "ValueDisplayName": "Disabled"}]},
            {"AttributeName": "Odd", "ReadOnly": "yes", "Type": "Bitmask", "DisplayName": 7},
            {"DisplayName": "no name"},
            {"AttributeName": ["not", "a", "name"]},
            "not an entry",
            {"AttributeName": "Secret", "Type": "String", "WriteOnly": "yes"}
        ]}});
        let registry = Registry::new(registry, false);
        assert_eq!(
            registry.id(),
            Some("NetworkAttributesRegistry_NIC.Slot.5-1")
        );
        assert_eq!(
            registry.entry("FamilyVersion"),
            Some(&Entry {
                display_name: Some("Family Firmware Version".into()),
                help_text: None,
                read_only: true,
                kind: Some(AttributeType::String),
                class: OnceLock::new(),
            })
        );
        let dcbx = registry.entry("Broadcom_DCBX").unwrap();
        assert_eq!(
            (dcbx.read_only, &dcbx.kind),
            (false, &Some(AttributeType::Enumeration))
        );
        let odd = registry.entry("Odd").unwrap();
        assert_eq!(
            (odd.read_only, &odd.kind, &odd.display_name),
            (false, &Some(AttributeType::Other("Bitmask".into())), &None)
        );
        assert_eq!(registry.entries.len(), 4);
        assert!(registry.entry("familyversion").is_none());
        assert!(registry.served().is_none());
        // The types make the filter: a write-only attribute is a secret whatever its name.
        assert!(
            registry
                .filter()
                .is_secret("Secret", &Value::String("x".into()))
        );
        assert!(
            !registry
                .filter()
                .is_secret("Broadcom_DCBX", &Value::String("x".into()))
        );
        let empty = Registry::new(serde_json::json!({}), true);
        assert!(empty.entry("FamilyVersion").is_none());
        assert_eq!(empty.served(), Some(&serde_json::json!({})));
    }

    /// Dell's BIOS registry and every NIC registry of the iDRAC capture in tests/fixtures/public.
    fn dell_registries() -> Vec<std::path::PathBuf> {
        let dell = driftgate_test_data::public_data("redfish/libredfish-dell/redfish/v1");
        let mut files = vec![dell.join("Systems/System.Embedded.1/Bios/BiosRegistry/index.json")];
        for folder in std::fs::read_dir(dell.join("Registries")).unwrap() {
            let folder = folder.unwrap().path();
            let name = folder.file_name().unwrap().to_string_lossy().into_owned();
            if name.starts_with("NetworkAttributesRegistry_") {
                files.push(folder.join(format!("{name}.json/index.json")));
            }
        }
        assert!(files.len() > 4, "{files:?}");
        files
    }

    #[test]
    fn an_entry_s_class_worked_out_once_is_the_class_of_its_attribute() {
        for file in dell_registries() {
            let text = std::fs::read(&file).unwrap();
            let (_, registry) = Registry::from_text(&text).expect("a registry");
            for (name, entry) in &registry.entries {
                let class = super::super::classify(name, Some(entry));
                assert_eq!(super::super::classify_in(Some(&registry), name), class);
                assert!(entry.class.get().is_some());
                // The second time from what the first worked out.
                assert_eq!(super::super::classify_in(Some(&registry), name), class);
            }
            // A name the registry does not have is classified by its name alone.
            let unlisted = "Vendor_DCBXMode";
            assert_eq!(
                super::super::classify_in(Some(&registry), unlisted),
                super::super::classify(unlisted, None)
            );
        }
    }

    #[test]
    fn a_registry_read_from_its_text_is_the_one_read_from_its_json() {
        for file in dell_registries() {
            let text = std::fs::read(&file).unwrap();
            let (odata_type, read) = Registry::from_text(&text).expect("a registry");
            let parsed = Registry::new(serde_json::from_slice(&text).unwrap(), false);
            assert!(
                odata_type.starts_with("#AttributeRegistry."),
                "{odata_type}"
            );
            assert!(!read.entries.is_empty(), "{}", file.display());
            assert_eq!(
                (read.id(), &read.entries, read.filter()),
                (parsed.id(), &parsed.entries, parsed.filter()),
                "{}",
                file.display()
            );
        }
    }

    #[test]
    fn what_is_not_a_registry_is_left_to_the_json_parse_to_explain() {
        let registry = |rest: &str| {
            format!(r##"{{"@odata.type": "#AttributeRegistry.v1_3_0.AttributeRegistry"{rest}}}"##)
        };
        let read = registry(r##", "RegistryEntries": {"Attributes": [{"AttributeName": "A"}]}"##);
        assert!(Registry::from_text(read.as_bytes()).is_some());
        // What judging does not read is passed over, a key given twice there too.
        let unread = registry(
            r##", "Description": "a", "Description": "b", "RegistryEntries": {"Menus": [], "Menus": [], "Attributes": []}"##,
        );
        assert!(Registry::from_text(unread.as_bytes()).is_some());
        for refused in [
            registry(""),
            registry(r##", "RegistryEntries": null"##),
            registry(r##", "RegistryEntries": {"Menus": []}"##),
            registry(r##", "RegistryEntries": {"Attributes": {"AttributeName": "A"}}"##),
            registry(r##", "RegistryEntries": {"Attributes": [{"AttributeName": "A"}]"##),
            registry(
                r##", "RegistryEntries": {"Attributes": [{"AttributeName": "A", "Type": "String", "Type": "Password"}]}"##,
            ),
            registry(r##", "Id": "A", "Id": "B", "RegistryEntries": {"Attributes": []}"##),
            r##"{"@odata.type": 7, "RegistryEntries": {"Attributes": []}}"##.to_owned(),
            r##"{"RegistryEntries": {"Attributes": []}}"##.to_owned(),
            r##"[{"@odata.type": "#AttributeRegistry.v1_3_0.AttributeRegistry"}]"##.to_owned(),
            String::new(),
        ] {
            assert!(
                Registry::from_text(refused.as_bytes()).is_none(),
                "{refused}"
            );
        }
    }

    #[test]
    fn an_entry_giving_a_member_judging_reads_twice_is_refused() {
        let twice = br#"{"RegistryEntries": {"Attributes": [
            {"AttributeName": "DcbxMode", "ReadOnly": false, "ReadOnly": true}]}}"#;
        let error = serde_json::from_slice::<Read>(twice).unwrap_err();
        assert!(
            error.to_string().contains("duplicate field `ReadOnly`"),
            "{error}"
        );
        let list_twice = br#"{"RegistryEntries": {"Attributes": [], "Attributes": []}}"#;
        assert!(serde_json::from_slice::<Read>(list_twice).is_err());
    }
}
