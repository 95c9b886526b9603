//! Mellanox `mlxconfig -d DEV [-e] query`: the NIC firmware's own configuration.

use std::collections::BTreeMap;

use super::output::{key_value, non_empty, require_output};
use crate::lines::{ParseError, numbered_lines};

/// One parameter of `mlxconfig query`. Values keep the text before the parentheses:
/// `True(1)` → `True`, `ALL(2)` → `ALL`, `0` → `0`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MlxValue {
    /// Factory default (`-e` only).
    pub default: Option<String>,
    /// Value in effect now (`-e` only).
    pub current: Option<String>,
    /// Value after the next firmware reset or reboot.
    pub next_boot: String,
    /// The row was marked `*` (`-e` only): the next-boot value differs from the default or
    /// current one.
    pub modified: bool,
}

impl MlxValue {
    /// The next-boot value as a boolean (`True`/`False`), `None` for other values.
    pub fn as_bool(&self) -> Option<bool> {
        mlx_bool(&self.next_boot)
    }
}

/// An mlxconfig value text as a boolean: `True` → true, `False` → false, else `None`.
pub fn mlx_bool(value: &str) -> Option<bool> {
    match value {
        "True" => Some(true),
        "False" => Some(false),
        _ => None,
    }
}

/// The firmware configuration of one device from `mlxconfig -d DEV [-e] query`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MlxConfig {
    /// The device as mlxconfig names it (`Device:` or, in old versions, `PCI device:`).
    pub device: Option<String>,
    /// The chip (`Device type:`), e.g. `ConnectX6DX`.
    pub device_type: Option<String>,
    /// The board part number (`Name:`).
    pub name: Option<String>,
    /// Parameters by name.
    pub values: BTreeMap<String, MlxValue>,
}

/// The line `mlxconfig -e query` prints after its last parameter.
const LEGEND: &str =
    "The '*' shows parameters with next value different from default/current value.";

/// Parameters whose values are a closed vocabulary, by name without the `_P<port>` suffix,
/// with every value mlxconfig prints for them.
const VOCABULARY: [(&str, &[&str]); 7] = [
    ("LLDP_NB_DCBX", BOOLEAN),
    ("DCBX_IEEE", BOOLEAN),
    ("DCBX_CEE", BOOLEAN),
    ("DCBX_WILLING", BOOLEAN),
    ("SRIOV_EN", BOOLEAN),
    ("LLDP_NB_RX_MODE", LLDP_MODES),
    ("LLDP_NB_TX_MODE", LLDP_MODES),
];

/// mlxconfig's booleans.
const BOOLEAN: &[&str] = &["False(0)", "True(1)"];

/// The firmware LLDP agent's receive and transmit modes.
const LLDP_MODES: &[&str] = &["OFF(0)", "CUSTOM(1)", "ALL(2)"];

/// A value column of the `Configurations:` header.
#[derive(Clone, Copy, PartialEq, Eq)]
enum MlxColumn {
    Default,
    Current,
    NextBoot,
}

/// Parses `mlxconfig -d DEV -e query` (columns Default, Current, Next Boot) or plain
/// `mlxconfig -d DEV query` (Next Boot only). `-E-` lines are errors; `-W-` warnings are
/// skipped; more than one device is an error. An `-e` query must end with its `The '*' shows
/// …` legend, so an output cut short is an error (a plain query has no closing line); a value
/// is `LABEL(N)` or a bare word, and the LLDP/DCBX parameters' values are checked against
/// the vocabulary mlxconfig prints for them.
pub fn parse_mlxconfig_query(text: &str) -> Result<MlxConfig, ParseError> {
    require_output(text, "mlxconfig query")?;
    let mut config = MlxConfig::default();
    let mut columns: Option<Vec<MlxColumn>> = None;
    let mut devices = 0;
    let mut legend = None;
    for (number, line) in numbered_lines(text) {
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.chars().all(|c| c == '-') || trimmed.starts_with("-W-") {
            continue;
        }
        if let Some(at) = legend {
            return Err(ParseError::at(
                number,
                format!("{trimmed:?} after the closing legend of line {at}"),
            ));
        }
        if trimmed.starts_with("The '*'") {
            if trimmed != LEGEND {
                return Err(ParseError::at(
                    number,
                    format!("expected the legend {LEGEND:?}, found {trimmed:?}"),
                ));
            }
            legend = Some(number);
            continue;
        }
        if let Some(message) = trimmed.strip_prefix("-E-") {
            return Err(ParseError::at(
                number,
                format!("mlxconfig error: {}", message.trim()),
            ));
        }
        if trimmed.starts_with("Device #") {
            devices += 1;
            if devices > 1 {
                return Err(ParseError::at(number, "more than one device"));
            }
            continue;
        }
        if let Some(header) = trimmed.strip_prefix("Configurations:") {
            columns = Some(mlx_columns(number, header)?);
            continue;
        }
        match &columns {
            None => {
                let (key, value) = key_value(number, trimmed, "`Field: value`")?;
                let value = non_empty(Some(value.to_owned()));
                match key {
                    "Device" | "PCI device" => config.device = value,
                    "Device type" => config.device_type = value,
                    "Name" => config.name = value,
                    _ => {}
                }
            }
            Some(columns) => {
                let (name, value) = mlx_row(number, trimmed, columns)?;
                if config.values.insert(name.clone(), value).is_some() {
                    return Err(ParseError::at(number, format!("second `{name}` row")));
                }
            }
        }
    }
    let Some(columns) = columns else {
        return Err(ParseError::whole(
            "no `Configurations:` header before the end of the output",
        ));
    };
    if devices == 0 {
        return Err(ParseError::whole(
            "no `Device #1:` line before the end of the output",
        ));
    }
    if config.values.is_empty() {
        return Err(ParseError::whole(
            "no parameter under `Configurations:` before the end of the output",
        ));
    }
    if columns.len() > 1 && legend.is_none() {
        return Err(ParseError::whole(format!(
            "no closing {LEGEND:?} line before the end of the output: `mlxconfig -e query` prints it after the last \
                 parameter, so the output is cut short"
        )));
    }
    Ok(config)
}

/// The column names after `Configurations:`; `Next Boot` is required.
fn mlx_columns(line: usize, header: &str) -> Result<Vec<MlxColumn>, ParseError> {
    let mut columns = Vec::new();
    let mut words = header.split_whitespace();
    while let Some(word) = words.next() {
        columns.push(match word {
            "Default" => MlxColumn::Default,
            "Current" => MlxColumn::Current,
            "Next" if words.next() == Some("Boot") => MlxColumn::NextBoot,
            _ => {
                return Err(ParseError::at(
                    line,
                    format!("unknown column in {:?}", header.trim()),
                ));
            }
        });
    }
    if !columns.contains(&MlxColumn::NextBoot) {
        return Err(ParseError::at(line, "no `Next Boot` column"));
    }
    Ok(columns)
}

/// A parameter row: optional `*`, the name, one value per column.
fn mlx_row(
    line: usize,
    text: &str,
    columns: &[MlxColumn],
) -> Result<(String, MlxValue), ParseError> {
    let modified = text.starts_with('*');
    let mut words = text.trim_start_matches('*').split_whitespace();
    let name = words
        .next()
        .ok_or_else(|| ParseError::at(line, "`*` without a parameter"))?;
    let values: Vec<&str> = words.collect();
    if values.len() != columns.len() {
        return Err(ParseError::at(
            line,
            format!(
                "{name}: expected {} value(s), found {}",
                columns.len(),
                values.len()
            ),
        ));
    }
    let mut value = MlxValue {
        default: None,
        current: None,
        next_boot: String::new(),
        modified,
    };
    let base = name
        .rsplit_once("_P")
        .filter(|(_, port)| !port.is_empty() && port.chars().all(|c| c.is_ascii_digit()))
        .map_or(name, |(base, _)| base);
    let allowed = VOCABULARY
        .iter()
        .find(|(known, _)| *known == base)
        .map(|(_, values)| *values);
    for (column, text) in columns.iter().zip(values) {
        if let Some(allowed) = allowed.filter(|a| !a.contains(&text)) {
            return Err(ParseError::at(
                line,
                format!("{name}: expected one of {allowed:?}, found {text:?}"),
            ));
        }
        let text = mlx_value_text(line, text)?;
        match column {
            MlxColumn::Default => value.default = Some(text),
            MlxColumn::Current => value.current = Some(text),
            MlxColumn::NextBoot => value.next_boot = text,
        }
    }
    Ok((name.to_owned(), value))
}

/// `True(1)` → `True`; a value without parentheses stays whole. A `(` must open a number
/// that closes the value: anything else is a damaged value.
fn mlx_value_text(line: usize, value: &str) -> Result<String, ParseError> {
    let Some(open) = value.find('(') else {
        return Ok(value.to_owned());
    };
    let number = value[open + 1..].strip_suffix(')');
    match number {
        Some(n) if open > 0 && !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()) => {
            Ok(value[..open].to_owned())
        }
        _ => Err(ParseError::at(
            line,
            format!("bad value {value:?}, expected `LABEL(N)` or a word"),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::linux::parse::tests::{assert_broken, parsed};

    #[test]
    fn mlxconfig_extended_and_plain_queries() {
        let extended = parsed("mlxconfig-query-extended.txt", parse_mlxconfig_query);
        assert_eq!(extended.device.as_deref(), Some("/dev/mst/mt4127_pciconf0"));
        assert_eq!(extended.device_type.as_deref(), Some("ConnectX6LX"));
        assert_eq!(extended.name.as_deref(), Some("MCX631102AN-ADA_Ax"));
        assert_eq!(extended.values.len(), 16);
        let value = |default: &str, current: &str, next_boot: &str, modified| MlxValue {
            default: Some(default.into()),
            current: Some(current.into()),
            next_boot: next_boot.into(),
            modified,
        };
        let cases = [
            ("LLDP_NB_DCBX_P1", value("False", "True", "True", true)),
            ("DCBX_WILLING_P1", value("True", "True", "False", true)),
            ("LLDP_NB_RX_MODE_P1", value("ALL", "ALL", "ALL", false)),
            (
                "MEMIC_SIZE_LIMIT",
                value("_256KB", "_256KB", "_256KB", false),
            ),
            ("ROCE_CC_PRIO_MASK_P1", value("255", "8", "8", true)),
        ];
        for (name, expected) in cases {
            assert_eq!(extended.values[name], expected, "{name}");
        }
        assert_eq!(extended.values["DCBX_WILLING_P1"].as_bool(), Some(false));
        assert_eq!(extended.values["LLDP_NB_RX_MODE_P1"].as_bool(), None);
        assert_eq!(
            extended.values["DCBX_WILLING_P1"]
                .current
                .as_deref()
                .and_then(mlx_bool),
            Some(true)
        );

        let plain = parsed("mlxconfig-query.txt", parse_mlxconfig_query);
        assert_eq!(plain.device.as_deref(), Some("0000:3b:00.0"));
        assert_eq!(plain.device_type.as_deref(), Some("ConnectX5"));
        assert_eq!(plain.values.len(), 14);
        assert_eq!(
            plain.values["LLDP_NB_RX_MODE_P1"],
            MlxValue {
                default: None,
                current: None,
                next_boot: "OFF".into(),
                modified: false,
            }
        );
        assert_eq!(plain.values["DCBX_IEEE_P1"].as_bool(), Some(true));
        assert_eq!(plain.values["PF_LOG_BAR_SIZE"].next_boot, "5");

        // Old versions print `PCI device:`; warnings are skipped.
        let old = "Device #1:\n----------\n\nDevice type:    ConnectX4LX\nPCI device:     \
                   /dev/mst/mt4117_pciconf0\n-W- Firmware is older than expected\n\n\
                   Configurations:                              Next Boot\n         SRIOV_EN   True(1)\n";
        let old = parse_mlxconfig_query(old).unwrap();
        assert_eq!(old.device.as_deref(), Some("/dev/mst/mt4117_pciconf0"));
        assert_eq!(old.values["SRIOV_EN"].as_bool(), Some(true));
    }

    #[test]
    fn broken_inputs_name_the_line() {
        assert_broken(&[
            (
                "mlxconfig",
                "Device #1:\nConfigurations:   Default   Current   Next Boot\n  SRIOV_EN  False(0)  False(0)  False(0)\n",
                0,
                "no closing",
            ),
            (
                "mlxconfig",
                "Device #1:\nConfigurations:   Default   Current   Next Boot\n  SRIOV_EN  False(0)  False(0)  False(0)\n\
                 The '*' shows parameters with next value",
                4,
                "expected the legend",
            ),
            (
                "mlxconfig",
                "Device #1:\nConfigurations:   Next Boot\n  SRIOV_EN  False(0)\n\
                 The '*' shows parameters with next value different from default/current value.\n  A  1\n",
                5,
                "after the closing legend of line 4",
            ),
            (
                "mlxconfig",
                "Device #1:\nConfigurations:   Next Boot\n  LLDP_NB_DCBX_P2  Tru(1)\n",
                3,
                "LLDP_NB_DCBX_P2: expected one of [\"False(0)\", \"True(1)\"]",
            ),
            (
                "mlxconfig",
                "Device #1:\nConfigurations:   Next Boot\n  LLDP_NB_RX_MODE_P1  ALL(1)\n",
                3,
                "expected one of [\"OFF(0)\", \"CUSTOM(1)\", \"ALL(2)\"]",
            ),
            (
                "mlxconfig",
                "Device #1:\nConfigurations:   Next Boot\n  CQE_COMPRESSION  BALANCED(0\n",
                3,
                "bad value \"BALANCED(0\"",
            ),
            (
                "mlxconfig",
                "Device #1:\nConfigurations:   Next Boot\n  A  1\n  A  2\n",
                4,
                "second `A` row",
            ),
            (
                "mlxconfig",
                "Configurations:   Next Boot\n  A  1\n",
                0,
                "no `Device #1:` line before the end of the output",
            ),
            (
                "mlxconfig",
                "Device #1:\nConfigurations:   Next Boot\n",
                0,
                "no parameter under `Configurations:` before the end of the output",
            ),
            (
                "mlxconfig",
                "Device #1:\n\nConfigurations:        Default   Current    Next Boot\n    SRIOV_EN    False(0)   True(1)\n",
                4,
                "expected 3 value(s), found 2",
            ),
            (
                "mlxconfig",
                "\n-E- Failed to open the device\n",
                2,
                "mlxconfig error: Failed to open the device",
            ),
            (
                "mlxconfig",
                "Device #1:\nDevice type:  ConnectX5\n",
                0,
                "no `Configurations:` header before the end of the output",
            ),
            (
                "mlxconfig",
                "Configurations:    Next Boot\n  A  1\nDevice #1:\nDevice #2:\n",
                4,
                "more than one device",
            ),
            (
                "mlxconfig",
                "Configurations:     Default    Later\n",
                1,
                "unknown column",
            ),
            (
                "mlxconfig",
                "Configurations:     Default    Current\n",
                1,
                "no `Next Boot` column",
            ),
            (
                "mlxconfig",
                "Device #1:\nsomething odd\n",
                2,
                "expected `Field: value`",
            ),
            (
                "mlxconfig",
                "Configurations:    Next Boot\n*\n",
                2,
                "`*` without a parameter",
            ),
        ]);
    }
}
