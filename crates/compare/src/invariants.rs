//! Invariants: cross-fact checks that need no baseline.
//!
//! They read only normalized facts, so they hold whichever source produced them (Redfish,
//! PowerShell, a pasted ticket, `esxcli`). Each has an id, a default severity the policy can
//! change, and a message that names the cause.

use super::severity::Severity;
use driftgate_model::{DcbxSupport, PathSelectionPolicy, PathSelectionScheme, Version};
use driftgate_snapshot::{FactValue, Facts, path_segment};
use reading::{Port, children, children_segments, ports, violation};

pub use reading::Violation;

/// One built-in cross-fact check.
#[derive(Debug)]
pub struct Invariant {
    /// Id used in policies and findings.
    pub id: &'static str,
    /// Severity unless the policy sets another.
    pub default_severity: Severity,
    /// One line on what it checks.
    pub summary: &'static str,
    /// Why it matters, shown with each finding.
    pub why: &'static str,
    check: fn(&Facts) -> Vec<Violation>,
}

impl Invariant {
    /// Runs the check over a snapshot's facts.
    pub fn check(&self, facts: &Facts) -> Vec<Violation> {
        (self.check)(facts)
    }
}

/// Every built-in invariant.
pub static INVARIANTS: &[Invariant] = &[
    Invariant {
        id: "pfc-not-operational",
        default_severity: Severity::Block,
        summary: "The OS configures PFC on a priority (or, its PFC not captured, runs RDMA on the adapter), and a QoS-enabled adapter shows it is not applying it: current NumTCs 0/0/0, operational flow control off or not reported on that priority, or a single traffic class where the host configures several. DcbxSupport None alone is not a cause.",
        why: "The adapter ignores the OS DCB configuration, so RDMA storage traffic runs without lossless flow control while RDMA and SMB Direct still look healthy; the usual cause is the NIC's DCBX mode reset in its firmware (HII/BIOS).",
        check: pfc_not_operational,
    },
    Invariant {
        id: "dcbx-capability-lost",
        default_severity: Severity::Block,
        summary: "An adapter's hardware supports IEEE or CEE DCBX but its current DCBX support is None.",
        why: "DCBX is switched off in the NIC's own settings, the state a firmware update that resets it leaves: the switch can no longer confirm the port's PFC and ETS over DCBX, and on many NICs DCB from the host is then not applied; re-enable IEEE DCBX in the NIC firmware (HII/BIOS).",
        check: dcbx_capability_lost,
    },
    Invariant {
        id: "bmc-dcbx-disabled-with-rdma",
        default_severity: Severity::Block,
        summary: "The BMC/HII DCBX mode of a port, or of one of its functions (which inherits what it does not report from its port), is disabled while RDMA is in use on it: its RDMA enable flag is true, or it reports an RDMA protocol and no enable flag, or the OS runs RDMA on the port.",
        why: "RoCE needs PFC; with DCBX disabled in the NIC firmware the port does not enforce the host's DCB/PFC configuration.",
        check: bmc_rdma::with_rdma,
    },
    Invariant {
        id: "psp-rr-on-reserved-device",
        default_severity: Severity::Block,
        summary: "A perennially-reserved (MSCS shared RDM) device uses VMW_PSP_RR on ESXi older than 5.5.",
        why: "Before ESXi 5.5, Round Robin is unsupported for MSCS: SCSI-3 reservations are bound to one path, so rotating paths causes NMP failovers with I/O blocked and disk latency of tens of seconds. Set VMW_PSP_MRU.",
        check: psp_rr_on_reserved_device,
    },
    Invariant {
        id: "pfc-priority-mismatch",
        default_severity: Severity::Block,
        summary: "The host configures PFC on a priority, but an RDMA adapter's operational flow control on it is off (or QoS is disabled on the adapter, or the adapter reports no DCB at all).",
        why: "RDMA storage traffic on that priority travels without pause frames: under congestion it drops, and RoCE recovers slowly.",
        check: pfc_priority_mismatch,
    },
    Invariant {
        id: "dcbx-willing",
        default_severity: Severity::Block,
        summary: "DCBX Willing is on for the host or an adapter (Validate-DCB expects it off).",
        why: "A willing host accepts the switch's DCB settings over its own, so a switch change silently rewrites PFC and ETS on the hosts.",
        check: dcbx_willing,
    },
    Invariant {
        id: "firmware-lldp-agent-active",
        default_severity: Severity::Block,
        summary: "The NIC firmware's own LLDP/DCBX agent is active while the host runs DCB in non-willing mode.",
        why: "Two DCBX agents on one port compete: the firmware's (re-enabled by many Mellanox/NVIDIA firmware updates) overrides the host's PFC/ETS. Disable it (mlxconfig LLDP_NB_DCBX_P<n>=0) or let the host manage DCB only.",
        check: firmware_lldp_agent_active,
    },
    Invariant {
        id: "psp-differs-from-satp-default",
        default_severity: Severity::Info,
        summary: "A device's path selection policy differs from the default its SATP claim rules give it.",
        why: "A rescan, upgrade or Host Profile remediation that reapplies the SATP default changes the policy back; knowing the default explains such a drift.",
        check: psp_differs_from_satp_default,
    },
    Invariant {
        id: "peer-pfc-missing",
        default_severity: Severity::Block,
        summary: "A lossless (RDMA, or PFC-running) port's host runs PFC on a priority that the other end of its link (the switch port, or the peer node's NIC) does not advertise PFC on.",
        why: "Pause frames work per link: when the switch port does not run PFC on the RDMA priority, it drops that traffic under congestion however well the host is configured.",
        check: link::pfc_missing,
    },
    Invariant {
        id: "peer-pfc-differs",
        default_severity: Severity::Block,
        summary: "The priorities the other end of a port's link advertises PFC on differ from the host's.",
        why: "Both ends of a link must pause the same priorities; an extra lossless priority at one end holds traffic the other end expects to drop.",
        check: link::pfc_differs,
    },
    Invariant {
        id: "peer-app-priority",
        default_severity: Severity::Block,
        summary: "The other end's APP TLV maps RoCE (UDP 4791, Ethertype 0x8915), SMB Direct (445) or iSCSI (3260) to another priority than the host's QoS policy (or, without one, its PFC priority).",
        why: "A willing end adopts the APP table, and a switch classifies by it: RDMA then lands in a traffic class without PFC.",
        check: link::app_priority,
    },
    Invariant {
        id: "peer-both-willing",
        default_severity: Severity::Warn,
        summary: "The host (or its adapter) and the other end of the link are both DCBX willing.",
        why: "Two willing ends each wait to adopt the other's configuration; which PFC/ETS runs then depends on the agents, not on either side's intent. Exactly one end (usually the switch) should be the non-willing source.",
        check: link::both_willing,
    },
    Invariant {
        id: "peer-no-dcbx",
        default_severity: Severity::Warn,
        summary: "The other end of a lossless port sends LLDP without any DCBX TLV (set it to block where the fabric must advertise DCB).",
        why: "Without DCBX from the fabric nothing confirms that the switch port runs the PFC and ETS the host relies on.",
        check: link::no_dcbx,
    },
    Invariant {
        id: "peer-no-neighbour",
        default_severity: Severity::Warn,
        summary: "The host's LLDP agent sees no neighbour on a lossless port.",
        why: "The other end sends no LLDP (cable, switch LLDP off, a neighbour that went away): its DCB cannot be checked at all.",
        check: link::no_neighbour,
    },
    Invariant {
        id: "bmc-dcbx-disabled-rdma-off",
        default_severity: Severity::Warn,
        summary: "The BMC/HII DCBX mode of a port or function is disabled and its RDMA is switched off by its own enable flag (Dell RDMANICModeOnPort Disabled) on a port that supports an RDMA protocol, and the OS runs no RDMA on it.",
        why: "Not a fault while RDMA stays off, but one setting away from RoCE without flow control: enabling RDMA on that port alone would run it without PFC. Set DCBX (IEEE) first.",
        check: bmc_rdma::rdma_off,
    },
];

fn pfc_not_operational(facts: &Facts) -> Vec<Violation> {
    let host_pfc: Vec<(u32, bool)> = children(facts, "host/qos/flow_control/priority/")
        .filter_map(|(priority, value)| Some((priority.parse().ok()?, value.as_bool()?)))
        .collect();
    let configured: Vec<u32> = host_pfc
        .iter()
        .filter(|(_, on)| *on)
        .map(|(p, _)| *p)
        .collect();
    // Host PFC captured and off everywhere: nothing to enforce.
    if !host_pfc.is_empty() && configured.is_empty() {
        return Vec::new();
    }
    let host_classes = children_segments(facts, "host/qos/traffic_class/").count();
    let mut violations = Vec::new();
    for mac in ports(facts) {
        let port = Port { facts, mac };
        // An adapter that reports no DCB has none to run: pfc-priority-mismatch judges it when
        // it carries RDMA.
        if port.get("os/qos_enabled").and_then(FactValue::as_bool) != Some(true)
            || port.dcb_not_reported()
        {
            continue;
        }
        // Host PFC not captured (a pasted Get-NetAdapterQos): only RDMA on the adapter says
        // it needs the lossless class the OS would configure. Without either, what the adapter
        // runs is all there is, and DcbxSupport None with DCB enabled is how an adapter runs
        // the host's settings without DCBX (Microsoft's own examples).
        let rdma = port.get("os/rdma_enabled").and_then(FactValue::as_bool) == Some(true);
        if configured.is_empty() && !rdma {
            continue;
        }
        let mut causes = pfc_causes(&port, &configured, host_classes);
        if causes.is_empty() {
            continue;
        }
        // The DCBX reset that usually causes it (hardware capable, current None) is named
        // first, the finding on its fact.
        if port.dcbx_support("current") == Some(DcbxSupport::None)
            && matches!(
                port.dcbx_support("hardware"),
                Some(DcbxSupport::Ieee | DcbxSupport::Cee | DcbxSupport::IeeeCee)
            )
        {
            causes.insert(
                0,
                (
                    port.path("os/dcbx_support/current"),
                    "its current DCBX support is None".into(),
                ),
            );
        }
        let path = &causes[0].0;
        let reasons: Vec<&str> = causes.iter().map(|(_, r)| r.as_str()).collect();
        let priorities: Vec<String> = configured.iter().map(u32::to_string).collect();
        let configuration = if priorities.is_empty() {
            "(the host's PFC priorities were not captured; RDMA is enabled on the adapter, os/rdma_enabled true)".to_owned()
        } else {
            format!(
                "(PFC on priority {}); storage traffic on that priority has no flow control",
                priorities.join(", ")
            )
        };
        violations.push(violation(facts, path, format!(
            "adapter {} has QoS enabled but {}: it is not enforcing the OS PFC configuration {configuration}",
            port.label(),
            reasons.join(", and "),
        )));
    }
    violations
}

/// Why the adapter `port` (QoS enabled) does not run the host's PFC priorities `configured`
/// among `host_classes` traffic classes, as (fact, reason): no classes, flow control off or
/// not reported, a single class.
fn pfc_causes(port: &Port<'_>, configured: &[u32], host_classes: usize) -> Vec<(String, String)> {
    let (facts, mac) = (port.facts, port.mac);
    let mut causes: Vec<(String, String)> = Vec::new();
    let tcs: Vec<Option<i64>> = ["max", "ets", "pfc"]
        .iter()
        .map(|kind| {
            port.get(&format!("os/num_tcs/current/{kind}"))
                .and_then(FactValue::as_i64)
        })
        .collect();
    let no_classes = tcs.iter().all(|n| *n == Some(0));
    if no_classes {
        causes.push((
            port.path("os/num_tcs/current/max"),
            "its current NumTCs(Max/ETS/PFC) is 0/0/0".into(),
        ));
    }
    let operational = format!("nic/{mac}/os/flow_control/operational/priority/");
    let reported = children(facts, &operational).next().is_some();
    let off: Vec<String> = configured
        .iter()
        .filter(|p| {
            port.get(&format!("os/flow_control/operational/priority/{p}"))
                .and_then(FactValue::as_bool)
                == Some(false)
        })
        .map(u32::to_string)
        .collect();
    if !off.is_empty() {
        causes.push((
            port.path(&format!("os/flow_control/operational/priority/{}", off[0])),
            format!(
                "operational flow control is off on priority {}",
                off.join(", ")
            ),
        ));
    }
    // NumTCs 0/0/0 already says the adapter runs no classes and no flow control.
    if !no_classes {
        if !reported && !configured.is_empty() {
            causes.push((
                port.path("os/qos_enabled"),
                "it reports no operational flow control (OperationalFlowControl Not Available)"
                    .into(),
            ));
        }
        let prefix = format!("nic/{mac}/os/traffic_class/operational/");
        let classes: Vec<&str> = children_segments(facts, &prefix).collect();
        if let [only] = classes.as_slice()
            && host_classes > 1
        {
            causes.push((
                port.path(&format!("os/traffic_class/operational/{only}/priorities")),
                format!(
                    "it runs a single traffic class (TC {only}) where the host configures {host_classes}"
                ),
            ));
        }
    }
    causes
}

fn pfc_priority_mismatch(facts: &Facts) -> Vec<Violation> {
    let configured: Vec<String> = children(facts, "host/qos/flow_control/priority/")
        .filter(|(_, value)| value.as_bool() == Some(true))
        .map(|(priority, _)| priority.to_owned())
        .collect();
    if configured.is_empty() {
        return Vec::new();
    }
    let mut violations = Vec::new();
    for mac in ports(facts) {
        let port = Port { facts, mac };
        let rdma = port.get("os/rdma_enabled").and_then(FactValue::as_bool) == Some(true);
        if !rdma {
            continue;
        }
        if port.dcb_not_reported() {
            violations.push(violation(facts, &port.path("os/dcb_reported"), format!(
                "RDMA adapter {} reports no DCB (its DCBX and NumTCs capability columns are blank), so the host's PFC on priority {} cannot be applied to it and RDMA runs without lossless flow control",
                port.label(),
                configured.join(", ")
            )));
            continue;
        }
        match port.get("os/qos_enabled").and_then(FactValue::as_bool) {
            // QoS-enabled adapters are pfc-not-operational's to judge.
            Some(true) => {}
            Some(false) => violations.push(violation(facts, &port.path("os/qos_enabled"), format!(
                "RDMA adapter {} has QoS (DCB) disabled, so the host's PFC on priority {} is not applied to it",
                port.label(),
                configured.join(", ")
            ))),
            None => {
                let off: Vec<&str> = configured
                    .iter()
                    .filter(|p| port.get(&format!("os/flow_control/operational/priority/{p}")).and_then(FactValue::as_bool) == Some(false))
                    .map(String::as_str)
                    .collect();
                if let Some(first) = off.first() {
                    violations.push(violation(facts, &port.path(&format!("os/flow_control/operational/priority/{first}")), format!(
                        "RDMA adapter {} runs without PFC on priority {}, which the host configures for storage traffic",
                        port.label(),
                        off.join(", ")
                    )));
                }
            }
        }
    }
    violations
}

fn dcbx_willing(facts: &Facts) -> Vec<Violation> {
    let mut violations = Vec::new();
    if facts
        .get("host/qos/dcbx_willing")
        .and_then(FactValue::as_bool)
        == Some(true)
    {
        violations.push(violation(
            facts,
            "host/qos/dcbx_willing",
            "the host's DCBX Willing is on: it accepts the switch's DCB configuration over its own"
                .to_owned(),
        ));
    }
    for mac in ports(facts) {
        let port = Port { facts, mac };
        if port.get("os/dcbx_willing").and_then(FactValue::as_bool) == Some(true) {
            violations.push(violation(facts, &port.path("os/dcbx_willing"), format!(
                "adapter {}: DCBX Willing is on, so the switch's DCB settings replace the host's",
                port.label()
            )));
        }
    }
    violations
}

fn firmware_lldp_agent_active(facts: &Facts) -> Vec<Violation> {
    use driftgate_model::DcbxControl;
    let host_willing = facts
        .get("host/qos/dcbx_willing")
        .and_then(FactValue::as_bool);
    let mut violations = Vec::new();
    for mac in ports(facts) {
        let port = Port { facts, mac };
        let firmware_dcbx = port
            .get("os/dcbx_control")
            .and_then(FactValue::as_text)
            .map(DcbxControl::parse)
            == Some(DcbxControl::Firmware);
        let firmware_agent = port
            .get("os/firmware_lldp/dcbx")
            .and_then(FactValue::as_bool)
            == Some(true);
        if !(firmware_dcbx || firmware_agent) {
            continue;
        }
        // The host runs DCB itself, not willing: it expects to be the only DCBX agent.
        let willing = port
            .get("os/dcbx_willing")
            .and_then(FactValue::as_bool)
            .or(host_willing);
        let host_dcb = port.get("os/dcb_supported").and_then(FactValue::as_bool) != Some(false);
        if willing == Some(false) && host_dcb {
            let (path, what) = if firmware_agent {
                (
                    "os/firmware_lldp/dcbx",
                    "the NIC firmware's LLDP DCBX agent is enabled (mlxconfig LLDP_NB_DCBX)",
                )
            } else {
                ("os/dcbx_control", "DCBX is firmware controlled")
            };
            violations.push(violation(facts, &port.path(path), format!(
                "adapter {}: {what} while the host runs DCB in non-willing mode; the firmware agent overrides the host's PFC/ETS",
                port.label()
            )));
        }
    }
    violations
}

fn dcbx_capability_lost(facts: &Facts) -> Vec<Violation> {
    ports(facts)
        .filter_map(|mac| {
            let port = Port { facts, mac };
            if port.dcb_not_reported() {
                return None;
            }
            let hardware = port.dcbx_support("hardware")?;
            let capable = matches!(hardware, DcbxSupport::Ieee | DcbxSupport::Cee | DcbxSupport::IeeeCee);
            (capable && port.dcbx_support("current") == Some(DcbxSupport::None)).then(|| {
                // Said so that a paste showing PFC still running (Microsoft's Example 1) reads
                // as what it is: DCBX off, not PFC off.
                let prefix = port.path("os/flow_control/operational/priority/");
                let running: Vec<String> = children(facts, &prefix)
                    .filter(|(_, on)| on.as_bool() == Some(true))
                    .map(|(priority, _)| priority.to_owned())
                    .collect();
                let still = if running.is_empty() {
                    String::new()
                } else {
                    format!(" (it still runs PFC on priority {})", running.join(", "))
                };
                violation(facts, &port.path("os/dcbx_support/current"), format!(
                    "adapter {}: hardware supports {} DCBX but current DCBX support is None; DCBX is off in the NIC's own settings{still}",
                    port.label(),
                    hardware.as_str().to_uppercase(),
                ))
            })
        })
        .collect()
}

fn psp_rr_on_reserved_device(facts: &Facts) -> Vec<Violation> {
    let version_text = facts.get("host/esxi/version").and_then(FactValue::as_text);
    let version = version_text.and_then(Version::parse);
    if version
        .as_ref()
        .is_some_and(|v| *v >= Version::new(&[5, 5]))
    {
        return Vec::new();
    }
    let on = match version_text {
        Some(text) => format!("ESXi {text}"),
        None => "an ESXi host of unknown version (treated as older than 5.5)".to_owned(),
    };
    let mut violations = Vec::new();
    // The High Performance Plugin's round robin breaks the reservations as NMP's does.
    for device in children_segments(facts, "storage/hpp/") {
        let get = |leaf: &str| facts.get(format!("storage/hpp/{device}/{leaf}").as_str());
        let reserved = get("perennially_reserved").and_then(FactValue::as_bool) == Some(true);
        let pss = get("pss")
            .and_then(FactValue::as_text)
            .map(PathSelectionScheme::parse);
        if reserved && pss == Some(PathSelectionScheme::RoundRobin) {
            violations.push(violation(facts, &format!("storage/hpp/{device}/pss"), format!(
                "device {device} is perennially reserved (an MSCS shared RDM) and its High Performance Plugin path selection scheme is LB-RR on {on}: round robin breaks MSCS SCSI-3 reservations unless the host is 5.5 or later (its version is not known here); fix: esxcli storage hpp device set -d {device} -P FIXED"
            )));
        }
    }
    for device in children_segments(facts, "storage/nmp/") {
        let get = |leaf: &str| facts.get(format!("storage/nmp/{device}/{leaf}").as_str());
        let reserved = get("perennially_reserved").and_then(FactValue::as_bool) == Some(true);
        let psp = get("psp")
            .and_then(FactValue::as_text)
            .map(PathSelectionPolicy::parse);
        if reserved && psp == Some(PathSelectionPolicy::RoundRobin) {
            violations.push(violation(facts, &format!("storage/nmp/{device}/psp"), format!(
                "device {device} is perennially reserved (an MSCS shared RDM) and uses VMW_PSP_RR on {on}: Round Robin breaks MSCS SCSI-3 reservations before ESXi 5.5; fix: esxcli storage nmp device set -d {device} -P VMW_PSP_MRU"
            )));
        }
    }
    violations
}

fn psp_differs_from_satp_default(facts: &Facts) -> Vec<Violation> {
    let mut violations = Vec::new();
    for device in children_segments(facts, "storage/nmp/") {
        let get = |leaf: &str| {
            facts
                .get(format!("storage/nmp/{device}/{leaf}").as_str())
                .and_then(FactValue::as_text)
        };
        let (Some(satp), Some(psp)) = (get("satp"), get("psp")) else {
            continue;
        };
        let vendor = get("vendor").map(path_segment);
        let model = get("model").map(path_segment);
        let rule = |vendor: &str, model: &str| {
            facts
                .get(format!("storage/satp_rule/{satp}/{vendor}/{model}/default_psp").as_str())
                .and_then(FactValue::as_text)
        };
        let (vendor, model) = (
            vendor.as_deref().unwrap_or("any"),
            model.as_deref().unwrap_or("any"),
        );
        let device_rule = facts
            .get(
                format!(
                    "storage/satp_rule/{satp}/device/{}/default_psp",
                    path_segment(device)
                )
                .as_str(),
            )
            .and_then(FactValue::as_text);
        let from_rule = device_rule
            .or_else(|| rule(vendor, model))
            .or_else(|| rule(vendor, "any"))
            .or_else(|| rule("any", model))
            .or_else(|| rule("any", "any"));
        let (default, source) = match from_rule {
            Some(psp) if device_rule.is_some() => {
                (psp, format!("the SATP rule for device {device}"))
            }
            Some(psp) => (psp, format!("the SATP rule for {vendor} {model}")),
            None => match facts
                .get(format!("storage/satp/{satp}/default_psp").as_str())
                .and_then(FactValue::as_text)
            {
                Some(psp) => (psp, format!("{satp}'s default")),
                None => continue,
            },
        };
        if !psp.eq_ignore_ascii_case(default) {
            violations.push(violation(
                facts,
                &format!("storage/nmp/{device}/psp"),
                format!("device {device} uses {psp}; {source} gives {default}"),
            ));
        }
    }
    violations
}

mod bmc_rdma;
mod link;
pub(crate) mod reading;
#[cfg(test)]
mod tests;
