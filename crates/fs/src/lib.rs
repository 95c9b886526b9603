//! File writes that never leave half a file behind, folders of driftgate's own that are
//! never reached through a symbolic link ([`Folder`]), and the output paths an operator names,
//! written as what they are ([`write_output`]).

mod descriptor;
mod folder;
mod output;

use std::io;
use std::path::Path;

pub use folder::{Folder, NotOurs, WriteOptions};
pub use output::{NotAnOutput, check_output, output_is_file, write_output};

/// Name prefix of the temporary files [`write_atomic`] creates.
pub const TEMP_PREFIX: &str = ".driftgate-";
/// Name suffix of the temporary files [`write_atomic`] creates.
pub const TEMP_SUFFIX: &str = ".tmp";

/// Writes `bytes` to `path` atomically: a temporary file in the same directory, flushed to
/// disk, then renamed over the target. A crash leaves either the old file or the new one; a
/// symbolic link at `path` is replaced, never written through. An output path the operator
/// named (which may be a device, a FIFO or their link) is written by [`write_output`].
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    write_in_parent(path, bytes, WriteOptions::PRIVATE)
}

/// [`write_atomic`] without flushing the file to disk first, for a file that can be written
/// again from elsewhere (a git work tree from its commit): a crash still leaves the old file
/// or the new one, but a power cut may leave the new one empty. Flushing costs a disk round
/// trip per file, which a promote of thousands of baselines cannot afford.
pub fn write_atomic_unsynced(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let options = WriteOptions {
        readable: false,
        sync: false,
    };
    write_in_parent(path, bytes, options)
}

/// [`write_atomic`] for a file other programs read (node_exporter reads a textfile as its own
/// user, a file share serves an HTML report): readable as any new file the user creates (0666
/// narrowed by the umask), where a temporary file is its owner's alone. A file it replaces
/// keeps its mode.
pub fn write_atomic_readable(path: &Path, bytes: &[u8]) -> io::Result<()> {
    write_in_parent(path, bytes, WriteOptions::READABLE)
}

/// The folder of driftgate's own files in a store's work tree (run directories, the nightly
/// state): ignored by git.
pub const PRIVATE_DIR: &str = ".driftgate";

/// The ignore file of `PRIVATE_DIR`, relative to the work tree.
pub const PRIVATE_IGNORE: &str = ".driftgate/.gitignore";

/// `PRIVATE_DIR` in the work tree `work_tree`, created with a `.gitignore` of `*` (so that
/// nothing in it shows in `git status`) when missing; never reached through a link. The
/// flag: the `.gitignore` was written now (a store made before `baseline init` wrote one, or
/// a fresh clone), which the caller tells the operator.
pub fn private_folder(work_tree: &Path) -> io::Result<(Folder, bool)> {
    let folder = Folder::open_at(work_tree)?
        .ok_or_else(|| io::Error::from(io::ErrorKind::NotFound))?
        .create_child(PRIVATE_DIR)?;
    let created = folder.read(".gitignore")?.is_none();
    if created {
        folder.write_atomic(".gitignore", b"*\n", WriteOptions::PRIVATE)?;
    }
    Ok((folder, created))
}

/// Writes the file `path` names in the folder it names, as the operator gave both.
fn write_in_parent(path: &Path, bytes: &[u8], options: WriteOptions) -> io::Result<()> {
    let dir = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    let name = path
        .file_name()
        .and_then(|name| name.to_str())
        .ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("{}: not the path of a file (or not UTF-8)", path.display()),
            )
        })?;
    Folder::open_at(dir)?
        .ok_or_else(|| io::Error::from(io::ErrorKind::NotFound))?
        .write_atomic(name, bytes, options)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_the_file_and_leaves_no_temporary_behind() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("snap.json");
        write_atomic(&target, b"old").unwrap();
        write_atomic(&target, b"new").unwrap();
        assert_eq!(std::fs::read(&target).unwrap(), b"new");
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("snap.json")]);
    }

    #[test]
    fn a_readable_file_is_created_as_any_new_file_and_a_replaced_one_keeps_its_mode() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        let plain = dir.path().join("plain");
        std::fs::write(&plain, b"").unwrap();
        let target = dir.path().join("report.prom");
        write_atomic_readable(&target, b"x 1\n").unwrap();
        assert_eq!(mode(&target), mode(&plain), "as any new file");
        std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o604)).unwrap();
        write_atomic_readable(&target, b"x 2\n").unwrap();
        assert_eq!(mode(&target), 0o604);
        let snapshot = dir.path().join("snap.json");
        write_atomic(&snapshot, b"{}").unwrap();
        assert_eq!(mode(&snapshot), 0o600, "a snapshot stays its owner's");
    }

    #[test]
    fn a_missing_directory_is_an_error_and_nothing_is_written() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("missing/snap.json");
        assert!(write_atomic(&target, b"x").is_err());
        assert!(!target.exists());
    }
}
