//! A run's directory and manifest: where a gate keeps what it captured between `pre` and
//! every `post`. Every file is written atomically, so a crash leaves whole files only.
//!
//! ```text
//! <store>/.driftgate/runs/<ID>/     (or --run-dir DIR)
//!   manifest.json                   driftgate.run/v1: id, policy digest, hosts (each with its
//!                                   pre's allowances, strictness and baseline commit)
//!   pre/<host>.json                 the pre snapshots (canonical JSON, sealed)
//!   pre/<host>.result.json          the host's outcome, written as soon as it is judged
//!   pre/report.json                 the pre step's gate report
//!   post-1/<host>.json, <host>.result.json, report.json
//!                                   the first post; post-2/ after the reboot, …
//!   fix/apply-<N>.json              what each `fix apply` sent and what came back, written
//!                                   before each request and after its answer
//!   fix/apply.lock                  flock(2) of the one `fix apply` at work
//!   fix/apply.holder.json           who holds it (pid, machine, since, ticket, record)
//! ```

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::GateError;
pub(crate) use crate::run_id::RunId;
use driftgate_compare::{Allowance, Policy};
use driftgate_fs::{Folder, NotOurs, PRIVATE_DIR, WriteOptions, private_folder};
use driftgate_snapshot::file_names::{HOST_JSON, HOST_RESULT_JSON, RUN_FOLDER};
use driftgate_snapshot::{HostName, VerifiedSnapshot};
use driftgate_store::Store;

/// The schema id of run manifests.
pub const MANIFEST_SCHEMA_ID: &str = "driftgate.run/v1";
/// Folder of the store's run directories, below its work tree; ignored by git.
pub const RUNS_DIR: &str = ".driftgate/runs";
/// The folder of run directories in the store's `.driftgate/`.
const RUNS: &str = "runs";
const MANIFEST: &str = "manifest.json";
const PRE: &str = "pre";
const POST_PREFIX: &str = "post-";
const REPORT: &str = "report.json";
/// The folder of `fix apply` records.
const FIX: &str = "fix";

/// `manifest.json`: what a run is about. Written by `pre`, read by every `post`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    /// Always `driftgate.run/v1`.
    pub schema: String,
    /// The run id.
    pub id: String,
    /// When its first `pre` started.
    pub created_at: jiff::Timestamp,
    /// Tool and version of the last `pre`.
    pub tool: String,
    /// `sha256:` of the effective policy's rules and invariants (`policy_digest`) the last
    /// `pre` judged under.
    pub policy_digest: String,
    /// The hosts of the run.
    pub hosts: Vec<RunHost>,
    /// The baseline store the run judged against.
    pub store: String,
}

/// A host of a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunHost {
    /// The host.
    pub name: HostName,
    /// Its fleet.
    pub fleet: String,
    /// Its cluster, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cluster: Option<String>,
    /// Whether its pre judged with `--strict`: its posts do too.
    pub strict: bool,
    /// `sha256:` of the policy rules its pre was judged under (`policy_digest`): its posts
    /// are promoted only under the same.
    pub policy_digest: String,
    /// Allowances given at its pre (in force then). At post, one with a value (a declared
    /// change) applies to any finding of the host, one without (a waiver) only to drift
    /// that was already there at pre.
    pub allowances: Vec<Allowance>,
    /// The store commit its pre read the baseline at: its posts judge against the same.
    pub baseline_commit: String,
    /// The `sha256:` digest of that baseline.
    pub baseline_digest: String,
}

/// `sha256:` of a policy's rules and invariants: two steps judged under the same rules have
/// the same, wherever the rules were read from. [`Policy::to_toml`] puts its comments (the
/// files the rules came from, what an invariant checks) on lines of their own, so those are
/// left out.
pub(crate) fn policy_digest(policy: &Policy) -> String {
    policy.digest()
}

/// One run's directory.
#[derive(Debug, Clone)]
pub struct RunDir {
    path: PathBuf,
    at: RunAt,
}

/// Where a run's directory is, and so which of its folders are driftgate's own.
#[derive(Debug, Clone)]
enum RunAt {
    /// `--run-dir DIR`, as the operator gave it.
    Given,
    /// `<store>/.driftgate/runs/<id>/` of the store's work tree `store`: every folder below the
    /// work tree is driftgate's.
    InStore { store: PathBuf, id: String },
}

impl RunDir {
    /// The directory of run `id`: `dir` when given, else `<store>/.driftgate/runs/<id>/`
    /// (a bare store has no work tree to keep it in, so it needs `dir`).
    pub fn locate(store: &Store, dir: Option<&Path>, id: &RunId) -> Result<Self, GateError> {
        let (path, at) = match dir {
            Some(dir) => (dir.to_owned(), RunAt::Given),
            None if store.is_bare() => {
                return Err(GateError::BareStore {
                    store: store.location().display().to_string(),
                });
            }
            None => {
                let folder = RUN_FOLDER.of(id.as_str());
                (
                    store.location().join(RUNS_DIR).join(&folder),
                    RunAt::InStore {
                        store: store.location().to_owned(),
                        id: folder,
                    },
                )
            }
        };
        Ok(RunDir { path, at })
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The run's folder, created with `create` (under the store's `.driftgate/`, whose
    /// `.gitignore` of `*` keeps runs out of `git status`); `None` when it does not exist. No
    /// folder below the store's work tree is reached through a symbolic link.
    fn folder(&self, create: bool) -> Result<Option<Folder>, GateError> {
        Ok(self.folder_telling(create)?.map(|(folder, _)| folder))
    }

    /// [`RunDir::folder`], and whether the store's `.driftgate/.gitignore` was written now.
    fn folder_telling(&self, create: bool) -> Result<Option<(Folder, bool)>, GateError> {
        let folder = match &self.at {
            RunAt::Given if create => Folder::create_at(&self.path).map(|f| Some((f, false))),
            RunAt::Given => Folder::open_at(&self.path).map(|f| f.map(|f| (f, false))),
            RunAt::InStore { store, id } => (|| {
                let (runs, ignored_now) = if create {
                    let (private, ignored_now) = private_folder(store)?;
                    (Some(private.create_child(RUNS)?), ignored_now)
                } else {
                    match Folder::open_at(store)? {
                        Some(store) => (open_below(&store, &[PRIVATE_DIR, RUNS])?, false),
                        None => (None, false),
                    }
                };
                let run = match runs {
                    Some(runs) if create => runs.create_child(id).map(Some),
                    Some(runs) => runs.open_child(id),
                    None => Ok(None),
                }?;
                Ok(run.map(|run| (run, ignored_now)))
            })(),
        };
        folder.map_err(|error| io_error(&self.path, error))
    }

    /// The folder of a step of the run (`pre`, `post-N`); `None` when there is none.
    fn step(&self, name: &str) -> Result<Option<Folder>, GateError> {
        match self.folder(false)? {
            Some(run) => run
                .open_child(name)
                .map_err(|error| io_error(&self.path.join(name), error)),
            None => Ok(None),
        }
    }

    /// Creates the directory and its `pre/` folder, and returns that folder, and whether the
    /// store's `.driftgate/.gitignore` had to be written (the caller says so).
    pub fn create(&self) -> Result<(Folder, bool), GateError> {
        let (run, ignored_now) = self.folder_telling(true)?.expect("a created folder exists");
        let pre = run
            .create_child(PRE)
            .map_err(|error| io_error(&self.path.join(PRE), error))?;
        Ok((pre, ignored_now))
    }

    /// The manifest, or `None` when there is none (no such run).
    pub fn manifest(&self) -> Result<Option<Manifest>, GateError> {
        let file = self.path.join(MANIFEST);
        let Some(run) = self.folder(false)? else {
            return Ok(None);
        };
        let Some(bytes) = run.read(MANIFEST).map_err(|error| io_error(&file, error))? else {
            return Ok(None);
        };
        let manifest: Manifest =
            serde_json::from_slice(&bytes).map_err(|error| GateError::Manifest {
                file: file.display().to_string(),
                reason: error.to_string(),
            })?;
        if manifest.schema != MANIFEST_SCHEMA_ID {
            return Err(GateError::Manifest {
                file: file.display().to_string(),
                reason: format!(
                    "schema is {:?}, expected {MANIFEST_SCHEMA_ID:?}",
                    manifest.schema
                ),
            });
        }
        Ok(Some(manifest))
    }

    /// Writes the manifest.
    pub fn write_manifest(&self, manifest: &Manifest) -> Result<(), GateError> {
        let run = self.folder(true)?.expect("a created folder exists");
        write_json(&run, MANIFEST, manifest)
    }

    /// The numbers of the posts so far (`post-1` → 1), ascending.
    pub fn posts(&self) -> Result<Vec<u32>, GateError> {
        let Some(run) = self.folder(false)? else {
            return Ok(Vec::new());
        };
        let names = run.names().map_err(|error| io_error(&self.path, error))?;
        let mut posts: Vec<u32> = names
            .iter()
            .filter_map(|name| name.to_str()?.strip_prefix(POST_PREFIX)?.parse().ok())
            .collect();
        posts.sort_unstable();
        Ok(posts)
    }

    /// The latest post that captured `host`, if any.
    pub fn last_post_of(&self, host: &HostName) -> Result<Option<u32>, GateError> {
        for post in self.posts()?.into_iter().rev() {
            let Some(step) = self.step(&post_name(post))? else {
                continue;
            };
            let name = snapshot_name(host);
            if step
                .is_file(&name)
                .map_err(|error| io_error(&step.path().join(&name), error))?
            {
                return Ok(Some(post));
            }
        }
        Ok(None)
    }

    /// Claims the next post's folder (`post-N`); creating it is what claims it, so two posts
    /// started at once get different numbers.
    pub fn claim_post(&self) -> Result<(u32, Folder), GateError> {
        let run = self.folder(true)?.expect("a created folder exists");
        let mut attempt = self.posts()?.last().copied().unwrap_or(0) + 1;
        loop {
            let name = post_name(attempt);
            match run.create_new_child(&name) {
                Ok(Some(folder)) => return Ok((attempt, folder)),
                Ok(None) => attempt += 1,
                Err(error) => return Err(io_error(&self.path.join(name), error)),
            }
        }
    }

    /// The path of the pre step's folder.
    pub fn pre_dir(&self) -> PathBuf {
        self.path.join(PRE)
    }

    /// Where `host`'s snapshot of a step goes.
    pub fn snapshot_file(step_dir: &Path, host: &HostName) -> PathBuf {
        step_dir.join(snapshot_name(host))
    }

    /// Writes `host`'s outcome of a step (`<host>.result.json`).
    pub fn write_result(
        step: &Folder,
        host: &HostName,
        outcome: &impl Serialize,
    ) -> Result<(), GateError> {
        write_json(step, &HOST_RESULT_JSON.of(host.as_str()), outcome)
    }

    /// The digests of `host`'s post snapshots in this run, oldest first: what an earlier post
    /// of the run may have promoted.
    pub fn post_digests(&self, host: &HostName) -> Result<Vec<String>, GateError> {
        let mut digests = Vec::new();
        for post in self.posts()? {
            if let Some(snapshot) = self.snapshot_in(&post_name(post), host)? {
                digests.push(snapshot.digest().to_owned());
            }
        }
        Ok(digests)
    }

    /// `host`'s pre snapshot, verified, or `None` when the run has none.
    pub fn pre(&self, host: &HostName) -> Result<Option<VerifiedSnapshot>, GateError> {
        self.snapshot_in(PRE, host)
    }

    /// `host`'s snapshot in the folder of step `step`, verified; `None` when there is none.
    fn snapshot_in(
        &self,
        step: &str,
        host: &HostName,
    ) -> Result<Option<VerifiedSnapshot>, GateError> {
        let file = self.path.join(step).join(snapshot_name(host));
        let Some(folder) = self.step(step)? else {
            return Ok(None);
        };
        match folder
            .read(&snapshot_name(host))
            .map_err(|error| io_error(&file, error))?
        {
            Some(bytes) => Ok(Some(VerifiedSnapshot::parse_bytes(
                &bytes,
                &file.display().to_string(),
            )?)),
            None => Ok(None),
        }
    }

    /// `host`'s latest judged step (the last post that captured it, else the pre): the step's
    /// folder name, its snapshot and the report it was judged with; `None` when the run has
    /// neither.
    pub fn latest(
        &self,
        host: &HostName,
    ) -> Result<Option<(String, VerifiedSnapshot, driftgate_compare::Report)>, GateError> {
        let step = match self.last_post_of(host)? {
            Some(post) => post_name(post),
            None => PRE.to_owned(),
        };
        let Some(snapshot) = self.snapshot_in(&step, host)? else {
            return Ok(None);
        };
        let name = HOST_RESULT_JSON.of(host.as_str());
        let file = self.path.join(&step).join(&name);
        let bytes = match self.step(&step)? {
            Some(folder) => folder.read(&name).map_err(|error| io_error(&file, error))?,
            None => None,
        };
        let Some(bytes) = bytes else {
            return Ok(None);
        };
        let manifest = |reason: String| GateError::Manifest {
            file: file.display().to_string(),
            reason,
        };
        let result: serde_json::Value =
            serde_json::from_slice(&bytes).map_err(|e| manifest(e.to_string()))?;
        let report = serde_json::from_value(result["report"].clone())
            .map_err(|e| manifest(format!("its report: {e}")))?;
        Ok(Some((step, snapshot, report)))
    }

    /// The records of every `fix apply` of the run (`fix/apply-<N>.json`), oldest first, each
    /// with its file.
    pub fn fix_records(&self) -> Result<Vec<(PathBuf, Vec<u8>)>, GateError> {
        let Some(fix) = self.step(FIX)? else {
            return Ok(Vec::new());
        };
        let names = fix.names().map_err(|error| io_error(fix.path(), error))?;
        let mut numbered: Vec<(u32, String)> = names
            .iter()
            .filter_map(|name| {
                let name = name.to_str()?;
                let n = name
                    .strip_prefix("apply-")?
                    .strip_suffix(".json")?
                    .parse()
                    .ok()?;
                Some((n, name.to_owned()))
            })
            .collect();
        numbered.sort();
        let mut records = Vec::new();
        for (_, name) in numbered {
            let file = fix.path().join(&name);
            if let Some(bytes) = fix.read(&name).map_err(|error| io_error(&file, error))? {
                records.push((file, bytes));
            }
        }
        Ok(records)
    }

    /// The folder of `fix apply`'s lock and records (`fix/`), created when missing.
    pub fn fix_folder(&self) -> Result<Folder, GateError> {
        let run = self.folder(true)?.expect("a created folder exists");
        run.create_child(FIX)
            .map_err(|error| io_error(&self.path.join(FIX), error))
    }

    /// Writes `record` as the next `fix/apply-<N>.json` of `fix` (never replacing one) and
    /// returns its name. The caller holds the run's apply lock: no other apply numbers one
    /// meanwhile.
    pub(crate) fn create_fix_record(
        &self,
        fix: &Folder,
        record: &impl Serialize,
    ) -> Result<String, GateError> {
        let mut n = self.fix_records()?.len() + 1;
        loop {
            let name = format!("apply-{n}.json");
            if !fix
                .is_file(&name)
                .map_err(|error| io_error(&fix.path().join(&name), error))?
            {
                write_json(fix, &name, record)?;
                return Ok(name);
            }
            n += 1;
        }
    }

    /// Writes `record` again as `name` in `fix` (atomically: the old one or the new one). The
    /// caller holds the run's apply lock.
    pub(crate) fn rewrite_fix_record(
        fix: &Folder,
        name: &str,
        record: &impl Serialize,
    ) -> Result<(), GateError> {
        write_json(fix, name, record)
    }

    /// Writes a step's report (`report.json`) into its folder.
    pub fn write_report(step: &Folder, report: &impl Serialize) -> Result<(), GateError> {
        write_json(step, REPORT, report)
    }
}

/// `post-N`.
fn post_name(post: u32) -> String {
    format!("{POST_PREFIX}{post}")
}

/// `<host>.json`.
fn snapshot_name(host: &HostName) -> String {
    HOST_JSON.of(host.as_str())
}

/// The folder at `names` below `folder`, each opened without following a link; `None` when
/// one of them does not exist.
fn open_below(folder: &Folder, names: &[&str]) -> std::io::Result<Option<Folder>> {
    let mut names = names.iter();
    let Some(first) = names.next() else {
        return Ok(None);
    };
    let mut below = folder.open_child(first)?;
    for name in names {
        below = match below {
            Some(folder) => folder.open_child(name)?,
            None => return Ok(None),
        };
    }
    Ok(below)
}

/// Writes `host`'s `snapshot` canonically into the folder of its step.
pub(crate) fn write_snapshot(
    step: &Folder,
    host: &HostName,
    snapshot: &VerifiedSnapshot,
) -> Result<(), GateError> {
    write(
        step,
        &snapshot_name(host),
        snapshot.to_canonical_json().as_bytes(),
    )
}

fn write_json(folder: &Folder, name: &str, value: &impl Serialize) -> Result<(), GateError> {
    let mut text = serde_json::to_string_pretty(value).expect("run files always serialize");
    text.push('\n');
    write(folder, name, text.as_bytes())
}

fn write(folder: &Folder, name: &str, bytes: &[u8]) -> Result<(), GateError> {
    folder
        .write_atomic(name, bytes, WriteOptions::PRIVATE)
        .map_err(|error| io_error(&folder.path().join(name), error))
}

/// `error` at `file` as the gate's error: a path refused as not driftgate's (a symbolic link
/// where it keeps a folder or file of its own) is said so, any other is an I/O error naming
/// the file.
pub(crate) fn io_error(file: &Path, error: std::io::Error) -> GateError {
    match NotOurs::from_io(error) {
        Ok(refused) => GateError::NotOurs(refused),
        Err(error) => GateError::Io {
            file: file.display().to_string(),
            error,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_policy_digest_is_of_the_rules_not_of_the_files_they_came_from() {
        let rules = "[[rule]]\nid = \"bios-attributes\"\non_change = \"block\"\n";
        let here = Policy::with_file(rules, "/srv/a/driftgate.toml").unwrap();
        let there = Policy::with_file(&format!("\n\n{rules}"), "/tmp/copy.toml").unwrap();
        assert_ne!(here.to_toml(), there.to_toml());
        assert_eq!(policy_digest(&here), policy_digest(&there));
        let weaker = rules.replace("block", "info");
        let weaker = Policy::with_file(&weaker, "/srv/a/driftgate.toml").unwrap();
        assert_ne!(policy_digest(&here), policy_digest(&weaker));
        assert_ne!(policy_digest(&here), policy_digest(&Policy::builtin()));
    }

    #[test]
    fn posts_are_numbered_in_order_and_each_claim_gets_a_new_one() {
        let dir = tempfile::tempdir().unwrap();
        let run = RunDir {
            path: dir.path().to_owned(),
            at: RunAt::Given,
        };
        assert_eq!(run.posts().unwrap(), Vec::<u32>::new());
        assert_eq!(run.claim_post().unwrap().0, 1);
        assert_eq!(run.claim_post().unwrap().0, 2);
        std::fs::create_dir(dir.path().join("post-x")).unwrap();
        assert_eq!(run.posts().unwrap(), vec![1, 2]);
    }

    #[test]
    fn a_manifest_reads_back_as_written_and_a_foreign_one_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let run = RunDir {
            path: dir.path().to_owned(),
            at: RunAt::Given,
        };
        assert_eq!(run.manifest().unwrap(), None);
        let manifest = Manifest {
            schema: MANIFEST_SCHEMA_ID.to_owned(),
            id: "CHG-1".to_owned(),
            created_at: "2026-12-01T14:05:02Z".parse().unwrap(),
            tool: driftgate_snapshot::tool_version(),
            policy_digest: policy_digest(&Policy::builtin()),
            hosts: vec![RunHost {
                name: HostName::new("azl-node01").unwrap(),
                fleet: "azure-local".to_owned(),
                cluster: None,
                strict: true,
                policy_digest: policy_digest(&Policy::builtin()),
                allowances: vec![Allowance {
                    path: "nic/*/bmc/**/dcbx_mode".to_owned(),
                    value: Some("disabled".into()),
                    reason: Some("CHG-1".to_owned()),
                    ticket: None,
                    expires: Some("2026-12-31".parse().unwrap()),
                    given_at: "--allow".to_owned(),
                }],
                baseline_commit: "0".repeat(40),
                baseline_digest: format!("sha256:{}", "0".repeat(64)),
            }],
            store: "/srv/baselines".to_owned(),
        };
        run.write_manifest(&manifest).unwrap();
        assert_eq!(run.manifest().unwrap(), Some(manifest));
        std::fs::write(dir.path().join(MANIFEST), r#"{"schema": "other"}"#).unwrap();
        assert!(run.manifest().is_err());
    }
}
