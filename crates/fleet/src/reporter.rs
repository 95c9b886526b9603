//! What a fleet check tells its caller while it works ([`Reporter`]): the library prints
//! nothing.

use std::time::Duration;

use driftgate_baseline::state::Notice;
use driftgate_compare::Verdict;
use driftgate_snapshot::HostName;

/// What a fleet check tells its caller while it works (the library prints nothing): the
/// CLI's progress bar. Called from capture tasks, hence `Send + Sync`.
pub trait Reporter: driftgate_collect::Reporter {
    /// The run will work on this many hosts.
    fn planned(&self, _hosts: usize) {}
    /// A host's capture (or the reading of its snapshot) started.
    fn host_started(&self, _host: &HostName) {}
    /// A host was captured, written and judged.
    fn host_finished(&self, _host: &HostName, _verdict: Verdict, _took: Duration) {}
    /// Something about the run as a whole that the operator must be told.
    fn notice(&self, _notice: &Notice) {}
}
