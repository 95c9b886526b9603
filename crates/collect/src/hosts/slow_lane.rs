//! Which running hosts count against a run's `concurrency`, and the order hosts start in. A
//! night's BMCs are not alike: a few answer in seconds where the rest answer in a tenth of
//! one, and a host of those holds its place for minutes. A host that has run [`SLOW_FACTOR`]
//! times as long as the typical host of the run (the median of the last hosts that ended, at
//! least [`SLOW_FLOOR`]) steps aside into a lane of its own, as wide as the main one, and a new
//! host takes its place: slow BMCs then hold up only each other, and at most twice
//! `concurrency` hosts are ever in flight (what bounds memory). Before any host has ended no
//! host is known to be slow, unless the last run says so: the hosts that took longest then
//! start first, so that the run does not end waiting on a slow host that started last, and
//! those that were slow then start in the slow lane. Of the hosts it does not know, a look
//! before their turn tells (`root_probes.rs`).

use std::collections::{HashMap, VecDeque};
use std::time::Duration;

use tokio::task::Id;
use tokio::time::Instant;

/// How many times the typical host's time a host runs before it steps aside.
const SLOW_FACTOR: u32 = 3;
/// A host that ran less than this is never slow, however quick the others (a night of down
/// BMCs that each fail in milliseconds moves no healthy host aside).
const SLOW_FLOOR: Duration = Duration::from_secs(2);
/// How many of the last ended hosts make the typical time: enough for a stable median, few
/// enough to follow a run whose hosts change as it goes (one rack's BMCs after another's).
const RECENT: usize = 255;

/// The order to start hosts in, from how long each took in the last run (`None`: unknown),
/// and whether each was slow then: the longest first, the unknown before all (they may be
/// slow), ties in their order. Slow: [`SLOW_FACTOR`] times the median of the known times, and
/// at least [`SLOW_FLOOR`].
pub(super) fn plan(last: &[Option<Duration>]) -> Vec<(usize, bool)> {
    let mut known: Vec<Duration> = last.iter().flatten().copied().collect();
    let slow_after = (!known.is_empty()).then(|| {
        let middle = (known.len() - 1) / 2;
        (*known.select_nth_unstable(middle).1 * SLOW_FACTOR).max(SLOW_FLOOR)
    });
    let mut order: Vec<usize> = (0..last.len()).collect();
    order.sort_by_key(|&index| std::cmp::Reverse(last[index].unwrap_or(Duration::MAX)));
    order
        .into_iter()
        .map(|index| {
            let slow =
                matches!((last[index], slow_after), (Some(took), Some(after)) if took > after);
            (index, slow)
        })
        .collect()
}

/// The running hosts by task, and the time of the hosts that ended.
#[derive(Debug)]
pub(super) struct Lanes {
    concurrency: usize,
    /// Each running host's start, and whether it stepped aside.
    running: HashMap<Id, (Instant, bool)>,
    aside: usize,
    recent: VecDeque<Duration>,
    /// How long a host runs before it steps aside; `None` until a host ended.
    slow_after: Option<Duration>,
}

impl Lanes {
    /// No host running, with `concurrency` (at least 1) places in each lane.
    pub(super) fn new(concurrency: usize) -> Lanes {
        Lanes {
            concurrency: concurrency.max(1),
            running: HashMap::new(),
            aside: 0,
            recent: VecDeque::with_capacity(RECENT),
            slow_after: None,
        }
    }

    /// Whether the main lane has room for another host.
    pub(super) fn has_room(&self) -> bool {
        self.running.len() - self.aside < self.concurrency
    }

    /// Whether the slow lane has room for another host.
    pub(super) fn has_room_aside(&self) -> bool {
        self.aside < self.concurrency
    }

    /// Host task `id` started now, in the slow lane if `aside`.
    pub(super) fn started(&mut self, id: Id, now: Instant, aside: bool) {
        self.running.insert(id, (now, aside));
        self.aside += usize::from(aside);
    }

    /// Host task `id` ended; `took` is how long its host's work took, `None` when it says
    /// nothing of its host (a task that panicked).
    pub(super) fn ended(&mut self, id: Id, took: Option<Duration>) {
        if let Some((_, true)) = self.running.remove(&id) {
            self.aside -= 1;
        }
        let Some(took) = took else { return };
        if self.recent.len() == RECENT {
            self.recent.pop_front();
        }
        self.recent.push_back(took);
        let mut recent: Vec<Duration> = self.recent.iter().copied().collect();
        let middle = (recent.len() - 1) / 2;
        let (_, median, _) = recent.select_nth_unstable(middle);
        self.slow_after = Some((*median * SLOW_FACTOR).max(SLOW_FLOOR));
    }

    /// Moves the hosts that have run too long aside while the slow lane has room; returns
    /// when the next host running in the main lane will have run too long.
    pub(super) fn step_aside(&mut self, now: Instant) -> Option<Instant> {
        let slow_after = self.slow_after?;
        let mut next: Option<Instant> = None;
        for (started, aside) in self.running.values_mut() {
            if *aside {
                continue;
            }
            let due = *started + slow_after;
            if due <= now && self.aside < self.concurrency {
                *aside = true;
                self.aside += 1;
            } else if due > now {
                next = Some(next.map_or(due, |next| next.min(due)));
            }
        }
        next
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Task ids come only from tokio's tasks.
    fn ids(n: usize) -> Vec<Id> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        runtime.block_on(async {
            let mut set = tokio::task::JoinSet::new();
            (0..n).map(|_| set.spawn(async {}).id()).collect()
        })
    }

    #[test]
    fn a_host_that_runs_three_times_the_typical_time_makes_room_and_the_slow_lane_is_bounded() {
        let ids = ids(5);
        let start = Instant::now();
        let mut lanes = Lanes::new(2);
        lanes.started(ids[0], start, false);
        lanes.started(ids[1], start, false);
        assert!(!lanes.has_room());
        // Nothing ended: nothing is known to be slow, however long it runs.
        assert_eq!(lanes.step_aside(start + Duration::from_secs(3600)), None);
        assert!(!lanes.has_room());

        lanes.ended(ids[0], Some(Duration::from_secs(4)));
        lanes.started(ids[2], start + Duration::from_secs(4), false);
        // Host 1 has run 10 s, 12 s is three typical hosts: it steps aside at 12 s, host 2
        // at 16 s.
        let at = start + Duration::from_secs(10);
        assert_eq!(lanes.step_aside(at), Some(start + Duration::from_secs(12)));
        assert!(!lanes.has_room());
        let at = start + Duration::from_secs(12);
        assert_eq!(lanes.step_aside(at), Some(start + Duration::from_secs(16)));
        assert!(lanes.has_room());
        lanes.started(ids[3], at, false);
        assert!(!lanes.has_room());
        // Hosts 2 and 3 outlast their time too, but the slow lane holds two: host 3 stays.
        let late = start + Duration::from_secs(60);
        assert_eq!(lanes.step_aside(late), None);
        assert_eq!(lanes.aside, 2);
        assert!(lanes.has_room());
        lanes.started(ids[4], late, false);
        assert!(!lanes.has_room());
        // A slow host that ends frees its place in the slow lane, where host 3 goes.
        lanes.ended(ids[1], Some(Duration::from_secs(50)));
        assert!(!lanes.has_room());
        lanes.step_aside(late);
        assert_eq!(lanes.aside, 2);
        assert!(lanes.has_room());
    }

    #[test]
    fn the_slowest_of_the_last_run_start_first_and_aside_and_the_unknown_before_all() {
        let secs = |s: u64| Some(Duration::from_secs(s));
        // Median 4 s: slow past 12 s. Host 4 was not in the last run.
        let last = [secs(4), secs(45), secs(3), secs(4), None, secs(13), secs(5)];
        assert_eq!(
            plan(&last),
            [
                (4, false),
                (1, true),
                (5, true),
                (6, false),
                (0, false),
                (3, false),
                (2, false)
            ]
        );
        // Quick hosts are never slow, however quick the others.
        let quick = [
            Some(Duration::from_millis(10)),
            Some(Duration::from_millis(1500)),
        ];
        assert_eq!(plan(&quick), [(1, false), (0, false)]);
        assert_eq!(plan(&[None, None]), [(0, false), (1, false)]);

        // A host started aside takes a place in the slow lane, not the main one.
        let ids = ids(2);
        let mut lanes = Lanes::new(1);
        lanes.started(ids[0], Instant::now(), true);
        assert!(lanes.has_room() && !lanes.has_room_aside());
        lanes.ended(ids[0], Some(Duration::from_secs(45)));
        assert!(lanes.has_room_aside());
    }

    #[test]
    fn quick_failures_never_make_a_healthy_host_slow() {
        let ids = ids(2);
        let start = Instant::now();
        let mut lanes = Lanes::new(1);
        lanes.started(ids[0], start, false);
        lanes.ended(ids[0], Some(Duration::from_millis(3)));
        lanes.started(ids[1], start, false);
        assert_eq!(lanes.step_aside(start), Some(start + SLOW_FLOOR));
        // A panicked task tells nothing of the typical time.
        lanes.ended(ids[1], None);
        assert_eq!(lanes.slow_after, Some(SLOW_FLOOR));
    }
}
