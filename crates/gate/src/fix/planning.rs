//! A run's hosts as a plan needs them, their BMCs read, and each host's plan: what `fix plan`
//! prints and `fix apply` sends.

use driftgate_collect::{Cancel, SourceSpec};
use driftgate_compare::{Report, Verdict};
use driftgate_fix::{Bmc, HostPlan, PLAN_SCHEMA_ID, Plan};
use driftgate_inventory::InventoryHost;
use driftgate_redfish::settings::BmcSettings;
use driftgate_redfish::settings::connection::Connection;
use driftgate_redfish::{RedfishLocation, RedfishOptions};
use driftgate_snapshot::{HostName, Snapshot};

use crate::plan::{existing_run, host_options, inventory_host, unique};
use crate::run::{RunDir, RunId};
use crate::{GateError, Settings};

/// A plan, and what kept part of it from being made.
#[derive(Debug, Clone)]
pub struct Planned {
    /// The plan.
    pub plan: Plan,
    /// Hosts whose latest step was incomplete: judged on a partial capture, they get no plan.
    pub incomplete: Vec<String>,
}

impl Planned {
    /// Whether a host's BMC could not be read (exit 3).
    pub fn unread(&self) -> bool {
        self.plan.hosts.iter().any(|h| h.unread.is_some())
    }
}

/// One host of the run as a plan needs it.
pub(crate) struct RunHostState<'a> {
    pub(crate) name: HostName,
    pub(crate) inventory: &'a InventoryHost,
    pub(crate) step: String,
    pub(crate) snapshot: Snapshot,
    pub(crate) report: Report,
}

/// The run's `hosts` (all when empty), each with its latest judged step.
pub(crate) fn run_hosts<'a>(
    settings: &'a Settings,
    run_id: &RunId,
    hosts: &[HostName],
) -> Result<(RunDir, Vec<RunHostState<'a>>), GateError> {
    let (run, manifest) = existing_run(settings, run_id)?;
    let names: Vec<HostName> = if hosts.is_empty() {
        manifest.hosts.iter().map(|h| h.name.clone()).collect()
    } else {
        unique(hosts)
    };
    let mut states = Vec::new();
    for name in names {
        if !manifest.hosts.iter().any(|h| h.name == name) {
            let listed: Vec<&str> = manifest.hosts.iter().map(|h| h.name.as_str()).collect();
            return Err(GateError::NotInRun {
                host: name,
                id: run_id.clone(),
                hosts: listed.join(", "),
            });
        }
        let inventory = inventory_host(settings, &name)?;
        let Some((step, snapshot, report)) = run.latest(&name)? else {
            return Err(GateError::NoPre {
                file: RunDir::snapshot_file(&run.pre_dir(), &name)
                    .display()
                    .to_string(),
                host: name,
                id: run_id.clone(),
            });
        };
        states.push(RunHostState {
            name,
            inventory,
            step,
            snapshot: snapshot.snapshot().clone(),
            report,
        });
    }
    Ok((run, states))
}

/// The host's BMC location in the inventory.
pub(crate) fn redfish_of(host: &InventoryHost) -> Option<&RedfishLocation> {
    host.sources.iter().find_map(|s| match s {
        SourceSpec::Redfish(location) => Some(location),
        _ => None,
    })
}

/// Reads `host`'s BMC for a plan (a connection kept open for `apply`); `None` when it has no
/// Redfish source.
pub(crate) async fn open_bmc(
    settings: &Settings,
    host: &InventoryHost,
) -> Result<Option<(Connection, BmcSettings)>, String> {
    let Some(location) = redfish_of(host) else {
        return Ok(None);
    };
    let options = host_options(settings, host).map_err(|e| e.to_string())?;
    read_bmc(location, &options.redfish, &settings.capture.cancel)
        .await
        .map(Some)
}

/// Opens and reads the BMC at `location`; logged out again when it cannot be read, or when
/// `cancel` stops the read (a signal: nothing is planned from half a BMC).
pub(crate) async fn read_bmc(
    location: &RedfishLocation,
    options: &RedfishOptions,
    cancel: &Cancel,
) -> Result<(Connection, BmcSettings), String> {
    let connection = Connection::open(location, options)
        .await
        .map_err(|e| e.to_string())?;
    let read = tokio::select! {
        read = connection.read() => read.map_err(|e| e.to_string()),
        () = cancel.cancelled() => Err("stopped by a signal before it was read".to_owned()),
    };
    match read {
        Ok(read) => Ok((connection, read)),
        Err(why) => {
            let _ = connection.close().await;
            Err(why)
        }
    }
}

/// The plan of one host from what is known of its BMC: read, unread (and why), or none.
pub(crate) fn plan_with(
    name: &str,
    report: &Report,
    snapshot: &Snapshot,
    bmc: Option<Result<&BmcSettings, String>>,
) -> HostPlan {
    let bmc = match bmc {
        Some(Ok(read)) => Bmc::Read(read),
        Some(Err(why)) => Bmc::Unread(why),
        None => Bmc::None,
    };
    driftgate_fix::host_plan(name, report, snapshot, bmc)
}

/// `fix plan --run ID [HOST…]`: each host's plan from its latest judged step; a host whose
/// step was incomplete gets none (its capture must be whole first), one that passed needs
/// none. A host's BMC is read only when its plan has BMC settings to look up.
pub async fn plan_run(
    settings: &Settings,
    run_id: &RunId,
    hosts: &[HostName],
) -> Result<Planned, GateError> {
    let (_, states) = run_hosts(settings, run_id, hosts)?;
    let mut plans = Vec::new();
    let mut incomplete = Vec::new();
    let mut steps = Vec::new();
    for state in &states {
        steps.push(format!("{} ({})", state.name, state.step));
        if state.report.verdict == Verdict::Incomplete {
            incomplete.push(state.name.to_string());
            continue;
        }
        let (plan, bmc) = plan_host(settings, state).await;
        if let Some((connection, _)) = bmc {
            let _ = connection.close().await;
        }
        plans.extend(plan);
    }
    Ok(Planned {
        plan: Plan {
            schema: PLAN_SCHEMA_ID.to_owned(),
            tool: driftgate_snapshot::tool_version(),
            made_from: format!("run {run_id}: {}", steps.join(", ")),
            hosts: plans,
        },
        incomplete,
    })
}

/// One host's plan (none when nothing blocks), and its BMC connection when it was read.
pub(crate) async fn plan_host(
    settings: &Settings,
    state: &RunHostState<'_>,
) -> (Option<HostPlan>, Option<(Connection, BmcSettings)>) {
    if !driftgate_fix::blocks(&state.report) {
        return (None, None);
    }
    let name = state.name.as_str();
    let (report, snapshot) = (&state.report, &state.snapshot);
    if !driftgate_fix::needs_bmc(report, snapshot) {
        return (Some(plan_with(name, report, snapshot, None)), None);
    }
    match open_bmc(settings, state.inventory).await {
        Ok(Some((connection, read))) => {
            let plan = plan_with(name, report, snapshot, Some(Ok(&read)));
            (Some(plan), Some((connection, read)))
        }
        Ok(None) => (Some(plan_with(name, report, snapshot, None)), None),
        Err(why) => (
            Some(plan_with(name, report, snapshot, Some(Err(why)))),
            None,
        ),
    }
}
