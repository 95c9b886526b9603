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
//!
//! `Remote` is what the link partner advertised over DCBX, so it becomes peer facts
//! (`nic/<key>/peer/pfc/enabled`, `peer/traffic_class/configuration/<tc>/…`,
//! `peer/app/<selector>/<protocol>`: [`crate::peer`]), not the adapter's own. Each settings
//! object's `ClassificationTable` (selector, value, priority; Windows' selectors as in
//! [`crate::windows::text`]) is the one property a collector may lack: those before it
//! did not select it, and their recordings still read, without APP entries. Present, it must
//! be well formed like the rest. Only the remote one becomes facts.

mod adapters;
mod gap;
mod item;
mod qos;

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use crate::lines::ParseError;
use crate::nic::port_key;
use driftgate_snapshot::{Facts, path_segment};
pub use gap::Gap;
use item::{section, shown};

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

    let mut document = Document {
        parsed: Parsed::default(),
        gaps,
        key_of: BTreeMap::new(),
        evidence: BTreeMap::new(),
    };
    let physical = document.adapters(&adapters);
    let with_qos = document.adapter_qos(&adapter_qos);
    document.flow_control(&flow_control);
    document.traffic_classes(&traffic_classes);
    document.policies(&policies);
    document.dcbx_settings(&dcbx_settings);
    document.rdma(&rdma);
    document.missing_adapter_qos(&physical, &with_qos);
    document.parsed.gaps = document.gaps;
    Ok(document.parsed)
}

/// The document as read so far, section by section.
struct Document {
    parsed: Parsed,
    gaps: Vec<Gap>,
    /// Each adapter's port key, by name.
    key_of: BTreeMap<String, String>,
    /// Adapters with adapter-specific QoS settings, and the sections they were seen in.
    evidence: BTreeMap<String, BTreeSet<&'static str>>,
}

impl Document {
    /// The port key of adapter `name`: its MAC's if `Adapters` gave one, else its name's (and
    /// it is noted as unjoined: it cannot join the BMC's view).
    fn key(&mut self, name: &str) -> String {
        let unjoined = &mut self.parsed.unjoined;
        self.key_of
            .entry(name.to_owned())
            .or_insert_with(|| {
                unjoined.push(name.to_owned());
                port_key(None, "name", name)
            })
            .clone()
    }
}
