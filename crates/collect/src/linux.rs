//! The `linux` source: NIC DCB state through iproute2 `dcb`, `ethtool`, `devlink`, and the
//! Mellanox tools `mlnx_qos` and `mlxconfig` when present, over any command transport.
//!
//! Physical Ethernet ports come from `ip -j -d link show` (bonds, VLANs and bridges are
//! skipped), keyed by permanent MAC. Recorded files in a `dir:` folder, one per command:
//! `ip-link.json`, `dcb-{ets,pfc,dcbx}-IF.json`, `ethtool-pause-IF.json` (or `.txt`, the text
//! form), `ethtool-driver-IF.txt`, `mlnx_qos-IF.txt`, `devlink-info.json`,
//! `mlxconfig-PCI.txt` (`mlxconfig -d PCI -e query`). A device without DCB ("Operation not
//! supported") is a fact, `dcb_supported = false`, not a failure, and so is a port whose
//! ethtool reports no pause settings; `mlnx_qos`, `mlxconfig` and `devlink` are read when
//! present.
//!
//! Fail closed: each parser knows the shape of a whole answer, and what the tools guarantee
//! across commands is checked too. An installed `mlnx_qos` or `mlxconfig` answers for every
//! Mellanox port (an `mlx4_*`/`mlx5_*` driver; other ports are not asked); `devlink` lists
//! every port of a driver it lists; an mlx port has a PCI address in `ethtool -i`;
//! `mlxconfig` names the device it was asked for; `dcb ets` and `dcb pfc` print their whole
//! tables; an `ethtool --json` answer that does not parse is an error, not a reason to fall
//! back to the text form. Any of these makes the source `partial`, naming the command, its
//! file, the line and what was expected.

pub mod parse;

use std::collections::BTreeMap;

use super::nic::{DcbTables, NicFacts, Side, port_key};
use super::transport::{CommandOutput, CommandSpec, CommandTransport, Session, TransportError};
use super::{SourceCapture, SourceError};
use driftgate_model::{DcbxControl, MacAddr};
use driftgate_snapshot::{Facts, SourceStatus};
use parse::MlxConfig;

/// Whether a missing tool is the host's business or a gap in the capture.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Need {
    Required,
    Optional,
}

/// The commands of one capture and what went wrong with them.
struct Commands<'a> {
    session: Session<'a>,
    errors: Vec<String>,
    /// Per optional tool, the commands it answered and those it did not: a tool that is
    /// installed answers for every Mellanox port, so a mix means a capture with holes.
    optional: BTreeMap<String, (Vec<String>, Vec<String>)>,
}

impl Commands<'_> {
    /// Runs a command; `None` (with the error recorded, unless optional and absent) when it
    /// could not give an answer.
    fn run(&mut self, file: &str, argv: &[&str], need: Need) -> Option<CommandOutput> {
        if self.session.is_unreachable() {
            // Its one error says it all.
            return None;
        }
        let spec = CommandSpec {
            file,
            argv,
            stdin: None,
        };
        let result = match self.session.run(&spec) {
            Ok(output) if output.status == 127 && need == Need::Optional => None,
            Ok(output) => Some(output),
            Err(TransportError::NotRecorded { .. }) if need == Need::Optional => None,
            Err(e) => {
                self.errors.push(e.to_string());
                return None;
            }
        };
        if need == Need::Optional {
            let (answered, absent) = self.optional.entry(argv[0].to_owned()).or_default();
            if result.is_some() {
                answered.push(spec.display());
            } else {
                absent.push(spec.display());
            }
        }
        result
    }

    /// Records an error about `command`'s output in `file`.
    fn output_error(&mut self, command: &str, file: &str, error: impl std::fmt::Display) {
        let target = self.session.target();
        self.errors
            .push(format!("{target}: `{command}` output ({file}): {error}"));
    }

    /// Each of `tools` answered for every port or for none.
    fn check_consistent(&mut self, tools: &[&str]) {
        let target = self.session.target();
        for tool in tools {
            if let Some((answered, absent)) = self.optional.get(*tool)
                && !answered.is_empty()
                && !absent.is_empty()
            {
                self.errors.push(format!(
                    "{target}: `{}` gave no answer, though `{}` did: an installed {tool} \
                     answers for every Mellanox port, so the capture has a hole",
                    absent.join("`, `"),
                    answered[0]
                ));
            }
        }
    }

    /// Runs a command that must succeed and parses its standard output.
    fn parsed<T>(
        &mut self,
        file: &str,
        argv: &[&str],
        need: Need,
        parser: impl Fn(&str) -> Result<T, parse::ParseError>,
    ) -> Option<T> {
        let output = self.run(file, argv, need)?;
        let command = argv.join(" ");
        let target = self.session.target();
        if output.status != 0 {
            self.errors.push(format!(
                "{target}: `{command}` exited with status {}: {}",
                output.status,
                output.stderr_line()
            ));
            return None;
        }
        let text = String::from_utf8_lossy(&output.stdout);
        parser(&text)
            .map_err(|e| {
                self.errors
                    .push(format!("{target}: `{command}` output ({file}): {e}"))
            })
            .ok()
    }
}

/// Reads the Linux host behind `transport`.
pub fn capture(transport: &dyn CommandTransport) -> SourceCapture {
    let mut commands = Commands {
        session: Session::new(transport),
        errors: Vec::new(),
        optional: BTreeMap::new(),
    };
    let mut facts = Facts::new();
    let Some(links) = commands.parsed(
        "ip-link.json",
        &["ip", "-j", "-d", "link", "show"],
        Need::Required,
        parse::parse_ip_link,
    ) else {
        return SourceCapture {
            target: commands.session.target(),
            facts,
            status: SourceStatus::Failed,
            error: Some(SourceError::unread(commands.errors)),
            notes: Vec::new(),
        };
    };
    let devlink = commands.parsed(
        "devlink-info.json",
        &["devlink", "-j", "dev", "info"],
        Need::Optional,
        parse::parse_devlink_info,
    );
    // One `mlxconfig` query per device, whose ports share it.
    let mut mlxconfig: BTreeMap<String, Option<MlxConfig>> = BTreeMap::new();
    for link in physical_ports(&mut commands, &links) {
        if commands.session.is_unreachable() {
            break;
        }
        port_facts(
            &mut commands,
            link,
            devlink.as_deref(),
            &mut mlxconfig,
            &mut facts,
        );
    }
    commands.check_consistent(&["mlnx_qos", "mlxconfig"]);
    let status = if commands.errors.is_empty() {
        SourceStatus::Complete
    } else {
        SourceStatus::Partial
    };
    SourceCapture {
        target: commands.session.target(),
        facts,
        status,
        error: (!commands.errors.is_empty()).then(|| SourceError::unread(commands.errors)),
        notes: Vec::new(),
    }
}

/// The physical Ethernet ports of `links` (no bond, VLAN or bridge); none is an error.
fn physical_ports<'l>(
    commands: &mut Commands<'_>,
    links: &'l [parse::Link],
) -> Vec<&'l parse::Link> {
    let physical: Vec<&parse::Link> = links
        .iter()
        .filter(|l| l.link_type == "ether" && l.kind.is_none())
        .collect();
    if physical.is_empty() {
        let target = commands.session.target();
        commands.errors.push(format!(
            "{target}: `ip -j -d link show` lists no physical Ethernet port"
        ));
    }
    physical
}

/// One port's facts, keyed by its permanent MAC: its driver, DCB, pause and `mlnx_qos`
/// settings, then what its PCI device says (`devlink`, `mlxconfig`).
fn port_facts(
    commands: &mut Commands<'_>,
    link: &parse::Link,
    devlink: Option<&[parse::DevlinkDevice]>,
    mlxconfig: &mut BTreeMap<String, Option<MlxConfig>>,
    facts: &mut Facts,
) {
    let name = link.name.as_str();
    let printed = link
        .permanent_address
        .as_deref()
        .or(link.address.as_deref());
    let mac = printed.and_then(MacAddr::parse);
    if let (Some(printed), None) = (printed, mac) {
        // ip prints an Ethernet port's address as six hex bytes: anything else is damage,
        // and keying the port by name instead would move all its facts.
        commands.output_error(
            "ip -j -d link show",
            "ip-link.json",
            format!("{name}: address {printed:?} is not a MAC address"),
        );
        return;
    }
    let mac = mac.filter(|m| !m.is_zero());
    let key = port_key(mac, "name", name);
    let mut nic = NicFacts::new(facts, Side::Os, &key);
    nic.set("name", name);
    let driver = driver_facts(commands, name, &mut nic);
    let dcbx_known = dcb_facts(commands, name, &mut nic);
    pause_facts(commands, name, &mut nic);
    // mlnx_qos and mlxconfig know only Mellanox ports: an onboard Intel or Broadcom port
    // beside ConnectX ports is not asked, and so is no hole in their answers.
    let mellanox = driver.as_ref().is_some_and(|d| mellanox_driver(&d.driver));
    if mellanox {
        mlnx_qos_facts(commands, name, dcbx_known, &mut nic);
    }
    let Some(driver) = driver else {
        return;
    };
    let in_devlink = devlink
        .into_iter()
        .flatten()
        .any(|d| d.driver.as_deref() == Some(driver.driver.as_str()));
    let Some(bus) = driver.bus_info.clone() else {
        if mellanox || in_devlink {
            commands.output_error(
                &format!("ethtool -i {name}"),
                &format!("ethtool-driver-{name}.txt"),
                format!(
                    "empty `bus-info:`, expected the PCI address of this {} port (mlxconfig \
                     and devlink are read by it)",
                    driver.driver
                ),
            );
        }
        return;
    };
    devlink_facts(commands, devlink, name, &driver, &bus, in_devlink, &mut nic);
    if mellanox {
        mlxconfig_port_facts(commands, mlxconfig, &bus, &mut nic);
    }
}

/// `ethtool -i IF`: the port's driver and firmware, and the driver's answer for what follows.
fn driver_facts(
    commands: &mut Commands<'_>,
    name: &str,
    nic: &mut NicFacts<'_>,
) -> Option<parse::DriverInfo> {
    let driver = commands.parsed(
        &format!("ethtool-driver-{name}.txt"),
        &["ethtool", "-i", name],
        Need::Required,
        parse::parse_ethtool_driver_info,
    )?;
    nic.set("driver/name", driver.driver.as_str());
    if let Some(version) = &driver.version {
        nic.set("driver/version", version.as_str());
    }
    if let Some(firmware) = &driver.firmware_version {
        nic.set("firmware/version", firmware.as_str());
    }
    Some(driver)
}

/// `mlnx_qos -i IF` of a Mellanox port, when installed: its trust and, unless `dcb` told it
/// (`dcbx_known`), who controls DCBX.
fn mlnx_qos_facts(
    commands: &mut Commands<'_>,
    name: &str,
    dcbx_known: bool,
    nic: &mut NicFacts<'_>,
) {
    let Some(qos) = commands.parsed(
        &format!("mlnx_qos-{name}.txt"),
        &["mlnx_qos", "-i", name],
        Need::Optional,
        parse::parse_mlnx_qos,
    ) else {
        return;
    };
    // Both read the same kernel flag; `dcb` answers first, mlnx_qos fills in without it.
    if let Some(control) = qos.dcbx.as_ref().filter(|_| !dcbx_known) {
        nic.set("dcbx_control", control.as_str());
    }
    if let Some(trust) = &qos.trust {
        nic.set("trust", trust.as_str());
    }
}

/// What `devlink dev info` says of the port's PCI device `bus`: its pending firmware, or
/// that it disagrees with `ethtool -i` or misses a port of a driver it lists
/// (`in_devlink`).
fn devlink_facts(
    commands: &mut Commands<'_>,
    devlink: Option<&[parse::DevlinkDevice]>,
    name: &str,
    driver: &parse::DriverInfo,
    bus: &str,
    in_devlink: bool,
    nic: &mut NicFacts<'_>,
) {
    match devlink
        .into_iter()
        .flatten()
        .find(|d| d.handle.ends_with(bus))
    {
        Some(device) if device.driver.as_deref().is_some_and(|d| d != driver.driver) => {
            commands.output_error(
                "devlink -j dev info",
                "devlink-info.json",
                format!(
                    "{bus} is driven by {:?}, though `ethtool -i {name}` says {:?}",
                    device.driver.as_deref().unwrap_or_default(),
                    driver.driver
                ),
            );
        }
        Some(device) => {
            for (key, _, stored) in device.pending_update() {
                nic.set(
                    &format!(
                        "firmware/pending/{}",
                        driftgate_snapshot::path_segment(&key)
                    ),
                    stored.as_str(),
                );
            }
        }
        None if in_devlink => commands.output_error(
            "devlink -j dev info",
            "devlink-info.json",
            format!(
                "no device for {bus} ({name}), though it lists other {} devices: expected \
                 every port of a devlink driver",
                driver.driver
            ),
        ),
        None => {}
    }
}

/// `mlxconfig -d PCI -e query` of a Mellanox port's device `bus` (asked once per device,
/// kept in `mlxconfig`), when installed: the port's firmware settings.
fn mlxconfig_port_facts(
    commands: &mut Commands<'_>,
    mlxconfig: &mut BTreeMap<String, Option<MlxConfig>>,
    bus: &str,
    nic: &mut NicFacts<'_>,
) {
    let config = mlxconfig
        .entry(bus.to_owned())
        .or_insert_with(|| {
            commands.parsed(
                &format!("mlxconfig-{bus}.txt"),
                &["mlxconfig", "-d", bus, "-e", "query"],
                Need::Optional,
                parse::parse_mlxconfig_query,
            )
        })
        .clone();
    let Some(config) = config else {
        return;
    };
    let pci = config.device.as_deref().filter(|d| !d.starts_with('/'));
    if pci.is_some_and(|d| d != bus) {
        commands.output_error(
            &format!("mlxconfig -d {bus} -e query"),
            &format!("mlxconfig-{bus}.txt"),
            format!("`Device:` is {pci:?}, expected {bus:?}"),
        );
    } else if let Err(missing) = mlxconfig_facts(&config, port_number(bus), nic) {
        commands.output_error(
            &format!("mlxconfig -d {bus} -e query"),
            &format!("mlxconfig-{bus}.txt"),
            missing,
        );
    }
}

/// Whether `ethtool -i` names a Mellanox (NVIDIA ConnectX) driver, the ports `mlnx_qos` and
/// `mlxconfig` answer for.
fn mellanox_driver(driver: &str) -> bool {
    driver.starts_with("mlx4_") || driver.starts_with("mlx5_")
}

/// `dcb ets/pfc/dcbx show dev IF`; "Operation not supported" means the device has no DCB.
fn dcb_facts(commands: &mut Commands<'_>, name: &str, nic: &mut NicFacts<'_>) -> bool {
    let ets_file = format!("dcb-ets-{name}.json");
    let Some(ets) = commands.run(
        &ets_file,
        &["dcb", "-j", "ets", "show", "dev", name],
        Need::Required,
    ) else {
        return false;
    };
    if ets.status != 0 && parse::dcb_unsupported(&String::from_utf8_lossy(&ets.stderr)) {
        nic.set("dcb_supported", false);
        return false;
    }
    if ets.status != 0 {
        let target = commands.session.target();
        commands.errors.push(format!(
            "{target}: `dcb -j ets show dev {name}` exited with status {}: {}",
            ets.status,
            ets.stderr_line()
        ));
        return false;
    }
    let ets = match parse::parse_dcb_ets(&String::from_utf8_lossy(&ets.stdout)) {
        Ok(ets) => ets,
        Err(e) => {
            commands.output_error(&format!("dcb -j ets show dev {name}"), &ets_file, e);
            return false;
        }
    };
    let Some(willing) = ets.willing.filter(|_| {
        !(ets.tc_bandwidth.is_empty() || ets.tc_algorithm.is_empty() || ets.priority_tc.is_empty())
    }) else {
        commands.output_error(
            &format!("dcb -j ets show dev {name}"),
            &ets_file,
            "expected `willing`, `tc_bw`, `tc_tsa` and `prio_tc`: the whole `dcb ets show`",
        );
        return false;
    };
    nic.set("dcb_supported", true);
    nic.set("dcbx_willing", willing);
    let pfc_file = format!("dcb-pfc-{name}.json");
    let pfc = commands.parsed(
        &pfc_file,
        &["dcb", "-j", "pfc", "show", "dev", name],
        Need::Required,
        parse::parse_dcb_pfc,
    );
    if pfc.as_ref().is_some_and(|p| p.enabled.is_empty()) {
        commands.output_error(
            &format!("dcb -j pfc show dev {name}"),
            &pfc_file,
            "expected `prio_pfc`: the whole `dcb pfc show`",
        );
    }
    nic.dcb(
        "operational",
        &DcbTables {
            priority_tc: ets.priority_tc,
            algorithm: ets
                .tc_algorithm
                .iter()
                .map(|a| a.to_ascii_lowercase())
                .collect(),
            bandwidth: ets.tc_bandwidth,
            pfc: pfc.map(|p| p.enabled).unwrap_or_default(),
        },
    );
    let dcbx = commands.parsed(
        &format!("dcb-dcbx-{name}.json"),
        &["dcb", "-j", "dcbx", "show", "dev", name],
        Need::Required,
        parse::parse_dcb_dcbx,
    );
    if let Some(dcbx) = &dcbx {
        let control = if dcbx.lld_managed {
            DcbxControl::Firmware
        } else if dcbx.host {
            DcbxControl::Os
        } else {
            DcbxControl::None
        };
        nic.set("dcbx_control", control.as_str());
        let support = match (dcbx.ieee, dcbx.cee) {
            (true, true) => "ieee+cee",
            (true, false) => "ieee",
            (false, true) => "cee",
            (false, false) => "none",
        };
        nic.set("dcbx_support/current", support);
    }
    dcbx.is_some()
}

/// `ethtool --json -a IF`, or its text form on an older ethtool.
fn pause_facts(commands: &mut Commands<'_>, name: &str, nic: &mut NicFacts<'_>) {
    let json_file = format!("ethtool-pause-{name}.json");
    let pause = match commands.run(
        &json_file,
        &["ethtool", "--json", "-a", name],
        Need::Optional,
    ) {
        // Checked first: with the message ethtool prints `[  ]`, whatever its exit status.
        Some(output) if parse::ethtool_unsupported(&String::from_utf8_lossy(&output.stderr)) => {
            Some(None)
        }
        Some(output) if output.status == 0 => {
            match parse::parse_ethtool_pause_json(&String::from_utf8_lossy(&output.stdout)) {
                Ok(pause) => Some(Some(pause)),
                // ethtool knew `--json` and answered: a damaged answer is an error, not a
                // reason to ask the text form.
                Err(e) => {
                    commands.output_error(&format!("ethtool --json -a {name}"), &json_file, e);
                    return;
                }
            }
        }
        _ => None,
    };
    let pause = match pause {
        Some(pause) => pause,
        None => {
            let text_file = format!("ethtool-pause-{name}.txt");
            let Some(output) = commands.run(&text_file, &["ethtool", "-a", name], Need::Required)
            else {
                return;
            };
            let text = format!(
                "{}\n{}",
                String::from_utf8_lossy(&output.stdout),
                String::from_utf8_lossy(&output.stderr)
            );
            match parse::parse_ethtool_pause_text(&text) {
                Ok(pause) => pause,
                Err(e) => {
                    let target = commands.session.target();
                    commands.errors.push(format!(
                        "{target}: `ethtool -a {name}` output ({text_file}): {e}"
                    ));
                    return;
                }
            }
        }
    };
    match pause {
        None => nic.set("pause/supported", false),
        Some(pause) => {
            nic.set("pause/autonegotiate", pause.autonegotiate);
            nic.set("pause/rx", pause.rx);
            nic.set("pause/tx", pause.tx);
        }
    }
}

/// Port number on a multi-port card from the PCI function (`0000:07:00.1` → 2).
fn port_number(bus: &str) -> u32 {
    bus.rsplit('.')
        .next()
        .and_then(|f| f.parse::<u32>().ok())
        .map_or(1, |f| f + 1)
}

/// The firmware LLDP agent's parameters, one configuration block of the firmware: mlxconfig
/// prints all of them for a port, or none (firmware without the agent); with the leaf of each.
const FIRMWARE_LLDP: [(&str, &str); 6] = [
    ("LLDP_NB_DCBX", "firmware_lldp/dcbx"),
    ("LLDP_NB_RX_MODE", "firmware_lldp/rx_mode"),
    ("LLDP_NB_TX_MODE", "firmware_lldp/tx_mode"),
    ("DCBX_IEEE", "firmware_lldp/ieee"),
    ("DCBX_CEE", "firmware_lldp/cee"),
    ("DCBX_WILLING", "firmware_lldp/willing"),
];

/// The firmware's own LLDP/DCBX agent per port, current and next-boot values. `Err` names
/// the agent's parameters missing for a port of the device when others of its block are there.
fn mlxconfig_facts(config: &MlxConfig, port: u32, nic: &mut NicFacts<'_>) -> Result<(), String> {
    let suffix = format!("_P{port}");
    // Every port the device lists (one device answers for all its ports), not only this one.
    let mut ports: Vec<u32> = config
        .values
        .keys()
        .filter_map(|key| {
            let (base, n) = key.rsplit_once("_P")?;
            FIRMWARE_LLDP
                .iter()
                .any(|(known, _)| *known == base)
                .then_some(n.parse().ok())?
        })
        .collect();
    ports.sort_unstable();
    ports.dedup();
    for listed in ports {
        let missing: Vec<String> = FIRMWARE_LLDP
            .iter()
            .map(|(base, _)| format!("{base}_P{listed}"))
            .filter(|name| !config.values.contains_key(name))
            .collect();
        if !missing.is_empty() {
            return Err(format!(
                "no {} row, though other firmware LLDP parameters of port {listed} are there: \
                 expected the whole block",
                missing.join(", ")
            ));
        }
    }
    for (key, value) in &config.values {
        // The other port's parameters belong to the other port.
        let other_port = key
            .rsplit_once("_P")
            .is_some_and(|(_, n)| n.parse::<u32>().is_ok_and(|n| n != port));
        if other_port {
            continue;
        }
        let current = value.current.as_deref().unwrap_or(&value.next_boot);
        nic.set(
            &format!("mlxconfig/{}", driftgate_snapshot::path_segment(key)),
            current,
        );
        let Some(base) = key.strip_suffix(&suffix) else {
            continue;
        };
        let Some((_, leaf)) = FIRMWARE_LLDP.iter().find(|(known, _)| *known == base) else {
            continue;
        };
        let next_leaf = leaf.replacen("firmware_lldp/", "firmware_lldp/next_boot/", 1);
        match (parse::mlx_bool(current), value.as_bool()) {
            (Some(now), Some(next)) => {
                nic.set(leaf, now);
                nic.set(&next_leaf, next);
            }
            _ => {
                nic.set(leaf, current.to_ascii_lowercase());
                nic.set(&next_leaf, value.next_boot.to_ascii_lowercase());
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
