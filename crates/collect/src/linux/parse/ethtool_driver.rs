//! `ethtool -i IF`: driver, firmware version and PCI address of a port.

use std::collections::BTreeMap;

use super::output::{key_value, require_output};
use crate::lines::{ParseError, numbered_lines};

/// Driver and firmware identity from `ethtool -i IF`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DriverInfo {
    /// Kernel driver (`driver`), e.g. `mlx5_core`.
    pub driver: String,
    /// Driver version (`version`); in-tree drivers print the kernel release or nothing.
    pub version: Option<String>,
    /// Firmware version as the driver formats it (`firmware-version`), e.g.
    /// `22.39.1002 (MT_0000000359)` or bnxt's `228.0.130.0/pkg 228.1.111.0`.
    pub firmware_version: Option<String>,
    /// PCI address (`bus-info`).
    pub bus_info: Option<String>,
}

/// The lines `ethtool -i` prints for every device, in one write, whatever the driver fills
/// in (`expansion-rom-version` is left out: ethtool before 4.0 does not print it).
const REQUIRED: [&str; 9] = [
    "driver",
    "version",
    "firmware-version",
    "bus-info",
    "supports-statistics",
    "supports-test",
    "supports-eeprom-access",
    "supports-register-dump",
    "supports-priv-flags",
];

/// Parses `ethtool -i IF`: `key: value` lines with kebab-case keys; empty values become
/// `None`, and `driver` is required. A line whose key is not kebab-case (an error message
/// such as `Cannot get driver information: …`) is an error at that line. The nine lines
/// ethtool always prints must all be there (possibly with an empty value), so an output cut
/// short is an error, not a port without a PCI address; `supports-*` values are `yes`/`no`.
pub fn parse_ethtool_driver_info(text: &str) -> Result<DriverInfo, ParseError> {
    require_output(text, "ethtool -i")?;
    let mut fields: BTreeMap<&str, (usize, &str)> = BTreeMap::new();
    for (number, line) in numbered_lines(text) {
        if line.trim().is_empty() {
            continue;
        }
        let (key, value) = key_value(number, line, "`key: value`")?;
        if key.is_empty()
            || !key
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        {
            return Err(ParseError::at(
                number,
                format!("not `ethtool -i` output: {:?}", line.trim()),
            ));
        }
        if fields.insert(key, (number, value)).is_some() {
            return Err(ParseError::at(number, format!("second `{key}:` line")));
        }
    }
    // ethtool prints `N/A` where the driver reports nothing (a virtual NIC's firmware).
    let field = |key: &str| {
        fields
            .get(key)
            .and_then(|(_, v)| crate::placeholder::value(v))
            .map(str::to_owned)
    };
    let driver = match fields.get("driver") {
        None => {
            return Err(ParseError::whole(
                "no `driver:` line before the end of the output",
            ));
        }
        Some((number, "")) => return Err(ParseError::at(*number, "empty driver name")),
        Some((_, driver)) => (*driver).to_owned(),
    };
    for key in REQUIRED {
        if !fields.contains_key(key) {
            return Err(ParseError::whole(format!(
                "no `{key}:` line before the end of the output (ethtool -i always prints it; the output is cut short)"
            )));
        }
    }
    for key in REQUIRED.iter().filter(|k| k.starts_with("supports-")) {
        let (number, value) = fields[key];
        if value != "yes" && value != "no" {
            return Err(ParseError::at(
                number,
                format!("`{key}`: expected `yes` or `no`, found {value:?}"),
            ));
        }
    }
    Ok(DriverInfo {
        driver,
        version: field("version"),
        firmware_version: field("firmware-version"),
        bus_info: field("bus-info"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::linux::parse::tests::{assert_broken, parsed};

    #[test]
    fn ethtool_driver_info_of_two_vendors() {
        let cases = [
            (
                "ethtool-driver-mlx5.txt",
                DriverInfo {
                    driver: "mlx5_core".into(),
                    version: Some("6.8.0-45-generic".into()),
                    firmware_version: Some("22.39.1002 (MT_0000000359)".into()),
                    bus_info: Some("0000:5e:00.0".into()),
                },
            ),
            (
                "ethtool-driver-bnxt.txt",
                DriverInfo {
                    driver: "bnxt_en".into(),
                    version: None,
                    firmware_version: Some("228.0.130.0/pkg 228.1.111.0".into()),
                    bus_info: Some("0000:af:00.1".into()),
                },
            ),
        ];
        for (name, expected) in cases {
            assert_eq!(parsed(name, parse_ethtool_driver_info), expected, "{name}");
        }
    }

    #[test]
    fn a_firmware_version_of_n_a_is_none() {
        let text = "driver: virtio_net\nversion: 1.0.0\nfirmware-version: N/A\nbus-info: 0000:00:03.0\n\
                    supports-statistics: yes\nsupports-test: no\nsupports-eeprom-access: no\n\
                    supports-register-dump: no\nsupports-priv-flags: no\n";
        let info = parse_ethtool_driver_info(text).expect("well-formed");
        assert_eq!(info.firmware_version, None);
        assert_eq!(info.version.as_deref(), Some("1.0.0"));
    }

    #[test]
    fn broken_inputs_name_the_line() {
        assert_broken(&[
            (
                "ethtool -i",
                "driver: mlx5_core\nversion: 6.8\nfirmware-version: 22\nbus-info: 0000:3b:00.0\n",
                0,
                "no `supports-statistics:` line before the end of the output",
            ),
            (
                "ethtool -i",
                "driver: mlx5_core\nversion: 6.8\nfirmware-version: 22\nsupports-statistics: yes\n",
                0,
                "no `bus-info:` line before the end of the output",
            ),
            (
                "ethtool -i",
                "driver: ice\nversion:\nfirmware-version:\nbus-info:\nsupports-statistics: yes\n\
                 supports-test: yes\nsupports-eeprom-access: no\nsupports-register-dump: no\n\
                 supports-priv-flags: ye",
                9,
                "`supports-priv-flags`: expected `yes` or `no`, found \"ye\"",
            ),
            (
                "ethtool -i",
                "driver: ice\ndriver: ice\n",
                2,
                "second `driver:` line",
            ),
            (
                "ethtool -i",
                "driver: ice\nbus-info\n",
                2,
                "expected `key: value`",
            ),
            (
                "ethtool -i",
                "Cannot get driver information: No such device\n",
                1,
                "not `ethtool -i` output",
            ),
            (
                "ethtool -i",
                "version: 1.0\nbus-info: 0000:01:00.0\n",
                0,
                "no `driver:` line before the end of the output",
            ),
            (
                "ethtool -i",
                "version: 1.0\r\ndriver:\r\n",
                2,
                "empty driver name",
            ),
        ]);
    }
}
