//! Which blocking findings a plan answers, what each fact's known-good value is, and which
//! layer owns it: pure, from a judged report.

use std::collections::BTreeMap;

use driftgate_compare::{Finding, FindingKind, Report, Severity};
use driftgate_snapshot::{FactPath, FactValue};

use super::model::{Layer, Unfixable};

/// A fact a plan must bring to its known-good value.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Wanted {
    /// The fact.
    pub fact: FactPath,
    /// Its value now.
    pub from: Option<FactValue>,
    /// Its known-good value.
    pub to: FactValue,
    /// Where that comes from.
    pub known_good: String,
    /// Its findings' ids.
    pub findings: Vec<String>,
}

/// Who owns a fact, or why no one can set it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Owner {
    /// A setting of this layer.
    Setting(Layer),
    /// What the OS negotiated or runs with: follows from a setting.
    Effect,
    /// Not set by anyone.
    Unfixable(Unfixable),
}

/// The value an invariant holds a fact to, when it names one.
fn invariant_value(id: &str) -> Option<FactValue> {
    match id {
        // An RDMA port's DCBX in the NIC firmware: IEEE is what Windows' DCB and every
        // switch vendor's RoCE guide pair with it.
        "bmc-dcbx-disabled-with-rdma" => Some(FactValue::from("ieee")),
        // The same port with RDMA switched off (a warning, blocking under --strict): IEEE
        // DCBX first is what makes enabling RDMA later safe.
        "bmc-dcbx-disabled-rdma-off" => Some(FactValue::from("ieee")),
        // MSCS shared disks before ESXi 5.5: Most Recently Used (VMware KB 1010041).
        "psp-rr-on-reserved-device" => Some(FactValue::from("VMW_PSP_MRU")),
        _ => None,
    }
}

/// The findings that block `report` (warnings too when it was judged `--strict`), grouped
/// by fact.
pub(crate) fn blocking(report: &Report) -> Vec<(FactPath, Vec<&Finding>)> {
    let mut by_fact: BTreeMap<&str, (FactPath, Vec<&Finding>)> = BTreeMap::new();
    for finding in report.findings.iter().filter(|f| blocks(report, f)) {
        by_fact
            .entry(finding.path.as_str())
            .or_insert_with(|| (finding.path.clone(), Vec::new()))
            .1
            .push(finding);
    }
    by_fact.into_values().collect()
}

/// Whether `finding` makes `report` block.
pub(crate) fn blocks(report: &Report, finding: &Finding) -> bool {
    finding.severity == Severity::Block || (report.strict && finding.severity == Severity::Warn)
}

/// The known-good value of a fact from its findings, and where it comes from.
pub(crate) fn known_good(findings: &[&Finding]) -> Option<(FactValue, String)> {
    findings
        .iter()
        .find_map(|f| {
            f.expected
                .clone()
                .map(|v| (v, format!("policy rule {}", f.id)))
        })
        .or_else(|| {
            findings.iter().find_map(|f| match f.kind {
                FindingKind::Changed | FindingKind::Removed => {
                    f.old.clone().map(|v| (v, "baseline".to_owned()))
                }
                _ => None,
            })
        })
        .or_else(|| {
            findings.iter().find_map(|f| {
                (f.kind == FindingKind::Invariant)
                    .then(|| invariant_value(&f.id))
                    .flatten()
                    .map(|v| (v, format!("invariant {}", f.id)))
            })
        })
}

/// Who owns `path`; `os` is the operating system the snapshot's OS facts come from.
pub(crate) fn owner(path: &str, os: Option<Layer>) -> Owner {
    let segments: Vec<&str> = path.split('/').collect();
    if segments.contains(&"pending") {
        return Owner::Unfixable(Unfixable::Pending);
    }
    if path.starts_with("firmware/")
        || segments.contains(&"firmware")
        || path.starts_with("host/esxi/")
    {
        return Owner::Unfixable(Unfixable::Firmware);
    }
    if let Some(rest) = path.strip_prefix("bios/") {
        return if rest.starts_with("status/") {
            Owner::Unfixable(Unfixable::Capability)
        } else {
            Owner::Setting(Layer::Bmc)
        };
    }
    if let Some(rest) = path.strip_prefix("storage/nmp/") {
        let leaf = rest.split_once('/').map_or("", |(_, leaf)| leaf);
        return match leaf {
            "psp" | "perennially_reserved" => Owner::Setting(Layer::Esxi),
            "working_paths" | "psp_config" => Owner::Effect,
            _ => Owner::Unfixable(Unfixable::Capability),
        };
    }
    if path.starts_with("host/qos/") {
        return match os {
            Some(layer @ Layer::Windows) => Owner::Setting(layer),
            _ => Owner::Unfixable(Unfixable::NoOwner),
        };
    }
    let Some(rest) = path.strip_prefix("nic/") else {
        return Owner::Unfixable(Unfixable::NoOwner);
    };
    let Some((_, leaf)) = rest.split_once('/') else {
        return Owner::Unfixable(Unfixable::NoOwner);
    };
    if leaf.starts_with("peer/") {
        return Owner::Unfixable(Unfixable::OtherEnd);
    }
    if let Some(bmc) = leaf.strip_prefix("bmc/") {
        return bmc_owner(bmc);
    }
    match leaf.strip_prefix("os/") {
        Some(os_leaf) => os_owner(os_leaf, os),
        None => Owner::Unfixable(Unfixable::NoOwner),
    }
}

/// Who owns `bmc` of a port's BMC facts (`nic/<key>/bmc/{bmc}`).
fn bmc_owner(bmc: &str) -> Owner {
    let bmc = bmc
        .strip_prefix("function/")
        .and_then(|f| f.split_once('/'))
        .map_or(bmc, |(_, leaf)| leaf);
    match bmc {
        "flow_control/status" => Owner::Effect,
        "dcb_capable" | "function_type" | "link_technology" | "mac" | "id" | "interface"
        | "adapter" | "port" => Owner::Unfixable(Unfixable::Capability),
        // What the NIC can do, or reports by itself: no setting gives it back.
        _ if [
            "capabilities/",
            "hii/status/",
            "hii/capability/",
            "oem/status/",
            "oem/capability/",
        ]
        .iter()
        .any(|read_only| bmc.starts_with(read_only)) =>
        {
            Owner::Unfixable(Unfixable::Capability)
        }
        // What the port learned from its neighbour (HPE's LLDP data, LLDPReceive).
        _ if bmc.starts_with("peer/") || bmc.starts_with("lldp/receive/") => {
            Owner::Unfixable(Unfixable::OtherEnd)
        }
        _ => Owner::Setting(Layer::Bmc),
    }
}

/// Who owns `os_leaf` of a port's OS facts (`nic/<key>/os/{os_leaf}`) on `os`.
fn os_owner(os_leaf: &str, os: Option<Layer>) -> Owner {
    let effect = [
        "dcbx_control",
        "dcbx_support/current",
        "flow_control/operational/",
        "num_tcs/current/",
        "traffic_class/operational/",
        "firmware_lldp/",
    ]
    .iter()
    .any(|p| os_leaf.starts_with(p))
        && !os_leaf.starts_with("firmware_lldp/next_boot/");
    if effect {
        return Owner::Effect;
    }
    let setting = match os {
        Some(Layer::Windows) => ["qos_enabled", "dcbx_willing", "rdma_enabled"].contains(&os_leaf),
        Some(Layer::Linux) => {
            os_leaf.starts_with("mlxconfig/")
                || os_leaf.starts_with("firmware_lldp/next_boot/")
                || os_leaf.starts_with("pause/")
                || os_leaf == "trust"
        }
        _ => false,
    };
    match os {
        Some(layer) if setting => Owner::Setting(layer),
        _ if os_leaf.starts_with("driver/") => Owner::Unfixable(Unfixable::Firmware),
        _ => Owner::Unfixable(Unfixable::Capability),
    }
}

/// The scope a fact belongs to, for matching effects to steps: `nic/<key>` or
/// `storage/nmp/<device>`, else the host.
pub(crate) fn scope(path: &str) -> &str {
    let mut parts = path.splitn(4, '/');
    match (parts.next(), parts.next(), parts.next()) {
        (Some("nic"), Some(key), _) => &path[..4 + key.len()],
        (Some("storage"), Some("nmp"), Some(device)) => &path[..12 + device.len()],
        _ => "host",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finding(kind: FindingKind, id: &str, old: Option<&str>, expected: Option<&str>) -> Finding {
        Finding {
            kind,
            id: id.into(),
            severity: Severity::Block,
            path: FactPath::new("storage/nmp/naa.1/psp").unwrap(),
            old: old.map(FactValue::from),
            new: Some(FactValue::from("VMW_PSP_RR")),
            expected: expected.map(FactValue::from),
            message: String::new(),
            why: String::new(),
            pending: false,
            firmware: Vec::new(),
            firmware_unknown: None,
            origin: None,
        }
    }

    #[test]
    fn the_known_good_value_is_the_rules_then_the_baselines_then_the_invariants() {
        let rule = finding(
            FindingKind::Expectation,
            "mscs",
            None,
            Some("VMW_PSP_FIXED"),
        );
        let drift = finding(FindingKind::Changed, "esxi-psp", Some("VMW_PSP_MRU"), None);
        let invariant = finding(
            FindingKind::Invariant,
            "psp-rr-on-reserved-device",
            None,
            None,
        );
        let added = finding(FindingKind::Added, "esxi-psp", None, None);
        let value =
            |findings: &[&Finding]| known_good(findings).map(|(v, from)| (v.to_string(), from));
        assert_eq!(
            value(&[&invariant, &drift, &rule]),
            Some(("\"VMW_PSP_FIXED\"".into(), "policy rule mscs".into()))
        );
        assert_eq!(
            value(&[&invariant, &drift]),
            Some(("\"VMW_PSP_MRU\"".into(), "baseline".into()))
        );
        assert_eq!(
            value(&[&invariant]),
            Some((
                "\"VMW_PSP_MRU\"".into(),
                "invariant psp-rr-on-reserved-device".into()
            ))
        );
        assert_eq!(value(&[&added]), None);
        // A port one setting away from RoCE without flow control (a warning, planned under
        // --strict) is brought to the DCBX an RDMA port needs.
        let rdma_off = finding(
            FindingKind::Invariant,
            "bmc-dcbx-disabled-rdma-off",
            None,
            None,
        );
        assert_eq!(
            value(&[&rdma_off]),
            Some((
                "\"ieee\"".into(),
                "invariant bmc-dcbx-disabled-rdma-off".into()
            ))
        );
    }

    #[test]
    fn owners_follow_the_fact_homes() {
        let win = Some(Layer::Windows);
        for (path, owner_is) in [
            (
                "nic/00:0a:f7:12:34:56/bmc/function/NIC.Slot.3-1-1/dcbx_mode",
                Owner::Setting(Layer::Bmc),
            ),
            (
                "nic/00:0a:f7:12:34:56/bmc/function/NIC.Slot.3-1-1/pending/dcbx_mode",
                Owner::Unfixable(Unfixable::Pending),
            ),
            (
                "nic/00:0a:f7:12:34:56/bmc/firmware/version",
                Owner::Unfixable(Unfixable::Firmware),
            ),
            (
                "nic/00:0a:f7:12:34:56/bmc/dcb_capable",
                Owner::Unfixable(Unfixable::Capability),
            ),
            (
                "nic/00:0a:f7:12:34:56/bmc/function/NIC.Slot.3-1-1/hii/capability/dcb/DCBXSupport",
                Owner::Unfixable(Unfixable::Capability),
            ),
            (
                "nic/02:ac:3e:00:00:01/bmc/oem/capability/dcb/Acme/NicConfig/PriorityFlowControl",
                Owner::Unfixable(Unfixable::Capability),
            ),
            (
                "nic/02:ac:3e:00:00:01/bmc/oem/dcb/Acme/NicConfig/LldpAgentEnabled",
                Owner::Setting(Layer::Bmc),
            ),
            (
                "nic/00:0a:f7:12:34:56/os/dcbx_support/current",
                Owner::Effect,
            ),
            (
                "nic/00:0a:f7:12:34:56/os/dcbx_support/hardware",
                Owner::Unfixable(Unfixable::Capability),
            ),
            (
                "nic/00:0a:f7:12:34:56/os/qos_enabled",
                Owner::Setting(Layer::Windows),
            ),
            (
                "nic/00:0a:f7:12:34:56/peer/pfc/enabled",
                Owner::Unfixable(Unfixable::OtherEnd),
            ),
            (
                "nic/00:0a:f7:12:34:56/bmc/lldp/receive/SystemName",
                Owner::Unfixable(Unfixable::OtherEnd),
            ),
            (
                "host/qos/flow_control/priority/3",
                Owner::Setting(Layer::Windows),
            ),
            ("storage/nmp/naa.6005/psp", Owner::Setting(Layer::Esxi)),
            ("host/esxi/version", Owner::Unfixable(Unfixable::Firmware)),
            ("bios/SriovGlobalEnable", Owner::Setting(Layer::Bmc)),
            ("bios/status/Temp", Owner::Unfixable(Unfixable::Capability)),
        ] {
            assert_eq!(owner(path, win), owner_is, "{path}");
        }
        assert_eq!(
            owner("nic/k/os/mlxconfig/DCBX_IEEE_P1", Some(Layer::Linux)),
            Owner::Setting(Layer::Linux)
        );
        assert_eq!(
            owner("host/qos/dcbx_willing", Some(Layer::Linux)),
            Owner::Unfixable(Unfixable::NoOwner)
        );
        assert_eq!(scope("nic/00:0a/os/x/y"), "nic/00:0a");
        assert_eq!(scope("storage/nmp/naa.1/psp"), "storage/nmp/naa.1");
        assert_eq!(scope("host/qos/x"), "host");
    }
}
