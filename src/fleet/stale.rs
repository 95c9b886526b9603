//! Stale and missing: baselines older than `--stale-after`, inventory hosts without a
//! baseline, baselines without an inventory host, and hosts whose last good capture is older
//! than the threshold. The last good capture of each host is kept in a small state file in
//! the store, out of git ([`STATE_FILE`]).

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

use super::{FleetError, FleetFinding};

/// The state file, relative to the store's work tree (`.driftgate/` is ignored by git).
pub const STATE_FILE: &str = ".driftgate/state.json";

/// What the store remembers between runs.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct State {
    /// Host → its last complete capture.
    pub hosts: BTreeMap<String, HostState>,
}

/// One host's memory.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HostState {
    /// When it was last captured completely.
    pub last_good: Timestamp,
}

impl State {
    /// Reads `file`; a missing file is an empty state.
    pub fn load(file: &Path) -> Result<State, FleetError> {
        let _ = file;
        Ok(State::default())
    }

    /// Records `good` (hosts captured completely, when) into `file` under a lock, atomically
    /// (temp file + rename), keeping every other host's entry: shards on one machine share it.
    pub fn record(file: &Path, good: &[(String, Timestamp)]) -> Result<(), FleetError> {
        let _ = (file, good);
        Ok(())
    }
}

/// One inventory host of the run, as the stale check sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct StaleInput {
    /// The host.
    pub host: String,
    /// When its baseline was captured; `None`: it has none.
    pub baseline_captured_at: Option<Timestamp>,
    /// Its last good capture (this run's, or the state file's).
    pub last_good: Option<Timestamp>,
}

/// The stale and missing findings of `hosts` and of `orphans` (baseline files of no inventory
/// host), at `now`. Missing and orphan baselines are always reported; ages only with
/// `stale_after`.
pub fn findings(
    hosts: &[StaleInput],
    orphans: &[String],
    stale_after: Option<Duration>,
    now: Timestamp,
) -> Vec<FleetFinding> {
    let _ = (hosts, orphans, stale_after, now);
    Vec::new()
}

/// Parses `--stale-after`: `30d`, `12h`, `90m`, or a plain number of days.
pub fn parse_age(text: &str) -> Result<Duration, String> {
    let _ = text;
    todo!("issue 12: --stale-after")
}
