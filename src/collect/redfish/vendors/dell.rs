//! Dell iDRAC: NIC HII settings in `DellNetworkAttributes` of each network device function,
//! pending values in its `Settings`.

use super::super::crawl::FunctionInventory;
use crate::collect::nic::{NicFacts, scalar};
use crate::model::DcbxMode;
use crate::secrets::SecretFilter;
use crate::snapshot::path_segment;

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

/// Every attribute under `hii/<name>` (secrets dropped), the known ones also normalized;
/// the pending ones under `pending/…`.
pub fn function_facts(function: &FunctionInventory, nic: &mut NicFacts<'_>) {
    let mut filter = SecretFilter::new();
    if let Some(registry) = &function.dell_registry {
        filter.add_registry(registry);
    }
    for (resource, prefix) in [
        (&function.dell_attributes, ""),
        (&function.dell_pending, "pending/"),
    ] {
        let Some(attributes) = resource.as_ref().and_then(|r| r["Attributes"].as_object()) else {
            continue;
        };
        for (name, value) in attributes
            .iter()
            .filter(|(name, value)| !filter.is_secret(name, value))
        {
            if scalar(value).is_none() {
                continue;
            }
            nic.set_scalar(&format!("{prefix}hii/{}", path_segment(name)), value);
            if let (Some((_, leaf, mapping)), Some(text)) =
                (MAPPED.iter().find(|(n, _, _)| n == name), value.as_str())
            {
                nic.set_scalar(&format!("{prefix}{leaf}"), &convert(mapping, text));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::snapshot::Facts;
    use serde_json::Value;

    #[test]
    fn maps_dcbx_rdma_and_npar_and_keeps_pending_values_apart() {
        let function = FunctionInventory {
            function: Value::Null,
            dell_attributes: Some(serde_json::json!({"Attributes": {
                "Broadcom_DCBX": "Disabled", "RDMAProtocolSupport": "RoCE", "RDMANICModeOnPort": "Enabled",
                "VirtualizationMode": "NPAR", "ChapSecret": "hunter2", "MTU": 9000, "BlnkLeds": null,
                "FlowControlSetting": "TXRXFlowControl", "LocalDCBXWillingMode": "Disabled"
            }})),
            dell_pending: Some(
                serde_json::json!({"Attributes": {"Broadcom_DCBX": "Enabled_IEEE"}}),
            ),
            dell_registry: None,
            pending: None,
        };
        let mut facts = Facts::new();
        let mut nic = NicFacts::new(
            &mut facts,
            crate::collect::nic::Side::Bmc,
            "e4:3d:1a:13:27:f0",
        );
        function_facts(&function, &mut nic);
        let get = |leaf: &str| {
            facts
                .get(format!("nic/e4:3d:1a:13:27:f0/bmc/{leaf}").as_str())
                .map(ToString::to_string)
        };
        assert_eq!(get("dcbx_mode").as_deref(), Some("\"disabled\""));
        assert_eq!(get("pending/dcbx_mode").as_deref(), Some("\"ieee\""));
        assert_eq!(get("rdma_protocol").as_deref(), Some("\"roce\""));
        assert_eq!(get("rdma_enabled").as_deref(), Some("true"));
        assert_eq!(get("npar").as_deref(), Some("true"));
        assert_eq!(get("hii/MTU").as_deref(), Some("9000"));
        assert_eq!(get("hii/ChapSecret"), None);
        assert_eq!(get("hii/BlnkLeds"), None);
        assert_eq!(get("flow_control/setting").as_deref(), Some("\"tx_rx\""));
        assert_eq!(get("dcbx_willing").as_deref(), Some("false"));
    }
}
