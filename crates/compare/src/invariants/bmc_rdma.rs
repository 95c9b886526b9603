//! DCBX disabled in the NIC firmware beside RDMA, per BMC scope (a port, or one of its
//! functions, which inherits what it does not report from its port): a block when RDMA runs
//! there, a warning when RDMA is switched off by its own flag (one setting away from RoCE
//! without flow control). Each message quotes the facts it used and where they came from.

use driftgate_model::DcbxMode;
use driftgate_snapshot::{FactValue, Facts};

use super::reading::{Port, Violation, children_segments, ports, violation};

/// What a BMC scope reports of RDMA, with the facts that say so.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Rdma {
    /// RDMA runs: the scope's enable flag is true, or it reports a protocol and no enable flag.
    On(Evidence),
    /// The scope's enable flag is false (Dell `RDMANICModeOnPort: Disabled`) on a port that
    /// does or may support a protocol: RDMA is not in use.
    Off(Evidence),
    /// The scope supports no RDMA protocol (`none`).
    Unsupported,
}

impl Rdma {
    /// Whether RDMA is in use.
    pub(super) fn is_on(&self) -> bool {
        matches!(self, Rdma::On(_))
    }

    /// Whether RDMA is in use, and the facts that say so; `None` where the scope supports no
    /// RDMA (nothing to judge).
    fn judged(self) -> Option<(bool, Evidence)> {
        match self {
            Rdma::On(evidence) => Some((true, evidence)),
            Rdma::Off(evidence) => Some((false, evidence)),
            Rdma::Unsupported => None,
        }
    }
}

/// How an RDMA state reads in a message: `RDMA (roce)`, and the facts behind it as its scope
/// names them (`rdma_protocol "roce", no enable flag reported`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Evidence {
    name: String,
    facts: String,
}

/// RDMA as the BMC reports it at `scope` (`bmc` or `bmc/function/<id>`), from any vendor's
/// `rdma_enabled` / `rdma_protocol`; `None` when the scope reports neither. The enable flag
/// decides when there is one: Dell reports the protocol a port *supports*
/// (`RDMAProtocolSupport`) next to whether RDMA is on (`RDMANICModeOnPort`), so a protocol
/// counts as RDMA in use only where no flag says otherwise.
pub(super) fn rdma_at(port: &Port<'_>, scope: &str) -> Option<Rdma> {
    let enabled_leaf = format!("{scope}/rdma_enabled");
    let protocol_leaf = format!("{scope}/rdma_protocol");
    let enabled = port.get(&enabled_leaf).and_then(FactValue::as_bool);
    let protocol_value = port.get(&protocol_leaf);
    let protocol = protocol_value.and_then(FactValue::as_text);
    if enabled.is_none() && protocol.is_none() {
        return None;
    }
    let supported =
        protocol.filter(|p| !matches!(p.to_ascii_lowercase().as_str(), "none" | "disabled" | ""));
    let name = match supported {
        Some(protocol) => format!("RDMA ({protocol})"),
        None => "RDMA".to_owned(),
    };
    // Leaves as the scope names them; the message says which scope.
    let protocol_fact = match protocol.and(protocol_value) {
        Some(value) => format!("rdma_protocol {value}"),
        None => "no protocol reported".to_owned(),
    };
    let facts = match enabled {
        Some(flag) => format!("rdma_enabled {flag}, {protocol_fact}"),
        None => format!("{protocol_fact}, no enable flag reported"),
    };
    let evidence = Evidence { name, facts };
    Some(match (enabled, supported) {
        (Some(true), _) | (None, Some(_)) => Rdma::On(evidence),
        (Some(false), _) if protocol.is_none() || supported.is_some() => Rdma::Off(evidence),
        _ => Rdma::Unsupported,
    })
}

/// One scope whose DCBX mode is disabled, judged.
struct Judged {
    rdma_on: bool,
    violation: Violation,
}

/// `bmc-dcbx-disabled-with-rdma`: DCBX disabled where RDMA runs.
pub(super) fn with_rdma(facts: &Facts) -> Vec<Violation> {
    judge(facts)
        .into_iter()
        .filter(|j| j.rdma_on)
        .map(|j| j.violation)
        .collect()
}

/// `bmc-dcbx-disabled-rdma-off`: DCBX disabled where RDMA is switched off by its flag.
pub(super) fn rdma_off(facts: &Facts) -> Vec<Violation> {
    judge(facts)
        .into_iter()
        .filter(|j| !j.rdma_on)
        .map(|j| j.violation)
        .collect()
}

/// RDMA the OS runs on the port: it counts at every scope the BMC does not report RDMA on.
fn in_the_os(port: &Port<'_>) -> Option<Evidence> {
    (port.get("os/rdma_enabled").and_then(FactValue::as_bool) == Some(true)).then(|| Evidence {
        name: "RDMA".to_owned(),
        facts: "rdma_enabled true".to_owned(),
    })
}

/// Every disabled-DCBX scope with RDMA on or switched off, each with its message.
fn judge(facts: &Facts) -> Vec<Judged> {
    let mut judged = Vec::new();
    for key in ports(facts) {
        let port = Port { facts, mac: key };
        let os = in_the_os(&port);
        // The BMC's word, unless it is not "on" and the OS runs RDMA.
        let effective = |rdma: Option<Rdma>, from: &'static str| match (rdma, &os) {
            (Some(Rdma::On(e)), _) => Some((Rdma::On(e), from)),
            (_, Some(os)) => Some((Rdma::On(os.clone()), "in the OS")),
            (other, None) => other.map(|r| (r, from)),
        };
        let port_mode = port
            .get("bmc/dcbx_mode")
            .and_then(FactValue::as_text)
            .map(DcbxMode::parse);
        let port_rdma = rdma_at(&port, "bmc");
        let port_mode_fact = format!("dcbx_mode {}", quoted(&port, "bmc/dcbx_mode"));
        let mut port_finding: Option<bool> = None;
        if port_mode == Some(DcbxMode::Disabled)
            && let Some((rdma, from)) = effective(port_rdma.clone(), "on the port")
            && let Some((rdma_on, e)) = rdma.judged()
        {
            let label = port.label();
            let message = if rdma_on {
                format!(
                    "port {label}: DCBX mode in the NIC firmware is disabled (on the port: {port_mode_fact}) while {} is enabled ({from}: {}); the port does not apply the host's DCB/PFC configuration, so RoCE runs without flow control",
                    e.name, e.facts
                )
            } else {
                off_message(
                    &format!("port {label}"),
                    &format!("on the port: {port_mode_fact}"),
                    from,
                    &e,
                )
            };
            port_finding = Some(rdma_on);
            judged.push(Judged {
                rdma_on,
                violation: violation(facts, &port.path("bmc/dcbx_mode"), message),
            });
        }
        // Each function (NPAR partition, VF) is a scope of its own that inherits what it does
        // not report from its port.
        let prefix = format!("nic/{key}/bmc/function/");
        let functions: Vec<String> = children_segments(facts, &prefix)
            .map(str::to_owned)
            .collect();
        for function in functions {
            let scope = format!("bmc/function/{function}");
            let mode_leaf = format!("{scope}/dcbx_mode");
            let own_mode = port
                .get(&mode_leaf)
                .and_then(FactValue::as_text)
                .map(DcbxMode::parse);
            if own_mode.clone().or(port_mode.clone()) != Some(DcbxMode::Disabled) {
                continue;
            }
            let rdma = match rdma_at(&port, &scope) {
                Some(own) => effective(Some(own), "on the function"),
                None => effective(port_rdma.clone(), "on the port"),
            };
            let Some((rdma, from)) = rdma else {
                continue;
            };
            let Some((rdma_on, e)) = rdma.judged() else {
                continue;
            };
            // The port's finding already covers a function that only inherits its mode and
            // judges the same.
            if own_mode.is_none() && port_finding == Some(rdma_on) {
                continue;
            }
            let (path, mode) = match own_mode {
                Some(_) => (
                    mode_leaf.clone(),
                    format!(
                        "set on the function: dcbx_mode {}",
                        quoted(&port, &mode_leaf)
                    ),
                ),
                None => (
                    "bmc/dcbx_mode".to_owned(),
                    format!("inherited from the port: {port_mode_fact}"),
                ),
            };
            let message = function_message(&port, &scope, function, &mode, from, rdma_on, &e);
            judged.push(Judged {
                rdma_on,
                violation: violation(facts, &port.path(&path), message),
            });
        }
    }
    judged
}

/// The message of the function `function` at `scope` of `port`, whose DCBX mode is disabled
/// (`mode`: where that is set) while RDMA (`e`, found `from`) is on or switched off.
fn function_message(
    port: &Port<'_>,
    scope: &str,
    function: String,
    mode: &str,
    from: &str,
    rdma_on: bool,
    e: &Evidence,
) -> String {
    // The BMC's name for the function first (`NIC.Slot.3-1-1`), then its key (MAC).
    let function = match crate::functions::bmc_name(port.facts, &port.path(&format!("{scope}/id")))
    {
        Some(name) => format!("{name} ({function})"),
        None => function,
    };
    let scope_name = format!("port {}, function {function}", port.label());
    if rdma_on {
        format!(
            "{scope_name}: DCBX mode in the NIC firmware is disabled ({mode}) while {} is enabled ({from}: {}); the function does not apply the host's DCB/PFC configuration, so RoCE runs without flow control",
            e.name, e.facts
        )
    } else {
        off_message(&scope_name, mode, from, e)
    }
}

/// The warning of a scope whose RDMA is switched off.
fn off_message(scope: &str, mode: &str, from: &str, rdma: &Evidence) -> String {
    format!(
        "{scope}: DCBX mode in the NIC firmware is disabled ({mode}) and RDMA is switched off ({from}: {}): one setting away from RoCE without flow control",
        rdma.facts
    )
}

/// A port fact's value as a message quotes it (`"disabled"`), `-` when absent.
fn quoted(port: &Port<'_>, leaf: &str) -> String {
    port.get(leaf)
        .map_or_else(|| "-".to_owned(), ToString::to_string)
}
