//! The collector's JSON document (`examples/collectors/windows-qos.ps1`) → facts. Pure.
//!
//! Windows PowerShell 5.1 writes enums as numbers and a one-element array sometimes as the
//! element itself; both are accepted. DcbxSupport comes from the raw `CeeDcbxSupported` /
//! `IeeeDcbxSupported` flags; TSA numbers are Strict 0, CBS 1, ETS 2.
//!
//! The shape is checked, not assumed. The collector always writes every section, and every
//! property it selects (`Select-Object` writes a property even when its value is null), so a
//! section or property that is missing or of the wrong type is a [`Gap`]. So are tables cut
//! short: `Get-NetQosFlowControl` lists priorities 0–7 for every policy set,
//! `Get-NetQosTrafficClass` always has a `[Default]` class and maps every priority to exactly
//! one class, a priority table and a PFC array have one entry per priority. And the sections
//! must agree: a physical adapter with adapter-specific QoS settings has QoS, so it must be in
//! `AdapterQos`. (An adapter without any QoS capability has no `MSFT_NetAdapterQosSettingData`
//! and no adapter-specific QoS settings; its absence from `AdapterQos` is not a gap.) An
//! adapter whose driver reports no DCB capability (Intel X722) has an instance with null
//! `Hardware` and `Current` (and null settings): that is `dcb_reported = false`, not a gap;
//! one of them null without the other is. The facts of what is well formed are kept; any
//! gap makes the source partial.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use serde_json::{Map, Value};

use crate::collect::lines::ParseError;
use crate::collect::nic::{DcbTables, NicFacts, Side, port_key};
use crate::collect::set_fact;
use crate::model::MacAddr;
use crate::snapshot::{FactValue, Facts, Scalar, path_segment};

/// The schema id the collector writes.
pub const SCHEMA: &str = "driftgate.windows/v1";

/// The sections the collector always writes, in its order.
pub const SECTIONS: [&str; 7] = [
    "Adapters",
    "AdapterQos",
    "FlowControl",
    "TrafficClasses",
    "Policies",
    "DcbxSettings",
    "Rdma",
];

/// Why a collector document could not be read at all.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DocumentError {
    /// Not JSON or not the collector's shape.
    #[error(transparent)]
    Malformed(#[from] ParseError),
    /// Another schema id.
    #[error("schema is {0:?}, expected {SCHEMA:?} (output of examples/collectors/windows-qos.ps1)")]
    Schema(String),
}

/// Something the document lacks or has of the wrong type: where, and what was expected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Gap {
    /// The section (`AdapterQos`), with the element's index when it is about one element.
    pub section: String,
    /// The adapter the element is about, when known.
    pub adapter: Option<String>,
    /// What is wrong and what was expected.
    pub message: String,
}

impl fmt::Display for Gap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.section)?;
        if let Some(adapter) = &self.adapter {
            write!(f, " (adapter {adapter:?})")?;
        }
        write!(f, ": {}", self.message)
    }
}

/// `Strict 0, CBS 1, ETS 2` (numbers or names) → `strict`, `cbs`, `ets`.
pub fn algorithm_name(value: &Value) -> String {
    match value {
        Value::Number(n) => match n.as_u64() {
            Some(0) => "strict".to_owned(),
            Some(1) => "cbs".to_owned(),
            Some(2) => "ets".to_owned(),
            _ => format!("tsa-{n}"),
        },
        Value::String(s) => s.to_ascii_lowercase(),
        _ => "unknown".to_owned(),
    }
}

/// `[Default]` → `default`, `SMB Direct` → `smb_direct`.
pub fn class_key(name: &str) -> String {
    path_segment(&name.trim_matches(['[', ']']).to_lowercase())
}

/// What the document says about adapters and how they were keyed.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Parsed {
    /// The facts of everything well formed.
    pub facts: Facts,
    /// Adapters without a MAC, keyed by name: they cannot join the BMC's view.
    pub unjoined: Vec<String>,
    /// What is missing or mistyped; not empty means the source is partial.
    pub gaps: Vec<Gap>,
}

/// A value for messages, cut to a readable length.
fn shown(value: &Value) -> String {
    let text = value.to_string();
    match text.char_indices().nth(40) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text,
    }
}

/// Conversions from JSON values; `None` is a wrong type.
fn string(v: &Value) -> Option<String> {
    v.as_str().map(str::to_owned)
}
fn boolean(v: &Value) -> Option<bool> {
    v.as_bool()
}
fn integer(v: &Value) -> Option<i64> {
    v.as_i64()
}
fn priority(v: &Value) -> Option<u8> {
    v.as_u64()
        .and_then(|n| u8::try_from(n).ok())
        .filter(|p| *p < 8)
}
fn small(v: &Value) -> Option<u8> {
    v.as_u64().and_then(|n| u8::try_from(n).ok())
}
fn percent(v: &Value) -> Option<u8> {
    small(v).filter(|p| *p <= 100)
}
fn tc_count(v: &Value) -> Option<i64> {
    v.as_i64().filter(|n| (0..=8).contains(n))
}
fn scalar(v: &Value) -> Option<Value> {
    (!v.is_array() && !v.is_object()).then(|| v.clone())
}
fn object(v: &Value) -> Option<&Map<String, Value>> {
    v.as_object()
}
/// An array of `each`, or one element that PowerShell wrote without its array.
fn many<T>(each: fn(&Value) -> Option<T>) -> impl Fn(&Value) -> Option<Vec<T>> {
    move |v| match v {
        Value::Array(items) => items.iter().map(each).collect(),
        one => each(one).map(|x| vec![x]),
    }
}

/// One element of a section, with the gaps found in it.
struct Item<'a> {
    section: &'static str,
    index: usize,
    map: &'a Map<String, Value>,
    adapter: Option<String>,
}

impl<'a> Item<'a> {
    fn gap(&self, gaps: &mut Vec<Gap>, message: String) {
        gaps.push(Gap {
            section: format!("{}[{}]", self.section, self.index),
            adapter: self.adapter.clone(),
            message,
        });
    }

    /// A property that must be there and not null.
    fn req<T>(
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
    fn opt<T>(
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
fn section<'a>(
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

/// The Hardware or Current capabilities of an adapter: (dcbx support, max, ets, pfc).
fn capabilities(
    item: &Item<'_>,
    key: &str,
    map: &Map<String, Value>,
    gaps: &mut Vec<Gap>,
) -> Option<(&'static str, [i64; 3])> {
    let inner = Item {
        section: item.section,
        index: item.index,
        map,
        adapter: item.adapter.clone(),
    };
    let mut ok = true;
    let mut flag = |name: &str, gaps: &mut Vec<Gap>| {
        let value = inner.req(gaps, name, &format!("{key}.{name} true or false"), boolean);
        ok &= value.is_some();
        value.unwrap_or(false)
    };
    let cee = flag("CeeDcbxSupported", gaps);
    let ieee = flag("IeeeDcbxSupported", gaps);
    let mut counts = [0i64; 3];
    for (slot, name) in counts.iter_mut().zip([
        "NumberOfTrafficClasses",
        "NumberOfEtsCapableTrafficClasses",
        "NumberOfPfcEnabledTrafficClasses",
    ]) {
        match inner.req(gaps, name, &format!("{key}.{name}, a number 0-8"), tc_count) {
            Some(n) => *slot = n,
            None => ok = false,
        }
    }
    let support = match (cee, ieee) {
        (false, false) => "none",
        (true, false) => "cee",
        (false, true) => "ieee",
        (true, true) => "ieee+cee",
    };
    ok.then_some((support, counts))
}

/// Whether an `AdapterQos` element says "no DCB capability reported": `Some(false)` when its
/// `Hardware` and `Current` are both null, `None` when both are objects (or one is missing or
/// mistyped, a gap already). One null beside an object, or settings beside null
/// capabilities, is a gap: NDIS registers an adapter's hardware and current QoS capabilities
/// together, an adapter with DCB switched off still reports current capabilities (all zero),
/// and operational settings come only from a DCB-capable miniport. An Intel X722 reports
/// both capabilities and both settings null (see [`crate::collect::windows::text`] for the
/// sources).
fn no_capabilities(
    item: &Item<'_>,
    columns: &[Option<Option<&Map<String, Value>>>; 2],
    scopes: &[Option<Option<&Map<String, Value>>>; 2],
    gaps: &mut Vec<Gap>,
) -> Option<bool> {
    match columns {
        [Some(None), Some(None)] => {
            for (scope, settings) in ["Operational", "Remote"].iter().zip(scopes) {
                if matches!(settings, Some(Some(_))) {
                    item.gap(
                        gaps,
                        format!(
                            "Hardware and Current are null (no DCB capability reported) but {scope} is not: expected {scope} null"
                        ),
                    );
                }
            }
            Some(false)
        }
        [Some(None), Some(Some(_))] | [Some(Some(_)), Some(None)] => {
            let (null, object) = if matches!(columns[0], Some(None)) {
                ("Hardware", "Current")
            } else {
                ("Current", "Hardware")
            };
            item.gap(
                gaps,
                format!(
                    "{null} is null but {object} is not: an adapter reports both capability objects or neither"
                ),
            );
            None
        }
        _ => None,
    }
}

/// Operational or Remote settings as DCB tables.
fn settings(
    item: &Item<'_>,
    key: &str,
    map: &Map<String, Value>,
    gaps: &mut Vec<Gap>,
) -> Option<DcbTables> {
    let inner = Item {
        section: item.section,
        index: item.index,
        map,
        adapter: item.adapter.clone(),
    };
    let before = gaps.len();
    for name in ["TransmissionSelectionEnabled", "FlowControlEnabled"] {
        inner.opt(gaps, name, &format!("{key}.{name} true or false"), boolean);
    }
    let per_priority = |values: Vec<u8>| (values.len() == 8).then_some(values);
    let priority_tc = inner.req(
        gaps,
        "PriorityAssignmentTable",
        &format!("{key}.PriorityAssignmentTable, 8 traffic classes 0-7 (one per priority)"),
        |v| many(priority)(v).and_then(per_priority),
    );
    let tsa = inner.req(
        gaps,
        "TsaAssignmentTable",
        &format!("{key}.TsaAssignmentTable, numbers"),
        many(small),
    );
    let bandwidth = inner.req(
        gaps,
        "BandwidthAssignmentTable",
        &format!("{key}.BandwidthAssignmentTable, percentages"),
        many(percent),
    );
    let pfc = inner.req(
        gaps,
        "PriorityFlowControlEnableArray",
        &format!("{key}.PriorityFlowControlEnableArray, 8 booleans (one per priority)"),
        |v| many(boolean)(v).filter(|a| a.len() == 8),
    );
    if gaps.len() != before {
        return None;
    }
    Some(DcbTables {
        priority_tc: priority_tc?,
        algorithm: tsa?
            .into_iter()
            .map(|t| algorithm_name(&Value::from(t)))
            .collect(),
        bandwidth: bandwidth?,
        pfc: pfc?,
    })
}

/// Parses the collector's JSON into facts; a document that is not JSON, not an object or of
/// another schema is an error, one with gaps is read as far as it is well formed.
pub fn parse(text: &str) -> Result<Parsed, DocumentError> {
    let value: Value = serde_json::from_str(text.trim_start_matches('\u{feff}')).map_err(|e| {
        DocumentError::Malformed(ParseError::new(
            (e.line() > 0).then_some(e.line()),
            e.to_string(),
        ))
    })?;
    let Some(root) = value.as_object() else {
        return Err(DocumentError::Malformed(ParseError::whole(format!(
            "the document is {}, expected the collector's JSON object",
            shown(&value)
        ))));
    };
    match root.get("Schema") {
        Some(Value::String(schema)) if schema == SCHEMA => {}
        Some(Value::String(schema)) => return Err(DocumentError::Schema(schema.clone())),
        _ => {
            return Err(DocumentError::Malformed(ParseError::whole(format!(
                "no \"Schema\": {SCHEMA:?} (output of examples/collectors/windows-qos.ps1)"
            ))));
        }
    }
    let mut gaps = Vec::new();
    let adapters = section(root, "Adapters", &mut gaps);
    let adapter_qos = section(root, "AdapterQos", &mut gaps);
    if adapters.is_empty()
        && adapter_qos.is_empty()
        && [root.get("Adapters"), root.get("AdapterQos")]
            .iter()
            .all(|s| s.is_some_and(|s| s.as_array().is_some_and(Vec::is_empty)))
    {
        return Err(DocumentError::Malformed(ParseError::whole(
            "the collector found no network adapter".to_owned(),
        )));
    }
    let flow_control = section(root, "FlowControl", &mut gaps);
    let traffic_classes = section(root, "TrafficClasses", &mut gaps);
    let policies = section(root, "Policies", &mut gaps);
    let dcbx_settings = section(root, "DcbxSettings", &mut gaps);
    let rdma = section(root, "Rdma", &mut gaps);

    let mut parsed = Parsed::default();
    let mut key_of = BTreeMap::new();
    let mut physical: Vec<String> = Vec::new();
    for item in &adapters {
        let name = item.req(&mut gaps, "Name", "the adapter's name", string);
        let what = "a string";
        let description = item.opt(&mut gaps, "InterfaceDescription", what, string);
        let mac = item.opt(&mut gaps, "MacAddress", what, string);
        let permanent = item.opt(&mut gaps, "PermanentAddress", what, string);
        let driver = item.opt(&mut gaps, "DriverVersionString", what, string);
        let provider = item.opt(&mut gaps, "DriverProvider", what, string);
        item.opt(&mut gaps, "ifIndex", "a number", integer);
        let Some(name) = name.filter(|n| !n.is_empty()) else {
            continue;
        };
        if physical.contains(&name) {
            item.gap(&mut gaps, "listed twice".to_owned());
            continue;
        }
        physical.push(name.clone());
        let mac = permanent
            .flatten()
            .as_deref()
            .and_then(MacAddr::parse)
            .filter(|m| !m.is_zero())
            .or_else(|| mac.flatten().as_deref().and_then(MacAddr::parse));
        let key = port_key(mac, "name", &name);
        let mut nic = NicFacts::new(&mut parsed.facts, Side::Os, &key);
        nic.set("name", name.as_str());
        for (leaf, value) in [
            ("description", description),
            ("driver/version", driver),
            ("driver/provider", provider),
        ] {
            if let Some(value) = value.flatten().filter(|v| !v.is_empty()) {
                nic.set(leaf, value);
            }
        }
        key_of.insert(name, key);
    }
    let mut key = |name: &str, parsed: &mut Parsed| -> String {
        key_of
            .entry(name.to_owned())
            .or_insert_with(|| {
                parsed.unjoined.push(name.to_owned());
                port_key(None, "name", name)
            })
            .clone()
    };

    let mut with_qos = BTreeSet::new();
    for item in &adapter_qos {
        let name = item.req(&mut gaps, "Name", "the adapter's name", string);
        let enabled = item.req(&mut gaps, "Enabled", "true or false", boolean);
        let columns = ["Hardware", "Current"]
            .map(|c| item.opt(&mut gaps, c, "an object of capabilities", object));
        let scopes = ["Operational", "Remote"]
            .map(|s| item.opt(&mut gaps, s, "an object of DCB settings", object));
        let Some(name) = name.filter(|n| !n.is_empty()) else {
            continue;
        };
        if !with_qos.insert(name.clone()) {
            item.gap(&mut gaps, "listed twice".to_owned());
            continue;
        }
        let dcb_reported = no_capabilities(item, &columns, &scopes, &mut gaps);
        let (columns, scopes) = (columns.map(Option::flatten), scopes.map(Option::flatten));
        let columns = [("Hardware", columns[0]), ("Current", columns[1])]
            .map(|(c, map)| map.and_then(|map| capabilities(item, c, map, &mut gaps)));
        let scopes = [("Operational", scopes[0]), ("Remote", scopes[1])]
            .map(|(s, map)| map.and_then(|map| settings(item, s, map, &mut gaps)));
        let k = key(&name, &mut parsed);
        let mut nic = NicFacts::new(&mut parsed.facts, Side::Os, &k);
        if let Some(enabled) = enabled {
            nic.set("qos_enabled", enabled);
        }
        if dcb_reported == Some(false) {
            nic.set("dcb_reported", false);
        }
        for (column, capabilities) in ["hardware", "current"].iter().zip(&columns) {
            let Some((support, counts)) = capabilities else {
                continue;
            };
            nic.set(&format!("dcbx_support/{column}"), *support);
            for (leaf, value) in ["max", "ets", "pfc"].iter().zip(counts) {
                nic.set(&format!("num_tcs/{column}/{leaf}"), *value);
            }
        }
        for (scope, tables) in ["operational", "remote"].iter().zip(&scopes) {
            if let Some(tables) = tables {
                nic.dcb(scope, tables);
            }
        }
    }

    // Adapters with adapter-specific QoS settings, and where they were seen.
    let mut evidence: BTreeMap<String, BTreeSet<&'static str>> = BTreeMap::new();

    // Get-NetQosFlowControl: per policy set (global or one adapter), priorities 0-7.
    let mut flow_groups: BTreeMap<Option<String>, [Option<bool>; 8]> = BTreeMap::new();
    for item in &flow_control {
        let priority = item.req(&mut gaps, "Priority", "a priority 0-7", priority);
        let enabled = item.req(&mut gaps, "Enabled", "true or false", boolean);
        item.req(&mut gaps, "PolicySet", "a string", string);
        let alias = item.opt(&mut gaps, "IfAlias", "a string", string);
        let (Some(priority), Some(enabled), Some(alias)) = (priority, enabled, alias) else {
            continue;
        };
        let alias = alias.filter(|a| !a.is_empty());
        let slot = &mut flow_groups.entry(alias.clone()).or_default()[usize::from(priority)];
        match slot {
            Some(earlier) if *earlier != enabled => {
                item.gap(
                    &mut gaps,
                    format!("priority {priority} listed twice, enabled and disabled"),
                );
                continue;
            }
            _ => *slot = Some(enabled),
        }
        match alias {
            None => set_fact(
                &mut parsed.facts,
                &format!("host/qos/flow_control/priority/{priority}"),
                enabled.into(),
            ),
            Some(alias) => {
                evidence
                    .entry(alias.clone())
                    .or_default()
                    .insert("FlowControl");
                let k = key(&alias, &mut parsed);
                NicFacts::new(&mut parsed.facts, Side::Os, &k).set(
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
            gaps.push(Gap {
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

    // Get-NetQosTrafficClass: per policy set, a [Default] class and each priority in one class.
    let mut class_groups: BTreeMap<Option<String>, (bool, [u8; 8])> = BTreeMap::new();
    for item in &traffic_classes {
        let name = item.req(&mut gaps, "Name", "the class's name", string);
        let algorithm = item.req(&mut gaps, "Algorithm", "a number or a name", |v| {
            (v.is_number() || v.is_string()).then_some(v)
        });
        let bandwidth = item.opt(&mut gaps, "BandwidthPercentage", "a percentage", |v| {
            percent(v).map(i64::from)
        });
        let priorities = item.req(&mut gaps, "Priority", "priorities 0-7", many(priority));
        item.req(&mut gaps, "PolicySet", "a string", string);
        let alias = item.opt(&mut gaps, "IfAlias", "a string", string);
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
                evidence
                    .entry(alias.clone())
                    .or_default()
                    .insert("TrafficClasses");
                format!(
                    "nic/{}/os/traffic_class/configured/{}",
                    key(alias, &mut parsed),
                    class_key(&name)
                )
            }
        };
        set_fact(
            &mut parsed.facts,
            &format!("{base}/algorithm"),
            algorithm_name(algorithm).into(),
        );
        if let Some(bandwidth) = bandwidth {
            set_fact(
                &mut parsed.facts,
                &format!("{base}/bandwidth"),
                bandwidth.into(),
            );
        }
        let priorities = priorities
            .iter()
            .map(|p| Scalar::Number(u64::from(*p).into()))
            .collect();
        set_fact(
            &mut parsed.facts,
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
            gaps.push(Gap {
                section: "TrafficClasses".to_owned(),
                adapter: alias.clone(),
                message: format!(
                    "{} (Get-NetQosTrafficClass always has [Default], which takes every priority no other class has)",
                    problems.join("; ")
                ),
            });
        }
    }

    for item in &policies {
        let name = item.req(&mut gaps, "Name", "the policy's name", string);
        let number = "a number";
        let priority = item.opt(&mut gaps, "PriorityValue8021Action", number, integer);
        let netdirect = item.opt(&mut gaps, "NetDirectPortMatchCondition", number, integer);
        let template = item.opt(&mut gaps, "Template", "a number or a name", scalar);
        item.opt(
            &mut gaps,
            "IPProtocolMatchCondition",
            "a number or a name",
            scalar,
        );
        let ip_port = item.opt(&mut gaps, "IPDstPortMatchCondition", number, integer);
        let (Some(name), Some(priority), Some(netdirect), Some(template), Some(ip_port)) =
            (name, priority, netdirect, template, ip_port)
        else {
            continue;
        };
        let base = format!("host/qos/policy/{}", class_key(&name));
        if let Some(priority) = priority {
            set_fact(
                &mut parsed.facts,
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
                &mut parsed.facts,
                &format!("{base}/match"),
                condition.into(),
            );
        }
    }

    let mut willing: BTreeMap<Option<String>, bool> = BTreeMap::new();
    for item in &dcbx_settings {
        let value = item.req(&mut gaps, "Willing", "true or false", boolean);
        item.req(&mut gaps, "PolicySet", "a string", string);
        let alias = item.opt(&mut gaps, "IfAlias", "a string", string);
        let (Some(value), Some(alias)) = (value, alias) else {
            continue;
        };
        let alias = alias.filter(|a| !a.is_empty());
        if willing
            .insert(alias.clone(), value)
            .is_some_and(|v| v != value)
        {
            item.gap(&mut gaps, "listed twice, willing and not".to_owned());
            continue;
        }
        match alias {
            None => set_fact(&mut parsed.facts, "host/qos/dcbx_willing", value.into()),
            Some(alias) => {
                evidence
                    .entry(alias.clone())
                    .or_default()
                    .insert("DcbxSettings");
                let k = key(&alias, &mut parsed);
                NicFacts::new(&mut parsed.facts, Side::Os, &k).set("dcbx_willing", value);
            }
        }
    }
    if !willing.contains_key(&None) {
        gaps.push(Gap {
            section: "DcbxSettings".to_owned(),
            adapter: None,
            message: "no global setting (IfAlias null): Get-NetQosDcbxSetting always has one"
                .to_owned(),
        });
    }

    let mut with_rdma = BTreeSet::new();
    for item in &rdma {
        let name = item.req(&mut gaps, "Name", "the adapter's name", string);
        let enabled = item.req(&mut gaps, "Enabled", "true or false", boolean);
        let (Some(name), Some(enabled)) = (name, enabled) else {
            continue;
        };
        if !with_rdma.insert(name.clone()) {
            item.gap(&mut gaps, "listed twice".to_owned());
            continue;
        }
        let k = key(&name, &mut parsed);
        NicFacts::new(&mut parsed.facts, Side::Os, &k).set("rdma_enabled", enabled);
    }

    for name in &physical {
        if let Some(seen) = evidence.get(name)
            && !with_qos.contains(name)
        {
            gaps.push(Gap {
                section: "AdapterQos".to_owned(),
                adapter: Some(name.clone()),
                message: format!(
                    "missing: Adapters lists it and {} has its adapter-specific QoS settings, so Get-NetAdapterQos reports it",
                    seen.iter().copied().collect::<Vec<_>>().join(" and ")
                ),
            });
        }
    }
    parsed.gaps = gaps;
    Ok(parsed)
}
