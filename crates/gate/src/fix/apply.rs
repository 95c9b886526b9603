//! `fix apply`: the plan's steps of one layer sent, read back and recorded. Nothing is sent
//! for a plan with a refusal (a read-only attribute, a value its registry does not allow,
//! an incomplete host), nor without the caller's confirmation; a value already current or
//! staged is skipped and said so, another value staged for it is a conflict.
//!
//! One apply of a run at a time ([`super::lock`]); every request is recorded before it is
//! sent ([`Journal`]). A signal (the caller cancels `settings.capture.cancel`) lets the request
//! in flight finish or time out within [`GRACE`], records it, sends nothing more and logs out.

use std::future::Future;
use std::path::PathBuf;
use std::time::Duration;

use serde_json::{Value, json};

use driftgate_collect::SourceSpec;
use driftgate_collect::transport::{CommandSpec, CommandTransport, for_location};
use driftgate_fix::{Action, HostPlan, Layer, Plan, RedfishPatch, Shell, Step, Unfixable};
use driftgate_redfish::client::{Answer, WriteMethod, WriteTarget};
use driftgate_redfish::settings::connection::Connection;
use driftgate_redfish::settings::{BmcSettings, Writable};

use super::earlier::Earlier;
use super::journal::Journal;
use super::lock::{self, LockEvent};
use super::planning::{RunHostState, plan_host, run_hosts};
use super::record::{ApplyRecord, HostRecord, Outcome, RECORD_SCHEMA_ID, Request, StepRecord};
use crate::plan::host_options;
use crate::run::{RunDir, RunId};
use crate::{GateError, Settings};

/// A BMC read for the plan, its connection still open for the writes.
type OpenBmc = (Connection, BmcSettings);

/// How long a request in flight when a signal comes may take to be answered: a service
/// manager's stop waits longer before it kills (systemd 90 s, Kubernetes 30 s).
pub const GRACE: Duration = Duration::from_secs(10);

/// Why a step was not sent, when the apply stopped before it.
const STOPPED: &str = "fix apply was stopped by a signal before this step";
/// Why a step or reset was not sent, when the record could not be written before it.
const UNRECORDED: &str = "its record could not be written, so it was not sent";

/// Which layer's steps are applied.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LayerChoice {
    /// The BMC's (the default).
    Bmc,
    /// The operating systems', through the hosts' transports.
    Os,
}

/// What `fix apply` is asked to do.
#[derive(Debug, Clone)]
pub struct ApplyRequest {
    /// The run.
    pub run: RunId,
    /// The change ticket, recorded with every step.
    pub ticket: String,
    /// Its hosts (all of the run when empty).
    pub hosts: Vec<driftgate_snapshot::HostName>,
    /// The layer.
    pub layer: LayerChoice,
    /// Reset each system whose BMC steps are staged (`GracefulRestart`).
    pub reset: bool,
    /// Allow an immediate apply where the BMC has no staged path.
    pub immediate: bool,
    /// Send nothing: say what would be sent.
    pub dry_run: bool,
    /// Wait for another apply of the run to end, rather than refuse.
    pub wait: bool,
}

/// What `fix apply` did.
#[derive(Debug, Clone)]
pub struct Applied {
    /// The plan it worked from.
    pub plan: Plan,
    /// What became of each step.
    pub record: ApplyRecord,
    /// Where the record was written (none for a dry run or when nothing was to do).
    pub file: Option<PathBuf>,
    /// Why the record of what was sent could not be written.
    pub record_error: Option<String>,
    /// Hosts whose BMC could not be read: nothing was sent to them (exit 3).
    pub unread: Vec<String>,
    /// The caller did not confirm: nothing was sent.
    pub declined: bool,
    /// A signal stopped it: what was in flight is recorded, nothing after it was sent.
    pub stopped: bool,
    /// It was a dry run: nothing was sent, the record says what would have been.
    pub dry_run: bool,
}

/// What became of a `fix apply` as a whole: its own outcome, never a gate's verdict (a write
/// that failed blocks nothing: it did not happen).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ApplyOutcome {
    /// Every step was applied or found current or staged already, and every reset sent was
    /// accepted.
    Applied,
    /// The layer has no step for the run's hosts: nothing was sent.
    NothingToDo,
    /// `--dry-run`: what would be sent was said; nothing was sent.
    DryRun,
    /// Some steps were applied, but another was refused by the BMC, conflicted with a staged
    /// value or did not take, or a reset was refused.
    PartlyApplied,
    /// No step was applied: each one sent was refused, conflicted or did not take (or a reset
    /// was refused).
    Failed,
    /// A BMC could not be read: nothing was sent to any host.
    Unread,
}

impl Applied {
    /// The apply's outcome (a declined or stopped apply is the caller's to say: see
    /// [`Applied::declined`], [`Applied::stopped`]).
    pub fn outcome(&self) -> ApplyOutcome {
        let steps = || self.record.hosts.iter().flat_map(|h| &h.steps);
        if !self.unread.is_empty() {
            ApplyOutcome::Unread
        } else if self.dry_run {
            ApplyOutcome::DryRun
        } else if self.failed() && steps().any(|s| s.outcome == Outcome::Applied) {
            ApplyOutcome::PartlyApplied
        } else if self.failed() {
            ApplyOutcome::Failed
        } else if self.plan.hosts.iter().all(|h| h.steps.is_empty()) {
            ApplyOutcome::NothingToDo
        } else {
            ApplyOutcome::Applied
        }
    }

    /// Whether a step was refused by the BMC, conflicted or did not take, or a reset was
    /// refused.
    fn failed(&self) -> bool {
        self.record
            .hosts
            .iter()
            .flat_map(|h| &h.steps)
            .any(|s| matches!(s.outcome, Outcome::Failed | Outcome::Conflict))
            || self.record.hosts.iter().any(|h| {
                h.reset
                    .as_ref()
                    .is_some_and(|r| !r.status.is_some_and(|s| (200..300).contains(&s)))
            })
    }
}

/// Applies the run's plan: `confirm` sees it first and may decline (nothing is sent then);
/// `locked` hears of another apply of the run at work (waited for with `request.wait`) or
/// one that ended without releasing the run's lock.
pub async fn apply(
    settings: &Settings,
    request: &ApplyRequest,
    confirm: &mut dyn FnMut(&Plan) -> bool,
    locked: &mut dyn FnMut(LockEvent<'_>),
) -> Result<Applied, GateError> {
    if request.ticket.trim().is_empty() || request.ticket.contains(['\n', '\r']) {
        return Err(GateError::FixRefused(vec![
            "--ticket must be one line of text naming the change".to_owned(),
        ]));
    }
    let cancel = &settings.capture.cancel;
    let (run, states) = run_hosts(settings, &request.run, &request.hosts)?;
    // Taken before the BMCs are read: a second apply would plan from what this one changes.
    let mut held = None;
    if !request.dry_run {
        let taken = lock::take(
            &run,
            &request.run,
            &request.ticket,
            request.wait,
            cancel,
            locked,
        )
        .await?;
        held = Some(taken.ok_or(GateError::ApplyStopped("while waiting for the run's lock"))?);
    }
    refuse_incomplete(&states, &request.run)?;
    let (hosts, unread) = plan_layer(settings, request, &states).await;
    let refused = refusals(&hosts);
    let plan = Plan {
        schema: driftgate_fix::PLAN_SCHEMA_ID.to_owned(),
        tool: driftgate_snapshot::tool_version(),
        made_from: format!("run {}", request.run),
        hosts: hosts.iter().map(|(_, p, _)| p.clone()).collect(),
    };
    let mut record = new_record(request);
    if !refused.is_empty() {
        close(hosts.into_iter().filter_map(|(_, _, bmc)| bmc)).await;
        return Err(GateError::FixRefused(refused));
    }
    if cancel.is_cancelled() {
        close(hosts.into_iter().filter_map(|(_, _, bmc)| bmc)).await;
        return Err(GateError::ApplyStopped("while the BMCs were read"));
    }
    let nothing = plan.hosts.iter().all(|h| h.steps.is_empty());
    let declined = !request.dry_run && !nothing && unread.is_empty() && !confirm(&plan);
    if cancel.is_cancelled() {
        close(hosts.into_iter().filter_map(|(_, _, bmc)| bmc)).await;
        return Err(GateError::ApplyStopped("before it was confirmed"));
    }
    if request.dry_run || nothing || declined || !unread.is_empty() {
        if request.dry_run {
            record.hosts = hosts
                .iter()
                .map(|(_, host_plan, bmc)| dry_run(host_plan, bmc.as_ref(), request.reset))
                .collect();
        }
        close(hosts.into_iter().filter_map(|(_, _, bmc)| bmc)).await;
        return Ok(Applied {
            plan,
            record,
            file: None,
            record_error: None,
            unread,
            declined,
            stopped: false,
            dry_run: request.dry_run,
        });
    }
    let (journal, stopped) =
        send_all(settings, request, &run, held.as_mut(), record, hosts).await?;
    // What was sent is reported even when its record cannot be kept.
    Ok(Applied {
        plan,
        file: Some(journal.file().clone()),
        record_error: journal.error.clone(),
        record: journal.record,
        unread,
        declined: false,
        stopped,
        dry_run: false,
    })
}

/// A host judged INCOMPLETE at its latest step refuses the apply: a fix is planned only from
/// a whole capture.
fn refuse_incomplete(states: &[RunHostState<'_>], run: &RunId) -> Result<(), GateError> {
    let incomplete: Vec<String> = states
        .iter()
        .filter(|s| s.report.verdict == driftgate_compare::Verdict::Incomplete)
        .map(|s| format!("host {}: its latest step ({}) is INCOMPLETE: a fix is planned only from a whole capture; run `gate post --run {run}` again once the host can be read", s.name, s.step))
        .collect();
    if incomplete.is_empty() {
        Ok(())
    } else {
        Err(GateError::FixRefused(incomplete))
    }
}

/// A host of the apply: its run state, its plan of the layer, its BMC when read.
type LayerHost<'a, 'r> = (&'a RunHostState<'r>, HostPlan, Option<OpenBmc>);

/// Each host's plan of the request's layer (its BMC read), and the BMCs that could not be
/// read (the BMC layer's business only).
async fn plan_layer<'a, 'r>(
    settings: &Settings,
    request: &ApplyRequest,
    states: &'a [RunHostState<'r>],
) -> (Vec<LayerHost<'a, 'r>>, Vec<String>) {
    let mut hosts = Vec::new();
    let mut unread = Vec::new();
    for state in states {
        let (plan, bmc) = plan_host(settings, state).await;
        let Some(mut plan) = plan else { continue };
        // The BMC's refusals and reads are the BMC layer's business only.
        let bmc_layer = request.layer == LayerChoice::Bmc;
        if let Some(why) = plan.unread.as_ref().filter(|_| bmc_layer) {
            unread.push(format!("{}: {why}", state.name));
        }
        if !bmc_layer {
            plan.not_fixable.retain(|n| n.reason != Unfixable::Refused);
        }
        plan.steps.retain(|s| match request.layer {
            LayerChoice::Bmc => s.layer == Layer::Bmc,
            LayerChoice::Os => s.layer.is_os(),
        });
        hosts.push((state, plan, bmc));
    }
    (hosts, unread)
}

/// The refusals in the hosts' plans (of a BMC that was read): each stops the whole apply.
fn refusals(hosts: &[LayerHost<'_, '_>]) -> Vec<String> {
    hosts
        .iter()
        .flat_map(|(_, plan, _)| {
            plan.not_fixable
                .iter()
                .filter(|n| n.reason == Unfixable::Refused && plan.unread.is_none())
                .map(move |n| format!("host {}: {}: {}", plan.host, n.fact, n.why))
        })
        .collect()
}

/// The record of an apply about to start, with no host yet.
fn new_record(request: &ApplyRequest) -> ApplyRecord {
    ApplyRecord {
        schema: RECORD_SCHEMA_ID.to_owned(),
        tool: driftgate_snapshot::tool_version(),
        run: request.run.to_string(),
        ticket: request.ticket.clone(),
        started_at: jiff::Timestamp::now(),
        pid: None,
        machine: None,
        finished_at: None,
        interrupted: None,
        hosts: Vec::new(),
    }
}

/// Sends every host's steps (and resets), each recorded before it is sent: no record, nothing
/// sent. The journal, finished, says what became of them; the flag, whether a signal stopped
/// it.
async fn send_all(
    settings: &Settings,
    request: &ApplyRequest,
    run: &RunDir,
    held: Option<&mut lock::ApplyLock>,
    mut record: ApplyRecord,
    hosts: Vec<LayerHost<'_, '_>>,
) -> Result<(Journal, bool), GateError> {
    let cancel = &settings.capture.cancel;
    record.pid = Some(std::process::id());
    record.machine = Some(lock::machine());
    let started = (|| {
        let earlier = Earlier::read(run)?;
        let journal = Journal::start(run, record)?;
        if let Some(held) = held {
            held.set_record(journal.file())?;
        }
        Ok::<_, GateError>((earlier, journal))
    })();
    let (earlier, mut journal) = match started {
        Ok(started) => started,
        Err(e) => {
            close(hosts.into_iter().filter_map(|(_, _, bmc)| bmc)).await;
            return Err(e);
        }
    };
    for (state, host_plan, bmc) in hosts {
        journal.record.hosts.push(HostRecord {
            host: host_plan.host.clone(),
            steps: Vec::new(),
            reset: None,
            reset_not_sent: None,
        });
        let host = Host {
            state,
            name: &host_plan.host,
            bmc: bmc.as_ref(),
            index: journal.record.hosts.len() - 1,
        };
        for step in &host_plan.steps {
            send_step(settings, request, &mut journal, &earlier, &host, step).await;
        }
        if request.reset {
            send_reset(cancel, &mut journal, &host).await;
        }
        if let Some((connection, _)) = bmc {
            let _ = connection.close().await;
        }
    }
    let stopped = cancel.is_cancelled();
    journal.record.finished_at = Some(jiff::Timestamp::now());
    journal.record.interrupted = stopped.then(|| "a signal".to_owned());
    journal.save();
    Ok((journal, stopped))
}

/// What a dry run of `host_plan` would send: each step, and the reset when asked for.
fn dry_run(host_plan: &HostPlan, bmc: Option<&OpenBmc>, reset: bool) -> HostRecord {
    let mut record = HostRecord {
        host: host_plan.host.clone(),
        steps: host_plan
            .steps
            .iter()
            .map(|step| StepRecord {
                step: step.clone(),
                outcome: Outcome::NotSent,
                detail: "dry run: nothing sent".to_owned(),
                requests: would_send(step),
                job: None,
            })
            .collect(),
        reset: None,
        reset_not_sent: None,
    };
    let bmc_steps = host_plan
        .steps
        .iter()
        .any(|s| s.layer == Layer::Bmc && s.reboot);
    if reset && bmc_steps {
        match bmc.map(|(_, read)| reset_request(read, &host_plan.steps)) {
            Some(Ok((post, _))) => record.reset = Some(post),
            Some(Err(why)) => record.reset_not_sent = Some(why),
            None => record.reset_not_sent = Some("the host's BMC was not read".to_owned()),
        }
    }
    record
}

/// One host of an apply at work.
struct Host<'a, 'r> {
    state: &'a RunHostState<'r>,
    name: &'a str,
    /// Its BMC, when it was read.
    bmc: Option<&'a OpenBmc>,
    /// Its place in the journal's hosts.
    index: usize,
}

/// Sends `host`'s `step`, recorded as `sending` first, then as it ended; recorded as not sent
/// once the apply was stopped or its record cannot be written.
async fn send_step(
    settings: &Settings,
    request: &ApplyRequest,
    journal: &mut Journal,
    earlier: &Earlier,
    host: &Host<'_, '_>,
    step: &Step,
) {
    let cancel = &settings.capture.cancel;
    let h = host.index;
    if cancel.is_cancelled() || journal.error.is_some() {
        let skipped = not_sent(step, journal);
        journal.record.hosts[h].steps.push(skipped);
        return;
    }
    let sending = StepRecord {
        step: step.clone(),
        outcome: Outcome::Sending,
        detail: "recorded before it was sent; no answer recorded".to_owned(),
        requests: would_send(step).into_iter().map(Request::sending).collect(),
        job: None,
    };
    journal.record.hosts[h].steps.push(sending.clone());
    if !journal.save() {
        let skipped = not_sent(step, journal);
        if let Some(last) = journal.record.hosts[h].steps.last_mut() {
            *last = skipped;
        }
        return;
    }
    let send = async {
        match (&step.action, host.bmc) {
            (Action::RedfishPatch(_), Some((connection, read))) => {
                bmc_step(connection, read, step, request.immediate).await
            }
            (Action::RedfishPatch(_), None) => StepRecord {
                step: step.clone(),
                outcome: Outcome::Failed,
                detail: "the host's BMC was not read".to_owned(),
                requests: Vec::new(),
                job: None,
            },
            (Action::Commands(_), _) => os_step(settings, host.state, step, cancel),
        }
    };
    let mut done = within_grace(cancel, send)
        .await
        .unwrap_or_else(|| StepRecord {
            detail: unanswered(),
            ..sending
        });
    if done.outcome == Outcome::AlreadyPending
        && let Some(by) = earlier.sent_by(host.name, step)
    {
        done.detail = format!("{}; {by}", done.detail);
    }
    if let Some(last) = journal.record.hosts[h].steps.last_mut() {
        *last = done;
    }
    journal.save();
}

/// Sends `host`'s reset, asked for with `--reset`, once its steps were sent: recorded as
/// `sending` first, then with its answer; why it was not sent, else.
async fn send_reset(
    cancel: &driftgate_collect::Cancel,
    journal: &mut Journal,
    host: &Host<'_, '_>,
) {
    let h = host.index;
    let steps = &journal.record.hosts[h].steps;
    // The reset is judged by the steps that staged something: one found current names no
    // system the reset must apply it on.
    let staged: Vec<Step> = steps
        .iter()
        .filter(|s| {
            s.step.layer == Layer::Bmc
                && matches!(s.outcome, Outcome::Applied | Outcome::AlreadyPending)
                && s.step.reboot
        })
        .map(|s| s.step.clone())
        .collect();
    let failed = steps.iter().any(|s| !s.outcome.in_place());
    let not_sent = |why: &str| Err(why.to_owned());
    let post = match host.bmc {
        _ if cancel.is_cancelled() => {
            not_sent("fix apply was stopped by a signal before the reset")
        }
        _ if journal.error.is_some() => not_sent(UNRECORDED),
        _ if failed => {
            not_sent("a step of the host failed: the reset would apply a partial change")
        }
        _ if staged.is_empty() => not_sent("nothing is staged for a reset"),
        None => not_sent("the host's BMC was not read"),
        Some((connection, read)) => {
            reset_request(read, &staged).map(|(post, target)| (connection, post, target))
        }
    };
    let (connection, post, target) = match post {
        Ok(post) => post,
        Err(why) => {
            journal.record.hosts[h].reset_not_sent = Some(why);
            return;
        }
    };
    journal.record.hosts[h].reset = Some(post.clone().sending());
    if !journal.save() {
        journal.record.hosts[h].reset = None;
        journal.record.hosts[h].reset_not_sent = Some(UNRECORDED.to_owned());
        return;
    }
    let answer = within_grace(cancel, reset(connection, &target, post.clone())).await;
    journal.record.hosts[h].reset = Some(answer.unwrap_or_else(|| {
        let mut post = post.sending();
        post.messages.push(unanswered());
        post
    }));
    journal.save();
}

/// `step` recorded as not sent: the apply was stopped, or its record cannot be written.
fn not_sent(step: &Step, journal: &Journal) -> StepRecord {
    let detail = match journal.error {
        Some(_) => UNRECORDED,
        None => STOPPED,
    };
    StepRecord {
        step: step.clone(),
        outcome: Outcome::NotSent,
        detail: detail.to_owned(),
        requests: Vec::new(),
        job: None,
    }
}

/// The detail of a request that got no answer within the grace after a signal.
fn unanswered() -> String {
    format!(
        "no answer within the grace of {} s after the signal: the BMC may have taken it",
        GRACE.as_secs()
    )
}

/// `work`'s result; once `cancel` is cancelled, only if it ends within [`GRACE`].
async fn within_grace<T>(
    cancel: &driftgate_collect::Cancel,
    work: impl Future<Output = T>,
) -> Option<T> {
    let mut work = std::pin::pin!(work);
    tokio::select! {
        done = &mut work => return Some(done),
        () = cancel.cancelled() => {}
    }
    tokio::time::timeout(GRACE, work).await.ok()
}

/// The requests a step would send, unsent.
fn would_send(step: &Step) -> Vec<Request> {
    match &step.action {
        Action::RedfishPatch(patch) => vec![Request::unsent(
            "PATCH",
            &patch.settings,
            patch.body.clone(),
        )],
        Action::Commands(commands) => commands
            .lines
            .iter()
            .map(|line| Request::unsent("RUN", step.layer.as_str(), Value::from(line.as_str())))
            .collect(),
    }
}

/// Sends one Redfish step: aimed at the settings object read, only the values neither current
/// nor staged, then read back.
async fn bmc_step(
    connection: &Connection,
    read: &BmcSettings,
    step: &Step,
    immediate: bool,
) -> StepRecord {
    let Action::RedfishPatch(patch) = &step.action else {
        unreachable!("called for Redfish steps only");
    };
    let done = |outcome, detail: String, requests: Vec<Request>, job: Option<String>| StepRecord {
        step: step.clone(),
        outcome,
        detail,
        requests,
        job,
    };
    let (resource, target) = match aim(read, patch, immediate) {
        Ok(aimed) => aimed,
        Err(why) => return done(Outcome::Failed, why, Vec::new(), None),
    };
    let to_send = match values_to_send(resource, patch) {
        Ok(to_send) => to_send,
        Err((outcome, detail)) => return done(outcome, detail, Vec::new(), None),
    };
    let body = json!({
        "Attributes": to_send,
        "@Redfish.SettingsApplyTime": {"ApplyTime": patch.apply_time},
    });
    let mut request = Request::unsent("PATCH", target.as_str(), body.clone());
    let answer = match connection.write(WriteMethod::Patch, &target, &body).await {
        Ok(answer) => answer,
        Err(e) => {
            request.messages.push(e.to_string());
            return done(
                Outcome::Failed,
                format!("no answer: {e}"),
                vec![request],
                None,
            );
        }
    };
    answered(&mut request, &answer);
    if let Some(location) = answer.redirected_to() {
        return done(
            Outcome::Failed,
            format!(
                "the BMC redirected it (HTTP {}) to {location}: a write never follows a redirect; not sent there",
                answer.status
            ),
            vec![request],
            None,
        );
    }
    if !answer.accepted() {
        let why = request.messages.join("; ");
        return done(
            Outcome::Failed,
            format!("the BMC refused it: HTTP {} {why}", answer.status),
            vec![request],
            None,
        );
    }
    let job = answer.location.clone();
    let (outcome, detail) = read_back(connection, patch, &to_send, answer.status).await;
    done(outcome, detail, vec![request], job)
}

/// The resource a patch writes and where its write goes, from what was read (the plan's own
/// words are not enough); why nothing may be sent, else.
fn aim<'r>(
    read: &'r BmcSettings,
    patch: &RedfishPatch,
    immediate: bool,
) -> Result<(&'r Writable, WriteTarget), String> {
    let Some(resource) = read.writable.iter().find(|w| w.uri == patch.resource) else {
        return Err(format!("{} is no longer served", patch.resource));
    };
    let target = match resource.target() {
        Some(Ok(target)) if target.as_str() == patch.settings => target,
        Some(Ok(target)) => {
            return Err(format!(
                "the plan stages it in {}, but {} is read as staging it in {target}; nothing sent",
                patch.settings, patch.resource
            ));
        }
        Some(Err(why)) => return Err(format!("{why}; nothing sent")),
        None => {
            return Err(format!(
                "{} names no settings object; nothing sent",
                patch.resource
            ));
        }
    };
    if patch.apply_time == "Immediate" && !immediate {
        return Err(format!(
            "{} stages no change for a reset (SupportedApplyTimes: {}): give --immediate to apply it at once; nothing sent",
            patch.resource,
            patch.supported_apply_times.join(", ")
        ));
    }
    Ok((resource, target))
}

/// The patch's values that are neither current nor staged; when there are none, or another
/// value is staged for one of them, the step's outcome instead.
fn values_to_send(
    resource: &Writable,
    patch: &RedfishPatch,
) -> Result<serde_json::Map<String, Value>, (Outcome, String)> {
    let wanted = patch.body["Attributes"]
        .as_object()
        .cloned()
        .unwrap_or_default();
    let mut to_send = serde_json::Map::new();
    let (mut current, mut pending) = (0, 0);
    for (name, value) in &wanted {
        if resource.current.get(name) == Some(value) {
            current += 1;
        } else if resource.pending.get(name) == Some(value) {
            pending += 1;
        } else if let Some(other) = resource
            .pending
            .get(name)
            // A settings object that repeats the current value stages nothing (some BMCs
            // mirror every current value there).
            .filter(|other| resource.current.get(name) != Some(*other))
        {
            return Err((
                Outcome::Conflict,
                format!(
                    "{name} has {other} staged for the next reset, not {value}: clear the staged settings of {} first; nothing sent",
                    resource.uri
                ),
            ));
        } else {
            to_send.insert(name.clone(), value.clone());
        }
    }
    match (to_send.is_empty(), pending) {
        (false, _) => Ok(to_send),
        (true, 0) => Err((
            Outcome::AlreadyCurrent,
            format!("{current} value(s) already current: nothing sent"),
        )),
        (true, _) => Err((
            Outcome::AlreadyPending,
            format!("already staged for the next reset ({pending} value(s)): nothing sent"),
        )),
    }
}

/// Reads back what an accepted patch (HTTP `status`) sent: staged in the settings object, or
/// current in the resource (a BMC that applies at once whatever was asked).
async fn read_back(
    connection: &Connection,
    patch: &RedfishPatch,
    to_send: &serde_json::Map<String, Value>,
    status: u16,
) -> (Outcome, String) {
    let staged = connection.get(&patch.settings).await.ok();
    let now = connection.get(&patch.resource).await.ok();
    let shows = |resource: &Option<Value>| {
        resource.as_ref().is_some_and(|r| {
            to_send
                .iter()
                .all(|(k, v)| r["Attributes"].get(k) == Some(v))
        })
    };
    if shows(&now) {
        (
            Outcome::Applied,
            format!(
                "the BMC applied it at once although {} was asked: read back from {}",
                patch.apply_time, patch.resource
            ),
        )
    } else if shows(&staged) {
        (
            Outcome::Applied,
            format!(
                "staged for the next reset ({}): read back from {}",
                patch.apply_time, patch.settings
            ),
        )
    } else {
        (
            Outcome::Failed,
            format!(
                "accepted (HTTP {status}) but not read back from {} nor {}",
                patch.settings, patch.resource
            ),
        )
    }
}

/// The reset of the one system whose reset applies what `steps` (the host's BMC steps that
/// staged something, or would in a dry run) wrote (`GracefulRestart`, else `ForceRestart`,
/// else `PowerCycle`), as a request to send and where it goes; why none, else.
fn reset_request(read: &BmcSettings, steps: &[Step]) -> Result<(Request, WriteTarget), String> {
    let mut systems: Vec<&str> = Vec::new();
    for step in steps.iter().filter(|s| s.reboot) {
        let Action::RedfishPatch(patch) = &step.action else {
            continue;
        };
        let Some(resource) = read.writable.iter().find(|w| w.uri == patch.resource) else {
            return Err(format!("{} is no longer served", patch.resource));
        };
        let system = resource
            .system
            .as_deref()
            .map_err(|why| format!("{} ({}): {why}", step.id, patch.resource))?;
        if !systems.contains(&system) {
            systems.push(system);
        }
    }
    let system = match systems.as_slice() {
        [one] => *one,
        [] => return Err("nothing is staged for a reset".to_owned()),
        several => {
            return Err(format!(
                "the staged steps belong to several systems ({}): reset each in the change window",
                several.join(", ")
            ));
        }
    };
    let reset = read
        .reset_of(system)
        .ok_or_else(|| format!("the system {system} names no #ComputerSystem.Reset action"))?;
    // A reset target is the system's own, as the client sends it: one a BMC names elsewhere
    // (a manager's reset) is not posted to.
    let target = reset
        .checked_target()
        .map_err(|why| format!("the reset target of {system}: {why}; nothing sent there"))?;
    let kind = ["GracefulRestart", "ForceRestart", "PowerCycle"]
        .into_iter()
        .find(|k| reset.allowed.is_empty() || reset.allowed.iter().any(|a| a == k))
        .ok_or_else(|| {
            format!(
                "the system allows none of GracefulRestart, ForceRestart, PowerCycle ({}): reset it in the change window",
                reset.allowed.join(", ")
            )
        })?;
    let request = Request::unsent("POST", target.as_str(), json!({"ResetType": kind}));
    Ok((request, target))
}

async fn reset(connection: &Connection, target: &WriteTarget, mut request: Request) -> Request {
    match connection
        .write(WriteMethod::Post, target, &request.body)
        .await
    {
        Ok(answer) => {
            answered(&mut request, &answer);
            if let Some(location) = answer.redirected_to() {
                request.messages.push(format!(
                    "redirected to {location}: a write never follows a redirect; not sent there"
                ));
            }
        }
        Err(e) => request.messages.push(e.to_string()),
    }
    request
}

/// Records `answer` in `request`.
fn answered(request: &mut Request, answer: &Answer) {
    request.status = Some(i64::from(answer.status));
    request.location = answer.location.clone();
    request.messages = answer.messages();
}

/// Runs `step`'s lines on the host, one after the other, until one fails or `cancel` is
/// cancelled: a line runs to its end (the signal stops its process, as a capture's), the
/// lines after it are not run and are named in the record.
fn os_step(
    settings: &Settings,
    state: &RunHostState<'_>,
    step: &Step,
    cancel: &driftgate_collect::Cancel,
) -> StepRecord {
    let Action::Commands(commands) = &step.action else {
        unreachable!("called for command steps only");
    };
    let done = |outcome, detail: String, requests| StepRecord {
        step: step.clone(),
        outcome,
        detail,
        requests,
        job: None,
    };
    let transport = match transport_of(settings, state, step.layer) {
        Ok(transport) => transport,
        Err(why) => return done(Outcome::Failed, why, Vec::new()),
    };
    let mut requests = Vec::new();
    for (ran, line) in commands.lines.iter().enumerate() {
        // Checked between lines: the transport runs one synchronously, out of the grace's
        // reach, and a line after a signal must not start.
        if cancel.is_cancelled() {
            let rest = &commands.lines[ran..];
            return match ran {
                0 => done(Outcome::NotSent, STOPPED.to_owned(), requests),
                _ => done(Outcome::Failed, stopped_between(ran, rest), requests),
            };
        }
        let argv = match command_line(commands.shell, line) {
            Ok(argv) => argv,
            Err(why) => return done(Outcome::Failed, why, requests),
        };
        let mut request = Request::unsent("RUN", &transport.target(), Value::from(line.as_str()));
        let ran = run_line(transport.as_ref(), &argv, line, &mut request);
        requests.push(request);
        if let Err(why) = ran {
            return done(Outcome::Failed, why, requests);
        }
    }
    done(Outcome::Applied, "ran on the host".to_owned(), requests)
}

/// The transport that runs `layer`'s commands on the host; why there is none, else (a host
/// read through vCenter or from recordings runs no command).
fn transport_of(
    settings: &Settings,
    state: &RunHostState<'_>,
    layer: Layer,
) -> Result<Box<dyn CommandTransport>, String> {
    let sources = &state.inventory.sources;
    let location = sources.iter().find_map(|s| match (s, layer) {
        (SourceSpec::Windows(l), Layer::Windows)
        | (SourceSpec::Linux(l), Layer::Linux)
        | (SourceSpec::Esxi(l), Layer::Esxi) => Some(l),
        _ => None,
    });
    let through_vcenter = layer == Layer::Esxi
        && sources
            .iter()
            .any(|s| matches!(s, SourceSpec::EsxiVcenter(_)));
    if location.is_none() && through_vcenter {
        return Err("the host is read through vCenter, which runs no command on it: run the emitted script (fix plan --emit-scripts) on the host".to_owned());
    }
    let Some(location) = location else {
        return Err(format!(
            "the host has no {} source to run it through",
            layer.as_str()
        ));
    };
    if matches!(location, driftgate_collect::transport::Location::Dir(_)) {
        return Err("the host's source is a folder of recordings: run the emitted script (fix plan --emit-scripts) on the host".to_owned());
    }
    let options = host_options(settings, state.inventory).map_err(|e| e.to_string())?;
    Ok(for_location(location, &options.process))
}

/// The command line that runs `line` in `shell`. A PowerShell line goes encoded: ssh and a
/// Windows host's cmd.exe read a `-Command` line again on the way, with quoting rules of
/// their own.
fn command_line(shell: Shell, line: &str) -> Result<Vec<String>, String> {
    Ok(match shell {
        Shell::Sh => vec!["sh".to_owned(), "-c".to_owned(), line.to_owned()],
        Shell::PowerShell => {
            let encoded = driftgate_fix::powershell_encoded(&format!(
                "$ErrorActionPreference = 'Stop'\n{line}"
            ))
            .map_err(|e| e.to_string())?;
            [
                "powershell",
                "-NoProfile",
                "-NonInteractive",
                "-EncodedCommand",
            ]
            .into_iter()
            .map(str::to_owned)
            .chain([encoded])
            .collect()
        }
    })
}

/// Runs `argv` (the command line of `line`) through `transport`, its status and error
/// recorded in `request`; why the step failed, when it did.
fn run_line(
    transport: &dyn CommandTransport,
    argv: &[String],
    line: &str,
    request: &mut Request,
) -> Result<(), String> {
    let argv: Vec<&str> = argv.iter().map(String::as_str).collect();
    let spec = CommandSpec {
        file: "fix",
        argv: &argv,
        stdin: None,
    };
    match transport.run(&spec) {
        Ok(output) => {
            request.status = Some(i64::from(output.status));
            if output.status != 0 {
                request.messages.push(output.stderr_line());
                return Err(format!(
                    "`{}` exited with status {}",
                    driftgate_fix::one_line(line),
                    output.status
                ));
            }
            Ok(())
        }
        Err(e) => {
            request.messages.push(e.to_string());
            Err(e.to_string())
        }
    }
}

/// The detail of a command step stopped by a signal after `ran` of its lines: the lines
/// not run, named.
fn stopped_between(ran: usize, rest: &[String]) -> String {
    let rest: Vec<String> = rest
        .iter()
        .map(|line| format!("`{}`", driftgate_fix::one_line(line)))
        .collect();
    format!(
        "fix apply was stopped by a signal after {ran} of its {} lines; not run: {}",
        ran + rest.len(),
        rest.join(", ")
    )
}

/// Logs out of every BMC that was read.
async fn close(bmcs: impl Iterator<Item = OpenBmc>) {
    for (connection, _) in bmcs {
        let _ = connection.close().await;
    }
}
