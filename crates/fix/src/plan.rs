//! One host's plan from its judged report and snapshot: each blocking finding becomes part of
//! a step of the layer that owns its setting, an effect of one, or a reason it cannot be
//! fixed by a setting.

use driftgate_compare::Report;
use driftgate_redfish::settings::BmcSettings;
use driftgate_snapshot::Snapshot;

use super::bmc;
use super::known_good::{self, Owner, Wanted};
use super::model::{
    Action, Change, Commands, Effect, HostPlan, Layer, NotFixable, Shell, Step, Unfixable,
};
use super::os;

/// What is known of the host's BMC for a plan.
pub enum Bmc<'a> {
    /// Read now.
    Read(&'a BmcSettings),
    /// Could not be read, and why.
    Unread(String),
    /// The host has no BMC source.
    None,
}

/// The operating system a snapshot's OS facts come from, by its sources.
pub fn os_of(snapshot: &Snapshot) -> Option<Layer> {
    snapshot.sources.iter().find_map(|s| match s.name.as_str() {
        "windows" => Some(Layer::Windows),
        "linux" => Some(Layer::Linux),
        "esxi" => Some(Layer::Esxi),
        _ => None,
    })
}

/// Whether `report` has a finding that blocks it (a warning under `--strict`).
pub fn blocks(report: &Report) -> bool {
    report
        .findings
        .iter()
        .any(|f| known_good::blocks(report, f))
}

/// Whether the plan of `report` has BMC settings to look up (so the BMC must be read).
pub fn needs_bmc(report: &Report, snapshot: &Snapshot) -> bool {
    let os = os_of(snapshot);
    known_good::blocking(report).iter().any(|(fact, findings)| {
        known_good::owner(fact.as_str(), os) == Owner::Setting(Layer::Bmc)
            && known_good::known_good(findings).is_some()
    })
}

/// The plan of one host.
pub fn host_plan(host: &str, report: &Report, snapshot: &Snapshot, bmc: Bmc<'_>) -> HostPlan {
    let Sorted {
        bmc_wanted,
        os_steps,
        mut not_fixable,
        mut effects,
        staged,
    } = sort(report, snapshot);
    let mut steps = Vec::new();
    let unread = if bmc_wanted.is_empty() {
        None
    } else {
        bmc_steps(bmc, bmc_wanted, &mut steps, &mut not_fixable)
    };
    steps.extend(os_steps);
    settle_staged(staged, &steps, &mut effects, &mut not_fixable);
    link_effects(&mut effects, &steps);
    HostPlan {
        host: host.to_owned(),
        steps,
        not_fixable,
        effects,
        unread,
    }
}

/// A host's blocking facts sorted by what fixes them.
struct Sorted {
    /// Values for the BMC to write, its steps found once it is read.
    bmc_wanted: Vec<Wanted>,
    /// The operating system's steps.
    os_steps: Vec<Step>,
    /// What no step fixes.
    not_fixable: Vec<NotFixable>,
    /// Facts that follow from others.
    effects: Vec<Effect>,
    /// Values staged for the next reset: judged once the steps are known.
    staged: Vec<NotFixable>,
}

/// Each blocking fact of `report` by the layer that owns it, with its known-good value.
fn sort(report: &Report, snapshot: &Snapshot) -> Sorted {
    let os = os_of(snapshot);
    let facts = &snapshot.facts;
    let mut sorted = Sorted {
        bmc_wanted: Vec::new(),
        os_steps: Vec::new(),
        not_fixable: Vec::new(),
        effects: Vec::new(),
        staged: Vec::new(),
    };
    for (fact, findings) in known_good::blocking(report) {
        let ids: Vec<String> = findings.iter().map(|f| f.id.clone()).collect();
        let now = facts.get(fact.as_str()).cloned();
        let refuse = |reason: Unfixable, why: String| NotFixable {
            fact: fact.clone(),
            now: now.clone(),
            findings: ids.clone(),
            reason,
            why,
        };
        let layer = match known_good::owner(fact.as_str(), os) {
            Owner::Effect => {
                sorted.effects.push(Effect {
                    fact: fact.clone(),
                    findings: ids,
                    follows: Vec::new(),
                });
                continue;
            }
            // A staged value is judged once the steps are known: it may be one of them.
            Owner::Unfixable(Unfixable::Pending) => {
                sorted.staged.push(refuse(
                    Unfixable::Pending,
                    unfixable_why(Unfixable::Pending).to_owned(),
                ));
                continue;
            }
            Owner::Unfixable(reason) => {
                sorted
                    .not_fixable
                    .push(refuse(reason, unfixable_why(reason).to_owned()));
                continue;
            }
            Owner::Setting(layer) => layer,
        };
        let Some((to, source)) = known_good::known_good(&findings) else {
            sorted.not_fixable.push(refuse(
                Unfixable::NoKnownGood,
                "no known-good value: the fact is new since the baseline and no policy rule or invariant names the value it must have".to_owned(),
            ));
            continue;
        };
        let wanted = Wanted {
            fact: fact.clone(),
            from: now.clone(),
            to,
            known_good: source,
            findings: ids.clone(),
        };
        if layer == Layer::Bmc {
            sorted.bmc_wanted.push(wanted);
            continue;
        }
        let os_steps = &mut sorted.os_steps;
        match os::step(layer, &wanted, facts) {
            // Two facts of one setting (mlxconfig's parameter and what it is for) are one
            // step with two changes.
            Ok(step) => match os_steps.iter_mut().find(
                |s: &&mut Step| matches!(&s.action, Action::Commands(c) if c.lines == step.lines),
            ) {
                Some(same) => same.changes.push(change_of(wanted)),
                None => os_steps.push(os_step(layer, os_steps.len() + 1, step, wanted)),
            },
            Err(why) => sorted.not_fixable.push(refuse(Unfixable::NoOwner, why)),
        }
    }
    sorted
}

/// The BMC's steps for `wanted`, as far as what is known of the BMC allows; the rest is not
/// fixable. Why the BMC could not be read, when it could not.
fn bmc_steps(
    bmc: Bmc<'_>,
    wanted: Vec<Wanted>,
    steps: &mut Vec<Step>,
    not_fixable: &mut Vec<NotFixable>,
) -> Option<String> {
    match bmc {
        Bmc::Read(settings) => {
            let (found, refused) = bmc::steps(wanted, settings, 1);
            steps.extend(found);
            not_fixable.extend(refused.into_iter().map(|r| NotFixable {
                fact: r.wanted.fact,
                now: r.wanted.from,
                findings: r.wanted.findings,
                reason: Unfixable::Refused,
                why: r.why,
            }));
            None
        }
        Bmc::Unread(why) => {
            not_fixable.extend(wanted.into_iter().map(|w| NotFixable {
                fact: w.fact,
                now: w.from,
                findings: w.findings,
                reason: Unfixable::Unread,
                why: format!("the BMC could not be read to plan the write: {why}"),
            }));
            Some(why.clone())
        }
        Bmc::None => {
            not_fixable.extend(
                wanted.into_iter().map(|w| NotFixable {
                    fact: w.fact,
                    now: w.from,
                    findings: w.findings,
                    reason: Unfixable::NoOwner,
                    why: "the host has no Redfish source in the inventory to write it through"
                        .to_owned(),
                }),
            );
            None
        }
    }
}

/// A value staged for the next reset that a step of this plan sets (an earlier `fix apply`)
/// follows from that step; any other is the operator's to clear.
fn settle_staged(
    staged: Vec<NotFixable>,
    steps: &[Step],
    effects: &mut Vec<Effect>,
    not_fixable: &mut Vec<NotFixable>,
) {
    for item in staged {
        let live = item.fact.as_str().replace("/pending/", "/");
        let live = live.strip_prefix("pending/").unwrap_or(&live);
        let by = steps.iter().find(|s| {
            s.changes
                .iter()
                .any(|c| c.fact.as_str() == live && Some(&c.to) == item.now.as_ref())
        });
        match by {
            Some(step) => effects.push(Effect {
                fact: item.fact,
                findings: item.findings,
                follows: vec![step.id.clone()],
            }),
            None => not_fixable.push(item),
        }
    }
}

/// Each effect follows the steps that change something in its scope (any step, for the
/// host's).
fn link_effects(effects: &mut [Effect], steps: &[Step]) {
    for effect in effects {
        let scope = known_good::scope(effect.fact.as_str());
        effect.follows = steps
            .iter()
            .filter(|s| {
                s.changes
                    .iter()
                    .any(|c| known_good::scope(c.fact.as_str()) == scope || scope == "host")
            })
            .map(|s| s.id.clone())
            .collect();
    }
}

fn os_step(layer: Layer, n: usize, step: os::OsStep, wanted: Wanted) -> Step {
    let shell = if layer == Layer::Windows {
        Shell::PowerShell
    } else {
        Shell::Sh
    };
    Step {
        id: format!("{}-{n}", layer.as_str()),
        layer,
        summary: step.summary,
        changes: vec![change_of(wanted)],
        reboot: step.reboot,
        risk: step.risk,
        risk_note: step.risk_note,
        verify: if step.reboot {
            "gate post after the reboot: the fact equals its planned value".to_owned()
        } else {
            "the next capture (gate post): the fact equals its planned value".to_owned()
        },
        action: Action::Commands(Commands {
            shell,
            lines: step.lines,
        }),
    }
}

/// The change an OS step makes for `wanted` (OS values are never staged).
fn change_of(wanted: Wanted) -> Change {
    Change {
        fact: wanted.fact,
        from: wanted.from,
        to: wanted.to,
        known_good: wanted.known_good,
        pending_fact: None,
        findings: wanted.findings,
    }
}

fn unfixable_why(reason: Unfixable) -> &'static str {
    match reason {
        Unfixable::Firmware => {
            "a firmware or software version: flash the known-good version (or declare the new one with --allow); no setting changes it"
        }
        Unfixable::Capability => {
            "what the hardware, its firmware or the driver reports it can do (or a status it reports by itself): no setting gives it back; check the firmware release notes"
        }
        Unfixable::Pending => {
            "a value staged for the next reset: clear or replace the staged settings on the BMC (or let the reset apply them and judge again)"
        }
        Unfixable::NoOwner => "no layer driftgate knows how to set owns this fact",
        Unfixable::NoKnownGood => "no known-good value",
        Unfixable::Refused => "the BMC refuses the write",
        Unfixable::Unread => "the BMC could not be read",
        Unfixable::OtherEnd => {
            "what the other end of the link advertises: configure its switch port (or the peer node) to match this host; driftgate changes hosts only"
        }
    }
}
