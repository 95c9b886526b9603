//! The output directory of a run (`--out-dir DIR`), streamed as each host finishes:
//! `snapshots/<host>.json` (its sealed snapshot), `hosts/<host>.json` (its [`HostRecord`]),
//! and at the end `run.json` (the [`RunFile`]). `report merge` rebuilds the fleet result from
//! these files alone. Every file is written atomically (temp + rename).

use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

use super::cluster::ClusterFacts;
use crate::error::FleetError;
use crate::shard::Shard;
use driftgate_fs::{Folder, NotOurs, TEMP_PREFIX, TEMP_SUFFIX, WriteOptions};
use driftgate_inventory::Selection;
use driftgate_report::document::HostResult;
use driftgate_snapshot::file_names::HOST_JSON;
use driftgate_snapshot::{SCHEMA_ID as SNAPSHOT_SCHEMA_ID, VerifiedSnapshot};

/// `schema` of a [`RunFile`].
pub const RUN_SCHEMA_ID: &str = "driftgate.fleet-run/v1";
/// `schema` of a [`HostRecord`].
pub const HOST_SCHEMA_ID: &str = "driftgate.fleet-host/v1";
/// The run file's name in the output directory.
pub const RUN_FILE: &str = "run.json";
/// Folder of the snapshots.
pub const SNAPSHOTS_DIR: &str = "snapshots";
/// Folder of the host records.
pub const HOSTS_DIR: &str = "hosts";

/// What a run (one shard, or all hosts) was: written last, so a directory without it is the
/// result of a run that did not finish.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunFile {
    /// Always `driftgate.fleet-run/v1`.
    pub schema: String,
    /// Tool and version.
    pub tool: String,
    /// When the run started.
    pub started_at: Timestamp,
    /// When it finished.
    pub finished_at: Timestamp,
    /// Its shard, if it was one.
    pub shard: Option<Shard>,
    /// Whether warnings blocked.
    pub strict: bool,
    /// `--fleet`, `--cluster`, `--tag`.
    pub selection: SelectionRecord,
    /// Every host it worked on: the planned hosts of its shard (each has `hosts/<host>.json`).
    pub hosts: Vec<String>,
    /// Every host the run planned over all its shards (the inventory's selection before
    /// `--shard`), sorted by name; what `planned_hosts_digest` is the digest of. `report merge`
    /// finds each in the directory of its shard, so a host removed from a shard's results is
    /// named. Empty in a run file of an older driftgate.
    #[serde(default)]
    pub planned: Vec<PlannedHost>,
    /// Baselines of no inventory host in this shard.
    pub orphans: Vec<String>,
    /// `sha256:` of the effective policy.
    pub policy_digest: String,
    /// `--stale-after`, in seconds.
    pub stale_after_seconds: Option<u64>,
}

/// Which run a `run.json` is of, written beside the [`RunFile`]'s fields: `report merge`
/// refuses shards whose identities differ (last night's shard left on a volume, an inventory
/// or a baseline commit that changed between shards). Every field is absent in a run file of
/// an older driftgate.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunIdentity {
    /// `--run` (a scheduler's job name), when one was given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_id: Option<String>,
    /// The store's HEAD commit the baselines were read at; `None`: the store has no commit.
    #[serde(default)]
    pub store_head: Option<String>,
    /// `sha256:` of the hosts the selection planned over all shards (name, fleet, cluster,
    /// before the shard is taken): equal in every shard of one run of one inventory.
    #[serde(default)]
    pub planned_hosts_digest: Option<String>,
}

/// A host a run planned, as its run file records it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct PlannedHost {
    /// The host.
    pub name: String,
    /// Its fleet.
    pub fleet: String,
    /// Its cluster, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cluster: Option<String>,
}

/// `sha256:` of `hosts` (name, fleet, cluster), in the order given (a run's are sorted by
/// name).
pub(super) fn hosts_digest(hosts: &[PlannedHost]) -> String {
    use sha2::{Digest as _, Sha256};
    let mut hasher = Sha256::new();
    for host in hosts {
        hasher.update(
            format!(
                "{}\t{}\t{}\n",
                host.name,
                host.fleet,
                host.cluster.as_deref().unwrap_or("")
            )
            .as_bytes(),
        );
    }
    format!("sha256:{}", hex::encode(hasher.finalize()))
}

/// The selection of a run, as recorded.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SelectionRecord {
    /// `--fleet`.
    pub fleet: Option<String>,
    /// `--cluster`.
    pub cluster: Option<String>,
    /// `--tag`.
    pub tag: Option<String>,
}

impl From<&Selection> for SelectionRecord {
    fn from(s: &Selection) -> Self {
        SelectionRecord {
            fleet: s.fleet.clone(),
            cluster: s.cluster.clone(),
            tag: s.tag.clone(),
        }
    }
}

/// One host's result as written to `hosts/<host>.json`: its [`HostResult`] (the verdict of
/// its own judgement, before fleet findings raise it) and what the fleet findings need.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HostRecord {
    /// Always `driftgate.fleet-host/v1` (borrowed: a run holds a record for each host).
    pub schema: Cow<'static, str>,
    /// The host's own result.
    pub result: HostResult,
    /// Whether it was read completely (only such hosts take part in the cluster check).
    pub complete: bool,
    /// What the cluster check compares.
    pub cluster_facts: ClusterFacts,
    /// When its baseline was captured; `None`: it has none, or it could not be read.
    pub baseline_captured_at: Option<Timestamp>,
    /// It has a baseline that could not be read (misplaced, corrupt): no
    /// `fleet/missing-baseline` (promoting a snapshot would make a second one).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub baseline_unread: bool,
    /// Its last complete capture: this run's, or the one the store's state file remembers.
    pub last_good: Option<Timestamp>,
    /// This run's complete capture, to remember in the state file.
    pub captured_good: Option<Timestamp>,
}

/// An output directory being written: its folders held open, so that every file of the run
/// lands in the folders checked when it started, never through a link planted since.
#[derive(Debug, Clone)]
pub(super) struct OutDir {
    root: Arc<Folder>,
    snapshots: Arc<Folder>,
    hosts: Arc<Folder>,
}

impl OutDir {
    /// Creates `root` with its folders (a symbolic link where `snapshots/` or `hosts/`
    /// belongs is refused), and removes what an earlier run wrote: its `run.json`, so that
    /// this directory reads as finished only once this run is, and its snapshots and host
    /// records, so that a host that fails tonight leaves no snapshot of last night to be
    /// judged or promoted as tonight's. A file is removed only when it is driftgate's (a
    /// regular file of the schema it keeps there); everything else stays.
    ///
    /// Returns it with how long each host of the earlier run's records took to capture (read
    /// as they are removed): what orders tonight's hosts.
    pub(crate) fn create(root: &Path) -> Result<(OutDir, LastRun), FleetError> {
        let mut last_run = LastRun::default();
        let root_folder = Folder::create_at(root).map_err(|error| write_error(root, error))?;
        let child = |name: &str| {
            root_folder
                .create_child(name)
                .map_err(|error| write_error(&root.join(name), error))
        };
        let (snapshots, hosts) = (child(SNAPSHOTS_DIR)?, child(HOSTS_DIR)?);
        if remove_ours(&root_folder, RUN_FILE, RUN_SCHEMA_ID)?.is_none() {
            // Someone else's file where this run's will go: not ours to replace.
            if root_folder
                .read(RUN_FILE)
                .map_err(|error| write_error(&root.join(RUN_FILE), error))?
                .is_some()
            {
                return Err(FleetError::BadResults {
                    path: root.join(RUN_FILE).display().to_string(),
                    reason: "not a run file of driftgate's: refusing to replace it".to_owned(),
                });
            }
        }
        for (folder, schema) in [(&snapshots, SNAPSHOT_SCHEMA_ID), (&hosts, HOST_SCHEMA_ID)] {
            let names = folder
                .names()
                .map_err(|error| write_error(folder.path(), error))?;
            for name in names.iter().filter_map(|name| name.to_str()) {
                if is_temporary(name) {
                    // Left by a run that was killed while writing.
                    folder
                        .remove_file(name)
                        .map_err(|error| write_error(&folder.path().join(name), error))?;
                } else if name.ends_with(".json")
                    && let Some(removed) = remove_ours(folder, name, schema)?
                    && schema == HOST_SCHEMA_ID
                {
                    last_run.add(&removed);
                }
            }
        }
        let out = OutDir {
            root: Arc::new(root_folder),
            snapshots: Arc::new(snapshots),
            hosts: Arc::new(hosts),
        };
        Ok((out, last_run))
    }

    /// `snapshots/<host>.json`, relative to the directory: how results name it, so a result
    /// directory can be moved (a shard's volume, copied for the merge).
    pub(crate) fn snapshot_name(host: &str) -> String {
        format!("{SNAPSHOTS_DIR}/{}", HOST_JSON.of(host))
    }

    /// Writes `snapshot` as `snapshots/<host>.json`.
    pub(crate) fn write_snapshot(&self, snapshot: &VerifiedSnapshot) -> Result<(), FleetError> {
        let name = format!("{}.json", snapshot.snapshot().host);
        write(
            &self.snapshots,
            &name,
            snapshot.to_canonical_json().as_bytes(),
        )
    }

    /// Writes `record` as `hosts/<host>.json`.
    pub(crate) fn write_host(&self, record: &HostRecord) -> Result<(), FleetError> {
        write_json(&self.hosts, &format!("{}.json", record.result.host), record)
    }

    /// Writes `run.json`: `run` and `identity` in one object.
    pub(crate) fn write_identified_run(
        &self,
        run: &RunFile,
        identity: &RunIdentity,
    ) -> Result<(), FleetError> {
        #[derive(Serialize)]
        struct Written<'a> {
            #[serde(flatten)]
            run: &'a RunFile,
            #[serde(flatten)]
            identity: &'a RunIdentity,
        }
        write_json(&self.root, RUN_FILE, &Written { run, identity })
    }
}

/// Whether `name` is a temporary file of an atomic write.
fn is_temporary(name: &str) -> bool {
    name.starts_with(TEMP_PREFIX) && name.ends_with(TEMP_SUFFIX)
}

/// Removes the file `name` of `folder` when driftgate wrote it: a regular file (not a link)
/// whose JSON has `schema` (what driftgate writes there). Its bytes, if it did.
fn remove_ours(folder: &Folder, name: &str, schema: &str) -> Result<Option<Vec<u8>>, FleetError> {
    #[derive(Deserialize)]
    struct Schema {
        schema: String,
    }
    let path = folder.path().join(name);
    if !folder
        .is_file(name)
        .map_err(|error| write_error(&path, error))?
    {
        return Ok(None);
    }
    let ours = folder
        .read(name)
        .map_err(|error| write_error(&path, error))?
        .filter(|bytes| serde_json::from_slice::<Schema>(bytes).is_ok_and(|s| s.schema == schema));
    if ours.is_some() {
        folder
            .remove_file(name)
            .map_err(|error| write_error(&path, error))?;
    }
    Ok(ours)
}

/// How long each host of an earlier run took to capture, by host name, from its records.
#[derive(Debug, Default)]
pub(super) struct LastRun(std::collections::HashMap<String, u64>);

impl LastRun {
    /// Adds the host of record `bytes` (a record that does not say is skipped: the order of
    /// hosts is all that depends on it).
    fn add(&mut self, bytes: &[u8]) {
        #[derive(Deserialize)]
        struct Record {
            result: Took,
        }
        #[derive(Deserialize)]
        struct Took {
            host: String,
            capture_ms: u64,
        }
        if let Ok(Record { result }) = serde_json::from_slice(bytes) {
            self.0.insert(result.host, result.capture_ms);
        }
    }

    /// How long `host` took to capture in the earlier run, if it was there.
    pub(super) fn took(&self, host: &str) -> Option<std::time::Duration> {
        self.0
            .get(host)
            .copied()
            .map(std::time::Duration::from_millis)
    }
}

/// `dir/hosts/<host>.json`.
pub(super) fn host_file(dir: &Path, host: &str) -> PathBuf {
    dir.join(HOSTS_DIR).join(HOST_JSON.of(host))
}

/// Reads `dir/run.json`.
pub(super) fn read_run(dir: &Path) -> Result<RunFile, FleetError> {
    let file = dir.join(RUN_FILE);
    if !file.exists() {
        return Err(FleetError::BadResults {
            path: file.display().to_string(),
            reason: "missing: not the output directory of a finished `check --all` (a run that was stopped writes none)".to_owned(),
        });
    }
    let run: RunFile = read_json(&file)?;
    if run.schema != RUN_SCHEMA_ID {
        return Err(bad_schema(&file, &run.schema, RUN_SCHEMA_ID));
    }
    Ok(run)
}

/// Reads the [`RunIdentity`] of `dir/run.json` (what merge compares across shards).
pub fn read_run_identity(dir: &Path) -> Result<RunIdentity, FleetError> {
    read_run(dir)?;
    read_json(&dir.join(RUN_FILE))
}

/// Reads `dir/hosts/<host>.json`, which must be `host`'s.
pub(super) fn read_host(dir: &Path, host: &str) -> Result<HostRecord, FleetError> {
    let file = host_file(dir, host);
    let record: HostRecord = read_json(&file)?;
    if record.schema != HOST_SCHEMA_ID {
        return Err(bad_schema(&file, &record.schema, HOST_SCHEMA_ID));
    }
    if record.result.host != host {
        return Err(FleetError::BadResults {
            path: file.display().to_string(),
            reason: format!(
                "holds the result of host {}, not {host}",
                record.result.host
            ),
        });
    }
    if let Some(reason) = untrusted(&record) {
        return Err(FleetError::BadResults {
            path: file.display().to_string(),
            reason: format!("{reason}: not a record driftgate wrote (edited?)"),
        });
    }
    Ok(record)
}

/// What of `record` contradicts itself: a host name that is none, a verdict or counts other
/// than its own report's, a capture not read completely that is not INCOMPLETE.
fn untrusted(record: &HostRecord) -> Option<String> {
    let result = &record.result;
    if let Err(error) = driftgate_snapshot::HostName::new(&result.host) {
        return Some(format!("host {:?}: {error}", result.host));
    }
    let report = match result.report.get() {
        Ok(report) => report,
        Err(error) => return Some(format!("its report cannot be read: {error}")),
    };
    if result.verdict != report.verdict {
        return Some(format!(
            "verdict {} but its report's is {}",
            result.verdict.as_upper(),
            report.verdict.as_upper()
        ));
    }
    if result.counts != report.counts {
        return Some("its counts are not its report's".to_owned());
    }
    if !record.complete && result.verdict != driftgate_compare::Verdict::Incomplete {
        return Some(format!(
            "not read completely, but {}",
            result.verdict.as_upper()
        ));
    }
    None
}

fn read_json<T: serde::de::DeserializeOwned>(file: &Path) -> Result<T, FleetError> {
    let text = std::fs::read_to_string(file).map_err(|e| FleetError::BadResults {
        path: file.display().to_string(),
        reason: format!("cannot read: {e}"),
    })?;
    serde_json::from_str(&text).map_err(|e| FleetError::BadResults {
        path: file.display().to_string(),
        reason: format!("not a driftgate result file: {e}"),
    })
}

fn write_json<T: Serialize>(folder: &Folder, name: &str, value: &T) -> Result<(), FleetError> {
    let mut text = serde_json::to_string_pretty(value).expect("result records serialize");
    text.push('\n');
    write(folder, name, text.as_bytes())
}

fn write(folder: &Folder, name: &str, bytes: &[u8]) -> Result<(), FleetError> {
    folder
        .write_atomic(name, bytes, WriteOptions::PRIVATE)
        .map_err(|error| write_error(&folder.path().join(name), error))
}

fn bad_schema(file: &Path, found: &str, expected: &str) -> FleetError {
    FleetError::BadResults {
        path: file.display().to_string(),
        reason: format!("schema is {found:?}, expected {expected:?}"),
    }
}

/// The error of a file or folder `path` of a run that could not be written.
pub(super) fn write_error(path: &Path, error: std::io::Error) -> FleetError {
    match NotOurs::from_io(error) {
        Ok(refused) => FleetError::NotOurs(refused),
        Err(error) => FleetError::Write {
            path: path.display().to_string(),
            error,
        },
    }
}
