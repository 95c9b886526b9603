//! The rows of a traffic-class table (`TC TSA Bandwidth Priorities`), and the priority lists
//! they and the flow-control lines print (`0-3,5-7`).

use super::format_list::error;
use crate::lines::ParseError;

/// One row of a traffic-class table.
#[derive(Debug)]
pub(super) struct ClassRow {
    pub(super) tc: u8,
    pub(super) algorithm: String,
    pub(super) bandwidth: Option<u8>,
    pub(super) priorities: Vec<u8>,
}

/// ` 0 ETS    70%       0-3,5-7` or ` 1 Strict           4`. ETS classes print their
/// bandwidth (some builds without `%`), strict ones do not.
pub(super) fn traffic_class(line: &str, number: usize) -> Result<ClassRow, ParseError> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let bad = || {
        error(
            number,
            format!("expected a traffic class row \"TC TSA Bandwidth Priorities\", found {line:?}"),
        )
    };
    let (tc, tsa, bandwidth, priorities) = match words.as_slice() {
        [tc, tsa, bandwidth, priorities] => (tc, tsa, Some(*bandwidth), priorities),
        [tc, tsa, priorities] => (tc, tsa, None, priorities),
        _ => return Err(bad()),
    };
    let tc: u8 = tc.parse().ok().filter(|t| *t < 8).ok_or_else(bad)?;
    let bandwidth = bandwidth
        .map(|b| {
            b.strip_suffix('%')
                .unwrap_or(b)
                .parse::<u8>()
                .ok()
                .filter(|b| *b <= 100)
                .ok_or_else(bad)
        })
        .transpose()?;
    let algorithm = tsa.to_ascii_lowercase();
    if !matches!(algorithm.as_str(), "ets" | "strict" | "cbs" | "vendor") {
        return Err(bad());
    }
    if algorithm == "ets" && bandwidth.is_none() {
        return Err(error(
            number,
            format!("an ETS traffic class without its bandwidth: {line:?}"),
        ));
    }
    Ok(ClassRow {
        tc,
        algorithm,
        bandwidth,
        priorities: ranges(priorities).ok_or_else(bad)?,
    })
}

/// `0-3,5-7` → `[0, 1, 2, 3, 5, 6, 7]` (priorities 0–7).
pub(super) fn ranges(text: &str) -> Option<Vec<u8>> {
    let mut values = Vec::new();
    for part in text.split(',') {
        let (from, to) = part.split_once('-').unwrap_or((part, part));
        let (from, to): (u8, u8) = (from.trim().parse().ok()?, to.trim().parse().ok()?);
        if from > to || to > 7 {
            return None;
        }
        values.extend(from..=to);
    }
    Some(values)
}
