//! What the sources' unit tests share (they cannot reach `tests/it/common`).

/// A copy of the flat folder `dir` (a `dir:` recording) in a temporary folder, to change.
pub(crate) fn copy_recording(dir: &std::path::Path) -> tempfile::TempDir {
    let copy = tempfile::tempdir().expect("a temporary folder");
    for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let entry = entry.expect("a readable folder entry");
        std::fs::copy(entry.path(), copy.path().join(entry.file_name()))
            .unwrap_or_else(|e| panic!("{}: {e}", entry.path().display()));
    }
    copy
}
