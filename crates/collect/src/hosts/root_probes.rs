//! Root probes: looking ahead on a night the last run says nothing of, the BMCs of the hosts
//! due next are each asked for their service root before their turn (without a login, see
//! `redfish::look`), and a BMC that answers [`SLOW_FACTOR`] times slower than the typical
//! one (at least [`SLOW_FLOOR`]), or has not answered by then, marks its host as slow: it
//! starts before the hosts ahead of it, in the slow lane while there is room there. Without
//! it, a slow BMC that comes last in the inventory starts last and the night waits for it.
//! The host's capture starts from the root its look read: the look costs the BMC no request.

use std::collections::{HashMap, VecDeque};
use std::time::Duration;

use tokio::task::JoinSet;
use tokio::time::Instant;

use crate::redfish::look::RootLook;

/// How many times the typical look's time a look takes before its host counts as slow.
const SLOW_FACTOR: u32 = 3;
/// A look quicker than this never makes its host slow, however quick the others: a BMC's
/// root is one small answer, and a host takes about fourteen such answers' time.
const SLOW_FLOOR: Duration = Duration::from_millis(500);
/// How many of the last ended looks make the typical time.
const RECENT: usize = 255;
/// How far ahead of the next host to start looks, in hosts per place of the main lane: far
/// enough that a slow BMC is seen about a minute before its turn at the default concurrency
/// (hosts of about 4 s), while each look waiting for its host holds only a root's body.
const AHEAD: usize = 16;

/// The root probes (looks) of a run: on their way, ended and waiting for their host, and the hosts they
/// marked as slow.
pub(super) struct RootProbes {
    /// How many looks may be on their way at once.
    limit: usize,
    /// How many hosts past the next one to look at.
    window: usize,
    /// The place in the run's order of the next host to look at.
    cursor: usize,
    /// Each look's task, which ends with its host's index and whether it read a BMC.
    tasks: JoinSet<(usize, bool)>,
    /// When each look on its way started, by host; a look leaves when it ends or its host
    /// starts.
    on_way: HashMap<usize, Instant>,
    /// Each look not yet handed to its host, by host.
    roots: HashMap<usize, RootLook>,
    recent: VecDeque<Duration>,
    /// The hosts found slow, not started yet, in the order they were found.
    slow: VecDeque<usize>,
}

impl RootProbes {
    /// No look yet, for a run with `concurrency` places in its main lane.
    pub(super) fn new(concurrency: usize) -> RootProbes {
        let concurrency = concurrency.max(1);
        RootProbes {
            limit: concurrency,
            window: concurrency.saturating_mul(AHEAD),
            cursor: 0,
            tasks: JoinSet::new(),
            on_way: HashMap::new(),
            roots: HashMap::new(),
            recent: VecDeque::with_capacity(RECENT),
            slow: VecDeque::new(),
        }
    }

    /// The next host of `order` to look at, given that the host at place `next` starts next
    /// and `wanted` says which hosts to look at (not started, not known from the last run);
    /// `None` while enough looks are on their way or none is wanted within the window.
    pub(super) fn next_to_look(
        &mut self,
        order: &[(usize, bool)],
        next: usize,
        wanted: impl Fn(usize) -> bool,
    ) -> Option<usize> {
        self.cursor = self.cursor.max(next);
        let end = order.len().min(next.saturating_add(self.window));
        while self.on_way.len() < self.limit && self.cursor < end {
            let (index, _) = order[self.cursor];
            self.cursor += 1;
            if wanted(index) {
                return Some(index);
            }
        }
        None
    }

    /// The look at host `index` started now; its task drives it whether or not its host
    /// has started.
    pub(super) fn start(&mut self, index: usize, look: RootLook, now: Instant) {
        let driven = look.clone();
        self.tasks
            .spawn(async move { (index, driven.read_a_bmc().await) });
        self.on_way.insert(index, now);
        self.roots.insert(index, look);
    }

    /// Whether a look is on its way (its end is worth waiting for).
    pub(super) fn looking(&self) -> bool {
        !self.tasks.is_empty()
    }

    /// The next look to end: its host and whether it read a BMC; `None` when none is on its
    /// way, or for a look whose task was lost (its host keeps its place in the order).
    pub(super) async fn next_ended(&mut self) -> Option<(usize, bool)> {
        self.tasks.join_next().await?.ok()
    }

    /// The look at host `index` ended now, having read a BMC if `looked`: a host still
    /// waiting whose look took too long is slow.
    pub(super) fn ended(&mut self, index: usize, looked: bool, now: Instant) {
        let Some(started) = self.on_way.remove(&index) else {
            // Its host started first: the look is its capture's now.
            return;
        };
        if !looked {
            // No BMC (a host of commands only): nothing to learn of its speed.
            return;
        }
        let took = now - started;
        if self.slow_after().is_some_and(|after| took > after) && !self.slow.contains(&index) {
            self.slow.push_back(index);
        }
        if self.recent.len() == RECENT {
            self.recent.pop_front();
        }
        self.recent.push_back(took);
    }

    /// How long a look takes before its host is slow; `None` until a look has ended.
    fn slow_after(&self) -> Option<Duration> {
        let mut recent: Vec<Duration> = self.recent.iter().copied().collect();
        if recent.is_empty() {
            return None;
        }
        let middle = (recent.len() - 1) / 2;
        let (_, median, _) = recent.select_nth_unstable(middle);
        Some((*median * SLOW_FACTOR).max(SLOW_FLOOR))
    }

    /// Marks the hosts whose look has been on its way too long as slow; returns when the
    /// next one will have.
    pub(super) fn overdue(&mut self, now: Instant) -> Option<Instant> {
        let after = self.slow_after()?;
        let mut next: Option<Instant> = None;
        for (&index, &started) in &self.on_way {
            let due = started + after;
            if due <= now {
                if !self.slow.contains(&index) {
                    self.slow.push_back(index);
                }
            } else {
                next = Some(next.map_or(due, |next| next.min(due)));
            }
        }
        next
    }

    /// The host found slow that starts next, if any.
    pub(super) fn first_slow(&self) -> Option<usize> {
        self.slow.front().copied()
    }

    /// Host `index` starts: its look, if it had one (on its way or ended), for its capture.
    pub(super) fn take(&mut self, index: usize) -> Option<RootLook> {
        self.slow.retain(|&slow| slow != index);
        self.on_way.remove(&index);
        self.roots.remove(&index)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::redfish::look::LookedRoot;

    /// A look at `base` that answers after `after` (never, for `None`).
    fn look(base: &str, after: Option<Duration>) -> RootLook {
        let base = base.to_owned();
        RootLook::new(async move {
            match after {
                Some(after) => tokio::time::sleep(after).await,
                None => std::future::pending().await,
            }
            Some(LookedRoot { base, body: None })
        })
    }

    #[tokio::test(start_paused = true)]
    async fn a_host_whose_look_is_slow_or_unanswered_is_found_slow_and_a_started_one_is_not() {
        let ms = Duration::from_millis;
        let order: Vec<(usize, bool)> = (0..6).map(|i| (i, false)).collect();
        let mut probes = RootProbes::new(4);
        let start = Instant::now();
        let mut looked = Vec::new();
        // Host 1 is known from the last run: not looked at. Four looks at most on their way.
        while let Some(index) = probes.next_to_look(&order, 0, |i| i != 1) {
            let after = match index {
                3 => Some(ms(3000)),
                5 => None,
                _ => Some(ms(300)),
            };
            probes.start(index, look(&format!("http://bmc{index}"), after), start);
            looked.push(index);
        }
        assert_eq!(looked, [0, 2, 3, 4]);
        // Nothing ended: nothing is known to be slow.
        assert_eq!(probes.overdue(start), None);
        // Host 0 starts before its look ends: its capture gets the look, which then says
        // nothing of speed.
        assert!(probes.take(0).is_some());
        // Hosts 0, 2 and 4 answer at 300 ms; host 0's look is its capture's.
        for _ in 0..3 {
            let (index, looked) = probes.next_ended().await.unwrap();
            probes.ended(index, looked, Instant::now());
        }
        assert_eq!(probes.recent.len(), 2);
        assert_eq!(probes.slow_after(), Some(ms(900)));
        assert_eq!(probes.next_to_look(&order, 1, |i| i != 1), Some(5));
        probes.start(5, look("http://bmc5", None), Instant::now());
        assert_eq!(probes.overdue(start + ms(500)), Some(start + ms(900)));
        assert_eq!(probes.first_slow(), None);
        // Host 3 has been on its way 900 ms: slow; host 5, started at 300 ms, will be at 1.2 s.
        assert_eq!(probes.overdue(start + ms(900)), Some(start + ms(1200)));
        assert_eq!(probes.first_slow(), Some(3));
        assert_eq!(probes.overdue(start + ms(1200)), None);
        assert!(probes.take(3).is_some());
        assert_eq!(probes.first_slow(), Some(5));
        // Started hosts leave no look behind, and the window ends at the order's end.
        assert!(probes.take(3).is_none());
        assert_eq!(probes.next_to_look(&order, 1, |_| true), None);
    }

    #[tokio::test(start_paused = true)]
    async fn a_look_that_ends_slow_marks_its_host_and_one_without_a_bmc_teaches_nothing() {
        let ms = Duration::from_millis;
        let order: Vec<(usize, bool)> = (0..3).map(|i| (i, false)).collect();
        let mut probes = RootProbes::new(1);
        let start = Instant::now();
        probes.start(0, look("http://bmc0", Some(ms(200))), start);
        assert_eq!(probes.next_to_look(&order, 0, |_| true), None);
        let (index, looked) = probes.next_ended().await.unwrap();
        assert_eq!((index, looked), (0, true));
        probes.ended(index, looked, Instant::now());
        // 200 ms typical: slow past 600 ms (a typical look of 100 ms would give the floor).
        assert_eq!(probes.slow_after(), Some(ms(600)));
        let no_bmc = RootLook::new(async { None });
        probes.start(1, no_bmc, Instant::now());
        let (index, looked) = probes.next_ended().await.unwrap();
        assert_eq!((index, looked), (1, false));
        probes.ended(index, looked, Instant::now() + ms(5000));
        assert_eq!(probes.first_slow(), None);
        probes.start(2, look("http://bmc2", Some(ms(2000))), Instant::now());
        let (index, looked) = probes.next_ended().await.unwrap();
        probes.ended(index, looked, Instant::now());
        assert_eq!(probes.first_slow(), Some(2));
        assert!(!probes.looking());
    }
}
