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
}
