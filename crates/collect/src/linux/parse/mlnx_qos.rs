//! Mellanox `mlnx_qos -i IF`: who runs DCBX, trust state, PFC and traffic classes.

use super::output::{key_value, require_output};
use crate::lines::{ParseError, numbered_lines};
use driftgate_model::DcbxControl;

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
    /// DCBX mode (`OS controlled` or `Firmware controlled`); `None` from versions that do not
    /// print it.
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

/// The trust states mlnx_qos prints.
const TRUST: [&str; 3] = ["pcp", "dscp", "none"];

/// The transmission selection algorithms mlnx_qos prints after `tsa:`.
const TSA: [&str; 4] = ["ets", "strict", "vendor", "unknown"];

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
/// is required, and the `tc:` blocks, printed last, must map each priority 0..7 exactly
/// once: an output cut anywhere before its last line is an error. Trust states and
/// algorithms are checked against what mlnx_qos prints.
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
            let trust = trust.trim();
            if !TRUST.contains(&trust) {
                return Err(ParseError::at(
                    number,
                    format!("unknown trust state {trust:?}, expected one of {TRUST:?}"),
                ));
            }
            qos.trust = Some(trust.to_owned());
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
        return Err(ParseError::whole(
            "no PFC `enabled` row (not mlnx_qos output)",
        ));
    }
    let mapped: Vec<u8> = qos
        .traffic_classes
        .iter()
        .flat_map(|tc| tc.priorities.iter().copied())
        .collect();
    let unmapped: Vec<u8> = (0..8).filter(|p| !mapped.contains(p)).collect();
    if !unmapped.is_empty() {
        return Err(ParseError::whole(format!(
            "priorities {unmapped:?} are under no `tc:` line: mlnx_qos maps every priority \
                 0..7 to a traffic class, so the output is cut short"
        )));
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
            ("tsa", value) if TSA.contains(&value) => algorithm = Some(value.to_owned()),
            ("tsa", value) => {
                return Err(ParseError::at(
                    line,
                    format!("unknown tsa {value:?}, expected one of {TSA:?}"),
                ));
            }
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
    if usize::from(tc) >= 8 {
        return Err(ParseError::at(
            line,
            format!("traffic class {tc} out of range 0..7"),
        ));
    }
    let algorithm =
        algorithm.ok_or_else(|| ParseError::at(line, "traffic class without `tsa:`"))?;
    if algorithm == "ets" && bandwidth.is_none() {
        return Err(ParseError::at(
            line,
            "`tsa: ets` without `bw: N%` (mlnx_qos prints the share of every ets class)",
        ));
    }
    Ok(MlnxTc {
        tc,
        algorithm,
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
    if priority >= 8 {
        return Err(ParseError::at(
            line,
            format!("priority {priority} out of range 0..7"),
        ));
    }
    if classes.iter().any(|tc| tc.priorities.contains(&priority)) {
        return Err(ParseError::at(
            line,
            format!("priority {priority} is under two `tc:` lines"),
        ));
    }
    let tc = classes
        .last_mut()
        .ok_or_else(|| ParseError::at(line, "priority before any `tc:` line"))?;
    tc.priorities.push(priority);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::linux::parse::tests::{assert_broken, parsed, strings};

    #[test]
    fn mlnx_qos_os_and_firmware_controlled() {
        let tc =
            |tc, algorithm: &str, bandwidth, rate_limit: Option<&str>, priorities: &[u8]| MlnxTc {
                tc,
                algorithm: algorithm.to_owned(),
                bandwidth,
                rate_limit: rate_limit.map(str::to_owned),
                priorities: priorities.to_vec(),
            };
        let os = MlnxQos {
            dcbx: Some(DcbxControl::Os),
            trust: Some("dscp".into()),
            pfc_enabled: vec![false, false, false, true, false, false, false, false],
            traffic_classes: vec![
                tc(0, "ets", Some(40), None, &[0, 1, 2, 4, 5, 6, 7]),
                tc(3, "ets", Some(60), None, &[3]),
            ],
            unsupported: vec![],
        };
        let firmware = MlnxQos {
            dcbx: Some(DcbxControl::Firmware),
            trust: Some("pcp".into()),
            pfc_enabled: vec![false, false, false, false, true, false, false, false],
            traffic_classes: vec![
                tc(0, "vendor", None, None, &[1]),
                tc(1, "ets", Some(50), None, &[0, 2, 3]),
                tc(4, "ets", Some(50), Some("25.0 Gbps"), &[4]),
                tc(6, "strict", None, None, &[5, 6, 7]),
            ],
            unsupported: strings(["Buffers commands"]),
        };
        assert_eq!(parsed("mlnx-qos-os-controlled.txt", parse_mlnx_qos), os);
        assert_eq!(
            parsed("mlnx-qos-firmware-controlled.txt", parse_mlnx_qos),
            firmware
        );

        // Old versions: no DCBX line, `up:` lines with `skprio:` lines under them.
        let old = "ETS features are not supported on your system\n\
                   Rate limit is not supported on your system!\n\
                   PFC configuration:\n\
                   \tpriority    0   1   2   3   4   5   6   7\n\
                   \tenabled     0   0   0   0   0   0   0   0   \n\
                   tc: 0 ratelimit: unlimited, tsa: strict\n\
                   \t up: 0\n\t\t skprio: 0\n\t\t skprio: 1\n\t up: 1\n\
                   tc: 1 ratelimit: unlimited, tsa: strict\n\
                   \t up: 2\n\t up: 3\n\t up: 4\n\t up: 5\n\t up: 6\n\t up: 7\n";
        let old = parse_mlnx_qos(old).unwrap();
        assert_eq!(old.dcbx, None);
        assert_eq!(
            old.traffic_classes,
            [
                tc(0, "strict", None, None, &[0, 1]),
                tc(1, "strict", None, None, &[2, 3, 4, 5, 6, 7])
            ]
        );
        assert_eq!(old.unsupported, strings(["ETS features", "Rate limit"]));
    }

    #[test]
    fn broken_inputs_name_the_line() {
        assert_broken(&[
            (
                "mlnx_qos",
                "PFC configuration:\n\tenabled 0 0 0 1 0 0 0 0\ntc: 0 ratelimit: unlimited, tsa: ets, bw: 50%\n\t priority:  0\n",
                0,
                "priorities [1, 2, 3, 4, 5, 6, 7] are under no `tc:` line",
            ),
            (
                "mlnx_qos",
                "PFC configuration:\n\tenabled 0 0 0 1 0 0 0 0\ntc: 0 ratelimit: unlimited, tsa: et\n",
                3,
                "unknown tsa \"et\"",
            ),
            (
                "mlnx_qos",
                "PFC configuration:\n\tenabled 0 0 0 1 0 0 0 0\ntc: 0 ratelimit: unlimited, tsa: ets\n",
                3,
                "`tsa: ets` without `bw: N%`",
            ),
            (
                "mlnx_qos",
                "PFC configuration:\n\tenabled 0 0 0 1 0 0 0 0\ntc: 9 ratelimit: unlimited, tsa: strict\n",
                3,
                "traffic class 9 out of range",
            ),
            (
                "mlnx_qos",
                "PFC configuration:\n\tenabled 0 0 0 1 0 0 0 0\ntc: 0 ratelimit: unlimited, tsa: strict\n\t priority:  8\n",
                4,
                "priority 8 out of range",
            ),
            (
                "mlnx_qos",
                "PFC configuration:\n\tenabled 0 0 0 1 0 0 0 0\ntc: 0 ratelimit: unlimited, tsa: strict\n\t priority:  1\ntc: 1 ratelimit: unlimited, tsa: strict\n\t priority:  1\n",
                6,
                "priority 1 is under two `tc:` lines",
            ),
            (
                "mlnx_qos",
                "Priority trust state: pc\n",
                1,
                "unknown trust state \"pc\"",
            ),
            ("mlnx_qos", "DCBX mode: Sometimes\n", 1, "unknown DCBX mode"),
            (
                "mlnx_qos",
                "DCBX mode: OS controlled\nPFC configuration:\n\tenabled     0   0   2   0   0   0   0   0\n",
                3,
                "PFC flag must be 0 or 1",
            ),
            (
                "mlnx_qos",
                "PFC configuration:\n\tenabled 0 0 0 1\n",
                2,
                "expected 8 PFC flags",
            ),
            (
                "mlnx_qos",
                "PFC configuration:\n\tenabled 0 0 0 1 0 0 0 0\ntc: x ratelimit: unlimited, tsa: ets, bw: 50%\n",
                3,
                "bad traffic class",
            ),
            (
                "mlnx_qos",
                "PFC configuration:\n\tenabled 0 0 0 1 0 0 0 0\ntc: 0 ratelimit: unlimited, tsa: ets, bw: lots\n",
                3,
                "bad bandwidth",
            ),
            (
                "mlnx_qos",
                "PFC configuration:\n\tenabled 0 0 0 1 0 0 0 0\ntc: 0 ratelimit: unlimited, color: red\n",
                3,
                "unknown traffic class field",
            ),
            (
                "mlnx_qos",
                "PFC configuration:\n\tenabled 0 0 0 1 0 0 0 0\ntc: 0 ratelimit: unlimited\n",
                3,
                "without `tsa:`",
            ),
            (
                "mlnx_qos",
                "PFC configuration:\n\tenabled 0 0 0 1 0 0 0 0\ntc: 3 ratelimit: unlimited, tsa: ets, bw: 50%\n\t priority:  nine\n",
                4,
                "bad priority",
            ),
            ("mlnx_qos", "\t priority:  3\n", 1, "unexpected line"),
            (
                "mlnx_qos",
                "DCBX mode: OS controlled\r\n",
                0,
                "no PFC `enabled` row",
            ),
            (
                "mlnx_qos",
                "Interface name is required\nUsage: mlnx_qos -i <interface> [options]\n",
                1,
                "unexpected line",
            ),
        ]);
    }
}
