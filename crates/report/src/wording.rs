//! The phrases every format words the same way: a finding's firmware line, its port, a value,
//! an origin, an allowance, a report's headline.

use driftgate_compare::{
    Allowance, Finding, FirmwareChange, FirmwareUnknown, Origin, Report, Role, Severity, Verdict,
};
use driftgate_snapshot::{FactValue, SourceStatus};

/// The firmware named beside a finding, in one line: what changed on the finding's own port,
/// one entry per old → new with every fact that says so (`NIC firmware of this port:
/// "22.31.1014" → "22.36.1010" (nic/…/bmc/firmware/version, firmware/nic.slot.3-1-1/version);
/// 2 other firmware changes on this host (listed above)`), "no firmware change of this port"
/// only when the port's firmware is known and did not change, why it cannot be named when it
/// is unknown ([`unknown_firmware`]), or `None` when the finding names no firmware and its
/// port's is known. The rest of the host's changes are only counted: the report lists them
/// once.
pub fn firmware_line(finding: &Finding) -> Option<String> {
    firmware_line_listed(finding, "listed above")
}

/// [`firmware_line`], saying where the report lists the host's other firmware changes
/// (`listed` replaces "listed above").
pub fn firmware_line_listed(finding: &Finding, listed: &str) -> Option<String> {
    if finding.firmware.is_empty() {
        return finding
            .firmware_unknown
            .map(|unknown| unknown_firmware(unknown).to_owned());
    }
    // Old → new, with the facts that report it, in the finding's order.
    let mut own: Vec<(String, Vec<String>)> = Vec::new();
    for f in finding.firmware.iter().filter(|f| f.this_port) {
        let change = firmware_change(f);
        match own.iter_mut().find(|(c, _)| *c == change) {
            Some((_, paths)) => paths.push(f.path.to_string()),
            None => own.push((change, vec![f.path.to_string()])),
        }
    }
    let others = finding.firmware.iter().filter(|f| !f.this_port).count();
    let mut parts = Vec::new();
    if own.is_empty() {
        parts.push(match finding.firmware_unknown {
            Some(unknown) => unknown_firmware(unknown).to_owned(),
            None => "no firmware change of this port".to_owned(),
        });
    } else {
        let own: Vec<String> = own
            .iter()
            .map(|(change, paths)| format!("{change} ({})", paths.join(", ")))
            .collect();
        parts.push(format!("NIC firmware of this port: {}", own.join(", ")));
    }
    if others > 0 {
        let word = if others == 1 { "change" } else { "changes" };
        let rest = if finding.firmware.iter().any(|f| f.this_port) {
            "other "
        } else {
            ""
        };
        parts.push(format!(
            "{others} {rest}firmware {word} on this host ({listed})"
        ));
    }
    Some(parts.join("; "))
}

/// Why a port's own firmware cannot be named, in words every report uses.
pub fn unknown_firmware(unknown: FirmwareUnknown) -> &'static str {
    match unknown {
        FirmwareUnknown::NotLinked => {
            "the BMC does not link this port to a firmware inventory entry"
        }
        FirmwareUnknown::NoSource => "no source names this port's firmware",
    }
}

/// The port a finding is about (`nic/<key>`), for naming its firmware once per port.
pub fn port_of(finding: &Finding) -> Option<&str> {
    let path = finding.path.as_str();
    let rest = path.strip_prefix("nic/")?;
    let key = rest.split('/').next()?;
    Some(&path[..4 + key.len()])
}

fn firmware_change(f: &FirmwareChange) -> String {
    let staged = if f.pending {
        " (staged, takes effect at the next reboot)"
    } else {
        ""
    };
    format!(
        "{} → {}{staged}",
        value_text(f.old.as_ref()),
        value_text(f.new.as_ref())
    )
}

/// A fact's value as every report writes it: `(none)` when the fact is absent.
pub fn value_text(value: Option<&FactValue>) -> String {
    value.map_or_else(|| "(none)".to_owned(), ToString::to_string)
}

/// Where a gate finding comes from, in words: `changed by the update`, …
pub fn origin_phrase(origin: Origin) -> &'static str {
    match origin {
        Origin::Update => "changed by the update",
        Origin::PreExisting => "pre-existing drift (already at pre)",
        Origin::Expected => "expected (firmware the update changed)",
    }
}

/// Where a gate finding comes from, as a property value: `update`, `pre_existing`,
/// `expected`.
pub fn origin_name(origin: Origin) -> &'static str {
    match origin {
        Origin::Update => "update",
        Origin::PreExisting => "pre_existing",
        Origin::Expected => "expected",
    }
}

/// What an allowance matches: `PATH=VALUE`, or `PATH` when it allows any value.
pub fn allowance_rule(a: &Allowance) -> String {
    match &a.value {
        Some(value) => format!("{}={value}", a.path),
        None => a.path.clone(),
    }
}

/// `allowed by PATH=VALUE (given at FILE:LINE): reason "…", ticket CHG-1, expires 2026-12-31`.
pub fn allowed_by(a: &Allowance) -> String {
    let mut parts = Vec::new();
    if let Some(reason) = &a.reason {
        parts.push(format!("reason {reason:?}"));
    }
    if let Some(ticket) = &a.ticket {
        parts.push(format!("ticket {ticket}"));
    }
    if let Some(expires) = a.expires {
        parts.push(format!("expires {expires}"));
    }
    let detail = if parts.is_empty() {
        String::new()
    } else {
        format!(": {}", parts.join(", "))
    };
    format!(
        "allowed by {} (given at {}){detail}",
        allowance_rule(a),
        a.given_at
    )
}

/// The one-line headline shared by every format, e.g.
/// `BLOCK azl-node01: 3 blocking, 1 warning, 2 info`.
pub fn headline(report: &Report) -> String {
    let host = &report.snapshot.host;
    let c = report.counts;
    let tally = {
        let mut parts = Vec::new();
        if c.block > 0 {
            parts.push(format!("{} blocking [{}]", c.block, blocking_ids(report)));
        }
        if c.warn > 0 {
            parts.push(plural(c.warn, "warning"));
        }
        if c.info > 0 {
            parts.push(format!("{} info", c.info));
        }
        parts.join(", ")
    };
    let against = match &report.baseline {
        Some(b) => format!("against baseline {}", b.origin),
        None => "invariants and expectations, no baseline".to_owned(),
    };
    let detail = match report.verdict {
        Verdict::Incomplete => {
            let sources: Vec<String> = report
                .incomplete_sources
                .iter()
                .map(|s| {
                    format!(
                        "{} source {} ({}) {}",
                        role_word(s.role),
                        s.name,
                        s.target,
                        status_phrase(s.status)
                    )
                })
                .collect();
            format!("{}; a partial capture never passes", sources.join("; "))
        }
        Verdict::Pass if tally.is_empty() => format!("no findings ({against})"),
        Verdict::Block if report.counts.block == 0 => {
            format!("{tally} ({against}; --strict: warnings block)")
        }
        _ => format!("{tally} ({against})"),
    };
    format!("{} {host}: {detail}", report.verdict.as_upper())
}

/// Distinct ids of blocking findings, at most five, in report order.
fn blocking_ids(report: &Report) -> String {
    const SHOWN: usize = 5;
    let mut ids: Vec<&str> = Vec::new();
    for finding in report
        .findings
        .iter()
        .filter(|f| f.severity == Severity::Block)
    {
        if !ids.contains(&finding.id.as_str()) {
            ids.push(&finding.id);
        }
    }
    let more = ids.len().saturating_sub(SHOWN);
    ids.truncate(SHOWN);
    let mut text = ids.join(", ");
    if more > 0 {
        text.push_str(&format!(", +{more} more"));
    }
    text
}

pub(crate) fn status_phrase(status: SourceStatus) -> &'static str {
    match status {
        SourceStatus::Complete => "is complete",
        SourceStatus::Partial => "is partial",
        SourceStatus::Failed => "failed",
    }
}

/// A source's role in words: `snapshot`, `baseline`, `pre-update`.
pub(crate) fn role_word(role: Role) -> &'static str {
    match role {
        Role::Snapshot => "snapshot",
        Role::Baseline => "baseline",
        Role::Pre => "pre-update",
    }
}

pub(crate) fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{n} {word}s")
    }
}
