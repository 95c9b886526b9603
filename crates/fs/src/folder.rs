//! Folders driftgate writes in, reached by handle and never through a symbolic link.
//!
//! driftgate runs as root on jump hosts, in output and run directories other jobs can write
//! to. A link planted where one of its folders belongs (`OUT/snapshots` → `/etc`) would have
//! it clean and write someone else's files. So a [`Folder`] is an open directory handle: the
//! folders below it are opened relative to it with `O_NOFOLLOW` (a link there is refused,
//! naming it), and files in it are written, read and removed relative to it — never by a path
//! that could be swapped for a link between a check and its use. The folder an operator names
//! on the command line is taken as given, links in it included: it is theirs to choose.

use std::ffi::OsString;
use std::fs::File;
use std::io::{self, Write as _};
use std::os::fd::OwnedFd;
use std::os::unix::ffi::OsStrExt as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use rustix::fs::{AtFlags, FileType, Mode, OFlags};
use rustix::io::Errno;

/// Name prefix of the temporary files [`crate::write_atomic`] creates.
pub const TEMP_PREFIX: &str = ".driftgate-";
/// Name suffix of the temporary files [`crate::write_atomic`] creates.
pub const TEMP_SUFFIX: &str = ".tmp";

/// Something other than what driftgate keeps at a path of its own: a symbolic link where its
/// folder or file belongs, a file where a folder does.
#[derive(Debug, thiserror::Error)]
#[error(
    "{} is {what} where driftgate keeps a {belongs} of its own: refused, nothing was read or written through it (remove it, or give another directory)",
    path.display()
)]
pub struct NotOurs {
    /// Where.
    pub path: PathBuf,
    /// What is there (`a symbolic link`).
    pub what: &'static str,
    /// What belongs there (`folder`, `file`).
    pub belongs: &'static str,
}

impl NotOurs {
    /// The refusal `error` carries, or `error` itself when it is another failure: for callers
    /// that name the path of a failure themselves, which a refusal names already.
    pub fn from_io(error: io::Error) -> Result<NotOurs, io::Error> {
        if error.get_ref().is_some_and(|inner| inner.is::<NotOurs>()) {
            let inner = error.into_inner().expect("checked above");
            return Ok(*inner.downcast::<NotOurs>().expect("checked above"));
        }
        Err(error)
    }
}

/// How a file written by [`Folder::write_atomic`] is made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WriteOptions {
    /// Readable as any new file of the user's (0666 narrowed by the umask; a file it replaces
    /// keeps its mode), instead of its owner's alone (0600).
    pub readable: bool,
    /// Flushed to disk before it replaces the old file, and the folder flushed after, so that
    /// the new file is the one under its name after a power cut.
    pub sync: bool,
}

impl WriteOptions {
    /// Its owner's alone, flushed to disk: snapshots and results.
    pub const PRIVATE: WriteOptions = WriteOptions {
        readable: false,
        sync: true,
    };

    /// Readable as any new file of the user's, flushed to disk: files other programs read
    /// (reports, an inventory).
    pub const READABLE: WriteOptions = WriteOptions {
        readable: true,
        sync: true,
    };
}

/// An open folder (see the module's documentation).
#[derive(Debug)]
pub struct Folder {
    fd: OwnedFd,
    path: PathBuf,
}

impl Folder {
    /// The folder at `path` as the operator named it, created with its parents when missing.
    pub fn create_at(path: &Path) -> io::Result<Folder> {
        std::fs::create_dir_all(path)?;
        Self::open_at(path)?.ok_or_else(|| io::Error::from(io::ErrorKind::NotFound))
    }

    /// The folder at `path` as the operator named it; `None` when there is nothing there.
    pub fn open_at(path: &Path) -> io::Result<Option<Folder>> {
        let flags = OFlags::DIRECTORY | OFlags::RDONLY | OFlags::CLOEXEC;
        match rustix::fs::open(path, flags, Mode::empty()) {
            Ok(fd) => Ok(Some(Folder {
                fd,
                path: path.to_path_buf(),
            })),
            Err(Errno::NOENT) => Ok(None),
            Err(e) => Err(e.into()),
        }
    }

    /// The path it was opened by, for messages.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The folder `name` in this one, created when missing. A symbolic link, a file or
    /// anything else there is refused (`NotAFolder`).
    pub fn create_child(&self, name: &str) -> io::Result<Folder> {
        check_name(name)?;
        match rustix::fs::mkdirat(&self.fd, name, Mode::from_raw_mode(0o777)) {
            Ok(()) | Err(Errno::EXIST) => {}
            Err(e) => return Err(e.into()),
        }
        self.open_child(name)?
            .ok_or_else(|| io::Error::from(io::ErrorKind::NotFound))
    }

    /// The folder `name` in this one, made now: `None` when something of that name exists
    /// (making it is what claims it, so two processes never get the same one).
    pub fn create_new_child(&self, name: &str) -> io::Result<Option<Folder>> {
        check_name(name)?;
        match rustix::fs::mkdirat(&self.fd, name, Mode::from_raw_mode(0o777)) {
            Ok(()) => self.open_child(name),
            Err(Errno::EXIST) => Ok(None),
            Err(e) => Err(e.into()),
        }
    }

    /// The folder `name` in this one; `None` when there is nothing of that name. A symbolic
    /// link or anything else that is not a folder is refused (`NotAFolder`).
    pub fn open_child(&self, name: &str) -> io::Result<Option<Folder>> {
        check_name(name)?;
        let flags = OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::RDONLY | OFlags::CLOEXEC;
        match rustix::fs::openat(&self.fd, name, flags, Mode::empty()) {
            Ok(fd) => Ok(Some(Folder {
                fd,
                path: self.path.join(name),
            })),
            Err(Errno::NOENT) => Ok(None),
            Err(Errno::LOOP | Errno::NOTDIR) => Err(self.not_ours(name, "folder")),
            Err(e) => Err(e.into()),
        }
    }

    /// The names in this folder, in no particular order.
    pub fn names(&self) -> io::Result<Vec<OsString>> {
        let mut names = Vec::new();
        for entry in rustix::fs::Dir::read_from(&self.fd)? {
            let name = entry?.file_name().to_bytes().to_vec();
            if name != b"." && name != b".." {
                names.push(OsString::from(std::ffi::OsStr::from_bytes(&name)));
            }
        }
        Ok(names)
    }

    /// Whether `name` is a regular file (a symbolic link to one is not).
    pub fn is_file(&self, name: &str) -> io::Result<bool> {
        check_name(name)?;
        match rustix::fs::statat(&self.fd, name, AtFlags::SYMLINK_NOFOLLOW) {
            Ok(stat) => Ok(FileType::from_raw_mode(stat.st_mode) == FileType::RegularFile),
            Err(Errno::NOENT) => Ok(false),
            Err(e) => Err(e.into()),
        }
    }

    /// The content of the file `name`; `None` when there is none. A symbolic link or
    /// anything else that is not a regular file is an error: it is not driftgate's.
    pub fn read(&self, name: &str) -> io::Result<Option<Vec<u8>>> {
        check_name(name)?;
        // Not blocking: a FIFO planted there must not hang the read.
        let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC;
        let fd = match rustix::fs::openat(&self.fd, name, flags, Mode::empty()) {
            Ok(fd) => fd,
            Err(Errno::NOENT) => return Ok(None),
            Err(Errno::LOOP) => return Err(self.not_ours(name, "file")),
            Err(e) => return Err(e.into()),
        };
        let mut file = File::from(fd);
        if !file.metadata()?.is_file() {
            return Err(self.not_ours(name, "file"));
        }
        let mut bytes = Vec::new();
        io::Read::read_to_end(&mut file, &mut bytes)?;
        Ok(Some(bytes))
    }

    /// The file `name` (created empty when missing, never through a link) opened for writing,
    /// to hold an advisory lock on.
    pub fn lock_file(&self, name: &str) -> io::Result<File> {
        check_name(name)?;
        let flags = OFlags::WRONLY | OFlags::CREATE | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        match rustix::fs::openat(&self.fd, name, flags, Mode::from_raw_mode(0o600)) {
            Ok(fd) => Ok(File::from(fd)),
            Err(Errno::LOOP) => Err(self.not_ours(name, "file")),
            Err(e) => Err(e.into()),
        }
    }

    /// Removes the file (or link) `name` itself, never what a link points to; nothing when
    /// there is none.
    pub fn remove_file(&self, name: &str) -> io::Result<()> {
        check_name(name)?;
        match rustix::fs::unlinkat(&self.fd, name, AtFlags::empty()) {
            Ok(()) | Err(Errno::NOENT) => Ok(()),
            Err(e) => Err(e.into()),
        }
    }

    /// Writes `bytes` as the file `name` atomically: a temporary file in this folder, then
    /// renamed over `name`. A crash leaves the old file or the new one; a link at `name` is
    /// replaced, never written through. With `options.sync`, both the file and this folder
    /// are flushed to disk before it returns.
    pub fn write_atomic(&self, name: &str, bytes: &[u8], options: WriteOptions) -> io::Result<()> {
        check_name(name)?;
        let mode = if options.readable {
            match rustix::fs::statat(&self.fd, name, AtFlags::SYMLINK_NOFOLLOW) {
                Ok(stat) if FileType::from_raw_mode(stat.st_mode) == FileType::RegularFile => {
                    Some(Mode::from_raw_mode(stat.st_mode) & Mode::from_raw_mode(0o7777))
                }
                Ok(_) | Err(Errno::NOENT) => None,
                Err(e) => return Err(e.into()),
            }
        } else {
            None
        };
        let create = if options.readable { 0o666 } else { 0o600 };
        let (temp, file) = self.create_temporary(Mode::from_raw_mode(create))?;
        let written = (|| {
            let mut file = File::from(file);
            if let Some(mode) = mode {
                rustix::fs::fchmod(&file, mode)?;
            }
            file.write_all(bytes)?;
            if options.sync {
                file.sync_all()?;
            }
            rustix::fs::renameat(&self.fd, &temp, &self.fd, name)?;
            Ok(())
        })();
        if written.is_err() {
            let _ = rustix::fs::unlinkat(&self.fd, &temp, AtFlags::empty());
            return written;
        }
        if options.sync {
            // The rename is an entry of this folder: until the folder is flushed, a power cut
            // may leave the old file (or none) under the name, the flushed new one lost.
            rustix::fs::fsync(&self.fd)?;
        }
        Ok(())
    }

    /// A new temporary file in this folder, named as [`TEMP_PREFIX`]…[`TEMP_SUFFIX`].
    fn create_temporary(&self, mode: Mode) -> io::Result<(String, OwnedFd)> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let flags =
            OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        loop {
            let nanos = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.subsec_nanos());
            let name = format!(
                "{TEMP_PREFIX}{}-{}-{nanos:x}{TEMP_SUFFIX}",
                std::process::id(),
                NEXT.fetch_add(1, Ordering::Relaxed)
            );
            match rustix::fs::openat(&self.fd, name.as_str(), flags, mode) {
                Ok(fd) => return Ok((name, fd)),
                // Someone else's file of that name: another name.
                Err(Errno::EXIST) => continue,
                Err(e) => return Err(e.into()),
            }
        }
    }

    /// The error of something at `name` that is not the `belongs` (folder, file) driftgate
    /// keeps there.
    fn not_ours(&self, name: &str, belongs: &'static str) -> io::Error {
        let what = match rustix::fs::statat(&self.fd, name, AtFlags::SYMLINK_NOFOLLOW) {
            Ok(stat) => match FileType::from_raw_mode(stat.st_mode) {
                FileType::Symlink => "a symbolic link",
                FileType::RegularFile => "a file",
                FileType::Directory => "a folder",
                FileType::Fifo => "a FIFO",
                FileType::Socket => "a socket",
                _ => "a device",
            },
            Err(_) => "something else",
        };
        io::Error::other(NotOurs {
            path: self.path.join(name),
            what,
            belongs,
        })
    }
}

/// A name of one entry: no separator, not `.` or `..`, not empty.
fn check_name(name: &str) -> io::Result<()> {
    if name.is_empty() || name == "." || name == ".." || name.contains('/') || name.contains('\0') {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{name:?} is not the name of a file in a folder"),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::{PermissionsExt as _, symlink};

    use super::*;

    /// A folder to be attacked, and a folder of someone else's with a file in it.
    fn planted() -> (tempfile::TempDir, Folder, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let other = dir.path().join("other");
        std::fs::create_dir(&other).unwrap();
        std::fs::write(other.join("h1.json"), "someone's").unwrap();
        std::fs::write(other.join(".hidden.json"), "someone's").unwrap();
        let ours = Folder::create_at(&dir.path().join("ours")).unwrap();
        symlink(&other, dir.path().join("ours/snapshots")).unwrap();
        (dir, ours, other)
    }

    fn untouched(other: &Path) {
        let mut names: Vec<_> = std::fs::read_dir(other)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        assert_eq!(names, [".hidden.json", "h1.json"]);
        for name in names {
            assert_eq!(
                std::fs::read_to_string(other.join(name)).unwrap(),
                "someone's"
            );
        }
    }

    #[test]
    fn a_link_where_a_folder_belongs_is_refused_naming_it() {
        let (dir, ours, other) = planted();
        for error in [
            ours.create_child("snapshots").unwrap_err(),
            ours.open_child("snapshots").unwrap_err(),
        ] {
            let text = error.to_string();
            let inner = error.into_inner().unwrap();
            let refused = inner.downcast_ref::<NotOurs>().unwrap();
            assert_eq!(refused.path, dir.path().join("ours/snapshots"));
            assert_eq!(refused.what, "a symbolic link");
            assert!(text.contains("ours/snapshots is a symbolic link"), "{text}");
        }
        std::fs::write(dir.path().join("ours/file"), "x").unwrap();
        let error = ours.create_child("file").unwrap_err().to_string();
        assert!(
            error.contains("is a file where driftgate keeps a folder"),
            "{error}"
        );
        untouched(&other);
    }

    #[test]
    fn files_are_written_read_and_removed_in_the_folder_never_through_a_link() {
        let (dir, ours, other) = planted();
        symlink(other.join("h1.json"), dir.path().join("ours/h1.json")).unwrap();
        // Read: a link is refused.
        let error = ours.read("h1.json").unwrap_err().to_string();
        assert!(
            error.contains("is a symbolic link where driftgate keeps a file"),
            "{error}"
        );
        assert!(!ours.is_file("h1.json").unwrap());
        // Written: the link itself is replaced, its target is not.
        ours.write_atomic("h1.json", b"ours", WriteOptions::PRIVATE)
            .unwrap();
        assert_eq!(ours.read("h1.json").unwrap().unwrap(), b"ours");
        assert!(ours.is_file("h1.json").unwrap());
        // Removed: the link, not its target.
        symlink(other.join("h1.json"), dir.path().join("ours/gone.json")).unwrap();
        ours.remove_file("gone.json").unwrap();
        ours.remove_file("gone.json").unwrap();
        assert!(!dir.path().join("ours/gone.json").exists());
        untouched(&other);
        // No temporary file is left, and a file is its owner's alone.
        let mut names: Vec<_> = ours
            .names()
            .unwrap()
            .into_iter()
            .map(|n| n.into_string().unwrap())
            .collect();
        names.sort();
        assert_eq!(names, ["h1.json", "snapshots"]);
        let mode = std::fs::metadata(dir.path().join("ours/h1.json"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
    }

    #[test]
    fn a_fifo_is_never_waited_on_and_names_never_leave_the_folder() {
        let dir = tempfile::tempdir().unwrap();
        let ours = Folder::create_at(dir.path()).unwrap();
        rustix::fs::mkfifoat(&ours.fd, "fifo", Mode::from_raw_mode(0o600)).unwrap();
        let error = ours.read("fifo").unwrap_err().to_string();
        assert!(
            error.contains("is a FIFO where driftgate keeps a file"),
            "{error}"
        );
        for bad in ["", ".", "..", "a/b", "../x"] {
            assert_eq!(
                ours.write_atomic(bad, b"x", WriteOptions::PRIVATE)
                    .unwrap_err()
                    .kind(),
                io::ErrorKind::InvalidInput,
                "{bad:?}"
            );
            assert!(ours.create_child(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn a_new_folder_is_claimed_once() {
        let dir = tempfile::tempdir().unwrap();
        let ours = Folder::create_at(dir.path()).unwrap();
        assert!(ours.create_new_child("post-1").unwrap().is_some());
        assert!(ours.create_new_child("post-1").unwrap().is_none());
        assert!(ours.open_child("post-2").unwrap().is_none());
    }
}
