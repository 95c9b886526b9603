//! `ethtool --json -a IF` and its text form `ethtool -a IF`: link-level pause (802.3x).

use serde::Deserialize;

use super::output::{from_json, key_value, on_off, require_output, says_unsupported};
use crate::lines::{ParseError, numbered_lines};

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
        return Err(ParseError::whole(
            "no interface in the array (ethtool failed; see its stderr)",
        ));
    };
    if !raw.is_empty() {
        return Err(ParseError::whole(format!(
            "expected one interface, found {}",
            raw.len() + 1
        )));
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
        values[index].ok_or_else(|| {
            ParseError::whole(format!(
                "no `{}:` line before the end of the output",
                KEYS[index]
            ))
        })
    };
    Ok(Some(Pause {
        autonegotiate: required(0)?,
        rx: required(1)?,
        tx: required(2)?,
        rx_negotiated: values[3],
        tx_negotiated: values[4],
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::linux::parse::tests::{
        assert_broken, assert_truncated_json_fails_at_its_last_line, parsed,
    };

    #[test]
    fn ethtool_pause_json_and_text_agree() {
        let negotiated = Pause {
            autonegotiate: true,
            rx: true,
            tx: true,
            rx_negotiated: Some(true),
            tx_negotiated: Some(false),
        };
        let off = Pause {
            autonegotiate: false,
            rx: false,
            tx: false,
            rx_negotiated: None,
            tx_negotiated: None,
        };
        assert_eq!(
            parsed("ethtool-pause.json", parse_ethtool_pause_json),
            negotiated
        );
        assert_eq!(
            parsed("ethtool-pause-statistics.json", parse_ethtool_pause_json),
            off
        );
        let text_cases = [
            ("ethtool-pause.txt", Some(negotiated)),
            ("ethtool-pause-statistics.txt", Some(off)),
            ("ethtool-pause-unsupported.txt", None),
            ("ethtool-pause-unsupported-netlink.txt", None),
        ];
        for (name, expected) in text_cases {
            assert_eq!(parsed(name, parse_ethtool_pause_text), expected, "{name}");
        }
        // The ioctl path separates the negotiated lines with a tab.
        let ioctl = "Pause parameters for eth2:\nAutonegotiate:\ton\nRX:\t\ton\nTX:\t\ton\n\
                     RX negotiated:\ton\nTX negotiated:\ton\n";
        let pause = parse_ethtool_pause_text(ioctl).unwrap().unwrap();
        assert_eq!(pause.tx_negotiated, Some(true));
    }

    #[test]
    fn broken_inputs_name_the_line() {
        assert_broken(&[
            ("pause json", "[  ]\n", 0, "no interface"),
            (
                "pause json",
                "[ {\n \"ifname\": \"eth0\",\n \"rx\": true,\n \"tx\": true\n } ]",
                5,
                "missing field `autonegotiate`",
            ),
            (
                "pause json",
                "[{\"autonegotiate\":false,\"rx\":true,\"tx\":true},\
                 {\"autonegotiate\":false,\"rx\":true,\"tx\":true}]",
                0,
                "expected one interface, found 2",
            ),
            (
                "pause text",
                "Pause parameters for eth0:\nAutonegotiate:\ton\nRX:\t\tmaybe\n",
                3,
                "expected `on` or `off`",
            ),
            (
                "pause text",
                "Pause parameters for eth0:\nAutonegotiate:\ton\nRX:\t\ton\n",
                0,
                "no `TX:` line before the end of the output",
            ),
            (
                "pause text",
                "Pause parameters for eth0:\nAutonegotiate: on\nFEC: on\n",
                3,
                "unknown pause field",
            ),
            (
                "pause text",
                "Pause parameters for eth0:\nAutonegotiate on\n",
                2,
                "expected `Field: on|off`",
            ),
            (
                "pause text",
                "netlink error: No such device\n",
                1,
                "unknown pause field",
            ),
        ]);
    }

    #[test]
    fn truncated_json_fails_at_its_last_line() {
        assert_truncated_json_fails_at_its_last_line("pause json", "ethtool-pause.json", 7);
    }
}
