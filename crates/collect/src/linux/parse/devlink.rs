//! `devlink -j dev info`: running and flashed firmware versions per device.

use std::collections::BTreeMap;

use serde::Deserialize;

use super::output::{from_json, non_empty};
use crate::lines::ParseError;

/// One device of `devlink -j dev info`. Version keys (`fw.mgmt.api`) contain dots and are kept
/// whole.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DevlinkDevice {
    /// The devlink handle, e.g. `pci/0000:5e:00.0`.
    pub handle: String,
    /// Kernel driver (`driver`).
    pub driver: Option<String>,
    /// Device serial number (`serial_number`), which tells a swapped card.
    pub serial_number: Option<String>,
    /// Versions of parts that cannot change (board id, ASIC), by key.
    pub fixed: BTreeMap<String, String>,
    /// Versions currently running, by key.
    pub running: BTreeMap<String, String>,
    /// Versions in flash, active after the next reset or reboot, by key.
    pub stored: BTreeMap<String, String>,
}

impl DevlinkDevice {
    /// Keys present in both `running` and `stored` with different values, as (key, running,
    /// stored): firmware flashed but not yet activated, so the next reboot changes behavior.
    pub fn pending_update(&self) -> Vec<(String, String, String)> {
        self.running
            .iter()
            .filter_map(|(key, running)| {
                let stored = self.stored.get(key)?;
                (stored != running).then(|| (key.clone(), running.clone(), stored.clone()))
            })
            .collect()
    }
}

#[derive(Deserialize)]
struct RawDevlinkInfo {
    info: BTreeMap<String, RawDevlinkDevice>,
}

#[derive(Deserialize)]
struct RawDevlinkDevice {
    driver: Option<String>,
    serial_number: Option<String>,
    #[serde(default)]
    versions: RawVersions,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawVersions {
    fixed: BTreeMap<String, String>,
    running: BTreeMap<String, String>,
    stored: BTreeMap<String, String>,
}

/// Parses `devlink -j dev info` (with or without `-p`): `{"info": {HANDLE: {...}}}`. Devices
/// come out ordered by handle; `{"info": {}}` (no devlink devices) is an empty list.
pub fn parse_devlink_info(text: &str) -> Result<Vec<DevlinkDevice>, ParseError> {
    let raw: RawDevlinkInfo = from_json(text, "devlink dev info JSON")?;
    Ok(raw
        .info
        .into_iter()
        .map(|(handle, d)| DevlinkDevice {
            handle,
            driver: non_empty(d.driver),
            serial_number: non_empty(d.serial_number),
            fixed: d.versions.fixed,
            running: d.versions.running,
            stored: d.versions.stored,
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::linux::parse::tests::{
        assert_broken, assert_truncated_json_fails_at_its_last_line, parsed,
    };

    #[test]
    fn devlink_keeps_dotted_keys_and_finds_pending_firmware() {
        let devices = parsed("devlink-dev-info.json", parse_devlink_info);
        let handles: Vec<&str> = devices.iter().map(|d| d.handle.as_str()).collect();
        assert_eq!(
            handles,
            ["pci/0000:5e:00.0", "pci/0000:5e:00.1", "pci/0000:d8:00.0"]
        );
        let mlx = &devices[0];
        assert_eq!(mlx.driver.as_deref(), Some("mlx5_core"));
        assert_eq!(mlx.serial_number.as_deref(), Some("MT2318X09712"));
        assert_eq!(mlx.fixed["fw.psid"], "MT_0000000359");
        let pending = |a: &str, b: &str, c: &str| (a.to_owned(), b.to_owned(), c.to_owned());
        assert_eq!(
            mlx.pending_update(),
            [
                pending("fw", "22.39.1002", "22.41.1000"),
                pending("fw.version", "22.39.1002", "22.41.1000"),
            ]
        );
        let ice = &devices[2];
        assert_eq!(ice.running["fw.mgmt.api"], "1.7.11");
        assert_eq!(ice.running["fw.app.name"], "ICE OS Default Package");
        assert!(ice.stored.contains_key("fw.netlist.build"));
        assert_eq!(ice.pending_update(), []);
        assert_eq!(
            parsed("devlink-dev-info-empty.json", parse_devlink_info),
            []
        );
        // A device without versions (some drivers report only the driver).
        let bare = parse_devlink_info(r#"{"info":{"pci/0000:01:00.0":{"driver":"igb"}}}"#).unwrap();
        assert!(bare[0].running.is_empty() && bare[0].pending_update().is_empty());
    }

    #[test]
    fn broken_inputs_name_the_line() {
        assert_broken(&[
            (
                "devlink",
                "{\"info\": {\n\"pci/0000:01:00.0\": {\n\"versions\": {\"running\": {\"fw\": 5}}}}}",
                3,
                "invalid type",
            ),
            (
                "devlink",
                "Failed to connect to devlink Netlink\n",
                1,
                "expected value",
            ),
            ("devlink", "{\"dev\": {}}", 1, "missing field `info`"),
        ]);
    }

    #[test]
    fn truncated_json_fails_at_its_last_line() {
        assert_truncated_json_fails_at_its_last_line("devlink", "devlink-dev-info.json", 15);
    }
}
