//! File writes that never leave half a file behind.

use std::io::{self, Write};
use std::path::Path;

/// Name prefix of the temporary files [`write_atomic`] creates.
pub const TEMP_PREFIX: &str = ".driftgate-";
/// Name suffix of the temporary files [`write_atomic`] creates.
pub const TEMP_SUFFIX: &str = ".tmp";

/// Writes `bytes` to `path` atomically: a temporary file in the same directory, flushed to
/// disk, then renamed over the target. A crash leaves either the old file or the new one.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    write_atomic_mode(path, bytes, Mode::Private, Flush::ToDisk)
}

/// [`write_atomic`] without flushing the file to disk first, for a file that can be written
/// again from elsewhere (a git work tree from its commit): a crash still leaves the old file
/// or the new one, but a power cut may leave the new one empty. Flushing costs a disk round
/// trip per file, which a promote of thousands of baselines cannot afford.
pub fn write_atomic_unsynced(path: &Path, bytes: &[u8]) -> io::Result<()> {
    write_atomic_mode(path, bytes, Mode::Private, Flush::No)
}

/// [`write_atomic`] for a file other programs read (node_exporter reads a textfile as its own
/// user, a file share serves an HTML report): readable as any new file the user creates (0666
/// narrowed by the umask), where a temporary file is its owner's alone. A file it replaces
/// keeps its mode.
pub fn write_atomic_readable(path: &Path, bytes: &[u8]) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt as _;
    let mode = match std::fs::metadata(path) {
        Ok(replaced) => Mode::Keep(replaced.permissions()),
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            Mode::Create(std::fs::Permissions::from_mode(0o666))
        }
        Err(e) => return Err(e),
    };
    write_atomic_mode(path, bytes, mode, Flush::ToDisk)
}

/// The mode of the file [`write_atomic_mode`] writes.
enum Mode {
    /// The temporary file's: its owner's alone.
    Private,
    /// These permissions at creation, narrowed by the umask as any new file's.
    Create(std::fs::Permissions),
    /// Exactly these (the replaced file's).
    Keep(std::fs::Permissions),
}

/// Whether the temporary file is flushed to disk before it replaces the target.
#[derive(PartialEq, Eq)]
enum Flush {
    ToDisk,
    No,
}

fn write_atomic_mode(path: &Path, bytes: &[u8], mode: Mode, flush: Flush) -> io::Result<()> {
    let dir = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    let mut builder = tempfile::Builder::new();
    builder.prefix(TEMP_PREFIX).suffix(TEMP_SUFFIX);
    if let Mode::Create(permissions) = &mode {
        builder.permissions(permissions.clone());
    }
    let mut temp = builder.tempfile_in(dir)?;
    if let Mode::Keep(permissions) = mode {
        temp.as_file().set_permissions(permissions)?;
    }
    temp.write_all(bytes)?;
    if flush == Flush::ToDisk {
        temp.as_file().sync_all()?;
    }
    temp.persist(path).map_err(|e| e.error)?;
    Ok(())
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
