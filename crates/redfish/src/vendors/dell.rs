//! Dell iDRAC: NIC HII settings in `DellNetworkAttributes` of each network device function
//! (linked from `Links.Oem.Dell.DellNetworkAttributes`), pending values in its `Settings`.
//! They describe one function (an NPAR partition has its own), so they are function facts.

use serde_json::Value;

use super::{Kind, Leaves, OemAttributes, on_off};
use crate::attributes::{Class, Registry, classify_value};
use crate::odata_type::TypeName;
use driftgate_model::{DcbxMode, RdmaProtocol};
use driftgate_snapshot::nic::{is_placeholder, scalar};
use driftgate_snapshot::path_segment;

/// Where a network device function links its `DellNetworkAttributes` resource, and the types
/// that resource and its `Settings` have (iDRAC types both `DellAttributes` or
/// `DellNetworkAttributes`, depending on the firmware).
pub(super) const ATTRIBUTES: OemAttributes = OemAttributes {
    link: &["Links", "Oem", "Dell", "DellNetworkAttributes"],
    types: &[
        TypeName::oem("DellNetworkAttributes"),
        TypeName::oem("DellAttributes"),
    ],
};

/// How one HII attribute becomes a normalized fact.
enum Mapping {
    /// DCBX mode spelling → `ieee|cee|ieee+cee|disabled`.
    Dcbx,
    /// An RDMA protocol ([`RdmaProtocol`]: `roce`, `rocev2`, `iwarp`, `none`), spelled as every
    /// vendor's is.
    Rdma,
    /// `Enabled`/`Disabled` → boolean.
    Enabled,
    /// `VirtualizationMode` → whether NIC partitioning is on.
    Npar,
    /// `FlowControlSetting` (`TXRXFlowControl`, `RXFlowControl`, …) → `tx_rx`, `rx`, …
    FlowControl,
    /// `LldpPort<N>` (`Enabled`/`Disabled`): the firmware LLDP agent of physical port `N`, a
    /// fact of that port's functions only.
    LldpPort(u32),
}

/// Attribute name → (fact leaf, mapping). Names from iDRAC network attribute registries and
/// Dell's OMSDK enumerations (`omdrivers/enums/iDRAC/NIC.py`); Mellanox cards on Dell carry
/// `LldpPort1`/`LldpPort2` (the card's firmware LLDP agent per physical port) on every
/// function of the card.
const MAPPED: &[(&str, &str, Mapping)] = &[
    ("Broadcom_DCBX", "dcbx_mode", Mapping::Dcbx),
    ("RDMAProtocolSupport", "rdma_protocol", Mapping::Rdma),
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
        Mapping::Enabled,
    ),
    ("LldpPort1", "lldp/nic_agent", Mapping::LldpPort(1)),
    ("LldpPort2", "lldp/nic_agent", Mapping::LldpPort(2)),
    ("LldpPort3", "lldp/nic_agent", Mapping::LldpPort(3)),
    ("LldpPort4", "lldp/nic_agent", Mapping::LldpPort(4)),
];

/// The attributes that are normalized, with the type their values must have.
pub(super) fn mapped_attributes() -> impl Iterator<Item = (&'static str, Kind)> {
    MAPPED.iter().map(|(name, _, mapping)| {
        let kind = match mapping {
            Mapping::Enabled | Mapping::LldpPort(_) => Kind::OnOff,
            Mapping::Dcbx | Mapping::Rdma | Mapping::Npar | Mapping::FlowControl => Kind::Text,
        };
        (*name, kind)
    })
}

/// The physical port number of a Dell function FQDD: `NIC.Slot.7-2-1` (port 2, partition 1)
/// and `NIC.Slot.5-1` (port 1) name it after the first `-`.
fn port_number(function_id: &str) -> Option<u32> {
    let (_, rest) = function_id.split_once('-')?;
    rest.split('-').next()?.parse().ok()
}

/// The normalized value; `None` when the attribute's value is outside its vocabulary (the
/// shape check reports it; the raw attribute is kept).
fn convert(mapping: &Mapping, value: &str) -> Option<Value> {
    Some(match mapping {
        Mapping::Dcbx => DcbxMode::parse(value).as_str().into(),
        Mapping::Rdma => RdmaProtocol::parse(value).as_str().into(),
        Mapping::Enabled | Mapping::LldpPort(_) => on_off(value)?.into(),
        Mapping::Npar => value.to_ascii_uppercase().contains("NPAR").into(),
        Mapping::FlowControl => {
            let spelling = value.trim_end_matches("FlowControl");
            driftgate_model::FlowControl::parse(if spelling.is_empty() { value } else { spelling })
                .as_str()
                .into()
        }
    })
}

/// The attributes of one `DellNetworkAttributes` resource (current or pending) of the function
/// `function_id`: the mapped ones normalized (only), each other one where its class
/// ([`crate::attributes`], judged with `registry`) puts it: `hii/<name>`,
/// `firmware/hii/<name>`, `hii/status/<name>`, `hii/dcb/<name>` (secrets dropped). One
/// attribute is one fact: a raw copy beside the normalized one would report one change twice.
/// `LldpPort<N>` goes only to the functions of physical port `N`. A DCB setting recognised by
/// its text is told in `notes`, asking for its spelling.
pub(super) fn function_facts(
    function_id: &str,
    attributes: &Value,
    registry: Option<&Registry>,
    leaves: &mut Leaves,
    notes: &mut Vec<String>,
) {
    let filter = Registry::filter_of(registry);
    let uri = attributes["@odata.id"].as_str().unwrap_or(function_id);
    let Some(attributes) = attributes["Attributes"].as_object() else {
        return;
    };
    let port = port_number(function_id);
    for (name, value) in attributes
        .iter()
        .filter(|(name, value)| !filter.is_secret(name, value))
    {
        if scalar(value).is_none() {
            // `"N/A"` in a mapped attribute is no DCBX mode: the fact is absent (a change
            // from a real value is a removal, judged by the rule of the fact).
            if is_placeholder(value) {
                leaves.placeholder(&format!("hii/{}", path_segment(name)));
            }
            continue;
        }
        let mapped = MAPPED.iter().find(|(n, _, _)| n == name);
        if let Some((_, leaf, mapping)) = mapped {
            let ours = match mapping {
                Mapping::LldpPort(n) => port.map(|port| port == *n),
                _ => Some(true),
            };
            match (ours, value.as_str().and_then(|text| convert(mapping, text))) {
                // Another physical port's agent: that port's functions carry it.
                (Some(false), _) => continue,
                (Some(true), Some(normalized)) => {
                    leaves.set_scalar(leaf, &normalized);
                    continue;
                }
                // Unplaceable or out of vocabulary: kept raw below.
                _ => {}
            }
        }
        let class = classify_value(registry, name, value);
        if let Class::Dcb(recognised) = class {
            notes.push(super::unknown_dcb_note(uri, name, &recognised));
        }
        leaves.set_scalar(&class.hii_leaf(&path_segment(name)), value);
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
            "FamilyVersion": "21.80.16.95", "Broadcom_LLDPNearestBridge": "Disabled"
        }});
        let mut leaves = Leaves::default();
        function_facts(
            "NIC.Slot.3-1-1",
            &current,
            None,
            &mut leaves,
            &mut Vec::new(),
        );
        let mut pending = Leaves::default();
        function_facts(
            "NIC.Slot.3-1-1",
            &serde_json::json!({"Attributes": {"Broadcom_DCBX": "Enabled_IEEE", "MTU": 9000}}),
            None,
            &mut pending,
            &mut Vec::new(),
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
        assert_eq!(get("lldp/nic_agent").as_deref(), Some("false"));
        assert_eq!(
            get("firmware/hii/FamilyVersion").as_deref(),
            Some("\"21.80.16.95\"")
        );
        assert_eq!(get("hii/FamilyVersion"), None);
        for raw in ["Broadcom_DCBX", "RDMAProtocolSupport", "VirtualizationMode"] {
            assert_eq!(
                get(&format!("hii/{raw}")),
                None,
                "{raw} is mapped: stored once"
            );
        }
    }

    #[test]
    fn a_placeholder_attribute_is_no_setting_even_when_mapped_and_is_counted() {
        let attributes = serde_json::json!({"Attributes": {
            "Broadcom_DCBX": "N/A", "LnkSpeed": "NA", "MTU": "", "FCoEBootSupport": "Unavailable"
        }});
        let mut leaves = Leaves::default();
        function_facts(
            "NIC.Slot.3-1-1",
            &attributes,
            None,
            &mut leaves,
            &mut Vec::new(),
        );
        assert_eq!(leaves.get("dcbx_mode"), None);
        assert_eq!(leaves.get("hii/Broadcom_DCBX"), None);
        assert_eq!(
            leaves.iter().collect::<Vec<_>>(),
            [("hii/capability/dcb/FCoEBootSupport", &"Unavailable".into())],
            "Unavailable is what the NIC cannot do, a value"
        );
        assert_eq!(
            leaves.placeholders(),
            ["hii/Broadcom_DCBX", "hii/LnkSpeed", "hii/MTU"]
        );
    }

    #[test]
    fn a_staged_version_is_no_fact() {
        let mut leaves = Leaves::default();
        let current = serde_json::json!({"Attributes": {"FamilyVersion": "21.80.16.95"}});
        function_facts(
            "NIC.Slot.3-1-1",
            &current,
            None,
            &mut leaves,
            &mut Vec::new(),
        );
        let mut pending = Leaves::default();
        let staged = serde_json::json!({"Attributes": {"FamilyVersion": "21.60.22.11"}});
        function_facts(
            "NIC.Slot.3-1-1",
            &staged,
            None,
            &mut pending,
            &mut Vec::new(),
        );
        leaves.add_pending(&pending);
        assert_eq!(
            leaves.iter().map(|(leaf, _)| leaf).collect::<Vec<_>>(),
            ["firmware/hii/FamilyVersion"]
        );
    }

    #[test]
    fn lldp_port_n_is_the_agent_of_port_n_only_and_a_boolean() {
        let attributes = serde_json::json!({"Attributes": {
            "LldpPort1": "Enabled", "LldpPort2": "Disabled"
        }});
        let of = |function: &str| {
            let mut leaves = Leaves::default();
            function_facts(function, &attributes, None, &mut leaves, &mut Vec::new());
            leaves
        };
        let two = of("NIC.Slot.7-2-1");
        assert_eq!(two.get("lldp/nic_agent"), Some(&false.into()), "{two:?}");
        assert_eq!(two.iter().count(), 1, "one leaf, no sub-tree: {two:?}");
        let one = of("NIC.Slot.7-1");
        assert_eq!(one.get("lldp/nic_agent"), Some(&true.into()), "{one:?}");
        assert!(
            one.iter()
                .all(|(leaf, _)| !leaf.starts_with("lldp/nic_agent/")),
            "{one:?}"
        );
        // Outside Enabled/Disabled: not normalized (the shape check reports it), kept raw as
        // the LLDP setting it is: one that blocks when it changes.
        let mut odd = Leaves::default();
        function_facts(
            "NIC.Slot.7-1-1",
            &serde_json::json!({"Attributes": {"LldpPort1": "Auto"}}),
            None,
            &mut odd,
            &mut Vec::new(),
        );
        assert_eq!(odd.get("lldp/nic_agent"), None);
        assert_eq!(odd.get("hii/dcb/LldpPort1"), Some(&"Auto".into()));
    }

    #[test]
    fn attributes_not_mapped_go_where_their_registry_entry_says() {
        // Entries as iDRAC 9 serves them (tests/fixtures/public/redfish/libredfish-dell), and one
        // of a spelling no vendor module knows.
        let registry = serde_json::json!({"RegistryEntries": {"Attributes": [
            {"AttributeName": "Broadcom_NCSI", "DisplayName": "APE FW", "ReadOnly": true, "Type": "String"},
            {"AttributeName": "LinkStatus", "DisplayName": "Link Status", "ReadOnly": true, "Type": "Enumeration"},
            {"AttributeName": "DCBXSupport", "DisplayName": "DCBX Support", "ReadOnly": true, "Type": "String"},
            {"AttributeName": "Broadcom_DCBX", "DisplayName": "DCBX Mode", "ReadOnly": false, "Type": "Enumeration"},
            {"AttributeName": "Vendor_QosAgentMode", "DisplayName": "DCBX Protocol", "ReadOnly": false, "Type": "Enumeration"},
            {"AttributeName": "IpVersion", "DisplayName": "IP Version", "ReadOnly": false, "Type": "Enumeration"}
        ]}});
        let registry = Registry::new(registry, false);
        let attributes = serde_json::json!({
            "@odata.id": "/redfish/v1/Chassis/System.Embedded.1/NetworkAdapters/NIC.Slot.4/NetworkDeviceFunctions/NIC.Slot.4-1-1/Oem/Dell/DellNetworkAttributes/NIC.Slot.4-1-1",
            "Attributes": {
                "Broadcom_NCSI": "218.0.169.2", "LinkStatus": "Connected", "DCBXSupport": "Available",
                "Broadcom_DCBX": "Enabled_IEEE", "Vendor_QosAgentMode": "IEEE", "IpVersion": "IPv4"
            }
        });
        let (mut leaves, mut notes) = (Leaves::default(), Vec::new());
        function_facts(
            "NIC.Slot.4-1-1",
            &attributes,
            Some(&registry),
            &mut leaves,
            &mut notes,
        );
        let all: Vec<(&str, String)> = leaves.iter().map(|(l, v)| (l, v.to_string())).collect();
        assert_eq!(
            all,
            [
                ("dcbx_mode", "\"ieee\"".to_owned()),
                ("firmware/hii/Broadcom_NCSI", "\"218.0.169.2\"".to_owned()),
                ("hii/IpVersion", "\"IPv4\"".to_owned()),
                ("hii/capability/dcb/DCBXSupport", "\"Available\"".to_owned()),
                ("hii/dcb/Vendor_QosAgentMode", "\"IEEE\"".to_owned()),
                ("hii/status/LinkStatus", "\"Connected\"".to_owned()),
            ]
        );
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(
            notes[0].starts_with("/redfish/v1/Chassis/System.Embedded.1/NetworkAdapters/NIC.Slot.4/NetworkDeviceFunctions/NIC.Slot.4-1-1/Oem/Dell/DellNetworkAttributes/NIC.Slot.4-1-1: Attributes/Vendor_QosAgentMode is judged a DCB setting because its registry DisplayName \"DCBX Protocol\" says DCBX")
                && notes[0].contains("please report"),
            "{notes:?}"
        );
    }
}
