//! The collector's JSON document (`examples/collectors/windows-qos.ps1`) → facts. Pure.
//!
//! Windows PowerShell 5.1 writes enums as numbers and a one-element array sometimes as the
//! element itself; both are accepted. DcbxSupport comes from the raw `CeeDcbxSupported` /
//! `IeeeDcbxSupported` flags; TSA numbers are Strict 0, CBS 1, ETS 2.

use serde::Deserialize;
use serde_json::Value;

use crate::collect::lines::ParseError;
use crate::collect::nic::{DcbTables, NicFacts, Side, port_key};
use crate::collect::set_fact;
use crate::model::MacAddr;
use crate::snapshot::{FactValue, Facts, Scalar, path_segment};

/// The schema id the collector writes.
pub const SCHEMA: &str = "driftgate.windows/v1";

/// Why a collector document could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DocumentError {
    /// Not JSON or not the collector's shape.
    #[error(transparent)]
    Malformed(#[from] ParseError),
    /// Another schema id.
    #[error("schema is {0:?}, expected {SCHEMA:?} (output of examples/collectors/windows-qos.ps1)")]
    Schema(String),
}

/// One element or many.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
enum Many<T> {
    Many(Vec<T>),
    One(T),
}

impl<T> Default for Many<T> {
    fn default() -> Self {
        Many::Many(Vec::new())
    }
}

impl<T> Many<T> {
    fn iter(&self) -> std::slice::Iter<'_, T> {
        match self {
            Many::Many(items) => items.iter(),
            Many::One(item) => std::slice::from_ref(item).iter(),
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
struct Document {
    schema: String,
    #[serde(default)]
    adapters: Many<Adapter>,
    #[serde(default)]
    adapter_qos: Many<AdapterQos>,
    #[serde(default)]
    flow_control: Many<FlowControl>,
    #[serde(default)]
    traffic_classes: Many<TrafficClass>,
    #[serde(default)]
    policies: Many<Policy>,
    #[serde(default)]
    dcbx_settings: Many<DcbxSetting>,
    #[serde(default)]
    rdma: Many<Rdma>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
struct Adapter {
    name: String,
    interface_description: Option<String>,
    mac_address: Option<String>,
    permanent_address: Option<String>,
    driver_version_string: Option<String>,
    driver_provider: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
struct AdapterQos {
    name: String,
    enabled: Option<bool>,
    hardware: Option<Capabilities>,
    current: Option<Capabilities>,
    operational: Option<Settings>,
    remote: Option<Settings>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
struct Capabilities {
    cee_dcbx_supported: Option<bool>,
    ieee_dcbx_supported: Option<bool>,
    number_of_traffic_classes: Option<i64>,
    number_of_ets_capable_traffic_classes: Option<i64>,
    number_of_pfc_enabled_traffic_classes: Option<i64>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
struct Settings {
    #[serde(default)]
    priority_assignment_table: Many<u8>,
    #[serde(default)]
    tsa_assignment_table: Many<u8>,
    #[serde(default)]
    bandwidth_assignment_table: Many<u8>,
    #[serde(default)]
    priority_flow_control_enable_array: Many<bool>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
struct FlowControl {
    priority: u8,
    enabled: bool,
    if_alias: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
struct TrafficClass {
    name: String,
    algorithm: Value,
    bandwidth_percentage: Option<i64>,
    #[serde(default)]
    priority: Many<u8>,
    if_alias: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
struct Policy {
    name: String,
    #[serde(rename = "PriorityValue8021Action")]
    priority: Option<i64>,
    net_direct_port_match_condition: Option<i64>,
    template: Option<Value>,
    #[serde(rename = "IPDstPortMatchCondition")]
    ip_dst_port: Option<i64>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
struct DcbxSetting {
    willing: bool,
    if_alias: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
struct Rdma {
    name: String,
    enabled: bool,
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
    /// The facts.
    pub facts: Facts,
    /// Adapters without a MAC, keyed by name: they cannot join the BMC's view.
    pub unjoined: Vec<String>,
}

/// Parses the collector's JSON into facts.
pub fn parse(text: &str) -> Result<Parsed, DocumentError> {
    let document: Document =
        serde_json::from_str(text.trim_start_matches('\u{feff}')).map_err(|e| {
            let schema = serde_json::from_str::<Value>(text)
                .ok()
                .and_then(|v| v["Schema"].as_str().map(str::to_owned));
            match schema {
                Some(schema) if schema != SCHEMA => DocumentError::Schema(schema),
                _ => DocumentError::Malformed(ParseError::at(e.line(), e.to_string())),
            }
        })?;
    if document.schema != SCHEMA {
        return Err(DocumentError::Schema(document.schema));
    }
    if document.adapters.iter().next().is_none() && document.adapter_qos.iter().next().is_none() {
        return Err(DocumentError::Malformed(ParseError::at(
            0,
            "the collector found no network adapter".to_owned(),
        )));
    }
    let mut parsed = Parsed::default();
    let mut key_of = std::collections::BTreeMap::new();
    for adapter in document.adapters.iter() {
        let mac = adapter
            .permanent_address
            .as_deref()
            .and_then(MacAddr::parse)
            .filter(|m| !m.is_zero())
            .or_else(|| adapter.mac_address.as_deref().and_then(MacAddr::parse));
        key_of.insert(adapter.name.clone(), port_key(mac, "name", &adapter.name));
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
    for adapter in document.adapters.iter() {
        let k = key(&adapter.name, &mut parsed);
        let mut nic = NicFacts::new(&mut parsed.facts, Side::Os, &k);
        nic.set("name", adapter.name.as_str());
        for (leaf, value) in [
            ("description", &adapter.interface_description),
            ("driver/version", &adapter.driver_version_string),
            ("driver/provider", &adapter.driver_provider),
        ] {
            if let Some(value) = value.as_deref().filter(|v| !v.is_empty()) {
                nic.set(leaf, value);
            }
        }
    }
    for qos in document.adapter_qos.iter() {
        let k = key(&qos.name, &mut parsed);
        let mut nic = NicFacts::new(&mut parsed.facts, Side::Os, &k);
        if let Some(enabled) = qos.enabled {
            nic.set("qos_enabled", enabled);
        }
        for (column, capabilities) in [("hardware", &qos.hardware), ("current", &qos.current)] {
            let Some(c) = capabilities else { continue };
            let support = match (
                c.cee_dcbx_supported.unwrap_or(false),
                c.ieee_dcbx_supported.unwrap_or(false),
            ) {
                (false, false) => "none",
                (true, false) => "cee",
                (false, true) => "ieee",
                (true, true) => "ieee+cee",
            };
            nic.set(&format!("dcbx_support/{column}"), support);
            for (leaf, value) in [
                ("max", c.number_of_traffic_classes),
                ("ets", c.number_of_ets_capable_traffic_classes),
                ("pfc", c.number_of_pfc_enabled_traffic_classes),
            ] {
                if let Some(value) = value {
                    nic.set(&format!("num_tcs/{column}/{leaf}"), value);
                }
            }
        }
        for (scope, settings) in [("operational", &qos.operational), ("remote", &qos.remote)] {
            if let Some(settings) = settings {
                nic.dcb(
                    scope,
                    &DcbTables {
                        priority_tc: settings.priority_assignment_table.iter().copied().collect(),
                        algorithm: settings
                            .tsa_assignment_table
                            .iter()
                            .map(|t| algorithm_name(&Value::from(*t)))
                            .collect(),
                        bandwidth: settings
                            .bandwidth_assignment_table
                            .iter()
                            .copied()
                            .collect(),
                        pfc: settings
                            .priority_flow_control_enable_array
                            .iter()
                            .copied()
                            .collect(),
                    },
                );
            }
        }
    }
    for flow in document.flow_control.iter() {
        match flow.if_alias.as_deref().filter(|a| !a.is_empty()) {
            None => set_fact(
                &mut parsed.facts,
                &format!("host/qos/flow_control/priority/{}", flow.priority),
                flow.enabled.into(),
            ),
            Some(alias) => {
                let k = key(alias, &mut parsed);
                NicFacts::new(&mut parsed.facts, Side::Os, &k).set(
                    &format!("flow_control/configured/priority/{}", flow.priority),
                    flow.enabled,
                );
            }
        }
    }
    for class in document.traffic_classes.iter() {
        let base = match class.if_alias.as_deref().filter(|a| !a.is_empty()) {
            None => format!("host/qos/traffic_class/{}", class_key(&class.name)),
            Some(alias) => format!(
                "nic/{}/os/traffic_class/configured/{}",
                key(alias, &mut parsed),
                class_key(&class.name)
            ),
        };
        set_fact(
            &mut parsed.facts,
            &format!("{base}/algorithm"),
            algorithm_name(&class.algorithm).into(),
        );
        if let Some(bandwidth) = class.bandwidth_percentage {
            set_fact(
                &mut parsed.facts,
                &format!("{base}/bandwidth"),
                bandwidth.into(),
            );
        }
        let priorities = class
            .priority
            .iter()
            .map(|p| Scalar::Number(u64::from(*p).into()))
            .collect();
        set_fact(
            &mut parsed.facts,
            &format!("{base}/priorities"),
            FactValue::list(priorities),
        );
    }
    for policy in document.policies.iter() {
        let base = format!("host/qos/policy/{}", class_key(&policy.name));
        if let Some(priority) = policy.priority {
            set_fact(
                &mut parsed.facts,
                &format!("{base}/priority"),
                priority.into(),
            );
        }
        let template = policy.template.as_ref().and_then(|t| match t {
            Value::String(s) if !s.is_empty() && s != "None" => Some(s.to_ascii_lowercase()),
            Value::Number(n) if n.as_u64() != Some(0) => Some(format!("template-{n}")),
            _ => None,
        });
        let condition = match (
            policy.net_direct_port_match_condition.filter(|p| *p != 0),
            template,
            policy.ip_dst_port.filter(|p| *p != 0),
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
    for dcbx in document.dcbx_settings.iter() {
        match dcbx.if_alias.as_deref().filter(|a| !a.is_empty()) {
            None => set_fact(
                &mut parsed.facts,
                "host/qos/dcbx_willing",
                dcbx.willing.into(),
            ),
            Some(alias) => {
                let k = key(alias, &mut parsed);
                NicFacts::new(&mut parsed.facts, Side::Os, &k).set("dcbx_willing", dcbx.willing);
            }
        }
    }
    for rdma in document.rdma.iter() {
        let k = key(&rdma.name, &mut parsed);
        NicFacts::new(&mut parsed.facts, Side::Os, &k).set("rdma_enabled", rdma.enabled);
    }
    Ok(parsed)
}
