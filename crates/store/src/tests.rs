use std::path::{Path, PathBuf};
use std::time::Duration;

use super::testing::{git, identity};
use super::*;
use driftgate_snapshot::VerifiedSnapshot;
use git2::Repository;

fn new_store() -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().unwrap();
    Store::open_or_init(dir.path()).unwrap();
    identity(dir.path());
    let store = Store::discover(dir.path()).unwrap();
    (dir, store)
}

fn write(path: &str, content: &str) -> FileWrite {
    FileWrite::new(path, content.as_bytes().to_vec())
}

fn commit(store: &Store, files: &[FileWrite], message: &str) -> Committed {
    let lock = store.lock(Duration::from_secs(1)).unwrap();
    store.commit(&lock, files, message, &|_| false).unwrap()
}

/// Takes the store lock, then plants a lock file on HEAD's branch: libgit2 then refuses to
/// move the branch, so the commit fails after writing the work tree. Planted after the store
/// lock was taken, it is someone else's git at work, not a leftover the lock removes.
fn lock_then_plant_a_ref_lock(dir: &tempfile::TempDir, store: &Store) -> (StoreLock, PathBuf) {
    let lock = store.lock(Duration::from_secs(1)).unwrap();
    let head = git(dir.path(), &["symbolic-ref", "HEAD"]);
    let ref_lock = dir
        .path()
        .join(".git")
        .join(format!("{}.lock", head.trim()));
    std::fs::write(&ref_lock, "").unwrap();
    (lock, ref_lock)
}

#[test]
fn first_commit_on_an_unborn_branch_and_reads_at_revisions() {
    let (dir, store) = new_store();
    assert!(!store.has_commits());
    assert_eq!(store.read_head("baselines/f/h.json").unwrap(), None);
    let first = commit(&store, &[write("baselines/f/h.json", "one\n")], "first");
    let second = commit(&store, &[write("baselines/f/h.json", "two\n")], "second");
    assert_ne!(first.id, second.id);
    assert_eq!(store.read("HEAD", "baselines/f/h.json").unwrap(), b"two\n");
    assert_eq!(
        store.read("HEAD~1", "baselines/f/h.json").unwrap(),
        b"one\n"
    );
    assert_eq!(
        store
            .read(&first.id.to_string(), "baselines/f/h.json")
            .unwrap(),
        b"one\n"
    );
    assert!(matches!(
        store.read("nope", "x"),
        Err(StoreError::UnknownRevision { .. })
    ));
    assert!(matches!(
        store.read("HEAD", "baselines/f/x.json"),
        Err(StoreError::UnknownPath { .. })
    ));
    assert_eq!(
        std::fs::read_to_string(dir.path().join("baselines/f/h.json")).unwrap(),
        "two\n"
    );
    assert_eq!(git(dir.path(), &["status", "--porcelain"]), "");
    assert_eq!(git(dir.path(), &["fsck", "--full", "--no-dangling"]), "");
    assert_eq!(git(dir.path(), &["log", "--format=%s"]), "second\nfirst\n");
}

#[test]
fn a_commit_leaves_unrelated_staged_modified_and_untracked_files_alone() {
    let (dir, store) = new_store();
    let root = dir.path();
    commit(
        &store,
        &[write("notes.txt", "v1\n"), write("staged.txt", "v1\n")],
        "setup",
    );
    std::fs::write(root.join("notes.txt"), "edited, not staged\n").unwrap();
    std::fs::write(root.join("staged.txt"), "edited and staged\n").unwrap();
    git(root, &["add", "staged.txt"]);
    std::fs::write(root.join("untracked.txt"), "new\n").unwrap();
    let before = git(root, &["status", "--porcelain"]);

    commit(&store, &[write("baselines/f/h.json", "{}\n")], "promote");
    assert_eq!(
        git(root, &["status", "--porcelain"]),
        before,
        "only the baseline path may change"
    );
    assert_eq!(
        git(root, &["show", "--name-only", "--format=", "HEAD"]),
        "baselines/f/h.json\n"
    );
    assert_eq!(
        git(root, &["show", "HEAD:staged.txt"]),
        "v1\n",
        "a staged change must not sneak into the commit"
    );
    assert_eq!(
        std::fs::read_to_string(root.join("notes.txt")).unwrap(),
        "edited, not staged\n"
    );
}

#[test]
fn an_uncommitted_edit_of_the_target_file_is_refused() {
    let (dir, store) = new_store();
    commit(
        &store,
        &[write("baselines/f/h.json", "committed\n")],
        "setup",
    );
    std::fs::write(dir.path().join("baselines/f/h.json"), "hand edit\n").unwrap();
    let lock = store.lock(Duration::from_secs(1)).unwrap();
    let err = store
        .commit(
            &lock,
            &[write("baselines/f/h.json", "new\n")],
            "promote",
            &|_| false,
        )
        .unwrap_err();
    assert!(matches!(err, StoreError::DirtyPath { .. }), "{err}");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("baselines/f/h.json")).unwrap(),
        "hand edit\n"
    );
    assert_eq!(
        store.read("HEAD", "baselines/f/h.json").unwrap(),
        b"committed\n"
    );
    // Content the caller recognises as replaceable (a leftover of an interrupted write) is not.
    store
        .commit(
            &lock,
            &[write("baselines/f/h.json", "new\n")],
            "promote",
            &|b| b == b"hand edit\n",
        )
        .unwrap();
    assert_eq!(store.read("HEAD", "baselines/f/h.json").unwrap(), b"new\n");
}

#[test]
fn a_failed_commit_puts_the_work_tree_and_index_back() {
    let (dir, store) = new_store();
    commit(
        &store,
        &[write("baselines/f/h.json", "committed\n")],
        "setup",
    );
    let (lock, ref_lock) = lock_then_plant_a_ref_lock(&dir, &store);
    let err = store.commit(
        &lock,
        &[
            write("baselines/f/h.json", "new\n"),
            write("baselines/f/i.json", "i\n"),
        ],
        "promote",
        &|_| false,
    );
    match err {
        Err(StoreError::GitLocked { lock, .. }) => {
            assert_eq!(
                Path::new(&lock),
                ref_lock,
                "the message names the lock file"
            )
        }
        other => panic!("expected a git lock error, got {other:?}"),
    }
    std::fs::remove_file(&ref_lock).unwrap();
    assert_eq!(
        std::fs::read_to_string(dir.path().join("baselines/f/h.json")).unwrap(),
        "committed\n"
    );
    assert!(!dir.path().join("baselines/f/i.json").exists());
    assert_eq!(git(dir.path(), &["status", "--porcelain"]), "");
}

/// The undo keeps bytes only where HEAD's blob cannot give them back: a leftover of an
/// interrupted promote is put back as it was, and a file that already held the new bytes
/// stays as it is.
#[test]
fn a_failed_commit_puts_back_a_leftover_and_keeps_a_file_already_written() {
    let (dir, store) = new_store();
    commit(
        &store,
        &[
            write("baselines/f/left.json", "committed\n"),
            write("baselines/f/same.json", "committed\n"),
        ],
        "setup",
    );
    let work = |name: &str| dir.path().join("baselines/f").join(name);
    std::fs::write(work("left.json"), "leftover\n").unwrap();
    std::fs::write(work("same.json"), "new\n").unwrap();
    let (lock, ref_lock) = lock_then_plant_a_ref_lock(&dir, &store);
    let err = store.commit(
        &lock,
        &[
            write("baselines/f/left.json", "new\n"),
            write("baselines/f/same.json", "new\n"),
        ],
        "promote",
        &|bytes| bytes == b"leftover\n",
    );
    assert!(matches!(err, Err(StoreError::GitLocked { .. })), "{err:?}");
    std::fs::remove_file(&ref_lock).unwrap();
    let read = |name: &str| std::fs::read_to_string(work(name)).unwrap();
    assert_eq!(read("left.json"), "leftover\n");
    assert_eq!(read("same.json"), "new\n");
    assert_eq!(
        git(dir.path(), &["status", "--porcelain"]),
        " M baselines/f/left.json\n M baselines/f/same.json\n",
        "the index is HEAD's again"
    );
}

#[test]
fn a_bare_repository_gets_commits_straight_into_its_tree() {
    let dir = tempfile::tempdir().unwrap();
    Repository::init_bare(dir.path()).unwrap();
    identity(dir.path());
    let store = Store::discover(dir.path()).unwrap();
    assert!(store.is_bare());
    commit(&store, &[write("baselines/f/h.json", "x\n")], "promote");
    commit(&store, &[write("baselines/g/i.json", "y\n")], "promote 2");
    assert_eq!(store.read("HEAD", "baselines/f/h.json").unwrap(), b"x\n");
    assert_eq!(
        store
            .host_file("HEAD", "i")
            .unwrap()
            .map(|f| f.path)
            .as_deref(),
        Some("baselines/g/i.json")
    );
    assert_eq!(git(dir.path(), &["fsck", "--full", "--no-dangling"]), "");
}

#[test]
fn hosts_are_found_in_any_fleet_and_duplicates_are_an_error() {
    let (_dir, store) = new_store();
    commit(
        &store,
        &[
            write("baselines/a/h1.json", "{}"),
            write("baselines/b/h2.json", "{}"),
            write("baselines/README.md", "x"),
        ],
        "setup",
    );
    assert_eq!(
        store
            .host_file("HEAD", "h1")
            .unwrap()
            .map(|f| f.path)
            .as_deref(),
        Some("baselines/a/h1.json")
    );
    assert_eq!(
        store
            .host_file("HEAD", "h2")
            .unwrap()
            .map(|f| f.path)
            .as_deref(),
        Some("baselines/b/h2.json")
    );
    assert!(store.host_file("HEAD", "h3").unwrap().is_none());
    commit(&store, &[write("baselines/b/h1.json", "{}")], "duplicate");
    assert!(matches!(
        store.host_file("HEAD", "h1"),
        Err(StoreError::AmbiguousHost { .. })
    ));
    assert_eq!(
        store
            .host_file("HEAD~1", "h1")
            .unwrap()
            .map(|f| f.path)
            .as_deref(),
        Some("baselines/a/h1.json")
    );
}

#[test]
fn the_lock_excludes_a_second_holder_until_released() {
    let (_dir, store) = new_store();
    let held = store.lock(Duration::from_secs(1)).unwrap();
    let other = Store::discover(store.location()).unwrap();
    let start = std::time::Instant::now();
    let err = other.lock(Duration::from_millis(200)).unwrap_err();
    assert!(matches!(err, StoreError::Locked { .. }), "{err}");
    assert!(start.elapsed() >= Duration::from_millis(200));
    drop(held);
    assert!(other.lock(Duration::from_millis(200)).is_ok());
}

#[test]
fn history_lists_commits_touching_a_prefix_newest_first() {
    let (_dir, store) = new_store();
    commit(&store, &[write("README.md", "x")], "unrelated");
    commit(&store, &[write("baselines/f/h1.json", "1")], "h1 v1");
    commit(&store, &[write("baselines/f/h2.json", "1")], "h2 v1");
    commit(&store, &[write("baselines/f/h1.json", "2")], "h1 v2");
    let all = store.history(HistoryScope::All, 10).unwrap();
    let summaries: Vec<&str> = all.iter().map(|e| e.summary.as_str()).collect();
    assert_eq!(summaries, vec!["h1 v2", "h2 v1", "h1 v1"]);
    let h1 = store.history(HistoryScope::Host("h1"), 10).unwrap();
    assert_eq!(h1.len(), 2);
    let bytes = |v: Option<git2::Oid>| v.map(|id| store.read_blob(id).unwrap());
    assert_eq!(bytes(h1[0].changes[0].old), Some(b"1".to_vec()));
    assert_eq!(bytes(h1[0].changes[0].new), Some(b"2".to_vec()));
    // The version a commit replaced is the one its parent wrote: the same blob.
    assert_eq!(h1[0].changes[0].old, h1[1].changes[0].new);
    assert_eq!(h1[1].changes[0].old, None);
    assert_eq!(store.history(HistoryScope::All, 1).unwrap().len(), 1);
}

#[test]
fn a_long_history_lists_each_change_once_in_order_reading_no_version() {
    let (_dir, store) = new_store();
    let mut expected = Vec::new();
    for i in 1..=150 {
        let mut files = vec![write("baselines/f/h1.json", &i.to_string())];
        if i % 3 == 0 {
            files.push(write("baselines/g/h2.json", &i.to_string()));
        }
        commit(&store, &files, &format!("c{i}"));
        expected.push(i);
    }
    expected.reverse();
    let store = Store::discover(store.location()).unwrap();
    let h1 = store.history(HistoryScope::Host("h1"), 1000).unwrap();
    let listed: Vec<String> = h1.iter().map(|e| e.summary.clone()).collect();
    let wanted: Vec<String> = expected.iter().map(|i| format!("c{i}")).collect();
    assert_eq!(listed, wanted);
    // The walk names the versions; whoever parses them reads them.
    assert_eq!(store.object_counts().blobs_read, 0);
    let text = |v: Option<git2::Oid>| {
        v.map(|id| String::from_utf8_lossy(&store.read_blob(id).unwrap()).into_owned())
    };
    for (entry, i) in h1.iter().zip(&expected) {
        assert_eq!(entry.changes.len(), 1, "{}", entry.summary);
        assert_eq!(text(entry.changes[0].new), Some(i.to_string()));
        assert_eq!(
            text(entry.changes[0].old),
            (*i > 1).then(|| (i - 1).to_string())
        );
    }
    let all = store.history(HistoryScope::All, 1000).unwrap();
    assert_eq!(all.len(), 150);
    for (entry, i) in all.iter().zip(&expected) {
        let paths: Vec<&str> = entry.changes.iter().map(|c| c.path.as_str()).collect();
        if i % 3 == 0 {
            assert_eq!(paths, ["baselines/f/h1.json", "baselines/g/h2.json"]);
            assert_eq!(
                text(entry.changes[1].old),
                (*i > 3).then(|| (i - 3).to_string())
            );
        } else {
            assert_eq!(paths, ["baselines/f/h1.json"]);
        }
    }
    // A walk stopped early reads no further.
    let store = Store::discover(store.location()).unwrap();
    assert_eq!(store.history(HistoryScope::All, 5).unwrap().len(), 5);
    assert!(
        store.object_counts().commits_read <= 2 * 5,
        "{:?}",
        store.object_counts()
    );
}

#[test]
fn a_baseline_is_read_verified_and_must_be_of_its_host() {
    let (_dir, store) = new_store();
    assert_eq!(store.head_commit().unwrap(), None);
    let snapshot = std::fs::read_to_string(concat!(
        concat!(env!("CARGO_MANIFEST_DIR"), "/../.."),
        "/examples/azure-local-dcbx/baseline.json"
    ))
    .unwrap();
    let host = VerifiedSnapshot::parse(&snapshot, "example")
        .unwrap()
        .snapshot()
        .host
        .to_string();
    commit(
        &store,
        &[
            write("baselines/f/h.json", &snapshot),
            write("baselines/f/bad.json", "{"),
        ],
        "baselines",
    );
    let head = store.head_commit().unwrap().unwrap();
    let read = store
        .read_baseline(&head, "baselines/f/h.json", &host)
        .unwrap();
    assert_eq!(read.origin(), format!("git:{head}:baselines/f/h.json"));
    let other = store
        .read_baseline(&head, "baselines/f/h.json", "someone-else")
        .unwrap_err();
    assert!(
        matches!(other, BaselineReadError::OtherHost { .. }),
        "{other:?}"
    );
    let bad = store.read_baseline(&head, "baselines/f/bad.json", &host);
    assert!(matches!(bad, Err(BaselineReadError::Invalid(_))), "{bad:?}");
    let gone = store.read_baseline(&head, "baselines/f/gone.json", &host);
    assert!(matches!(gone, Err(BaselineReadError::Store(_))), "{gone:?}");
}

#[test]
fn a_commit_of_many_files_writes_each_object_once_and_git_verifies_them() {
    let (dir, store) = new_store();
    // 150 files, two of them with the same bytes (one object) and one larger than a zlib
    // window, with a size that needs several header bytes: more than are flushed one by one.
    let large: Vec<u8> = (0..200_000u32).flat_map(|i| i.to_le_bytes()).collect();
    let files: Vec<FileWrite> = (0..150)
        .map(|i| {
            let path = format!("baselines/f/h{i:03}.json");
            match i {
                1 => FileWrite::new(path, b"host 0\n".to_vec()),
                // Hashed by the caller: libgit2 names it by the same id.
                2 => FileWrite::hashed(path, large.clone()),
                _ => FileWrite::new(path, format!("host {i}\n").into_bytes()),
            }
        })
        .collect();
    let loose = |counts: &str| {
        counts
            .lines()
            .find_map(|l| l.strip_prefix("count: "))
            .and_then(|n| n.parse::<u32>().ok())
            .unwrap()
    };
    let objects_before = git(dir.path(), &["count-objects", "-v"]);
    let committed = commit(&store, &files, "many");
    let counts = git(dir.path(), &["count-objects", "-v"]);
    // 149 blobs, the root, `baselines/`, `baselines/f/` and the commit.
    assert_eq!(loose(&counts), loose(&objects_before) + 149 + 4, "{counts}");
    git(dir.path(), &["fsck", "--strict", "--no-dangling"]);
    // Read back through the store, and by git, byte for byte.
    for file in &files {
        let rev = committed.id.to_string();
        assert_eq!(store.read(&rev, &file.path).unwrap(), file.content());
    }
    let shown = std::process::Command::new("git")
        .arg("-C")
        .arg(dir.path())
        .args(["show", "HEAD:baselines/f/h002.json"])
        .output()
        .unwrap();
    assert_eq!(shown.stdout, files[2].content());

    // Committing the same bytes again under other names writes no new object.
    let again: Vec<FileWrite> = files
        .iter()
        .map(|f| FileWrite::new(f.path.replace("/f/", "/g/"), f.content().to_vec()))
        .collect();
    let before_again = git(dir.path(), &["count-objects", "-v"]);
    commit(&store, &again, "again");
    let counts = git(dir.path(), &["count-objects", "-v"]);
    // The root, `baselines/` and the commit: `baselines/g/` is the tree `baselines/f/` is.
    assert_eq!(loose(&counts), loose(&before_again) + 3, "{counts}");
    git(dir.path(), &["fsck", "--strict", "--no-dangling"]);
}
