//! What the tests of BIOS and NIC (HII) attribute classes share: the attribute registries of a
//! mockup, an independent, deliberately plain reading of which entries report a version or a
//! value that changes by itself, such values changed the way an unchanged host changes them
//! between two captures, and two captures of mockup folders judged against each other.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{Map, Value};

use super::mockups::{Judged, Mockup, check_mockups, newer};

/// One attribute registry of a mockup: its `Id` and its entries by `AttributeName`.
pub(crate) struct Registry {
    /// Its `Id`.
    pub id: String,
    /// `RegistryEntries.Attributes`, by name.
    pub entries: BTreeMap<String, Map<String, Value>>,
}

/// Every attribute registry of `mockup` (a resource with `RegistryEntries.Attributes`).
pub(crate) fn registries(mockup: &Mockup) -> Vec<Registry> {
    mockup
        .resources
        .values()
        .filter_map(|body| {
            let entries = body["RegistryEntries"]["Attributes"].as_array()?;
            Some(Registry {
                id: body["Id"].as_str().unwrap_or("").to_owned(),
                entries: entries
                    .iter()
                    .filter_map(Value::as_object)
                    .filter_map(|e| Some((e.get("AttributeName")?.as_str()?.to_owned(), e.clone())))
                    .collect(),
            })
        })
        .collect()
}

/// The registry a resource of attributes at `uri` names (its own `AttributeRegistry`, or for a
/// `Settings`/`Pending` resource without one, its parent's); iDRAC names
/// `NetworkAttributeRegistry_<FQDD>` and serves `NetworkAttributesRegistry_<FQDD>`.
pub(crate) fn registry_of<'r>(
    mockup: &Mockup,
    registries: &'r [Registry],
    uri: &str,
) -> Option<&'r Registry> {
    let named = |uri: &str| {
        mockup.resources.get(uri)?["AttributeRegistry"]
            .as_str()
            .map(str::to_owned)
    };
    let name = named(uri).or_else(|| named(uri.rsplit_once('/')?.0))?;
    let alias = name.replacen("NetworkAttributeRegistry_", "NetworkAttributesRegistry_", 1);
    registries.iter().find(|r| r.id == name || r.id == alias)
}

/// The lower-cased words of an attribute name or display name: split at anything not a
/// letter or digit and where a lower-case letter meets an upper-case one
/// (`PCIE_SLOT_1_Port1_LinkStatus` → `pcie slot 1 port1 link status`).
pub(crate) fn words(text: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut previous_lower = false;
    for c in text.chars() {
        if !c.is_ascii_alphanumeric() {
            words.extend((!word.is_empty()).then(|| std::mem::take(&mut word)));
            previous_lower = false;
            continue;
        }
        if c.is_ascii_uppercase() && previous_lower {
            words.push(std::mem::take(&mut word));
        }
        previous_lower = c.is_ascii_lowercase();
        word.push(c.to_ascii_lowercase());
    }
    words.extend((!word.is_empty()).then_some(word));
    words
}

/// The entry's `DisplayName`, or "".
fn display(entry: &Map<String, Value>) -> &str {
    entry
        .get("DisplayName")
        .and_then(Value::as_str)
        .unwrap_or("")
}

fn read_only(entry: &Map<String, Value>) -> bool {
    entry.get("ReadOnly") == Some(&Value::Bool(true))
}

/// Whether a registry entry reports a version, as an operator reading the registry would
/// say: read-only text whose name or display name says version, firmware (FW), bundle or
/// microcode, or names a boot or management firmware image (`…NCSI`, `MBA`, `PXE`,
/// `BootCode`); a `…Support` entry says what the device can do, not which image it runs.
pub(crate) fn reports_version(name: &str, entry: &Map<String, Value>) -> bool {
    if !read_only(entry) || entry.get("Type").and_then(Value::as_str) != Some("String") {
        return false;
    }
    let said = [
        name.to_ascii_lowercase(),
        display(entry).to_ascii_lowercase(),
    ];
    if said.iter().any(|s| s.ends_with("support")) {
        return false;
    }
    said.iter().any(|s| {
        ["version", "firmware", "microcode", "bundle"]
            .iter()
            .any(|word| s.contains(word))
            || ["ncsi", "nc-si", "mba", "pxe", "boot code", "bootcode"]
                .iter()
                .any(|image| s.ends_with(image))
    }) || words(display(entry)).iter().any(|w| w == "fw")
}

/// Whether an attribute reports something that changes by itself (the link, a speed, a
/// temperature, a counter, a clock, "last" anything): read-only in its registry and its name
/// or display name says so; without a registry entry, only a name that says it plainly
/// (`…LinkStatus`, `…CurrentLinkSpeed`, `…Temperature`, `…Uptime`, `Last…`).
pub(crate) fn reports_volatile(name: &str, entry: Option<&Map<String, Value>>) -> bool {
    // A word alone, or words that say it together (`Link Status`, `LnkSpeed`): not `status`,
    // `state` or `speed` alone, which a read-only mirror of a setting says too.
    const SAID: &[&str] = &[
        "temperature",
        "count",
        "counter",
        "counters",
        "time",
        "date",
        "uptime",
        "last",
        "negotiated",
        "timestamp",
    ];
    const TOGETHER: &[&str] = &[
        "linkstatus",
        "linkstate",
        "linkspeed",
        "lnkspeed",
        "lnkstatus",
        "currentspeed",
        "currentlinkspeed",
    ];
    match entry {
        Some(entry) => {
            read_only(entry)
                && [words(name), words(display(entry))].iter().any(|w| {
                    w.iter().any(|w| SAID.contains(&w.as_str()))
                        || TOGETHER.iter().any(|t| w.concat().contains(t))
                })
        }
        None => {
            let joined = words(name).concat();
            [
                "linkstatus",
                "currentlinkspeed",
                "temperature",
                "uptime",
                "lastboot",
            ]
            .iter()
            .any(|said| joined.contains(said))
        }
    }
}

/// Another value of the same kind: `Connected`↔`Disconnected` (and `Up`↔`Down`), another
/// value of the entry's enumeration, a number plus one, a text with more after it.
fn another(value: &Value, entry: Option<&Map<String, Value>>) -> Value {
    let text = match value {
        Value::String(text) => text.as_str(),
        Value::Number(n) => return Value::from(n.as_i64().unwrap_or(0) + 1),
        Value::Bool(b) => return Value::from(!b),
        _ => return value.clone(),
    };
    for (one, other) in [("Connected", "Disconnected"), ("Up", "Down")] {
        if text == one {
            return other.into();
        }
        if text == other {
            return one.into();
        }
    }
    let choices: Vec<&str> = entry
        .and_then(|e| e.get("Value"))
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|v| v["ValueName"].as_str())
        .collect();
    match choices.iter().find(|c| **c != text) {
        Some(choice) => (*choice).into(),
        None => format!("{text} (later)").into(),
    }
}

/// Changes every value [`reports_volatile`] picks, in every resource of attributes (current
/// and staged alike, so that a staged value equal to the current one stays equal); returns
/// the names changed.
pub(crate) fn change_volatile_values(mockup: &mut Mockup) -> Vec<String> {
    let registries = registries(mockup);
    let mut changed = Vec::new();
    let uris: Vec<String> = mockup
        .resources
        .iter()
        .filter(|(_, body)| body["Attributes"].is_object())
        .map(|(uri, _)| uri.clone())
        .collect();
    for uri in uris {
        let registry = registry_of(mockup, &registries, &uri);
        let body = mockup.resources.get_mut(&uri).expect("listed above");
        let attributes = body["Attributes"].as_object_mut().expect("filtered above");
        for (name, value) in attributes.iter_mut() {
            let entry = registry.and_then(|r| r.entries.get(name));
            if value.is_null() || !reports_volatile(name, entry) {
                continue;
            }
            *value = another(value, entry);
            changed.push(name.clone());
        }
    }
    changed.sort();
    changed.dedup();
    changed
}

/// A firmware update of every component as [`Mockup::bump_firmware`] makes it, made true to
/// the registries: every attribute [`reports_version`] picks is newer too (`Broadcom_NCSI`,
/// `Proc1Microcode`), and no attribute its registry says is writable changes (a setting named
/// `IpVersion` or `DCBXVersion` is not a version). Returns (old, new) of every version
/// changed.
pub(crate) fn update_firmware(mockup: &mut Mockup) -> Vec<(String, String)> {
    let before = mockup.clone();
    let mut bumped = mockup.bump_firmware();
    let registries = registries(&before);
    for (uri, body) in &before.resources {
        let Some(attributes) = body["Attributes"].as_object() else {
            continue;
        };
        let Some(registry) = registry_of(&before, &registries, uri) else {
            continue;
        };
        // `bump_firmware` keeps its URIs for attribute resources (only inventory ids move).
        let updated = &mut mockup.resources.get_mut(uri).expect("not renamed")["Attributes"];
        for (name, old) in attributes {
            let Some(entry) = registry.entries.get(name) else {
                continue;
            };
            if entry.get("ReadOnly") != Some(&Value::Bool(true)) {
                updated[name] = old.clone();
            } else if let Some(version) = old.as_str().filter(|v| !v.is_empty())
                && reports_version(name, entry)
                && updated[name] == *old
            {
                let next = newer(version);
                updated[name] = next.clone().into();
                bumped.push((version.to_owned(), next));
            }
        }
    }
    bumped
}

/// What a mockup says of itself, judged against itself under `--strict`: the exit code and the
/// findings (invariants that hold for its state whatever changed, such as a DCBX mode disabled
/// on a RoCE port).
pub(crate) fn pre_existing(dir: &Path) -> (i32, Vec<String>) {
    let judged = check_mockups(dir, dir, true);
    (judged.code, judged.findings())
}

/// Whether `after` says nothing more than `before` (a mockup judged against itself, see
/// [`pre_existing`]) and nothing that warns: the findings it adds, if any, are `info`.
pub(crate) fn adds_nothing(before: &(i32, Vec<String>), after: &Judged) -> Result<(), String> {
    let added: Vec<String> = after
        .findings()
        .into_iter()
        .filter(|f| !before.1.contains(f) && !f.starts_with("info "))
        .collect();
    if after.code == before.0 && added.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "exit {} (alone: {}): {added:#?}",
            after.code, before.0
        ))
    }
}
