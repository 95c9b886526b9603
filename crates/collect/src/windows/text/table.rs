//! The tables below a field (Capabilities, traffic classes, classifications) and the
//! `Get-NetQosFlowControl` table: each opens with a header and a dash row, takes rows until a
//! blank line, a prompt or a key, and must be whole when it ends.

use super::adapter::AdapterText;
use super::adapter::Scope;
use super::capabilities::{CAPABILITY_ROWS, blank_table, capability};
use super::classifications::classification;
use super::format_list::{error, key_value};
use super::qos_flow_control::host_flow_control;
use super::traffic_classes::traffic_class;
use crate::lines::ParseError;

/// Which table the lines below a key belong to, and how far it got.
#[derive(Debug)]
pub(super) enum Table {
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
        scope: Scope,
        header: usize,
        dashes: bool,
    },
    /// A `Get-NetQosFlowControl` table: per policy set (and interface), the priorities seen.
    HostFlowControl {
        header: usize,
        dashes: bool,
        groups: Vec<(String, [bool; 8])>,
    },
}

/// What a table's lines are read into: the open table, the adapter whose record holds it,
/// the host's PFC priorities (of a `Get-NetQosFlowControl` table).
pub(super) struct TableLines<'a> {
    pub(super) table: &'a mut Option<Table>,
    pub(super) current: &'a mut Option<AdapterText>,
    pub(super) host_pfc: &'a mut Vec<(u8, bool)>,
}

impl TableLines<'_> {
    /// Feeds `trimmed` to the open table; `false` when it is not the table's and the table
    /// ended before it.
    pub(super) fn line(&mut self, number: usize, trimmed: &str) -> Result<bool, ParseError> {
        let Some(table) = self.table.as_mut() else {
            return Ok(false);
        };
        let (dashes, dash_row) = match table {
            Table::Capabilities { dashes, .. } => {
                (dashes, "the Capabilities table's \"--------     -------\"")
            }
            Table::TrafficClasses { dashes, .. } => (
                dashes,
                "the traffic-class table's \"-- ---    --------- ----------\"",
            ),
            Table::Classifications { dashes, .. } => (
                dashes,
                "the classification table's \"--------  --------- --------\"",
            ),
            Table::HostFlowControl { dashes, .. } => (
                dashes,
                "the Get-NetQosFlowControl table's \"--------   -------    ---------\"",
            ),
        };
        if !*dashes {
            if !trimmed.chars().all(|c| c == '-' || c.is_whitespace()) {
                return Err(error(
                    number,
                    format!("expected {dash_row} row, found {trimmed:?}"),
                ));
            }
            *dashes = true;
            return Ok(true);
        }
        match table {
            Table::Capabilities { rows, .. } => {
                let rows = *rows;
                self.capability_row(number, trimmed, rows)
            }
            Table::TrafficClasses { scope, header, .. } => {
                let (scope, header) = (*scope, *header);
                self.traffic_class_row(number, trimmed, scope, header)
            }
            Table::Classifications { scope, .. } => {
                let scope = *scope;
                self.classification_row(number, trimmed, scope)
            }
            Table::HostFlowControl { groups, .. } => {
                flow_control_row(groups, self.host_pfc, number, trimmed)
            }
        }
    }

    /// Row `rows` of the Capabilities table, below its dash row; the last one ends the
    /// table.
    fn capability_row(
        &mut self,
        number: usize,
        trimmed: &str,
        rows: usize,
    ) -> Result<bool, ParseError> {
        let expected = CAPABILITY_ROWS[rows];
        let adapter = self
            .current
            .as_mut()
            .expect("a Capabilities table has an adapter");
        match key_value(trimmed) {
            Some((key, value)) if key == expected => {
                capability(adapter, key, value, number)?;
                let rows = rows + 1;
                *self.table = Some(Table::Capabilities { dashes: true, rows });
                if rows == CAPABILITY_ROWS.len() {
                    adapter.dcb_reported = blank_table(adapter, number)?;
                    if let Some((_, whole)) = adapter.capabilities.as_mut() {
                        *whole = true;
                    }
                    *self.table = None;
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

    /// A row of the traffic-class table of line `header`, below its dash row, or the key that
    /// ends it.
    fn traffic_class_row(
        &mut self,
        number: usize,
        trimmed: &str,
        scope: Scope,
        header: usize,
    ) -> Result<bool, ParseError> {
        if key_value(trimmed).is_some() {
            self.end(number)?;
            return Ok(false);
        }
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

    /// A row of a classification table, below its dash row, or the key that ends it.
    fn classification_row(
        &mut self,
        number: usize,
        trimmed: &str,
        scope: Scope,
    ) -> Result<bool, ParseError> {
        if key_value(trimmed).is_some() {
            self.end(number)?;
            return Ok(false);
        }
        let entry = classification(trimmed, number)?;
        self.current
            .as_mut()
            .expect("a classification table has an adapter")
            .groups[scope as usize]
            .classifications
            .get_or_insert_default()
            .push(entry);
        Ok(true)
    }

    /// The open table ends at `number` (a blank line, a prompt, a key, or the end of the
    /// text): it must be whole.
    pub(super) fn end(&mut self, number: usize) -> Result<(), ParseError> {
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
            Table::Classifications { scope, header, .. } => {
                let adapter = self
                    .current
                    .as_ref()
                    .expect("a classification table has an adapter");
                if adapter.groups[scope as usize]
                    .classifications
                    .as_ref()
                    .is_none_or(Vec::is_empty)
                {
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
}

/// The priorities a count table shows (for messages).
fn listed(counts: &[u8; 8]) -> Vec<usize> {
    counts
        .iter()
        .enumerate()
        .flat_map(|(p, n)| std::iter::repeat_n(p, usize::from(*n)))
        .collect()
}

/// A row of the `Get-NetQosFlowControl` table, below its dash row: its priority is marked in
/// its policy set's `groups`, and a `Global` one gives the host's PFC (`host_pfc`).
fn flow_control_row(
    groups: &mut Vec<(String, [bool; 8])>,
    host_pfc: &mut Vec<(u8, bool)>,
    number: usize,
    trimmed: &str,
) -> Result<bool, ParseError> {
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
        host_pfc.push((priority, enabled));
    }
    Ok(true)
}
