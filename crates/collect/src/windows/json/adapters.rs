//! The per-adapter sections: `Adapters` (names, MACs, drivers), `AdapterQos` (capabilities
//! and DCB settings, `Get-NetAdapterQos`: the adapter's operational ones as its own facts, the
//! remote ones, what its link partner advertised, as peer facts) and `Rdma`, and the check
//! that an adapter with adapter-specific QoS settings is in `AdapterQos`.

use std::collections::BTreeSet;

use serde_json::{Map, Value};

use super::item::{
    Item, boolean, integer, many, object, percent, priority, small, string, tc_count,
};
use super::{Document, Gap, algorithm_name};
use crate::nic::{DcbTables, NicFacts, Side, port_key};
use crate::peer::AppEntry;
use crate::windows::remote;
use driftgate_model::MacAddr;

impl Document {
    /// `Adapters`: every physical adapter, keyed by its MAC where it has one; their names.
    pub(super) fn adapters(&mut self, items: &[Item<'_>]) -> Vec<String> {
        let mut physical: Vec<String> = Vec::new();
        for item in items {
            let name = item.req(&mut self.gaps, "Name", "the adapter's name", string);
            let what = "a string";
            let description = item.opt(&mut self.gaps, "InterfaceDescription", what, string);
            let mac = item.opt(&mut self.gaps, "MacAddress", what, string);
            let permanent = item.opt(&mut self.gaps, "PermanentAddress", what, string);
            let driver = item.opt(&mut self.gaps, "DriverVersionString", what, string);
            let provider = item.opt(&mut self.gaps, "DriverProvider", what, string);
            item.opt(&mut self.gaps, "ifIndex", "a number", integer);
            let Some(name) = name.filter(|n| !n.is_empty()) else {
                continue;
            };
            if physical.contains(&name) {
                item.gap(&mut self.gaps, "listed twice".to_owned());
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
            let mut nic = NicFacts::new(&mut self.parsed.facts, Side::Os, &key);
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
            self.key_of.insert(name, key);
        }
        physical
    }

    /// `AdapterQos`: capabilities and DCB settings; the names of the adapters it lists.
    pub(super) fn adapter_qos(&mut self, items: &[Item<'_>]) -> BTreeSet<String> {
        let mut with_qos = BTreeSet::new();
        for item in items {
            let name = item.req(&mut self.gaps, "Name", "the adapter's name", string);
            let enabled = item.req(&mut self.gaps, "Enabled", "true or false", boolean);
            let columns = ["Hardware", "Current"]
                .map(|c| item.opt(&mut self.gaps, c, "an object of capabilities", object));
            let scopes = ["Operational", "Remote"]
                .map(|s| item.opt(&mut self.gaps, s, "an object of DCB settings", object));
            let Some(name) = name.filter(|n| !n.is_empty()) else {
                continue;
            };
            if !with_qos.insert(name.clone()) {
                item.gap(&mut self.gaps, "listed twice".to_owned());
                continue;
            }
            let dcb_reported = no_capabilities(item, &columns, &scopes, &mut self.gaps);
            let (columns, scopes) = (columns.map(Option::flatten), scopes.map(Option::flatten));
            let columns = [("Hardware", columns[0]), ("Current", columns[1])]
                .map(|(c, map)| map.and_then(|map| capabilities(item, c, map, &mut self.gaps)));
            let [operational, remote] = [("Operational", scopes[0]), ("Remote", scopes[1])]
                .map(|(s, map)| map.map(|map| settings(item, s, map, &mut self.gaps)));
            let k = self.key(&name);
            let mut nic = NicFacts::new(&mut self.parsed.facts, Side::Os, &k);
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
            // Operational classifications are read for their shape only: no fact judges them.
            if let Some(tables) = operational.and_then(|s| s.tables) {
                nic.dcb("operational", &tables);
            }
            if let Some(remote) = remote {
                let [ets, pfc] = remote
                    .enabled
                    .map(|on| remote.tables.as_ref().filter(|_| on != Some(false)));
                let pfc = pfc.map(|t| t.pfc.as_slice());
                remote::write(&mut self.parsed.facts, &k, pfc, ets, remote.app);
            }
        }
        with_qos
    }

    /// `Rdma`: whether RDMA is enabled, per adapter.
    pub(super) fn rdma(&mut self, items: &[Item<'_>]) {
        let mut with_rdma = BTreeSet::new();
        for item in items {
            let name = item.req(&mut self.gaps, "Name", "the adapter's name", string);
            let enabled = item.req(&mut self.gaps, "Enabled", "true or false", boolean);
            let (Some(name), Some(enabled)) = (name, enabled) else {
                continue;
            };
            if !with_rdma.insert(name.clone()) {
                item.gap(&mut self.gaps, "listed twice".to_owned());
                continue;
            }
            let k = self.key(&name);
            NicFacts::new(&mut self.parsed.facts, Side::Os, &k).set("rdma_enabled", enabled);
        }
    }

    /// A physical adapter with adapter-specific QoS settings (`evidence`) has QoS, so it must
    /// be in `AdapterQos` (`with_qos`).
    pub(super) fn missing_adapter_qos(&mut self, physical: &[String], with_qos: &BTreeSet<String>) {
        for name in physical {
            if let Some(seen) = self.evidence.get(name)
                && !with_qos.contains(name)
            {
                self.gaps.push(Gap {
                    section: "AdapterQos".to_owned(),
                    adapter: Some(name.clone()),
                    message: format!(
                        "missing: Adapters lists it and {} has its adapter-specific QoS settings, so Get-NetAdapterQos reports it",
                        seen.iter().copied().collect::<Vec<_>>().join(" and ")
                    ),
                });
            }
        }
    }
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
/// both capabilities and both settings null (see [`crate::windows::text`] for the
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

/// Operational or Remote settings: each part `None` when it has a gap (or, for the
/// classifications, when the recording predates them).
struct Settings {
    /// The DCB tables.
    tables: Option<DcbTables>,
    /// `TransmissionSelectionEnabled` and `FlowControlEnabled` (`None`: null): whether the
    /// ETS and the PFC tables are set at all. Remote ones are not when the peer sent no such
    /// TLV; the format then prints them `Not Available`, as the text import reads it.
    enabled: [Option<bool>; 2],
    /// The classification table as APP entries.
    app: Option<Vec<AppEntry>>,
}

/// Operational or Remote settings as DCB tables and APP entries.
fn settings(item: &Item<'_>, key: &str, map: &Map<String, Value>, gaps: &mut Vec<Gap>) -> Settings {
    let inner = Item {
        section: item.section,
        index: item.index,
        map,
        adapter: item.adapter.clone(),
    };
    // Collectors before issue 41 did not select the table: no APP entries then, not a gap.
    let app = map.contains_key("ClassificationTable").then(|| {
        inner.req(
            gaps,
            "ClassificationTable",
            &format!(
                "{key}.ClassificationTable, objects of a ProtocolSelector number, a ProtocolSpecificValue 0-65535 and a Priority 0-7"
            ),
            many(classification),
        )
    });
    Settings {
        tables: tables(&inner, key, gaps),
        enabled: ["TransmissionSelectionEnabled", "FlowControlEnabled"]
            .map(|name| map.get(name).and_then(Value::as_bool)),
        app: app.flatten(),
    }
}

/// One element of a classification table.
fn classification(v: &Value) -> Option<AppEntry> {
    let field = |name: &str| v.get(name).and_then(Value::as_u64);
    let selector = u16::try_from(field("ProtocolSelector")?).ok()?;
    let value = u16::try_from(field("ProtocolSpecificValue")?).ok()?;
    let priority = priority(v.get("Priority")?)?;
    Some(remote::app_entry(selector, value, priority))
}

/// The DCB tables of Operational or Remote settings.
fn tables(inner: &Item<'_>, key: &str, gaps: &mut Vec<Gap>) -> Option<DcbTables> {
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
