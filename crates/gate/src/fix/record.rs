//! What `fix apply` did, kept in the run directory (`fix/apply-<N>.json`, written atomically)
//! for `gate post` to verify and the next promote's commit to name. The record is written
//! before each request with its step `sending`, and again with the answer: an apply that was
//! killed leaves a record saying what it was sending.

use serde::{Deserialize, Serialize};

use driftgate_fix::Step;

/// The schema id of apply records.
pub const RECORD_SCHEMA_ID: &str = "driftgate.fix-record/v1";

/// One `fix apply`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ApplyRecord {
    /// Always `driftgate.fix-record/v1`.
    pub schema: String,
    /// Tool and version.
    pub tool: String,
    /// The run.
    pub run: String,
    /// The change ticket it was applied under.
    pub ticket: String,
    /// When it started.
    pub started_at: jiff::Timestamp,
    /// The process that applied.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pid: Option<u32>,
    /// The machine it ran on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub machine: Option<String>,
    /// When it ended; none while it works, and in the record of an apply that was killed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finished_at: Option<jiff::Timestamp>,
    /// What stopped it before its end (a signal).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interrupted: Option<String>,
    /// Its hosts.
    pub hosts: Vec<HostRecord>,
}

/// What was done on one host.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HostRecord {
    /// The host.
    pub host: String,
    /// Each step of its plan in the chosen layer.
    pub steps: Vec<StepRecord>,
    /// The reset asked for with `--reset`, when sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reset: Option<Request>,
    /// Why the reset asked for was not sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reset_not_sent: Option<String>,
}

/// What became of one step.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StepRecord {
    /// The step as planned.
    pub step: Step,
    /// What became of it.
    pub outcome: Outcome,
    /// In a sentence.
    pub detail: String,
    /// What was sent, with what came back.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub requests: Vec<Request>,
    /// The task or job the BMC started for it, when it named one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub job: Option<String>,
}

impl StepRecord {
    /// Whether its request was sent and no answer recorded: the apply stopped before the
    /// answer (`sending`), or the request failed on the way back (no status). The BMC may
    /// have taken it.
    pub fn unanswered(&self) -> bool {
        match self.outcome {
            Outcome::Sending => true,
            Outcome::Failed => self.requests.iter().any(|r| r.status.is_none()),
            _ => false,
        }
    }
}

/// What became of a step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// Sent and accepted; read back as pending (or current).
    Applied,
    /// Every value was current already: nothing sent.
    AlreadyCurrent,
    /// Every value was staged already: nothing sent.
    AlreadyPending,
    /// Another value is staged for the same attribute: nothing sent.
    Conflict,
    /// Sent and refused, or not read back.
    Failed,
    /// Not sent: a dry run, or an apply stopped before this step.
    NotSent,
    /// Being sent: recorded before its request. A record that still says so was left by an
    /// apply that stopped before the answer came (killed, or no answer within the grace after
    /// a signal): the BMC may have taken it.
    Sending,
}

impl Outcome {
    /// Whether the step's values are (or will be at the reset) what it planned.
    pub fn in_place(self) -> bool {
        matches!(
            self,
            Outcome::Applied | Outcome::AlreadyCurrent | Outcome::AlreadyPending
        )
    }
}

/// One request and its answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Request {
    /// `PATCH`, `POST`, or `RUN` for a command.
    pub method: String,
    /// The URI, or the host's transport for a command.
    pub uri: String,
    /// The body, or the command line.
    pub body: serde_json::Value,
    /// HTTP status, or the command's exit status.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<i64>,
    /// `Location` of the answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub location: Option<String>,
    /// Its messages (Redfish `MessageId: Message`, a command's last error line).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub messages: Vec<String>,
    /// Recorded as it was about to be sent, with no answer recorded since.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub sending: bool,
}

impl Request {
    /// A request not sent yet (or never: a dry run).
    pub fn unsent(method: &str, uri: &str, body: serde_json::Value) -> Self {
        Request {
            method: method.to_owned(),
            uri: uri.to_owned(),
            body,
            status: None,
            location: None,
            messages: Vec::new(),
            sending: false,
        }
    }

    /// This request, recorded as about to be sent.
    pub fn sending(mut self) -> Self {
        self.sending = true;
        self
    }
}

/// Records as a killed or cut-off apply leaves them, for the modules that read them.
#[cfg(test)]
pub(crate) mod sample {
    use serde_json::json;

    /// The settings object the sample step PATCHes.
    pub(crate) const SETTINGS: &str = "/redfish/v1/Systems/1/Bios/Settings";

    /// A record of `ticket` for host `node1` with one BMC step setting `Bios/Mode` to `Uefi`,
    /// its outcome `outcome`, its PATCH answered with `status` (none: no answer recorded).
    pub(crate) fn record(
        ticket: &str,
        outcome: super::Outcome,
        status: Option<i64>,
    ) -> super::ApplyRecord {
        let detail = match status {
            None => "no answer: connection reset",
            Some(_) => "the BMC refused it",
        };
        let mut request = json!({"method": "PATCH", "uri": SETTINGS, "body": {}});
        if let Some(status) = status {
            request["status"] = json!(status);
        }
        serde_json::from_value(json!({
            "schema": super::RECORD_SCHEMA_ID,
            "tool": "driftgate test",
            "run": "CHG-1",
            "ticket": ticket,
            "started_at": "2026-01-01T00:00:00Z",
            "finished_at": "2026-01-01T00:01:00Z",
            "hosts": [{
                "host": "node1",
                "steps": [{
                    "step": {
                        "id": "bmc-1",
                        "layer": "bmc",
                        "summary": "Mode = Uefi",
                        "changes": [{
                            "fact": "bmc/bios/Mode",
                            "to": "Uefi",
                            "known_good": "baseline",
                            "findings": [],
                        }],
                        "reboot": true,
                        "risk": "high",
                        "risk_note": "a reboot",
                        "verify": "read back",
                        "action": {
                            "kind": "redfish_patch",
                            "resource": "/redfish/v1/Systems/1/Bios",
                            "settings": SETTINGS,
                            "apply_time": "OnReset",
                            "supported_apply_times": [],
                            "registry": "BiosAttributeRegistry",
                            "body": {"Attributes": {"Mode": "Uefi"}},
                            "then": [],
                        },
                    },
                    "outcome": outcome,
                    "detail": detail,
                    "requests": [request],
                }],
            }],
        }))
        .expect("a record")
    }
}
