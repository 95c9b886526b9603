//! The OEM properties of a network adapter, port or device function that no vendor module
//! reads, of any vendor: each scalar under `Oem.<Vendor>` (nested objects by path,
//! `Oem.Acme.NicConfig.LldpAgentEnabled`) is classified by the words of its path with the one
//! vocabulary that classifies HII attributes ([`crate::attributes`]), and kept in the
//! home of its class under `oem/`: `oem/<Vendor>/<path>`, `oem/dcb/…`, `oem/status/…`,
//! `oem/capability/…`, `oem/capability/dcb/…`, `firmware/oem/…`. A vendor never seen before
//! whose NIC firmware turns its own LLDP agent back on is judged like one driftgate knows.
//!
//! What a vendor module reads is left to it: the properties its `check_*` list names (and
//! everything below them) are skipped. So is an object that names a resource of its own
//! (`@odata.id`: iDRAC's embedded `DellNICPortMetrics`, whose counters are no settings) and
//! every array and annotation.

use serde_json::{Map, Value};

use super::{
    Kind, Leaves, Vendor, check_adapter, check_function, check_function_attributes, check_port,
};
use crate::attributes::{Class, Recognised, Registry, classify, with_value};
use driftgate_snapshot::path_segment;

/// The resource whose OEM block is read: which vendor module's list says what it reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum OemOf {
    /// A `NetworkAdapter` (or its pending settings): facts of each of its ports.
    Adapter,
    /// A `Port` or `NetworkPort` (or its pending settings).
    Port,
    /// A `NetworkDeviceFunction` (or its pending settings).
    Function,
}

/// The OEM properties of `resource` (an [`OemOf`]) that the `vendor`'s module does not read,
/// each under the home of its class; a DCB setting recognised by its words is told in `notes`
/// (once, however many ports share the resource).
pub(crate) fn oem_facts(
    vendor: Vendor,
    of: OemOf,
    resource: &Value,
    leaves: &mut Leaves,
    notes: &mut Vec<String>,
) {
    let Some(oem) = resource["Oem"].as_object() else {
        return;
    };
    let read = read_by_module(vendor, of);
    let uri = resource["@odata.id"].as_str().unwrap_or("");
    let mut found = Vec::new();
    for (owner, block) in oem {
        if let Some(block) = block.as_object().filter(|block| !names_resource(block)) {
            walk(block, &mut vec![owner.as_str()], &read, &mut found);
        }
    }
    for (path, value) in found {
        // The owner (`Acme`) names who made it, not what it is.
        let words = path[1..].join(" ");
        let class = with_value(classify(&words, None), &words, None, value);
        let segments: Vec<String> = path.iter().map(|s| path_segment(s)).collect();
        let joined = segments.join("/");
        if let Class::Dcb(recognised) = class {
            let note = unknown_oem_dcb_note(uri, &path.join("/"), &recognised);
            if !notes.contains(&note) {
                notes.push(note);
            }
        }
        leaves.set_scalar(&class.oem_leaf(&joined), value);
    }
}

/// `oem` (a resource's `Oem` object) without what [`oem_facts`] never reads (objects naming a
/// resource of their own, arrays, annotations): what a crawl keeps of a resource it holds.
/// Dell's embedded port counters and capabilities are most of a function (4.6 of 7 KB).
pub(crate) fn keep_read(oem: &mut Value) {
    fn trim(object: &mut Map<String, Value>) {
        object.retain(|name, value| match value {
            _ if name.contains('@') => false,
            Value::Object(inner) if names_resource(inner) => false,
            Value::Object(inner) => {
                trim(inner);
                true
            }
            Value::Array(_) => false,
            _ => true,
        });
    }
    if let Value::Object(blocks) = oem {
        blocks.retain(|_, block| !block.as_object().is_some_and(names_resource));
        blocks.values_mut().for_each(|block| {
            if let Value::Object(block) = block {
                trim(block);
            }
        });
    }
}

/// Every scalar below `object`, whose path from `Oem` is `path`, that no path in `read` covers.
fn walk<'v>(
    object: &'v Map<String, Value>,
    path: &mut Vec<&'v str>,
    read: &[Vec<String>],
    found: &mut Vec<(Vec<&'v str>, &'v Value)>,
) {
    let secrets = Registry::filter_of(None);
    for (name, value) in object {
        // `@odata.type`, `Prop@Redfish.AllowableValues`: about the property, not one.
        if name.contains('@') || secrets.is_secret(name, value) {
            continue;
        }
        path.push(name);
        let covered = read.iter().any(|read| {
            read.len() <= path.len() && read.iter().zip(path.iter()).all(|(r, p)| r == p)
        });
        match value {
            _ if covered => {}
            Value::Object(inner) if !names_resource(inner) => walk(inner, path, read, found),
            Value::Object(_) | Value::Array(_) | Value::Null => {}
            scalar => found.push((path.clone(), scalar)),
        }
        path.pop();
    }
}

/// Whether an object is a resource (or a link to one) of its own: its properties are that
/// resource's, not this one's.
fn names_resource(object: &Map<String, Value>) -> bool {
    object.contains_key("@odata.id")
}

/// The OEM properties `vendor`'s module reads of a resource `of`, below `Oem` (`Hpe`,
/// `Controllers`, …): what its `check_*` list names.
fn read_by_module(vendor: Vendor, of: OemOf) -> Vec<Vec<String>> {
    let mut read = Vec::new();
    let mut note = |path: &[&str], _: Kind| {
        if let Some(("Oem", rest)) = path.split_first().map(|(first, rest)| (*first, rest)) {
            read.push(rest.iter().map(|s| (*s).to_owned()).collect());
        }
    };
    match of {
        OemOf::Adapter => check_adapter(vendor, &mut note),
        OemOf::Port => check_port(vendor, &mut note),
        OemOf::Function => {
            check_function(vendor, &mut note);
            check_function_attributes(vendor, &mut note);
        }
    }
    read
}

/// The note of an OEM property (`path` below `Oem`, of the resource `uri`) recognised as a DCB
/// setting by its words: it blocks when it changes, and its vendor's spelling is worth
/// reporting.
fn unknown_oem_dcb_note(uri: &str, path: &str, recognised: &Recognised<'_>) -> String {
    format!(
        "{uri}: Oem/{path} is judged a DCB setting because {recognised}: driftgate does not \
         read this vendor property, so a change of it blocks (rule `bmc-oem-dcb`); please \
         report the property so that it can be normalized"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn facts(vendor: Vendor, of: OemOf, resource: &Value) -> (Vec<(String, String)>, Vec<String>) {
        let (mut leaves, mut notes) = (Leaves::default(), Vec::new());
        oem_facts(vendor, of, resource, &mut leaves, &mut notes);
        let all = leaves
            .iter()
            .map(|(leaf, value)| (leaf.to_owned(), value.to_string()))
            .collect();
        (all, notes)
    }

    #[test]
    fn an_unknown_vendor_s_properties_go_where_their_words_say() {
        let adapter = json!({
            "@odata.id": "/redfish/v1/Chassis/1/NetworkAdapters/A1",
            "Oem": {"Acme": {
                "@odata.type": "#AcmeNic.v1_0_0.AcmeNic",
                "NicConfig": {
                    "LldpAgentEnabled": false,
                    "Rocev2Enabled": true,
                    "BootRetries": 3,
                    "PriorityFlowControl": "Available",
                    "LinkStatus": "Up",
                    "FirmwareVersion": "1.2.3",
                    "AdminPassword": "hunter2",
                    "Priorities": [3],
                    "Unset": null
                },
                "Metrics": {"@odata.id": "/redfish/v1/Chassis/1/NetworkAdapters/A1/Oem/Acme/Metrics", "RxBytes": 1}
            }}
        });
        let (all, notes) = facts(Vendor::Generic, OemOf::Adapter, &adapter);
        let all: Vec<(&str, &str)> = all.iter().map(|(l, v)| (l.as_str(), v.as_str())).collect();
        assert_eq!(
            all,
            [
                ("firmware/oem/Acme/NicConfig/FirmwareVersion", "\"1.2.3\""),
                ("oem/Acme/NicConfig/BootRetries", "3"),
                (
                    "oem/capability/dcb/Acme/NicConfig/PriorityFlowControl",
                    "\"Available\""
                ),
                ("oem/dcb/Acme/NicConfig/LldpAgentEnabled", "false"),
                ("oem/dcb/Acme/NicConfig/Rocev2Enabled", "true"),
                ("oem/status/Acme/NicConfig/LinkStatus", "\"Up\""),
            ]
        );
        assert_eq!(notes.len(), 2, "{notes:?}");
        assert!(
            notes[0].starts_with(
                "/redfish/v1/Chassis/1/NetworkAdapters/A1: Oem/Acme/NicConfig/LldpAgentEnabled \
                 is judged a DCB setting because its name \"NicConfig LldpAgentEnabled\" says LLDP"
            ),
            "{notes:?}"
        );
    }

    #[test]
    fn what_a_vendor_module_reads_is_left_to_it() {
        let adapter = json!({"Oem": {
            "Nvidia": {"LLDP": {"TXMode": "All", "DCBXModeEnabled": true}, "FlowControlMode": "PFC"},
            "Hpe": {"Controllers": [{"RDMASupport": ["RoCEv2"]}]}
        }});
        let (all, _) = facts(Vendor::Nvidia, OemOf::Adapter, &adapter);
        assert_eq!(
            all,
            [(
                "oem/dcb/Nvidia/FlowControlMode".to_owned(),
                "\"PFC\"".to_owned()
            )]
        );
        // The same block on a service of another vendor is nobody's: read by meaning.
        let (all, _) = facts(Vendor::Generic, OemOf::Adapter, &adapter);
        assert!(
            all.iter()
                .any(|(leaf, _)| leaf == "oem/dcb/Nvidia/LLDP/DCBXModeEnabled"),
            "{all:?}"
        );
        let port = json!({"Oem": {"Lenovo": {"PhysicalPortMacAddress": "94:6d:ae:53:cb:9b"}}});
        assert!(facts(Vendor::Lenovo, OemOf::Port, &port).0.is_empty());
        // iLO's LLDP data is the HPE module's: the neighbour's identity is no DCB setting.
        let port = json!({"Oem": {"Hpe": {"LldpData": {"Receiving": {
            "ChassisId": "0c:42:a1:00:00:01", "Dcb": {"Version": "IEEE"}
        }}}}});
        assert!(facts(Vendor::Hpe, OemOf::Port, &port).0.is_empty());
    }
}
