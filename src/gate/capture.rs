//! Captures a step's hosts concurrently on the caller's runtime, at most `concurrency` at a
//! time, handing each result to the caller as soon as it is there, so the run directory holds
//! every host that finished even when a later one hangs.

use std::time::{Duration, Instant};

use futures::stream::{FuturesUnordered, StreamExt as _};

use super::Progress;
use crate::collect::{self, CaptureOptions, Captured, SourceSpec};
use crate::snapshot::HostName;

/// One host to capture.
pub(super) struct Job {
    /// The host.
    pub host: HostName,
    /// Its sources.
    pub sources: Vec<SourceSpec>,
    /// Its capture settings (credentials, CA, time limits of its own).
    pub options: CaptureOptions,
}

/// Captures every job, at most `concurrency` at once, calling `done(index, capture, took)` as
/// each finishes. A job starts only while neither `options.cancel` of the jobs nor a failed
/// `done` says stop; `done`'s first error is returned once the running captures have ended.
pub(super) async fn capture_all<E>(
    jobs: Vec<Job>,
    concurrency: usize,
    progress: &dyn Progress,
    mut done: impl FnMut(usize, Captured, Duration) -> Result<(), E>,
) -> Result<(), E> {
    let concurrency = concurrency.max(1);
    let mut queue = jobs.into_iter().enumerate();
    let mut running = FuturesUnordered::new();
    let mut first_error = None;
    let mut stopped = false;
    loop {
        // Fill up to the bound, unless told to stop.
        while !stopped && first_error.is_none() && running.len() < concurrency {
            let Some((index, job)) = queue.next() else {
                break;
            };
            if job.options.cancel.is_cancelled() {
                stopped = true;
                break;
            }
            progress.started(&job.host);
            running.push(async move {
                let started = Instant::now();
                let Job {
                    host,
                    sources,
                    options,
                } = job;
                let captured = collect::capture_host(host, &sources, &options, progress).await;
                (index, captured, started.elapsed())
            });
        }
        let Some((index, captured, took)) = running.next().await else {
            break;
        };
        if first_error.is_some() {
            continue;
        }
        if let Err(e) = done(index, captured, took) {
            first_error = Some(e);
        }
    }
    first_error.map_or(Ok(()), Err)
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;

    /// Counts hosts started and not yet handed back.
    #[derive(Default)]
    struct Counting {
        running: AtomicUsize,
        most: AtomicUsize,
    }

    impl collect::Reporter for Counting {}

    impl Progress for Counting {
        fn started(&self, _host: &HostName) {
            let now = self.running.fetch_add(1, Ordering::SeqCst) + 1;
            self.most.fetch_max(now, Ordering::SeqCst);
        }
    }

    impl Counting {
        fn handed_back(&self) {
            self.running.fetch_sub(1, Ordering::SeqCst);
        }
    }

    fn jobs(n: usize, options: &CaptureOptions) -> Vec<Job> {
        (0..n)
            .map(|i| Job {
                host: HostName::new(format!("h{i}")).unwrap(),
                sources: Vec::new(),
                options: options.clone(),
            })
            .collect()
    }

    #[tokio::test]
    async fn at_most_concurrency_hosts_run_at_once_and_every_one_is_handed_back() {
        let progress = Counting::default();
        let mut seen = Vec::new();
        capture_all(
            jobs(7, &CaptureOptions::default()),
            2,
            &progress,
            |i, c, _| {
                progress.handed_back();
                seen.push((i, c.snapshot.host.to_string()));
                Ok::<(), ()>(())
            },
        )
        .await
        .unwrap();
        seen.sort();
        assert_eq!(seen.len(), 7);
        assert_eq!(seen[3], (3, "h3".to_owned()));
        assert_eq!(progress.most.load(Ordering::SeqCst), 2);
    }

    #[tokio::test]
    async fn after_a_cancel_or_a_failed_write_no_new_host_starts() {
        let progress = Counting::default();
        let options = CaptureOptions::default();
        let cancel = options.cancel.clone();
        let mut seen = 0;
        capture_all(jobs(5, &options), 1, &progress, |_, _, _| {
            seen += 1;
            cancel.cancel();
            Ok::<(), ()>(())
        })
        .await
        .unwrap();
        assert_eq!(seen, 1);
        let mut seen = 0;
        let result = capture_all(
            jobs(5, &CaptureOptions::default()),
            1,
            &progress,
            |_, _, _| {
                seen += 1;
                Err("disk full")
            },
        )
        .await;
        assert_eq!(result, Err("disk full"));
        assert_eq!(seen, 1);
    }
}
