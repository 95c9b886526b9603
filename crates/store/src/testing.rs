//! Test helpers shared by the tests of the store and of the crates that write to it (feature
//! `testing`).

#![allow(clippy::unwrap_used)] // a test that cannot set up should panic where it stands

use std::path::Path;

use git2::Repository;

use crate::store::Store;

/// Gives the repository at `dir` an author identity in its own config.
pub fn identity(dir: &Path) {
    let mut config = Repository::open(dir).unwrap().config().unwrap();
    config.set_str("user.name", "Test Operator").unwrap();
    config.set_str("user.email", "test@example.com").unwrap();
}

/// An empty store in a temporary directory with a committer configured.
pub fn committer_store() -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open_or_init(dir.path()).unwrap();
    identity(dir.path());
    (dir, store)
}

/// Runs the git binary in `dir` (what an operator, a clone or a push does beside driftgate);
/// its standard output. Panics naming the arguments when git fails.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let out = std::process::Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}
