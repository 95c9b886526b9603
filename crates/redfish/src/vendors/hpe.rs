//! HPE iLO 5/6: standard `NetworkPorts` plus `Oem.Hpe.LldpData.Receiving.Dcb` (the DCBX
//! configuration learned from the switch) and the adapter's `Oem.Hpe.Controllers[]`
//! (`RDMASupport`, `EmbeddedLLDPFunctions`). Property names from HPE's "Network resource
//! definitions of iLO 5"; all of them may be `null`.

use serde_json::Value;

use super::{Leaves, OemCollection, SystemAdapterFirmware};
use crate::odata_type::TypeName;
use crate::protocols::{rdma_protocol_fact, rdma_protocols};
use driftgate_model::MacAddr;
use driftgate_model::placeholder;

/// iLO 5's `Systems/<id>/BaseNetworkAdapters` (`HpeBaseNetworkAdapter.v2_0_0`, deprecated in
/// iLO 6 but still what iLO 5 reports for adapters without a Redfish `NetworkAdapter` of
/// their own firmware): each adapter's `Firmware.Current.VersionString` and its
/// `PhysicalPorts[].MacAddress`. The system links it from `Oem.Hpe.Links.NetworkAdapters`.
pub(super) const BASE_NETWORK_ADAPTERS: OemCollection = OemCollection {
    link: &["Oem", "Hpe", "Links", "NetworkAdapters"],
    member: &BASE_NETWORK_ADAPTER,
};

const BASE_NETWORK_ADAPTER: TypeName = TypeName::oem("HpeBaseNetworkAdapter");

/// The firmware version of a `BaseNetworkAdapters` member and the MACs of its ports.
pub(super) fn base_adapter_firmware(adapter: &Value) -> Option<SystemAdapterFirmware<'_>> {
    let version = adapter["Firmware"]["Current"]["VersionString"].as_str()?;
    let macs = adapter["PhysicalPorts"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|port| port["MacAddress"].as_str().and_then(MacAddr::parse))
        .filter(|mac| !mac.is_zero())
        .collect();
    Some(SystemAdapterFirmware {
        macs,
        version: placeholder::value(version),
        property: "Firmware/Current/VersionString",
    })
}

/// Adapter-level facts of every port of an HPE adapter: `RDMASupport` (the RDMA protocols
/// the adapter supports, `["None"]` for none) read as the standard protocol lists are.
pub(super) fn adapter_facts(adapter: &Value, nic: &mut Leaves) {
    let controller = &adapter["Oem"]["Hpe"]["Controllers"][0];
    if let Some(protocols) = rdma_protocols(&controller["RDMASupport"]) {
        nic.set("rdma_protocol", rdma_protocol_fact(&protocols));
    }
    // Off also turns off DCBX, RoCE, FCoE and EVB on the adapter.
    nic.set_scalar(
        "lldp/nic_agent",
        &controller["EmbeddedLLDPFunctions"]["Enabled"],
    );
}

/// What the port learned from its switch over LLDP/DCBX, under `peer/…`.
pub(super) fn port_facts(port: &Value, nic: &mut Leaves) {
    let dcb = &port["Oem"]["Hpe"]["LldpData"]["Receiving"]["Dcb"];
    if let Some(version) = nic.text("peer/dcbx_version", &dcb["Version"]) {
        nic.set("peer/dcbx_version", version.to_ascii_lowercase());
    }
    nic.set_scalar("peer/dcb_matches_local", &dcb["LocalEqualRemote"]);
    nic.set_scalar("peer/ets/willing", &dcb["Ets"]["Willing"]);
    nic.set_scalar("peer/pfc/willing", &dcb["Pfc"]["Willing"]);
    for (table, leaf) in [
        ("BandwidthAssignmentTable", "bandwidth"),
        ("TrafficSelectionAlgorithmTable", "algorithm"),
    ] {
        if let Some(values) = dcb["Ets"][table].as_array() {
            for (class, value) in values.iter().enumerate() {
                nic.set_scalar(&format!("peer/ets/traffic_class/{class}/{leaf}"), value);
            }
        }
    }
    if let Some(classes) = dcb["Ets"]["PriorityAssignmentTable"].as_array() {
        for (priority, class) in classes.iter().enumerate() {
            nic.set_scalar(
                &format!("peer/ets/priority/{priority}/traffic_class"),
                class,
            );
        }
    }
    // A string of 1s and 0s, priority 7 first.
    if let Some(bits) = nic.text("peer/pfc/priority", &dcb["Pfc"]["EnabledTrafficClasses"]) {
        for (index, bit) in bits
            .chars()
            .rev()
            .enumerate()
            .filter(|(_, b)| matches!(b, '0' | '1'))
        {
            nic.set(&format!("peer/pfc/priority/{index}"), bit == '1');
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_the_switch_learned_dcbx_data_and_adapter_rdma() {
        let port = serde_json::json!({"Oem": {"Hpe": {"LldpData": {"Receiving": {"Dcb": {
            "Version": "IEEE", "LocalEqualRemote": false,
            "Ets": {"Willing": false, "BandwidthAssignmentTable": [50, 50, 0, 0, 0, 0, 0, 0],
                    "PriorityAssignmentTable": [0, 0, 0, 1, 0, 0, 0, 0],
                    "TrafficSelectionAlgorithmTable": ["ETS", "ETS", "strict", "strict", "strict", "strict", "strict", "strict"]},
            "Pfc": {"Willing": null, "EnabledTrafficClasses": "00001000"}}}}}}});
        let adapter = serde_json::json!({"Oem": {"Hpe": {"Controllers": [{"RDMASupport": ["None", "RoCE"], "EmbeddedLLDPFunctions": {"Enabled": true}}]}}});
        let mut nic = Leaves::default();
        adapter_facts(&adapter, &mut nic);
        port_facts(&port, &mut nic);
        let get = |leaf: &str| nic.get(leaf).map(ToString::to_string);
        assert_eq!(get("peer/dcbx_version").as_deref(), Some("\"ieee\""));
        assert_eq!(get("peer/dcb_matches_local").as_deref(), Some("false"));
        assert_eq!(get("peer/pfc/priority/3").as_deref(), Some("true"));
        assert_eq!(get("peer/pfc/priority/4").as_deref(), Some("false"));
        assert_eq!(get("peer/pfc/willing"), None);
        assert_eq!(
            get("peer/ets/traffic_class/1/bandwidth").as_deref(),
            Some("50")
        );
        assert_eq!(
            get("peer/ets/priority/3/traffic_class").as_deref(),
            Some("1")
        );
        assert_eq!(get("rdma_protocol").as_deref(), Some("\"roce\""));
        assert_eq!(get("lldp/nic_agent").as_deref(), Some("true"));
    }
}
