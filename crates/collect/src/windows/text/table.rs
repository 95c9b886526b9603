//! The tables below a field (Capabilities, traffic classes, classifications) and the
//! `Get-NetQosFlowControl` table: each opens with a header and a dash row, takes rows until a
//! blank line, a prompt or a key, and must be whole when it ends.

use super::capabilities::{CAPABILITY_ROWS, blank_table, capability};
use super::classifications::classification;
use super::qos_flow_control::host_flow_control;
use super::record::Scope;
use super::traffic_classes::traffic_class;
use super::{Parser, error, key_value};
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

impl Parser {
    /// Feeds `trimmed` to the open table; `false` when it is not the table's and the table
    /// ended before it.
    pub(super) fn table_line(&mut self, number: usize, trimmed: &str) -> Result<bool, ParseError> {
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
            Some(Table::Classifications { scope, dashes, .. }) => {
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
                let entry = classification(trimmed, number)?;
                let scope = *scope;
                self.current
                    .as_mut()
                    .expect("a classification table has an adapter")
                    .groups[scope as usize]
                    .classifications
                    .get_or_insert_default()
                    .push(entry);
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
    pub(super) fn end_table(&mut self, number: usize) -> Result<(), ParseError> {
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
