//! NVIDIA BMC: `Oem.Nvidia.LLDP.{TXMode, RXMode, DCBXModeEnabled}` on the NetworkAdapter
//! (NvidiaNetworkAdapter.v1_3_0, NVIDIA/bmcweb), pending values on its `@Redfish.Settings`
//! object. `TXMode`/`RXMode` are `Off`, `Mandatory` or `All` ([`LldpAgentMode`], under
//! `lldp/nic_agent_mode/…`: modes, not the on/off `lldp/nic_agent` of other vendors); DCBX in
//! the NIC firmware needs both at `All`.

use serde_json::Value;

use super::Leaves;
use driftgate_model::{DcbxMode, LldpAgentMode};

/// Facts of every port of an NVIDIA adapter, from the adapter or its pending settings.
pub(super) fn adapter_facts(adapter: &Value, nic: &mut Leaves) {
    let lldp = &adapter["Oem"]["Nvidia"]["LLDP"];
    for (property, leaf) in [
        ("TXMode", "lldp/nic_agent_mode/transmit"),
        ("RXMode", "lldp/nic_agent_mode/receive"),
    ] {
        if let Some(mode) = nic.text(leaf, &lldp[property]) {
            nic.set(leaf, LldpAgentMode::parse(mode).as_str());
        }
    }
    // The BMC says only whether the firmware's DCBX is on, not which flavour.
    if let Some(enabled) = lldp["DCBXModeEnabled"].as_bool() {
        let mode = if enabled {
            DcbxMode::Enabled
        } else {
            DcbxMode::Disabled
        };
        nic.set("dcbx_mode", mode.as_str());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_lldp_modes_and_dcbx() {
        let adapter = serde_json::json!({"Oem": {"Nvidia": {"LLDP": {"TXMode": "All", "RXMode": "Mandatory", "DCBXModeEnabled": false}}}});
        let mut leaves = Leaves::default();
        adapter_facts(&adapter, &mut leaves);
        let mut pending = Leaves::default();
        adapter_facts(
            &serde_json::json!({"Oem": {"Nvidia": {"LLDP": {"TXMode": "All", "DCBXModeEnabled": true}}}}),
            &mut pending,
        );
        leaves.add_pending(&pending);
        let get = |leaf: &str| leaves.get(leaf).map(ToString::to_string);
        assert_eq!(
            get("lldp/nic_agent_mode/transmit").as_deref(),
            Some("\"all\"")
        );
        assert_eq!(
            get("lldp/nic_agent_mode/receive").as_deref(),
            Some("\"mandatory\"")
        );
        assert_eq!(
            get("lldp/nic_agent"),
            None,
            "a mode is not the on/off agent leaf"
        );
        assert_eq!(get("dcbx_mode").as_deref(), Some("\"disabled\""));
        assert_eq!(get("pending/dcbx_mode").as_deref(), Some("\"enabled\""));
        assert_eq!(
            DcbxMode::parse(get("pending/dcbx_mode").unwrap().trim_matches('"')),
            DcbxMode::Enabled,
            "inside the DcbxMode vocabulary"
        );
        assert_eq!(
            get("pending/lldp/nic_agent_mode/transmit"),
            None,
            "unchanged"
        );
    }
}
