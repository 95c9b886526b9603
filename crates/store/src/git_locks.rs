//! Git's own lock files (`index.lock`, `<ref>.lock`) that a killed promote leaves behind.
//!
//! libgit2 writes a lock file next to what it changes and renames it into place; a SIGKILL
//! between the two leaves the `.lock` file, and every later write of that file fails. A
//! driftgate lock holder records that it is at work in a marker file ([`MARKER`]) and removes
//! it when done, so a marker found on taking the lock proves an interrupted promote. A git
//! lock file is removed only when it is provably that promote's: the marker is there, the
//! file appeared after the marker and before driftgate's flock was taken, and no live process
//! has it open. Anything else may be someone's own `git` at work (which may keep a lock while
//! its editor runs, with the file closed) and is left to the operator.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// A git lock file that is in the way, and why driftgate does not remove it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct HeldLock {
    /// The lock file.
    pub path: PathBuf,
    /// Who holds it, as far as can be told.
    pub holder: String,
}

/// What [`clear`] found.
#[derive(Debug, Default)]
pub(super) struct Cleared {
    /// Leftovers that were removed.
    pub removed: Vec<PathBuf>,
    /// Lock files that someone may still own.
    pub held: Vec<HeldLock>,
}

/// The marker a driftgate lock holder keeps in the git directory while it works.
pub(super) const MARKER: &str = "driftgate.promoting";

/// The lock files libgit2 takes for a commit on `branch` (`refs/heads/main`, or `None` for a
/// detached HEAD) in `git_dir`.
fn candidates(git_dir: &Path, branch: Option<&str>) -> Vec<PathBuf> {
    let mut files = vec![
        git_dir.join("index.lock"),
        git_dir.join("HEAD.lock"),
        git_dir.join("packed-refs.lock"),
        git_dir.join("logs").join("HEAD.lock"),
    ];
    if let Some(branch) = branch {
        files.push(git_dir.join(format!("{branch}.lock")));
        files.push(git_dir.join("logs").join(format!("{branch}.lock")));
    }
    files
}

/// Removes the leftover git lock files of `git_dir` for a commit on `branch`; `locked_at` is
/// when driftgate's flock was taken, `interrupted_at` when the interrupted holder whose
/// marker was found had started (`None`: no marker). Lock files that may be someone's are
/// reported in `held`.
pub(super) fn clear(
    git_dir: &Path,
    branch: Option<&str>,
    locked_at: SystemTime,
    interrupted_at: Option<SystemTime>,
) -> Cleared {
    let mut cleared = Cleared::default();
    for path in candidates(git_dir, branch) {
        let Ok(meta) = std::fs::symlink_metadata(&path) else {
            continue;
        };
        let holder = match (meta.modified(), interrupted_at) {
            (_, None) => Some("no interrupted driftgate promote left it".to_owned()),
            (Ok(modified), _) if modified > locked_at => {
                Some("newer than driftgate's lock: another git process is writing".to_owned())
            }
            (Ok(modified), Some(started)) if modified < started => {
                Some("older than the interrupted driftgate promote".to_owned())
            }
            (Err(_), _) => Some("its age cannot be read".to_owned()),
            _ => open_by(&path),
        };
        match holder {
            None if std::fs::remove_file(&path).is_ok() => cleared.removed.push(path),
            None => cleared.held.push(HeldLock {
                path,
                holder: "could not be removed".to_owned(),
            }),
            Some(holder) => cleared.held.push(HeldLock { path, holder }),
        }
    }
    cleared
}

/// The live process that has `path` open (`pid N (command)`), if any. git and libgit2 keep a
/// lock file open from creating it until renaming it, so a holder shows in `/proc`.
fn open_by(path: &Path) -> Option<String> {
    let Ok(processes) = std::fs::read_dir("/proc") else {
        // Without /proc nobody can be ruled out: leave the file to the operator.
        return Some("unknown (no /proc to tell whether a process holds it)".to_owned());
    };
    let Ok(target) = path.canonicalize() else {
        return Some("unknown (its path cannot be resolved)".to_owned());
    };
    let mine = std::process::id().to_string();
    for process in processes.flatten() {
        let name = process.file_name();
        let Some(pid) = name
            .to_str()
            .filter(|n| n.bytes().all(|b| b.is_ascii_digit()))
        else {
            continue;
        };
        let fds = match std::fs::read_dir(process.path().join("fd")) {
            Ok(fds) => fds,
            // Gone since the listing: it holds nothing.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            // Another user's process may hold it; that cannot be ruled out.
            Err(_) if pid != mine => {
                return Some(format!("unknown (pid {pid}'s open files cannot be read)"));
            }
            Err(_) => continue,
        };
        if fds
            .flatten()
            .any(|fd| std::fs::read_link(fd.path()).is_ok_and(|link| link == target))
        {
            let command = std::fs::read_to_string(process.path().join("comm"))
                .map(|c| c.trim().to_owned())
                .unwrap_or_else(|_| "?".to_owned());
            return Some(format!("held open by pid {pid} ({command})"));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, SystemTime};

    use super::clear;

    #[test]
    fn leftovers_go_and_what_a_process_holds_or_what_is_newer_stays() {
        let dir = tempfile::tempdir().unwrap();
        let git = dir.path();
        std::fs::create_dir_all(git.join("refs/heads")).unwrap();
        std::fs::create_dir_all(git.join("logs/refs/heads")).unwrap();
        for leftover in [
            "index.lock",
            "refs/heads/main.lock",
            "logs/refs/heads/main.lock",
        ] {
            std::fs::write(git.join(leftover), "x").unwrap();
        }
        let held = std::fs::File::create(git.join("HEAD.lock")).unwrap();
        // A lock of another branch is none of this commit's business.
        std::fs::write(git.join("refs/heads/other.lock"), "x").unwrap();
        let started = SystemTime::now() - Duration::from_secs(60);
        let locked_at = SystemTime::now() + Duration::from_secs(1);
        let cleared = clear(git, Some("refs/heads/main"), locked_at, Some(started));
        let removed: Vec<_> = cleared
            .removed
            .iter()
            .map(|p| p.strip_prefix(git).unwrap().display().to_string())
            .collect();
        assert_eq!(
            removed,
            [
                "index.lock",
                "refs/heads/main.lock",
                "logs/refs/heads/main.lock"
            ]
        );
        assert_eq!(cleared.held.len(), 1, "{:?}", cleared.held);
        assert!(cleared.held[0].path.ends_with("HEAD.lock"));
        let pid = std::process::id().to_string();
        assert!(cleared.held[0].holder.contains(&pid), "{:?}", cleared.held);
        assert!(git.join("HEAD.lock").exists() && git.join("refs/heads/other.lock").exists());
        drop(held);

        let holder_of = |cleared: &super::Cleared| {
            assert!(cleared.removed.is_empty(), "{:?}", cleared.removed);
            cleared
                .held
                .iter()
                .find(|h| h.path.ends_with("index.lock"))
                .map(|h| h.holder.clone())
                .unwrap()
        };
        std::fs::write(git.join("index.lock"), "x").unwrap();
        let now = SystemTime::now();
        let long_ago = now - Duration::from_secs(60);
        // Written after driftgate took its lock: someone else's git.
        let cleared = clear(git, Some("refs/heads/main"), long_ago, Some(long_ago));
        assert!(holder_of(&cleared).contains("newer"));
        // No interrupted promote recorded: not driftgate's to remove.
        let cleared = clear(
            git,
            Some("refs/heads/main"),
            now + Duration::from_secs(1),
            None,
        );
        assert!(holder_of(&cleared).contains("no interrupted driftgate promote"));
        // Older than the interrupted promote: it was there before, someone else's.
        let later = now + Duration::from_secs(30);
        let cleared = clear(git, Some("refs/heads/main"), later, Some(later));
        assert!(holder_of(&cleared).contains("older than the interrupted"));
    }
}
