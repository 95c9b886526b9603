//! NVIDIA BMC: `Oem.Nvidia.LLDP.{TXMode, RXMode, DCBXModeEnabled}` on the NetworkAdapter
//! (NvidiaNetworkAdapter.v1_3_0, NVIDIA/bmcweb), pending values on its `@Redfish.Settings`
//! object. `TXMode`/`RXMode` are `Off`, `Mandatory` or `All`; DCBX in the NIC firmware needs
//! both at `All`.

use serde_json::Value;

use crate::collect::nic::NicFacts;

/// Facts of every port of an NVIDIA adapter; `prefix` is `""` or `"pending/"`.
pub fn adapter_facts(adapter: &Value, prefix: &str, nic: &mut NicFacts<'_>) {
    let lldp = &adapter["Oem"]["Nvidia"]["LLDP"];
    for (property, leaf) in [
        ("TXMode", "lldp/nic_agent/transmit"),
        ("RXMode", "lldp/nic_agent/receive"),
    ] {
        if let Some(mode) = lldp[property].as_str() {
            nic.set(&format!("{prefix}{leaf}"), mode.to_ascii_lowercase());
        }
    }
    // The BMC says only whether the firmware's DCBX is on, not which flavour.
    if let Some(enabled) = lldp["DCBXModeEnabled"].as_bool() {
        nic.set(
            &format!("{prefix}dcbx_mode"),
            if enabled { "enabled" } else { "disabled" },
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::snapshot::Facts;

    #[test]
    fn maps_lldp_modes_and_dcbx() {
        let adapter = serde_json::json!({"Oem": {"Nvidia": {"LLDP": {"TXMode": "All", "RXMode": "Mandatory", "DCBXModeEnabled": false}}}});
        let mut facts = Facts::new();
        let mut nic = NicFacts::new(
            &mut facts,
            crate::collect::nic::Side::Bmc,
            "00:11:22:33:44:55",
        );
        adapter_facts(&adapter, "", &mut nic);
        adapter_facts(
            &serde_json::json!({"Oem": {"Nvidia": {"LLDP": {"DCBXModeEnabled": true}}}}),
            "pending/",
            &mut nic,
        );
        let get = |leaf: &str| {
            facts
                .get(format!("nic/00:11:22:33:44:55/bmc/{leaf}").as_str())
                .map(ToString::to_string)
        };
        assert_eq!(get("lldp/nic_agent/transmit").as_deref(), Some("\"all\""));
        assert_eq!(
            get("lldp/nic_agent/receive").as_deref(),
            Some("\"mandatory\"")
        );
        assert_eq!(get("dcbx_mode").as_deref(), Some("\"disabled\""));
        assert_eq!(get("pending/dcbx_mode").as_deref(), Some("\"enabled\""));
    }
}
