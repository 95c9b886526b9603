//! iproute2 `dcb -j ets|pfc|dcbx show dev IF`: the IEEE DCB state the kernel holds for a port.

use serde::Deserialize;
use serde::de::IgnoredAny;

use super::output::{from_json, key_line, says_unsupported};
use crate::lines::ParseError;

/// Priorities and traffic classes of IEEE 802.1Q: dcb prints one array entry for each.
const EIGHT: usize = 8;

/// The transmission selection algorithms dcb prints (`???` for one it does not know).
const TSA: [&str; 5] = ["strict", "cbs", "ets", "vendor", "???"];

/// Checks that a positional array dcb printed has one entry per traffic class or priority.
fn eight<T>(text: &str, key: &str, values: &[T]) -> Result<(), ParseError> {
    if !values.is_empty() && values.len() != EIGHT {
        return Err(ParseError::new(
            key_line(text, key),
            format!("`{key}`: expected {EIGHT} entries, found {}", values.len()),
        ));
    }
    Ok(())
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
#[serde(deny_unknown_fields)]
struct RawEts {
    willing: Option<bool>,
    // Typed, so a damaged value is an error, though the facts do not use them.
    #[serde(rename = "ets_cap")]
    _ets_cap: Option<u8>,
    #[serde(rename = "cbs")]
    _cbs: Option<bool>,
    #[serde(rename = "pg_bw")]
    _pg_bw: Option<IgnoredAny>,
    #[serde(rename = "reco_tc_bw")]
    _reco_tc_bw: Option<IgnoredAny>,
    #[serde(rename = "reco_tc_tsa")]
    _reco_tc_tsa: Option<IgnoredAny>,
    #[serde(rename = "reco_prio_tc")]
    _reco_prio_tc: Option<IgnoredAny>,
    #[serde(default)]
    tc_bw: Vec<u8>,
    #[serde(default)]
    tc_tsa: Vec<String>,
    #[serde(default)]
    prio_tc: Vec<u8>,
}

/// Parses `dcb -j ets show dev IF` (one object). An object with none of the ETS keys is an
/// error: dcb never prints one, so it is not ETS output. So is a key dcb does not print, an
/// array without one entry per traffic class, an algorithm outside dcb's vocabulary, or a
/// class number past 7: each is a damaged answer, not a configuration.
pub fn parse_dcb_ets(text: &str) -> Result<Ets, ParseError> {
    let raw: RawEts = from_json(text, "dcb ets JSON")?;
    eight(text, "tc_bw", &raw.tc_bw)?;
    eight(text, "tc_tsa", &raw.tc_tsa)?;
    eight(text, "prio_tc", &raw.prio_tc)?;
    if let Some(bad) = raw.tc_tsa.iter().find(|t| !TSA.contains(&t.as_str())) {
        return Err(ParseError::new(
            key_line(text, "tc_tsa"),
            format!("`tc_tsa`: unknown algorithm {bad:?}, expected one of {TSA:?}"),
        ));
    }
    if let Some(bad) = raw.prio_tc.iter().find(|tc| usize::from(**tc) >= EIGHT) {
        return Err(ParseError::new(
            key_line(text, "prio_tc"),
            format!("`prio_tc`: traffic class {bad} out of range 0..7"),
        ));
    }
    if let Some(bad) = raw.tc_bw.iter().find(|bw| **bw > 100) {
        return Err(ParseError::new(
            key_line(text, "tc_bw"),
            format!("`tc_bw`: {bad}% is more than 100%"),
        ));
    }
    let ets = Ets {
        willing: raw.willing,
        tc_bandwidth: raw.tc_bw,
        tc_algorithm: raw.tc_tsa,
        priority_tc: raw.prio_tc,
    };
    if ets == Ets::default() {
        return Err(ParseError::whole(
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
#[serde(deny_unknown_fields)]
struct RawPfc {
    pfc_cap: Option<u8>,
    #[serde(rename = "requests")]
    _requests: Option<IgnoredAny>,
    #[serde(rename = "indications")]
    _indications: Option<IgnoredAny>,
    #[serde(default)]
    prio_pfc: Vec<bool>,
    macsec_bypass: Option<bool>,
    delay: Option<u32>,
}

/// Parses `dcb -j pfc show dev IF` (one object; `-s` statistics are ignored). An object with
/// none of the PFC keys is an error, and so are a key dcb does not print and a `prio_pfc`
/// without one flag per priority.
pub fn parse_dcb_pfc(text: &str) -> Result<Pfc, ParseError> {
    let raw: RawPfc = from_json(text, "dcb pfc JSON")?;
    eight(text, "prio_pfc", &raw.prio_pfc)?;
    let pfc = Pfc {
        capability: raw.pfc_cap,
        enabled: raw.prio_pfc,
        macsec_bypass: raw.macsec_bypass,
        delay: raw.delay,
    };
    if pfc == Pfc::default() {
        return Err(ParseError::whole(
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
#[serde(default, deny_unknown_fields)]
struct RawDcbx {
    host: bool,
    lld_managed: bool,
    ieee: bool,
    cee: bool,
    #[serde(rename = "static")]
    static_: bool,
}

/// Parses `dcb -j dcbx show dev IF`. dcb emits only the bits that are set, so `{}` is valid:
/// no bit set; a key outside the five bits is an error (a damaged bit name would otherwise
/// read as "not set").
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::linux::parse::tests::{
        assert_broken, assert_truncated_json_fails_at_its_last_line, parsed, strings,
    };

    #[test]
    fn dcb_ets_full_pretty_and_partial_shows() {
        let cases = [
            (
                "dcb-ets.json",
                Ets {
                    willing: Some(false),
                    tc_bandwidth: vec![40, 0, 0, 60, 0, 0, 0, 0],
                    tc_algorithm: strings([
                        "ets", "strict", "strict", "ets", "strict", "strict", "strict", "strict",
                    ]),
                    priority_tc: vec![0, 0, 0, 3, 0, 0, 0, 0],
                },
            ),
            (
                "dcb-ets-pretty.json",
                Ets {
                    willing: Some(true),
                    tc_bandwidth: vec![25, 25, 25, 25, 0, 0, 0, 0],
                    tc_algorithm: strings([
                        "ets", "ets", "ets", "ets", "strict", "strict", "vendor", "???",
                    ]),
                    priority_tc: vec![0, 1, 2, 3, 4, 5, 6, 7],
                },
            ),
            (
                "dcb-ets-prio-tc-only.json",
                Ets {
                    priority_tc: vec![0, 0, 0, 3, 0, 0, 0, 0],
                    ..Ets::default()
                },
            ),
        ];
        for (name, expected) in cases {
            assert_eq!(parsed(name, parse_dcb_ets), expected, "{name}");
        }
    }

    #[test]
    fn dcb_pfc_with_and_without_statistics() {
        let cases = [("dcb-pfc.json", 3, 32), ("dcb-pfc-statistics.json", 4, 0)];
        for (name, priority, delay) in cases {
            let mut enabled = vec![false; 8];
            enabled[priority] = true;
            let expected = Pfc {
                capability: Some(8),
                enabled,
                macsec_bypass: Some(false),
                delay: Some(delay),
            };
            assert_eq!(parsed(name, parse_dcb_pfc), expected, "{name}");
        }
    }

    #[test]
    fn dcb_dcbx_reads_only_the_bits_that_are_set() {
        let host = Dcbx {
            host: true,
            ieee: true,
            ..Dcbx::default()
        };
        let firmware = Dcbx {
            lld_managed: true,
            ieee: true,
            ..Dcbx::default()
        };
        assert_eq!(parsed("dcb-dcbx-host.json", parse_dcb_dcbx), host);
        assert_eq!(
            parsed("dcb-dcbx-lld-managed.json", parse_dcb_dcbx),
            firmware
        );
        assert_eq!(parse_dcb_dcbx("{}\n").unwrap(), Dcbx::default());
        let all = parse_dcb_dcbx(r#"{"cee":true,"static":true}"#).unwrap();
        assert!(all.cee && all.static_ && !all.host && !all.ieee);
    }

    #[test]
    fn broken_inputs_name_the_line() {
        assert_broken(&[
            (
                "dcb ets",
                "{\"willing\": false,\n\"tc_tsa\": [\"ets\", \"etz\"]}",
                2,
                "expected 8 entries, found 2",
            ),
            (
                "dcb ets",
                "{\"tc_tsa\": [\"ets\",\"ets\",\"ets\",\"ets\",\"ets\",\"ets\",\"ets\",\"etz\"]}",
                1,
                "unknown algorithm \"etz\"",
            ),
            (
                "dcb ets",
                "{\n\"prio_tc\": [0,0,0,9,0,0,0,0]\n}",
                2,
                "traffic class 9 out of range",
            ),
            (
                "dcb ets",
                "{\"tc_bw\": [0,0,0,101,0,0,0,0]}",
                1,
                "more than 100%",
            ),
            (
                "dcb ets",
                "{\"willing\": true, \"tc_bz\": []}",
                1,
                "unknown field `tc_bz`",
            ),
            (
                "dcb pfc",
                "{\"pfc_cap\":8,\n\"prio_pfc\":[false,false,false,true]}",
                2,
                "`prio_pfc`: expected 8 entries, found 4",
            ),
            (
                "dcb pfc",
                "{\"pfc_cap\":8,\"delai\":3}",
                1,
                "unknown field `delai`",
            ),
            ("dcb dcbx", "{\"hots\":true}", 1, "unknown field `hots`"),
            ("dcb ets", "{\"tc_bw\": [40, 300]}", 1, "expected u8"),
            (
                "dcb ets",
                "{\n\"willing\": false,\n\"tc_tsa\": [\"ets\", 3]\n}",
                3,
                "invalid type",
            ),
            ("dcb ets", "{\"ets_cap\": 8}", 0, "no ETS keys"),
            (
                "dcb ets",
                "{\"willing\": true}\n{\"willing\": true}\n",
                2,
                "trailing characters",
            ),
            (
                "dcb pfc",
                "{\"pfc_cap\":8,\n\"prio_pfc\":[0,0,0,1]}",
                2,
                "expected a boolean",
            ),
            ("dcb pfc", "{\"requests\":[1,2]}", 0, "no PFC keys"),
            ("dcb dcbx", "{\"host\":\"yes\"}", 1, "expected a boolean"),
            (
                "dcb dcbx",
                "Attribute read: Operation not supported\n",
                1,
                "expected value",
            ),
        ]);
    }

    #[test]
    fn truncated_json_fails_at_its_last_line() {
        assert_truncated_json_fails_at_its_last_line("dcb ets", "dcb-ets-pretty.json", 6);
    }
}
