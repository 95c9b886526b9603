//! A fix plan as it is printed, published (`driftgate schema fix-plan`) and applied.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use driftgate_snapshot::{FactPath, FactValue};

/// The schema id of fix plans.
pub const PLAN_SCHEMA_ID: &str = "driftgate.fix-plan/v1";

/// What to change on which hosts to bring their blocking findings back to known good.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(title = "driftgate fix plan v1")]
pub struct Plan {
    /// Always `driftgate.fix-plan/v1`.
    pub schema: String,
    /// Tool and version.
    pub tool: String,
    /// What the plan was made from: `run <ID> (post-2)`, a nightly out-dir, a snapshot.
    pub made_from: String,
    /// One entry per host with blocking findings.
    pub hosts: Vec<HostPlan>,
}

/// What to do on one host.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct HostPlan {
    /// The host.
    pub host: String,
    /// Its steps, BMC first, in the order to apply them.
    pub steps: Vec<Step>,
    /// Blocking findings no step fixes, each saying why.
    pub not_fixable: Vec<NotFixable>,
    /// Blocking findings on the operating system's view of what a step's setting drives
    /// (the DCBX state the OS negotiated, the traffic classes in effect): they follow from
    /// the steps and are verified with them.
    pub effects: Vec<Effect>,
    /// Why the host's BMC could not be read for this plan, when it could not: its BMC
    /// findings then have no step (exit 3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unread: Option<String>,
}

/// The layer that owns a setting.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Layer {
    /// The BMC (Redfish): NIC and BIOS attributes.
    Bmc,
    /// Windows (PowerShell).
    Windows,
    /// VMware ESXi (`esxcli`).
    Esxi,
    /// Linux (`mlxconfig`, `mlnx_qos`, `ethtool`).
    Linux,
}

impl Layer {
    /// The layer's name as the command line spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            Layer::Bmc => "bmc",
            Layer::Windows => "windows",
            Layer::Esxi => "esxi",
            Layer::Linux => "linux",
        }
    }

    /// Whether the operating system owns it (`--layer os`).
    pub fn is_os(self) -> bool {
        self != Layer::Bmc
    }
}

/// How much a step can disturb the host.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Risk {
    /// Takes effect at once, nothing restarts (a path selection policy).
    Low,
    /// Briefly disturbs traffic on the port (a QoS or DCB change in the OS).
    Medium,
    /// Needs a reboot: drain the host first.
    High,
}

/// One value a step sets.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Change {
    /// The fact that shows it.
    pub fact: FactPath,
    /// Its value now (absent: the fact is missing).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<FactValue>,
    /// The known-good value.
    pub to: FactValue,
    /// Where the known-good value comes from: `baseline`, `policy rule <id>`,
    /// `invariant <id>`.
    pub known_good: String,
    /// The fact that shows the value while it is staged for the next reset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pending_fact: Option<FactPath>,
    /// The ids of the findings it answers.
    pub findings: Vec<String>,
}

/// One step of a plan.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Step {
    /// `<layer>-<n>`, unique within the host and the same for the same plan.
    pub id: String,
    /// The layer that owns the setting.
    pub layer: Layer,
    /// What it sets, one line.
    pub summary: String,
    /// The values it sets.
    pub changes: Vec<Change>,
    /// Whether the change takes effect only after a reboot.
    pub reboot: bool,
    /// How much it can disturb the host.
    pub risk: Risk,
    /// Why that risk, one sentence.
    pub risk_note: String,
    /// How the step is verified.
    pub verify: String,
    /// What is sent or run.
    pub action: Action,
}

/// What a step sends or runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Action {
    /// A PATCH of a Redfish settings object.
    RedfishPatch(RedfishPatch),
    /// Commands for the host's shell.
    Commands(Commands),
}

/// A PATCH of a `@Redfish.Settings` object.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RedfishPatch {
    /// The resource whose settings it stages.
    pub resource: String,
    /// The settings object PATCHed.
    pub settings: String,
    /// `@Redfish.SettingsApplyTime.ApplyTime` sent.
    pub apply_time: String,
    /// The resource's `SupportedApplyTimes` (empty: not listed).
    pub supported_apply_times: Vec<String>,
    /// The attribute registry the values were checked against.
    pub registry: String,
    /// The body sent.
    pub body: serde_json::Value,
    /// What the vendor needs after it, in order.
    pub then: Vec<String>,
}

/// The shell a step's commands are for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Shell {
    /// POSIX shell (ESXi, Linux).
    Sh,
    /// Windows PowerShell.
    PowerShell,
}

/// Commands to run on the host.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Commands {
    /// The shell.
    pub shell: Shell,
    /// The lines, in order.
    pub lines: Vec<String>,
}

/// Why a blocking finding has no step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Unfixable {
    /// A firmware version: fixed by flashing firmware, not by a setting.
    Firmware,
    /// What the hardware or its firmware can do: no setting gives it back.
    Capability,
    /// No known-good value: nothing in the baseline, the policy or the invariant says it.
    NoKnownGood,
    /// No layer driftgate knows owns the setting.
    NoOwner,
    /// The BMC has no writable attribute that gives the value (read-only, not in its
    /// registry's allowed values, no settings object, no registry to check it against).
    Refused,
    /// A value staged for the next reset: clear it on the BMC.
    Pending,
    /// The BMC could not be read to find the write.
    Unread,
    /// Set at the other end of the link (the switch port, or a peer node's NIC): what the
    /// neighbour advertises is configured there, not on this host.
    OtherEnd,
}

/// A blocking finding no step fixes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct NotFixable {
    /// The fact.
    pub fact: FactPath,
    /// Its value now.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub now: Option<FactValue>,
    /// The ids of its findings.
    pub findings: Vec<String>,
    /// Why.
    pub reason: Unfixable,
    /// Why, in a sentence.
    pub why: String,
}

/// A blocking finding that follows from a setting.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Effect {
    /// The fact.
    pub fact: FactPath,
    /// The ids of its findings.
    pub findings: Vec<String>,
    /// The steps on the same port or device it follows from (none: investigate).
    pub follows: Vec<String>,
}
