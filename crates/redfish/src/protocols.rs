//! Lists of protocols → what they say about RDMA, one reading for the standard
//! `Ethernet.AdditionalProtocols` of a network device function and the vendors' own lists
//! (HPE's `RDMASupport`), so a protocol reads the same from every vendor.
//!
//! Such a list says which protocols a device *supports*. NetworkDeviceFunction v1.10.0 added
//! `Ethernet.AdditionalProtocols`, read-only, which "shall contain the list of protocols
//! supported by the hardware or firmware on the device" — not which ones run: the fact it
//! gives is `rdma_protocol`, the RDMA protocol(s) supported, the same as Dell's
//! `RDMAProtocolSupport` and HPE's `RDMASupport`. What it says about RDMA being on is only
//! the negative: a device whose list names no RDMA protocol cannot be running one.

use serde_json::Value;

use driftgate_model::RdmaProtocol;

/// The RDMA protocols a list names, distinct and sorted by their fact spelling; empty when it
/// names none (`["TCP"]`, `[]`, HPE's `["None"]`). `None` when the value says nothing: absent,
/// `null`, not an array (a shape problem the shape check reports), or an array without a
/// single string.
pub(crate) fn rdma_protocols(list: &Value) -> Option<Vec<RdmaProtocol>> {
    let names: Vec<&str> = list.as_array()?.iter().filter_map(Value::as_str).collect();
    if names.is_empty() && !list.as_array().is_some_and(Vec::is_empty) {
        return None;
    }
    let parsed: Vec<RdmaProtocol> = names.into_iter().map(RdmaProtocol::parse).collect();
    // InfiniBand is RDMA by nature but no RDMA over Ethernet: it needs no DCBX or PFC, and
    // the checks of RoCE over DCB read `rdma_protocol`. `function_type` and
    // `link_technology` say InfiniBand; a list naming only it says nothing here.
    let infiniband = parsed.contains(&RdmaProtocol::InfiniBand);
    let mut protocols: Vec<RdmaProtocol> = parsed
        .into_iter()
        .filter(|p| p.is_rdma() && *p != RdmaProtocol::InfiniBand)
        .collect();
    if infiniband && protocols.is_empty() {
        return None;
    }
    protocols.sort_by(|a, b| a.as_str().cmp(b.as_str()));
    protocols.dedup();
    Some(protocols)
}

/// The `rdma_protocol` fact of the protocols a list names: `none` for none, the protocol for
/// one, and for several their spellings joined by `+` in sorted order (`roce+rocev2`), so
/// the fact does not depend on the order the service lists them in.
pub(crate) fn rdma_protocol_fact(protocols: &[RdmaProtocol]) -> String {
    if protocols.is_empty() {
        return RdmaProtocol::None.as_str().to_owned();
    }
    protocols
        .iter()
        .map(RdmaProtocol::as_str)
        .collect::<Vec<_>>()
        .join("+")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_list_names_its_rdma_protocols_in_one_order_and_says_nothing_when_broken() {
        for (list, fact) in [
            // The DMTF Protocol values, one by one.
            (json!(["RoCE"]), Some("roce")),
            (json!(["RoCEv2"]), Some("rocev2")),
            (json!(["iWARP"]), Some("iwarp")),
            // InfiniBand is said by the function's type and link technology, not here.
            (json!(["InfiniBand"]), None),
            (json!(["InfiniBand", "RoCEv2"]), Some("rocev2")),
            // A list that says RDMA without naming the protocol.
            (json!(["RDMA"]), Some("rdma")),
            (json!(["rdma", "TCP"]), Some("rdma")),
            // Beside protocols that are not RDMA, in any order, repeated.
            (json!(["TCP", "RoCEv2", "UDP"]), Some("rocev2")),
            (json!(["RoCEv2", "RoCE", "RoCEv2"]), Some("roce+rocev2")),
            (json!(["RoCE", "RoCEv2"]), Some("roce+rocev2")),
            // An unknown spelling that names RDMA is kept verbatim.
            (
                json!(["RDMA over Converged Ethernet"]),
                Some("RDMA over Converged Ethernet"),
            ),
            // A list without an RDMA protocol: none (HPE's RDMASupport says "None").
            (json!(["TCP", "UDP"]), Some("none")),
            (json!(["None"]), Some("none")),
            (json!(["None", "RoCE"]), Some("roce")),
            (json!([]), Some("none")),
            (json!(["UET"]), Some("none")),
            // Members that are not strings are no protocols.
            (json!([null, "RoCEv2", 2]), Some("rocev2")),
            (json!([{"Name": "RoCEv2"}, "TCP"]), Some("none")),
            // Says nothing: absent, null, not an array, no string at all.
            (Value::Null, None),
            (json!("RoCEv2"), None),
            (json!({"RoCEv2": true}), None),
            (json!(true), None),
            (json!([null]), None),
            (json!([1, 2]), None),
        ] {
            let read = rdma_protocols(&list).map(|p| rdma_protocol_fact(&p));
            assert_eq!(read.as_deref(), fact, "{list}");
        }
    }
}
