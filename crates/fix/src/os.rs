//! The commands that set an operating system's facts back: PowerShell for Windows, `esxcli`
//! for ESXi, `mlxconfig`/`mlnx_qos`/`ethtool` for Linux. Pure: from the fact, its known-good
//! value and the snapshot's other facts (the adapter's name and MAC, a device's SATP rule).

use driftgate_snapshot::{FactValue, Facts};

use super::known_good::Wanted;
use super::model::{Layer, Risk};
use super::quote;

/// The commands of one OS step.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct OsStep {
    /// What it sets, one line.
    pub summary: String,
    /// The lines, in order.
    pub lines: Vec<String>,
    /// Whether it takes effect only after a reboot.
    pub reboot: bool,
    /// How much it can disturb the host.
    pub risk: Risk,
    /// Why that risk.
    pub risk_note: String,
}

/// The step for `wanted` on `layer`, or why there is none.
pub(crate) fn step(layer: Layer, wanted: &Wanted, facts: &Facts) -> Result<OsStep, String> {
    match layer {
        Layer::Windows => windows(wanted, facts),
        Layer::Esxi => esxi(wanted, facts),
        Layer::Linux => linux(wanted, facts),
        Layer::Bmc => Err("not an OS fact".to_owned()),
    }
}

/// `value` as a bare word (see [`quote::word`]), or why not.
fn word(value: &str) -> Result<&str, String> {
    quote::word(value).map_err(|e| e.to_string())
}

/// `text` as a PowerShell string (see [`quote::powershell`]), or why not.
fn ps_quote(text: &str) -> Result<String, String> {
    quote::powershell(text).map_err(|e| e.to_string())
}

/// `name` as a `-Name` or `-InterfaceAlias` argument (see [`quote::powershell_name`]), or why not.
fn ps_name(name: &str) -> Result<String, String> {
    quote::powershell_name(name).map_err(|e| e.to_string())
}

/// `text` as a POSIX shell word (see [`quote::sh`]), or why not.
fn sh_quote(text: &str) -> Result<String, String> {
    quote::sh(text).map_err(|e| e.to_string())
}

fn text(value: &FactValue) -> String {
    value
        .as_text()
        .map_or_else(|| value.to_string(), str::to_owned)
}

fn ps_bool(value: &FactValue) -> Result<&'static str, String> {
    match value.as_bool() {
        Some(true) => Ok("$true"),
        Some(false) => Ok("$false"),
        None => Err(format!("{value} is no boolean")),
    }
}

/// `nic/<key>/os/<leaf>` → (key, leaf).
fn nic_leaf(path: &str) -> Option<(&str, &str)> {
    let rest = path.strip_prefix("nic/")?;
    let (key, leaf) = rest.split_once("/os/")?;
    Some((key, leaf))
}

/// The adapter's name as the OS reports it.
fn os_name(facts: &Facts, key: &str) -> Result<String, String> {
    facts
        .get(format!("nic/{key}/os/name").as_str())
        .and_then(FactValue::as_text)
        .map(str::to_owned)
        .ok_or_else(|| {
            format!("the snapshot names no OS adapter for port {key} (nic/{key}/os/name)")
        })
}

/// The PowerShell lines that give a Windows host's fact its known-good value: an adapter's
/// (guarded by its MAC) or the host's QoS.
fn windows(wanted: &Wanted, facts: &Facts) -> Result<OsStep, String> {
    let path = wanted.fact.as_str();
    let to = &wanted.to;
    let medium = |summary: String, lines: Vec<String>| {
        OsStep {
        summary,
        lines,
        reboot: false,
        risk: Risk::Medium,
        risk_note: "changes the host's DCB/QoS at once: RDMA traffic on the port pauses while the NIC renegotiates".to_owned(),
    }
    };
    if let Some((key, leaf)) = nic_leaf(path) {
        let name = os_name(facts, key)?;
        return Ok(medium(
            format!("{leaf} of adapter {name} ({key}) → {to}"),
            windows_adapter(&name, key, leaf, to)?,
        ));
    }
    let Some(qos) = path.strip_prefix("host/qos/") else {
        return Err("not a Windows QoS fact".to_owned());
    };
    Ok(medium(
        format!("host QoS {qos} → {to}"),
        windows_qos(qos, to, facts)?,
    ))
}

/// The lines that set `leaf` of the adapter `name` (port `key`) to `to`.
fn windows_adapter(
    name: &str,
    key: &str,
    leaf: &str,
    to: &FactValue,
) -> Result<Vec<String>, String> {
    // The MAC names the adapter too: a renamed adapter makes the line fail, not hit
    // another port.
    let guard = format!(
        "if ((Get-NetAdapter -Name {n}).MacAddress -ne {m}) {{ throw {e} }}",
        n = ps_name(name)?,
        m = ps_quote(&key.replace(':', "-").to_ascii_uppercase())?,
        e = ps_quote(&format!("adapter {name} is not the port {key}"))?,
    );
    let line = match leaf {
        "qos_enabled" if to.as_bool() == Some(true) => {
            format!("Enable-NetAdapterQos -Name {}", ps_name(name)?)
        }
        "qos_enabled" => format!("Disable-NetAdapterQos -Name {}", ps_name(name)?),
        "rdma_enabled" if to.as_bool() == Some(true) => {
            format!("Enable-NetAdapterRdma -Name {}", ps_name(name)?)
        }
        "rdma_enabled" => format!("Disable-NetAdapterRdma -Name {}", ps_name(name)?),
        "dcbx_willing" => format!(
            "Set-NetQosDcbxSetting -InterfaceAlias {} -Willing {} -Confirm:$false",
            ps_name(name)?,
            ps_bool(to)?
        ),
        _ => return Err(format!("no PowerShell command sets {leaf}")),
    };
    Ok(vec![guard, line])
}

/// The lines that set the host QoS fact `host/qos/{qos}` to `to`.
fn windows_qos(qos: &str, to: &FactValue, facts: &Facts) -> Result<Vec<String>, String> {
    let line = if qos == "dcbx_willing" {
        format!(
            "Set-NetQosDcbxSetting -Willing {} -Confirm:$false",
            ps_bool(to)?
        )
    } else if let Some(priority) = qos.strip_prefix("flow_control/priority/") {
        let verb = if to.as_bool() == Some(true) {
            "Enable"
        } else {
            "Disable"
        };
        format!("{verb}-NetQosFlowControl -Priority {}", word(priority)?)
    } else if let Some(rest) = qos.strip_prefix("traffic_class/") {
        traffic_class(rest, to, facts)?
    } else if let Some(rest) = qos.strip_prefix("policy/") {
        let (policy, leaf) = rest.split_once('/').ok_or("a policy without a property")?;
        match leaf {
            "priority" => format!(
                "Set-NetQosPolicy -Name {} -PriorityValue8021Action {}",
                ps_name(policy)?,
                word(&text(to))?
            ),
            _ => {
                return Err(format!(
                    "the {leaf} of QoS policy {policy} is set when the policy is made: New-NetQosPolicy"
                ));
            }
        }
    } else {
        return Err(format!("no PowerShell command sets host/qos/{qos}"));
    };
    Ok(vec![line])
}

/// The line that sets `{class}/{leaf}` of a traffic class (`rest`) to `to`; a class that is
/// gone is made again by hand.
fn traffic_class(rest: &str, to: &FactValue, facts: &Facts) -> Result<String, String> {
    let (class, leaf) = rest
        .split_once('/')
        .ok_or("a traffic class without a property")?;
    if class == "default" {
        return Err(
            "the default traffic class is what the others leave; set the named classes".to_owned(),
        );
    }
    let own = format!("host/qos/traffic_class/{class}/");
    if !facts.keys().any(|path| path.as_str().starts_with(&own)) {
        return Err(format!(
            "traffic class {class} is gone: make it again with New-NetQosTrafficClass -Name {class} and the baseline's -Priority, -BandwidthPercentage and -Algorithm"
        ));
    }
    let argument = match leaf {
        "priorities" => match to {
            FactValue::List(items) => format!(
                "-Priority {}",
                items
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join(",")
            ),
            other => format!("-Priority {}", word(&other.to_string())?),
        },
        "bandwidth" => format!("-BandwidthPercentage {}", word(&to.to_string())?),
        "algorithm" => format!("-Algorithm {}", word(&text(to).to_ascii_uppercase())?),
        other => {
            return Err(format!(
                "no PowerShell parameter sets {other} of a traffic class"
            ));
        }
    };
    Ok(format!(
        "Set-NetQosTrafficClass -Name {} {argument}",
        ps_name(class)?
    ))
}

fn esxi(wanted: &Wanted, facts: &Facts) -> Result<OsStep, String> {
    let path = wanted.fact.as_str();
    let rest = path.strip_prefix("storage/nmp/").ok_or("not an NMP fact")?;
    let (device, leaf) = rest.split_once('/').ok_or("not an NMP device fact")?;
    let get = |leaf: &str| {
        facts
            .get(format!("storage/nmp/{device}/{leaf}").as_str())
            .and_then(FactValue::as_text)
    };
    match leaf {
        "psp" => {
            let psp = text(&wanted.to);
            let mut lines = vec![format!(
                "esxcli storage nmp device set -d {} -P {}",
                sh_quote(device)?,
                sh_quote(&psp)?
            )];
            let mut note =
                "takes effect at once; the device's I/O switches path policy live".to_owned();
            // A SATP claim rule for the device's vendor and model that gives another policy
            // brings it back at the next claim (a reboot, a rescan): a device rule wins.
            if let Some(satp) = get("satp") {
                let rule = |at: &str| {
                    facts
                        .get(format!("storage/satp_rule/{satp}/{at}/default_psp").as_str())
                        .and_then(FactValue::as_text)
                };
                let device_rule = rule(&format!(
                    "device/{}",
                    driftgate_snapshot::path_segment(device)
                ));
                let vendor = get("vendor").map(driftgate_snapshot::path_segment);
                let model = get("model").map(driftgate_snapshot::path_segment);
                let (v, m) = (
                    vendor.as_deref().unwrap_or("any"),
                    model.as_deref().unwrap_or("any"),
                );
                let array_rule = rule(&format!("{v}/{m}"))
                    .or_else(|| rule(&format!("{v}/any")))
                    .or_else(|| rule(&format!("any/{m}")));
                let wins = device_rule.or(array_rule);
                if let Some(other) = wins.filter(|p| !p.eq_ignore_ascii_case(&psp)) {
                    if let Some(old) = device_rule {
                        lines.push(format!(
                            "esxcli storage nmp satp rule remove -s {} -d {} -P {}",
                            sh_quote(satp)?,
                            sh_quote(device)?,
                            sh_quote(old)?
                        ));
                    }
                    lines.push(format!(
                        "esxcli storage nmp satp rule add -s {} -d {} -P {} -e {}",
                        sh_quote(satp)?,
                        sh_quote(device)?,
                        sh_quote(&psp)?,
                        sh_quote(&format!("driftgate: keep {device} on {psp}"))?
                    ));
                    let whose = if device_rule.is_some() {
                        "the device's own rule".to_owned()
                    } else {
                        format!("the SATP rule for {v} {m}")
                    };
                    note = format!(
                        "takes effect at once; {whose} gives {other}, so a device rule keeps {psp} across reboots and rescans"
                    );
                }
            }
            Ok(OsStep {
                summary: format!("path selection policy of {device} → {psp}"),
                lines,
                reboot: false,
                risk: Risk::Low,
                risk_note: note,
            })
        }
        "perennially_reserved" => Ok(OsStep {
            summary: format!("perennially reserved flag of {device} → {}", wanted.to),
            lines: vec![format!(
                "esxcli storage core device setconfig -d {} --perennially-reserved={}",
                sh_quote(device)?,
                wanted
                    .to
                    .as_bool()
                    .ok_or("the perennially reserved flag is a boolean")?
            )],
            reboot: false,
            risk: Risk::Low,
            risk_note: "a flag of the device; no I/O is disturbed".to_owned(),
        }),
        _ => Err(format!("no esxcli command sets {leaf}")),
    }
}

fn linux(wanted: &Wanted, facts: &Facts) -> Result<OsStep, String> {
    let path = wanted.fact.as_str();
    let (key, leaf) = nic_leaf(path).ok_or("not a NIC fact")?;
    let name = os_name(facts, key)?;
    // mlxconfig spells booleans True/False.
    let to = match wanted.to.as_bool() {
        Some(true) => "True".to_owned(),
        Some(false) => "False".to_owned(),
        None => text(&wanted.to),
    };
    // mlxconfig addresses the device by its PCI address: read it from the interface, so
    // the line names the port it was planned for.
    let device = format!(
        "\"$(ethtool -i {} | awk '/^bus-info:/ {{print $2}}')\"",
        sh_quote(&name)?
    );
    let firmware = |parameter: &str| -> Result<OsStep, String> {
        Ok(OsStep {
            summary: format!("{parameter} of {name} ({key}) → {to} in the NIC firmware"),
            lines: vec![format!(
                "mlxconfig -y -d {device} set {}={}",
                sh_quote(parameter)?,
                sh_quote(&to)?
            )],
            reboot: true,
            risk: Risk::High,
            risk_note: "a NIC firmware setting: takes effect at the next reboot (or mlxfwreset)"
                .to_owned(),
        })
    };
    if let Some(parameter) = leaf.strip_prefix("mlxconfig/") {
        return firmware(parameter);
    }
    if let Some(field) = leaf.strip_prefix("firmware_lldp/next_boot/") {
        let prefix = match field {
            "tx_mode" => "LLDP_NB_TX_MODE_P",
            "rx_mode" => "LLDP_NB_RX_MODE_P",
            "dcbx" => "LLDP_NB_DCBX_P",
            "ieee" => "DCBX_IEEE_P",
            "cee" => "DCBX_CEE_P",
            "willing" => "DCBX_WILLING_P",
            other => return Err(format!("no mlxconfig parameter sets {other}")),
        };
        // The port's own parameter, as its mlxconfig query named it (`…_P2` on port 2).
        let own = format!("nic/{key}/os/mlxconfig/");
        let parameter = facts
            .keys()
            .filter_map(|path| path.as_str().strip_prefix(&own))
            .find(|name| {
                name.strip_prefix(prefix)
                    .is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
            })
            .ok_or_else(|| {
                format!("the snapshot has no mlxconfig {prefix}<port> of port {key} to name the parameter")
            })?;
        return firmware(parameter);
    }
    let medium = |lines: Vec<String>| OsStep {
        summary: format!("{leaf} of {name} ({key}) → {to}"),
        lines,
        reboot: false,
        risk: Risk::Medium,
        risk_note: "changes the port's QoS at once: traffic pauses while it renegotiates"
            .to_owned(),
    };
    match leaf {
        "trust" => Ok(medium(vec![format!(
            "mlnx_qos -i {} --trust {}",
            sh_quote(&name)?,
            sh_quote(&to)?
        )])),
        "pause/rx" | "pause/tx" | "pause/autonegotiate" => {
            let word = match leaf {
                "pause/rx" => "rx",
                "pause/tx" => "tx",
                _ => "autoneg",
            };
            let on = if wanted.to.as_bool() == Some(true) {
                "on"
            } else {
                "off"
            };
            Ok(medium(vec![format!(
                "ethtool -A {} {word} {on}",
                sh_quote(&name)?
            )]))
        }
        _ => Err(format!("no Linux command sets {leaf}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use driftgate_snapshot::FactPath;

    fn wanted(path: &str, to: FactValue) -> Wanted {
        Wanted {
            fact: FactPath::new(path).unwrap(),
            from: None,
            to,
            known_good: "baseline".into(),
            findings: vec![],
        }
    }

    #[test]
    fn seed_2_gets_the_device_policy_and_a_device_rule_against_the_vendor_rule() {
        let text = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../examples/esxi-mscs-psp/current.json"
        ))
        .unwrap();
        let snapshot = driftgate_snapshot::VerifiedSnapshot::parse(&text, "current.json").unwrap();
        let device = "naa.60050768028081713c0000000000007d";
        let step = step(
            Layer::Esxi,
            &wanted(
                &format!("storage/nmp/{device}/psp"),
                FactValue::from("VMW_PSP_MRU"),
            ),
            &snapshot.snapshot().facts,
        )
        .unwrap();
        assert_eq!(
            step.lines[0],
            format!("esxcli storage nmp device set -d {device} -P VMW_PSP_MRU")
        );
        assert!(
            step.lines[1].starts_with(&format!(
                "esxcli storage nmp satp rule add -s VMW_SATP_SVC -d {device} -P VMW_PSP_MRU"
            )),
            "{:?}",
            step.lines
        );
        assert!(!step.reboot);
    }

    fn example(file: &str) -> Facts {
        let path = format!("{}/../../examples/{file}", env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read_to_string(&path).unwrap();
        driftgate_snapshot::VerifiedSnapshot::parse(&text, &path)
            .unwrap()
            .snapshot()
            .facts
            .clone()
    }

    #[test]
    fn windows_lines_name_the_adapter_and_check_its_mac() {
        let facts = example("azure-local-dcbx/post-update.json");
        let port = "nic/00:0a:f7:12:34:56/os";
        let lines = |path: &str, to: FactValue| {
            step(Layer::Windows, &wanted(path, to), &facts).map(|s| s.lines)
        };
        assert_eq!(
            lines(&format!("{port}/qos_enabled"), FactValue::from(true)).unwrap(),
            [
                "if ((Get-NetAdapter -Name 'SLOT 3 Port 1').MacAddress -ne '00-0A-F7-12-34-56') { throw 'adapter SLOT 3 Port 1 is not the port 00:0a:f7:12:34:56' }",
                "Enable-NetAdapterQos -Name 'SLOT 3 Port 1'"
            ]
        );
        assert_eq!(
            lines(&format!("{port}/dcbx_willing"), FactValue::from(false)).unwrap()[1],
            "Set-NetQosDcbxSetting -InterfaceAlias 'SLOT 3 Port 1' -Willing $false -Confirm:$false"
        );
        assert_eq!(
            lines("host/qos/flow_control/priority/3", FactValue::from(true)).unwrap(),
            ["Enable-NetQosFlowControl -Priority 3"]
        );
        assert_eq!(
            lines(
                "host/qos/traffic_class/smb_direct/bandwidth",
                FactValue::from(50)
            )
            .unwrap(),
            ["Set-NetQosTrafficClass -Name 'smb_direct' -BandwidthPercentage 50"]
        );
        assert_eq!(
            lines("host/qos/policy/smb_direct/priority", FactValue::from(3)).unwrap(),
            ["Set-NetQosPolicy -Name 'smb_direct' -PriorityValue8021Action 3"]
        );
        assert!(lines(&format!("{port}/description"), FactValue::from("x")).is_err());
    }

    #[test]
    fn linux_lines_set_the_ports_own_mlxconfig_parameter() {
        let facts = example("linux-mellanox-lldp/post-update.json");
        let second = step(
            Layer::Linux,
            &wanted(
                "nic/0c:42:a1:5e:77:11/os/firmware_lldp/next_boot/dcbx",
                FactValue::from(false),
            ),
            &facts,
        )
        .unwrap();
        assert_eq!(
            second.lines,
            [
                "mlxconfig -y -d \"$(ethtool -i ens1f1np1 | awk '/^bus-info:/ {print $2}')\" set LLDP_NB_DCBX_P2=False"
            ]
        );
        assert!(second.reboot);
    }
}
