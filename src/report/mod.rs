//! Renderers of a [`Report`]: each writes to a writer and decides nothing.
//!
//! The text renderer always writes ANSI styles; the caller's stream strips them when colour is
//! off (not a terminal, `NO_COLOR`). Imports: [`crate::compare`] only.

pub mod json;
pub mod markdown;
pub mod text;

use crate::compare::{Report, Role, Severity, Verdict};
use crate::snapshot::SourceStatus;

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
