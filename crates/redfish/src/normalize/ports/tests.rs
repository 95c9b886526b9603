use super::*;
use crate::crawl::Inventory;
use serde_json::json;

/// The leaves `read` makes of `resource`, as `leaf=value` lines.
fn standard_function_settings(function: &Value, leaves: &mut Leaves) {
    function_settings(function, Vendor::Generic, leaves, &mut Vec::new());
}

fn leaves_of(read: fn(&Value, &mut Leaves), resource: &Value) -> Vec<String> {
    let mut leaves = Leaves::default();
    read(resource, &mut leaves);
    leaves
        .iter()
        .map(|(leaf, value)| format!("{leaf}={value}"))
        .collect()
}

#[test]
fn a_function_s_protocol_list_says_which_rdma_it_supports_and_off_only_without_one() {
    for (ethernet, expected) in [
        // Each DMTF Protocol value that is RDMA, and the bare word.
        (
            json!({"AdditionalProtocols": ["RDMA"]}),
            &[r#"rdma_protocol="rdma""#][..],
        ),
        (
            json!({"AdditionalProtocols": ["RoCE"]}),
            &[r#"rdma_protocol="roce""#],
        ),
        (
            json!({"AdditionalProtocols": ["RoCEv2"]}),
            &[r#"rdma_protocol="rocev2""#],
        ),
        (
            json!({"AdditionalProtocols": ["iWARP"]}),
            &[r#"rdma_protocol="iwarp""#],
        ),
        // InfiniBand: said by `function_type` and `link_technology`, not as RDMA over DCB.
        (json!({"AdditionalProtocols": ["InfiniBand"]}), &[]),
        (
            json!({"AdditionalProtocols": ["TCP", "RoCEv2", "RoCE"]}),
            &[r#"rdma_protocol="roce+rocev2""#],
        ),
        // No RDMA protocol: off, whatever else is listed.
        (
            json!({"AdditionalProtocols": ["TCP", "UDP"]}),
            &["rdma_enabled=false", r#"rdma_protocol="none""#],
        ),
        (
            json!({"AdditionalProtocols": []}),
            &["rdma_enabled=false", r#"rdma_protocol="none""#],
        ),
        // Unknown spellings are kept; one that names RDMA is RDMA.
        (
            json!({"AdditionalProtocols": ["RDMA over Converged Ethernet v2"]}),
            &[r#"rdma_protocol="RDMA over Converged Ethernet v2""#],
        ),
        (
            json!({"AdditionalProtocols": ["UET"]}),
            &["rdma_enabled=false", r#"rdma_protocol="none""#],
        ),
        // Absent or broken: nothing (the shape check makes a mistyped list a problem).
        (json!({}), &[]),
        (json!({"AdditionalProtocols": null}), &[]),
        (json!({"AdditionalProtocols": "RoCEv2"}), &[]),
        (json!({"AdditionalProtocols": [null, 7]}), &[]),
        (
            json!({"AdditionalProtocols": [7, "RoCEv2"]}),
            &[r#"rdma_protocol="rocev2""#],
        ),
        (json!("not an object"), &[]),
    ] {
        let function = json!({"Ethernet": ethernet});
        assert_eq!(
            leaves_of(standard_function_settings, &function),
            expected,
            "{function}"
        );
    }
}

#[test]
fn a_function_s_type_is_its_configuration_and_its_capabilities_are_apart() {
    for (function, settings, capabilities) in [
        (
            json!({"NetDevFuncType": "Ethernet", "NetDevFuncCapabilities": ["Ethernet", "Disabled", "iSCSI"]}),
            &[r#"function_type="ethernet""#][..],
            &[r#"capabilities/function_types=["disabled", "ethernet", "iscsi"]"#][..],
        ),
        // InfiniBand is the function's technology; RDMA is not repeated from it.
        (
            json!({"NetDevFuncType": "InfiniBand", "NetDevFuncCapabilities": ["InfiniBand"]}),
            &[r#"function_type="infiniband""#],
            &[r#"capabilities/function_types=["infiniband"]"#],
        ),
        (
            json!({"NetDevFuncType": "Disabled"}),
            &[r#"function_type="disabled""#],
            &[],
        ),
        (
            json!({"NetDevFuncType": "FibreChannelOverEthernet", "NetDevFuncCapabilities": []}),
            &[r#"function_type="fcoe""#],
            &["capabilities/function_types=[]"],
        ),
        // Unknown values kept; broken ones say nothing.
        (
            json!({"NetDevFuncType": "OEM", "NetDevFuncCapabilities": ["OEM", null, 3, "OEM"]}),
            &[r#"function_type="OEM""#],
            &[r#"capabilities/function_types=["OEM"]"#],
        ),
        (
            json!({"NetDevFuncType": null, "NetDevFuncCapabilities": "Ethernet"}),
            &[],
            &[],
        ),
        (json!({"NetDevFuncType": 1}), &[], &[]),
    ] {
        assert_eq!(
            leaves_of(standard_function_settings, &function),
            settings,
            "{function}"
        );
        assert_eq!(
            leaves_of(function_capabilities, &function),
            capabilities,
            "{function}"
        );
    }
}

#[test]
fn a_port_s_link_technology_is_read_from_either_schema_generation() {
    let read = |port: &Value, leaves: &mut Leaves| {
        port_settings(port, Vendor::Generic, leaves, &mut Vec::new())
    };
    for (port, expected) in [
        (
            json!({"LinkNetworkTechnology": "InfiniBand"}),
            Some("infiniband"),
        ),
        (
            json!({"ActiveLinkTechnology": "Ethernet"}),
            Some("ethernet"),
        ),
        (
            json!({"LinkNetworkTechnology": "FibreChannel", "ActiveLinkTechnology": "Ethernet"}),
            Some("fibre_channel"),
        ),
        (json!({"LinkNetworkTechnology": "UALink"}), Some("UALink")),
        (json!({"LinkNetworkTechnology": ["Ethernet"]}), None),
        (json!({}), None),
    ] {
        let mut leaves = Leaves::default();
        read(&port, &mut leaves);
        assert_eq!(
            leaves.get("link_technology").and_then(FactValue::as_text),
            expected,
            "{port}"
        );
    }
}

/// An adapter whose members are all numbered, as iLO and OpenBMC number them: ports with a
/// `PortId`, functions with a MAC, the adapter with a location.
fn numbered(adapter: u32, ports: [u32; 2], functions: [u32; 2]) -> Inventory {
    let uri = format!("/redfish/v1/Chassis/1/NetworkAdapters/{adapter}");
    let port = |id: u32, hardware: u32| {
        json!({"@odata.id": format!("{uri}/Ports/{id}"), "Id": id.to_string(),
            "PortId": hardware.to_string(), "LinkNetworkTechnology": "Ethernet",
            "Ethernet": {"FlowControlConfiguration": "TX_RX"}})
    };
    let function = |id: u32, port: u32, mac: &str| FunctionInventory {
        function: json!({"@odata.id": format!("{uri}/NetworkDeviceFunctions/{id}"),
            "Id": id.to_string(), "NetDevFuncType": "Ethernet",
            "Ethernet": {"PermanentMACAddress": mac, "AdditionalProtocols": ["RoCEv2"]},
            "Links": {"PhysicalNetworkPortAssignment": {"@odata.id": format!("{uri}/Ports/{port}")}}}),
        ..FunctionInventory::default()
    };
    Inventory {
        root: json!({}),
        adapters: vec![AdapterInventory {
            adapter: json!({"@odata.id": uri, "Id": adapter.to_string(),
                "Location": {"PartLocation": {"ServiceLabel": "PCI-E Slot 4"}}}),
            ports: vec![port(ports[0], 1), port(ports[1], 2)],
            functions: vec![
                function(functions[0], ports[0], "02:00:00:00:04:01"),
                function(functions[1], ports[1], "02:00:00:00:04:02"),
            ],
            ..AdapterInventory::default()
        }],
        ..Inventory::default()
    }
}

#[test]
fn numbered_members_are_named_by_their_hardware_so_a_renumbering_changes_no_fact() {
    let before = super::super::normalize(&numbered(1, [1, 2], [1, 2]));
    // The BMC renumbered everything, and lists it the other way round.
    let mut renumbered = numbered(7, [4, 3], [9, 8]);
    let adapter = &mut renumbered.adapters[0];
    adapter.ports.reverse();
    adapter.functions.reverse();
    let after = super::super::normalize(&renumbered);
    assert_eq!(before.facts, after.facts);
    assert!(before.problems.is_empty(), "{:?}", before.problems);
    let facts: Vec<String> = before
        .facts
        .iter()
        .map(|(path, value)| format!("{path}={value}"))
        .collect();
    let port = "nic/02:00:00:00:04:01/bmc";
    for fact in [
        format!(r#"{port}/adapter="PCI-E Slot 4""#),
        format!(r#"{port}/port="1""#),
        format!(r#"{port}/link_technology="ethernet""#),
        format!(r#"{port}/function/02:00:00:00:04:01/function_type="ethernet""#),
        format!(r#"{port}/function/02:00:00:00:04:01/rdma_protocol="rocev2""#),
        format!(r#"{port}/function/02:00:00:00:04:01/mac="02:00:00:00:04:01""#),
    ] {
        assert!(facts.contains(&fact), "{fact}: {facts:#?}");
    }
}

#[test]
fn numbered_functions_the_hardware_names_alike_keep_their_numbers_and_a_placeholder_names_nothing()
{
    // Two functions on one port that report one MAC (an offload function beside the NIC
    // function): one name would merge their facts.
    let mut inventory = numbered(1, [1, 2], [1, 2]);
    let adapter = &mut inventory.adapters[0];
    adapter.adapter["Location"]["PartLocation"]["ServiceLabel"] = json!("N/A");
    adapter.adapter["SerialNumber"] = json!("Unknown");
    let mut offload = adapter.functions[0].clone();
    offload.function["@odata.id"] =
        json!("/redfish/v1/Chassis/1/NetworkAdapters/1/NetworkDeviceFunctions/3");
    offload.function["Id"] = json!("3");
    offload.function["NetDevFuncType"] = json!("iSCSI");
    adapter.functions.push(offload);
    let out = super::super::normalize(&inventory);
    let port = "nic/02:00:00:00:04:01/bmc";
    let get = |path: &str| out.facts.get(path).map(ToString::to_string);
    assert_eq!(
        get(&format!("{port}/function/1/function_type")).as_deref(),
        Some("\"ethernet\"")
    );
    assert_eq!(
        get(&format!("{port}/function/3/function_type")).as_deref(),
        Some("\"iscsi\"")
    );
    assert_eq!(
        get(&format!("{port}/function/02:00:00:00:04:01/function_type")),
        None
    );
    // `"N/A"` and `"Unknown"` name no adapter: no `adapter` fact rather than a placeholder.
    assert_eq!(get(&format!("{port}/adapter")), None);
}
