//! What a PATCH of a settings object asks for, checked before anything is stored: each value
//! against the owner's attribute registry (or, with none, against the owner's current values),
//! and the apply time against the ones the owner supports. Pure: no state, no I/O.

use serde_json::{Map, Value};

use super::refusal::Problem;
use super::registry;

const APPLY_TIME: &str = "@Redfish.SettingsApplyTime";

/// A checked PATCH of a settings object.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Change {
    /// Where the values live in the owner and its settings object.
    pub(super) place: Place,
    /// The new values by name.
    pub(super) values: Map<String, Value>,
    /// When they apply (`Immediate`, `OnReset`, …).
    pub(super) apply_time: String,
    /// Whether the request named the apply time (iDRAC makes a job only then).
    pub(super) apply_time_given: bool,
}

/// Where a resource keeps its settable values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Place {
    /// In `Attributes` (BIOS, Dell's network and iDRAC attributes).
    Attributes,
    /// As properties of the resource itself.
    Properties,
}

impl Place {
    /// Where `owner` keeps them.
    pub(super) fn of(owner: &Value) -> Place {
        if owner["Attributes"].is_object() {
            Place::Attributes
        } else {
            Place::Properties
        }
    }

    /// The object holding the values in `resource`, made when missing; `None` when `resource`
    /// is no object.
    pub(super) fn values_mut(self, resource: &mut Value) -> Option<&mut Map<String, Value>> {
        let resource = resource.as_object_mut()?;
        match self {
            Place::Attributes => resource
                .entry("Attributes")
                .or_insert_with(|| Value::Object(Map::new()))
                .as_object_mut(),
            Place::Properties => Some(resource),
        }
    }

    fn values(self, resource: &Value) -> Option<&Map<String, Value>> {
        match self {
            Place::Attributes => resource["Attributes"].as_object(),
            Place::Properties => resource.as_object(),
        }
    }

    fn pointer(self, name: &str) -> String {
        match self {
            Place::Attributes => format!("#/Attributes/{name}"),
            Place::Properties => format!("#/{name}"),
        }
    }
}

/// Checks `body`, a PATCH of the settings object of `owner`, whose attribute registry (when the
/// service has one) is `registry`. Every problem is reported, not the first one.
pub(super) fn check(
    owner: &Value,
    registry: Option<&Value>,
    body: &Value,
) -> Result<Change, Vec<Problem>> {
    let Some(request) = body.as_object() else {
        return Err(vec![Problem::malformed_json()]);
    };
    let place = Place::of(owner);
    let mut problems = Vec::new();
    let (apply_time, apply_time_given) = apply_time(owner, request, &mut problems);
    let asked = match place {
        Place::Attributes => {
            for name in request
                .keys()
                .filter(|k| *k != "Attributes" && *k != APPLY_TIME)
            {
                problems.push(Problem::unknown(name, &format!("#/{name}")));
            }
            match request.get("Attributes").and_then(Value::as_object) {
                Some(attributes) => attributes.clone(),
                None => {
                    problems.push(Problem::property_missing("Attributes", "#/Attributes"));
                    Map::new()
                }
            }
        }
        Place::Properties => {
            let mut properties = request.clone();
            properties.remove(APPLY_TIME);
            properties
        }
    };
    let current = place.values(owner);
    for (name, value) in &asked {
        let pointer = place.pointer(name);
        let problem = match registry {
            Some(registry) => against_registry(registry, name, value, &pointer),
            None => against_current(current, name, value, &pointer),
        };
        problems.extend(problem);
    }
    if problems.is_empty() {
        Ok(Change {
            place,
            values: asked,
            apply_time,
            apply_time_given,
        })
    } else {
        Err(problems)
    }
}

/// The apply time asked for, or the owner's default: `OnReset` when it lists the ones it
/// supports without `Immediate`, else `Immediate`.
fn apply_time(
    owner: &Value,
    request: &Map<String, Value>,
    problems: &mut Vec<Problem>,
) -> (String, bool) {
    let supported: Option<Vec<&str>> = owner["@Redfish.Settings"]["SupportedApplyTimes"]
        .as_array()
        .map(|times| times.iter().filter_map(Value::as_str).collect());
    let default = match &supported {
        Some(times) if !times.contains(&"Immediate") => "OnReset",
        _ => "Immediate",
    };
    let Some(asked) = request.get(APPLY_TIME) else {
        return (default.to_owned(), false);
    };
    let name = "@Redfish.SettingsApplyTime/ApplyTime";
    let pointer = "#/@Redfish.SettingsApplyTime/ApplyTime";
    match &asked["ApplyTime"] {
        Value::Null => problems.push(Problem::property_missing(name, pointer)),
        Value::String(time) => {
            // With no list, the times Redfish defines for settings.
            let known = supported.unwrap_or_else(|| {
                vec![
                    "Immediate",
                    "OnReset",
                    "AtMaintenanceWindowStart",
                    "InMaintenanceWindowOnReset",
                ]
            });
            if !known.contains(&time.as_str()) {
                problems.push(Problem::not_in_list(&asked["ApplyTime"], name, pointer));
            }
            return (time.clone(), true);
        }
        other => problems.push(Problem::wrong_type(other, name, pointer)),
    }
    (default.to_owned(), true)
}

/// What is wrong with setting `name` to `value` by its registry entry, if anything.
fn against_registry(registry: &Value, name: &str, value: &Value, pointer: &str) -> Option<Problem> {
    let Some(entry) = registry::entry(registry, name) else {
        return Some(Problem::unknown(name, pointer));
    };
    if entry["ReadOnly"] == true || entry["Immutable"] == true {
        return Some(Problem::not_writable(name, pointer));
    }
    let wrong_type = || Some(Problem::wrong_type(value, name, pointer));
    match entry["Type"].as_str() {
        Some("Enumeration") => {
            let Some(asked) = value.as_str() else {
                return wrong_type();
            };
            let listed = entry["Value"]
                .as_array()
                .is_some_and(|values| values.iter().any(|v| v["ValueName"] == asked));
            (!listed).then(|| Problem::not_in_list(value, name, pointer))
        }
        Some("Integer") => {
            let Some(number) = value.as_i64() else {
                return wrong_type();
            };
            let below = entry["LowerBound"].as_i64().is_some_and(|low| number < low);
            let above = entry["UpperBound"]
                .as_i64()
                .is_some_and(|high| number > high);
            (below || above).then(|| Problem::out_of_range(value, name, pointer))
        }
        Some("Boolean") if !value.is_boolean() => wrong_type(),
        Some("String" | "Password") if !value.is_string() => wrong_type(),
        _ => None,
    }
}

/// With no registry a service cannot say what is writable, so, rather than refuse everything,
/// a value is taken when the owner already has the property and the value is of its current
/// JSON type (any type when the current value is null: that says nothing of the type).
fn against_current(
    current: Option<&Map<String, Value>>,
    name: &str,
    value: &Value,
    pointer: &str,
) -> Option<Problem> {
    let Some(now) = current.and_then(|values| values.get(name)) else {
        return Some(Problem::unknown(name, pointer));
    };
    if name.starts_with('@') || name == "Id" {
        return Some(Problem::not_writable(name, pointer));
    }
    let kind = |v: &Value| std::mem::discriminant(v);
    (!now.is_null() && kind(now) != kind(value)).then(|| Problem::wrong_type(value, name, pointer))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn registry() -> Value {
        json!({"RegistryEntries": {"Attributes": [
            {"AttributeName": "Mode", "Type": "Enumeration", "ReadOnly": false,
                "Value": [{"ValueName": "A"}, {"ValueName": "B"}]},
            {"AttributeName": "Fixed", "Type": "String", "ReadOnly": false, "Immutable": true},
            {"AttributeName": "Count", "Type": "Integer", "LowerBound": 1, "UpperBound": 8},
            {"AttributeName": "On", "Type": "Boolean"}
        ]}})
    }

    fn ids(result: Result<Change, Vec<Problem>>) -> Vec<&'static str> {
        result.unwrap_err().iter().map(|p| p.id).collect()
    }

    #[test]
    fn every_wrong_value_is_reported() {
        let owner = json!({"Attributes": {"Mode": "A"}});
        let body = json!({"Attributes": {"Mode": "C", "Fixed": "x", "Count": 9, "On": "yes",
            "Nope": 1}, "Other": 1});
        let mut found = ids(check(&owner, Some(&registry()), &body));
        found.sort_unstable();
        assert_eq!(
            found,
            [
                "Base.1.12.PropertyNotWritable",
                "Base.1.12.PropertyUnknown",
                "Base.1.12.PropertyUnknown",
                "Base.1.12.PropertyValueNotInList",
                "Base.1.12.PropertyValueOutOfRange",
                "Base.1.12.PropertyValueTypeError",
            ]
        );
        let fine = json!({"Attributes": {"Mode": "B", "Count": 8, "On": true}});
        let change = check(&owner, Some(&registry()), &fine).unwrap();
        assert_eq!(change.apply_time, "Immediate");
        assert!(!change.apply_time_given);
    }

    #[test]
    fn without_a_registry_only_present_values_of_their_type_are_taken() {
        let owner = json!({"Attributes": {"Mode": "A", "Secret": null}});
        assert!(
            check(
                &owner,
                None,
                &json!({"Attributes": {"Mode": "B", "Secret": "s"}})
            )
            .is_ok()
        );
        assert_eq!(
            ids(check(
                &owner,
                None,
                &json!({"Attributes": {"Mode": 1, "Other": "x"}})
            )),
            [
                "Base.1.12.PropertyValueTypeError",
                "Base.1.12.PropertyUnknown"
            ]
        );
        let properties = json!({"Id": "1", "MTUSize": 1500});
        assert!(check(&properties, None, &json!({"MTUSize": 9000})).is_ok());
        assert_eq!(
            ids(check(&properties, None, &json!({"Id": "2"}))),
            ["Base.1.12.PropertyNotWritable"]
        );
    }

    #[test]
    fn the_apply_time_is_one_the_owner_supports_and_defaults_to_on_reset_without_immediate() {
        let owner = json!({"@Redfish.Settings": {"SupportedApplyTimes": ["OnReset"]},
            "Attributes": {"Mode": "A"}});
        let body = |time: Value| json!({"Attributes": {"Mode": "B"}, APPLY_TIME: time});
        let problems = check(
            &owner,
            Some(&registry()),
            &body(json!({"ApplyTime": "Immediate"})),
        )
        .unwrap_err();
        assert_eq!(problems[0].id, "Base.1.12.PropertyValueNotInList");
        assert_eq!(
            problems[0].related,
            ["#/@Redfish.SettingsApplyTime/ApplyTime"]
        );
        let plain = check(
            &owner,
            Some(&registry()),
            &json!({"Attributes": {"Mode": "B"}}),
        );
        assert_eq!(plain.unwrap().apply_time, "OnReset");
        assert_eq!(
            ids(check(&owner, Some(&registry()), &body(json!({})))),
            ["Base.1.12.PropertyMissing"]
        );
        assert_eq!(
            ids(check(&owner, Some(&registry()), &json!({"Mode": "B"}))),
            ["Base.1.12.PropertyUnknown", "Base.1.12.PropertyMissing"]
        );
    }
}
