//! The host's QoS policy sections, each global or per adapter: `FlowControl`
//! (`Get-NetQosFlowControl`), `TrafficClasses` (`Get-NetQosTrafficClass`), `Policies`
//! (`Get-NetQosPolicy`) and `DcbxSettings` (`Get-NetQosDcbxSetting`).

use std::collections::BTreeMap;

use serde_json::Value;

use super::item::{Item, boolean, integer, many, percent, priority, scalar, string};
use super::{Document, Gap, algorithm_name, class_key};
use crate::nic::{NicFacts, Side};
use crate::set_fact;
use driftgate_snapshot::{FactValue, Scalar};

impl Document {
    /// `FlowControl`: PFC per priority, for the global policy set and per adapter; each set
    /// lists priorities 0-7.
    pub(super) fn flow_control(&mut self, items: &[Item<'_>]) {
        // Get-NetQosFlowControl: per policy set (global or one adapter), priorities 0-7.
        let mut flow_groups: BTreeMap<Option<String>, [Option<bool>; 8]> = BTreeMap::new();
        for item in items {
            let priority = item.req(&mut self.gaps, "Priority", "a priority 0-7", priority);
            let enabled = item.req(&mut self.gaps, "Enabled", "true or false", boolean);
            item.req(&mut self.gaps, "PolicySet", "a string", string);
            let alias = item.opt(&mut self.gaps, "IfAlias", "a string", string);
            let (Some(priority), Some(enabled), Some(alias)) = (priority, enabled, alias) else {
                continue;
            };
            let alias = alias.filter(|a| !a.is_empty());
            let slot = &mut flow_groups.entry(alias.clone()).or_default()[usize::from(priority)];
            match slot {
                Some(earlier) if *earlier != enabled => {
                    item.gap(
                        &mut self.gaps,
                        format!("priority {priority} listed twice, enabled and disabled"),
                    );
                    continue;
                }
                _ => *slot = Some(enabled),
            }
            match alias {
                None => set_fact(
                    &mut self.parsed.facts,
                    &format!("host/qos/flow_control/priority/{priority}"),
                    enabled.into(),
                ),
                Some(alias) => {
                    self.evidence
                        .entry(alias.clone())
                        .or_default()
                        .insert("FlowControl");
                    let k = self.key(&alias);
                    NicFacts::new(&mut self.parsed.facts, Side::Os, &k).set(
                        &format!("flow_control/configured/priority/{priority}"),
                        enabled,
                    );
                }
            }
        }
        // The global policy set is always there, even when no entry of it is.
        flow_groups.entry(None).or_insert([None; 8]);
        for (alias, seen) in &flow_groups {
            let missing: Vec<usize> = (0..8).filter(|p| seen[*p].is_none()).collect();
            if !missing.is_empty() {
                self.gaps.push(Gap {
                    section: "FlowControl".to_owned(),
                    adapter: alias.clone(),
                    message: format!(
                        "no entry for priorities {missing:?}: Get-NetQosFlowControl lists 0-7 for {}",
                        if alias.is_some() {
                            "an adapter"
                        } else {
                            "the global policy set"
                        }
                    ),
                });
            }
        }
    }

    /// `TrafficClasses`: per policy set, a `[Default]` class and each priority in one class.
    pub(super) fn traffic_classes(&mut self, items: &[Item<'_>]) {
        // Get-NetQosTrafficClass: per policy set, a [Default] class and each priority in one class.
        let mut class_groups: BTreeMap<Option<String>, (bool, [u8; 8])> = BTreeMap::new();
        for item in items {
            let name = item.req(&mut self.gaps, "Name", "the class's name", string);
            let algorithm = item.req(&mut self.gaps, "Algorithm", "a number or a name", |v| {
                (v.is_number() || v.is_string()).then_some(v)
            });
            let bandwidth = item.opt(&mut self.gaps, "BandwidthPercentage", "a percentage", |v| {
                percent(v).map(i64::from)
            });
            let priorities = item.req(&mut self.gaps, "Priority", "priorities 0-7", many(priority));
            item.req(&mut self.gaps, "PolicySet", "a string", string);
            let alias = item.opt(&mut self.gaps, "IfAlias", "a string", string);
            let (Some(name), Some(algorithm), Some(bandwidth), Some(priorities), Some(alias)) =
                (name, algorithm, bandwidth, priorities, alias)
            else {
                continue;
            };
            let alias = alias.filter(|a| !a.is_empty());
            let group = class_groups.entry(alias.clone()).or_default();
            group.0 |= name == "[Default]";
            for p in &priorities {
                group.1[usize::from(*p)] += 1;
            }
            let base = match &alias {
                None => format!("host/qos/traffic_class/{}", class_key(&name)),
                Some(alias) => {
                    self.evidence
                        .entry(alias.clone())
                        .or_default()
                        .insert("TrafficClasses");
                    format!(
                        "nic/{}/os/traffic_class/configured/{}",
                        self.key(alias),
                        class_key(&name)
                    )
                }
            };
            set_fact(
                &mut self.parsed.facts,
                &format!("{base}/algorithm"),
                algorithm_name(algorithm).into(),
            );
            if let Some(bandwidth) = bandwidth {
                set_fact(
                    &mut self.parsed.facts,
                    &format!("{base}/bandwidth"),
                    bandwidth.into(),
                );
            }
            let priorities = priorities
                .iter()
                .map(|p| Scalar::Number(u64::from(*p).into()))
                .collect();
            set_fact(
                &mut self.parsed.facts,
                &format!("{base}/priorities"),
                FactValue::list(priorities),
            );
        }
        class_groups.entry(None).or_insert((false, [0; 8]));
        for (alias, (default, counts)) in &class_groups {
            let mut problems = Vec::new();
            if !default {
                problems.push("no [Default] class".to_owned());
            }
            if counts.iter().any(|n| *n != 1) {
                let listed: Vec<usize> = counts
                    .iter()
                    .enumerate()
                    .flat_map(|(p, n)| std::iter::repeat_n(p, usize::from(*n)))
                    .collect();
                problems.push(format!(
                    "the classes list priorities {listed:?}, expected each of 0-7 in exactly one class"
                ));
            }
            if !problems.is_empty() {
                self.gaps.push(Gap {
                    section: "TrafficClasses".to_owned(),
                    adapter: alias.clone(),
                    message: format!(
                        "{} (Get-NetQosTrafficClass always has [Default], which takes every priority no other class has)",
                        problems.join("; ")
                    ),
                });
            }
        }
    }

    /// `Policies`: each QoS policy's priority and what it matches.
    pub(super) fn policies(&mut self, items: &[Item<'_>]) {
        for item in items {
            let name = item.req(&mut self.gaps, "Name", "the policy's name", string);
            let number = "a number";
            let priority = item.opt(&mut self.gaps, "PriorityValue8021Action", number, integer);
            let netdirect = item.opt(
                &mut self.gaps,
                "NetDirectPortMatchCondition",
                number,
                integer,
            );
            let template = item.opt(&mut self.gaps, "Template", "a number or a name", scalar);
            item.opt(
                &mut self.gaps,
                "IPProtocolMatchCondition",
                "a number or a name",
                scalar,
            );
            let ip_port = item.opt(&mut self.gaps, "IPDstPortMatchCondition", number, integer);
            let (Some(name), Some(priority), Some(netdirect), Some(template), Some(ip_port)) =
                (name, priority, netdirect, template, ip_port)
            else {
                continue;
            };
            let base = format!("host/qos/policy/{}", class_key(&name));
            if let Some(priority) = priority {
                set_fact(
                    &mut self.parsed.facts,
                    &format!("{base}/priority"),
                    priority.into(),
                );
            }
            let template = template.and_then(|t| match t {
                Value::String(s) if !s.is_empty() && s != "None" => Some(s.to_ascii_lowercase()),
                Value::Number(n) if n.as_u64() != Some(0) => Some(format!("template-{n}")),
                _ => None,
            });
            let condition = match (
                netdirect.filter(|p| *p != 0),
                template,
                ip_port.filter(|p| *p != 0),
            ) {
                (Some(port), _, _) => Some(format!("netdirect:{port}")),
                (None, Some(template), _) => Some(format!("template:{template}")),
                (None, None, Some(port)) => Some(format!("ip-port:{port}")),
                (None, None, None) => None,
            };
            if let Some(condition) = condition {
                set_fact(
                    &mut self.parsed.facts,
                    &format!("{base}/match"),
                    condition.into(),
                );
            }
        }
    }

    /// `DcbxSettings`: whether DCBX is willing, globally (always listed) and per adapter.
    pub(super) fn dcbx_settings(&mut self, items: &[Item<'_>]) {
        let mut willing: BTreeMap<Option<String>, bool> = BTreeMap::new();
        for item in items {
            let value = item.req(&mut self.gaps, "Willing", "true or false", boolean);
            item.req(&mut self.gaps, "PolicySet", "a string", string);
            let alias = item.opt(&mut self.gaps, "IfAlias", "a string", string);
            let (Some(value), Some(alias)) = (value, alias) else {
                continue;
            };
            let alias = alias.filter(|a| !a.is_empty());
            if willing
                .insert(alias.clone(), value)
                .is_some_and(|v| v != value)
            {
                item.gap(&mut self.gaps, "listed twice, willing and not".to_owned());
                continue;
            }
            match alias {
                None => set_fact(
                    &mut self.parsed.facts,
                    "host/qos/dcbx_willing",
                    value.into(),
                ),
                Some(alias) => {
                    self.evidence
                        .entry(alias.clone())
                        .or_default()
                        .insert("DcbxSettings");
                    let k = self.key(&alias);
                    NicFacts::new(&mut self.parsed.facts, Side::Os, &k).set("dcbx_willing", value);
                }
            }
        }
        if !willing.contains_key(&None) {
            self.gaps.push(Gap {
                section: "DcbxSettings".to_owned(),
                adapter: None,
                message: "no global setting (IfAlias null): Get-NetQosDcbxSetting always has one"
                    .to_owned(),
            });
        }
    }
}
