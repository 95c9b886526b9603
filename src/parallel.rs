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
    #[should_panic(expected = "item 7")]
    fn a_panic_in_a_worker_reaches_the_caller() {
        let items: Vec<u32> = (0..100).collect();
        super::map(&items, |i| assert_ne!(*i, 7, "item 7"));
    }
}
