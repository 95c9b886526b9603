//! The path an operator names for an output (`--out FILE`, `--report FORMAT=FILE`): theirs,
//! written as they meant it.
//!
//! A file is replaced atomically (a temporary file renamed over it), which is right for a file
//! and wrong for anything else: renamed over `/dev/null` as root, it replaces the device with a
//! regular file; over a FIFO, the reader waits forever on the node that was unlinked; over a
//! symbolic link, the link goes and the file it pointed to is never written. So what is at the
//! path decides how it is written, and a path that names a descriptor of the process
//! (`/dev/stdout`) is written into that descriptor.

use std::fs::File;
use std::io::{self, Write as _};
use std::os::unix::fs::FileTypeExt as _;
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};

use rustix::fs::{Mode, OFlags};

use crate::atomic::write_in_parent;
use crate::descriptor::{duplicate_for_writing, named_descriptor};
use crate::folder::{Folder, WriteOptions};

/// What [`write_output`] does not write to.
#[derive(Debug, thiserror::Error)]
#[error(
    "{} is {what}: refused, nothing was written (an output is a file, a symbolic link to one, a character device such as /dev/null, a FIFO, a socket, or a descriptor such as /dev/stdout open for writing)",
    path.display()
)]
pub struct NotAnOutput {
    /// The path as the operator named it.
    pub path: PathBuf,
    /// What is there (`a directory`, `a symbolic link to nothing`).
    pub what: &'static str,
}

/// How an output path is written.
#[derive(Debug, PartialEq, Eq)]
enum Way {
    /// Atomically, as the file at this path (the operator's, or the one their link names).
    Replace(PathBuf),
    /// As a stream into what is there, which stays.
    Stream(Stream),
    /// Into this descriptor of the process, as a shell's redirect writes: at its offset,
    /// never truncated, never renamed over.
    Descriptor(std::os::fd::RawFd),
}

/// Something written into, never replaced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stream {
    /// A character device or a FIFO: opened for writing.
    Opened,
    /// A Unix socket: connected to.
    Socket,
}

/// Writes `bytes` to the output path `path` the operator named:
///
/// - nothing there, or a regular file: atomically, as [`crate::write_atomic`] does (`options`
///   say its mode and whether it is flushed first);
/// - a character device (`/dev/null`, a terminal), a FIFO or a Unix socket: written into as a
///   stream, and left as it is;
/// - a symbolic link: followed, and what it points to written by these rules (a file it names
///   is replaced atomically in its own folder; the link stays);
/// - a descriptor of the process (`/dev/stdout`, `/dev/stderr`, `/dev/fd/N`,
///   `/proc/self/fd/N`, `/proc/PID/fd/N` of its own PID), named or on the way of its links:
///   written into that descriptor itself, sharing its offset as a shell's redirect does, be it
///   a file (appended to with `>>`, never truncated or replaced), a pipe, a socket or a
///   terminal.
///
/// A directory, a block device, a link to nothing and a descriptor not open for writing are
/// refused ([`NotAnOutput`]): nothing is written, nothing is replaced. [`check_output`] says
/// so before the work whose output it is.
pub fn write_output(path: &Path, bytes: &[u8], options: WriteOptions) -> io::Result<()> {
    match way(path)? {
        Way::Replace(file) => write_in_parent(&file, bytes, options),
        Way::Stream(stream) => write_stream(path, stream, bytes),
        Way::Descriptor(fd) => write_descriptor(path, fd, bytes),
    }
}

/// What [`write_output`] would refuse at `path` now, without writing: a directory, a block
/// device, a link to nothing, a descriptor not open for writing, a file in a folder that does
/// not exist. For a command to refuse its output before its work (a fleet's capture), not
/// after.
pub fn check_output(path: &Path) -> io::Result<()> {
    match way(path)? {
        Way::Replace(file) => {
            let folder = match file.parent() {
                Some(parent) if !parent.as_os_str().is_empty() => parent,
                _ => Path::new("."),
            };
            match Folder::open_at(folder) {
                Ok(Some(_)) => Ok(()),
                Ok(None) => Err(refused(path, "in a directory that does not exist")),
                Err(e) if e.raw_os_error() == Some(rustix::io::Errno::NOTDIR.raw_os_error()) => {
                    Err(refused(path, "in a directory that does not exist"))
                }
                Err(e) => Err(e),
            }
        }
        Way::Stream(_) => Ok(()),
        Way::Descriptor(fd) => duplicate_for_writing(fd)
            .map(drop)
            .ok_or_else(|| refused(path, NOT_OPEN)),
    }
}

/// What a descriptor alias is when its descriptor cannot be written.
const NOT_OPEN: &str = "a file descriptor this process does not hold open for writing";

/// Whether the output path `path` holds a regular file (directly or through links): one a
/// report may read before replacing it. A device, a FIFO or a socket is never read, since
/// reading one consumes or waits; nor is a descriptor's file, which is appended to, not
/// replaced.
pub fn output_is_file(path: &Path) -> io::Result<bool> {
    if named_descriptor(path)?.is_some() {
        return Ok(false);
    }
    match std::fs::metadata(path) {
        Ok(meta) => Ok(meta.is_file()),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(e),
    }
}

/// How `path` is written, by what is there now.
fn way(path: &Path) -> io::Result<Way> {
    if let Some(fd) = named_descriptor(path)? {
        return Ok(Way::Descriptor(fd));
    }
    let linked = match std::fs::symlink_metadata(path) {
        Ok(meta) => meta.file_type().is_symlink(),
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            return Ok(Way::Replace(path.to_path_buf()));
        }
        Err(e) => return Err(e),
    };
    let meta = match std::fs::metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == io::ErrorKind::NotFound && linked => {
            return Err(refused(path, "a symbolic link to nothing"));
        }
        Err(e) => return Err(e),
    };
    let kind = meta.file_type();
    if kind.is_file() {
        // The file the link names is replaced where it is; the link keeps pointing to it.
        let file = if linked {
            std::fs::canonicalize(path)?
        } else {
            path.to_path_buf()
        };
        return Ok(Way::Replace(file));
    }
    if kind.is_char_device() || kind.is_fifo() {
        return Ok(Way::Stream(Stream::Opened));
    }
    if kind.is_socket() {
        return Ok(Way::Stream(Stream::Socket));
    }
    Err(refused(
        path,
        if kind.is_dir() {
            "a directory"
        } else {
            // A disk: a report written over it is surely a mistyped path.
            "a block device"
        },
    ))
}

/// Writes `bytes` into the device, FIFO or socket at `path`.
fn write_stream(path: &Path, stream: Stream, bytes: &[u8]) -> io::Result<()> {
    match stream {
        Stream::Socket => {
            let mut socket = UnixStream::connect(path)?;
            socket.write_all(bytes)?;
            socket.shutdown(std::net::Shutdown::Write)
        }
        Stream::Opened => {
            // No O_CREAT, no O_TRUNC: what is there is written into, never made or emptied; a
            // terminal opened by root does not become its controlling terminal. A FIFO's open
            // waits for its reader, as a shell's `>` does.
            let flags = OFlags::WRONLY | OFlags::NOCTTY | OFlags::CLOEXEC;
            let mut file = File::from(rustix::fs::open(path, flags, Mode::empty())?);
            let kind = file.metadata()?.file_type();
            if !(kind.is_char_device() || kind.is_fifo()) {
                // Swapped for something else since it was looked at: not what was named.
                return Err(refused(path, "no longer a device or a FIFO"));
            }
            file.write_all(bytes)?;
            file.flush()
        }
    }
}

/// Writes `bytes` into the descriptor `fd` that `path` names, through a duplicate of it.
fn write_descriptor(path: &Path, fd: std::os::fd::RawFd, bytes: &[u8]) -> io::Result<()> {
    let mut file = File::from(duplicate_for_writing(fd).ok_or_else(|| refused(path, NOT_OPEN))?);
    // What the process printed before goes first, as it would through one stream.
    io::stdout().flush()?;
    file.write_all(bytes)?;
    file.flush()
}

fn refused(path: &Path, what: &'static str) -> io::Error {
    io::Error::other(NotAnOutput {
        path: path.to_path_buf(),
        what,
    })
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::symlink;

    use super::*;

    #[test]
    fn a_file_or_nothing_is_replaced_and_a_link_to_a_file_is_followed() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("r.json");
        write_output(&file, b"one", WriteOptions::PRIVATE).unwrap();
        write_output(&file, b"two", WriteOptions::PRIVATE).unwrap();
        assert_eq!(std::fs::read(&file).unwrap(), b"two");
        let link = dir.path().join("latest.json");
        symlink("r.json", &link).unwrap();
        write_output(&link, b"three", WriteOptions::PRIVATE).unwrap();
        assert!(
            std::fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(std::fs::read(&file).unwrap(), b"three");
        assert!(output_is_file(&link).unwrap());
    }

    #[test]
    fn a_directory_and_a_link_to_nothing_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let dangling = dir.path().join("dangling");
        symlink(dir.path().join("missing"), &dangling).unwrap();
        for (path, what) in [
            (dir.path().to_path_buf(), "a directory"),
            (dangling.clone(), "a symbolic link to nothing"),
        ] {
            let error = write_output(&path, b"x", WriteOptions::PRIVATE).unwrap_err();
            let text = error.to_string();
            assert!(text.contains(what), "{text}");
            assert!(text.contains("refused, nothing was written"), "{text}");
        }
        assert!(!dir.path().join("missing").exists());
        assert!(
            std::fs::symlink_metadata(&dangling)
                .unwrap()
                .file_type()
                .is_symlink()
        );
    }

    #[test]
    fn a_descriptor_alias_is_written_into_the_descriptor_never_replaced() {
        use std::os::fd::AsRawFd as _;
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("ci.log");
        std::fs::write(&log, "earlier\n").unwrap();
        let appended = std::fs::OpenOptions::new().append(true).open(&log).unwrap();
        let fd = appended.as_raw_fd();
        let link = dir.path().join("latest.json");
        symlink(format!("/dev/fd/{fd}"), &link).unwrap();
        for path in [PathBuf::from(format!("/proc/self/fd/{fd}")), link.clone()] {
            check_output(&path).unwrap();
            assert!(!output_is_file(&path).unwrap());
            write_output(&path, b"report\n", WriteOptions::PRIVATE).unwrap();
        }
        assert_eq!(
            std::fs::read_to_string(&log).unwrap(),
            "earlier\nreport\nreport\n"
        );
        drop(appended);
        let read_only = File::open(&log).unwrap();
        let path = PathBuf::from(format!("/dev/fd/{}", read_only.as_raw_fd()));
        for error in [
            check_output(&path).unwrap_err(),
            write_output(&path, b"x", WriteOptions::PRIVATE).unwrap_err(),
        ] {
            let text = error.to_string();
            assert!(text.contains("not hold open for writing"), "{text}");
        }
        assert_eq!(
            std::fs::read_to_string(&log).unwrap(),
            "earlier\nreport\nreport\n"
        );
        // A descriptor no one holds.
        let closed = PathBuf::from("/proc/self/fd/987654");
        assert!(check_output(&closed).is_err());
    }

    #[test]
    fn check_output_refuses_what_write_output_refuses() {
        let dir = tempfile::tempdir().unwrap();
        let dangling = dir.path().join("dangling");
        symlink(dir.path().join("missing"), &dangling).unwrap();
        for (path, what) in [
            (dir.path().to_path_buf(), "a directory"),
            (dangling, "a symbolic link to nothing"),
            (dir.path().join("missing/r.json"), "does not exist"),
        ] {
            let text = check_output(&path).unwrap_err().to_string();
            assert!(text.contains(what), "{text}");
        }
        check_output(&dir.path().join("new.json")).unwrap();
        assert_eq!(
            std::fs::read_dir(dir.path()).unwrap().count(),
            1,
            "nothing written"
        );
    }

    #[test]
    fn a_socket_is_written_into_and_stays() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s");
        let listener = std::os::unix::net::UnixListener::bind(&path).unwrap();
        let reader = std::thread::spawn(move || {
            let (mut conn, _) = listener.accept().unwrap();
            let mut got = Vec::new();
            io::Read::read_to_end(&mut conn, &mut got).unwrap();
            got
        });
        write_output(&path, b"report", WriteOptions::PRIVATE).unwrap();
        assert_eq!(reader.join().unwrap(), b"report");
        assert!(
            std::fs::symlink_metadata(&path)
                .unwrap()
                .file_type()
                .is_socket()
        );
        assert!(!output_is_file(&path).unwrap());
    }
}
