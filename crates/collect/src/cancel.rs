//! Stopping a capture from outside. The caller (the CLI, on SIGINT, SIGTERM or SIGHUP)
//! cancels; the capture then starts no new request or command, deletes the Redfish sessions
//! it opened and returns a snapshot whose unfinished sources say they were interrupted.
//! The library never installs signal handlers or prints: the caller owns both.

use std::sync::Arc;

use tokio::sync::watch;

/// A cancellation shared by the caller and a capture; clones share one state.
#[derive(Debug, Clone)]
pub struct Cancel {
    // A watch keeps the state (late waiters see it at once) and wakes waiters on any runtime.
    state: Arc<watch::Sender<bool>>,
}

impl Default for Cancel {
    fn default() -> Self {
        Cancel {
            state: Arc::new(watch::Sender::new(false)),
        }
    }
}

impl Cancel {
    /// A cancellation not yet requested.
    pub fn new() -> Self {
        Self::default()
    }

    /// Requests the stop. Idempotent; callable from any thread.
    pub fn cancel(&self) {
        self.state.send_replace(true);
    }

    /// Whether the stop was requested.
    pub fn is_cancelled(&self) -> bool {
        *self.state.borrow()
    }

    /// Completes once the stop is requested (at once if it already was).
    pub async fn cancelled(&self) {
        let mut receiver = self.state.subscribe();
        // The sender lives in `self`, so the channel cannot close while this waits.
        let _ = receiver.wait_for(|&stop| stop).await;
    }
}

/// The error of work that a cancellation stopped, for source records.
pub const INTERRUPTED: &str = "the capture was interrupted before this source finished";

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn waiters_wake_on_cancel_and_late_waiters_return_at_once() {
        let cancel = Cancel::new();
        assert!(!cancel.is_cancelled());
        let waiter = {
            let cancel = cancel.clone();
            tokio::spawn(async move { cancel.cancelled().await })
        };
        tokio::task::yield_now().await;
        assert!(!waiter.is_finished());
        std::thread::spawn({
            let cancel = cancel.clone();
            move || cancel.cancel()
        })
        .join()
        .unwrap();
        tokio::time::timeout(std::time::Duration::from_secs(5), waiter)
            .await
            .expect("the waiter wakes")
            .unwrap();
        assert!(cancel.is_cancelled());
        cancel.cancelled().await;
    }

    #[tokio::test]
    async fn a_cancelled_capture_starts_nothing_and_is_never_complete() {
        use crate::{CaptureOptions, NoReporter, SourceSpec, capture_host};
        use driftgate_snapshot::{HostName, SourceStatus};
        let examples = concat!(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."), "/examples");
        let sources = [
            format!("redfish=mockup:{examples}/azure-local-dcbx/recorded/baseline/bmc"),
            format!("esxi=dir:{examples}/esxi-mscs-psp/recorded/round-robin"),
            "linux=local:".to_owned(),
        ]
        .map(|s| SourceSpec::parse(&s).unwrap());
        let intact = capture_host(
            HostName::new("h").unwrap(),
            &sources[..2],
            &CaptureOptions::default(),
            &NoReporter,
        )
        .await;
        assert!(
            intact.snapshot.is_complete(),
            "{:?}",
            intact.snapshot.sources
        );
        let cancel = Cancel::new();
        cancel.cancel();
        let options = CaptureOptions {
            cancel,
            ..CaptureOptions::default()
        };
        let captured =
            capture_host(HostName::new("h").unwrap(), &sources, &options, &NoReporter).await;
        assert!(!captured.snapshot.is_complete());
        assert!(captured.snapshot.facts.is_empty());
        for record in &captured.snapshot.sources {
            assert_eq!(record.status, SourceStatus::Failed, "{}", record.name);
            assert_eq!(
                record.error.as_deref(),
                Some(INTERRUPTED),
                "{}",
                record.name
            );
        }
    }
}
