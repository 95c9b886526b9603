//! File writes that never leave half a file behind, folders of driftgate's own that are
//! never reached through a symbolic link ([`Folder`]), and the output paths an operator names,
//! written as what they are ([`write_output`]).

mod atomic;
mod descriptor;
mod folder;
mod output;
mod private;

pub use atomic::{write_atomic, write_atomic_readable, write_atomic_unsynced};
pub use folder::{Folder, NotOurs, TEMP_PREFIX, TEMP_SUFFIX, WriteOptions};
pub use output::{NotAnOutput, check_output, output_is_file, write_output};
pub use private::{PRIVATE_DIR, PRIVATE_IGNORE, private_folder};

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

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
