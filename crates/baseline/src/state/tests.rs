use jiff::Timestamp;

use super::{Recorded, STATE_BRANCH, State, StateError};
use driftgate_store::Store;
use driftgate_store::testing::{committer_store, git};

fn at(text: &str) -> Timestamp {
    text.parse().unwrap()
}

const NOW: &str = "2026-12-01T02:00:00Z";

fn hosts(store: &Store) -> Vec<(String, Timestamp)> {
    State::load(store)
        .unwrap()
        .hosts
        .into_iter()
        .map(|(h, s)| (h, s.last_good))
        .collect()
}

#[test]
fn no_branch_is_an_empty_state_and_a_corrupt_copy_is_an_error_naming_it() {
    let (dir, store) = committer_store();
    assert_eq!(State::load(&store).unwrap(), State::default());
    State::record(&store, &[("h1".into(), at(NOW))], None).unwrap();
    // Someone commits a broken file on the branch.
    let broken = dir.path().join("broken");
    git(
        dir.path(),
        &[
            "worktree",
            "add",
            "--quiet",
            broken.to_str().unwrap(),
            STATE_BRANCH,
        ],
    );
    std::fs::write(
        broken.join("state.json"),
        "{\"hosts\": {\"h1\": {\"last_good\": \"yesterday\"}}}",
    )
    .unwrap();
    git(&broken, &["commit", "--quiet", "-am", "broken"]);
    let err = State::load(&store).unwrap_err();
    assert!(matches!(err, StateError::Corrupt { .. }), "{err}");
    assert!(
        err.to_string()
            .contains("refs/heads/driftgate/state:state.json: not a driftgate state file"),
        "{err}"
    );
    let err = State::record(&store, &[("h2".into(), at(NOW))], None).unwrap_err();
    assert!(matches!(err, StateError::Corrupt { .. }), "{err}");
    assert!(
        git(dir.path(), &["show", "driftgate/state:state.json"]).contains("yesterday"),
        "a corrupt state is never reset"
    );
}

#[test]
fn recording_keeps_other_hosts_never_moves_a_time_backwards_and_leaves_the_baselines_alone() {
    let (dir, store) = committer_store();
    std::fs::write(dir.path().join("notes.txt"), "mine").unwrap();
    let first = State::record(
        &store,
        &[("h1".into(), at(NOW)), ("h2".into(), at(NOW))],
        Some("night-1"),
    )
    .unwrap();
    assert!(first.commit.is_some());
    State::record(
        &store,
        &[
            ("h1".into(), at("2026-11-01T00:00:00Z")),
            ("h3".into(), at("2026-11-01T00:00:00Z")),
        ],
        None,
    )
    .unwrap();
    assert_eq!(
        hosts(&store),
        [
            ("h1".to_owned(), at(NOW)),
            ("h2".to_owned(), at(NOW)),
            ("h3".to_owned(), at("2026-11-01T00:00:00Z"))
        ]
    );
    let again = State::record(&store, &[("h1".into(), at(NOW))], None).unwrap();
    assert_eq!(again, Recorded { commit: None }, "nothing new: no commit");
    assert_eq!(
        git(dir.path(), &["log", "--format=%s", STATE_BRANCH]),
        "state: last good captures of 3 hosts (2 from this run)\n\
         state: last good captures of 2 hosts (2 from this run)\n"
    );
    assert!(
        git(
            dir.path(),
            &["log", "-1", "--format=%b", &first.commit.unwrap()]
        )
        .contains("Run: night-1")
    );
    assert_eq!(
        git(dir.path(), &["status", "--porcelain"]),
        "?? notes.txt\n"
    );
    assert!(
        !dir.path().join(".driftgate").exists(),
        "nothing in the work tree"
    );
}

#[test]
fn two_runs_recording_at_once_lose_no_host() {
    let (dir, _store) = committer_store();
    std::thread::scope(|scope| {
        for shard in ["a", "b"] {
            let tree = dir.path();
            scope.spawn(move || {
                let store = Store::discover(tree).unwrap();
                for i in 0..10 {
                    State::record(&store, &[(format!("{shard}-{i:02}"), at(NOW))], None).unwrap();
                }
            });
        }
    });
    let store = Store::discover(dir.path()).unwrap();
    assert_eq!(hosts(&store).len(), 20);
}

#[test]
fn a_fresh_clone_reads_the_state_and_its_write_pushes_as_a_fast_forward() {
    let (dir, store) = committer_store();
    State::record(&store, &[("h1".into(), at(NOW))], None).unwrap();
    let clones = tempfile::tempdir().unwrap();
    git(
        clones.path(),
        &["clone", "--quiet", dir.path().to_str().unwrap(), "clone"],
    );
    let clone_dir = clones.path().join("clone");
    assert_eq!(
        git(&clone_dir, &["branch", "--list", STATE_BRANCH]),
        "",
        "no local branch"
    );
    let clone = Store::discover(&clone_dir).unwrap();
    assert_eq!(hosts(&clone), [("h1".to_owned(), at(NOW))]);
    State::record(&clone, &[("h2".into(), at(NOW))], None).unwrap();
    git(&clone_dir, &["push", "--quiet", "origin", STATE_BRANCH]);
    assert_eq!(
        hosts(&store),
        [("h1".to_owned(), at(NOW)), ("h2".to_owned(), at(NOW))]
    );
}
