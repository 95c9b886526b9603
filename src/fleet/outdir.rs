//! The output directory of a run (`--out-dir DIR`), streamed as each host finishes:
//! `snapshots/<host>.json` (its sealed snapshot), `hosts/<host>.json` (its [`HostRecord`]),
//! and at the end `run.json` (the [`RunFile`]). `report merge` rebuilds the fleet result from
//! these files alone. Every file is written atomically (temp + rename).

use std::path::{Path, PathBuf};

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

use super::cluster::ClusterFacts;
use super::{FleetError, HostResult, Shard};
use crate::fsutil::write_atomic;
use crate::inventory::Selection;
use crate::limits::file_names::HOST_JSON;
use crate::snapshot::VerifiedSnapshot;

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
    /// Every host it worked on (each has `hosts/<host>.json`).
    pub hosts: Vec<String>,
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
    /// `--run-id` (a scheduler's job name), when one was given.
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

/// `sha256:` of `hosts` (name, fleet, cluster), in the order given.
pub(super) fn hosts_digest<'h>(
    hosts: impl IntoIterator<Item = (&'h str, &'h str, Option<&'h str>)>,
) -> String {
    use sha2::{Digest as _, Sha256};
    let mut hasher = Sha256::new();
    for (name, fleet, cluster) in hosts {
        hasher.update(format!("{name}\t{fleet}\t{}\n", cluster.unwrap_or("")).as_bytes());
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
    /// Always `driftgate.fleet-host/v1`.
    pub schema: String,
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

/// An output directory being written.
#[derive(Debug, Clone)]
pub(super) struct OutDir {
    root: PathBuf,
}

impl OutDir {
    /// Creates `root` with its folders; removes a `run.json` of an earlier run, so that this
    /// directory reads as finished only once this run is, and the `*.json` an earlier run
    /// wrote in `snapshots/` and `hosts/`, so that a host that fails tonight leaves no
    /// snapshot of last night to be judged or promoted as tonight's. Other files are kept.
    pub fn create(root: &Path) -> Result<OutDir, FleetError> {
        remove(&root.join(RUN_FILE))?;
        for dir in [root.join(SNAPSHOTS_DIR), root.join(HOSTS_DIR)] {
            std::fs::create_dir_all(&dir).map_err(|error| write_error(&dir, error))?;
            let entries = std::fs::read_dir(&dir).map_err(|error| write_error(&dir, error))?;
            for entry in entries {
                let path = entry.map_err(|error| write_error(&dir, error))?.path();
                if path.extension().is_some_and(|e| e == "json") && path.is_file() {
                    remove(&path)?;
                }
            }
        }
        Ok(OutDir {
            root: root.to_path_buf(),
        })
    }

    /// `snapshots/<host>.json`, relative to the directory: how results name it, so a result
    /// directory can be moved (a shard's volume, copied for the merge).
    pub fn snapshot_name(host: &str) -> String {
        format!("{SNAPSHOTS_DIR}/{}", HOST_JSON.of(host))
    }

    /// Writes `snapshot` as `snapshots/<host>.json`.
    pub fn write_snapshot(&self, snapshot: &VerifiedSnapshot) -> Result<(), FleetError> {
        let file = self
            .root
            .join(Self::snapshot_name(snapshot.snapshot().host.as_str()));
        write_atomic(&file, snapshot.to_canonical_json().as_bytes())
            .map_err(|error| write_error(&file, error))
    }

    /// Writes `record` as `hosts/<host>.json`.
    pub fn write_host(&self, record: &HostRecord) -> Result<(), FleetError> {
        let file = host_file(&self.root, &record.result.host);
        write_json(&file, record)
    }

    /// Writes `run.json` without an identity (a test's).
    #[cfg(test)]
    pub fn write_run(&self, run: &RunFile) -> Result<(), FleetError> {
        self.write_identified_run(run, &RunIdentity::default())
    }

    /// Writes `run.json`: `run` and `identity` in one object.
    pub fn write_identified_run(
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
        write_json(&self.root.join(RUN_FILE), &Written { run, identity })
    }
}

/// Removes `file`, if it is there.
fn remove(file: &Path) -> Result<(), FleetError> {
    match std::fs::remove_file(file) {
        Err(error) if error.kind() != std::io::ErrorKind::NotFound => Err(write_error(file, error)),
        _ => Ok(()),
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
    if let Err(error) = crate::snapshot::HostName::new(&result.host) {
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
    if !record.complete && result.verdict != crate::compare::Verdict::Incomplete {
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

fn write_json<T: Serialize>(file: &Path, value: &T) -> Result<(), FleetError> {
    let mut text = serde_json::to_string_pretty(value).expect("result records serialize");
    text.push('\n');
    write_atomic(file, text.as_bytes()).map_err(|error| write_error(file, error))
}

fn bad_schema(file: &Path, found: &str, expected: &str) -> FleetError {
    FleetError::BadResults {
        path: file.display().to_string(),
        reason: format!("schema is {found:?}, expected {expected:?}"),
    }
}

fn write_error(path: &Path, error: std::io::Error) -> FleetError {
    FleetError::Write {
        path: path.display().to_string(),
        error,
    }
}
