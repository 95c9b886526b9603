//! `Get-NetAdapterQos` default (Format-List) text as pasted into tickets → facts. Pure.
//!
//! Several adapters; the Capabilities table with Hardware and Current columns; traffic-class
//! tables; "Priority 3 Enabled", "Priorities 3-4 Enabled", "All Priorities Disabled", "Not
//! Available"; Operational/Remote lines absent when the settings are not available. A
//! `Get-NetQosFlowControl` table in the same paste gives the host's PFC priorities. Prompt
//! lines (`PS C:\> …`) are skipped; anything else unknown is an error naming its line. The
//! text carries no MAC, so adapters are keyed by name.
//!
//! The `Operational*` lines are the adapter's own DCB settings (`nic/<key>/os/…/operational`).
//! The `Remote*` lines are what its link partner advertised over DCBX, so they are the peer's
//! facts ([`crate::peer`]): `RemoteFlowControl` → `peer/pfc/enabled`, `RemoteTrafficClasses`
//! → `peer/traffic_class/configuration/<tc>/…`, `RemoteClassifications` →
//! `peer/app/<selector>/<protocol>`. A classification row is `Protocol Port/Type Priority`,
//! the protocol one of `Reserved`, `Default`, `TCP`, `UDP`, `TCP/UDP`, `Ethertype` (its type
//! in hex, `0x8906`), `NetDirect`, or `(n)` for a selector number Windows has no name for;
//! `Reserved` and `Default` print no port or type. `Default` (the priority of traffic nothing
//! else matches) is the APP TLV's Ethertype 0 entry, `app/ethertype/0x0000`; `Reserved` and
//! `(n)` are `app/windows-selector-<n>/…`. `Not Available` writes nothing.
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
//!
//! The lines are read here (prompts, `Key : value` fields, the end of each record), how a line
//! prints in `format_list.rs`; what a record holds in `adapter.rs`; a field's meaning and the
//! record's wholeness in `record.rs`; the tables below a field in `table.rs`, one module per
//! table's rows.

mod adapter;
mod capabilities;
mod classifications;
mod format_list;
mod prompt;
mod qos_flow_control;
mod record;
mod table;
#[cfg(test)]
mod tests;
mod traffic_classes;

use crate::lines::{ParseError, numbered_lines};
use adapter::AdapterText;
use driftgate_snapshot::{FactPath, Facts};
use format_list::{error, key_value};
use prompt::{Pending, View, prompt};
use qos_flow_control::host_flow_control_header;
use record::{field, write_adapter};
use table::{Table, TableLines};

/// The paste read so far: the adapters, the open record and table, the last prompt.
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
        if self.tables().line(number, trimmed)? {
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

    /// The open table, to feed a line to or to end.
    fn tables(&mut self) -> TableLines<'_> {
        TableLines {
            table: &mut self.table,
            current: &mut self.current,
            host_pfc: &mut self.host_pfc,
        }
    }

    /// The open table ends at `number`: it must be whole ([`TableLines::end`]).
    fn end_table(&mut self, number: usize) -> Result<(), ParseError> {
        self.tables().end(number)
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
