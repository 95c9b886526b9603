use std::time::Duration;

use super::super::testing::{git, identity};
use super::super::{FileWrite, Store, StoreError};

const BRANCH: &str = "driftgate/state";

/// A store with one commit on main.
fn store() -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open_or_init(dir.path()).unwrap();
    identity(dir.path());
    let lock = store.lock(Duration::from_secs(1)).unwrap();
    store
        .commit(
            &lock,
            &[FileWrite::new("baselines/README.md", b"b\n".to_vec())],
            "init",
            &|_| false,
        )
        .unwrap();
    drop(lock);
    (dir, store)
}

fn write_state(store: &Store, content: &str) -> Option<String> {
    let lock = store.lock(Duration::from_secs(1)).unwrap();
    let branch = store.side_branch(BRANCH).unwrap();
    store
        .commit_side_branch(
            &lock,
            &branch,
            &[FileWrite::new("state.json", content.as_bytes().to_vec())],
            "state",
        )
        .unwrap()
        .map(|c| c.id.to_string())
}

fn read_all(store: &Store) -> Vec<(String, Option<String>)> {
    let branch = store.side_branch(BRANCH).unwrap();
    branch
        .tips()
        .into_iter()
        .map(|(reference, tip)| {
            let text = store
                .read_side_file(&tip, "state.json")
                .unwrap()
                .map(|b| String::from_utf8(b).unwrap());
            (reference, text)
        })
        .collect()
}

#[test]
fn a_side_branch_is_an_orphan_that_leaves_head_index_and_work_tree_alone() {
    let (dir, store) = store();
    assert!(store.side_branch(BRANCH).unwrap().is_empty());
    let head = git(dir.path(), &["rev-parse", "HEAD"]);
    let first = write_state(&store, "one\n").expect("a first commit");
    assert_eq!(git(dir.path(), &["rev-parse", "HEAD"]), head);
    assert_eq!(git(dir.path(), &["status", "--porcelain"]), "");
    assert_eq!(
        git(dir.path(), &["rev-list", "--parents", BRANCH]).trim(),
        first,
        "no parent"
    );
    assert_eq!(
        git(dir.path(), &["show", &format!("{BRANCH}:state.json")]),
        "one\n"
    );
    assert_eq!(
        write_state(&store, "one\n"),
        None,
        "the same content: no commit"
    );
    let second = write_state(&store, "two\n").unwrap();
    assert_eq!(
        git(dir.path(), &["rev-list", "--parents", "-n1", BRANCH]).trim(),
        format!("{second} {first}")
    );
    assert_eq!(
        git(dir.path(), &["ls-tree", "--name-only", BRANCH]),
        "state.json\n"
    );
}

#[test]
fn a_plain_clone_reads_the_remote_copy_and_its_next_commit_fast_forwards_it() {
    let (dir, store) = store();
    write_state(&store, "night 1\n").unwrap();
    let clones = tempfile::tempdir().unwrap();
    let clone_dir = clones.path().join("clone");
    git(
        clones.path(),
        &[
            "clone",
            "--quiet",
            &dir.path().display().to_string(),
            "clone",
        ],
    );
    identity(&clone_dir);
    let clone = Store::discover(&clone_dir).unwrap();
    assert_eq!(
        read_all(&clone),
        [(
            "refs/remotes/origin/driftgate/state".to_owned(),
            Some("night 1\n".to_owned())
        )],
        "a clone has no local branch, only origin's copy"
    );
    let second = write_state(&clone, "night 2\n").unwrap();
    git(&clone_dir, &["push", "--quiet", "origin", BRANCH]);
    assert_eq!(git(dir.path(), &["rev-parse", BRANCH]).trim(), second);
    // Unchanged content in a new clone: no commit, but a local branch to push.
    let again = clones.path().join("again");
    git(
        clones.path(),
        &[
            "clone",
            "--quiet",
            &dir.path().display().to_string(),
            "again",
        ],
    );
    let again_store = Store::discover(&again).unwrap();
    assert_eq!(write_state(&again_store, "night 2\n"), None);
    assert_eq!(git(&again, &["rev-parse", BRANCH]).trim(), second);
    git(&again, &["push", "--quiet", "origin", BRANCH]);
}

#[test]
fn diverged_copies_are_joined_by_a_commit_with_both_as_parents() {
    let (dir, store) = store();
    let base = write_state(&store, "base\n").unwrap();
    let clones = tempfile::tempdir().unwrap();
    let clone_dir = clones.path().join("clone");
    git(
        clones.path(),
        &[
            "clone",
            "--quiet",
            &dir.path().display().to_string(),
            "clone",
        ],
    );
    let clone = Store::discover(&clone_dir).unwrap();
    let theirs = write_state(&clone, "theirs\n").unwrap();
    let ours = write_state(&store, "ours\n").unwrap();
    git(&clone_dir, &["fetch", "--quiet", "origin"]);
    let remote_copy = git(&clone_dir, &["rev-parse", "origin/driftgate/state"]);
    assert_eq!(remote_copy.trim(), ours);
    let joined = write_state(&clone, "both\n").unwrap();
    let parents = git(&clone_dir, &["rev-list", "--parents", "-n1", BRANCH]);
    assert_eq!(parents.trim(), format!("{joined} {theirs} {ours}"));
    git(&clone_dir, &["push", "--quiet", "origin", BRANCH]);
    // An ancestor is never a second parent.
    let next = write_state(&store, "after\n");
    assert!(next.is_some());
    assert!(!git(dir.path(), &["rev-list", "--parents", "-n1", BRANCH]).contains(&base));
}

#[test]
fn a_branch_moved_by_someone_else_meanwhile_is_a_race_and_not_overwritten() {
    let (dir, store) = store();
    write_state(&store, "one\n").unwrap();
    let lock = store.lock(Duration::from_secs(1)).unwrap();
    let branch = store.side_branch(BRANCH).unwrap();
    drop(lock);
    let moved = write_state(&store, "two\n").unwrap();
    let lock = store.lock(Duration::from_secs(1)).unwrap();
    let err = store
        .commit_side_branch(
            &lock,
            &branch,
            &[FileWrite::new("state.json", b"three\n".to_vec())],
            "state",
        )
        .unwrap_err();
    assert!(matches!(err, StoreError::Raced { .. }), "{err}");
    assert_eq!(git(dir.path(), &["rev-parse", BRANCH]).trim(), moved);
}
