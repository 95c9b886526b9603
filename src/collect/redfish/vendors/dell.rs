//! Dell iDRAC: NIC HII settings in `DellNetworkAttributes` of each network device function
//! (linked from `Links.Oem.Dell.DellNetworkAttributes`), pending values in its `Settings`.
//! They describe one function (an NPAR partition has its own), so they are function facts.

use serde_json::Value;

use super::Leaves;
use crate::collect::nic::scalar;
use crate::collect::redfish::attributes::is_firmware_version;
use crate::model::DcbxMode;
use crate::secrets::SecretFilter;
use crate::snapshot::path_segment;

/// Where a network device function links its `DellNetworkAttributes` resource.
pub const ATTRIBUTES_LINK: &[&str] = &["Links", "Oem", "Dell", "DellNetworkAttributes"];

/// How one HII attribute becomes a normalized fact.
enum Mapping {
    /// DCBX mode spelling → `ieee|cee|ieee+cee|disabled`.
    Dcbx,
    /// Lower-cased text.
    Lower,
    /// `Enabled`/`Disabled` → boolean.
    Enabled,
    /// `VirtualizationMode` → whether NIC partitioning is on.
    Npar,
    /// `FlowControlSetting` (`TXRXFlowControl`, `RXFlowControl`, …) → `tx_rx`, `rx`, …
    FlowControl,
}

/// Attribute name → (fact leaf, mapping). Names from iDRAC network attribute registries and
/// Dell's OMSDK enumerations (`omdrivers/enums/iDRAC/NIC.py`); Mellanox cards on Dell carry
/// `LldpPort1`/`LldpPort2` (the card's firmware LLDP agent per physical port).
const MAPPED: &[(&str, &str, Mapping)] = &[
    ("Broadcom_DCBX", "dcbx_mode", Mapping::Dcbx),
    ("RDMAProtocolSupport", "rdma_protocol", Mapping::Lower),
    ("RDMANICModeOnPort", "rdma_enabled", Mapping::Enabled),
    ("VirtualizationMode", "npar", Mapping::Npar),
    ("LocalDCBXWillingMode", "dcbx_willing", Mapping::Enabled),
    (
        "FlowControlSetting",
        "flow_control/setting",
        Mapping::FlowControl,
    ),
    (
        "Broadcom_LLDPNearestBridge",
        "lldp/nic_agent",
        Mapping::Lower,
    ),
    ("LldpPort1", "lldp/nic_agent/port1", Mapping::Lower),
    ("LldpPort2", "lldp/nic_agent/port2", Mapping::Lower),
];

/// The names of the attributes that are normalized: their values must be strings.
pub fn mapped_attributes() -> impl Iterator<Item = &'static str> {
    MAPPED.iter().map(|(name, _, _)| *name)
}

fn convert(mapping: &Mapping, value: &str) -> serde_json::Value {
    match mapping {
        Mapping::Dcbx => DcbxMode::parse(value).as_str().into(),
        Mapping::Lower => value.to_ascii_lowercase().into(),
        Mapping::Enabled => value.eq_ignore_ascii_case("enabled").into(),
        Mapping::Npar => value.to_ascii_uppercase().contains("NPAR").into(),
        Mapping::FlowControl => {
            let spelling = value.trim_end_matches("FlowControl");
            crate::model::FlowControl::parse(if spelling.is_empty() { value } else { spelling })
                .as_str()
                .into()
        }
    }
}

/// Every attribute of one `DellNetworkAttributes` resource (current or pending) under
/// `hii/<name>` (secrets dropped; versions under `firmware/hii/<name>`: they change with every
/// firmware update and are not settings), the known ones also normalized.
pub fn function_facts(attributes: &Value, registry: Option<&Value>, leaves: &mut Leaves) {
    let mut filter = SecretFilter::new();
    if let Some(registry) = registry {
        filter.add_registry(registry);
    }
    let Some(attributes) = attributes["Attributes"].as_object() else {
        return;
    };
    for (name, value) in attributes
        .iter()
        .filter(|(name, value)| !filter.is_secret(name, value))
    {
        if scalar(value).is_none() {
            continue;
        }
        let home = if is_firmware_version(name) {
            "firmware/hii"
        } else {
            "hii"
        };
        leaves.set_scalar(&format!("{home}/{}", path_segment(name)), value);
        if let (Some((_, leaf, mapping)), Some(text)) =
            (MAPPED.iter().find(|(n, _, _)| n == name), value.as_str())
        {
            leaves.set_scalar(leaf, &convert(mapping, text));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_dcbx_rdma_and_npar_and_keeps_pending_values_apart() {
        let current = serde_json::json!({"Attributes": {
            "Broadcom_DCBX": "Disabled", "RDMAProtocolSupport": "RoCE", "RDMANICModeOnPort": "Enabled",
            "VirtualizationMode": "NPAR", "ChapSecret": "hunter2", "MTU": 9000, "BlnkLeds": null,
            "FlowControlSetting": "TXRXFlowControl", "LocalDCBXWillingMode": "Disabled",
            "FamilyVersion": "21.80.16.95"
        }});
        let mut leaves = Leaves::default();
        function_facts(&current, None, &mut leaves);
        let mut pending = Leaves::default();
        function_facts(
            &serde_json::json!({"Attributes": {"Broadcom_DCBX": "Enabled_IEEE", "MTU": 9000}}),
            None,
            &mut pending,
        );
        leaves.add_pending(&pending);
        let get = |leaf: &str| leaves.get(leaf).map(ToString::to_string);
        assert_eq!(get("dcbx_mode").as_deref(), Some("\"disabled\""));
        assert_eq!(get("pending/dcbx_mode").as_deref(), Some("\"ieee\""));
        assert_eq!(get("pending/hii/MTU"), None, "equal to the current value");
        assert_eq!(get("rdma_protocol").as_deref(), Some("\"roce\""));
        assert_eq!(get("rdma_enabled").as_deref(), Some("true"));
        assert_eq!(get("npar").as_deref(), Some("true"));
        assert_eq!(get("hii/MTU").as_deref(), Some("9000"));
        assert_eq!(get("hii/ChapSecret"), None);
        assert_eq!(get("hii/BlnkLeds"), None);
        assert_eq!(get("flow_control/setting").as_deref(), Some("\"tx_rx\""));
        assert_eq!(get("dcbx_willing").as_deref(), Some("false"));
        assert_eq!(
            get("firmware/hii/FamilyVersion").as_deref(),
            Some("\"21.80.16.95\"")
        );
        assert_eq!(get("hii/FamilyVersion"), None);
    }
}
