//! One `fix apply` of a run at a time: an advisory lock (`flock(2)`, through std's
//! `File::try_lock`) on `fix/apply.lock` in the run directory, taken before the BMCs are read
//! (a second apply would plan from what the first is about to change) and held to the end.
//! The kernel releases it when its holder exits, however it exits, so a killed apply never
//! blocks the next one. Its holder says who it is in `fix/apply.holder.json` (pid, machine,
//! since when, ticket, record), which it removes before the lock is released: one found by
//! the next holder was left by an apply that was killed or whose machine stopped, and is said.

use std::fs::{File, TryLockError};
use std::io;
use std::path::Path;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use driftgate_collect::Cancel;
use driftgate_fs::{Folder, WriteOptions};

use crate::GateError;
use crate::run::{RunDir, RunId};

/// The file locked.
const LOCK: &str = "apply.lock";
/// Who holds the lock.
const HOLDER: &str = "apply.holder.json";
/// How often a waiting apply tries the lock again.
const POLL: Duration = Duration::from_millis(100);
/// How long a holder that has just taken the lock has to say who it is.
const SAY_WHO: Duration = Duration::from_secs(2);

/// Who holds (or held) a run's apply lock.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Holder {
    /// Its process.
    pub pid: u32,
    /// The machine it runs on.
    pub machine: String,
    /// When it took the lock.
    pub since: jiff::Timestamp,
    /// Its change ticket.
    pub ticket: String,
    /// Its record, once it started one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub record: Option<String>,
}

impl std::fmt::Display for Holder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "pid {} on {} since {}, ticket {}",
            self.pid,
            self.machine,
            self.since.strftime("%Y-%m-%dT%H:%M:%SZ"),
            self.ticket
        )?;
        match &self.record {
            Some(record) => write!(f, ", record {record}"),
            None => Ok(()),
        }
    }
}

/// What taking the lock met, for the caller to say.
#[derive(Debug, Clone, Copy)]
pub enum LockEvent<'a> {
    /// Another apply holds it (who, when it said); `--wait` waits for it.
    Waiting(Option<&'a Holder>),
    /// The holder before this one ended without releasing it: killed, or its machine stopped.
    Stale(&'a Holder),
}

/// A run's apply lock, held until dropped.
pub(crate) struct ApplyLock {
    _file: File,
    fix: Folder,
    holder: Holder,
}

impl Drop for ApplyLock {
    /// The holder file goes before the lock is released (the file closes after this), so one
    /// found under the lock was left by a holder that never got here.
    fn drop(&mut self) {
        let _ = self.fix.remove_file(HOLDER);
    }
}

impl ApplyLock {
    /// Names the record this holder writes, in its holder file.
    pub(crate) fn set_record(&mut self, record: &Path) -> Result<(), GateError> {
        self.holder.record = Some(record.display().to_string());
        write_holder(&self.fix, &self.holder)
    }
}

/// This machine's name, for a holder on a shared run directory.
pub(crate) fn machine() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|name| name.trim().to_owned())
        .ok()
        .filter(|name| !name.is_empty())
        .unwrap_or_else(|| "an unnamed machine".to_owned())
}

/// Takes the apply lock of `run` for `ticket`: at once, or with `wait` once its holder is
/// done. `None` when `cancel` stopped the wait.
pub(crate) async fn take(
    run: &RunDir,
    id: &RunId,
    ticket: &str,
    wait: bool,
    cancel: &Cancel,
    events: &mut dyn FnMut(LockEvent<'_>),
) -> Result<Option<ApplyLock>, GateError> {
    take_in(run.fix_folder()?, id, ticket, wait, cancel, events).await
}

/// [`take`] of the lock in the run's folder `fix`.
async fn take_in(
    fix: Folder,
    id: &RunId,
    ticket: &str,
    wait: bool,
    cancel: &Cancel,
    events: &mut dyn FnMut(LockEvent<'_>),
) -> Result<Option<ApplyLock>, GateError> {
    let mut said: Option<Option<Holder>> = None;
    loop {
        if cancel.is_cancelled() {
            return Ok(None);
        }
        let file = fix
            .lock_file(LOCK)
            .map_err(|error| io_error(&fix, LOCK, error))?;
        match file.try_lock() {
            Ok(()) => {
                let stale = read_holder(&fix);
                if let Some(stale) = &stale {
                    events(LockEvent::Stale(stale));
                }
                let holder = Holder {
                    pid: std::process::id(),
                    machine: machine(),
                    since: jiff::Timestamp::now(),
                    ticket: ticket.to_owned(),
                    record: None,
                };
                write_holder(&fix, &holder)?;
                return Ok(Some(ApplyLock {
                    _file: file,
                    fix,
                    holder,
                }));
            }
            Err(TryLockError::WouldBlock) => {
                let holder = holder_at_work(&fix).await;
                if !wait {
                    return Err(GateError::ApplyLocked {
                        run: id.clone(),
                        holder: holder.map_or_else(
                            || "its holder has not said who it is yet".to_owned(),
                            |h| h.to_string(),
                        ),
                    });
                }
                if said.as_ref() != Some(&holder) {
                    events(LockEvent::Waiting(holder.as_ref()));
                    said = Some(holder);
                }
                tokio::select! {
                    () = cancel.cancelled() => {}
                    () = tokio::time::sleep(POLL) => {}
                }
            }
            Err(TryLockError::Error(error)) => return Err(io_error(&fix, LOCK, error)),
        }
    }
}

/// Who holds the lock, as its holder file says once it is written (a holder that has just
/// taken the lock is given a moment to write it, over the file a killed one left).
async fn holder_at_work(fix: &Folder) -> Option<Holder> {
    let mut holder = read_holder(fix);
    for _ in 0..SAY_WHO.as_millis() / POLL.as_millis() {
        if holder.as_ref().is_some_and(alive) {
            break;
        }
        tokio::time::sleep(POLL).await;
        holder = read_holder(fix);
    }
    holder
}

/// Whether `holder` may still be at work: it runs on another machine, or its process is.
fn alive(holder: &Holder) -> bool {
    holder.machine != machine() || Path::new("/proc").join(holder.pid.to_string()).exists()
}

/// The holder file's holder; none when there is none or it does not read as one.
fn read_holder(fix: &Folder) -> Option<Holder> {
    let bytes = fix.read(HOLDER).ok()??;
    serde_json::from_slice(&bytes).ok()
}

fn write_holder(fix: &Folder, holder: &Holder) -> Result<(), GateError> {
    let mut text = serde_json::to_vec_pretty(holder)
        .map_err(io::Error::from)
        .map_err(|e| io_error(fix, HOLDER, e))?;
    text.push(b'\n');
    fix.write_atomic(HOLDER, &text, WriteOptions::PRIVATE)
        .map_err(|error| io_error(fix, HOLDER, error))
}

fn io_error(fix: &Folder, name: &str, error: io::Error) -> GateError {
    crate::run::io_error(&fix.path().join(name), error)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn folder(dir: &tempfile::TempDir) -> Folder {
        Folder::create_at(dir.path()).unwrap()
    }

    async fn take_now(
        fix: Folder,
        wait: bool,
        cancel: &Cancel,
    ) -> (Result<Option<ApplyLock>, GateError>, Vec<String>) {
        let mut events = Vec::new();
        let id = RunId::new("CHG-1").unwrap();
        let taken = take_in(fix, &id, "CHG-1", wait, cancel, &mut |event| {
            events.push(match event {
                LockEvent::Waiting(holder) => format!("waiting {holder:?}"),
                LockEvent::Stale(holder) => format!("stale {}", holder.pid),
            });
        })
        .await;
        (taken, events)
    }

    #[tokio::test]
    async fn a_second_holder_is_refused_naming_the_first_and_the_lock_is_free_once_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let cancel = Cancel::new();
        let (first, events) = take_now(folder(&dir), false, &cancel).await;
        let mut first = first.unwrap().unwrap();
        assert!(events.is_empty(), "{events:?}");
        first.set_record(Path::new("fix/apply-1.json")).unwrap();
        let (second, _) = take_now(folder(&dir), false, &cancel).await;
        let refused = second.err().unwrap().to_string();
        let me = format!("pid {} on {}", std::process::id(), machine());
        assert!(refused.contains(&me), "{refused}");
        assert!(
            refused.contains("ticket CHG-1, record fix/apply-1.json"),
            "{refused}"
        );
        drop(first);
        assert!(
            !dir.path().join(HOLDER).exists(),
            "the holder file goes with the lock"
        );
        let (third, events) = take_now(folder(&dir), false, &cancel).await;
        assert!(third.unwrap().is_some());
        assert!(
            events.is_empty(),
            "a released lock is not stale: {events:?}"
        );
    }

    #[tokio::test]
    async fn a_holder_file_found_under_the_lock_is_a_killed_holder_and_said() {
        let dir = tempfile::tempdir().unwrap();
        let killed = Holder {
            pid: 4_000_000,
            machine: machine(),
            since: jiff::Timestamp::UNIX_EPOCH,
            ticket: "CHG-0".to_owned(),
            record: Some("fix/apply-1.json".to_owned()),
        };
        write_holder(&folder(&dir), &killed).unwrap();
        let (taken, events) = take_now(folder(&dir), false, &Cancel::new()).await;
        assert!(taken.unwrap().is_some());
        assert_eq!(events, ["stale 4000000"]);
    }

    #[tokio::test]
    async fn a_wait_stops_when_cancelled() {
        let dir = tempfile::tempdir().unwrap();
        let cancel = Cancel::new();
        let (held, _) = take_now(folder(&dir), false, &cancel).await;
        let _held = held.unwrap().unwrap();
        let stopper = cancel.clone();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(300)).await;
            stopper.cancel();
        });
        let (waited, events) = take_now(folder(&dir), true, &cancel).await;
        assert!(waited.unwrap().is_none());
        assert_eq!(events.len(), 1, "said once whom it waits for: {events:?}");
        assert!(events[0].contains("CHG-1"), "{events:?}");
    }
}
