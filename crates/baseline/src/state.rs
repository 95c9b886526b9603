//! The nightly state: each host's last complete capture, which the stale check reads and every
//! `check --all`, `report merge` and gate step adds to. It lives in the store's git repository, on a
//! branch of its own ([`STATE_BRANCH`], one file [`STATE_FILE`]), so that it travels with the
//! store: a plain `git clone` copies branches (not custom refs or notes), and a CI job or a
//! Kubernetes pod that starts from a fresh clone every night still knows the last night's
//! successes. The baselines' branch never sees it: its history stays the promotes'.
//!
//! Read: every copy of the branch there is (the local branch and each remote's, so that a
//! fresh clone, which has only `refs/remotes/origin/driftgate/state`, reads it), merged host by
//! host, the newest time winning. Written: under the store's lock, re-read and merged the same
//! way, the run's hosts added (a time never moves backwards), one commit whose parents are the
//! copies it merged, the local branch moved only if it still points where it did. The
//! operator's job pushes the branch with the baselines (`git push origin main
//! driftgate/state`): always a fast-forward of the remote's copy.
//!
//! Before this branch the state was the untracked file `.driftgate/state.json` of the work
//! tree ([`LEGACY_FILE`]): it is read as one more copy, and removed once its hosts are on the
//! branch ([`Recorded::migrated`] says so, once). Only host names and times are kept: never a
//! credential, address or setting.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

use driftgate_fs::{Folder, PRIVATE_DIR};
use driftgate_store::{FileWrite, SideBranch, Store, StoreError};

/// The branch of the state, beside the baselines' branch.
pub const STATE_BRANCH: &str = "driftgate/state";
/// The state's file on that branch.
pub const STATE_FILE: &str = "state.json";
/// The state file of driftgate before the branch, in the work tree: read to migrate it.
pub const LEGACY_FILE: &str = ".driftgate/state.json";
/// Its name in `.driftgate/`, and its lock's.
const LEGACY_NAME: &str = "state.json";
const LEGACY_LOCK: &str = "state.lock";
/// How long a write waits for the store's lock (a promote of thousands of hosts holds it for
/// seconds).
pub const STATE_LOCK_WAIT: Duration = Duration::from_secs(60);
/// The branch's README, for whoever finds the branch in a repository browser.
const BRANCH_README: &str = "# driftgate nightly state\n\nEach host's last complete capture (`state.json`), written by `driftgate check --all`,\n`driftgate report merge` and the gate steps, read by the stale check of `check --all` (`--stale-after`), the Prometheus\n`driftgate_last_success_timestamp_seconds` metric and the HTML report's \"last success\" column.\nOne commit per run that learned something. Push it with the baselines\n(`git push origin main driftgate/state`); never merge it into them.\n";

/// What the store remembers between runs.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct State {
    /// Host → its last complete capture.
    pub hosts: BTreeMap<String, HostState>,
}

/// One host's memory.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HostState {
    /// When it was last captured completely.
    pub last_good: Timestamp,
}

/// What a run tells the operator beside its result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Notice {
    /// The nightly state of the old untracked `.driftgate/state.json` is now on the branch
    /// `driftgate/state`, and the file was removed.
    StateMigrated {
        /// The store.
        store: String,
        /// The hosts the file held.
        hosts: usize,
    },
    /// The run's last good captures could not be saved: the verdict stands, but the next run
    /// will not know them.
    StateNotSaved {
        /// Why, naming the store.
        error: String,
    },
}

impl std::fmt::Display for Notice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Notice::StateMigrated { store, hosts } => write!(
                f,
                "{store}: moved the last good captures of {hosts} {noun} from .driftgate/state.json to the branch {branch} (push it with the baselines: git push origin <branch> {branch}), and removed the file",
                noun = if *hosts == 1 { "host" } else { "hosts" },
                branch = STATE_BRANCH
            ),
            Notice::StateNotSaved { error } => write!(
                f,
                "the hosts' last good captures were not saved in the branch {} ({error}): this run's verdict stands, but the next run will not know of them",
                STATE_BRANCH
            ),
        }
    }
}

/// Adds `good` to the state of `store` ([`State::record`]) and says what the operator must be
/// told: the legacy file migrated, or the state not saved (a failure that changes no verdict:
/// the caller warns and goes on).
pub fn record_telling(
    store: &Store,
    good: &[(String, Timestamp)],
    run: Option<&str>,
) -> Option<Notice> {
    match State::record(store, good, run) {
        Ok(recorded) => recorded.migrated.map(|hosts| Notice::StateMigrated {
            store: store.location().display().to_string(),
            hosts,
        }),
        Err(error) => Some(Notice::StateNotSaved {
            error: error.to_string(),
        }),
    }
}

/// Why the state could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum StateError {
    /// A copy of the state cannot be parsed: never taken for an empty state, which would
    /// forget every host's last good capture and hide the hosts that went stale.
    #[error(
        "{store}: {copy}: not a driftgate state file ({reason}); it keeps each host's last good capture: repair it, or remove it to forget them"
    )]
    Corrupt {
        /// The store.
        store: String,
        /// The copy: `refs/heads/driftgate/state:state.json`, or the legacy file.
        copy: String,
        /// What is wrong.
        reason: String,
    },
    /// The legacy file could not be read or removed.
    #[error("{path}: {error}")]
    Legacy {
        /// The file.
        path: String,
        /// Why.
        error: std::io::Error,
    },
    /// The repository could not be read or written.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// The state as read, and whether the legacy file was one of its sources.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Loaded {
    /// Every copy merged.
    pub state: State,
    /// Hosts the legacy `.driftgate/state.json` holds, when there is one.
    pub legacy_hosts: Option<usize>,
}

/// What [`State::record`] did.
#[derive(Debug, Clone, PartialEq)]
pub struct Recorded {
    /// The new commit on [`STATE_BRANCH`] (hex), or `None`: the branch held all of it already.
    pub commit: Option<String>,
    /// Hosts moved from the legacy `.driftgate/state.json` to the branch, which removed it.
    pub migrated: Option<usize>,
}

impl State {
    /// The state of `store`: every copy of [`STATE_BRANCH`] and the legacy file, merged (the
    /// newest time of each host). No copy at all is an empty state; one that cannot be
    /// parsed is an error naming it.
    pub fn load(store: &Store) -> Result<Loaded, StateError> {
        let branch = store.side_branch(STATE_BRANCH)?;
        read_all(store, &branch)
    }

    /// Adds `good` (hosts captured completely, when) to the state of `store`, as one commit on
    /// [`STATE_BRANCH`] under the store's lock (see the module docs); `run` (`--run`) goes in
    /// the commit message. Every other host's entry is kept, and a time only moves forward.
    pub fn record(
        store: &Store,
        good: &[(String, Timestamp)],
        run: Option<&str>,
    ) -> Result<Recorded, StateError> {
        let lock = store.lock(STATE_LOCK_WAIT)?;
        // Another run may have written since this one started: start from what is there now.
        let branch = store.side_branch(STATE_BRANCH)?;
        let Loaded {
            mut state,
            legacy_hosts,
        } = read_all(store, &branch)?;
        for (host, at) in good {
            state.merge_host(host, *at);
        }
        let mut text = serde_json::to_string_pretty(&state).expect("a state serializes");
        text.push('\n');
        let files = [
            FileWrite::new("README.md", BRANCH_README.as_bytes().to_vec()),
            FileWrite::new(STATE_FILE, text.into_bytes()),
        ];
        let mut message = format!(
            "state: last good captures of {} hosts ({} from this run)",
            state.hosts.len(),
            good.len()
        );
        if let Some(run) = run {
            message.push_str(&format!("\n\nRun: {run}\n"));
        }
        let commit = store.commit_side_branch(&lock, &branch, &files, &message)?;
        // Only once its hosts are committed is the legacy file superseded.
        if legacy_hosts.is_some() {
            remove_legacy(store.location())?;
        }
        drop(lock);
        Ok(Recorded {
            commit: commit.map(|c| c.id.to_string()),
            migrated: legacy_hosts,
        })
    }

    /// Takes `at` as `host`'s last good capture if it is newer than the one on record.
    fn merge_host(&mut self, host: &str, at: Timestamp) {
        let entry = self
            .hosts
            .entry(host.to_owned())
            .or_insert(HostState { last_good: at });
        entry.last_good = entry.last_good.max(at);
    }

    /// Merges `other` into this state, host by host.
    fn merge(&mut self, other: State) {
        for (host, state) in other.hosts {
            self.merge_host(&host, state.last_good);
        }
    }
}

/// Every copy of the branch and the legacy file, merged.
fn read_all(store: &Store, branch: &SideBranch) -> Result<Loaded, StateError> {
    let mut loaded = Loaded::default();
    for (reference, tip) in branch.tips() {
        if let Some(bytes) = store.read_side_file(&tip, STATE_FILE)? {
            let copy = format!("{reference}:{STATE_FILE}");
            loaded.state.merge(parse(store, &copy, &bytes)?);
        }
    }
    if !store.is_bare()
        && let Some(bytes) = read_legacy(store.location())?
    {
        let copy = store.location().join(LEGACY_FILE).display().to_string();
        let legacy = parse(store, &copy, &bytes)?;
        loaded.legacy_hosts = Some(legacy.hosts.len());
        loaded.state.merge(legacy);
    }
    Ok(loaded)
}

fn parse(store: &Store, copy: &str, bytes: &[u8]) -> Result<State, StateError> {
    serde_json::from_slice(bytes).map_err(|e| StateError::Corrupt {
        store: store.location().display().to_string(),
        copy: copy.to_owned(),
        reason: e.to_string(),
    })
}

/// The legacy file of the work tree `work_tree`, never reached through a link.
fn read_legacy(work_tree: &Path) -> Result<Option<Vec<u8>>, StateError> {
    let read = (|| match Folder::open_at(work_tree)? {
        Some(tree) => match tree.open_child(PRIVATE_DIR)? {
            Some(private) => private.read(LEGACY_NAME),
            None => Ok(None),
        },
        None => Ok(None),
    })();
    read.map_err(|error| StateError::Legacy {
        path: work_tree.join(LEGACY_FILE).display().to_string(),
        error,
    })
}

/// Removes the legacy file and its lock.
fn remove_legacy(work_tree: &Path) -> Result<(), StateError> {
    let removed = (|| {
        if let Some(private) = Folder::open_at(work_tree)?
            .map(|tree| tree.open_child(PRIVATE_DIR))
            .transpose()?
            .flatten()
        {
            private.remove_file(LEGACY_NAME)?;
            private.remove_file(LEGACY_LOCK)?;
        }
        Ok(())
    })();
    removed.map_err(|error| StateError::Legacy {
        path: work_tree.join(LEGACY_FILE).display().to_string(),
        error,
    })
}

#[cfg(test)]
mod tests;
