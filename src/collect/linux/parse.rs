//! Parsers of Linux NIC tool output: iproute2 `ip -j -d link` and `dcb -j`, `ethtool`,
//! `devlink -j dev info`, and the Mellanox tools `mlnx_qos` and `mlxconfig`.
//! Pure functions over text; every error names the line (1-based, 0 for the input as a whole).
//!
//! The JSON formats go through serde into private mirror types, so a wrong type or a missing
//! key is reported at the line where serde_json met it, and the public types stay free of the
//! tools' key names. Empty output is always an error: the tools print nothing when they fail,
//! and a default value would pass that failure off as a configuration.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde::de::DeserializeOwned;

pub use crate::collect::lines::ParseError;
use crate::collect::lines::numbered_lines;

/// Rejects blank output, which every tool here prints when it fails.
fn require_output(text: &str, what: &str) -> Result<(), ParseError> {
    if text.trim().is_empty() {
        return Err(ParseError::at(0, format!("empty {what} output")));
    }
    Ok(())
}

/// Deserializes tool JSON, moving serde_json's position into the error's line.
fn from_json<T: DeserializeOwned>(text: &str, what: &str) -> Result<T, ParseError> {
    require_output(text, what)?;
    serde_json::from_str(text).map_err(|e| {
        let full = e.to_string();
        let position = format!(" at line {} column {}", e.line(), e.column());
        let message = full.strip_suffix(&position).unwrap_or(&full);
        ParseError::at(
            e.line(),
            format!("{what}: {message} (column {})", e.column()),
        )
    })
}

/// `Some` only for a non-empty value: the tools print `""` or nothing for "not set".
fn non_empty(value: Option<String>) -> Option<String> {
    value.filter(|v| !v.trim().is_empty())
}

/// Whether a tool's message says the device lacks the feature (`EOPNOTSUPP`).
fn says_unsupported(text: &str) -> bool {
    text.to_ascii_lowercase()
        .contains("operation not supported")
}

/// `on`/`off` as ethtool prints booleans.
fn on_off(line: usize, value: &str) -> Result<bool, ParseError> {
    match value.trim() {
        "on" => Ok(true),
        "off" => Ok(false),
        other => Err(ParseError::at(
            line,
            format!("expected `on` or `off`, found {other:?}"),
        )),
    }
}

/// Splits `key: value` at the first colon; `what` names the expected format in the error.
fn key_value<'a>(line: usize, text: &'a str, what: &str) -> Result<(&'a str, &'a str), ParseError> {
    text.split_once(':')
        .map(|(key, value)| (key.trim(), value.trim()))
        .ok_or_else(|| ParseError::at(line, format!("expected {what}, found {:?}", text.trim())))
}

/// A network interface from `ip -j -d link show`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Link {
    /// Interface name (`ifname`).
    pub name: String,
    /// Link layer type (`link_type`): `ether`, `loopback`, `infiniband`, ….
    pub link_type: String,
    /// Current hardware address; on a bond port it is the bond's, not the port's own.
    pub address: Option<String>,
    /// The burned-in address (`permaddr`); ip prints it only when it differs from `address`,
    /// so it is the stable identity of a bond port whose address the bond rewrote.
    pub permanent_address: Option<String>,
    /// Virtual device kind (`linkinfo.info_kind`): `bond`, `vlan`, `bridge`, …; `None` for a
    /// physical port, including one enslaved to a bond (that has only `info_slave_kind`).
    pub kind: Option<String>,
    /// The bond or bridge this interface is enslaved to (`master`).
    pub master: Option<String>,
    /// Interface flags as ip prints them (`UP`, `LOWER_UP`, `SLAVE`, …).
    pub flags: Vec<String>,
    /// MTU in bytes, when printed.
    pub mtu: Option<u32>,
}

#[derive(Deserialize)]
struct RawLink {
    ifname: String,
    link_type: String,
    address: Option<String>,
    permaddr: Option<String>,
    linkinfo: Option<RawLinkInfo>,
    master: Option<String>,
    #[serde(default)]
    flags: Vec<String>,
    mtu: Option<u32>,
}

#[derive(Deserialize)]
struct RawLinkInfo {
    info_kind: Option<String>,
}

/// Parses `ip -j -d link show` (also without `-d`, which only lacks `kind`): an array of
/// interface objects.
pub fn parse_ip_link(text: &str) -> Result<Vec<Link>, ParseError> {
    let raw: Vec<RawLink> = from_json(text, "ip link JSON")?;
    Ok(raw
        .into_iter()
        .map(|l| Link {
            name: l.ifname,
            link_type: l.link_type,
            address: non_empty(l.address),
            permanent_address: non_empty(l.permaddr),
            kind: non_empty(l.linkinfo.and_then(|i| i.info_kind)),
            master: non_empty(l.master),
            flags: l.flags,
            mtu: l.mtu,
        })
        .collect())
}

/// IEEE 802.1Qaz ETS from `dcb -j ets show dev IF`. Arrays are positional and empty when
/// `dcb` was asked for other fields only.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Ets {
    /// Whether the port accepts the peer's ETS configuration (`willing`).
    pub willing: Option<bool>,
    /// Bandwidth percent per traffic class (`tc_bw`), index = TC.
    pub tc_bandwidth: Vec<u8>,
    /// Transmission selection algorithm per traffic class (`tc_tsa`): `strict`, `cbs`, `ets`,
    /// `vendor`, or `???` for a value dcb does not know; index = TC.
    pub tc_algorithm: Vec<String>,
    /// Traffic class per priority (`prio_tc`), index = priority.
    pub priority_tc: Vec<u8>,
}

#[derive(Deserialize)]
struct RawEts {
    willing: Option<bool>,
    #[serde(default)]
    tc_bw: Vec<u8>,
    #[serde(default)]
    tc_tsa: Vec<String>,
    #[serde(default)]
    prio_tc: Vec<u8>,
}

/// Parses `dcb -j ets show dev IF` (one object). An object with none of the ETS keys is an
/// error: dcb never prints one, so it is not ETS output.
pub fn parse_dcb_ets(text: &str) -> Result<Ets, ParseError> {
    let raw: RawEts = from_json(text, "dcb ets JSON")?;
    let ets = Ets {
        willing: raw.willing,
        tc_bandwidth: raw.tc_bw,
        tc_algorithm: raw.tc_tsa,
        priority_tc: raw.prio_tc,
    };
    if ets == Ets::default() {
        return Err(ParseError::at(
            0,
            "no ETS keys (willing, tc_bw, tc_tsa, prio_tc)",
        ));
    }
    Ok(ets)
}

/// IEEE 802.1Qbb PFC from `dcb -j pfc show dev IF`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Pfc {
    /// How many traffic classes can have PFC at once (`pfc_cap`).
    pub capability: Option<u8>,
    /// PFC on or off per priority (`prio_pfc`), index = priority 0..7.
    pub enabled: Vec<bool>,
    /// MACsec bypass capability (`macsec_bypass`).
    pub macsec_bypass: Option<bool>,
    /// Allowance for the PFC round trip, in bit times (`delay`).
    pub delay: Option<u32>,
}

#[derive(Deserialize)]
struct RawPfc {
    pfc_cap: Option<u8>,
    #[serde(default)]
    prio_pfc: Vec<bool>,
    macsec_bypass: Option<bool>,
    delay: Option<u32>,
}

/// Parses `dcb -j pfc show dev IF` (one object; `-s` statistics are ignored). An object with
/// none of the PFC keys is an error.
pub fn parse_dcb_pfc(text: &str) -> Result<Pfc, ParseError> {
    let raw: RawPfc = from_json(text, "dcb pfc JSON")?;
    let pfc = Pfc {
        capability: raw.pfc_cap,
        enabled: raw.prio_pfc,
        macsec_bypass: raw.macsec_bypass,
        delay: raw.delay,
    };
    if pfc == Pfc::default() {
        return Err(ParseError::at(
            0,
            "no PFC keys (pfc_cap, prio_pfc, macsec_bypass, delay)",
        ));
    }
    Ok(pfc)
}

/// The DCBX mode bits from `dcb -j dcbx show dev IF`. `host` set means the OS runs DCBX
/// (lldpad, mlnx_qos in OS mode); `lld_managed` means the firmware does.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Dcbx {
    /// DCBX runs in the host (`host`).
    pub host: bool,
    /// DCBX runs in the NIC's embedded LLDP agent (`lld_managed`).
    pub lld_managed: bool,
    /// The IEEE 802.1Qaz flavor is on (`ieee`).
    pub ieee: bool,
    /// The CEE flavor is on (`cee`).
    pub cee: bool,
    /// Static configuration, no negotiation (`static`).
    pub static_: bool,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawDcbx {
    host: bool,
    lld_managed: bool,
    ieee: bool,
    cee: bool,
    #[serde(rename = "static")]
    static_: bool,
}

/// Parses `dcb -j dcbx show dev IF`. dcb emits only the bits that are set, so `{}` is valid:
/// no bit set.
pub fn parse_dcb_dcbx(text: &str) -> Result<Dcbx, ParseError> {
    let raw: RawDcbx = from_json(text, "dcb dcbx JSON")?;
    Ok(Dcbx {
        host: raw.host,
        lld_managed: raw.lld_managed,
        ieee: raw.ieee,
        cee: raw.cee,
        static_: raw.static_,
    })
}

/// Whether `dcb`'s stderr says the device has no DCB support (`Attribute read: Operation not
/// supported`). That is a fact about the device to record, not a collection failure.
pub fn dcb_unsupported(stderr: &str) -> bool {
    says_unsupported(stderr)
}

/// Whether `ethtool`'s stderr says the device lacks the queried feature (`netlink error:
/// Operation not supported`, or the ioctl path's `Cannot get …: Operation not supported`).
/// Check it before [`parse_ethtool_pause_json`]: on that error ethtool prints `[  ]`.
pub fn ethtool_unsupported(stderr: &str) -> bool {
    says_unsupported(stderr)
}

/// Link-level pause (802.3x flow control) from `ethtool -a IF`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pause {
    /// Pause is negotiated with the link partner.
    pub autonegotiate: bool,
    /// Receiving pause frames is on (configured).
    pub rx: bool,
    /// Sending pause frames is on (configured).
    pub tx: bool,
    /// The negotiated RX result; printed only while autonegotiation is on.
    pub rx_negotiated: Option<bool>,
    /// The negotiated TX result; printed only while autonegotiation is on.
    pub tx_negotiated: Option<bool>,
}

#[derive(Deserialize)]
struct RawPause {
    autonegotiate: bool,
    rx: bool,
    tx: bool,
    negotiated: Option<RawNegotiated>,
}

#[derive(Deserialize)]
struct RawNegotiated {
    rx: Option<bool>,
    tx: Option<bool>,
}

/// Parses `ethtool --json -a IF`: an array holding one interface object. An empty array is
/// an error; ethtool prints one when the request failed, and [`ethtool_unsupported`] on its
/// stderr tells "pause unsupported" from other failures.
pub fn parse_ethtool_pause_json(text: &str) -> Result<Pause, ParseError> {
    let mut raw: Vec<RawPause> = from_json(text, "ethtool pause JSON")?;
    let Some(pause) = raw.pop() else {
        return Err(ParseError::at(
            0,
            "no interface in the array (ethtool failed; see its stderr)",
        ));
    };
    if !raw.is_empty() {
        return Err(ParseError::at(
            0,
            format!("expected one interface, found {}", raw.len() + 1),
        ));
    }
    let negotiated = pause.negotiated;
    Ok(Pause {
        autonegotiate: pause.autonegotiate,
        rx: pause.rx,
        tx: pause.tx,
        rx_negotiated: negotiated.as_ref().and_then(|n| n.rx),
        tx_negotiated: negotiated.as_ref().and_then(|n| n.tx),
    })
}

/// Parses `ethtool -a IF` text. Returns `Ok(None)` when the text says `Operation not
/// supported` (`Cannot get device pause settings: …` or `netlink error: …`): the device has no
/// pause settings, which is a fact, not a failure. ethtool writes that message to stderr and
/// the `Pause parameters for IF:` heading to stdout, so pass both. A `Statistics:` block
/// (`-I`) is skipped.
pub fn parse_ethtool_pause_text(text: &str) -> Result<Option<Pause>, ParseError> {
    require_output(text, "ethtool -a")?;
    if says_unsupported(text) {
        return Ok(None);
    }
    const KEYS: [&str; 5] = [
        "Autonegotiate",
        "RX",
        "TX",
        "RX negotiated",
        "TX negotiated",
    ];
    let mut values: [Option<bool>; 5] = [None; 5];
    let mut in_statistics = false;
    for (number, line) in numbered_lines(text) {
        if in_statistics && line.starts_with(char::is_whitespace) {
            continue;
        }
        in_statistics = false;
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with("Pause parameters for ") {
            continue;
        }
        if trimmed == "Statistics:" {
            in_statistics = true;
            continue;
        }
        let (key, value) = key_value(number, trimmed, "`Field: on|off`")?;
        let index = KEYS
            .iter()
            .position(|k| *k == key)
            .ok_or_else(|| ParseError::at(number, format!("unknown pause field {key:?}")))?;
        values[index] = Some(on_off(number, value)?);
    }
    let required = |index: usize| {
        values[index].ok_or_else(|| ParseError::at(0, format!("no `{}:` line", KEYS[index])))
    };
    Ok(Some(Pause {
        autonegotiate: required(0)?,
        rx: required(1)?,
        tx: required(2)?,
        rx_negotiated: values[3],
        tx_negotiated: values[4],
    }))
}

/// Driver and firmware identity from `ethtool -i IF`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DriverInfo {
    /// Kernel driver (`driver`), e.g. `mlx5_core`.
    pub driver: String,
    /// Driver version (`version`); in-tree drivers print the kernel release or nothing.
    pub version: Option<String>,
    /// Firmware version as the driver formats it (`firmware-version`), e.g.
    /// `22.39.1002 (MT_0000000359)` or bnxt's `228.0.130.0/pkg 228.1.111.0`.
    pub firmware_version: Option<String>,
    /// PCI address (`bus-info`).
    pub bus_info: Option<String>,
}

/// Parses `ethtool -i IF`: `key: value` lines with kebab-case keys; empty values become
/// `None`, and `driver` is required. A line whose key is not kebab-case (an error message
/// such as `Cannot get driver information: …`) is an error at that line.
pub fn parse_ethtool_driver_info(text: &str) -> Result<DriverInfo, ParseError> {
    require_output(text, "ethtool -i")?;
    let mut fields: BTreeMap<&str, (usize, &str)> = BTreeMap::new();
    for (number, line) in numbered_lines(text) {
        if line.trim().is_empty() {
            continue;
        }
        let (key, value) = key_value(number, line, "`key: value`")?;
        if key.is_empty()
            || !key
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        {
            return Err(ParseError::at(
                number,
                format!("not `ethtool -i` output: {:?}", line.trim()),
            ));
        }
        fields.insert(key, (number, value));
    }
    let field = |key: &str| {
        fields
            .get(key)
            .map(|(_, v)| (*v).to_owned())
            .filter(|v| !v.is_empty())
    };
    let driver = match fields.get("driver") {
        None => return Err(ParseError::at(0, "no `driver:` line")),
        Some((number, "")) => return Err(ParseError::at(*number, "empty driver name")),
        Some((_, driver)) => (*driver).to_owned(),
    };
    Ok(DriverInfo {
        driver,
        version: field("version"),
        firmware_version: field("firmware-version"),
        bus_info: field("bus-info"),
    })
}

/// One device of `devlink -j dev info`. Version keys (`fw.mgmt.api`) contain dots and are kept
/// whole.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DevlinkDevice {
    /// The devlink handle, e.g. `pci/0000:5e:00.0`.
    pub handle: String,
    /// Kernel driver (`driver`).
    pub driver: Option<String>,
    /// Device serial number (`serial_number`), which tells a swapped card.
    pub serial_number: Option<String>,
    /// Versions of parts that cannot change (board id, ASIC), by key.
    pub fixed: BTreeMap<String, String>,
    /// Versions currently running, by key.
    pub running: BTreeMap<String, String>,
    /// Versions in flash, active after the next reset or reboot, by key.
    pub stored: BTreeMap<String, String>,
}

impl DevlinkDevice {
    /// Keys present in both `running` and `stored` with different values, as (key, running,
    /// stored): firmware flashed but not yet activated, so the next reboot changes behavior.
    pub fn pending_update(&self) -> Vec<(String, String, String)> {
        self.running
            .iter()
            .filter_map(|(key, running)| {
                let stored = self.stored.get(key)?;
                (stored != running).then(|| (key.clone(), running.clone(), stored.clone()))
            })
            .collect()
    }
}

#[derive(Deserialize)]
struct RawDevlinkInfo {
    info: BTreeMap<String, RawDevlinkDevice>,
}

#[derive(Deserialize)]
struct RawDevlinkDevice {
    driver: Option<String>,
    serial_number: Option<String>,
    #[serde(default)]
    versions: RawVersions,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawVersions {
    fixed: BTreeMap<String, String>,
    running: BTreeMap<String, String>,
    stored: BTreeMap<String, String>,
}

/// Parses `devlink -j dev info` (with or without `-p`): `{"info": {HANDLE: {...}}}`. Devices
/// come out ordered by handle; `{"info": {}}` (no devlink devices) is an empty list.
pub fn parse_devlink_info(text: &str) -> Result<Vec<DevlinkDevice>, ParseError> {
    let raw: RawDevlinkInfo = from_json(text, "devlink dev info JSON")?;
    Ok(raw
        .info
        .into_iter()
        .map(|(handle, d)| DevlinkDevice {
            handle,
            driver: non_empty(d.driver),
            serial_number: non_empty(d.serial_number),
            fixed: d.versions.fixed,
            running: d.versions.running,
            stored: d.versions.stored,
        })
        .collect())
}

/// Who runs DCBX, per `mlnx_qos`'s `DCBX mode:` line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DcbxControl {
    /// `OS controlled`: the host sets ETS/PFC (the DCBX host bit is set).
    Os,
    /// `Firmware controlled`: the NIC negotiates with the switch and may override host settings.
    Firmware,
}

/// One traffic class line of `mlnx_qos` with the priorities mapped to it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MlnxTc {
    /// Traffic class number.
    pub tc: u8,
    /// Transmission selection: `ets`, `strict`, `vendor`, or `unknown`.
    pub algorithm: String,
    /// Bandwidth percent, printed for `ets` only.
    pub bandwidth: Option<u8>,
    /// Rate limit as printed (`25.0 Gbps`); `None` when `unlimited`.
    pub rate_limit: Option<String>,
    /// Priorities mapped to this class.
    pub priorities: Vec<u8>,
}

/// The QoS state of one interface from `mlnx_qos -i IF`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MlnxQos {
    /// DCBX mode; `None` from versions that do not print it.
    pub dcbx: Option<DcbxControl>,
    /// Priority trust state: `pcp`, `dscp`, or `none`.
    pub trust: Option<String>,
    /// PFC on or off per priority, index = priority 0..7.
    pub pfc_enabled: Vec<bool>,
    /// Traffic classes in printed order (only those with priorities, unless `-a`).
    pub traffic_classes: Vec<MlnxTc>,
    /// Features the tool reported unsupported (`ETS features`, `Buffers commands`, …): when
    /// ETS is unsupported the printed classes are defaults, not the device's state.
    pub unsupported: Vec<String>,
}

/// Which block indented `mlnx_qos` lines belong to.
#[derive(Clone, Copy, PartialEq, Eq)]
enum QosBlock {
    None,
    Skipped,
    Pfc,
    Tc,
}

/// Parses `mlnx_qos -i IF` text. The dscp2prio and default-priority blocks, buffer sizes,
/// cable length and the lldpad warning are skipped; other unrecognized lines are errors, so
/// a usage message or a traceback is not mistaken for a configuration. The PFC `enabled` row
/// is required.
pub fn parse_mlnx_qos(text: &str) -> Result<MlnxQos, ParseError> {
    require_output(text, "mlnx_qos")?;
    let mut qos = MlnxQos::default();
    let mut pfc_seen = false;
    let mut block = QosBlock::None;
    for (number, line) in numbered_lines(text) {
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with("******") {
            continue;
        }
        if line.starts_with(char::is_whitespace) {
            match block {
                QosBlock::Skipped => {}
                QosBlock::Pfc => {
                    if let Some(flags) = trimmed.strip_prefix("enabled") {
                        qos.pfc_enabled = pfc_row(number, flags)?;
                        pfc_seen = true;
                    } else if !(trimmed.starts_with("priority") || trimmed.starts_with("buffer")) {
                        return Err(unexpected(number, trimmed));
                    }
                }
                QosBlock::Tc => tc_member(number, trimmed, &mut qos.traffic_classes)?,
                QosBlock::None => return Err(unexpected(number, trimmed)),
            }
            continue;
        }
        block = QosBlock::None;
        if let Some(mode) = trimmed.strip_prefix("DCBX mode:") {
            qos.dcbx = Some(match mode.trim() {
                "OS controlled" => DcbxControl::Os,
                "Firmware controlled" => DcbxControl::Firmware,
                other => {
                    return Err(ParseError::at(
                        number,
                        format!("unknown DCBX mode {other:?}"),
                    ));
                }
            });
        } else if let Some(trust) = trimmed.strip_prefix("Priority trust state:") {
            qos.trust = non_empty(Some(trust.trim().to_owned()));
        } else if trimmed == "dscp2prio mapping:" || trimmed == "default priority:" {
            block = QosBlock::Skipped;
        } else if trimmed == "PFC configuration:" {
            block = QosBlock::Pfc;
        } else if let Some(rest) = trimmed.strip_prefix("tc:") {
            qos.traffic_classes.push(tc_line(number, rest)?);
            block = QosBlock::Tc;
        } else if let Some(subject) = trimmed
            .trim_end_matches('!')
            .strip_suffix(" not supported on your system")
        {
            let subject = subject
                .strip_suffix(" is")
                .or_else(|| subject.strip_suffix(" are"))
                .unwrap_or(subject);
            qos.unsupported.push(subject.to_owned());
        } else if !(trimmed.starts_with("Receive buffer size") || trimmed.starts_with("Cable len:"))
        {
            return Err(unexpected(number, trimmed));
        }
    }
    if !pfc_seen {
        return Err(ParseError::at(
            0,
            "no PFC `enabled` row (not mlnx_qos output)",
        ));
    }
    Ok(qos)
}

/// A line that is no part of `mlnx_qos` output, such as a usage message or a traceback.
fn unexpected(line: usize, text: &str) -> ParseError {
    ParseError::at(line, format!("unexpected line {text:?}"))
}

/// The PFC `enabled` row: eight 0/1 flags.
fn pfc_row(line: usize, flags: &str) -> Result<Vec<bool>, ParseError> {
    let flags = flags
        .split_whitespace()
        .map(|flag| match flag {
            "0" => Ok(false),
            "1" => Ok(true),
            other => Err(ParseError::at(
                line,
                format!("PFC flag must be 0 or 1, found {other:?}"),
            )),
        })
        .collect::<Result<Vec<bool>, ParseError>>()?;
    if flags.len() != 8 {
        return Err(ParseError::at(
            line,
            format!("expected 8 PFC flags, found {}", flags.len()),
        ));
    }
    Ok(flags)
}

/// `tc: 0 ratelimit: unlimited, tsa: ets, bw: 40%` after the `tc:` prefix.
fn tc_line(line: usize, rest: &str) -> Result<MlnxTc, ParseError> {
    let (head, tail) = rest.split_once(',').unwrap_or((rest, ""));
    let (tc, rate) = match head.split_once("ratelimit:") {
        Some((tc, rate)) => (tc, Some(rate.trim())),
        None => (head, None),
    };
    let tc = tc
        .trim()
        .parse::<u8>()
        .map_err(|_| ParseError::at(line, format!("bad traffic class {:?}", tc.trim())))?;
    let (mut algorithm, mut bandwidth) = (None, None);
    for part in tail.split(',').filter(|p| !p.trim().is_empty()) {
        match key_value(line, part, "`tsa: …` or `bw: N%`")? {
            ("tsa", value) => algorithm = Some(value.to_owned()),
            ("bw", value) => {
                let percent = value.strip_suffix('%').unwrap_or(value).trim();
                bandwidth = Some(
                    percent
                        .parse::<u8>()
                        .map_err(|_| ParseError::at(line, format!("bad bandwidth {value:?}")))?,
                );
            }
            (key, _) => {
                return Err(ParseError::at(
                    line,
                    format!("unknown traffic class field {key:?}"),
                ));
            }
        }
    }
    Ok(MlnxTc {
        tc,
        algorithm: algorithm.ok_or_else(|| ParseError::at(line, "traffic class without `tsa:`"))?,
        bandwidth,
        rate_limit: rate.filter(|r| *r != "unlimited").map(str::to_owned),
        priorities: Vec::new(),
    })
}

/// An indented line under a `tc:` line: `priority:  N`. Old versions print `up: N` with
/// `skprio:` (socket priority) lines under it, which are not priorities.
fn tc_member(line: usize, text: &str, classes: &mut [MlnxTc]) -> Result<(), ParseError> {
    let (key, value) = key_value(line, text, "`priority: N`")?;
    if key == "skprio" {
        return Ok(());
    }
    if key != "priority" && key != "up" {
        return Err(unexpected(line, text));
    }
    let priority = value
        .parse::<u8>()
        .map_err(|_| ParseError::at(line, format!("bad priority {value:?}")))?;
    let tc = classes
        .last_mut()
        .ok_or_else(|| ParseError::at(line, "priority before any `tc:` line"))?;
    tc.priorities.push(priority);
    Ok(())
}

/// One parameter of `mlxconfig query`. Values keep the text before the parentheses:
/// `True(1)` → `True`, `ALL(2)` → `ALL`, `0` → `0`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MlxValue {
    /// Factory default (`-e` only).
    pub default: Option<String>,
    /// Value in effect now (`-e` only).
    pub current: Option<String>,
    /// Value after the next firmware reset or reboot.
    pub next_boot: String,
    /// The row was marked `*` (`-e` only): the next-boot value differs from the default or
    /// current one.
    pub modified: bool,
}

impl MlxValue {
    /// The next-boot value as a boolean (`True`/`False`), `None` for other values.
    pub fn as_bool(&self) -> Option<bool> {
        mlx_bool(&self.next_boot)
    }
}

/// An mlxconfig value text as a boolean: `True` → true, `False` → false, else `None`.
pub fn mlx_bool(value: &str) -> Option<bool> {
    match value {
        "True" => Some(true),
        "False" => Some(false),
        _ => None,
    }
}

/// The firmware configuration of one device from `mlxconfig -d DEV [-e] query`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MlxConfig {
    /// The device as mlxconfig names it (`Device:` or, in old versions, `PCI device:`).
    pub device: Option<String>,
    /// The chip (`Device type:`), e.g. `ConnectX6DX`.
    pub device_type: Option<String>,
    /// The board part number (`Name:`).
    pub name: Option<String>,
    /// Parameters by name.
    pub values: BTreeMap<String, MlxValue>,
}

/// A value column of the `Configurations:` header.
#[derive(Clone, Copy, PartialEq, Eq)]
enum MlxColumn {
    Default,
    Current,
    NextBoot,
}

/// Parses `mlxconfig -d DEV -e query` (columns Default, Current, Next Boot) or plain
/// `mlxconfig -d DEV query` (Next Boot only). `-E-` lines are errors; `-W-` warnings and the
/// closing `The '*' shows …` legend are skipped; more than one device is an error.
pub fn parse_mlxconfig_query(text: &str) -> Result<MlxConfig, ParseError> {
    require_output(text, "mlxconfig query")?;
    let mut config = MlxConfig::default();
    let mut columns: Option<Vec<MlxColumn>> = None;
    let mut devices = 0;
    for (number, line) in numbered_lines(text) {
        let trimmed = line.trim();
        if trimmed.is_empty()
            || trimmed.chars().all(|c| c == '-')
            || trimmed.starts_with("-W-")
            || trimmed.starts_with("The '*'")
        {
            continue;
        }
        if let Some(message) = trimmed.strip_prefix("-E-") {
            return Err(ParseError::at(
                number,
                format!("mlxconfig error: {}", message.trim()),
            ));
        }
        if trimmed.starts_with("Device #") {
            devices += 1;
            if devices > 1 {
                return Err(ParseError::at(number, "more than one device"));
            }
            continue;
        }
        if let Some(header) = trimmed.strip_prefix("Configurations:") {
            columns = Some(mlx_columns(number, header)?);
            continue;
        }
        match &columns {
            None => {
                let (key, value) = key_value(number, trimmed, "`Field: value`")?;
                let value = non_empty(Some(value.to_owned()));
                match key {
                    "Device" | "PCI device" => config.device = value,
                    "Device type" => config.device_type = value,
                    "Name" => config.name = value,
                    _ => {}
                }
            }
            Some(columns) => {
                let (name, value) = mlx_row(number, trimmed, columns)?;
                config.values.insert(name, value);
            }
        }
    }
    if columns.is_none() {
        return Err(ParseError::at(0, "no `Configurations:` header"));
    }
    Ok(config)
}

/// The column names after `Configurations:`; `Next Boot` is required.
fn mlx_columns(line: usize, header: &str) -> Result<Vec<MlxColumn>, ParseError> {
    let mut columns = Vec::new();
    let mut words = header.split_whitespace();
    while let Some(word) = words.next() {
        columns.push(match word {
            "Default" => MlxColumn::Default,
            "Current" => MlxColumn::Current,
            "Next" if words.next() == Some("Boot") => MlxColumn::NextBoot,
            _ => {
                return Err(ParseError::at(
                    line,
                    format!("unknown column in {:?}", header.trim()),
                ));
            }
        });
    }
    if !columns.contains(&MlxColumn::NextBoot) {
        return Err(ParseError::at(line, "no `Next Boot` column"));
    }
    Ok(columns)
}

/// A parameter row: optional `*`, the name, one value per column.
fn mlx_row(
    line: usize,
    text: &str,
    columns: &[MlxColumn],
) -> Result<(String, MlxValue), ParseError> {
    let modified = text.starts_with('*');
    let mut words = text.trim_start_matches('*').split_whitespace();
    let name = words
        .next()
        .ok_or_else(|| ParseError::at(line, "`*` without a parameter"))?;
    let values: Vec<&str> = words.collect();
    if values.len() != columns.len() {
        return Err(ParseError::at(
            line,
            format!(
                "{name}: expected {} value(s), found {}",
                columns.len(),
                values.len()
            ),
        ));
    }
    let mut value = MlxValue {
        default: None,
        current: None,
        next_boot: String::new(),
        modified,
    };
    for (column, text) in columns.iter().zip(values) {
        let text = mlx_value_text(text);
        match column {
            MlxColumn::Default => value.default = Some(text),
            MlxColumn::Current => value.current = Some(text),
            MlxColumn::NextBoot => value.next_boot = text,
        }
    }
    Ok((name.to_owned(), value))
}

/// `True(1)` → `True`; a value without a trailing `(…)` stays whole.
fn mlx_value_text(value: &str) -> String {
    match value.rfind('(') {
        Some(open) if open > 0 && value.ends_with(')') => value[..open].to_owned(),
        _ => value.to_owned(),
    }
}

#[cfg(test)]
mod tests;
