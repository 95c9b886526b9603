//! What each rule says in `tool.driver.rules`: a short description, the full one (a
//! finding's why) and help, for the findings, the incomplete capture and the fleet's rules.

use driftgate_compare::{Finding, FindingKind};

/// The rule of a host whose capture was not complete.
pub const INCOMPLETE_RULE: &str = "capture/incomplete";

/// What a result tells about its rule.
#[derive(Clone)]
pub(super) struct RuleDraft {
    pub id: String,
    pub short: String,
    pub full: String,
    pub help: String,
}

/// The rule of a host's finding: its texts by kind, the finding's why.
pub(super) fn finding(finding: &Finding) -> RuleDraft {
    let id = &finding.id;
    let (short, help) = match finding.kind {
        FindingKind::Invariant => (
            format!("Invariant {id}: facts of the host that must agree do not"),
            "Fix the setting named in the message on the host (an invariant holds with or without a baseline), then capture and check again.",
        ),
        FindingKind::Expectation => (
            format!("Policy rule {id}: a fact does not have the value the policy expects"),
            "Set the fact to the value the policy expects, or change the rule's `expect` in driftgate.toml if the policy is wrong.",
        ),
        FindingKind::Changed | FindingKind::Added | FindingKind::Removed => (
            format!("Policy rule {id}: a fact differs from the host's baseline"),
            "The location is the fact in the host's known-good baseline. Restore the setting if the change was not meant; if it was, promote the new snapshot (`driftgate baseline promote`) or allow it for the gate (`--allow PATH=VALUE`).",
        ),
    };
    // A rule without a why says what it is twice rather than nothing (code scanning shows
    // the full description at the top of an alert).
    let full = match finding.why.trim() {
        "" => short.clone(),
        why => why.to_owned(),
    };
    RuleDraft {
        id: id.clone(),
        short,
        full,
        help: help.to_owned(),
    }
}

/// What code scanning makes of an incomplete host, in its result's message and its rule's
/// help.
pub(super) const INCOMPLETE_ALERTS: &str = "The settings it could not read have no results in this log, so code scanning shows their open alerts as fixed until the host is read completely again: they are not known to be fixed.";

/// The rule of a host that could not be read completely.
pub(super) fn incomplete() -> RuleDraft {
    RuleDraft {
        id: INCOMPLETE_RULE.to_owned(),
        short: "The host could not be read completely".to_owned(),
        full: "A source of the host failed or was partial: its settings are unknown, and a partial capture never passes (fail closed).".to_owned(),
        help: format!("Fix what the message names (the BMC or the host unreachable, credentials, a command missing), then run the check again. {INCOMPLETE_ALERTS}"),
    }
}

/// The rule of a fleet finding (`cluster/…`, `fleet/…`).
pub(super) fn fleet(rule: &str) -> RuleDraft {
    let (short, full, help) = fleet_texts(rule);
    RuleDraft {
        id: rule.to_owned(),
        short: short.to_owned(),
        full: full.to_owned(),
        help: help.to_owned(),
    }
}

fn fleet_texts(rule: &str) -> (&'static str, &'static str, &'static str) {
    match rule {
        r if r.starts_with("cluster/") => (
            "The nodes of a cluster disagree on a setting",
            "Nodes of one cluster must agree on settings that keep storage traffic lossless; the nodes named differ from the value most nodes have.",
            "Bring the odd nodes to the value most nodes have (or all nodes to the intended one), then capture and check again.",
        ),
        "fleet/stale-baseline" => (
            "A host's baseline is older than --stale-after",
            "The known-good baseline of the host was captured long ago: drift since then is judged against an old picture.",
            "Review the host's current snapshot and promote it (`driftgate baseline promote`).",
        ),
        "fleet/missing-baseline" => (
            "A host has no baseline",
            "Without a baseline only invariants and expect rules judge the host: silent changes are not caught.",
            "Promote the host's snapshot as its baseline (`driftgate baseline promote`).",
        ),
        "fleet/orphan-baseline" => (
            "A baseline belongs to no inventory host",
            "A baseline file in the store names a host the inventory no longer has.",
            "Remove the baseline file, or add its host to the inventory.",
        ),
        "fleet/stale-capture" => (
            "A host has not been read completely for longer than --stale-after",
            "Its settings are not known to be good: every recent capture failed or was partial.",
            "Fix what keeps the capture from completing (the BMC or the host unreachable, credentials), then run the check again.",
        ),
        _ => (
            "A finding about the fleet",
            "A finding that no single host's baseline shows.",
            "See the message.",
        ),
    }
}
