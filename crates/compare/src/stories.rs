//! Root cause first: a report's findings grouped by the port or device they concern, one
//! story per port, most severe first.

use std::collections::{BTreeMap, HashSet};

use schemars::JsonSchema;
use serde::Serialize;

use super::fact_kind::is_peer_fact;
use super::fact_kind::{is_firmware_version, port_key};
use super::invariants::reading::port_label;
use super::severity::Severity;
use super::verdict::{Finding, FindingKind, Origin, Report};
use driftgate_snapshot::{FactPath, FactValue, Facts};

/// The findings about one port (`nic/<key>`) or one other subject (`host`, `storage/…`).
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct Story {
    /// `nic/<key>` for a port; the fact family otherwise.
    pub subject: String,
    /// How an operator knows it: `port "SLOT 3 Port 1" (00:0a:f7:12:34:56) on NIC.Slot.3`.
    pub label: String,
    /// The most severe finding's severity.
    pub severity: Severity,
    /// The story in one line, attribution first: `NIC.Slot.3 229.0.166.0 → 229.1.123.0
    /// changed nic/…/bmc/…/dcbx_mode "ieee" → "disabled"`.
    pub headline: String,
    /// Indices into the report's `findings`: the NIC firmware's settings first, then what
    /// the OS shows, then the rest.
    pub findings: Vec<usize>,
}

/// The stories of `report`, whose snapshot has `facts` (for port names): one per subject
/// (`nic/<key>` for a port; `storage/<family>/<device>` per device; `bios`, `firmware`;
/// else the first two path segments, such as `host/qos`), most severe first, then by
/// subject.
///
/// Pre-existing drift and expected firmware changes (three-way) are left out: a gate report
/// lists each on its own. So is a firmware finding that a finding already names as its
/// attribution.
pub fn stories(report: &Report, facts: &Facts) -> Vec<Story> {
    let named: HashSet<&str> = report
        .findings
        .iter()
        .flat_map(|f| &f.firmware)
        .map(|f| f.path.as_str())
        .collect();
    let mut groups: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (index, finding) in report.findings.iter().enumerate() {
        let path = finding.path.as_str();
        if matches!(finding.origin, Some(Origin::PreExisting | Origin::Expected))
            || (is_firmware_version(path) && named.contains(path))
        {
            continue;
        }
        groups.entry(subject(path)).or_default().push(index);
    }
    let mut stories: Vec<Story> = groups
        .into_iter()
        .map(|(subject, mut indices)| {
            // Stable: within a layer the report's order (most severe first, then path) holds.
            indices.sort_by_key(|&i| layer(report.findings[i].path.as_str()));
            let severity = indices
                .iter()
                .map(|&i| report.findings[i].severity)
                .max()
                .expect("a story has a finding");
            let lead = indices
                .iter()
                .map(|&i| &report.findings[i])
                .find(|f| f.severity == severity)
                .expect("the most severe finding is in the story");
            Story {
                label: label(&subject, facts),
                headline: headline(lead, facts, report),
                subject,
                severity,
                findings: indices,
            }
        })
        .collect();
    stories.sort_by(|a, b| {
        b.severity
            .cmp(&a.severity)
            .then_with(|| a.subject.cmp(&b.subject))
    });
    stories
}

/// What a finding's path is about.
fn subject(path: &str) -> String {
    if let Some(key) = port_key(path) {
        return format!("nic/{key}");
    }
    let segments: Vec<&str> = path.split('/').collect();
    let take = match segments[0] {
        "bios" | "firmware" => 1,
        "storage" => 3,
        _ => 2,
    };
    segments[..take.min(segments.len())].join("/")
}

/// Order inside a port's story: what the NIC firmware is set to, what the OS shows, the rest.
fn layer(path: &str) -> u8 {
    let Some(key) = port_key(path) else { return 2 };
    let rest = &path["nic/".len() + key.len() + 1..];
    if rest.starts_with("bmc/") && !is_firmware_version(path) {
        0
    } else if rest.starts_with("os/") {
        1
    } else {
        2
    }
}

/// `port "SLOT 3 Port 1" (00:0a:…) on NIC.Slot.3`, `device naa.…`, or the subject itself.
fn label(subject: &str, facts: &Facts) -> String {
    if let Some(key) = subject.strip_prefix("nic/") {
        let port = format!("port {}", port_label(facts, key));
        return match adapter(facts, key) {
            Some(adapter) => format!("{port} on {adapter}"),
            None => port,
        };
    }
    match subject.split('/').collect::<Vec<_>>().as_slice() {
        ["storage", _, device] => format!("device {device}"),
        _ => subject.to_owned(),
    }
}

fn adapter<'f>(facts: &'f Facts, key: &str) -> Option<&'f str> {
    facts
        .get(format!("nic/{key}/bmc/adapter").as_str())
        .and_then(FactValue::as_text)
}

/// Attribution first: the firmware of the finding's own port that changed, then what it
/// changed; without one, what changed, and the host's other firmware changes, if any.
fn headline(lead: &Finding, facts: &Facts, report: &Report) -> String {
    let what = format!(
        "{}{} {}",
        lead.path,
        crate::functions::named(facts, lead.path.as_str()),
        change_text(lead)
    );
    if let Some(own) = lead.firmware.iter().find(|f| f.this_port) {
        let who = port_key(lead.path.as_str())
            .and_then(|key| adapter(facts, key))
            .map_or_else(|| own.path.to_string(), str::to_owned);
        return format!("{who} {} changed {what}", versions(&own.old, &own.new));
    }
    if is_firmware_version(lead.path.as_str()) {
        return what;
    }
    let named = |f: (&FactPath, &Option<FactValue>, &Option<FactValue>)| {
        format!("{} {}", f.0, versions(f.1, f.2))
    };
    let others: Vec<String> =
        if lead.firmware.is_empty() && lead.origin != Some(Origin::PreExisting) {
            report
                .firmware_changes
                .iter()
                .map(|f| named((&f.path, &f.old, &f.new)))
                .collect()
        } else {
            lead.firmware
                .iter()
                .map(|f| named((&f.path, &f.old, &f.new)))
                .collect()
        };
    if others.is_empty() {
        return what;
    }
    const SHOWN: usize = 3;
    let more = others.len().saturating_sub(SHOWN);
    let mut list = others[..others.len().min(SHOWN)].join(", ");
    if more > 0 {
        list.push_str(&format!(", +{more} more"));
    }
    format!("{what} (firmware changed on this host: {list})")
}

/// `"ieee" → "disabled"` for a change; the message for a violated rule or invariant, and for
/// a change of what the other end of a link advertises (which names both ends).
pub fn change_text(f: &Finding) -> String {
    if is_peer_fact(f.path.as_str()) {
        return f.message.clone();
    }
    let value = |v: &Option<FactValue>| {
        v.as_ref()
            .map_or_else(|| "(none)".to_owned(), ToString::to_string)
    };
    match f.kind {
        FindingKind::Changed | FindingKind::Added | FindingKind::Removed => {
            format!("{} → {}", value(&f.old), value(&f.new))
        }
        FindingKind::Expectation | FindingKind::Invariant => f.message.clone(),
    }
}

/// `229.0.166.0 → 229.1.123.0`: versions without quotes.
fn versions(old: &Option<FactValue>, new: &Option<FactValue>) -> String {
    let value = |v: &Option<FactValue>| match v {
        None => "(none)".to_owned(),
        Some(v) => v.as_text().map_or_else(|| v.to_string(), str::to_owned),
    };
    format!("{} → {}", value(old), value(new))
}

#[cfg(test)]
mod tests;
