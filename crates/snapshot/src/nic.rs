//! Writing the facts of one NIC port: `nic/<key>/<side>/<leaf>`, keyed by permanent MAC so
//! that what the BMC and the operating system report about a port sit side by side. A port
//! whose MAC is unknown keeps a stable name-based key (`port-…`, `name-…`) and does not join.

use serde_json::Value;

use crate::{FactPath, FactValue, Facts, path_segment};
use driftgate_model::MacAddr;
use driftgate_model::placeholder;

/// Who reports the facts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// The BMC (Redfish): the NIC's own firmware settings.
    Bmc,
    /// The operating system.
    Os,
    /// The other end of the link, as the host's LLDP agent or NIC received it
    /// (driftgate-collect's `peer`).
    Peer,
}

/// The key of a port: its MAC, or `<kind>-<name>` when the MAC is unknown.
pub fn port_key(mac: Option<MacAddr>, kind: &str, name: &str) -> String {
    match mac {
        Some(mac) => mac.to_string(),
        None => format!("{kind}-{}", path_segment(&name.to_lowercase())),
    }
}

/// Writes the facts of one port.
pub struct NicFacts<'a> {
    facts: &'a mut Facts,
    prefix: String,
}

/// DCB tables as devices report them: positional arrays (index = priority or traffic class).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DcbTables {
    /// Priority → traffic class.
    pub priority_tc: Vec<u8>,
    /// Per traffic class: `ets`, `strict`, `cbs`, `vendor`.
    pub algorithm: Vec<String>,
    /// Per traffic class: bandwidth percent.
    pub bandwidth: Vec<u8>,
    /// Per priority: PFC on.
    pub pfc: Vec<bool>,
}

impl<'a> NicFacts<'a> {
    /// Facts of the port with `key` (see [`port_key`]) as `side` reports them.
    pub fn new(facts: &'a mut Facts, side: Side, key: &str) -> Self {
        let side = match side {
            Side::Bmc => "bmc",
            Side::Os => "os",
            Side::Peer => "peer",
        };
        NicFacts {
            facts,
            prefix: format!("nic/{key}/{side}"),
        }
    }

    /// Sets `<prefix>/<leaf>`.
    pub fn set(&mut self, leaf: &str, value: impl Into<FactValue>) {
        let path = FactPath::new(format!("{}/{leaf}", self.prefix))
            .expect("NIC keys and leaves are valid segments");
        self.facts.insert(path, value.into());
    }

    /// Sets `<prefix>/<leaf>` when `value` is a JSON scalar.
    pub fn set_scalar(&mut self, leaf: &str, value: &Value) {
        if let Some(value) = scalar(value) {
            self.set(leaf, value);
        }
    }

    /// PFC per priority under `flow_control/<scope>/priority/<p>`, and every traffic class
    /// that carries a priority under `traffic_class/<scope>/<tc>/{algorithm,bandwidth,priorities}`
    /// (bandwidth only for ETS, where it means something).
    pub fn dcb(&mut self, scope: &str, tables: &DcbTables) {
        for (priority, enabled) in tables.pfc.iter().enumerate() {
            self.set(
                &format!("flow_control/{scope}/priority/{priority}"),
                *enabled,
            );
        }
        let mut classes: Vec<u8> = tables.priority_tc.clone();
        classes.sort_unstable();
        classes.dedup();
        for tc in classes {
            let priorities: Vec<crate::Scalar> = tables
                .priority_tc
                .iter()
                .enumerate()
                .filter(|(_, t)| **t == tc)
                .map(|(p, _)| crate::Scalar::Number((p as u64).into()))
                .collect();
            let base = format!("traffic_class/{scope}/{tc}");
            self.set(&format!("{base}/priorities"), FactValue::list(priorities));
            if let Some(algorithm) = tables.algorithm.get(usize::from(tc)) {
                self.set(&format!("{base}/algorithm"), algorithm.as_str());
                if algorithm == "ets"
                    && let Some(bandwidth) = tables.bandwidth.get(usize::from(tc))
                {
                    self.set(&format!("{base}/bandwidth"), i64::from(*bandwidth));
                }
            }
        }
    }
}

/// A JSON scalar as a fact value; `null`, arrays, objects and placeholder texts (`"N/A"`,
/// `""`: [`driftgate_model::placeholder`]) give `None`: they are no value.
pub fn scalar(value: &Value) -> Option<FactValue> {
    match value {
        Value::Bool(b) => Some((*b).into()),
        Value::Number(n) => serde_json::from_value(Value::Number(n.clone())).ok(),
        Value::String(s) => placeholder::value(s).map(FactValue::from),
        _ => None,
    }
}

/// Whether `value` is a placeholder text (`"N/A"`, `"nil"`, `""`…): a value the source gave
/// that says nothing, which [`scalar`] drops.
pub fn is_placeholder(value: &Value) -> bool {
    value.as_str().is_some_and(placeholder::is_placeholder)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dcb_tables_become_per_priority_and_per_class_facts() {
        let mut facts = Facts::new();
        let mut nic = NicFacts::new(
            &mut facts,
            Side::Os,
            &port_key(MacAddr::parse("00:0a:f7:12:34:56"), "name", "x"),
        );
        nic.dcb(
            "operational",
            &DcbTables {
                priority_tc: vec![0, 0, 0, 1, 0, 0, 0, 0],
                algorithm: vec!["ets".into(), "ets".into(), "strict".into()],
                bandwidth: vec![50, 50, 0],
                pfc: vec![false, false, false, true, false, false, false, false],
            },
        );
        let get = |p: &str| {
            facts
                .get(format!("nic/00:0a:f7:12:34:56/os/{p}").as_str())
                .map(ToString::to_string)
        };
        assert_eq!(
            get("flow_control/operational/priority/3").as_deref(),
            Some("true")
        );
        assert_eq!(
            get("traffic_class/operational/0/priorities").as_deref(),
            Some("[0, 1, 2, 4, 5, 6, 7]")
        );
        assert_eq!(
            get("traffic_class/operational/1/bandwidth").as_deref(),
            Some("50")
        );
        assert_eq!(
            get("traffic_class/operational/2/algorithm"),
            None,
            "a class without priorities is not reported"
        );
        assert_eq!(
            port_key(None, "name", "SLOT 3 Port 1"),
            "name-slot_3_port_1"
        );
    }
}
