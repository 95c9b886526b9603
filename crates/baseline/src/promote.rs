//! `baseline promote`: verified snapshots become the baselines of their hosts in one commit,
//! refused (unless forced with a reason) when a source is incomplete or a blocking rule
//! fails, and described host by host in the commit message.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::Duration;

use rayon::prelude::*;

use super::summary::{ChangeSummary, summarize};
use driftgate_compare::{JudgeOptions, Policy, Severity, Verdict};
use driftgate_snapshot::file_names::{self, BadName, FLEET_FOLDER, HOST_JSON, NameKind};
use driftgate_snapshot::{HostName, VerifiedSnapshot};
use driftgate_store::{BASELINES_DIR, BaselineFile, Committed, FileWrite, Store, StoreError};

/// What to promote: one commit for every snapshot, whatever fleet each goes into.
#[derive(Debug)]
pub struct PromoteRequest {
    /// The snapshots, already read and verified, each with its fleet folder.
    pub snapshots: Vec<FleetSnapshot>,
    /// Operator's message, added to the commit.
    pub message: Option<String>,
    /// Promote partial or blocking snapshots anyway, for this reason (recorded in the commit).
    pub force_reason: Option<String>,
    /// How long to wait for another promote's lock.
    pub lock_wait: Duration,
}

/// A snapshot and the fleet folder its baseline goes into (`baselines/<fleet>/`).
#[derive(Debug)]
pub struct FleetSnapshot {
    /// The fleet.
    pub fleet: String,
    /// The snapshot.
    pub snapshot: VerifiedSnapshot,
    /// Digests of the baselines this snapshot may replace, checked under the store's lock:
    /// another one there means someone promoted since the caller judged (a gate's pre), and
    /// the promote is refused. Empty: no check (`baseline promote`).
    pub replaces: Vec<String>,
}

impl PromoteRequest {
    /// Every snapshot into one fleet (`baseline promote --fleet`), no message, no force.
    pub fn one_fleet(fleet: &str, snapshots: Vec<VerifiedSnapshot>, lock_wait: Duration) -> Self {
        PromoteRequest {
            snapshots: snapshots
                .into_iter()
                .map(|snapshot| FleetSnapshot {
                    replaces: Vec::new(),
                    fleet: fleet.to_owned(),
                    snapshot,
                })
                .collect(),
            message: None,
            force_reason: None,
            lock_wait,
        }
    }

    /// The fleets, each once, in request order.
    fn fleets(&self) -> Vec<&str> {
        let mut fleets: Vec<&str> = Vec::new();
        for s in &self.snapshots {
            if !fleets.contains(&s.fleet.as_str()) {
                fleets.push(&s.fleet);
            }
        }
        fleets
    }
}

/// Why a snapshot may not become a baseline.
#[derive(Debug, Clone, PartialEq)]
pub struct Refusal {
    /// The host.
    pub host: HostName,
    /// Where the snapshot came from.
    pub origin: String,
    /// `Incomplete` (a source is not complete) or `Block` (blocking invariant or expectation).
    pub verdict: Verdict,
    /// One line per reason, with the finding's message.
    pub reasons: Vec<String>,
    /// One short line per reason (id and path), for the commit message.
    pub short_reasons: Vec<String>,
}

/// What happened to one host's baseline.
#[derive(Debug, Clone, PartialEq)]
pub struct HostResult {
    /// The host.
    pub host: HostName,
    /// Its fleet.
    pub fleet: String,
    /// Its file in the store.
    pub path: String,
    /// Changes against the previous baseline; `None` when the facts are identical (no write).
    pub change: Option<ChangeSummary>,
}

/// The result of a promote.
#[derive(Debug)]
pub enum PromoteOutcome {
    /// Some snapshots may not be promoted without `--force --reason`; nothing was written.
    Refused(Vec<Refusal>),
    /// Every host's baseline is up to date; `commit` is `None` when nothing changed.
    Promoted {
        /// Per host, what changed.
        hosts: Vec<HostResult>,
        /// The commit, when one was made.
        commit: Option<Committed>,
        /// Git lock files an interrupted promote had left, removed before committing.
        removed_git_locks: Vec<PathBuf>,
    },
}

/// Why a promote could not run.
#[derive(Debug, thiserror::Error)]
pub enum PromoteError {
    /// The fleet name cannot be a folder name: its spelling, or its length.
    #[error(transparent)]
    BadFleet(BadName),
    /// The same host twice in one promote.
    #[error("host {host} is given twice ({first} and {second})")]
    DuplicateHost {
        /// The host.
        host: HostName,
        /// First snapshot of it.
        first: String,
        /// Second snapshot of it.
        second: String,
    },
    /// The host's baseline is not one the caller judged against: another promote since.
    #[error(
        "the baseline of {host} is now {found}, not one this promote was judged against ({expected}): another promote since; nothing was committed"
    )]
    Moved {
        /// The host.
        host: HostName,
        /// What is there now (`none` without one).
        found: String,
        /// What the caller expected.
        expected: String,
    },
    /// The host already has a baseline in another fleet.
    #[error(
        "host {host} already has its baseline at {existing}; a host lives in one fleet (move it with git first)"
    )]
    OtherFleet {
        /// The host.
        host: HostName,
        /// Its current baseline file.
        existing: String,
    },
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Promotes the request's snapshots into `store` in one commit, judged under `policy`.
pub fn promote(
    store: &Store,
    policy: &Policy,
    request: PromoteRequest,
) -> Result<PromoteOutcome, PromoteError> {
    check_names(&request)?;
    // Judging, rendering and summarizing are per snapshot and spread over the cores; the
    // store, which is not `Sync`, is used between those steps on this thread only.
    let refusals: Vec<Refusal> = request
        .snapshots
        .par_iter()
        .filter_map(|s| refusal(&s.snapshot, policy))
        .collect();
    if !refusals.is_empty() && request.force_reason.is_none() {
        return Ok(PromoteOutcome::Refused(refusals));
    }
    let lock = store.lock(request.lock_wait)?;
    let existing_files = existing_files(store, &request)?;
    let (rendered, found) = render(&request, existing_files);
    let judged = judge_previous(store, &request, found, policy)?;
    let (hosts, writes) = hosts_and_writes(&request, rendered, judged)?;
    // A whole snapshot at a baseline path is what an interrupted promote leaves; a hand edit
    // breaks the digest and is refused.
    let leftover = |bytes: &[u8]| {
        std::str::from_utf8(bytes)
            .is_ok_and(|text| VerifiedSnapshot::parse(text, "work tree").is_ok())
    };
    if writes.is_empty() {
        let paths: Vec<String> = hosts.iter().map(|h| h.path.clone()).collect();
        store.tidy(&lock, &paths, &leftover)?;
        return Ok(PromoteOutcome::Promoted {
            hosts,
            commit: None,
            removed_git_locks: lock.removed_git_locks().to_vec(),
        });
    }
    let message = commit_message(&request, &hosts, &refusals, policy);
    // Freeing the parsed snapshots of a fleet-wide promote took 6 % of its time: it is done
    // on a thread of its own while the commit is written.
    let freed = std::thread::spawn(move || drop(request));
    let commit = store.commit(&lock, &writes, &message, &leftover)?;
    let _ = freed.join();
    Ok(PromoteOutcome::Promoted {
        hosts,
        commit: Some(commit),
        removed_git_locks: lock.removed_git_locks().to_vec(),
    })
}

/// Every fleet name is one a folder may have, and no host is given twice.
fn check_names(request: &PromoteRequest) -> Result<(), PromoteError> {
    for fleet in request.fleets() {
        file_names::check(NameKind::Fleet, fleet).map_err(PromoteError::BadFleet)?;
    }
    let mut seen: HashMap<&HostName, &VerifiedSnapshot> = HashMap::new();
    for FleetSnapshot { snapshot, .. } in &request.snapshots {
        if let Some(first) = seen.insert(&snapshot.snapshot().host, snapshot) {
            return Err(PromoteError::DuplicateHost {
                host: snapshot.snapshot().host.clone(),
                first: first.origin().to_owned(),
                second: snapshot.origin().to_owned(),
            });
        }
    }
    Ok(())
}

/// Each snapshot's baseline path, and the file HEAD holds for its host (refused when it is in
/// another fleet's folder).
fn existing_files(
    store: &Store,
    request: &PromoteRequest,
) -> Result<Vec<(String, Option<BaselineFile>)>, PromoteError> {
    // HEAD's fleet folders are loaded once; each host is then one lookup by name in them.
    let fleets = if store.has_commits() {
        Some(store.fleets("HEAD")?)
    } else {
        None
    };
    let mut existing_files = Vec::with_capacity(request.snapshots.len());
    for FleetSnapshot {
        fleet, snapshot, ..
    } in &request.snapshots
    {
        let host = &snapshot.snapshot().host;
        let path = format!(
            "{BASELINES_DIR}/{}/{}",
            FLEET_FOLDER.of(fleet),
            HOST_JSON.of(host.as_str())
        );
        let existing = match &fleets {
            Some(fleets) => fleets.host_file(host.as_str())?,
            None => None,
        };
        if let Some(existing) = existing.as_ref().filter(|e| e.path != path) {
            return Err(PromoteError::OtherFleet {
                host: host.clone(),
                existing: existing.path.clone(),
            });
        }
        existing_files.push((path, existing));
    }
    Ok(existing_files)
}

/// Each snapshot's text to write, and what HEAD holds at its path: the same bytes, other
/// bytes to read, or nothing.
fn render(
    request: &PromoteRequest,
    existing_files: Vec<(String, Option<BaselineFile>)>,
) -> (Vec<FileWrite>, Vec<(String, Previous<BaselineFile>)>) {
    // The text of a host with a baseline is hashed here, once: the same bytes as the
    // committed blob mean that baseline is not read again, and the commit names the blob by
    // the same id.
    let rendered: Vec<FileWrite> = request
        .snapshots
        .par_iter()
        .zip(&existing_files)
        .map(|(s, (path, existing))| {
            let text = s.snapshot.to_canonical_json().into_bytes();
            match existing {
                Some(_) => FileWrite::hashed(path.as_str(), text),
                None => FileWrite::new(path.as_str(), text),
            }
        })
        .collect();
    let found = existing_files
        .into_iter()
        .zip(&rendered)
        .map(|((path, existing), text)| {
            let same = existing
                .as_ref()
                .is_some_and(|file| text.blob_id() == file.blob);
            let previous = match existing {
                Some(_) if same => Previous::Same,
                Some(file) => Previous::Bytes(file),
                None => Previous::None,
            };
            (path, previous)
        })
        .collect();
    (rendered, found)
}

/// Each snapshot judged against its previous baseline: the previous digest and the change.
/// The previous baselines are read, parsed and summarized a run of hosts at a time: all of a
/// fleet's at once would hold every one's bytes (2.4 GB for 10,000 hosts).
fn judge_previous(
    store: &Store,
    request: &PromoteRequest,
    found: Vec<(String, Previous<BaselineFile>)>,
    policy: &Policy,
) -> Result<Vec<(String, Judged)>, PromoteError> {
    let mut judged = Vec::with_capacity(found.len());
    let mut found = found.into_iter();
    for snapshots in request.snapshots.chunks(JUDGED_AT_ONCE) {
        let found: Vec<_> = found.by_ref().take(snapshots.len()).collect();
        let to_read: Vec<&BaselineFile> = found
            .iter()
            .filter_map(|(_, previous)| match previous {
                Previous::Bytes(file) => Some(file),
                _ => None,
            })
            .collect();
        let mut read = store.read_files(&to_read)?.into_iter();
        let previous_bytes: Vec<_> = found
            .iter()
            .map(|(path, previous)| {
                let previous = match previous {
                    Previous::Bytes(file) => Previous::Bytes((
                        read.next().expect("one content per file read"),
                        &file.path,
                    )),
                    Previous::Same => Previous::Same,
                    Previous::None => Previous::None,
                };
                (path, previous)
            })
            .collect();
        let pairs: Vec<_> = snapshots.iter().zip(previous_bytes).collect();
        judged.par_extend(pairs.par_iter().map(
            |(FleetSnapshot { snapshot, .. }, (path, previous))| {
                ((*path).clone(), judge_one(snapshot, previous, policy))
            },
        ));
    }
    Ok(judged)
}

/// `snapshot` against what HEAD holds at its path (the bytes read, and their path).
fn judge_one(
    snapshot: &VerifiedSnapshot,
    previous: &Previous<(Vec<u8>, &String)>,
    policy: &Policy,
) -> Judged {
    let previous = match previous {
        Previous::Same => return Judged::Same,
        Previous::None => None,
        // A previous baseline that no longer verifies is replaced, not trusted: it counts as
        // absent.
        Previous::Bytes((bytes, at)) => {
            VerifiedSnapshot::parse_bytes(bytes, &format!("git:HEAD:{at}")).ok()
        }
    };
    let found = previous.as_ref().map_or("none", |p| p.digest()).to_owned();
    let unchanged = previous.as_ref().is_some_and(|p| {
        p.snapshot().facts == snapshot.snapshot().facts
            && p.snapshot().sources == snapshot.snapshot().sources
    });
    let change = (!unchanged).then(|| summarize(previous.as_ref(), snapshot, policy));
    Judged::Read { found, change }
}

/// Each host's result, and the files to write: those of hosts that changed. A host whose
/// baseline is not one the caller expected it to replace (it moved) stops the promote.
fn hosts_and_writes(
    request: &PromoteRequest,
    rendered: Vec<FileWrite>,
    judged: Vec<(String, Judged)>,
) -> Result<(Vec<HostResult>, Vec<FileWrite>), PromoteError> {
    let mut hosts = Vec::new();
    let mut writes = Vec::new();
    for ((request_snapshot, write), (path, judged)) in
        request.snapshots.iter().zip(rendered).zip(judged)
    {
        let FleetSnapshot {
            fleet,
            snapshot,
            replaces,
        } = request_snapshot;
        let host = &snapshot.snapshot().host;
        let (found, change) = match judged {
            Judged::Same => (snapshot.digest().to_owned(), None),
            Judged::Read { found, change } => (found, change),
        };
        if !replaces.is_empty() && !replaces.contains(&found) {
            return Err(PromoteError::Moved {
                host: host.clone(),
                found,
                expected: replaces.join(", "),
            });
        }
        if change.is_some() {
            writes.push(write);
        }
        hosts.push(HostResult {
            host: host.clone(),
            fleet: fleet.clone(),
            path,
            change,
        });
    }
    Ok((hosts, writes))
}

/// How many hosts' previous baselines a promote holds in memory at once: enough for every
/// core to have many, few enough that their bytes stay a few MB.
const JUDGED_AT_ONCE: usize = 256;

/// What HEAD holds at a host's baseline path.
enum Previous<B> {
    /// Nothing.
    None,
    /// The bytes the promote would write.
    Same,
    /// Other bytes: the file to read, then its content and path.
    Bytes(B),
}

/// A host's snapshot compared with what HEAD holds.
enum Judged {
    /// The same bytes: nothing to write or summarize.
    Same,
    /// The previous baseline (`found`: its digest, or `none`) and the change, if any.
    Read {
        found: String,
        change: Option<ChangeSummary>,
    },
}

/// Why `snapshot` may not become a baseline under `policy`, if it may not.
pub(super) fn refusal(snapshot: &VerifiedSnapshot, policy: &Policy) -> Option<Refusal> {
    let report = driftgate_compare::judge(snapshot, None, policy, &JudgeOptions::default());
    let mut reasons = Vec::new();
    let mut short_reasons = Vec::new();
    for source in &report.incomplete_sources {
        let error = source
            .error
            .as_deref()
            .map(|e| format!(": {e}"))
            .unwrap_or_default();
        let line = format!(
            "source {} ({}) is {}",
            source.name,
            source.target,
            source.status.as_str()
        );
        reasons.push(format!("{line}{error}"));
        short_reasons.push(line);
    }
    for finding in report.findings_at(Severity::Block) {
        reasons.push(format!(
            "[{}] {}: {}",
            finding.id, finding.path, finding.message
        ));
        short_reasons.push(format!("[{}] {}", finding.id, finding.path));
    }
    let verdict = report.verdict;
    (!reasons.is_empty()).then(|| Refusal {
        host: snapshot.snapshot().host.clone(),
        origin: snapshot.origin().to_owned(),
        verdict: if verdict == Verdict::Incomplete {
            Verdict::Incomplete
        } else {
            Verdict::Block
        },
        reasons,
        short_reasons,
    })
}

/// The commit message of a promote: a subject naming the host (or the count) and fleets,
/// then per written host its snapshot, its change and what a force overrode.
fn commit_message(
    request: &PromoteRequest,
    hosts: &[HostResult],
    refusals: &[Refusal],
    policy: &Policy,
) -> String {
    let written: Vec<&HostResult> = hosts.iter().filter(|h| h.change.is_some()).collect();
    let mut fleets: Vec<&str> = Vec::new();
    for host in &written {
        if !fleets.contains(&host.fleet.as_str()) {
            fleets.push(&host.fleet);
        }
    }
    let fleets = fleets.join(", ");
    let mut message = match written.as_slice() {
        [one] => format!("baseline: promote {} ({fleets})\n", one.host),
        // The hosts are named in the body, one section each: a subject stays one short line
        // however many hosts a fleet-wide re-baselining promotes.
        many => format!("baseline: promote {} hosts ({fleets})\n", many.len()),
    };
    if let Some(text) = &request.message {
        let _ = write!(message, "\n{}\n", text.trim_end());
    }
    // Looked up by name: a fleet-wide promote writes thousands of hosts, each with a refusal
    // when forced.
    let snapshots: HashMap<&HostName, &VerifiedSnapshot> = request
        .snapshots
        .iter()
        .map(|s| (&s.snapshot.snapshot().host, &s.snapshot))
        .collect();
    let refusals: HashMap<&HostName, &Refusal> = refusals.iter().map(|r| (&r.host, r)).collect();
    for host in &written {
        let snapshot = snapshots
            .get(&host.host)
            .expect("every result comes from a requested snapshot");
        let s = snapshot.snapshot();
        let change = host.change.as_ref().expect("written hosts have a change");
        let _ = write!(
            message,
            "\n{} (fleet {}): {}\n  snapshot {} captured {} by {}\n  changes against the previous baseline: {}\n",
            host.host,
            host.fleet,
            host.path,
            snapshot.digest(),
            s.captured_at,
            s.tool,
            change.counts_line(),
        );
        for path in &change.blocking {
            let _ = writeln!(message, "    blocking: {path}");
        }
        if let Some(refusal) = refusals.get(&host.host) {
            let reason = request.force_reason.as_deref().unwrap_or_default();
            let _ = writeln!(message, "  forced: {reason}");
            for line in &refusal.short_reasons {
                let _ = writeln!(message, "    overrode: {line}");
            }
        }
    }
    // The refusals and severities above were judged under this policy: a --policy that
    // turned an invariant off is visible in the history.
    let _ = write!(
        message,
        "\nPolicy: {}\nPromoted-by: {}\n",
        policy.sources().join(", "),
        driftgate_snapshot::tool_version()
    );
    message
}
