//! Which hosts a run still waits for: once every other host is done, the progress names the
//! ones left (a hanging BMC is then what the operator is waiting on, and should see).

use std::collections::BTreeSet;
use std::sync::{Mutex, PoisonError};

use driftgate_snapshot::HostName;

/// At most this many hosts are named; the rest are counted.
const NAMED: usize = 3;

/// The hosts of a run: how many are planned, which run, how many ended.
#[derive(Debug, Default)]
pub(super) struct Pending {
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    planned: usize,
    finished: usize,
    running: BTreeSet<String>,
}

impl Pending {
    /// The run works on `hosts` hosts.
    pub(super) fn planned(&self, hosts: usize) {
        self.lock().planned = hosts;
    }

    /// `host` started.
    pub(super) fn started(&self, host: &HostName) {
        self.lock().running.insert(host.to_string());
    }

    /// `host` ended: `waiting for …` naming the hosts still running once no other host is
    /// left to start, else nothing.
    pub(super) fn finished(&self, host: &HostName) -> Option<String> {
        let mut state = self.lock();
        state.running.remove(host.as_str());
        state.finished += 1;
        let queued = state.planned > state.finished + state.running.len();
        if queued || state.running.is_empty() {
            return None;
        }
        let mut names: Vec<&str> = state
            .running
            .iter()
            .take(NAMED)
            .map(String::as_str)
            .collect();
        let more = state.running.len().saturating_sub(NAMED);
        let more = (more > 0).then(|| format!("{more} more"));
        names.extend(more.as_deref());
        Some(format!("waiting for {}", names.join(", ")))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn host(name: &str) -> HostName {
        HostName::new(name).unwrap()
    }

    #[test]
    fn names_the_running_hosts_once_none_is_queued() {
        let pending = Pending::default();
        pending.planned(6);
        for name in ["a", "b", "c", "d", "e"] {
            pending.started(&host(name));
        }
        // f has not started yet.
        assert_eq!(pending.finished(&host("a")), None);
        pending.started(&host("f"));
        assert_eq!(
            pending.finished(&host("b")).as_deref(),
            Some("waiting for c, d, e, 1 more")
        );
        assert_eq!(
            pending.finished(&host("c")).as_deref(),
            Some("waiting for d, e, f")
        );
        pending.finished(&host("d"));
        pending.finished(&host("f"));
        assert_eq!(pending.finished(&host("e")), None, "all done");
    }
}
