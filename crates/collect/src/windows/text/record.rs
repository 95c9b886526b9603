//! One adapter's `Format-List` record: its fields (`Name`, `Enabled`, `Capabilities`, the
//! Operational and Remote groups), whether it is whole when it ends, and its facts (the
//! Remote group's as the port's peer's).

use super::adapter::{AdapterText, GROUP_KEYS, Scope};
use super::format_list::{error, parse_bool};
use super::prompt::View;
use super::table::Table;
use super::traffic_classes::{ClassRow, ranges};
use crate::lines::ParseError;
use crate::nic::{DcbTables, NicFacts, Side, port_key};
use crate::windows::remote;
use driftgate_snapshot::{FactValue, Facts, Scalar};

impl AdapterText {
    /// The record is over: it must hold everything the format always prints. `followed`:
    /// more output came after it (another record, a prompt, another table), so it was not
    /// cut at the end of the paste.
    ///
    /// The default view shows the Capabilities item only when both capability instances
    /// exist (`$_.HardwareCapabilities -and $_.CurrentCapabilities`, MSFT_NetAdapterQos.Format.ps1xml),
    /// so an adapter that reports no DCB capability prints `Name` and `Enabled` and nothing
    /// else. Such a record is whole, and reads as `dcb_reported = false`, only when output
    /// follows it (at the end of a paste it cannot be told from one cut after `Enabled`) and
    /// the prompt above it shows the default view (a property list prints the same two lines
    /// for any adapter).
    pub(super) fn finish(&mut self, followed: bool) -> Result<(), ParseError> {
        let name = self.name.clone();
        let from = self.line;
        let at = self.last;
        if self.enabled.is_none() {
            return Err(error(
                at,
                format!(
                    "adapter {name:?} (from line {from}) ends here without its \"Enabled : True|False\" line"
                ),
            ));
        }
        match self.capabilities {
            None if followed && self.last == self.enabled_at => match &self.view {
                View::Default => self.dcb_reported = Some(false),
                View::Unknown => {
                    return Err(error(
                        from,
                        format!(
                            "adapter {name:?} shows only Name and Enabled, and no prompt shows which command printed it: the default view prints that for an adapter without DCB capability, a property list (`Format-List Name,Enabled`) for any adapter; paste the `Get-NetAdapterQos` prompt line with its output, or `Get-NetAdapterQos | Format-List -Property *`"
                        ),
                    ));
                }
                View::Selected { line, command } => {
                    return Err(error(
                        from,
                        format!(
                            "adapter {name:?} shows only Name and Enabled, and the paste selects properties (line {line}: {command:?}), so its capabilities are not in it; paste `Get-NetAdapterQos | Format-List -Property *`"
                        ),
                    ));
                }
            },
            None => {
                return Err(error(
                    at,
                    format!(
                        "adapter {name:?} (from line {from}) ends here without its Capabilities table (Hardware and Current; the default view leaves it out only for an adapter that reports no DCB capability, which then prints Name and Enabled alone: paste the prompt that followed, or Format-List -Property * output)"
                    ),
                ));
            }
            Some((_, false)) => {
                return Err(error(
                    at,
                    format!("adapter {name:?}: its Capabilities table is cut short"),
                ));
            }
            Some((_, true)) => {}
        }
        if let (Some(false), Some((table, _))) = (self.dcb_reported, self.capabilities) {
            for scope in [Scope::Operational, Scope::Remote] {
                let group = &self.groups[scope as usize];
                if !group.classes.is_empty() || group.flow_control.is_some() {
                    let title = scope.title();
                    // The line of what shows settings: the traffic classes or the flow control.
                    let shown = usize::from(group.classes.is_empty());
                    let line = group.seen[shown].unwrap_or(at);
                    return Err(error(
                        line,
                        format!(
                            "adapter {name:?}: its Capabilities table (line {table}) is blank, so it reports no DCB capability, yet it shows {title} DCB settings: expected {title}TrafficClasses and {title}FlowControl Not Available"
                        ),
                    ));
                }
            }
        }
        for scope in [Scope::Operational, Scope::Remote] {
            let group = &self.groups[scope as usize];
            if group.seen.iter().any(Option::is_some)
                && let Some(missing) = group.seen.iter().position(Option::is_none)
            {
                let title = scope.title();
                return Err(error(
                    at,
                    format!(
                        "adapter {name:?} (from line {from}) ends here without its {title}{} line ({title}TrafficClasses, {title}FlowControl and {title}Classifications come together)",
                        GROUP_KEYS[missing]
                    ),
                ));
            }
        }
        Ok(())
    }
}

/// Reads field `key` of `adapter` at line `number`; the table it opens, if any.
pub(super) fn field(
    adapter: &mut AdapterText,
    key: &str,
    value: &str,
    number: usize,
) -> Result<Option<Table>, ParseError> {
    match group_key(key) {
        Some((scope, index)) => group_field(adapter, key, value, number, scope, index),
        None => adapter_field(adapter, key, value, number),
    }
}

/// The scope of an `Operational*` or `Remote*` key and its place in [`GROUP_KEYS`].
fn group_key(key: &str) -> Option<(Scope, usize)> {
    key.strip_prefix("Operational")
        .map(|rest| (Scope::Operational, rest))
        .or_else(|| key.strip_prefix("Remote").map(|rest| (Scope::Remote, rest)))
        .and_then(|(scope, rest)| {
            GROUP_KEYS
                .iter()
                .position(|k| *k == rest)
                .map(|i| (scope, i))
        })
}

/// Reads the `Operational*` or `Remote*` field `key` (the `index`th of [`GROUP_KEYS`] in
/// `scope`), which comes once and in the format's order; the table it opens, if any.
fn group_field(
    adapter: &mut AdapterText,
    key: &str,
    value: &str,
    number: usize,
    scope: Scope,
    index: usize,
) -> Result<Option<Table>, ParseError> {
    let group = &mut adapter.groups[scope as usize];
    if let Some(earlier) = group.seen[index] {
        return Err(error(
            number,
            format!(
                "{key} appears twice for adapter {:?} (line {earlier})",
                adapter.name
            ),
        ));
    }
    if let Some(missing) = group.seen[..index].iter().position(Option::is_none) {
        return Err(error(
            number,
            format!(
                "{key} before {}{}: expected the {} lines in the order the format prints them",
                scope.title(),
                GROUP_KEYS[missing],
                scope.title()
            ),
        ));
    }
    group.seen[index] = Some(number);
    let not_available = value == "Not Available";
    match index {
        0 if not_available => Ok(None),
        0 => {
            if !value
                .split_whitespace()
                .eq(["TC", "TSA", "Bandwidth", "Priorities"])
            {
                return Err(error(
                    number,
                    format!(
                        "{key}: expected a \"TC TSA Bandwidth Priorities\" table or Not Available, found {value:?}"
                    ),
                ));
            }
            Ok(Some(Table::TrafficClasses {
                scope,
                header: number,
                dashes: false,
            }))
        }
        1 if not_available => Ok(None),
        1 => {
            group.flow_control = Some(flow_control(value, number)?);
            Ok(None)
        }
        _ if not_available => Ok(None),
        _ => {
            if !value
                .split_whitespace()
                .eq(["Protocol", "Port/Type", "Priority"])
            {
                return Err(error(
                    number,
                    format!(
                        "{key}: expected a \"Protocol Port/Type Priority\" table or Not Available, found {value:?}"
                    ),
                ));
            }
            Ok(Some(Table::Classifications {
                scope,
                header: number,
                dashes: false,
            }))
        }
    }
}

/// Reads field `key` of the adapter itself (`Enabled`, `Capabilities`; others carry nothing
/// judged); the table it opens, if any.
fn adapter_field(
    adapter: &mut AdapterText,
    key: &str,
    value: &str,
    number: usize,
) -> Result<Option<Table>, ParseError> {
    match key {
        "Enabled" => {
            if adapter.enabled.is_some() {
                return Err(error(
                    number,
                    format!("a second Enabled line for adapter {:?}", adapter.name),
                ));
            }
            adapter.enabled = Some(parse_bool(value).ok_or_else(|| {
                error(number, format!("Enabled is {value:?}, not True or False"))
            })?);
            adapter.enabled_at = number;
        }
        "Capabilities" => {
            if adapter.capabilities.is_some() {
                return Err(error(number, "a second Capabilities table for one adapter"));
            }
            if !value.split_whitespace().eq(["Hardware", "Current"]) {
                return Err(error(
                    number,
                    format!(
                        "Capabilities: expected the \"Hardware Current\" header, found {value:?}"
                    ),
                ));
            }
            adapter.capabilities = Some((number, false));
            return Ok(Some(Table::Capabilities {
                dashes: false,
                rows: 0,
            }));
        }
        // Other Format-List properties (ifAlias, InterfaceDescription, …) carry nothing judged.
        _ => {}
    }
    Ok(None)
}

/// "All Priorities Enabled/Disabled", "Priority 3 Enabled", "Priorities 3-4 Enabled" → per priority.
fn flow_control(value: &str, number: usize) -> Result<Vec<bool>, ParseError> {
    let bad = || error(number, format!("unrecognised flow control {value:?}"));
    match value {
        "All Priorities Enabled" => return Ok(vec![true; 8]),
        "All Priorities Disabled" => return Ok(vec![false; 8]),
        _ => {}
    }
    let rest = value.strip_suffix(" Enabled").ok_or_else(bad)?;
    let list = rest
        .strip_prefix("Priorities ")
        .or_else(|| rest.strip_prefix("Priority "))
        .ok_or_else(bad)?;
    let enabled = ranges(list).ok_or_else(bad)?;
    Ok((0..8).map(|p| enabled.contains(&p)).collect())
}

/// The facts of a whole record, keyed by the adapter's name: the Operational group as the
/// adapter's own, the Remote group (what its link partner advertised) as its peer's.
pub(super) fn write_adapter(adapter: &AdapterText, facts: &mut Facts) {
    let key = port_key(None, "name", &adapter.name);
    let mut nic = NicFacts::new(facts, Side::Os, &key);
    nic.set("name", adapter.name.as_str());
    if let Some(enabled) = adapter.enabled {
        nic.set("qos_enabled", enabled);
    }
    if adapter.dcb_reported == Some(false) {
        nic.set("dcb_reported", false);
    }
    for (column, slot) in ["hardware", "current"].iter().zip(&adapter.columns) {
        if let Some(dcbx) = &slot.dcbx {
            nic.set(&format!("dcbx_support/{column}"), dcbx.as_str());
        }
        for (leaf, count) in ["max", "ets", "pfc"].iter().zip(slot.tcs.iter().flatten()) {
            nic.set(&format!("num_tcs/{column}/{leaf}"), i64::from(*count));
        }
    }
    let operational = &adapter.groups[Scope::Operational as usize];
    for (priority, enabled) in operational.flow_control.iter().flatten().enumerate() {
        nic.set(
            &format!("flow_control/operational/priority/{priority}"),
            *enabled,
        );
    }
    // Only what the table shows: a priority it does not list is not invented into a class.
    for row in &operational.classes {
        let base = format!("traffic_class/operational/{}", row.tc);
        let priorities = row
            .priorities
            .iter()
            .map(|p| Scalar::Number(u64::from(*p).into()))
            .collect();
        nic.set(&format!("{base}/priorities"), FactValue::list(priorities));
        nic.set(&format!("{base}/algorithm"), row.algorithm.as_str());
        if let (Some(bandwidth), "ets") = (row.bandwidth, row.algorithm.as_str()) {
            nic.set(&format!("{base}/bandwidth"), i64::from(bandwidth));
        }
    }
    let peer = &adapter.groups[Scope::Remote as usize];
    remote::write(
        facts,
        &key,
        peer.flow_control.as_deref(),
        ets_tables(&peer.classes).as_ref(),
        peer.classifications.clone(),
    );
}

/// A traffic-class table's rows as positional tables; `None` for no rows (Not Available).
/// The table lists every priority once when it is whole, which the parser has checked.
fn ets_tables(rows: &[ClassRow]) -> Option<DcbTables> {
    let classes = usize::from(rows.iter().map(|r| r.tc).max()?) + 1;
    let mut tables = DcbTables {
        priority_tc: vec![0; 8],
        algorithm: vec![String::new(); classes],
        bandwidth: vec![0; classes],
        pfc: Vec::new(),
    };
    for row in rows {
        for p in &row.priorities {
            tables.priority_tc[usize::from(*p)] = row.tc;
        }
        tables.algorithm[usize::from(row.tc)] = row.algorithm.clone();
        tables.bandwidth[usize::from(row.tc)] = row.bandwidth.unwrap_or(0);
    }
    Some(tables)
}
