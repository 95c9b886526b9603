//! A check's stories ([`Story`], one per port or other subject, the gate's) as an operator
//! reads them before the details: for a port, what its NIC firmware is set to, what the OS
//! shows, and the firmware that changed; for anything else, the story's headline. The text
//! and Markdown of a check lay it out; the per-finding details follow them.

use driftgate_compare::{Finding, FindingKind, Report, Story};
use driftgate_snapshot::FactValue;

/// Lines of a part ([`Told::settings`], [`Told::os`]) shown; the rest are counted.
const SHOWN: usize = 3;

/// One story, told.
pub(crate) struct Told<'r> {
    /// The story it tells.
    pub story: &'r Story,
    /// What the NIC firmware of the port is set to (`bmc/…` facts):
    /// `bmc/function/00:0a:f7:12:34:56/dcbx_mode "ieee" → "disabled"`.
    pub settings: Part<'r>,
    /// What the OS shows of the port (`os/…` facts), the same way.
    pub os: Part<'r>,
    /// The firmware of the port that changed (`229.0.166.0 → 229.1.123.0`), that none of its
    /// own did while others on the host did, or why its own cannot be named; `None` when the
    /// findings name no firmware and the port's is known.
    pub firmware: Option<String>,
    /// The story's headline (attribution first), for a story that is not about a port's
    /// settings and what the OS shows.
    pub headline: Option<&'r str>,
}

/// Lines of one part of a story, and how many more it has.
pub(crate) struct Part<'r> {
    /// At most [`SHOWN`] lines.
    pub lines: Vec<Line<'r>>,
    /// Lines left out.
    pub more: usize,
}

/// Findings told in one line: a rule's with the same change, or the rules that judged one
/// value of a fact.
pub(crate) struct Line<'r> {
    /// The facts, relative to the story's port.
    pub paths: Vec<&'r str>,
    /// ` "ieee" → "disabled"` for a change, ` "disabled" [rule]` for a rule that judges what
    /// is there.
    pub what: String,
}

impl Part<'_> {
    /// Nothing to say.
    pub(crate) fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }
}

/// Each of `stories` (of `report`) told, in their order.
pub(crate) fn tell<'r>(report: &'r Report, stories: &'r [Story]) -> Vec<Told<'r>> {
    stories
        .iter()
        .map(|story| {
            let findings: Vec<&Finding> = story
                .findings
                .iter()
                .filter_map(|&i| report.findings.get(i))
                .collect();
            let port = story.subject.starts_with("nic/");
            let prefix = format!("{}/", story.subject);
            let relative = |f: &'r Finding| {
                let path = f.path.as_str();
                path.strip_prefix(prefix.as_str()).unwrap_or(path)
            };
            let layer = |under: &str| -> Vec<&Finding> {
                findings
                    .iter()
                    .copied()
                    .filter(|f| port && relative(f).starts_with(under))
                    .filter(|f| !relative(f).starts_with("bmc/firmware/"))
                    .collect()
            };
            let settings = part(&layer("bmc/"), &relative);
            let os = part(&layer("os/"), &relative);
            let told = !settings.is_empty() || !os.is_empty();
            Told {
                story,
                firmware: told.then(|| firmware(&findings)).flatten(),
                headline: (!told).then_some(story.headline.as_str()),
                settings,
                os,
            }
        })
        .collect()
}

/// `findings`' changes (else, when none changed, what the rules found): a rule's with the
/// same change on several facts in one line (`os/num_tcs/current/ets, …/max 3 → 0`), the
/// rules that judged one value of a fact in one line (`os/dcbx_support/current "none"
/// [dcbx-capability-lost, pfc-not-operational]`: their messages are in the details).
fn part<'r>(findings: &[&'r Finding], relative: &dyn Fn(&'r Finding) -> &'r str) -> Part<'r> {
    let changed = |f: &Finding| {
        matches!(
            f.kind,
            FindingKind::Changed | FindingKind::Added | FindingKind::Removed
        )
    };
    let any_changed = findings.iter().any(|f| changed(f));
    // Per line: what joins findings into it, their facts, their rules.
    let mut lines: Vec<(String, Vec<&'r str>, Vec<&'r str>)> = Vec::new();
    for f in findings.iter().filter(|f| changed(f) == any_changed) {
        let path = relative(f);
        let key = if changed(f) {
            format!("{}\n{}", f.id, change(f))
        } else {
            format!("{path}\n{}", crate::wording::value_text(f.new.as_ref()))
        };
        match lines.iter_mut().find(|(k, _, _)| *k == key) {
            Some((_, paths, rules)) => {
                if !paths.contains(&path) {
                    paths.push(path);
                }
                if !rules.contains(&f.id.as_str()) {
                    rules.push(&f.id);
                }
            }
            None => lines.push((key, vec![path], vec![&f.id])),
        }
    }
    let more = lines.len().saturating_sub(SHOWN);
    let lines = lines
        .into_iter()
        .take(SHOWN)
        .map(|(key, paths, rules)| {
            let value = key.split_once('\n').map_or("", |(_, v)| v);
            let what = if any_changed {
                format!(" {value}")
            } else {
                format!(" {value} [{}]", rules.join(", "))
            };
            Line { paths, what }
        })
        .collect();
    Part { lines, more }
}

/// `"ieee" → "disabled"`; a staged change's message (it takes effect at the next reboot).
fn change(f: &Finding) -> String {
    if f.kind == FindingKind::Changed && f.pending {
        return f.message.clone();
    }
    format!(
        "{} → {}",
        crate::wording::value_text(f.old.as_ref()),
        crate::wording::value_text(f.new.as_ref())
    )
}

/// The port's own firmware change, old → new once per distinct change (`229.0.166.0 →
/// 229.1.123.0 (staged, takes effect at the next reboot)`), from the first finding that names
/// one; else how many firmware changes the host had, and why the port's own cannot be named
/// when it cannot ("the BMC does not link this port to a firmware inventory entry").
fn firmware(findings: &[&Finding]) -> Option<String> {
    let unknown = findings
        .iter()
        .find_map(|f| f.firmware_unknown)
        .map(crate::wording::unknown_firmware);
    let Some(named) = findings.iter().find(|f| !f.firmware.is_empty()) else {
        return unknown.map(str::to_owned);
    };
    let mut own: Vec<String> = Vec::new();
    for f in named.firmware.iter().filter(|f| f.this_port) {
        let staged = if f.pending {
            " (staged, takes effect at the next reboot)"
        } else {
            ""
        };
        let change = format!("{} → {}{staged}", version(&f.old), version(&f.new));
        if !own.contains(&change) {
            own.push(change);
        }
    }
    if own.is_empty() {
        let n = named.firmware.len();
        let changes = if n == 1 { "change" } else { "changes" };
        let own = unknown.unwrap_or("none of this port's");
        return Some(format!("{own}; {n} firmware {changes} on this host"));
    }
    Some(own.join(", "))
}

/// A version without quotes.
fn version(value: &Option<FactValue>) -> String {
    match value {
        None => "(none)".to_owned(),
        Some(v) => v.as_text().map_or_else(|| v.to_string(), str::to_owned),
    }
}
