use std::time::Duration;

use super::*;
use driftgate_snapshot::{
    FactPath, FactValue, Facts, HostName, Snapshot, SourceRecord, SourceStatus,
};
use driftgate_store::FileWrite;

const PSP: &str = "storage/nmp/naa.600/psp";
const FIRMWARE: &str = "firmware/nic.slot.3/version";

fn baseline(host: &str, facts: &[(&str, &str)]) -> Vec<u8> {
    let facts: Facts = facts
        .iter()
        .map(|(p, v)| (FactPath::new(*p).unwrap(), FactValue::from(*v)))
        .collect();
    Snapshot {
        host: HostName::new(host).unwrap(),
        captured_at: "2026-11-30T02:00:00Z".parse().unwrap(),
        tool: "driftgate test".into(),
        sources: vec![SourceRecord {
            name: "esxi".into(),
            target: "ssh://root@esx01".into(),
            status: SourceStatus::Complete,
            error: None,
        }],
        facts,
    }
    .to_canonical_json()
    .into_bytes()
}

use driftgate_store::testing::committer_store as test_store;

fn commit(store: &Store, files: &[(&str, Vec<u8>)], message: &str) {
    let writes: Vec<FileWrite> = files
        .iter()
        .map(|(path, content)| FileWrite::new(*path, content.clone()))
        .collect();
    let lock = store.lock(Duration::from_secs(1)).unwrap();
    store.commit(&lock, &writes, message, &|_| false).unwrap();
}

/// Commits the removal of `path` with git2 (the store only ever writes files), as the
/// test store's configured operator.
fn remove(store: &Store, path: &str, message: &str) {
    let root = store.location();
    std::fs::remove_file(root.join(path)).unwrap();
    let repo = git2::Repository::open(root).unwrap();
    let mut index = repo.index().unwrap();
    index.remove_path(std::path::Path::new(path)).unwrap();
    index.write().unwrap();
    let tree = repo.find_tree(index.write_tree().unwrap()).unwrap();
    let parent = repo.head().unwrap().peel_to_commit().unwrap();
    let signature = repo.signature().unwrap();
    repo.commit(
        Some("HEAD"),
        &signature,
        &signature,
        message,
        &tree,
        &[&parent],
    )
    .unwrap();
}

/// Deletes the loose object `id` from the store: a history that cannot be read past it.
fn lose_object(store: &Store, id: git2::Oid) {
    let hex = id.to_string();
    let repo = git2::Repository::open(store.location()).unwrap();
    let file = repo.path().join("objects").join(&hex[..2]).join(&hex[2..]);
    std::fs::remove_file(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
}

const ESX01: &str = "baselines/esxi/esx01.json";
const ESX02: &str = "baselines/esxi/esx02.json";

/// esx01: created, then its PSP (block) and NIC firmware changed by gate run R42, then a
/// bios attribute (warn) changed by hand; esx02 created beside it.
fn history() -> (tempfile::TempDir, Store) {
    let (dir, store) = test_store();
    let v1 = [
        (PSP, "VMW_PSP_MRU"),
        (FIRMWARE, "229.0.166.0"),
        ("bios/A", "x"),
    ];
    commit(
        &store,
        &[
            (ESX01, baseline("esx01", &v1)),
            (ESX02, baseline("esx02", &v1)),
        ],
        "baseline: promote 2 hosts (esxi): esx01, esx02\n\nPolicy: builtin\n",
    );
    let v2 = [
        (PSP, "VMW_PSP_RR"),
        (FIRMWARE, "229.1.123.0"),
        ("bios/A", "x"),
    ];
    commit(
        &store,
        &[(ESX01, baseline("esx01", &v2))],
        "baseline: promote esx01 (esxi)\n\ngate post\n\nRun: R42\n\nPolicy: builtin\n",
    );
    let v3 = [
        (PSP, "VMW_PSP_RR"),
        (FIRMWARE, "229.1.123.0"),
        ("bios/A", "y"),
    ];
    commit(
        &store,
        &[(ESX01, baseline("esx01", &v3))],
        "baseline: promote esx01 (esxi)\n",
    );
    (dir, store)
}

#[test]
fn a_timeline_names_each_commit_its_run_and_the_blocked_settings_it_changed() {
    let (_dir, store) = history();
    let timelines = timelines(&store, &Policy::builtin(), &["esx01"], 10).unwrap();
    assert_eq!(timelines.keys().collect::<Vec<_>>(), ["esx01"]);
    let entries = &timelines["esx01"];
    assert_eq!(entries.len(), 3, "{entries:#?}");

    let [manual, gate, created] = entries.as_slice() else {
        unreachable!()
    };
    assert_eq!(manual.run, None);
    assert_eq!(manual.changes.len(), 1);
    assert_eq!(manual.changes[0].path.as_str(), "bios/A");
    assert_eq!(manual.changes[0].severity, Severity::Warn);
    assert!(manual.firmware.is_empty());

    assert_eq!(gate.run.as_deref(), Some("R42"));
    assert_eq!(gate.summary, "baseline: promote esx01 (esxi)");
    assert_eq!(gate.author, "Test Operator");
    assert!(!gate.first && !gate.removed && gate.unreadable.is_none());
    assert_eq!(
        gate.changes,
        [SettingChange {
            path: FactPath::new(PSP).unwrap(),
            severity: Severity::Block,
            old: Some("VMW_PSP_MRU".into()),
            new: Some("VMW_PSP_RR".into()),
        }]
    );
    assert_eq!(gate.firmware.len(), 1);
    assert_eq!(gate.firmware[0].path.as_str(), FIRMWARE);
    assert_eq!(gate.firmware[0].old, Some("229.0.166.0".into()));
    assert_eq!(gate.firmware[0].new, Some("229.1.123.0".into()));

    assert!(created.first);
    assert!(created.changes.is_empty() && created.firmware.is_empty());
    assert!(created.time <= gate.time && gate.time <= manual.time);
    assert_ne!(created.commit, gate.commit);
}

#[test]
fn one_walk_serves_many_hosts_and_each_keeps_its_limit() {
    let (_dir, store) = history();
    let timelines = timelines(&store, &Policy::builtin(), &["esx01", "esx02", "gone"], 2).unwrap();
    assert_eq!(timelines.keys().collect::<Vec<_>>(), ["esx01", "esx02"]);
    assert_eq!(timelines["esx01"].len(), 2);
    assert_eq!(timelines["esx01"][1].run.as_deref(), Some("R42"));
    assert_eq!(timelines["esx02"].len(), 1);
    assert!(timelines["esx02"][0].first);
    assert!(
        super::timelines(&store, &Policy::builtin(), &[], 10)
            .unwrap()
            .is_empty()
    );
}

#[test]
fn an_unreadable_baseline_in_history_is_said_in_its_entry_not_an_error() {
    let (_dir, store) = history();
    commit(&store, &[(ESX01, b"{ not json".to_vec())], "hand edit\n");
    let v4 = [
        (PSP, "VMW_PSP_MRU"),
        (FIRMWARE, "229.1.123.0"),
        ("bios/A", "y"),
    ];
    commit(&store, &[(ESX01, baseline("esx01", &v4))], "repair\n");
    let timelines = timelines(&store, &Policy::builtin(), &["esx01"], 10).unwrap();
    let entries = &timelines["esx01"];
    assert_eq!(entries.len(), 5);
    let (repair, broken) = (&entries[0], &entries[1]);
    let reason = repair.unreadable.as_deref().unwrap();
    assert!(
        reason.starts_with("the previous version unreadable"),
        "{reason}"
    );
    assert!(repair.changes.is_empty());
    let reason = broken.unreadable.as_deref().unwrap();
    assert!(reason.starts_with("this version unreadable"), "{reason}");
    assert!(reason.contains(ESX01), "{reason}");
    // The older entries are intact.
    assert_eq!(entries[3].changes[0].path.as_str(), PSP);
}

#[test]
fn a_removed_baseline_and_file_names_outside_the_layout() {
    let (_dir, store) = history();
    assert_eq!(host_of("baselines/esxi/esx01.json"), Some("esx01"));
    assert_eq!(host_of("baselines/README.md"), None);
    assert_eq!(host_of("baselines/a/b/c.json"), None);
    assert_eq!(host_of("other/esxi/esx01.json"), None);
    assert_eq!(run_of("x\n\nRun: R1\nRun: R2\n"), Some("R2".to_owned()));
    assert_eq!(run_of("x\nRun:\n"), None);
    remove(&store, ESX02, "retire esx02");
    let timelines = timelines(&store, &Policy::builtin(), &["esx02"], 10).unwrap();
    let entries = &timelines["esx02"];
    assert_eq!(entries.len(), 2);
    assert!(entries[0].removed && entries[0].unreadable.is_none());
    assert_eq!(entries[0].summary, "retire esx02");
}

#[test]
fn the_walk_stops_once_every_host_has_its_entries() {
    let (_dir, store) = history();
    let repo = git2::Repository::open(store.location()).unwrap();
    // The root commit's tree: every walk that reaches the second commit needs it.
    let mut walk = repo.revwalk().unwrap();
    walk.push_head().unwrap();
    let ids: Vec<git2::Oid> = walk.map(Result::unwrap).collect();
    let root = repo.find_commit(*ids.last().unwrap()).unwrap();
    assert!(ids.len() >= 3, "{ids:?}");
    lose_object(&store, root.tree_id());
    // A fresh handle: the first one has the tree in its object cache.
    let store = Store::open_or_init(store.location()).unwrap();
    let policy = Policy::builtin();
    // The newest commit changed esx01: one entry each needs no older commit.
    let one = timelines(&store, &policy, &["esx01"], 1).unwrap();
    assert_eq!(one["esx01"].len(), 1);
    // Asking for every entry walks into the lost tree, and says so.
    let error = timelines(&store, &policy, &["esx01"], 10).unwrap_err();
    assert!(
        error.to_string().contains("cannot be read: it is missing"),
        "{error}"
    );
    // A host without enough commits keeps the walk going to the end.
    let error = timelines(&store, &policy, &["esx01", "nobody"], 1).unwrap_err();
    assert!(
        error.to_string().contains("cannot be read: it is missing"),
        "{error}"
    );
}
