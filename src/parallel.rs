//! CPU-bound work over many independent items (parsing, judging and rendering thousands of
//! snapshots) spread over the machine's cores, results in the items' order.

use std::num::NonZero;

/// `f` of every item, in order, computed on up to as many threads as there are cores. A
/// panic in `f` is raised again here.
pub fn map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    map_with(items, || (), |(), item| f(item))
}

/// [`map`] with state of each thread's own: `init` runs once on every thread before its share
/// of the items, for what cannot be shared between threads (a git repository handle).
pub fn map_with<T: Sync, S, R: Send>(
    items: &[T],
    init: impl Fn() -> S + Sync,
    f: impl Fn(&mut S, &T) -> R + Sync,
) -> Vec<R> {
    let threads = std::thread::available_parallelism()
        .map_or(1, NonZero::get)
        .min(items.len());
    if threads <= 1 {
        let mut state = init();
        return items.iter().map(|item| f(&mut state, item)).collect();
    }
    let (init, f) = (&init, &f);
    std::thread::scope(|scope| {
        let workers: Vec<_> = items
            .chunks(items.len().div_ceil(threads))
            .map(|part| {
                scope.spawn(move || {
                    let mut state = init();
                    part.iter()
                        .map(|item| f(&mut state, item))
                        .collect::<Vec<R>>()
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|worker| {
                worker
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            })
            .collect()
    })
}

/// [`map_with`] over the items `produce` hands over one at a time on this thread, computed on
/// the other cores while it is still producing (a walk of a git history, which cannot leave
/// its thread): items go out in runs of `run` consecutive ones, so a thread's state still
/// sees neighbours in order, and this thread takes its share of what is left once `produce`
/// returns. Results are in the order produced; `produce`'s error comes back once the items
/// it had handed over are done. A panic in `f` is raised again here.
pub fn map_streamed<T: Send, S, R: Send, E>(
    run: usize,
    init: impl Fn() -> S + Sync,
    f: impl Fn(&mut S, T) -> R + Sync,
    produce: impl FnOnce(&mut dyn FnMut(T)) -> Result<(), E>,
) -> Result<Vec<R>, E> {
    let run = run.max(1);
    let helpers = std::thread::available_parallelism().map_or(1, NonZero::get) - 1;
    if helpers == 0 {
        let mut items = Vec::new();
        produce(&mut |item| items.push(item))?;
        let mut state = init();
        return Ok(items.into_iter().map(|item| f(&mut state, item)).collect());
    }
    let (sender, receiver) = std::sync::mpsc::channel::<(usize, Vec<T>)>();
    let receiver = std::sync::Mutex::new(receiver);
    let done = std::sync::Mutex::new(Vec::<(usize, Vec<R>)>::new());
    let work = || {
        let mut state = init();
        loop {
            // The guard goes with the statement: a thread holds the queue only while waiting.
            let next = receiver.lock().map(|queue| queue.recv());
            let Ok(Ok((index, items))) = next else {
                break;
            };
            let results = items.into_iter().map(|item| f(&mut state, item)).collect();
            if let Ok(mut done) = done.lock() {
                done.push((index, results));
            }
        }
    };
    let work = &work;
    let produced = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..helpers).map(|_| scope.spawn(work)).collect();
        let (mut pending, mut runs) = (Vec::with_capacity(run), 0);
        let mut send = |items: Vec<T>| {
            // The receiver lives until the scope ends, so a send cannot fail.
            let _ = sender.send((runs, items));
            runs += 1;
        };
        let produced = produce(&mut |item| {
            pending.push(item);
            if pending.len() == run {
                send(std::mem::replace(&mut pending, Vec::with_capacity(run)));
            }
        });
        if !pending.is_empty() {
            send(pending);
        }
        drop(sender);
        work();
        for worker in workers {
            worker
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        }
        produced
    });
    produced?;
    let mut done = done
        .into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    done.sort_unstable_by_key(|(index, _)| *index);
    Ok(done.into_iter().flat_map(|(_, results)| results).collect())
}

#[cfg(test)]
mod tests {
    #[test]
    fn keeps_the_order_of_the_items_whatever_the_number_of_threads() {
        let items: Vec<u32> = (0..1001).collect();
        assert_eq!(
            super::map(&items, |i| i * 2),
            items.iter().map(|i| i * 2).collect::<Vec<_>>()
        );
        assert!(super::map(&[] as &[u32], |i| *i).is_empty());
    }

    #[test]
    fn each_thread_starts_its_own_state_once() {
        let items: Vec<u32> = (0..1000).collect();
        let inits = std::sync::atomic::AtomicUsize::new(0);
        let seen = super::map_with(
            &items,
            || {
                inits.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                0u32
            },
            |count, i| {
                *count += 1;
                (*i, *count)
            },
        );
        let threads = inits.into_inner();
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        assert!((1..=cores).contains(&threads), "{threads} inits");
        assert_eq!(seen.iter().map(|(i, _)| *i).collect::<Vec<_>>(), items);
        // Each thread's count runs 1, 2, … over its share, so every share restarted at 1.
        assert_eq!(seen.iter().filter(|(_, n)| *n == 1).count(), threads);
    }

    #[test]
    fn streamed_items_come_back_in_the_order_produced_each_run_in_order_on_one_thread() {
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
        // Within a run of 4 a thread's state saw the item before.
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
    #[should_panic(expected = "item 7")]
    fn a_panic_in_a_worker_reaches_the_caller() {
        let items: Vec<u32> = (0..100).collect();
        super::map(&items, |i| assert_ne!(*i, 7, "item 7"));
    }
}
