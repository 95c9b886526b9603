//! Captures a step's hosts concurrently, at most `concurrency` at a time, handing each result
//! to the caller (on the calling thread) as soon as it is there, so the run directory holds
//! every host that finished even when a later one hangs.

use std::collections::VecDeque;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

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

/// Captures every job, at most `concurrency` at once, calling `done(index, capture, took)` on
/// this thread as each finishes. A job starts only while neither `options.cancel` of the jobs
/// nor a failed `done` says stop; `done`'s first error is returned once the running captures
/// have ended.
pub(super) fn capture_all<E>(
    jobs: Vec<Job>,
    concurrency: usize,
    progress: &dyn Progress,
    mut done: impl FnMut(usize, Captured, Duration) -> Result<(), E>,
) -> Result<(), E> {
    let workers = concurrency.clamp(1, jobs.len().max(1));
    let queue = Mutex::new(jobs.into_iter().enumerate().collect::<VecDeque<_>>());
    let stop = AtomicBool::new(false);
    let (sender, results) = mpsc::channel();
    std::thread::scope(|scope| {
        for _ in 0..workers {
            let sender = sender.clone();
            let (queue, stop) = (&queue, &stop);
            scope.spawn(move || {
                loop {
                    let next = queue
                        .lock()
                        .expect("no worker panics holding it")
                        .pop_front();
                    let Some((index, job)) = next else { break };
                    if stop.load(Ordering::SeqCst) || job.options.cancel.is_cancelled() {
                        break;
                    }
                    progress.started(&job.host);
                    let started = Instant::now();
                    let captured =
                        collect::capture_host_blocking(job.host, &job.sources, &job.options);
                    if sender.send((index, captured, started.elapsed())).is_err() {
                        break;
                    }
                }
            });
        }
        drop(sender);
        let mut first_error = None;
        for (index, captured, took) in results {
            if first_error.is_some() {
                continue;
            }
            if let Err(e) = done(index, captured, took) {
                stop.store(true, Ordering::SeqCst);
                first_error = Some(e);
            }
        }
        first_error.map_or(Ok(()), Err)
    })
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicUsize;

    use super::*;

    struct Counting {
        running: AtomicUsize,
        most: AtomicUsize,
    }

    impl Progress for Counting {
        fn started(&self, _host: &HostName) {
            let now = self.running.fetch_add(1, Ordering::SeqCst) + 1;
            self.most.fetch_max(now, Ordering::SeqCst);
            std::thread::sleep(Duration::from_millis(30));
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

    #[test]
    fn at_most_concurrency_hosts_run_at_once_and_every_one_is_handed_back() {
        let progress = Counting {
            running: AtomicUsize::new(0),
            most: AtomicUsize::new(0),
        };
        let mut seen = Vec::new();
        capture_all(
            jobs(7, &CaptureOptions::default()),
            2,
            &progress,
            |i, c, _| {
                seen.push((i, c.snapshot.host.to_string()));
                Ok::<(), ()>(())
            },
        )
        .unwrap();
        seen.sort();
        assert_eq!(seen.len(), 7);
        assert_eq!(seen[3], (3, "h3".to_owned()));
        assert!(progress.most.load(Ordering::SeqCst) <= 2);
    }

    #[test]
    fn after_a_cancel_or_a_failed_write_no_new_host_starts() {
        let progress = Counting {
            running: AtomicUsize::new(0),
            most: AtomicUsize::new(0),
        };
        let options = CaptureOptions::default();
        let cancel = options.cancel.clone();
        let mut seen = 0;
        capture_all(jobs(5, &options), 1, &progress, |_, _, _| {
            seen += 1;
            cancel.cancel();
            Ok::<(), ()>(())
        })
        .unwrap();
        // The worker may have taken the next host before the cancel: never more.
        assert!(seen <= 2, "{seen}");
        let mut seen = 0;
        let result = capture_all(
            jobs(5, &CaptureOptions::default()),
            1,
            &progress,
            |_, _, _| {
                seen += 1;
                Err("disk full")
            },
        );
        assert_eq!(result, Err("disk full"));
        assert!(seen <= 2, "{seen}");
    }
}
