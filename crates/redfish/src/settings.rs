//! What `driftgate fix` needs of a BMC: the resources of attributes it lets a client stage
//! changes to (a vendor's NIC attributes such as Dell's `DellNetworkAttributes`, the BIOS),
//! each with its `@Redfish.Settings` object, supported apply times, current and pending
//! values and the rules of its attribute registry, and the systems' reset actions.
//!
//! Which attribute, set to which of its allowed values, gives a fact the value wanted is not
//! a second table beside the normalizers: [`BmcSettings::write_for`] stages each candidate in a
//! copy of what was crawled and normalizes it, so a fix is exactly the inverse of what the
//! capture reads, for every vendor the capture knows. `connection.rs` reads and writes a BMC,
//! `owner.rs` finds the system a reset applies a resource's staged values with.
//!
//! Every write is aimed from the URIs the crawl read (a resource's `@odata.id` is only what
//! the BMC claims): a settings object must be below the resource it was read from, a reset
//! target below its system, each as the client sends it ([`WriteTarget`]).

pub mod connection;
mod owner;

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use super::attributes::Registry;
use super::client::{TargetError, WriteTarget};
use super::crawl::{Inventory, link};
use super::normalize::normalize;
use driftgate_snapshot::{FactPath, FactValue, Facts, path_segment};

/// What an attribute registry says may be written to one attribute.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Rule {
    /// `ReadOnly: true`.
    pub read_only: bool,
    /// `Immutable: true`: never writable, whatever else it says.
    pub immutable: bool,
    /// `ResetRequired: true`: a written value takes effect at the next reset.
    pub reset_required: bool,
    /// `Type` (`Enumeration`, `String`, `Integer`, `Boolean`, …), when given.
    pub kind: Option<String>,
    /// The `ValueName`s of an enumeration.
    pub values: Vec<String>,
    /// `LowerBound` and `UpperBound` of an integer, when given.
    pub bounds: (Option<i64>, Option<i64>),
    /// A dependency the registry declares that makes the attribute read-only with the
    /// resource's current values (`VirtualizationMode` is `NPAR` → `NumberVFAdvertised`), in
    /// words.
    pub read_only_because: Option<String>,
}

/// A resource of attributes with a settings object.
#[derive(Debug, Clone, PartialEq)]
pub struct Writable {
    /// What it describes: `bios`, or `function <Id>` for a NIC function's attributes.
    pub scope: String,
    /// The URI driftgate read the resource from (`…/DellNetworkAttributes/<FQDD>`,
    /// `…/Bios`), never the `@odata.id` it claims; empty when it came inline in an expanded
    /// collection (then nothing is written to it).
    pub uri: String,
    /// The resource the crawl reached it from, as read — the system of a BIOS, the chassis of a
    /// NIC's attributes — which it must be below: a link a BMC points elsewhere (`Bios` →
    /// `/redfish/v1/AccountService`) makes it no place to write. Empty when not read on its own.
    pub within: String,
    /// Its `@Redfish.Settings` `SettingsObject`, where changes are staged, as the BMC names it.
    pub settings: Option<String>,
    /// The system a reset applies its staged values with (the URI driftgate read it from),
    /// or why there is not exactly one.
    pub system: Result<String, String>,
    /// Its `@Redfish.Settings` `SupportedApplyTimes` (empty when not listed).
    pub apply_times: Vec<String>,
    /// The attribute registry it names (`AttributeRegistry`), when it names one.
    pub registry_name: Option<String>,
    /// Whether the service published that registry.
    pub registry_found: bool,
    /// Current values.
    pub current: Map<String, Value>,
    /// Values staged for the next reset (the settings object's `Attributes`).
    pub pending: Map<String, Value>,
    /// The registry's rules by attribute name.
    pub rules: BTreeMap<String, Rule>,
}

impl Writable {
    /// Where a change to it is sent: its settings object as the client sends it, when that is
    /// below the URI the resource was read from, itself below the resource the crawl reached it
    /// from; `None` when it names none.
    pub fn target(&self) -> Option<Result<WriteTarget, TargetError>> {
        let settings = self.settings.as_deref()?;
        Some(
            WriteTarget::below(&self.uri, &self.within)
                .and_then(|_| WriteTarget::below(settings, &self.uri)),
        )
    }
}

/// How the path of a system's reset action ends.
const RESET_ACTION: &str = "/Actions/ComputerSystem.Reset";

/// A system's `#ComputerSystem.Reset` action.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reset {
    /// The system: the URI driftgate read it from.
    pub system: String,
    /// The action's `target`, as the BMC names it.
    pub target: String,
    /// `ResetType@Redfish.AllowableValues` (empty when not listed).
    pub allowed: Vec<String>,
}

impl Reset {
    /// Where the reset is sent: its target as the client sends it, when that is the system's
    /// own `Actions/ComputerSystem.Reset` below the system driftgate read (any other path below
    /// it, such as its BIOS settings, is not where a reset goes).
    pub fn checked_target(&self) -> Result<WriteTarget, TargetError> {
        let target = WriteTarget::below(&self.target, &self.system)?;
        if target.as_str().ends_with(RESET_ACTION) {
            Ok(target)
        } else {
            Err(TargetError::NotTheAction {
                uri: self.target.clone(),
                action: RESET_ACTION,
            })
        }
    }
}

/// A BMC's writable resources and resets, from one crawl.
#[derive(Debug, Clone)]
pub struct BmcSettings {
    inventory: Inventory,
    facts: Facts,
    /// Who made the BMC, as its service root says (`Vendor`, else the `Oem` key).
    pub vendor: Option<String>,
    /// Every resource of attributes with its settings.
    pub writable: Vec<Writable>,
    /// Every system's reset action.
    pub resets: Vec<Reset>,
}

/// One attribute write that gives a fact the value wanted.
#[derive(Debug, Clone, PartialEq)]
pub struct Write<'a> {
    /// The resource the attribute is in.
    pub resource: &'a Writable,
    /// The attribute, as the BMC spells it.
    pub attribute: String,
    /// The value to write, as the BMC spells it.
    pub value: Value,
}

impl BmcSettings {
    /// The settings of what `inventory` holds.
    pub fn new(inventory: Inventory) -> Self {
        let facts = normalize(&inventory).facts;
        let mut writable = Vec::new();
        let mut resets = Vec::new();
        for system in &inventory.systems {
            if let Some(bios) = &system.bios {
                let read = (
                    system.bios_uri.as_deref(),
                    system.uri.as_deref(),
                    owner::of_bios(system),
                );
                writable.push(resource(
                    "bios".to_owned(),
                    (bios, read),
                    system.bios_pending.as_ref(),
                    system.bios_registry.as_deref(),
                ));
            }
            let action = &system.system["Actions"]["#ComputerSystem.Reset"];
            if let (Some(uri), Some(target)) = (system.uri.as_deref(), action["target"].as_str()) {
                resets.push(Reset {
                    system: uri.to_owned(),
                    target: target.to_owned(),
                    allowed: strings(&action["ResetType@Redfish.AllowableValues"]),
                });
            }
        }
        for adapter in &inventory.adapters {
            for function in &adapter.functions {
                if let Some(attributes) = &function.oem_attributes {
                    let id = function.function["Id"].as_str().unwrap_or("?");
                    let read = (
                        function.oem_attributes_uri.as_deref(),
                        adapter.chassis.uri.as_deref(),
                        owner::of_chassis(&adapter.chassis, &inventory.systems),
                    );
                    writable.push(resource(
                        format!("function {id}"),
                        (attributes, read),
                        function.oem_pending.as_ref(),
                        function.oem_registry.as_deref(),
                    ));
                }
            }
        }
        let vendor = inventory.root["Vendor"]
            .as_str()
            .map(str::to_owned)
            .or_else(|| {
                inventory.root["Oem"]
                    .as_object()
                    .and_then(|oem| oem.keys().next().cloned())
            });
        BmcSettings {
            inventory,
            facts,
            vendor,
            writable,
            resets,
        }
    }

    /// The reset action of `system` (the URI driftgate read it from).
    pub fn reset_of(&self, system: &str) -> Option<&Reset> {
        self.resets.iter().find(|r| r.system == system)
    }

    /// The facts the crawl gives, as a capture would.
    pub fn facts(&self) -> &Facts {
        &self.facts
    }

    /// The write of one attribute that makes fact `path` equal `to`: each attribute of each
    /// writable resource (those whose name the path spells first), set to each value its
    /// registry allows (or to `to` itself when it lists none), is staged in a copy of the
    /// crawl and normalized; the first that gives `path` = `to` wins. When the fact has that
    /// value already, the attribute that carries it with its current value. `None` when none
    /// does.
    pub fn write_for(&self, path: &FactPath, to: &FactValue) -> Option<Write<'_>> {
        // Already the value wanted: the attribute that carries it, as it is, so the write is
        // seen as current (any other write would leave the fact as it is, and "work").
        if self.facts.get(path.as_str()) == Some(to) {
            let (resource, attribute) = self.carrier_of(path)?;
            let value = resource.current.get(attribute)?.clone();
            return Some(Write {
                resource,
                attribute: attribute.to_owned(),
                value,
            });
        }
        let segments: Vec<&str> = path.as_str().split('/').collect();
        for (index, resource) in self.writable.iter().enumerate() {
            let mut names: Vec<&String> = resource.current.keys().collect();
            // Raw attribute facts name their attribute: try those first.
            names.sort_by_key(|name| !segments.contains(&path_segment(name).as_ref()));
            for name in names {
                for value in candidates(resource, name, to) {
                    if resource.current.get(name) == Some(&value) {
                        continue;
                    }
                    let mut staged = self.inventory.clone();
                    set_attribute(&mut staged, index, name, value.clone());
                    if normalize(&staged).facts.get(path.as_str()) == Some(to) {
                        return Some(Write {
                            resource,
                            attribute: name.clone(),
                            value,
                        });
                    }
                }
            }
        }
        None
    }
}

impl BmcSettings {
    /// The attribute that carries fact `path`: the first whose change (to another value its
    /// registry allows) changes the fact; for saying why no write gives a value.
    pub fn carrier_of(&self, path: &FactPath) -> Option<(&Writable, &str)> {
        let now = self.facts.get(path.as_str());
        let segments: Vec<&str> = path.as_str().split('/').collect();
        for (index, resource) in self.writable.iter().enumerate() {
            let mut names: Vec<&String> = resource.current.keys().collect();
            names.sort_by_key(|name| !segments.contains(&path_segment(name).as_ref()));
            for name in names {
                let Some(rule) = resource.rules.get(name.as_str()) else {
                    continue;
                };
                for value in &rule.values {
                    let value = Value::from(value.as_str());
                    if resource.current.get(name.as_str()) == Some(&value) {
                        continue;
                    }
                    let mut staged = self.inventory.clone();
                    set_attribute(&mut staged, index, name, value);
                    if normalize(&staged).facts.get(path.as_str()) != now {
                        return Some((resource, name));
                    }
                }
            }
        }
        None
    }
}

/// The values `name` may be written with to reach `to`: the registry's enumeration, else
/// `to` itself as JSON.
fn candidates(resource: &Writable, name: &str, to: &FactValue) -> Vec<Value> {
    match resource.rules.get(name) {
        Some(rule) if !rule.values.is_empty() => rule
            .values
            .iter()
            .map(|v| Value::from(v.as_str()))
            .collect(),
        _ => serde_json::to_value(to)
            .ok()
            .filter(|v| !v.is_array())
            .into_iter()
            .collect(),
    }
}

/// Sets attribute `name` of the `index`th writable resource (in [`BmcSettings::new`]'s order)
/// of `inventory` to `value`.
fn set_attribute(inventory: &mut Inventory, index: usize, name: &str, value: Value) {
    let mut at = 0;
    let mut target: Option<&mut Value> = None;
    for system in &mut inventory.systems {
        if let Some(bios) = &mut system.bios {
            if at == index {
                target = Some(bios);
                break;
            }
            at += 1;
        }
    }
    if target.is_none() {
        'adapters: for adapter in &mut inventory.adapters {
            for function in &mut adapter.functions {
                if let Some(attributes) = &mut function.oem_attributes {
                    if at == index {
                        target = Some(attributes);
                        break 'adapters;
                    }
                    at += 1;
                }
            }
        }
    }
    if let Some(Value::Object(attributes)) = target.map(|t| &mut t["Attributes"]) {
        attributes.insert(name.to_owned(), value);
    }
}

/// Where a writable resource was read: the URI it was read from (`None`: inline, not read on
/// its own), the URI of the resource it was reached from, and the system whose reset applies
/// its staged values (or why there is not exactly one).
type ReadAt<'a> = (Option<&'a str>, Option<&'a str>, Result<String, String>);

/// The writable resource `current`, read where `read` says.
fn resource(
    scope: String,
    (current, read): (&Value, ReadAt<'_>),
    pending: Option<&Value>,
    registry: Option<&Registry>,
) -> Writable {
    let (uri, within, system) = read;
    let settings = &current["@Redfish.Settings"];
    let object = |value: Option<&Value>| {
        value
            .and_then(|v| v["Attributes"].as_object())
            .cloned()
            .unwrap_or_default()
    };
    Writable {
        scope,
        uri: uri.unwrap_or_default().to_owned(),
        within: within.unwrap_or_default().to_owned(),
        settings: link(settings, &["SettingsObject"]).map(str::to_owned),
        system,
        apply_times: strings(&settings["SupportedApplyTimes"]),
        registry_name: current["AttributeRegistry"].as_str().map(str::to_owned),
        registry_found: registry.is_some(),
        current: object(Some(current)),
        pending: object(pending),
        // Read whole for a write (see `connection.rs`); without it, no attribute has a rule
        // and none is written.
        rules: registry
            .and_then(Registry::served)
            .map(|r| rules(r, &object(Some(current))))
            .unwrap_or_default(),
    }
}

/// Each attribute's rule, with the registry's `Map` dependencies that make one read-only
/// (`MapToProperty` `ReadOnly`, `Immutable` or `GrayOut` set to true) evaluated against the
/// `current` values.
fn rules(registry: &Value, current: &Map<String, Value>) -> BTreeMap<String, Rule> {
    let mut rules: BTreeMap<String, Rule> = registry["RegistryEntries"]["Attributes"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|entry| {
            let name = entry["AttributeName"].as_str()?;
            let flag = |key: &str| entry[key].as_bool() == Some(true);
            Some((
                name.to_owned(),
                Rule {
                    read_only: flag("ReadOnly"),
                    immutable: flag("Immutable"),
                    reset_required: flag("ResetRequired"),
                    kind: entry["Type"].as_str().map(str::to_owned),
                    values: entry["Value"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter_map(|v| v["ValueName"].as_str().map(str::to_owned))
                        .collect(),
                    bounds: (entry["LowerBound"].as_i64(), entry["UpperBound"].as_i64()),
                    read_only_because: None,
                },
            ))
        })
        .collect();
    for dependency in registry["RegistryEntries"]["Dependencies"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|d| d["Type"] == "Map")
    {
        let map = &dependency["Dependency"];
        let locks = ["ReadOnly", "Immutable", "GrayOut"]
            .contains(&map["MapToProperty"].as_str().unwrap_or(""))
            && map["MapToValue"] == Value::Bool(true);
        let Some(target) = map["MapToAttribute"].as_str().filter(|_| locks) else {
            continue;
        };
        if let Some(why) = holds(&map["MapFrom"], current)
            && let Some(rule) = rules.get_mut(target)
        {
            rule.read_only_because = Some(why);
        }
    }
    rules
}

/// Whether the `MapFrom` conditions hold for `current` (joined by each one's `MapTerms`, `OR`
/// when absent, as iDRAC lists alternatives), and the condition that made them, in words.
fn holds(conditions: &Value, current: &Map<String, Value>) -> Option<String> {
    let mut result: Option<(bool, String)> = None;
    for condition in conditions.as_array().into_iter().flatten() {
        let attribute = condition["MapFromAttribute"].as_str().unwrap_or("");
        let wanted = &condition["MapFromValue"];
        let now = current.get(attribute);
        let compare = |now: &Value| match (now.as_f64(), wanted.as_f64()) {
            (Some(a), Some(b)) => a.partial_cmp(&b),
            _ => None,
        };
        let test = condition["MapFromProperty"] == "CurrentValue"
            && now.is_some_and(|now| match condition["MapFromCondition"].as_str() {
                Some("EQU") => now == wanted,
                Some("NEQ") => now != wanted,
                Some("GTR") => compare(now).is_some_and(|o| o.is_gt()),
                Some("GEQ") => compare(now).is_some_and(|o| o.is_ge()),
                Some("LSS") => compare(now).is_some_and(|o| o.is_lt()),
                Some("LEQ") => compare(now).is_some_and(|o| o.is_le()),
                _ => false,
            });
        let words = format!(
            "{attribute} {} {wanted}",
            condition["MapFromCondition"].as_str().unwrap_or("?")
        );
        result = Some(match (result, condition["MapTerms"].as_str()) {
            (None, _) => (test, words),
            (Some((before, w)), Some("AND")) => (before && test, format!("{w} and {words}")),
            (Some((true, w)), _) => (true, w),
            (Some((false, _)), _) => (test, words),
        });
    }
    result.filter(|(holds, _)| *holds).map(|(_, words)| words)
}

fn strings(value: &Value) -> Vec<String> {
    value
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|v| v.as_str().map(str::to_owned))
        .collect()
}

#[cfg(test)]
mod tests;
