//! What a gate step resolves of each host before anything is captured: its inventory entry,
//! its baseline at a commit (in the fleet the inventory names), its capture settings and
//! allowances.

use super::run::{Manifest, RunDir, RunHost, RunId};
use super::{GateError, Settings};
use driftgate_collect::CaptureOptions;
use driftgate_compare::Allowance;
use driftgate_inventory::InventoryHost;
use driftgate_snapshot::{HostName, VerifiedSnapshot};
use driftgate_store::{BaselineReadError, Store};

/// One host's inputs, resolved before anything is captured.
pub(super) struct Planned<'a> {
    pub(super) host: &'a InventoryHost,
    pub(super) fleet: String,
    pub(super) cluster: Option<String>,
    pub(super) baseline: Baseline,
    pub(super) pre: Option<VerifiedSnapshot>,
    pub(super) options: CaptureOptions,
    /// Judged with `--strict`.
    pub(super) strict: bool,
    /// Allowances that apply to any of its findings.
    pub(super) allowances: Vec<Allowance>,
    /// Waivers given at its pre: they apply only to drift already there at pre.
    pub(super) waivers: Vec<Allowance>,
}

/// A host's baseline and the store commit it was read at.
pub(crate) struct Baseline {
    pub(super) snapshot: VerifiedSnapshot,
    pub(super) commit: String,
}

pub(super) fn other_run(run: &RunDir, id: &RunId, found: &Manifest) -> GateError {
    GateError::OtherRun {
        id: id.to_string(),
        found: found.id.clone(),
        dir: run.path().display().to_string(),
    }
}

/// The directory and manifest of run `id`, which must exist and be that run.
pub(crate) fn existing_run(
    settings: &Settings,
    id: &RunId,
) -> Result<(RunDir, Manifest), GateError> {
    let run = RunDir::locate(&settings.store, settings.run_dir.as_deref(), id)?;
    let manifest = run.manifest()?.ok_or_else(|| GateError::NoSuchRun {
        id: id.clone(),
        dir: run.path().display().to_string(),
    })?;
    if manifest.id != id.as_str() {
        return Err(other_run(&run, id, &manifest));
    }
    Ok((run, manifest))
}

/// `hosts` without repeats, in order.
pub(crate) fn unique(hosts: &[HostName]) -> Vec<HostName> {
    let mut seen = Vec::new();
    for host in hosts {
        if !seen.contains(host) {
            seen.push(host.clone());
        }
    }
    seen
}

/// `allowances` in force today (UTC), and those that expired.
pub(super) fn in_force(allowances: Vec<Allowance>) -> (Vec<Allowance>, Vec<Allowance>) {
    let today = jiff::tz::TimeZone::UTC
        .to_datetime(jiff::Timestamp::now())
        .date();
    driftgate_compare::allow::split_expired(allowances, today)
}

pub(crate) fn inventory_host<'a>(
    settings: &'a Settings,
    name: &HostName,
) -> Result<&'a InventoryHost, GateError> {
    settings
        .inventory
        .host(name.as_str())
        .ok_or_else(|| GateError::UnknownHost {
            host: name.clone(),
            inventory: settings.inventory.file.display().to_string(),
        })
}

/// The store's HEAD commit (hex), if it has one.
pub(crate) fn head(store: &Store) -> Result<Option<String>, GateError> {
    Ok(store.head_commit()?)
}

/// `host`'s baseline at `commit` (none: the store has no commit yet), which must be in the
/// fleet the inventory names and of that host.
pub(crate) fn baseline(
    settings: &Settings,
    host: &InventoryHost,
    commit: Option<&str>,
) -> Result<Baseline, GateError> {
    let store = &settings.store;
    let file = match commit {
        Some(commit) => store.host_file(commit, host.name.as_str())?,
        None => None,
    };
    let commit = commit.unwrap_or_default();
    let Some(file) = file else {
        return Err(GateError::NoBaseline {
            host: host.name.clone(),
            fleet: host.fleet.clone(),
            store: store.location().display().to_string(),
        });
    };
    let expected = format!(
        "{}/{}/{}.json",
        driftgate_store::BASELINES_DIR,
        host.fleet,
        host.name
    );
    if file.path != expected {
        return Err(GateError::OtherFleet {
            host: host.name.clone(),
            fleet: host.fleet.clone(),
            baseline: file.path,
            inventory: settings.inventory.file.display().to_string(),
        });
    }
    let baseline = store
        .read_listed_baseline(commit, &file, host.name.as_str())
        .map_err(|error| match error {
            BaselineReadError::Store(error) => GateError::Store(error),
            BaselineReadError::Invalid(error) => GateError::Snapshot(error),
            BaselineReadError::OtherHost { origin, found, .. } => {
                GateError::HostMismatch(driftgate_compare::HostMismatch {
                    snapshot: format!("host {} of the inventory", host.name),
                    host: host.name.to_string(),
                    baseline: origin,
                    baseline_host: found,
                })
            }
        })?;
    Ok(Baseline {
        snapshot: baseline,
        commit: commit.to_owned(),
    })
}

/// A warning when `host`'s baseline at HEAD is no longer the one its pre in the run was
/// judged against (another promote since): the post still judges against the pre's. What an
/// earlier post of this same run promoted is not a move.
pub(super) fn moved_baseline(
    settings: &Settings,
    run: &RunDir,
    host: &InventoryHost,
    in_run: &RunHost,
    run_id: &RunId,
) -> Result<Option<String>, GateError> {
    let Some(head) = head(&settings.store)? else {
        return Ok(None);
    };
    if head == in_run.baseline_commit {
        return Ok(None);
    }
    let now = match baseline(settings, host, Some(&head)) {
        Ok(now) => now.snapshot.digest().to_owned(),
        Err(GateError::NoBaseline { .. }) => "none".to_owned(),
        Err(error) => return Err(error),
    };
    if now == in_run.baseline_digest || run.post_digests(&host.name)?.contains(&now) {
        return Ok(None);
    }
    Ok(Some(format!(
        "the baseline of {} moved since the pre of run {run_id} ({} at commit {}, {now} at HEAD {}): this post judges against the pre's",
        host.name,
        in_run.baseline_digest,
        short(&in_run.baseline_commit),
        short(&head)
    )))
}

/// The first 12 digits of a commit id.
pub(super) fn short(commit: &str) -> &str {
    commit.get(..12).unwrap_or(commit)
}

/// Adds those of `more` that `list` does not hold yet, in order.
pub(super) fn add_new(list: &mut Vec<Allowance>, more: Vec<Allowance>) {
    for a in more {
        if !list.contains(&a) {
            list.push(a);
        }
    }
}

/// The capture settings of `host`: the step's, with what its inventory entry says instead.
/// Reads the capture settings of every host of `names` the inventory has, before anything
/// else of the step: a BMC account whose variable is unset or empty, or a credentials or CA
/// file that cannot be read, is the operator's to fix, every such host named at once, and no
/// host is captured.
pub(super) fn check_host_settings(
    settings: &Settings,
    names: &[HostName],
) -> Result<(), GateError> {
    let unreadable: Vec<_> = names
        .iter()
        .filter_map(|name| settings.inventory.host(name.as_str()))
        .filter_map(|host| {
            settings
                .inventory
                .capture_options(host, &settings.capture)
                .err()
        })
        .collect();
    if unreadable.is_empty() {
        Ok(())
    } else {
        Err(GateError::HostSettings(unreadable))
    }
}

pub(crate) fn host_options(
    settings: &Settings,
    host: &InventoryHost,
) -> Result<CaptureOptions, GateError> {
    Ok(settings
        .inventory
        .capture_options(host, &settings.capture)?)
}
