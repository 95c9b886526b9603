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
    write_atomic_mode(path, bytes, None)
}

/// [`write_atomic`] for a file other programs read (a report for node_exporter, a web server or
/// a CI artifact step running as another user): readable by everyone, writable by its owner,
/// where a temporary file would be readable by its owner only.
pub fn write_atomic_readable(path: &Path, bytes: &[u8]) -> io::Result<()> {
    write_atomic_mode(path, bytes, Some(0o644))
}

fn write_atomic_mode(path: &Path, bytes: &[u8], mode: Option<u32>) -> io::Result<()> {
    let dir = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    let mut temp = tempfile::Builder::new()
        .prefix(TEMP_PREFIX)
        .suffix(TEMP_SUFFIX)
        .tempfile_in(dir)?;
    temp.write_all(bytes)?;
    if let Some(mode) = mode {
        use std::os::unix::fs::PermissionsExt as _;
        temp.as_file()
            .set_permissions(std::fs::Permissions::from_mode(mode))?;
    }
    temp.as_file().sync_all()?;
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
    fn a_readable_file_is_readable_by_everyone() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("report.prom");
        write_atomic_readable(&target, b"x 1\n").unwrap();
        let mode = std::fs::metadata(&target).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o644);
        write_atomic(&target, b"x 2\n").unwrap();
        let mode = std::fs::metadata(&target).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600, "a snapshot stays its owner's");
    }

    #[test]
    fn a_missing_directory_is_an_error_and_nothing_is_written() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("missing/snap.json");
        assert!(write_atomic(&target, b"x").is_err());
        assert!(!target.exists());
    }
}
