//! `Get-NetAdapterQos` default (Format-List) text as pasted into tickets → facts. Pure.
//!
//! Several adapters; the Capabilities table with Hardware and Current columns; traffic-class
//! tables; "Priority 3 Enabled", "Priorities 3-4 Enabled", "All Priorities Disabled", "Not
//! Available"; Operational/Remote lines absent when the settings are not available. A
//! `Get-NetQosFlowControl` table in the same paste gives the host's PFC priorities. Prompt
//! lines (`PS C:\> …`) are skipped; anything else unknown is an error naming its line. The
//! text carries no MAC, so adapters are keyed by name.

use crate::collect::lines::ParseError;
use crate::collect::nic::{NicFacts, Side, port_key};
use crate::snapshot::{FactPath, FactValue, Facts, Scalar};

fn error(line: usize, message: impl Into<String>) -> ParseError {
    ParseError::at(line, message)
}

/// Which table the lines below a key belong to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Table {
    None,
    Capabilities,
    TrafficClasses(Scope),
    Classifications,
    HostFlowControl,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Scope {
    Operational,
    Remote,
}

impl Scope {
    fn as_str(self) -> &'static str {
        match self {
            Scope::Operational => "operational",
            Scope::Remote => "remote",
        }
    }
}

/// One row of a traffic-class table.
#[derive(Debug)]
struct ClassRow {
    tc: u8,
    algorithm: String,
    bandwidth: Option<u8>,
    priorities: Vec<u8>,
}

#[derive(Debug, Default)]
struct AdapterText {
    name: String,
    enabled: Option<bool>,
    /// (column, dcbx support, "max/ets/pfc")
    capabilities: Vec<(&'static str, String, String)>,
    classes: [Vec<ClassRow>; 2],
    flow_control: [Option<Vec<bool>>; 2],
}

/// Parses pasted `Get-NetAdapterQos` text (and an optional `Get-NetQosFlowControl` table).
/// Returns the facts and the names of the adapters, all keyed by name.
pub fn parse(text: &str) -> Result<(Facts, Vec<String>), ParseError> {
    let mut adapters: Vec<AdapterText> = Vec::new();
    let mut host_pfc: Vec<(u8, bool)> = Vec::new();
    let mut table = Table::None;
    for (index, raw) in text.lines().enumerate() {
        let number = index + 1;
        let line = raw.trim_end_matches('\r');
        let trimmed = line.trim();
        if trimmed.is_empty() {
            table = Table::None;
            continue;
        }
        if trimmed.starts_with("PS ") && trimmed.contains('>') {
            table = Table::None;
            continue;
        }
        if trimmed.chars().all(|c| c == '-' || c.is_whitespace()) {
            continue;
        }
        if let Some(rest) = header_of(trimmed) {
            table = rest;
            continue;
        }
        if let Some((key, value)) = key_value(trimmed) {
            if let Some(adapter) = adapters.last_mut()
                && table == Table::Capabilities
                && matches!(key, "MacSecBypass" | "DcbxSupport" | "NumTCs(Max/ETS/PFC)")
            {
                capability(adapter, key, value, number)?;
                continue;
            }
            table = Table::None;
            if key == "Name" {
                adapters.push(AdapterText {
                    name: value.to_owned(),
                    ..AdapterText::default()
                });
                continue;
            }
            let adapter = adapters
                .last_mut()
                .ok_or_else(|| error(number, format!("{key:?} before any adapter's Name")))?;
            table = field(adapter, key, value, number)?;
            continue;
        }
        match table {
            Table::TrafficClasses(scope) => {
                let adapter = adapters
                    .last_mut()
                    .ok_or_else(|| error(number, "a traffic class before any adapter"))?;
                adapter.classes[scope as usize].push(traffic_class(trimmed, number)?);
            }
            Table::Classifications if is_classification(trimmed) => {}
            Table::HostFlowControl => host_pfc.extend(host_flow_control(trimmed, number)?),
            _ => {
                return Err(error(
                    number,
                    format!("not Get-NetAdapterQos output: {trimmed:?}"),
                ));
            }
        }
    }
    if adapters.is_empty() {
        return Err(error(
            0,
            "no adapter (no \"Name : …\" line): is this Get-NetAdapterQos output?",
        ));
    }
    let mut facts = Facts::new();
    for (priority, enabled) in host_pfc {
        let path = FactPath::new(format!("host/qos/flow_control/priority/{priority}"))
            .expect("a valid path");
        facts.insert(path, enabled.into());
    }
    let names = adapters.iter().map(|a| a.name.clone()).collect();
    for adapter in adapters {
        write_adapter(&adapter, &mut facts);
    }
    Ok((facts, names))
}

/// The table a header line starts (`TC TSA Bandwidth Priorities` after its key is handled in
/// [`field`]; this catches headers on their own line).
fn header_of(line: &str) -> Option<Table> {
    let words: Vec<&str> = line.split_whitespace().collect();
    match words.as_slice() {
        ["Hardware", "Current"] => Some(Table::Capabilities),
        ["Protocol", "Port/Type", "Priority"] => Some(Table::Classifications),
        ["Priority", "Enabled", "PolicySet", ..] => Some(Table::HostFlowControl),
        _ => None,
    }
}

/// `Key : value` with a key of letters (and the `NumTCs(Max/ETS/PFC)` punctuation).
fn key_value(line: &str) -> Option<(&str, &str)> {
    let (key, value) = line.split_once(':')?;
    let key = key.trim();
    let valid = key.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '(' | ')' | '/'));
    valid.then(|| (key, value.trim()))
}

fn field(
    adapter: &mut AdapterText,
    key: &str,
    value: &str,
    number: usize,
) -> Result<Table, ParseError> {
    let scope = if key.starts_with("Operational") {
        Scope::Operational
    } else {
        Scope::Remote
    };
    match key {
        "Enabled" => {
            adapter.enabled = Some(parse_bool(value).ok_or_else(|| {
                error(number, format!("Enabled is {value:?}, not True or False"))
            })?);
        }
        "Capabilities" => return Ok(Table::Capabilities),
        "OperationalTrafficClasses" | "RemoteTrafficClasses"
            if value != "Not Available" && !value.is_empty() =>
        {
            if value.split_whitespace().next() != Some("TC") {
                return Err(error(
                    number,
                    format!(
                        "{key}: expected a \"TC TSA Bandwidth Priorities\" table or Not Available, found {value:?}"
                    ),
                ));
            }
            return Ok(Table::TrafficClasses(scope));
        }
        "OperationalFlowControl" | "RemoteFlowControl" if value != "Not Available" => {
            adapter.flow_control[scope as usize] = Some(flow_control(value, number)?);
        }
        "OperationalClassifications" | "RemoteClassifications" if value.starts_with("Protocol") => {
            return Ok(Table::Classifications);
        }
        // Other Format-List properties (ifAlias, InterfaceDescription, …) carry nothing judged.
        _ => {}
    }
    Ok(Table::None)
}

fn parse_bool(value: &str) -> Option<bool> {
    match value.to_ascii_lowercase().as_str() {
        "true" => Some(true),
        "false" => Some(false),
        _ => None,
    }
}

/// `DcbxSupport : IEEE None` / `NumTCs(Max/ETS/PFC) : 8/8/8 0/0/0` (a value like `CEE, IEEE`
/// spans two words).
fn capability(
    adapter: &mut AdapterText,
    key: &str,
    value: &str,
    number: usize,
) -> Result<(), ParseError> {
    let mut values: Vec<String> = Vec::new();
    for word in value.split_whitespace() {
        match values.last_mut() {
            Some(last) if last.ends_with(',') => {
                last.push(' ');
                last.push_str(word);
            }
            _ => values.push(word.to_owned()),
        }
    }
    let [hardware, current] = values.as_slice() else {
        return Err(error(
            number,
            format!("{key}: expected a Hardware and a Current value, found {value:?}"),
        ));
    };
    for (column, value) in [("hardware", hardware), ("current", current)] {
        let slot = match adapter
            .capabilities
            .iter_mut()
            .find(|(c, _, _)| *c == column)
        {
            Some(slot) => slot,
            None => {
                adapter
                    .capabilities
                    .push((column, String::new(), String::new()));
                adapter.capabilities.last_mut().expect("just pushed")
            }
        };
        match key {
            "DcbxSupport" => slot.1 = value.clone(),
            "NumTCs(Max/ETS/PFC)" => {
                if value.split('/').count() != 3
                    || !value.split('/').all(|n| n.parse::<u8>().is_ok())
                {
                    return Err(error(
                        number,
                        format!("NumTCs: expected MAX/ETS/PFC numbers, found {value:?}"),
                    ));
                }
                slot.2 = value.clone();
            }
            _ => {}
        }
    }
    Ok(())
}

/// ` 0 ETS    70%       0-3,5-7` or ` 1 Strict           4`.
fn traffic_class(line: &str, number: usize) -> Result<ClassRow, ParseError> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let bad = || {
        error(
            number,
            format!("expected a traffic class row \"TC TSA Bandwidth Priorities\", found {line:?}"),
        )
    };
    let (tc, tsa, bandwidth, priorities) = match words.as_slice() {
        // Some builds print the bandwidth without `%`.
        [tc, tsa, bandwidth, priorities] => (tc, tsa, Some(*bandwidth), priorities),
        [tc, tsa, priorities] => (tc, tsa, None, priorities),
        _ => return Err(bad()),
    };
    let tc: u8 = tc.parse().ok().filter(|t| *t < 8).ok_or_else(bad)?;
    let bandwidth = bandwidth
        .map(|b| b.trim_end_matches('%').parse::<u8>().map_err(|_| bad()))
        .transpose()?;
    let algorithm = tsa.to_ascii_lowercase();
    if !matches!(algorithm.as_str(), "ets" | "strict" | "cbs" | "vendor") {
        return Err(bad());
    }
    Ok(ClassRow {
        tc,
        algorithm,
        bandwidth,
        priorities: ranges(priorities).ok_or_else(bad)?,
    })
}

/// `0-3,5-7` → `[0, 1, 2, 3, 5, 6, 7]` (priorities 0–7).
fn ranges(text: &str) -> Option<Vec<u8>> {
    let mut values = Vec::new();
    for part in text.split(',') {
        let (from, to) = part.split_once('-').unwrap_or((part, part));
        let (from, to): (u8, u8) = (from.trim().parse().ok()?, to.trim().parse().ok()?);
        if from > to || to > 7 {
            return None;
        }
        values.extend(from..=to);
    }
    Some(values)
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

fn is_classification(line: &str) -> bool {
    let first = line.split_whitespace().next().unwrap_or("");
    matches!(
        first,
        "Default" | "TCP" | "UDP" | "TCP/UDP" | "Ethertype" | "NetDirect" | "Reserved"
    ) || first.starts_with('(')
}

/// A `Get-NetQosFlowControl` row: `Some` for a global row (the host's PFC), `None` for an
/// adapter-specific one.
fn host_flow_control(line: &str, number: usize) -> Result<Option<(u8, bool)>, ParseError> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let bad = || {
        error(
            number,
            format!(
                "expected a Get-NetQosFlowControl row \"Priority Enabled PolicySet\", found {line:?}"
            ),
        )
    };
    match words.as_slice() {
        [
            priority,
            enabled,
            policy @ ("Global" | "AdapterSpecific"),
            ..,
        ] => {
            let priority: u8 = priority.parse().ok().filter(|p| *p < 8).ok_or_else(bad)?;
            let enabled = parse_bool(enabled).ok_or_else(bad)?;
            Ok((*policy == "Global").then_some((priority, enabled)))
        }
        _ => Err(bad()),
    }
}

fn write_adapter(adapter: &AdapterText, facts: &mut Facts) {
    let key = port_key(None, "name", &adapter.name);
    let mut nic = NicFacts::new(facts, Side::Os, &key);
    nic.set("name", adapter.name.as_str());
    if let Some(enabled) = adapter.enabled {
        nic.set("qos_enabled", enabled);
    }
    for (column, dcbx, tcs) in &adapter.capabilities {
        if !dcbx.is_empty() {
            nic.set(
                &format!("dcbx_support/{column}"),
                crate::model::DcbxSupport::parse(dcbx).as_str(),
            );
        }
        for (leaf, count) in ["max", "ets", "pfc"].iter().zip(tcs.split('/')) {
            if let Ok(count) = count.parse::<i64>() {
                nic.set(&format!("num_tcs/{column}/{leaf}"), count);
            }
        }
    }
    for scope in [Scope::Operational, Scope::Remote] {
        let scope_name = scope.as_str();
        for (priority, enabled) in adapter.flow_control[scope as usize]
            .iter()
            .flatten()
            .enumerate()
        {
            nic.set(
                &format!("flow_control/{scope_name}/priority/{priority}"),
                *enabled,
            );
        }
        // Only what the table shows: a priority it does not list is not invented into a class.
        for row in &adapter.classes[scope as usize] {
            let base = format!("traffic_class/{scope_name}/{}", row.tc);
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
    }
}

#[cfg(test)]
mod tests;
