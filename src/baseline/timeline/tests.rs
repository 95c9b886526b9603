use std::time::Duration;

use super::*;
use crate::snapshot::{Facts, HostName, Snapshot, SourceRecord, SourceStatus};
use crate::store::FileWrite;

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

fn test_store() -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open_or_init(dir.path()).unwrap();
    let mut config = git2::Repository::open(dir.path())
        .unwrap()
        .config()
        .unwrap();
    config.set_str("user.name", "Test Operator").unwrap();
    config.set_str("user.email", "test@example.com").unwrap();
    (dir, store)
}

fn commit(store: &Store, files: &[(&str, Vec<u8>)], message: &str) {
    let writes: Vec<FileWrite> = files
        .iter()
        .map(|(path, content)| FileWrite {
            path: (*path).to_owned(),
            content: content.clone(),
        })
        .collect();
    let lock = store.lock(Duration::from_secs(1)).unwrap();
    store.commit(&lock, &writes, message, &|_| false).unwrap();
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
    let root = store.location().to_path_buf();
    std::fs::remove_file(root.join(ESX02)).unwrap();
    let status = std::process::Command::new("git")
        .arg("-C")
        .arg(&root)
        .args(["commit", "-qam", "retire esx02"])
        .status()
        .unwrap();
    assert!(status.success());
    let timelines = timelines(&store, &Policy::builtin(), &["esx02"], 10).unwrap();
    let entries = &timelines["esx02"];
    assert_eq!(entries.len(), 2);
    assert!(entries[0].removed && entries[0].unreadable.is_none());
    assert_eq!(entries[0].summary, "retire esx02");
}
