//! What a gate step tells its caller while it works.

use std::path::Path;
use std::time::Duration;

use driftgate_compare::Verdict;
use driftgate_snapshot::HostName;

use crate::run_id::RunId;

/// What a gate step tells its caller while it works (the library prints nothing): the
/// capture's [`driftgate_collect::Reporter`] (each source of each host) and the step's own events. One
/// reporter pattern for every command that captures.
pub trait Progress: driftgate_collect::Reporter {
    /// The step works on run `id` in `dir`.
    fn run(&self, _id: &RunId, _dir: &Path) {}
    /// The step will capture this many hosts.
    fn planned(&self, _hosts: usize) {}
    /// A host's capture started.
    fn started(&self, _host: &HostName) {}
    /// A host was captured, written to the run directory and judged.
    fn finished(&self, _host: &HostName, _verdict: Verdict, _took: Duration) {}
    /// The store had no `.driftgate/.gitignore` (made before `baseline init` wrote one, or a
    /// fresh clone): `file` was written now, so that run folders stay out of `git status`.
    fn ignore_created(&self, _file: &Path) {}
    /// Something about the step as a whole the operator must be told: its hosts' last
    /// successes not saved in the nightly state (the verdict stands), or the old state file
    /// migrated.
    fn notice(&self, _notice: &driftgate_baseline::state::Notice) {}
}
