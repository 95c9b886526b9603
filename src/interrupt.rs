//! SIGINT, SIGTERM and SIGHUP while a command works: the first one cancels the library's
//! work (which then starts no new request or command and deletes its Redfish sessions) and
//! stops the child processes it runs (ssh, local tools), so none outlives driftgate; the
//! command then exits 128 + the signal's number. A second signal exits at once.
//!
//! A signal that was ignored when driftgate started (`nohup`) stays ignored. The handlers
//! run as a task on the command's one runtime, which the CLI owns: the library never touches
//! signals.

use std::io;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use driftgate_collect::Cancel;
use rustix::process;
use tokio::signal::unix::{self, SignalKind};

use crate::output::Printer;

/// A signal that stops a command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Signal {
    /// SIGHUP: the terminal or session went away.
    Hangup,
    /// SIGINT: Ctrl-C.
    Interrupt,
    /// SIGTERM: a pipeline's timeout, `kill`, a container stop.
    Terminate,
}

impl Signal {
    const ALL: [Signal; 3] = [Signal::Hangup, Signal::Interrupt, Signal::Terminate];

    fn kind(self) -> SignalKind {
        match self {
            Signal::Hangup => SignalKind::hangup(),
            Signal::Interrupt => SignalKind::interrupt(),
            Signal::Terminate => SignalKind::terminate(),
        }
    }

    /// The conventional exit status of a process stopped by this signal: 128 + its number.
    pub(crate) fn exit_code(self) -> u8 {
        let number = u8::try_from(self.kind().as_raw_value()).expect("signal numbers are small");
        128 + number
    }
}

impl std::fmt::Display for Signal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Signal::Hangup => "SIGHUP",
            Signal::Interrupt => "SIGINT",
            Signal::Terminate => "SIGTERM",
        })
    }
}

/// Signal handlers installed for the life of this value (the process's default action, to
/// die on the spot, no longer applies once they are).
pub(crate) struct Interrupts {
    received: Arc<OnceLock<Signal>>,
    // The watcher; stopped when `self` is dropped.
    watcher: tokio::task::JoinHandle<()>,
}

impl Interrupts {
    /// Installs the handlers, watched on the runtime of `handle`: the first signal cancels
    /// `cancel`, a second exits at once.
    pub(crate) fn watch(
        handle: &tokio::runtime::Handle,
        cancel: Cancel,
        printer: Printer,
    ) -> io::Result<Self> {
        // Registered here, before any work starts, not later on a worker thread.
        let streams = {
            let _context = handle.enter();
            Signal::ALL
                .into_iter()
                .filter(|signal| !ignored(*signal))
                .map(|signal| Ok((signal, unix::signal(signal.kind())?)))
                .collect::<io::Result<Vec<_>>>()?
        };
        let received = Arc::new(OnceLock::new());
        let watcher = handle.spawn(watcher(streams, cancel, Arc::clone(&received), printer));
        Ok(Interrupts { received, watcher })
    }

    /// The first signal received, if any.
    pub(crate) fn received(&self) -> Option<Signal> {
        self.received.get().copied()
    }
}

impl Drop for Interrupts {
    fn drop(&mut self) {
        self.watcher.abort();
    }
}

/// Whether `signal` was ignored when driftgate started (`nohup`, a background job of a
/// script): whoever started it meant that signal not to reach it, so it stays ignored.
/// Read from the kernel's `SigIgn` mask in `/proc/self/status`: asking `sigaction` itself
/// takes `unsafe` (neither std, tokio nor rustix offer a safe query). Where there is no such
/// file, no signal is taken as ignored.
fn ignored(signal: Signal) -> bool {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| ignored_mask(&status))
        .is_some_and(|mask| in_mask(mask, signal.kind().as_raw_value()))
}

/// The `SigIgn:` mask of a `/proc/PID/status` text (hexadecimal, bit N-1 for signal N).
fn ignored_mask(status: &str) -> Option<u64> {
    let mask = status
        .lines()
        .find_map(|line| line.strip_prefix("SigIgn:"))?;
    u64::from_str_radix(mask.trim(), 16).ok()
}

/// Whether signal `number` is in `mask`.
fn in_mask(mask: u64, number: i32) -> bool {
    u32::try_from(number - 1)
        .ok()
        .and_then(|bit| mask.checked_shr(bit))
        .is_some_and(|shifted| shifted & 1 == 1)
}

/// The next of the signals to arrive (never, when all three are ignored).
async fn next(streams: &mut [(Signal, unix::Signal)]) -> Signal {
    if streams.is_empty() {
        return std::future::pending().await;
    }
    let waits = streams.iter_mut().map(|(signal, stream)| {
        Box::pin(async move {
            stream.recv().await;
            *signal
        })
    });
    futures::future::select_all(waits).await.0
}

async fn watcher(
    mut streams: Vec<(Signal, unix::Signal)>,
    cancel: Cancel,
    received: Arc<OnceLock<Signal>>,
    printer: Printer,
) {
    let first = next(&mut streams).await;
    let _ = received.set(first);
    cancel.cancel();
    // Until the command returns: a child started just as the signal came is stopped too, and
    // one that ignores SIGTERM gets SIGKILL after a grace period.
    let mut ticks = tokio::time::interval(Duration::from_millis(100));
    let mut elapsed = Duration::ZERO;
    loop {
        tokio::select! {
            second = next(&mut streams) => {
                stop_children(process::Signal::KILL);
                printer.error(&anyhow::anyhow!(
                    "{second} while stopping after {first}: exiting at once; a Redfish session may be left open on the BMC"
                ));
                std::process::exit(i32::from(second.exit_code()));
            }
            _ = ticks.tick() => {
                let force = elapsed >= Duration::from_secs(2);
                stop_children(if force { process::Signal::KILL } else { process::Signal::TERM });
                elapsed += Duration::from_millis(100);
            }
        }
    }
}

/// Sends `signal` to every child process of driftgate. The command transports wait for their
/// children and report them as stopped; without this, a child would keep running after
/// driftgate exits (a pipeline signals driftgate, not its children).
fn stop_children(signal: process::Signal) {
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return;
    };
    for task in tasks.flatten() {
        let Ok(children) = std::fs::read_to_string(task.path().join("children")) else {
            continue;
        };
        for pid in children
            .split_whitespace()
            .filter_map(|pid| pid.parse().ok().and_then(process::Pid::from_raw))
        {
            // The pid is a child of this process: until its transport reaps it, no other
            // process can have that pid. One already gone is no error to report.
            let _ = process::kill_process(pid, signal);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exit_codes_follow_the_shell_convention() {
        assert_eq!(Signal::Hangup.exit_code(), 129);
        assert_eq!(Signal::Interrupt.exit_code(), 130);
        assert_eq!(Signal::Terminate.exit_code(), 143);
    }

    #[test]
    fn the_ignored_mask_is_read_bit_by_bit() {
        // SIGHUP (1) and SIGPIPE (13) ignored, as under `nohup` with a closed pipe ignored.
        let status = "Name:\tdriftgate\nSigBlk:\t0000000000000000\nSigIgn:\t0000000000001001\n";
        let mask = ignored_mask(status).unwrap();
        assert!(in_mask(mask, 1) && in_mask(mask, 13));
        assert!(!in_mask(mask, 2) && !in_mask(mask, 15));
        assert!(!in_mask(mask, 0) && !in_mask(mask, 99));
        assert_eq!(ignored_mask("Name:\tx\n"), None);
    }
}
