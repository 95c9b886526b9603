//! The Capabilities table of an adapter record: `MacSecBypass`, `DcbxSupport` and
//! `NumTCs(Max/ETS/PFC)`, each with a Hardware and a Current value, or all of them blank.

use super::adapter::AdapterText;
use super::format_list::error;
use crate::lines::ParseError;
use driftgate_model::DcbxSupport;

/// The Capabilities rows, in the order the format prints them.
pub(super) const CAPABILITY_ROWS: [&str; 3] =
    ["MacSecBypass", "DcbxSupport", "NumTCs(Max/ETS/PFC)"];

/// The Capabilities table of `adapter` is whole (its last row is `number`): `Some(false)`
/// when every row is blank (no DCB capability reported), `None` when every row has both
/// values, an error when only some rows are blank, which the format never prints.
pub(super) fn blank_table(
    adapter: &AdapterText,
    number: usize,
) -> Result<Option<bool>, ParseError> {
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
pub(super) fn capability(
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
