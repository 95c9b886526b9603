//! Plans from judged snapshots outside a run: `fix plan --snapshot SNAP [--baseline SNAP]`
//! and `fix plan --out-dir DIR` (a nightly's `snapshots/<host>.json`, each judged again
//! against its baseline in the store). A host's BMC is read where the inventory says, else
//! where the snapshot says it was captured from (a `mockup:` folder, a BMC address).

use std::path::Path;

use driftgate_collect::CaptureOptions;
use driftgate_compare::{JudgeOptions, Report, Verdict};
use driftgate_fix::{PLAN_SCHEMA_ID, Plan};
use driftgate_redfish::RedfishLocation;
use driftgate_snapshot::{HostName, VerifiedSnapshot};

use super::planning::{Planned, plan_with, read_bmc, redfish_of};
use crate::plan::{baseline, head, inventory_host};
use crate::{GateError, Settings};

/// A snapshot and its judgement.
pub struct Judged {
    /// The snapshot.
    pub snapshot: VerifiedSnapshot,
    /// Its judgement.
    pub report: Report,
}

/// The snapshots of a nightly out-dir (`snapshots/<host>.json`, of `hosts` or all), each
/// judged again against its baseline at the store's HEAD under `settings`' policy.
pub fn out_dir(
    settings: &Settings,
    dir: &Path,
    hosts: &[HostName],
) -> Result<Vec<Judged>, GateError> {
    let folder = dir.join("snapshots");
    let io = |file: &Path, error: std::io::Error| GateError::Io {
        file: file.display().to_string(),
        error,
    };
    let mut names: Vec<String> = std::fs::read_dir(&folder)
        .map_err(|e| io(&folder, e))?
        .filter_map(|entry| {
            entry
                .ok()?
                .file_name()
                .to_str()?
                .strip_suffix(".json")
                .map(str::to_owned)
        })
        .filter(|name| hosts.is_empty() || hosts.iter().any(|h| h.as_str() == name))
        .collect();
    names.sort();
    // A host named but not in the out-dir may be the one the night could not read.
    if let Some(missing) = hosts
        .iter()
        .find(|h| !names.iter().any(|n| n == h.as_str()))
    {
        return Err(GateError::FixRefused(vec![format!(
            "host {missing} has no snapshot in {} (the night did not read it, or it is no host of that run)",
            folder.display()
        )]));
    }
    let commit = head(&settings.store)?;
    let mut judged = Vec::new();
    for name in names {
        let file = folder.join(format!("{name}.json"));
        let text = std::fs::read_to_string(&file).map_err(|e| io(&file, e))?;
        let snapshot = VerifiedSnapshot::parse(&text, &file.display().to_string())?;
        let host = inventory_host(settings, &snapshot.snapshot().host)?;
        let base = baseline(settings, host, commit.as_deref())?;
        let report = driftgate_compare::judge(
            &snapshot,
            Some(&base.snapshot),
            &settings.policy,
            &JudgeOptions::default(),
        );
        judged.push(Judged { snapshot, report });
    }
    Ok(judged)
}

/// The plan of `judged`: a BMC is read at the host's inventory source (`settings` given),
/// else at the snapshot's recorded Redfish source, with `capture`'s account and trust.
pub async fn plan(
    judged: &[Judged],
    settings: Option<&Settings>,
    capture: &CaptureOptions,
    made_from: String,
) -> Planned {
    let mut hosts = Vec::new();
    let mut incomplete = Vec::new();
    for item in judged {
        let snapshot = item.snapshot.snapshot();
        let name = snapshot.host.as_str();
        if item.report.verdict == Verdict::Incomplete {
            incomplete.push(name.to_owned());
            continue;
        }
        if !driftgate_fix::blocks(&item.report) {
            continue;
        }
        if !driftgate_fix::needs_bmc(&item.report, snapshot) {
            hosts.push(plan_with(name, &item.report, snapshot, None));
            continue;
        }
        let inventory = settings.and_then(|s| s.inventory.host(name).map(|h| (s, h)));
        let (location, options) = match inventory {
            Some((settings, host)) => (
                redfish_of(host).cloned(),
                settings
                    .inventory
                    .capture_options(host, &settings.capture)
                    .map(|o| o.redfish)
                    .map_err(|e| e.to_string()),
            ),
            None => (
                snapshot
                    .sources
                    .iter()
                    .find(|s| s.name == "redfish")
                    .and_then(|s| RedfishLocation::parse(&s.target).ok()),
                Ok(capture.redfish.clone()),
            ),
        };
        let read = match (location, options) {
            (None, _) => None,
            (Some(_), Err(why)) => Some(Err(why)),
            (Some(location), Ok(options)) => {
                match read_bmc(&location, &options, &capture.cancel).await {
                    Ok((connection, read)) => {
                        // A plan only reads: the session is not kept.
                        let _ = connection.close().await;
                        Some(Ok(read))
                    }
                    Err(why) => Some(Err(why)),
                }
            }
        };
        hosts.push(plan_with(
            name,
            &item.report,
            snapshot,
            read.as_ref().map(|r| r.as_ref().map_err(Clone::clone)),
        ));
    }
    Planned {
        plan: Plan {
            schema: PLAN_SCHEMA_ID.to_owned(),
            tool: driftgate_snapshot::tool_version(),
            made_from,
            hosts,
        },
        incomplete,
    }
}
