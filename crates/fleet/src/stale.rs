//! Stale and missing: baselines older than `--stale-after`, inventory hosts without a
//! baseline, baselines without an inventory host, and hosts whose last good capture is older
//! than the threshold. The last good capture of each host is the store's nightly state, on
//! a branch of its own in the store's repository ([`driftgate_baseline::state`]).

use std::time::Duration;

use jiff::Timestamp;

use driftgate_compare::Severity;
use driftgate_report::document::FleetFinding;

/// One inventory host of the run, as the stale check sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct StaleInput {
    /// The host.
    pub host: String,
    /// When its baseline was captured; `None`: it has none.
    pub baseline_captured_at: Option<Timestamp>,
    /// It has a baseline that could not be read (misplaced, corrupt: the host is INCOMPLETE
    /// for it): not a missing one.
    pub baseline_unread: bool,
    /// Its last good capture (this run's, or the nightly state's).
    pub last_good: Option<Timestamp>,
}

/// The stale and missing findings of `hosts` and of `orphans` (baseline files of no inventory
/// host, as paths in the store: `baselines/<fleet>/<host>.json`), at `now`. Missing and orphan
/// baselines are always reported; ages only with `stale_after`. All warn. Sorted by rule,
/// then host (or file).
///
/// - `fleet/missing-baseline`: the host has no baseline.
/// - `fleet/stale-baseline`: its baseline was captured more than `stale_after` before `now`.
/// - `fleet/stale-capture`: its last complete capture is older than `stale_after`, or there
///   is none on record.
/// - `fleet/orphan-baseline`: a baseline file of no inventory host; it names no host (there is
///   none to judge), its `path` is the file.
pub fn findings(
    hosts: &[StaleInput],
    orphans: &[String],
    stale_after: Option<Duration>,
    now: Timestamp,
) -> Vec<FleetFinding> {
    let mut out = Vec::new();
    let finding =
        |rule: &str, host: Option<&str>, path: Option<&str>, message: String| FleetFinding {
            rule: rule.to_owned(),
            severity: Severity::Warn,
            cluster: None,
            hosts: host.into_iter().map(str::to_owned).collect(),
            path: path.map(str::to_owned),
            values: Vec::new(),
            majority: None,
            message,
        };
    for input in hosts {
        let host = input.host.as_str();
        let limit = stale_after.map(|limit| (limit, show_limit(limit)));
        match (input.baseline_captured_at, &limit) {
            (None, _) if input.baseline_unread => {}
            (None, _) => out.push(finding(
                "fleet/missing-baseline",
                Some(host),
                None,
                format!(
                    "{host} has no baseline: judged by invariants and expect rules only \
                     (promote its snapshot with `driftgate baseline promote`)"
                ),
            )),
            (Some(at), Some((limit, shown))) if older(at, *limit, now) => out.push(finding(
                "fleet/stale-baseline",
                Some(host),
                None,
                format!(
                    "baseline of {host} was captured {} ago (--stale-after {shown})",
                    show_age(at, now)
                ),
            )),
            _ => {}
        }
        if let Some((limit, shown)) = &limit {
            match input.last_good {
                None => out.push(finding(
                    "fleet/stale-capture",
                    Some(host),
                    None,
                    format!("no complete capture of {host} is on record (--stale-after {shown})"),
                )),
                Some(at) if older(at, *limit, now) => out.push(finding(
                    "fleet/stale-capture",
                    Some(host),
                    None,
                    format!(
                        "last complete capture of {host} was {} ago (--stale-after {shown})",
                        show_age(at, now)
                    ),
                )),
                Some(_) => {}
            }
        }
    }
    for file in orphans {
        out.push(finding(
            "fleet/orphan-baseline",
            None,
            Some(file),
            format!(
                "{file} is the baseline of no inventory host: remove it, or add its host to the \
                 inventory"
            ),
        ));
    }
    out.sort_by(|a, b| {
        a.rule
            .cmp(&b.rule)
            .then_with(|| a.hosts.cmp(&b.hosts))
            .then_with(|| a.path.cmp(&b.path))
    });
    out
}

/// Whether `at` is more than `limit` before `now` (a time in the future is not old).
fn older(at: Timestamp, limit: Duration, now: Timestamp) -> bool {
    let age = now.as_second().saturating_sub(at.as_second());
    u64::try_from(age).is_ok_and(|age| age > limit.as_secs())
}

/// `41 days`, `5 hours`, `12 minutes`: the age in the largest unit that says it.
fn show_age(at: Timestamp, now: Timestamp) -> String {
    let secs = u64::try_from(now.as_second().saturating_sub(at.as_second())).unwrap_or(0);
    let (n, unit) = match secs {
        s if s >= 2 * 86_400 => (s / 86_400, "days"),
        s if s >= 2 * 3_600 => (s / 3_600, "hours"),
        s => (s / 60, "minutes"),
    };
    match (n, unit) {
        (1, "minutes") => "1 minute".to_owned(),
        (n, unit) => format!("{n} {unit}"),
    }
}

/// A threshold as `parse_age` reads it: `30d`, `12h`, `90m`, `45s`.
fn show_limit(limit: Duration) -> String {
    let secs = limit.as_secs();
    match secs {
        s if s > 0 && s % 86_400 == 0 => format!("{}d", s / 86_400),
        s if s > 0 && s % 3_600 == 0 => format!("{}h", s / 3_600),
        s if s > 0 && s % 60 == 0 => format!("{}m", s / 60),
        s => format!("{s}s"),
    }
}

/// Parses `--stale-after`: `30d`, `12h`, `90m`, `45s`, or a plain number of days.
pub fn parse_age(text: &str) -> Result<Duration, String> {
    let expected = "expected an age such as 30d (days), 12h (hours), 90m (minutes), 45s \
                    (seconds) or a plain number of days";
    let trimmed = text.trim();
    let (number, unit) = match trimmed.char_indices().last() {
        Some((i, c)) if c.is_ascii_alphabetic() => (&trimmed[..i], c.to_ascii_lowercase()),
        _ => (trimmed, 'd'),
    };
    let seconds = match unit {
        'd' => 86_400,
        'h' => 3_600,
        'm' => 60,
        's' => 1,
        _ => return Err(format!("{text:?}: unknown unit {unit:?}; {expected}")),
    };
    if number.is_empty() || !number.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!("{text:?}: {expected}"));
    }
    number
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(seconds))
        .map(Duration::from_secs)
        .ok_or_else(|| format!("{text:?}: too large; {expected}"))
}

#[cfg(test)]
mod tests;
