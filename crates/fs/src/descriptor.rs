//! `/dev/stdout` and its kin: paths that name a file descriptor the process already holds.
//!
//! `/dev/stdout` is a link to `/proc/self/fd/1`, a link the kernel makes to whatever the
//! descriptor is: opened again by that path, a file is opened anew (its own offset, so what a
//! shell appended before is overwritten, and a rename over it replaces it) and a socket cannot
//! be opened at all. A shell's `>> ci.log`, a pipe or journald's socket is meant to be written
//! into through the descriptor itself, as `echo >/dev/stdout` does in bash.

use std::io;
use std::os::fd::{BorrowedFd, OwnedFd, RawFd};
use std::path::{Component, Path, PathBuf};

use rustix::fs::OFlags;
use rustix::io::Errno;

/// Links followed before giving up (the kernel's own limit, `MAXSYMLINKS`).
const MAX_LINKS: usize = 40;

/// The descriptor `path` names when it, or a link on the way to what it names, is one of the
/// aliases: `/dev/stdin`, `/dev/stdout`, `/dev/stderr`, `/dev/fd/N`, `/proc/self/fd/N`,
/// `/proc/thread-self/fd/N` or `/proc/PID/fd/N` (and `/proc/PID/task/TID/fd/N`) of this
/// process. `None` for any other path, a missing one included.
pub(crate) fn named_descriptor(path: &Path) -> io::Result<Option<RawFd>> {
    let pid = std::process::id();
    let mut current = path.to_path_buf();
    for _ in 0..MAX_LINKS {
        if let Some(fd) = alias(&current, pid) {
            return Ok(Some(fd));
        }
        // The folder resolved, so that `/dev/fd/1` (its folder a link to `/proc/PID/fd`) and
        // a relative link are seen for what they are.
        let Some(resolved) = resolve_folder(&current)? else {
            return Ok(None);
        };
        if let Some(fd) = alias(&resolved, pid) {
            return Ok(Some(fd));
        }
        match std::fs::read_link(&resolved) {
            Ok(target) => {
                let folder = resolved.parent().unwrap_or(Path::new("/"));
                current = folder.join(target);
            }
            // Not a link (EINVAL), or nothing there: the end of the chain.
            Err(e)
                if e.kind() == io::ErrorKind::InvalidInput
                    || e.kind() == io::ErrorKind::NotFound =>
            {
                return Ok(None);
            }
            Err(e) => return Err(e),
        }
    }
    // A loop: the ordinary write says so.
    Ok(None)
}

/// A duplicate of `fd` (the same open file, offset and flags shared) to write into; a
/// descriptor that is not open, or open for reading only, is `None`.
pub(crate) fn duplicate_for_writing(fd: RawFd) -> Option<OwnedFd> {
    // The one `unsafe` left: a descriptor a path names by number (`/dev/fd/3`) is held by no
    // Rust value, and std and rustix only borrow one from a number this way.
    // SAFETY: the borrow lives only for the two `fcntl` calls below, which read no memory of
    // ours; a number that is not open makes them fail with EBADF, nothing worse.
    let borrowed = unsafe { BorrowedFd::borrow_raw(fd) };
    let flags = rustix::fs::fcntl_getfl(borrowed).ok()?;
    if flags & OFlags::ACCMODE == OFlags::RDONLY {
        return None;
    }
    rustix::io::fcntl_dupfd_cloexec(borrowed, 0).ok()
}

/// `path` with its folder resolved (links in it followed), its last part kept as it is;
/// `None` when the folder does not exist or the path has no last part.
fn resolve_folder(path: &Path) -> io::Result<Option<PathBuf>> {
    let Some(name) = path.file_name() else {
        return Ok(None);
    };
    let folder = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    match std::fs::canonicalize(folder) {
        Ok(folder) => Ok(Some(folder.join(name))),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) if e.raw_os_error() == Some(Errno::NOTDIR.raw_os_error()) => Ok(None),
        Err(e) => Err(e),
    }
}

/// The descriptor the path `path` spells, as one of the aliases of the process `pid`.
fn alias(path: &Path, pid: u32) -> Option<RawFd> {
    let mut parts = Vec::new();
    for component in path.components() {
        match component {
            Component::RootDir => {}
            Component::Normal(part) => parts.push(part.to_str()?),
            // Relative, or spelt with `.`/`..`: seen once its folder is resolved.
            _ => return None,
        }
    }
    if !path.has_root() {
        return None;
    }
    let ours = |p: &str| p == "self" || p == "thread-self" || p.parse::<u32>() == Ok(pid);
    let number = |n: &str| {
        n.bytes()
            .all(|b| b.is_ascii_digit())
            .then(|| n.parse::<RawFd>().ok())
            .flatten()
    };
    match parts.as_slice() {
        ["dev", "stdin"] => Some(0),
        ["dev", "stdout"] => Some(1),
        ["dev", "stderr"] => Some(2),
        ["dev", "fd", n] => number(n),
        ["proc", p, "fd", n] if ours(p) => number(n),
        ["proc", p, "task", tid, "fd", n] if ours(p) && number(tid).is_some() => number(n),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::symlink;

    use super::*;

    #[test]
    fn the_aliases_are_spelt_as_the_kernel_spells_them() {
        let pid = 4242;
        for (path, fd) in [
            ("/dev/stdout", Some(1)),
            ("/dev/stderr", Some(2)),
            ("/dev/fd/7", Some(7)),
            ("/proc/self/fd/1", Some(1)),
            ("/proc/thread-self/fd/3", Some(3)),
            ("/proc/4242/fd/12", Some(12)),
            ("/proc/4242/task/4243/fd/1", Some(1)),
            ("/proc/4243/fd/1", None),
            ("/proc/self/fd/+1", None),
            ("/proc/self/fdinfo/1", None),
            ("dev/stdout", None),
            ("/tmp/dev/stdout", None),
            ("/dev/./stdout", Some(1)),
        ] {
            assert_eq!(alias(Path::new(path), pid), fd, "{path}");
        }
    }

    #[test]
    fn a_chain_of_links_through_an_alias_names_its_descriptor() {
        let dir = tempfile::tempdir().unwrap();
        let first = dir.path().join("latest.json");
        symlink("second", &first).unwrap();
        symlink("/dev/stdout", dir.path().join("second")).unwrap();
        assert_eq!(named_descriptor(&first).unwrap(), Some(1));
        let fd_folder = dir.path().join("fds");
        symlink("/dev/fd", &fd_folder).unwrap();
        assert_eq!(named_descriptor(&fd_folder.join("2")).unwrap(), Some(2));
        let file = dir.path().join("file");
        std::fs::write(&file, "x").unwrap();
        symlink(&file, dir.path().join("to-file")).unwrap();
        assert_eq!(named_descriptor(&dir.path().join("to-file")).unwrap(), None);
        assert_eq!(named_descriptor(&dir.path().join("missing")).unwrap(), None);
    }
}
