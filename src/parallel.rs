//! CPU-bound work over many independent items (parsing, judging and rendering thousands of
//! snapshots) spread over the machine's cores, results in the items' order.

use std::num::NonZero;

/// `f` of every item, in order, computed on up to as many threads as there are cores. A
/// panic in `f` is raised again here.
pub fn map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let threads = std::thread::available_parallelism()
        .map_or(1, NonZero::get)
        .min(items.len());
    if threads <= 1 {
        return items.iter().map(f).collect();
    }
    let f = &f;
    std::thread::scope(|scope| {
        let workers: Vec<_> = items
            .chunks(items.len().div_ceil(threads))
            .map(|part| scope.spawn(move || part.iter().map(f).collect::<Vec<R>>()))
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
    #[should_panic(expected = "item 7")]
    fn a_panic_in_a_worker_reaches_the_caller() {
        let items: Vec<u32> = (0..100).collect();
        super::map(&items, |i| assert_ne!(*i, 7, "item 7"));
    }
}
