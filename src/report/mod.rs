//! Renderers of a [`Report`]: each writes to a writer and decides nothing.
//!
//! The text renderer always writes ANSI styles; the caller's stream strips them when colour is
//! off (not a terminal, `NO_COLOR`). Imports: [`crate::compare`] only.

pub mod json;
pub mod markdown;
pub mod text;

use crate::compare::{Finding, FirmwareChange, Report, Role, Severity, Verdict};
use crate::snapshot::SourceStatus;

/// The firmware named beside a finding, in one line: `NIC firmware of this port: nic/…/bmc/
/// firmware/version "22.31.1014" → "22.36.1010"; other firmware changed: …`, or `None` when
/// the finding names none.
pub fn firmware_line(finding: &Finding) -> Option<String> {
    if finding.firmware.is_empty() {
        return None;
    }
    let list = |this_port: bool| -> Vec<String> {
        finding
            .firmware
            .iter()
            .filter(|f| f.this_port == this_port)
            .map(firmware_change)
            .collect()
    };
    let (own, other) = (list(true), list(false));
    let mut parts = Vec::new();
    if own.is_empty() {
        parts.push("no firmware change of this port".to_owned());
    } else {
        parts.push(format!("NIC firmware of this port: {}", own.join(", ")));
    }
    if !other.is_empty() {
        let word = if own.is_empty() {
            "firmware changed on this host"
        } else {
            "other firmware changed"
        };
        // The whole list is in the report's "firmware changed alongside"; beside each of fifty
        // findings a few are enough to point at it.
        let shown = if other.len() > OTHERS_SHOWN {
            format!(
                "{}, +{} more (all under \"firmware changed alongside\")",
                other[..OTHERS_SHOWN].join(", "),
                other.len() - OTHERS_SHOWN
            )
        } else {
            other.join(", ")
        };
        parts.push(format!("{word}: {shown}"));
    }
    Some(parts.join("; "))
}

/// How many firmware changes of the rest of the host a finding names before "+N more".
const OTHERS_SHOWN: usize = 2;

fn firmware_change(f: &FirmwareChange) -> String {
    let value = |v: &Option<crate::snapshot::FactValue>| {
        v.as_ref()
            .map_or_else(|| "(none)".to_owned(), ToString::to_string)
    };
    let staged = if f.pending {
        " (staged, takes effect at the next reboot)"
    } else {
        ""
    };
    format!("{} {} → {}{staged}", f.path, value(&f.old), value(&f.new))
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

fn status_phrase(status: SourceStatus) -> &'static str {
    match status {
        SourceStatus::Complete => "is complete",
        SourceStatus::Partial => "is partial",
        SourceStatus::Failed => "failed",
    }
}

fn role_word(role: Role) -> &'static str {
    match role {
        Role::Snapshot => "snapshot",
        Role::Baseline => "baseline",
    }
}

fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{n} {word}s")
    }
}

#[cfg(test)]
mod tests;
