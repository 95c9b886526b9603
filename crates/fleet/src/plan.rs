//! What a fleet check works on, decided before anything is captured: the selected hosts of
//! this shard, where each one's baseline is at HEAD (one walk of `baselines/`), and the
//! baselines of no inventory host that belong to this shard (orphans).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use super::outdir::PlannedHost;
use crate::error::FleetError;
use crate::settings::FleetSettings;
use driftgate_inventory::{InventoryHost, Selection};
use driftgate_store::BaselineFile;

/// The run's hosts and orphans.
#[derive(Debug)]
pub(super) struct Plan {
    /// The store's HEAD commit, if it has one.
    pub head: Option<String>,
    /// Hosts of the selection and the shard, in inventory order.
    pub hosts: Vec<Planned>,
    /// `baselines/<fleet>/<host>.json` files of no inventory host, in this shard.
    pub orphans: Vec<String>,
    /// `sha256:` of the hosts of the selection over all shards ([`planned_hosts`]; see
    /// [`super::outdir::RunIdentity`]).
    pub planned_digest: String,
}

/// One host of the run.
#[derive(Debug, Clone)]
pub(super) struct Planned {
    /// Its inventory entry, shared with the inventory rather than copied.
    pub host: Arc<InventoryHost>,
    /// Where its baseline is.
    pub baseline: BaselineAt,
}

/// A host's baseline at HEAD.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum BaselineAt {
    /// `baselines/<its fleet>/<host>.json`, with its blob at HEAD. Boxed: a run holds one of
    /// these for each host, most often without a file (a first night).
    File(Box<BaselineFile>),
    /// None: judged with invariants and `expect` rules only.
    Missing,
    /// Its baseline is not where the inventory says (another fleet, several fleets): the
    /// host is INCOMPLETE for this reason.
    Problem(String),
}

/// Plans the run of `settings`.
pub(super) fn plan(settings: &FleetSettings) -> Result<Plan, FleetError> {
    let inventory = &settings.inventory;
    let selected = inventory.select(&settings.selection);
    if selected.is_empty() {
        return Err(FleetError::NoHosts {
            inventory: inventory.file.display().to_string(),
            selection: describe(&settings.selection),
        });
    }
    let in_shard = |host: &str| settings.shard.is_none_or(|s| s.contains(host));
    let planned_digest = super::outdir::hosts_digest(&planned_hosts(settings));
    let head = settings.store.head_commit()?;
    let files = match &head {
        Some(head) => settings.store.baseline_files(head)?,
        None => Vec::new(),
    };
    // No baseline at all: a store in the wrong directory passes every host with a warning.
    if files.is_empty() && !settings.bootstrap {
        return Err(FleetError::NoBaselines {
            store: settings.store.location().display().to_string(),
        });
    }
    let mut by_host: BTreeMap<&str, Vec<&BaselineFile>> = BTreeMap::new();
    for file in &files {
        by_host.entry(file.host.as_str()).or_default().push(file);
    }
    let hosts = selected
        .into_iter()
        .filter(|h| in_shard(h.name.as_str()))
        .map(|host| Planned {
            baseline: baseline_at(
                host,
                by_host
                    .get(host.name.as_str())
                    .map_or(&[][..], Vec::as_slice),
                &inventory.file.display().to_string(),
            ),
            host: Arc::clone(host),
        })
        .collect();
    let known: BTreeSet<&str> = inventory.hosts.iter().map(|h| h.name.as_str()).collect();
    // An orphan has no inventory entry to match a cluster or tag against: only a selection by
    // fleet (or none) can say it is in scope.
    let orphans = if settings.selection.cluster.is_some() || settings.selection.tag.is_some() {
        Vec::new()
    } else {
        files
            .iter()
            .filter(|f| !known.contains(f.host.as_str()))
            .filter(|f| {
                settings
                    .selection
                    .fleet
                    .as_ref()
                    .is_none_or(|x| *x == f.fleet)
            })
            .filter(|f| in_shard(&f.host))
            .map(|f| f.path.clone())
            .collect()
    };
    Ok(Plan {
        head,
        hosts,
        orphans,
        planned_digest,
    })
}

/// The hosts of the selection over all shards, sorted by name: what `run.json` lists as
/// planned. Made when it is written rather than held through the run.
pub(super) fn planned_hosts(settings: &FleetSettings) -> Vec<PlannedHost> {
    let mut planned: Vec<PlannedHost> = settings
        .inventory
        .select(&settings.selection)
        .iter()
        .map(|h| PlannedHost {
            name: h.name.to_string(),
            fleet: h.fleet.clone(),
            cluster: h.cluster.clone(),
        })
        .collect();
    planned.sort();
    planned
}

/// Where `host`'s baseline is, from the baseline `files` named after it.
fn baseline_at(host: &InventoryHost, files: &[&BaselineFile], inventory: &str) -> BaselineAt {
    match files {
        [] => BaselineAt::Missing,
        [file] if file.fleet == host.fleet => BaselineAt::File(Box::new((*file).clone())),
        [file] => BaselineAt::Problem(format!(
            "{inventory}: host {} is in fleet {}, but its baseline is {}; fix the inventory or move the baseline",
            host.name, host.fleet, file.path
        )),
        several => BaselineAt::Problem(format!(
            "host {} has a baseline in several fleets ({}); keep the one of fleet {}",
            host.name,
            several
                .iter()
                .map(|f| f.path.as_str())
                .collect::<Vec<_>>()
                .join(", "),
            host.fleet
        )),
    }
}

/// `--fleet F --cluster C --tag T` as given, or "the selection (every host)".
fn describe(selection: &Selection) -> String {
    let mut parts = Vec::new();
    for (flag, value) in [
        ("--fleet", &selection.fleet),
        ("--cluster", &selection.cluster),
        ("--tag", &selection.tag),
    ] {
        if let Some(value) = value {
            parts.push(format!("{flag} {value}"));
        }
    }
    if parts.is_empty() {
        "the selection (every host): the inventory lists none".to_owned()
    } else {
        parts.join(" ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use driftgate_inventory::Inventory;

    fn host(name: &str, fleet: &str) -> Arc<InventoryHost> {
        let text = format!(
            "[[host]]\nname = \"{name}\"\nfleet = \"{fleet}\"\nsources = [\"redfish=https://bmc\"]\n"
        );
        Inventory::parse(&text, std::path::Path::new("inventory.toml"))
            .unwrap()
            .hosts
            .remove(0)
    }

    fn file(fleet: &str, host: &str) -> BaselineFile {
        BaselineFile {
            fleet: fleet.into(),
            host: host.into(),
            path: format!("baselines/{fleet}/{host}.json"),
            blob: git2::Oid::ZERO_SHA1,
        }
    }

    #[test]
    fn a_baseline_in_another_fleet_or_in_several_is_a_problem_of_that_host_not_of_the_run() {
        let h = host("h1", "a");
        let (here, there) = (file("a", "h1"), file("b", "h1"));
        assert_eq!(
            baseline_at(&h, &[&here], "inv"),
            BaselineAt::File(Box::new(here.clone()))
        );
        assert_eq!(baseline_at(&h, &[], "inv"), BaselineAt::Missing);
        let BaselineAt::Problem(other) = baseline_at(&h, &[&there], "inv") else {
            panic!("another fleet is a problem");
        };
        assert!(
            other.contains("fleet a") && other.contains("baselines/b/h1.json"),
            "{other}"
        );
        let BaselineAt::Problem(both) = baseline_at(&h, &[&here, &there], "inv") else {
            panic!("two fleets are a problem");
        };
        assert!(both.contains("several fleets"), "{both}");
    }

    #[test]
    fn a_selection_is_described_as_given() {
        let selection = Selection {
            fleet: Some("azure-local".into()),
            tag: Some("rack12".into()),
            ..Selection::default()
        };
        assert_eq!(describe(&selection), "--fleet azure-local --tag rack12");
    }
}
