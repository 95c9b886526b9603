//! `report merge DIR…`: the output directories of the shards of one run back into the fleet
//! result one unsharded run would have given. Refuses what would make that a lie: a directory
//! of a run that did not finish, the same host in two directories, shards of different
//! counts, a missing shard, shards of different selections, shards mixed with unsharded runs,
//! different policies, strictness or `--stale-after`, runs of different `--run`, and shards
//! that read another store commit or planned other hosts (last night's shard left on a shared
//! volume, an inventory changed between shards) or hold a host of another shard.
//!
//! Unsharded runs of different selections (one per site: `--tag site-a`, `--tag site-b`) merge
//! too when no host is in two of them: the report then names the selections it holds.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::assemble::{Assembly, assemble};
use super::outdir::{
    HOSTS_DIR, PlannedHost, RunFile, RunIdentity, SelectionRecord, hosts_digest, read_host,
    read_run, read_run_identity,
};
use super::rejudge::{Judge, Part, Rejudge};
use crate::error::FleetError;
use driftgate_inventory::{Inventory, Selection};
use driftgate_report::document::{FleetReport, Spool};

/// How far a merge checks the records it merges.
#[derive(Debug, Clone, Copy, Default)]
pub struct MergeOptions<'a> {
    /// Judge every host again from its snapshot (see [`Rejudge`]); `None` (`--no-rejudge`):
    /// take the records as written, which the report then says.
    pub rejudge: Option<Rejudge<'a>>,
    /// The inventory the shards planned their hosts from, when at hand: a host removed from
    /// every shard's run file is still named by it.
    pub inventory: Option<&'a Inventory>,
}

/// Merges the output directories of the shards of one run into the fleet result one
/// unsharded run would have given. Refuses a directory of a run that did not finish, the
/// same host twice, shards of different counts, a missing shard, and shards judged under
/// different policies, strictness, selections or `--stale-after`.
pub fn merge(dirs: &[PathBuf], options: &MergeOptions<'_>) -> Result<FleetReport, FleetError> {
    let Some(first_dir) = dirs.first() else {
        return Err(FleetError::BadResults {
            path: String::new(),
            reason: "no result directory given".to_owned(),
        });
    };
    let runs = dirs
        .iter()
        .map(|d| Ok((d.as_path(), read_run(d)?)))
        .collect::<Result<Vec<_>, FleetError>>()?;
    let first = &runs[0].1;
    for (dir, run) in &runs[1..] {
        same(first_dir, first, dir, run)?;
    }
    let (shards, selections) = parts(&runs)?;
    let identities = dirs
        .iter()
        .map(|d| read_run_identity(d))
        .collect::<Result<Vec<_>, FleetError>>()?;
    for ((dir, run), identity) in runs.iter().zip(&identities).skip(1) {
        one_run(
            first_dir,
            &identities[0],
            dir,
            identity,
            run.shard.is_some(),
        )?;
    }
    let parts: Vec<Part<'_>> = runs
        .iter()
        .zip(&identities)
        .map(|((dir, run), identity)| Part { dir, run, identity })
        .collect();
    let owner = owners(&parts, options.inventory)?;
    let mut judge = options.rejudge.map(Judge::new);
    let spool = Spool::new()?;
    let mut records = Vec::with_capacity(owner.len());
    for (host, (part, planned)) in owner {
        let mut record = read_host(part.dir, host).map_err(|error| part.refuse(host, error))?;
        if let Some(judge) = &mut judge {
            judge.check(part, planned, &record)?;
        }
        spool.keep(&mut record.result.report)?;
        records.push(record);
    }
    // Runs of different selections of one store see the same orphan baselines: count each once.
    let orphans: Vec<String> = runs
        .iter()
        .flat_map(|(_, run)| run.orphans.iter().cloned())
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    let mut report = assemble(Assembly {
        shards,
        started_at: runs
            .iter()
            .map(|(_, r)| r.started_at)
            .min()
            .expect("one run at least"),
        finished_at: runs
            .iter()
            .map(|(_, r)| r.finished_at)
            .max()
            .expect("one run at least"),
        strict: first.strict,
        stale_after: first.stale_after_seconds.map(Duration::from_secs),
        orphans,
        records,
        whole_clusters: true,
    });
    report.selections = selections;
    report.records_trusted = options.rejudge.is_none();
    Ok(report)
}

/// Which part holds each host, by host name: a host two parts hold is refused.
fn owners<'p, 'r>(
    parts: &'p [Part<'r>],
    inventory: Option<&Inventory>,
) -> Result<BTreeMap<&'r str, (&'p Part<'r>, &'r PlannedHost)>, FleetError> {
    // What the run planned, from a run file whose list is what its digest says: a host
    // removed from another shard's list is then named.
    let reference = parts
        .iter()
        .find(|p| {
            p.identity.planned_hosts_digest.as_deref()
                == Some(hosts_digest(&p.run.planned).as_str())
        })
        .map(|p| p.run.planned.as_slice());
    let mut owner: BTreeMap<&str, (&Part<'_>, &PlannedHost)> = BTreeMap::new();
    for part in parts {
        for planned in planned_here(part, reference, inventory)? {
            if let Some((other, _)) = owner.insert(&planned.name, (part, planned)) {
                return Err(FleetError::BadResults {
                    path: part.dir.display().to_string(),
                    reason: format!(
                        "host {} is also in {}: the directories overlap (give each shard once)",
                        planned.name,
                        other.dir.display()
                    ),
                });
            }
        }
    }
    Ok(owner)
}

/// The hosts `part` planned for itself, each checked to be there: the run file lists the hosts
/// the run planned over all shards (as its digest says, as `reference` — another shard's list
/// that its digest confirms — says, and as the inventory, when at hand, selects), those of this
/// shard are exactly the hosts it worked on, and each has its record in the directory and
/// nothing else does.
fn planned_here<'r>(
    part: &Part<'r>,
    reference: Option<&'r [PlannedHost]>,
    inventory: Option<&Inventory>,
) -> Result<Vec<&'r PlannedHost>, FleetError> {
    let (run, label) = (part.run, part.label());
    let refuse = |reason: String| FleetError::BadResults {
        path: part.dir.display().to_string(),
        reason: format!("{label}: {reason}; refusing to merge"),
    };
    if run.planned.is_empty() && !run.hosts.is_empty() {
        return Err(refuse(
            "its run.json does not list the hosts the run planned (written by an older driftgate): run the shards again".to_owned(),
        ));
    }
    let digest = hosts_digest(&run.planned);
    if part.identity.planned_hosts_digest.as_deref() != Some(digest.as_str()) {
        let named: BTreeSet<&PlannedHost> = run.planned.iter().collect();
        let difference = reference.and_then(|all| {
            let all: BTreeSet<&PlannedHost> = all.iter().collect();
            all.difference(&named)
                .next()
                .map(|lost| format!("host {}: the run planned it (as the other shards' run files say), but this run.json does not list it: its results were removed", lost.name))
                .or_else(|| {
                    named.difference(&all).next().map(|added| {
                        format!("host {}: this run.json lists it, but the run did not plan it (as the other shards' run files say): it was added", added.name)
                    })
                })
        });
        return Err(refuse(difference.unwrap_or_else(|| {
            format!(
                "the hosts its run.json says the run planned ({}) are not the ones its digest says ({}): run.json was edited",
                run.planned.len(),
                part.identity.planned_hosts_digest.as_deref().unwrap_or("none")
            )
        })));
    }
    if let Some(inventory) = inventory {
        let selected = inventory.select(&Selection {
            fleet: run.selection.fleet.clone(),
            cluster: run.selection.cluster.clone(),
            tag: run.selection.tag.clone(),
        });
        let planned: BTreeSet<&str> = run.planned.iter().map(|h| h.name.as_str()).collect();
        let selected_names: BTreeSet<&str> = selected.iter().map(|h| h.name.as_str()).collect();
        // Each shard names the hosts that are its own.
        let here = |host: &&&str| run.shard.is_none_or(|s| s.contains(host));
        if let Some(lost) = selected_names.difference(&planned).find(here) {
            return Err(refuse(format!(
                "host {lost} of {} ({}) is missing from the hosts the run planned: its results were removed, or the run planned from another inventory (give it with --inventory FILE)",
                inventory.file.display(),
                selection_name(&run.selection)
            )));
        }
        if let Some(added) = planned.difference(&selected_names).find(here) {
            return Err(refuse(format!(
                "host {added} is not a host of {} ({}): it was added to the results, or the run planned from another inventory (give it with --inventory FILE)",
                inventory.file.display(),
                selection_name(&run.selection)
            )));
        }
    }
    let mine: Vec<&PlannedHost> = run
        .planned
        .iter()
        .filter(|h| run.shard.is_none_or(|s| s.contains(&h.name)))
        .collect();
    let worked: BTreeSet<&str> = run.hosts.iter().map(String::as_str).collect();
    let wanted: BTreeSet<&str> = mine.iter().map(|h| h.name.as_str()).collect();
    if let Some(stray) = worked.difference(&wanted).next() {
        let why = if run.planned.iter().any(|h| h.name == *stray) {
            format!(
                "it is not in shard {}: this directory was not written by `check --all --shard {}`",
                run.shard.map(|s| s.to_string()).unwrap_or_default(),
                run.shard.map(|s| s.to_string()).unwrap_or_default()
            )
        } else {
            "it is not a host the run planned: it was added".to_owned()
        };
        return Err(part.refuse(stray, why));
    }
    if let Some(lost) = wanted.difference(&worked).next() {
        return Err(part.refuse(
            lost,
            "the run planned it for this directory, but its run.json lists no result of it: its results were removed",
        ));
    }
    for name in record_names(part.dir)? {
        if !wanted.contains(name.as_str()) {
            return Err(part.refuse(
                &name,
                "its record is in the directory, but the run did not plan it here: it was added",
            ));
        }
    }
    Ok(mine)
}

/// The hosts whose records (`hosts/<host>.json`) are in `dir`.
fn record_names(dir: &Path) -> Result<Vec<String>, FleetError> {
    let folder = dir.join(HOSTS_DIR);
    let entries = std::fs::read_dir(&folder).map_err(|error| FleetError::BadResults {
        path: folder.display().to_string(),
        reason: format!("cannot read: {error}"),
    })?;
    let mut names = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|error| FleetError::BadResults {
            path: folder.display().to_string(),
            reason: format!("cannot read: {error}"),
        })?;
        if let Some(host) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.strip_suffix(".json"))
        {
            names.push(host.to_owned());
        }
    }
    Ok(names)
}

/// Refuses `run` (of `dir`) unless it was judged as `first` was.
fn same(first_dir: &Path, first: &RunFile, dir: &Path, run: &RunFile) -> Result<(), FleetError> {
    let differs = |what: &str, here: String, there: String| FleetError::BadResults {
        path: dir.display().to_string(),
        reason: format!(
            "{what} {here}, but {} {there}: run every shard with the same settings",
            first_dir.display()
        ),
    };
    if run.policy_digest != first.policy_digest {
        return Err(differs(
            "was judged under policy",
            run.policy_digest.clone(),
            first.policy_digest.clone(),
        ));
    }
    if run.strict != first.strict {
        let word = |strict: bool| {
            if strict {
                "with --strict"
            } else {
                "without --strict"
            }
        };
        return Err(differs(
            "was judged",
            word(run.strict).to_owned(),
            word(first.strict).to_owned(),
        ));
    }
    if run.stale_after_seconds != first.stale_after_seconds {
        return Err(differs(
            "has --stale-after (seconds)",
            format!("{:?}", run.stale_after_seconds),
            format!("{:?}", first.stale_after_seconds),
        ));
    }
    Ok(())
}

/// Refuses `identity` (of `dir`) unless it is of the same run as `first`'s: the same
/// `--run` when either has one, and for shards the same store commit and planned hosts (a
/// shard of last night, or of another inventory, would lose or double hosts). Unsharded runs
/// of other selections (one collector per site) may have read their stores at other commits.
fn one_run(
    first_dir: &Path,
    first: &RunIdentity,
    dir: &Path,
    identity: &RunIdentity,
    sharded: bool,
) -> Result<(), FleetError> {
    let differs = |what: &str, here: &Option<String>, there: &Option<String>| {
        let show = |v: &Option<String>| v.clone().unwrap_or_else(|| "none".to_owned());
        FleetError::BadResults {
            path: dir.display().to_string(),
            reason: format!(
                "{what} {}, but {} {}: these directories are not of one run",
                show(here),
                first_dir.display(),
                show(there)
            ),
        }
    };
    if identity.run_id != first.run_id {
        return Err(differs("has run id", &identity.run_id, &first.run_id));
    }
    if sharded && identity.store_head != first.store_head {
        return Err(differs(
            "read the baselines at commit",
            &identity.store_head,
            &first.store_head,
        ));
    }
    if sharded && identity.planned_hosts_digest != first.planned_hosts_digest {
        return Err(differs(
            "planned the hosts (another inventory or selection)",
            &identity.planned_hosts_digest,
            &first.planned_hosts_digest,
        ));
    }
    Ok(())
}

/// The parts `runs` hold: the shards (`K/N`, by K) when each of 1/N … N/N of one selection is
/// there once, or the selections (see [`selection_name`]) of unsharded runs, several only when
/// each selected differently (whether their hosts overlap is checked by the caller).
fn parts(runs: &[(&Path, RunFile)]) -> Result<(Vec<String>, Vec<String>), FleetError> {
    let bad = |dir: &Path, reason: String| FleetError::BadResults {
        path: dir.display().to_string(),
        reason,
    };
    let unsharded = runs.iter().filter(|(_, r)| r.shard.is_none()).count();
    if unsharded == 1 && runs.len() == 1 {
        return Ok((Vec::new(), Vec::new()));
    }
    if unsharded == runs.len() {
        let mut seen: BTreeMap<String, &Path> = BTreeMap::new();
        for (dir, run) in runs {
            let name = selection_name(&run.selection);
            if let Some(other) = seen.insert(name.clone(), dir) {
                return Err(bad(
                    dir,
                    format!(
                        "selected {name}, and so did {}: the runs overlap (give each once)",
                        other.display()
                    ),
                ));
            }
        }
        return Ok((Vec::new(), seen.into_keys().collect()));
    }
    if unsharded > 0 {
        let (dir, _) = runs
            .iter()
            .find(|(_, r)| r.shard.is_none())
            .expect("counted above");
        return Err(bad(
            dir,
            "is an unsharded run, the others are shards: merge the shards of one run, or \
             unsharded runs of disjoint selections"
                .to_owned(),
        ));
    }
    let first = &runs[0];
    if let Some((dir, run)) = runs.iter().find(|(_, r)| r.selection != first.1.selection) {
        return Err(bad(
            dir,
            format!(
                "is a shard of selection {}, but {} of {}: run every shard with the same settings",
                selection_name(&run.selection),
                first.0.display(),
                selection_name(&first.1.selection)
            ),
        ));
    }
    let shard = |run: &RunFile| run.shard.expect("checked above: every run is a shard");
    let count = shard(&runs[0].1).count;
    let mut seen: BTreeMap<u32, &Path> = BTreeMap::new();
    for (dir, run) in runs {
        let this = shard(run);
        if this.count != count {
            return Err(bad(
                dir,
                format!(
                    "is shard {this}, but {} is a shard of {count}: merge the shards of one run",
                    runs[0].0.display()
                ),
            ));
        }
        if let Some(other) = seen.insert(this.index, dir) {
            return Err(bad(
                dir,
                format!("is shard {this}, and so is {}", other.display()),
            ));
        }
    }
    let missing: Vec<String> = (1..=count)
        .filter(|k| !seen.contains_key(k))
        .map(|k| format!("{k}/{count}"))
        .collect();
    if !missing.is_empty() {
        return Err(bad(
            runs[0].0,
            format!(
                "shard(s) {} missing: merge every shard of the run",
                missing.join(", ")
            ),
        ));
    }
    Ok((
        seen.keys().map(|k| format!("{k}/{count}")).collect(),
        Vec::new(),
    ))
}

/// A selection as the command line gave it (`--fleet lab --tag site-a`), `--all` for the whole
/// inventory.
fn selection_name(selection: &SelectionRecord) -> String {
    let flags: Vec<String> = [
        ("fleet", &selection.fleet),
        ("cluster", &selection.cluster),
        ("tag", &selection.tag),
    ]
    .into_iter()
    .filter_map(|(flag, value)| value.as_ref().map(|v| format!("--{flag} {v}")))
    .collect();
    if flags.is_empty() {
        "--all".to_owned()
    } else {
        flags.join(" ")
    }
}

#[cfg(test)]
mod tests {
    use jiff::Timestamp;

    use super::*;
    use crate::Shard;
    use crate::outdir::{OutDir, RUN_SCHEMA_ID};

    fn run(shard: Option<(u32, u32)>, hosts: &[&str]) -> RunFile {
        RunFile {
            schema: RUN_SCHEMA_ID.into(),
            tool: "test".into(),
            started_at: Timestamp::UNIX_EPOCH,
            finished_at: Timestamp::UNIX_EPOCH,
            shard: shard.map(|(index, count)| Shard { index, count }),
            strict: false,
            selection: SelectionRecord::default(),
            hosts: hosts.iter().map(|h| (*h).to_owned()).collect(),
            planned: hosts
                .iter()
                .map(|h| PlannedHost {
                    name: (*h).to_owned(),
                    fleet: "f".to_owned(),
                    cluster: None,
                })
                .collect(),
            orphans: Vec::new(),
            policy_digest: "sha256:1".into(),
            stale_after_seconds: None,
        }
    }

    fn dirs(runs: &[RunFile]) -> (tempfile::TempDir, Vec<PathBuf>) {
        let root = tempfile::tempdir().unwrap();
        let dirs = runs
            .iter()
            .enumerate()
            .map(|(i, r)| {
                let dir = root.path().join(format!("shard{i}"));
                let identity = RunIdentity {
                    planned_hosts_digest: Some(hosts_digest(&r.planned)),
                    ..RunIdentity::default()
                };
                OutDir::create(&dir)
                    .unwrap()
                    .0
                    .write_identified_run(r, &identity)
                    .unwrap();
                dir
            })
            .collect();
        (root, dirs)
    }

    fn refused(runs: &[RunFile]) -> String {
        let (_root, dirs) = dirs(runs);
        merge(&dirs, &MergeOptions::default())
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn shards_that_overlap_miss_one_or_differ_are_refused_naming_the_directory() {
        let missing = refused(&[run(Some((1, 3)), &[]), run(Some((3, 3)), &[])]);
        assert!(missing.contains("2/3 missing"), "{missing}");
        let twice = refused(&[run(Some((1, 2)), &[]), run(Some((1, 2)), &[])]);
        assert!(
            twice.contains("shard1") && twice.contains("and so is"),
            "{twice}"
        );
        let counts = refused(&[run(Some((1, 2)), &[]), run(Some((2, 3)), &[])]);
        assert!(counts.contains("shard of 2"), "{counts}");
        let unsharded = refused(&[run(None, &[]), run(Some((1, 1)), &[])]);
        assert!(
            unsharded.contains("unsharded run, the others"),
            "{unsharded}"
        );
        let mut site = run(Some((2, 2)), &[]);
        site.selection.tag = Some("site-b".into());
        let selection = refused(&[run(Some((1, 2)), &[]), site]);
        assert!(
            selection.contains("shard of selection --tag site-b"),
            "{selection}"
        );
        let mut strict = run(Some((2, 2)), &[]);
        strict.strict = true;
        let strictness = refused(&[run(Some((1, 2)), &[]), strict]);
        assert!(strictness.contains("with --strict"), "{strictness}");
        let mut other = run(Some((2, 2)), &[]);
        other.policy_digest = "sha256:2".into();
        let policy = refused(&[run(Some((1, 2)), &[]), other]);
        assert!(policy.contains("policy sha256:2"), "{policy}");
        // A host hashes to one shard: in another one's directory it is a stray.
        let overlap = refused(&[run(Some((1, 2)), &["h1"]), run(Some((2, 2)), &["h1"])]);
        assert!(overlap.contains("host h1: it is not in shard"), "{overlap}");
    }

    fn identified(runs: &[(RunFile, RunIdentity)]) -> String {
        let root = tempfile::tempdir().unwrap();
        let dirs: Vec<PathBuf> = runs
            .iter()
            .enumerate()
            .map(|(i, (r, identity))| {
                let dir = root.path().join(format!("shard{i}"));
                OutDir::create(&dir)
                    .unwrap()
                    .0
                    .write_identified_run(r, identity)
                    .unwrap();
                dir
            })
            .collect();
        merge(&dirs, &MergeOptions::default())
            .unwrap_err()
            .to_string()
    }

    fn identity(run_id: Option<&str>, head: &str, planned: &str) -> RunIdentity {
        RunIdentity {
            run_id: run_id.map(str::to_owned),
            store_head: Some(head.to_owned()),
            planned_hosts_digest: Some(planned.to_owned()),
        }
    }

    #[test]
    fn shards_of_other_runs_commits_or_inventories_are_refused() {
        let (one, two) = (run(Some((1, 2)), &[]), run(Some((2, 2)), &[]));
        let tonight = identity(Some("nightly-2"), "c1", "sha256:p");
        let last_night = identity(Some("nightly-1"), "c1", "sha256:p");
        let error = identified(&[(one.clone(), tonight.clone()), (two.clone(), last_night)]);
        assert!(
            error.contains("run id nightly-1") && error.contains("nightly-2"),
            "{error}"
        );
        let moved = identity(Some("nightly-2"), "c2", "sha256:p");
        let error = identified(&[(one.clone(), tonight.clone()), (two.clone(), moved)]);
        assert!(error.contains("at commit c2"), "{error}");
        let other_inventory = identity(Some("nightly-2"), "c1", "sha256:q");
        let error = identified(&[(one, tonight), (two, other_inventory)]);
        assert!(error.contains("another inventory"), "{error}");
    }

    #[test]
    fn a_host_outside_its_directorys_shard_is_refused() {
        // "a" hashes to shard 1 of 2 (see shard.rs): in shard 2's directory it is a stray.
        let mut second = run(Some((2, 2)), &["a"]);
        let error = refused(&[run(Some((1, 2)), &["a"]), second.clone()]);
        assert!(error.contains("host a: it is not in shard 2/2"), "{error}");
        // Dropped from its own shard's results, it is still named: the run planned it.
        let mut first = run(Some((1, 2)), &["a"]);
        first.hosts.clear();
        second.hosts.clear();
        let error = refused(&[first, second]);
        assert!(error.contains("shard 1/2"), "{error}");
        assert!(
            error.contains("host a: the run planned it for this directory"),
            "{error}"
        );
    }

    fn site(tag: Option<&str>, hosts: &[&str]) -> RunFile {
        let mut run = run(None, hosts);
        run.selection.tag = tag.map(str::to_owned);
        run.orphans = vec!["gone".into()];
        run
    }

    #[test]
    fn unsharded_runs_of_disjoint_selections_merge_naming_them() {
        let (_root, dirs) = dirs(&[site(Some("site-b"), &[]), site(Some("site-a"), &[])]);
        let report = merge(&dirs, &MergeOptions::default()).unwrap();
        assert_eq!(report.selections, ["--tag site-a", "--tag site-b"]);
        assert!(report.shards.is_empty());
        let orphans = report
            .findings
            .iter()
            .filter(|f| f.rule == "fleet/orphan-baseline")
            .count();
        assert_eq!(orphans, 1, "{:?}", report.findings);
    }

    #[test]
    fn unsharded_runs_that_overlap_are_refused() {
        let same = refused(&[site(Some("a"), &[]), site(Some("a"), &[])]);
        assert!(same.contains("selected --tag a, and so did"), "{same}");
        let everything = refused(&[site(None, &[]), site(None, &[])]);
        assert!(everything.contains("selected --all"), "{everything}");
        let hosts = refused(&[site(Some("a"), &["h1"]), site(None, &["h1"])]);
        assert!(hosts.contains("host h1 is also in"), "{hosts}");
    }

    #[test]
    fn a_directory_without_run_json_is_not_a_finished_run() {
        let dir = tempfile::tempdir().unwrap();
        let error = merge(&[dir.path().to_path_buf()], &MergeOptions::default())
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("run.json") && error.contains("finished"),
            "{error}"
        );
    }

    #[test]
    fn every_shard_once_merges_in_shard_order() {
        let (_root, dirs) = dirs(&[run(Some((2, 2)), &[]), run(Some((1, 2)), &[])]);
        let report = merge(&dirs, &MergeOptions::default()).unwrap();
        assert_eq!(report.shards, ["1/2", "2/2"]);
        assert_eq!(report.counts.total, 0);
    }
}
