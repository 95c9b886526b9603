//! `Get-NetAdapterQos` default (Format-List) text as pasted into tickets → facts. Pure.
//!
//! Several adapters; the Capabilities table with Hardware and Current columns; traffic-class
//! tables; "Priority 3 Enabled", "Priorities 3-4 Enabled", "All Priorities Disabled", "Not
//! Available"; Operational/Remote lines absent when the settings are not available. A
//! `Get-NetQosFlowControl` table in the same paste gives the host's PFC priorities. Prompt
//! lines (`PS C:\> …`) are skipped; anything else unknown is an error naming its line. The
//! text carries no MAC, so adapters are keyed by name.
//!
//! A paste cut short must not pass for a whole one, so the parser knows the shape of a whole
//! answer (the NetAdapter module's format view and its string helpers):
//! - an adapter record is `Name`, `Enabled` and the whole Capabilities table (header, dash
//!   row, then `MacSecBypass`, `DcbxSupport` and `NumTCs(Max/ETS/PFC)`, each with a Hardware
//!   and a Current value from the closed vocabulary the format prints, or all of them blank:
//!   see below);
//! - `Operational*` (and `Remote*`) lines come as a group of three (traffic classes, flow
//!   control, classifications) or not at all, the view hides them when the adapter has no
//!   such settings; a traffic-class table lists every priority 0–7 exactly once, since every
//!   priority maps to one class;
//! - a `Get-NetQosFlowControl` table lists priorities 0–7 for every policy set it shows;
//! - a `Get-…` command after a prompt printed something.
//!
//! A record without any Operational lines (QoS disabled, or a NIC whose DCB is not
//! operational) is whole: that is how the format prints an adapter with no DCB.
//!
//! An adapter that reports no DCB capability at all (Intel X722, for one) prints its
//! Capabilities table with every value blank (`DcbxSupport :` and nothing after): that is a
//! whole answer too, read as `dcb_reported = false`. Why blanks come only that way: the type
//! data's `Capabilities` script property (NetAdapter.Types.ps1xml, in-box NetAdapter module)
//! formats the Hardware column from the `HardwareCapabilities` embedded instance and the
//! Current column from `CurrentCapabilities`, row by row (`"{0,-19} : {1,-12} {2,-12}"`). A
//! column is blank only when its whole instance is null, and then on all three rows; an
//! instance that exists always prints an enum for `MacSecBypass` and `DcbxSupport` and
//! `max/ets/pfc` for `NumTCs`. NDIS registers both instances together when the miniport
//! initialises (`HardwareQosCapabilities` and `CurrentQosCapabilities` of
//! NDIS_MINIPORT_ADAPTER_HARDWARE_ASSIST_ATTRIBUTES; OID_QOS_HARDWARE_CAPABILITIES /
//! OID_QOS_CURRENT_CAPABILITIES docs), and an adapter with DCB switched off still prints a
//! filled Current column (`0/0/0`, the Get-NetAdapterQos docs' Example 2). The one real
//! blank answer seen, an Intel X722 (microsoft/Validate-DCB issue #34,
//! `Format-List -Property *`), has both columns blank on every row and its Operational and
//! Remote lines `Not Available`. So a table blank in one column or on some rows only, or a
//! blank table beside operational DCB settings, is no answer the cmdlet gives and is refused
//! naming its line. (The default view hides the Capabilities item when either instance is
//! null, so such an adapter prints there as `Name` and `Enabled` only; that record is whole
//! when more output follows it and the paste shows it is that view: the prompt above it runs
//! `Get-NetAdapterQos` (optionally naming adapters) with no pipeline that picks properties.
//! `Format-List Name,Enabled` prints the same two lines for an adapter *with* DCB, so without
//! such a prompt the record is refused naming its line. `Enabled : True` there is no
//! contradiction: the real X722 answer above has QoS enabled and both capability objects
//! null.)

use crate::collect::lines::{ParseError, numbered_lines};
use crate::collect::nic::{NicFacts, Side, port_key};
use crate::model::DcbxSupport;
use crate::snapshot::{FactPath, FactValue, Facts, Scalar};

fn error(line: usize, message: impl Into<String>) -> ParseError {
    ParseError::at(line, message)
}

/// The Capabilities rows, in the order the format prints them.
const CAPABILITY_ROWS: [&str; 3] = ["MacSecBypass", "DcbxSupport", "NumTCs(Max/ETS/PFC)"];

/// The three lines of an Operational or Remote group, in the order the format prints them.
const GROUP_KEYS: [&str; 3] = ["TrafficClasses", "FlowControl", "Classifications"];

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

    fn title(self) -> &'static str {
        match self {
            Scope::Operational => "Operational",
            Scope::Remote => "Remote",
        }
    }
}

/// Which table the lines below a key belong to, and how far it got.
#[derive(Debug)]
enum Table {
    /// After `Capabilities : Hardware Current`; `rows` of [`CAPABILITY_ROWS`] seen, `dashes`
    /// whether the dash row was.
    Capabilities { dashes: bool, rows: usize },
    /// A `TC TSA Bandwidth Priorities` table.
    TrafficClasses {
        scope: Scope,
        header: usize,
        dashes: bool,
    },
    /// A `Protocol Port/Type Priority` table.
    Classifications {
        header: usize,
        dashes: bool,
        rows: usize,
    },
    /// A `Get-NetQosFlowControl` table: per policy set (and interface), the priorities seen.
    HostFlowControl {
        header: usize,
        dashes: bool,
        groups: Vec<(String, [bool; 8])>,
    },
}

/// One row of a traffic-class table.
#[derive(Debug)]
struct ClassRow {
    tc: u8,
    algorithm: String,
    bandwidth: Option<u8>,
    priorities: Vec<u8>,
}

/// One column (Hardware or Current) of the Capabilities table.
#[derive(Debug, Default)]
struct Column {
    dcbx: Option<DcbxSupport>,
    tcs: Option<[u8; 3]>,
}

/// An Operational or Remote group.
#[derive(Debug, Default)]
struct Group {
    /// Line of each of [`GROUP_KEYS`] once seen.
    seen: [Option<usize>; 3],
    classes: Vec<ClassRow>,
    flow_control: Option<Vec<bool>>,
}

#[derive(Debug)]
struct AdapterText {
    name: String,
    /// Line of `Name`.
    line: usize,
    /// Last line that belonged to the record.
    last: usize,
    enabled: Option<bool>,
    /// Line of `Capabilities` and whether its table was whole.
    capabilities: Option<(usize, bool)>,
    /// Line of `Enabled`.
    enabled_at: usize,
    /// Which view printed the record, from the prompt above it.
    view: View,
    /// Lines of the Capabilities rows printed with both values blank.
    blank_rows: Vec<usize>,
    /// `Some(false)` once a whole Capabilities table turned out blank on every row: the
    /// adapter reports no DCB capability.
    dcb_reported: Option<bool>,
    /// Hardware, Current.
    columns: [Column; 2],
    groups: [Group; 2],
}

impl AdapterText {
    fn new(name: &str, line: usize, view: View) -> Self {
        AdapterText {
            name: name.to_owned(),
            line,
            last: line,
            enabled: None,
            capabilities: None,
            enabled_at: 0,
            view,
            blank_rows: Vec::new(),
            dcb_reported: None,
            columns: [Column::default(), Column::default()],
            groups: [Group::default(), Group::default()],
        }
    }

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
    fn finish(&mut self, followed: bool) -> Result<(), ParseError> {
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

/// Which view printed an adapter record, as far as the paste shows.
#[derive(Debug, Clone, PartialEq, Eq)]
enum View {
    /// No prompt line above the record.
    Unknown,
    /// `Get-NetAdapterQos` (optionally naming adapters), alone or piped to a bare
    /// `Format-List`: the type's default list view.
    Default,
    /// Any other command line: it may pick properties, so a missing item says nothing.
    Selected { line: usize, command: String },
}

impl View {
    /// The view the prompt `command` (on `line`) prints.
    fn of(line: usize, command: &str) -> View {
        let mut stages = command.split('|').map(str::trim);
        let words: Vec<String> = stages
            .next()
            .unwrap_or("")
            .split_whitespace()
            .map(str::to_ascii_lowercase)
            .collect();
        // Adapter-selecting parameters only; a value may follow `-name` or stand alone.
        let selects_adapters = words.first().is_some_and(|w| w == "get-netadapterqos")
            && words[1..].iter().all(|w| {
                !w.starts_with('-')
                    || matches!(
                        w.as_str(),
                        "-name"
                            | "-ifalias"
                            | "-interfacealias"
                            | "-interfacedescription"
                            | "-ifdesc"
                            | "-includehidden"
                    )
            });
        let default_list =
            stages.all(|stage| matches!(stage.to_ascii_lowercase().as_str(), "format-list" | "fl"));
        if selects_adapters && default_list {
            View::Default
        } else {
            View::Selected {
                line,
                command: command.to_owned(),
            }
        }
    }
}

/// A `PS C:\> Get-…` prompt whose command has not printed anything yet.
#[derive(Debug)]
struct Pending {
    line: usize,
    command: String,
}

#[derive(Debug, Default)]
struct Parser {
    adapters: Vec<AdapterText>,
    current: Option<AdapterText>,
    table: Option<Table>,
    host_pfc: Vec<(u8, bool)>,
    pending: Option<Pending>,
    /// Line and command of the last prompt.
    command: Option<(usize, String)>,
    /// Last non-blank line.
    last: usize,
}

/// Parses pasted `Get-NetAdapterQos` text (and an optional `Get-NetQosFlowControl` table).
/// Returns the facts and the names of the adapters, all keyed by name.
///
/// An input that stops before the end of a record or table is an error naming the line
/// where it stops and what was expected there.
pub fn parse(text: &str) -> Result<(Facts, Vec<String>), ParseError> {
    let mut parser = Parser::default();
    for (number, line) in numbered_lines(text) {
        parser.line(number, line.trim())?;
    }
    parser.finish()
}

impl Parser {
    fn line(&mut self, number: usize, trimmed: &str) -> Result<(), ParseError> {
        if trimmed.is_empty() {
            return self.end_table(number);
        }
        if let Some(command) = prompt(trimmed) {
            self.end_table(number)?;
            self.end_adapter(true)?;
            self.end_pending()?;
            self.command = Some((number, command.to_owned()));
            // `Get-…` always prints; `Enable-NetAdapterQos` and the like need not. A command
            // cut while being pasted (`Get-Net`, `G`) is treated as one that prints.
            let verb = command
                .split_whitespace()
                .next()
                .unwrap_or("")
                .to_ascii_lowercase();
            if !verb.is_empty() && ("get-".starts_with(&verb) || verb.starts_with("get-")) {
                self.pending = Some(Pending {
                    line: number,
                    command: command.to_owned(),
                });
            }
            return Ok(());
        }
        self.pending = None;
        self.last = number;
        if self.table_line(number, trimmed)? {
            if let Some(adapter) = self.current.as_mut() {
                adapter.last = number;
            }
            return Ok(());
        }
        if host_flow_control_header(trimmed) {
            self.end_adapter(true)?;
            self.table = Some(Table::HostFlowControl {
                header: number,
                dashes: false,
                groups: Vec::new(),
            });
            return Ok(());
        }
        let Some((key, value)) = key_value(trimmed) else {
            return Err(error(
                number,
                format!("not Get-NetAdapterQos output: {trimmed:?}"),
            ));
        };
        if key == "Name" {
            self.end_adapter(true)?;
            if value.is_empty() {
                return Err(error(number, "Name is empty: expected the adapter's name"));
            }
            if let Some(earlier) = self.adapters.iter().find(|a| a.name == value) {
                return Err(error(
                    number,
                    format!(
                        "adapter {value:?} appears twice (lines {} and {number}): paste one Get-NetAdapterQos run",
                        earlier.line
                    ),
                ));
            }
            let view = match &self.command {
                Some((line, command)) => View::of(*line, command),
                None => View::Unknown,
            };
            self.current = Some(AdapterText::new(value, number, view));
            return Ok(());
        }
        let adapter = self
            .current
            .as_mut()
            .ok_or_else(|| error(number, format!("{key:?} before any adapter's Name")))?;
        adapter.last = number;
        self.table = field(adapter, key, value, number)?;
        Ok(())
    }

    /// Feeds `trimmed` to the open table; `false` when it is not the table's and the table
    /// ended before it.
    fn table_line(&mut self, number: usize, trimmed: &str) -> Result<bool, ParseError> {
        let is_dashes = trimmed.chars().all(|c| c == '-' || c.is_whitespace());
        match self.table.as_mut() {
            None => Ok(false),
            Some(Table::Capabilities { dashes, rows }) => {
                if !*dashes {
                    if !is_dashes {
                        return Err(error(
                            number,
                            format!(
                                "expected the Capabilities table's \"--------     -------\" row, found {trimmed:?}"
                            ),
                        ));
                    }
                    *dashes = true;
                    return Ok(true);
                }
                let expected = CAPABILITY_ROWS[*rows];
                let adapter = self
                    .current
                    .as_mut()
                    .expect("a Capabilities table has an adapter");
                match key_value(trimmed) {
                    Some((key, value)) if key == expected => {
                        capability(adapter, key, value, number)?;
                        *rows += 1;
                        if *rows == CAPABILITY_ROWS.len() {
                            adapter.dcb_reported = blank_table(adapter, number)?;
                            if let Some((_, whole)) = adapter.capabilities.as_mut() {
                                *whole = true;
                            }
                            self.table = None;
                        }
                        Ok(true)
                    }
                    _ => Err(error(
                        number,
                        format!(
                            "expected the Capabilities table's {expected} row (Hardware and Current values), found {trimmed:?}"
                        ),
                    )),
                }
            }
            Some(Table::TrafficClasses {
                scope,
                header,
                dashes,
            }) => {
                if !*dashes {
                    if !is_dashes {
                        return Err(error(
                            number,
                            format!(
                                "expected the traffic-class table's \"-- ---    --------- ----------\" row, found {trimmed:?}"
                            ),
                        ));
                    }
                    *dashes = true;
                    return Ok(true);
                }
                if key_value(trimmed).is_some() {
                    self.end_table(number)?;
                    return Ok(false);
                }
                let (scope, header) = (*scope, *header);
                let adapter = self
                    .current
                    .as_mut()
                    .expect("a traffic-class table has an adapter");
                let row = traffic_class(trimmed, number)?;
                if adapter.groups[scope as usize]
                    .classes
                    .iter()
                    .any(|r| r.tc == row.tc)
                {
                    return Err(error(
                        number,
                        format!(
                            "traffic class {} listed twice in the table of line {header}",
                            row.tc
                        ),
                    ));
                }
                adapter.groups[scope as usize].classes.push(row);
                Ok(true)
            }
            Some(Table::Classifications { dashes, rows, .. }) => {
                if !*dashes {
                    if !is_dashes {
                        return Err(error(
                            number,
                            format!(
                                "expected the classification table's \"--------  --------- --------\" row, found {trimmed:?}"
                            ),
                        ));
                    }
                    *dashes = true;
                    return Ok(true);
                }
                if key_value(trimmed).is_some() {
                    self.end_table(number)?;
                    return Ok(false);
                }
                classification(trimmed, number)?;
                *rows += 1;
                Ok(true)
            }
            Some(Table::HostFlowControl { dashes, groups, .. }) => {
                if !*dashes {
                    if !is_dashes {
                        return Err(error(
                            number,
                            format!(
                                "expected the Get-NetQosFlowControl table's \"--------   -------    ---------\" row, found {trimmed:?}"
                            ),
                        ));
                    }
                    *dashes = true;
                    return Ok(true);
                }
                let (group, priority, enabled) = host_flow_control(trimmed, number)?;
                let slot = match groups.iter_mut().find(|(g, _)| *g == group) {
                    Some((_, slot)) => slot,
                    None => {
                        groups.push((group, [false; 8]));
                        &mut groups.last_mut().expect("just pushed").1
                    }
                };
                if std::mem::replace(&mut slot[usize::from(priority)], true) {
                    return Err(error(
                        number,
                        format!("priority {priority} listed twice in Get-NetQosFlowControl"),
                    ));
                }
                if trimmed.split_whitespace().nth(2) == Some("Global") {
                    self.host_pfc.push((priority, enabled));
                }
                Ok(true)
            }
        }
    }

    /// The open table ends at `number` (a blank line, a prompt, a key, or the end of the
    /// text): it must be whole.
    fn end_table(&mut self, number: usize) -> Result<(), ParseError> {
        let Some(table) = self.table.take() else {
            return Ok(());
        };
        match table {
            Table::Capabilities { dashes, rows } => {
                let expected = if dashes {
                    CAPABILITY_ROWS[rows]
                } else {
                    "--------"
                };
                Err(error(
                    number,
                    format!("the Capabilities table ends here before its {expected} row"),
                ))
            }
            Table::TrafficClasses { scope, header, .. } => {
                let adapter = self
                    .current
                    .as_ref()
                    .expect("a traffic-class table has an adapter");
                let mut seen = [0u8; 8];
                for row in &adapter.groups[scope as usize].classes {
                    for p in &row.priorities {
                        seen[usize::from(*p)] += 1;
                    }
                }
                if seen.iter().all(|n| *n == 1) {
                    Ok(())
                } else {
                    Err(error(
                        number,
                        format!(
                            "the {}TrafficClasses table of line {header} ends here listing priorities {:?}: expected each of 0-7 in exactly one class (is it cut short?)",
                            scope.title(),
                            listed(&seen)
                        ),
                    ))
                }
            }
            Table::Classifications { header, rows, .. } => {
                if rows == 0 {
                    Err(error(
                        number,
                        format!(
                            "the classification table of line {header} ends here without a row"
                        ),
                    ))
                } else {
                    Ok(())
                }
            }
            Table::HostFlowControl { header, groups, .. } => {
                if groups.is_empty() {
                    return Err(error(
                        number,
                        format!(
                            "the Get-NetQosFlowControl table of line {header} ends here without a row"
                        ),
                    ));
                }
                for (group, seen) in &groups {
                    if !seen.iter().all(|s| *s) {
                        let counts = seen.map(u8::from);
                        return Err(error(
                            number,
                            format!(
                                "the Get-NetQosFlowControl table of line {header} ends here with priorities {:?} of {group}: expected 0-7 (is it cut short?)",
                                listed(&counts)
                            ),
                        ));
                    }
                }
                Ok(())
            }
        }
    }

    /// The open record ends; `followed` as in [`AdapterText::finish`].
    fn end_adapter(&mut self, followed: bool) -> Result<(), ParseError> {
        if let Some(mut adapter) = self.current.take() {
            adapter.finish(followed)?;
            self.adapters.push(adapter);
        }
        Ok(())
    }

    fn end_pending(&mut self) -> Result<(), ParseError> {
        match self.pending.take() {
            Some(Pending { line, command }) => Err(error(
                line,
                format!("{command:?} printed nothing: expected its output after this prompt"),
            )),
            None => Ok(()),
        }
    }

    fn finish(mut self) -> Result<(Facts, Vec<String>), ParseError> {
        let end = self.last;
        self.end_table(end)?;
        self.end_adapter(false)?;
        self.end_pending()?;
        if self.adapters.is_empty() {
            return Err(ParseError::whole(
                "no adapter (no \"Name : …\" line): is this Get-NetAdapterQos output?",
            ));
        }
        let mut facts = Facts::new();
        for (priority, enabled) in self.host_pfc {
            let path = FactPath::new(format!("host/qos/flow_control/priority/{priority}"))
                .expect("a valid path");
            facts.insert(path, enabled.into());
        }
        let names = self.adapters.iter().map(|a| a.name.clone()).collect();
        for adapter in &self.adapters {
            write_adapter(adapter, &mut facts);
        }
        Ok((facts, names))
    }
}

/// The priorities a count table shows (for messages).
fn listed(counts: &[u8; 8]) -> Vec<usize> {
    counts
        .iter()
        .enumerate()
        .flat_map(|(p, n)| std::iter::repeat_n(p, usize::from(*n)))
        .collect()
}

/// The command of a prompt line (`PS C:\> Get-NetAdapterQos` → `Get-NetAdapterQos`).
fn prompt(line: &str) -> Option<&str> {
    let rest = line.strip_prefix("PS ")?;
    let (_, command) = rest.split_once('>')?;
    Some(command.trim())
}

/// `Priority Enabled PolicySet IfIndex IfAlias`, the header of `Get-NetQosFlowControl`.
fn host_flow_control_header(line: &str) -> bool {
    line.split_whitespace()
        .eq(["Priority", "Enabled", "PolicySet", "IfIndex", "IfAlias"])
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
) -> Result<Option<Table>, ParseError> {
    let group_key = key
        .strip_prefix("Operational")
        .map(|rest| (Scope::Operational, rest))
        .or_else(|| key.strip_prefix("Remote").map(|rest| (Scope::Remote, rest)))
        .and_then(|(scope, rest)| {
            GROUP_KEYS
                .iter()
                .position(|k| *k == rest)
                .map(|i| (scope, i))
        });
    if let Some((scope, index)) = group_key {
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
        return match index {
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
                    header: number,
                    dashes: false,
                    rows: 0,
                }))
            }
        };
    }
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

fn parse_bool(value: &str) -> Option<bool> {
    match value.to_ascii_lowercase().as_str() {
        "true" => Some(true),
        "false" => Some(false),
        _ => None,
    }
}

/// The Capabilities table of `adapter` is whole (its last row is `number`): `Some(false)`
/// when every row is blank (no DCB capability reported), `None` when every row has both
/// values, an error when only some rows are blank, which the format never prints.
fn blank_table(adapter: &AdapterText, number: usize) -> Result<Option<bool>, ParseError> {
    match adapter.blank_rows.as_slice() {
        [] => Ok(None),
        rows if rows.len() == CAPABILITY_ROWS.len() => Ok(Some(false)),
        [first, ..] => Err(error(
            *first,
            format!(
                "the Capabilities table of adapter {:?} (ending line {number}) is blank on this row but not on every row: an adapter without DCB capability leaves all three rows blank, one with it fills all three",
                adapter.name
            ),
        )),
    }
}

/// `DcbxSupport : IEEE None` / `NumTCs(Max/ETS/PFC) : 8/8/8 0/0/0` (a value like `CEE, IEEE`
/// spans two words). Every value is checked against what the format prints.
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
    if values.is_empty() {
        // Both capability instances null: see the module docs.
        adapter.blank_rows.push(number);
        return Ok(());
    }
    let [hardware, current] = values.as_slice() else {
        return Err(error(
            number,
            format!(
                "{key}: expected a Hardware and a Current value, or neither (an adapter that reports no DCB capability leaves every row blank), found {value:?}"
            ),
        ));
    };
    for (column, value) in [hardware, current].into_iter().enumerate() {
        let slot = &mut adapter.columns[column];
        match key {
            "MacSecBypass" => {
                if !matches!(value.as_str(), "NotSupported" | "Supported") {
                    return Err(error(
                        number,
                        format!(
                            "MacSecBypass: expected NotSupported or Supported, found {value:?}"
                        ),
                    ));
                }
            }
            "DcbxSupport" => {
                // The flags enum NetAdapterQos.DcbxSupport prints exactly these.
                if !matches!(value.as_str(), "None" | "CEE" | "IEEE" | "CEE, IEEE") {
                    return Err(error(
                        number,
                        format!(
                            "DcbxSupport: expected None, CEE, IEEE or \"CEE, IEEE\", found {value:?}"
                        ),
                    ));
                }
                slot.dcbx = Some(DcbxSupport::parse(value));
            }
            _ => {
                let counts: Vec<u8> = value
                    .split('/')
                    .map(|n| n.parse::<u8>().ok().filter(|n| *n <= 8))
                    .collect::<Option<_>>()
                    .unwrap_or_default();
                let [max, ets, pfc] = counts.as_slice() else {
                    return Err(error(
                        number,
                        format!("NumTCs: expected MAX/ETS/PFC numbers 0-8, found {value:?}"),
                    ));
                };
                slot.tcs = Some([*max, *ets, *pfc]);
            }
        }
    }
    Ok(())
}

/// ` 0 ETS    70%       0-3,5-7` or ` 1 Strict           4`. ETS classes print their
/// bandwidth (some builds without `%`), strict ones do not.
fn traffic_class(line: &str, number: usize) -> Result<ClassRow, ParseError> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let bad = || {
        error(
            number,
            format!("expected a traffic class row \"TC TSA Bandwidth Priorities\", found {line:?}"),
        )
    };
    let (tc, tsa, bandwidth, priorities) = match words.as_slice() {
        [tc, tsa, bandwidth, priorities] => (tc, tsa, Some(*bandwidth), priorities),
        [tc, tsa, priorities] => (tc, tsa, None, priorities),
        _ => return Err(bad()),
    };
    let tc: u8 = tc.parse().ok().filter(|t| *t < 8).ok_or_else(bad)?;
    let bandwidth = bandwidth
        .map(|b| {
            b.strip_suffix('%')
                .unwrap_or(b)
                .parse::<u8>()
                .ok()
                .filter(|b| *b <= 100)
                .ok_or_else(bad)
        })
        .transpose()?;
    let algorithm = tsa.to_ascii_lowercase();
    if !matches!(algorithm.as_str(), "ets" | "strict" | "cbs" | "vendor") {
        return Err(bad());
    }
    if algorithm == "ets" && bandwidth.is_none() {
        return Err(error(
            number,
            format!("an ETS traffic class without its bandwidth: {line:?}"),
        ));
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

/// A classification row: `Default             1`, `NetDirect 445       3`,
/// `Ethertype 0x8906    3`. Protocols other than Default and Reserved print a port or type.
fn classification(line: &str, number: usize) -> Result<(), ParseError> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let bad = || {
        error(
            number,
            format!(
                "expected a classification row \"Protocol Port/Type Priority\", found {line:?}"
            ),
        )
    };
    let (protocol, priority) = match words.as_slice() {
        [protocol @ ("Default" | "Reserved"), priority] => (*protocol, priority),
        [protocol, _value, priority] => (*protocol, priority),
        _ => return Err(bad()),
    };
    let known = matches!(
        protocol,
        "TCP" | "UDP" | "TCP/UDP" | "Ethertype" | "NetDirect"
    ) || (protocol.starts_with('(') && protocol.ends_with(')'));
    if words.len() == 3 && !known {
        return Err(bad());
    }
    priority
        .parse::<u8>()
        .ok()
        .filter(|p| *p < 8)
        .ok_or_else(bad)?;
    Ok(())
}

/// A `Get-NetQosFlowControl` row: (policy set and interface, priority, enabled).
fn host_flow_control(line: &str, number: usize) -> Result<(String, u8, bool), ParseError> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let bad = || {
        error(
            number,
            format!(
                "expected a Get-NetQosFlowControl row \"Priority Enabled PolicySet [IfIndex IfAlias]\", found {line:?}"
            ),
        )
    };
    let (priority, enabled, group) = match words.as_slice() {
        [priority, enabled, "Global"] => (priority, enabled, "Global".to_owned()),
        [priority, enabled, "AdapterSpecific", index, alias @ ..] if !alias.is_empty() => {
            index.parse::<u32>().map_err(|_| bad())?;
            (
                priority,
                enabled,
                format!("AdapterSpecific {}", alias.join(" ")),
            )
        }
        _ => return Err(bad()),
    };
    let priority: u8 = priority.parse().ok().filter(|p| *p < 8).ok_or_else(bad)?;
    let enabled = parse_bool(enabled).ok_or_else(bad)?;
    Ok((group, priority, enabled))
}

fn write_adapter(adapter: &AdapterText, facts: &mut Facts) {
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
    for scope in [Scope::Operational, Scope::Remote] {
        let scope_name = scope.as_str();
        let group = &adapter.groups[scope as usize];
        for (priority, enabled) in group.flow_control.iter().flatten().enumerate() {
            nic.set(
                &format!("flow_control/{scope_name}/priority/{priority}"),
                *enabled,
            );
        }
        // Only what the table shows: a priority it does not list is not invented into a class.
        for row in &group.classes {
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
