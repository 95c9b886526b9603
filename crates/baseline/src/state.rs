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
//! Only host names and times are kept: never a credential, address or setting.

use std::collections::BTreeMap;
use std::time::Duration;

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

use driftgate_store::{FileWrite, SideBranch, Store, StoreError};

/// The branch of the state, beside the baselines' branch.
pub const STATE_BRANCH: &str = "driftgate/state";
/// The state's file on that branch.
pub const STATE_FILE: &str = "state.json";
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
            Notice::StateNotSaved { error } => write!(
                f,
                "the hosts' last good captures were not saved in the branch {} ({error}): this run's verdict stands, but the next run will not know of them",
                STATE_BRANCH
            ),
        }
    }
}

/// Adds `good` to the state of `store` ([`State::record`]) and says what the operator must be
/// told: the state not saved (a failure that changes no verdict: the caller warns and goes on).
pub fn record_telling(
    store: &Store,
    good: &[(String, Timestamp)],
    run: Option<&str>,
) -> Option<Notice> {
    match State::record(store, good, run) {
        Ok(_) => None,
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
        /// The copy: `refs/heads/driftgate/state:state.json`.
        copy: String,
        /// What is wrong.
        reason: String,
    },
    /// The repository could not be read or written.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// What [`State::record`] did.
#[derive(Debug, Clone, PartialEq)]
pub struct Recorded {
    /// The new commit on [`STATE_BRANCH`] (hex), or `None`: the branch held all of it already.
    pub commit: Option<String>,
}

impl State {
    /// The state of `store`: every copy of [`STATE_BRANCH`], merged (the
    /// newest time of each host). No copy at all is an empty state; one that cannot be
    /// parsed is an error naming it.
    pub fn load(store: &Store) -> Result<State, StateError> {
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
        let mut state = read_all(store, &branch)?;
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
        drop(lock);
        Ok(Recorded {
            commit: commit.map(|c| c.id.to_string()),
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

/// Every copy of the branch, merged.
fn read_all(store: &Store, branch: &SideBranch) -> Result<State, StateError> {
    let mut state = State::default();
    for (reference, tip) in branch.tips() {
        if let Some(bytes) = store.read_side_file(&tip, STATE_FILE)? {
            let copy = format!("{reference}:{STATE_FILE}");
            state.merge(parse(store, &copy, &bytes)?);
        }
    }
    Ok(state)
}

fn parse(store: &Store, copy: &str, bytes: &[u8]) -> Result<State, StateError> {
    serde_json::from_slice(bytes).map_err(|e| StateError::Corrupt {
        store: store.location().display().to_string(),
        copy: copy.to_owned(),
        reason: e.to_string(),
    })
}

#[cfg(test)]
mod tests;
