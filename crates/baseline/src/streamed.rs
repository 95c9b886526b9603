//! Work on items that one thread produces and cannot hand over all at once (a walk of a git
//! history, which cannot leave its thread), spread over rayon's threads while it is still
//! producing.

use std::sync::{Mutex, PoisonError};

/// `f` of every item `produce` hands over, results in the order produced. Items go to
/// rayon's threads in runs of `run` consecutive ones, so that one state sees neighbours in
/// order; a state (from `init`) is kept between the runs it serves, at most one per run in
/// flight. `produce`'s error comes back once the items it had handed over are done; a panic
/// in `f` is raised again here.
pub(super) fn map_streamed<T: Send, S: Send, R: Send, E>(
    run: usize,
    init: impl Fn() -> S + Sync,
    f: impl Fn(&mut S, T) -> R + Sync,
    produce: impl FnOnce(&mut dyn FnMut(T)) -> Result<(), E>,
) -> Result<Vec<R>, E> {
    let run = run.max(1);
    let idle = Mutex::new(Vec::<S>::new());
    let done = Mutex::new(Vec::<(usize, Vec<R>)>::new());
    let (init, f, idle_ref, done_ref) = (&init, &f, &idle, &done);
    // In place: the producer stays on this thread; only the runs go to the pool.
    let produced = rayon::in_place_scope(|scope| {
        let mut runs = 0;
        let mut send = |items: Vec<T>| {
            let index = runs;
            runs += 1;
            scope.spawn(move |_| {
                let taken = idle_ref
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .pop();
                let mut state = taken.unwrap_or_else(init);
                let results = items.into_iter().map(|item| f(&mut state, item)).collect();
                done_ref
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .push((index, results));
                idle_ref
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .push(state);
            });
        };
        let mut pending = Vec::with_capacity(run);
        let produced = produce(&mut |item| {
            pending.push(item);
            if pending.len() == run {
                send(std::mem::replace(&mut pending, Vec::with_capacity(run)));
            }
        });
        if !pending.is_empty() {
            send(pending);
        }
        produced
    });
    produced?;
    let mut done = done.into_inner().unwrap_or_else(PoisonError::into_inner);
    done.sort_unstable_by_key(|(index, _)| *index);
    Ok(done.into_iter().flat_map(|(_, results)| results).collect())
}

#[cfg(test)]
mod tests {
    #[test]
    fn streamed_items_come_back_in_the_order_produced_each_run_in_order_on_one_state() {
        let produced = super::map_streamed(
            4,
            || None,
            |last: &mut Option<u32>, i: u32| {
                let before = last.replace(i);
                (i, before)
            },
            |emit| {
                (0..1001).for_each(&mut *emit);
                Ok::<(), ()>(())
            },
        )
        .unwrap();
        assert_eq!(
            produced.iter().map(|(i, _)| *i).collect::<Vec<_>>(),
            (0..1001).collect::<Vec<_>>()
        );
        // Within a run of 4 the state saw the item before.
        for (i, before) in produced.iter().filter(|(i, _)| i % 4 != 0) {
            assert_eq!(*before, Some(i - 1), "item {i}");
        }
    }

    #[test]
    fn a_producer_error_comes_back_once_the_items_handed_over_are_done() {
        let done = std::sync::atomic::AtomicUsize::new(0);
        let result = super::map_streamed(
            3,
            || (),
            |(), _: u32| done.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
            |emit| {
                (0..10).for_each(&mut *emit);
                Err("walk failed")
            },
        );
        assert_eq!(result.unwrap_err(), "walk failed");
        assert_eq!(done.into_inner(), 10);
    }

    #[test]
    #[should_panic(expected = "item 7")]
    fn a_panic_in_a_streamed_worker_reaches_the_caller() {
        let _ = super::map_streamed(
            2,
            || (),
            |(), i: u32| assert_ne!(i, 7, "item 7"),
            |emit| {
                (0..100).for_each(&mut *emit);
                Ok::<(), ()>(())
            },
        );
    }

    #[test]
    fn states_are_made_at_most_once_per_run_and_reused() {
        let inits = std::sync::atomic::AtomicUsize::new(0);
        let seen = super::map_streamed(
            5,
            || inits.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
            |_, i: u32| i,
            |emit| {
                (0..1000).for_each(&mut *emit);
                Ok::<(), ()>(())
            },
        )
        .unwrap();
        assert_eq!(seen, (0..1000).collect::<Vec<_>>());
        let inits = inits.into_inner();
        assert!((1..=200).contains(&inits), "{inits} states");
    }
}
