//! The BMC's steps: each wanted BMC fact becomes one attribute write found by
//! [`BmcSettings::write_for`], checked against the attribute registry before anything could
//! be sent; the writes to one settings object become one PATCH.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use driftgate_redfish::client::WriteTarget;
use driftgate_redfish::settings::{BmcSettings, Rule, Writable};
use driftgate_snapshot::FactPath;

use super::known_good::Wanted;
use super::model::{Action, Change, Layer, RedfishPatch, Risk, Step};

/// The apply time asked for when the resource allows it: staged, applied at the next reset
/// the operator schedules.
pub const DEFAULT_APPLY_TIME: &str = "OnReset";

/// One attribute, its value, and the fact it restores.
type AttributeWrite = (String, Value, Wanted);

/// Why a wanted BMC fact has no write.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Refusal {
    /// The fact.
    pub wanted: Wanted,
    /// Why, naming the attribute and registry.
    pub why: String,
}

/// The steps (one per settings object, numbered from `first`) for `wanted`, and the refusals.
pub(crate) fn steps(
    wanted: Vec<Wanted>,
    bmc: &BmcSettings,
    first: usize,
) -> (Vec<Step>, Vec<Refusal>) {
    let mut refusals = Vec::new();
    // Settings object → (resource, writes in order).
    let mut by_object: BTreeMap<String, (&Writable, Vec<AttributeWrite>)> = BTreeMap::new();
    for wanted in wanted {
        let Some(write) = bmc.write_for(&wanted.fact, &wanted.to) else {
            let why = match bmc.carrier_of(&wanted.fact) {
                Some((resource, attribute)) => {
                    let allowed = resource
                        .rules
                        .get(attribute)
                        .map(|r| r.values.join(", "))
                        .unwrap_or_default();
                    format!(
                        "{attribute} of {} sets it, and none of the values its registry {} allows ({allowed}) gives {}: the value is outside what this NIC's firmware offers",
                        resource.uri,
                        resource.registry_name.as_deref().unwrap_or(""),
                        wanted.to
                    )
                }
                None => format!(
                    "no attribute of the BMC, set to a value its registry allows, gives {} = {}",
                    wanted.fact, wanted.to
                ),
            };
            refusals.push(Refusal { wanted, why });
            continue;
        };
        let object = match check(write.resource, &write.attribute, &write.value) {
            Ok(target) => target.as_str().to_owned(),
            Err(why) => {
                refusals.push(Refusal { wanted, why });
                continue;
            }
        };
        by_object
            .entry(object)
            .or_insert_with(|| (write.resource, Vec::new()))
            .1
            .push((write.attribute, write.value, wanted));
    }
    let steps = by_object
        .into_iter()
        .enumerate()
        .map(|(i, (object, (resource, writes)))| {
            patch_step(first + i, object, resource, &writes, bmc)
        })
        .collect();
    (steps, refusals)
}

/// Step `bmc-{n}`: one PATCH of the settings object `object` of `resource` with `writes`.
fn patch_step(
    n: usize,
    object: String,
    resource: &Writable,
    writes: &[AttributeWrite],
    bmc: &BmcSettings,
) -> Step {
    let apply_time = if resource.apply_times.is_empty()
        || resource.apply_times.iter().any(|t| t == DEFAULT_APPLY_TIME)
    {
        DEFAULT_APPLY_TIME.to_owned()
    } else {
        resource.apply_times[0].clone()
    };
    let mut attributes = Map::new();
    let mut changes = Vec::new();
    let mut reboot = apply_time != "Immediate";
    for (attribute, value, wanted) in writes {
        attributes.insert(attribute.clone(), value.clone());
        reboot |= resource
            .rules
            .get(attribute)
            .is_some_and(|r| r.reset_required);
        changes.push(Change {
            pending_fact: pending_fact(&wanted.fact),
            fact: wanted.fact.clone(),
            from: wanted.from.clone(),
            to: wanted.to.clone(),
            known_good: wanted.known_good.clone(),
            findings: wanted.findings.clone(),
        });
    }
    let names: Vec<String> = writes
        .iter()
        .map(|(a, v, _)| {
            format!(
                "{a}={}",
                v.as_str().map_or_else(|| v.to_string(), str::to_owned)
            )
        })
        .collect();
    let dell = bmc
        .vendor
        .as_deref()
        .is_some_and(|v| v.eq_ignore_ascii_case("dell"));
    let mut then = Vec::new();
    if apply_time != "Immediate" {
        if dell {
            then.push("iDRAC schedules a configuration job for the PATCH (its Location names the job); it runs at the next reset".to_owned());
        }
        then.push(
            "a reset of the system (`fix apply --reset`, or the change window's reboot) applies it"
                .to_owned(),
        );
    }
    let body = json!({
        "Attributes": attributes,
        "@Redfish.SettingsApplyTime": {"ApplyTime": apply_time},
    });
    Step {
        id: format!("bmc-{n}"),
        layer: Layer::Bmc,
        summary: format!("{}: {} ({})", resource.scope, names.join(", "), resource.uri),
        changes,
        reboot,
        risk: if reboot { Risk::High } else { Risk::Medium },
        risk_note: if reboot {
            "staged in the BMC; applied by a reset of the system: drain the host first".to_owned()
        } else {
            "applied by the BMC at once".to_owned()
        },
        verify: "gate post after the reset: each fact equals its planned value; until then it shows as pending".to_owned(),
        action: Action::RedfishPatch(RedfishPatch {
            resource: resource.uri.clone(),
            settings: object,
            apply_time,
            supported_apply_times: resource.apply_times.clone(),
            registry: resource.registry_name.clone().unwrap_or_default(),
            body,
            then,
        }),
    }
}

/// Whether `value` may be written to `attribute` of `resource`, by its registry; where it is
/// sent when it may (the resource's settings object, as the client sends it).
pub fn check(resource: &Writable, attribute: &str, value: &Value) -> Result<WriteTarget, String> {
    let at = format!("{attribute} of {}", resource.uri);
    let Some(target) = resource.target() else {
        return Err(format!(
            "{at}: the resource names no @Redfish.Settings object to stage a change in"
        ));
    };
    // A settings object is the resource's own, as the client sends it: one a BMC names
    // elsewhere (its accounts, its network), plainly or hidden, is not written to.
    let target = target.map_err(|why| {
        format!("{at}: the BMC names where to stage it, but {why}; nothing is sent there")
    })?;
    let registry = resource.registry_name.as_deref().unwrap_or("(none named)");
    if !resource.registry_found {
        return Err(format!(
            "{at}: the BMC does not publish its attribute registry {registry}, so the values it accepts cannot be checked; nothing is sent unchecked"
        ));
    }
    let Some(rule) = resource.rules.get(attribute) else {
        return Err(format!("{at}: not in the attribute registry {registry}"));
    };
    if let Some(because) = &rule.read_only_because {
        return Err(format!(
            "{at} is read-only while {because}, by a dependency the attribute registry {registry} declares"
        ));
    }
    if rule.read_only || rule.immutable {
        let word = if rule.immutable {
            "immutable"
        } else {
            "read-only"
        };
        return Err(format!(
            "{at} is {word} in the attribute registry {registry}: the BMC does not let it be set (the hardware or its firmware decides it)"
        ));
    }
    allowed(rule, value).map_err(|why| format!("{at}: {why} (registry {registry})"))?;
    Ok(target)
}

fn allowed(rule: &Rule, value: &Value) -> Result<(), String> {
    match rule.kind.as_deref() {
        Some("Enumeration") => match value.as_str() {
            Some(v) if rule.values.iter().any(|allowed| allowed == v) => Ok(()),
            _ => Err(format!(
                "{value} is not one of the allowed values {}",
                rule.values.join(", ")
            )),
        },
        Some("Integer") => {
            let n = value
                .as_i64()
                .ok_or_else(|| format!("{value} is not an integer"))?;
            let (low, high) = rule.bounds;
            if low.is_some_and(|l| n < l) || high.is_some_and(|h| n > h) {
                return Err(format!(
                    "{n} is outside {}..{}",
                    low.map_or("".into(), |l| l.to_string()),
                    high.map_or("".into(), |h| h.to_string())
                ));
            }
            Ok(())
        }
        Some("Boolean") if !value.is_boolean() => Err(format!("{value} is not a boolean")),
        Some("String") if !value.is_string() => Err(format!("{value} is not a string")),
        Some("Boolean" | "String") => Ok(()),
        Some("Password") => Err("a password is never set by driftgate".to_owned()),
        Some(other) => Err(format!(
            "its registry type {other} is not one driftgate checks values of"
        )),
        None => Err("its registry entry gives no Type to check the value against".to_owned()),
    }
}

/// Where a capture shows the value of `fact` while it is staged: `pending` before the leaf
/// of a function, a port or the BIOS (`…/function/<key>/pending/<leaf>`,
/// `nic/<key>/bmc/pending/<leaf>`, `bios/pending/<name>`).
pub fn pending_fact(fact: &FactPath) -> Option<FactPath> {
    let path = fact.as_str();
    let pending = if let Some(rest) = path.strip_prefix("bios/") {
        format!("bios/pending/{rest}")
    } else if let Some((head, rest)) = path.split_once("/bmc/function/") {
        let (id, leaf) = rest.split_once('/')?;
        format!("{head}/bmc/function/{id}/pending/{leaf}")
    } else {
        let (head, leaf) = path.split_once("/bmc/")?;
        format!("{head}/bmc/pending/{leaf}")
    };
    FactPath::new(pending).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pending_facts_sit_before_the_leaf() {
        let p = |s: &str| pending_fact(&FactPath::new(s).unwrap()).map(|p| p.as_str().to_owned());
        assert_eq!(
            p("nic/00:0a:f7:12:34:56/bmc/function/NIC.Slot.3-1-1/dcbx_mode").as_deref(),
            Some("nic/00:0a:f7:12:34:56/bmc/function/NIC.Slot.3-1-1/pending/dcbx_mode")
        );
        assert_eq!(
            p("nic/k/bmc/dcbx_mode").as_deref(),
            Some("nic/k/bmc/pending/dcbx_mode")
        );
        assert_eq!(p("bios/dcb/X").as_deref(), Some("bios/pending/dcb/X"));
    }

    #[test]
    fn the_registry_decides_what_may_be_written() {
        let mut resource = Writable {
            scope: "function NIC.Slot.3-1-1".into(),
            uri: "/redfish/v1/Systems/1/Bios".into(),
            within: "/redfish/v1/Systems/1".into(),
            settings: Some("/redfish/v1/Systems/1/Bios/Settings".into()),
            system: Ok("/s".into()),
            apply_times: vec!["OnReset".into()],
            registry_name: Some("NetworkAttributeRegistry_NIC.Slot.3-1-1".into()),
            registry_found: true,
            current: Map::new(),
            pending: Map::new(),
            rules: BTreeMap::new(),
        };
        resource.rules.insert(
            "Broadcom_DCBX".into(),
            Rule {
                kind: Some("Enumeration".into()),
                values: vec!["Disabled".into(), "Enabled_IEEE".into()],
                ..Rule::default()
            },
        );
        resource.rules.insert(
            "RDMAProtocolSupport".into(),
            Rule {
                read_only: true,
                immutable: true,
                ..Rule::default()
            },
        );
        assert_eq!(
            check(&resource, "Broadcom_DCBX", &json!("Enabled_IEEE")).map(|t| t.to_string()),
            Ok("/redfish/v1/Systems/1/Bios/Settings".to_owned())
        );
        let outside = check(&resource, "Broadcom_DCBX", &json!("IEEE")).unwrap_err();
        assert!(
            outside.contains("not one of the allowed values Disabled, Enabled_IEEE"),
            "{outside}"
        );
        let read_only = check(&resource, "RDMAProtocolSupport", &json!("iWARP")).unwrap_err();
        assert!(
            read_only.contains("immutable in the attribute registry"),
            "{read_only}"
        );
        assert!(
            check(&resource, "Nope", &json!(1))
                .unwrap_err()
                .contains("not in the attribute registry")
        );
        resource.registry_found = false;
        assert!(
            check(&resource, "Broadcom_DCBX", &json!("Enabled_IEEE"))
                .unwrap_err()
                .contains("does not publish its attribute registry")
        );
        resource.registry_found = true;
        resource.settings = Some("/redfish/v1/AccountService/Accounts/2".into());
        let elsewhere = check(&resource, "Broadcom_DCBX", &json!("Enabled_IEEE")).unwrap_err();
        assert!(
            elsewhere
                .contains("which is not below /redfish/v1/Systems/1/Bios (the URI driftgate read)"),
            "{elsewhere}"
        );
        resource
            .rules
            .get_mut("Broadcom_DCBX")
            .unwrap()
            .read_only_because = Some("VirtualizationMode EQU \"NPAR\"".into());
        resource.settings = Some("/redfish/v1/Systems/1/Bios/Settings".into());
        let dependent = check(&resource, "Broadcom_DCBX", &json!("Enabled_IEEE")).unwrap_err();
        assert!(
            dependent.contains("read-only while VirtualizationMode EQU \"NPAR\""),
            "{dependent}"
        );
        // The resource itself reached through a link the BMC pointed outside its system.
        let mut linked_out = resource.clone();
        linked_out.uri = "/redfish/v1/AccountService".into();
        linked_out.settings = Some("/redfish/v1/AccountService/Accounts/2".into());
        let linked_out = check(&linked_out, "RDMAProtocolSupport", &json!("iWARP")).unwrap_err();
        assert!(
            linked_out
                .contains("which is not below /redfish/v1/Systems/1 (the URI driftgate read)"),
            "{linked_out}"
        );
        resource.settings = None;
        assert!(
            check(&resource, "Broadcom_DCBX", &json!("Enabled_IEEE"))
                .unwrap_err()
                .contains("no @Redfish.Settings")
        );
    }
}
