use std::time::Duration;

use super::*;
use driftgate_compare::{Policy, Verdict};
use driftgate_snapshot::{
    FactPath, Facts, HostName, Snapshot, SourceRecord, SourceStatus, VerifiedSnapshot,
};
use driftgate_store::{FileWrite, HistoryScope, ObjectCounts, Store};

fn snapshot(
    host: &str,
    facts: &[(&str, driftgate_snapshot::FactValue)],
    status: SourceStatus,
) -> VerifiedSnapshot {
    let facts: Facts = facts
        .iter()
        .map(|(p, v)| (FactPath::new(*p).unwrap(), v.clone()))
        .collect();
    let s = Snapshot {
        host: HostName::new(host).unwrap(),
        captured_at: "2026-11-30T02:00:00Z".parse().unwrap(),
        tool: "driftgate test".into(),
        sources: vec![SourceRecord {
            name: "esxi".into(),
            target: "ssh://root@esx01".into(),
            status,
            error: (status != SourceStatus::Complete).then(|| "esxcli: not found".into()),
        }],
        facts,
    };
    VerifiedSnapshot::parse(&s.to_canonical_json(), &format!("{host}.json")).unwrap()
}

#[test]
fn summaries_count_by_severity_and_name_blocking_paths() {
    let policy = Policy::builtin();
    let old = snapshot(
        "h",
        &[
            ("storage/nmp/d1/psp", "VMW_PSP_MRU".into()),
            ("bios/A", "x".into()),
        ],
        SourceStatus::Complete,
    );
    let new = snapshot(
        "h",
        &[
            ("storage/nmp/d1/psp", "VMW_PSP_RR".into()),
            ("bios/A", "y".into()),
        ],
        SourceStatus::Complete,
    );
    let summary = summarize(Some(&old), &new, &policy);
    assert_eq!(
        summary.describe(),
        "1 block, 1 warn, 0 info; blocking: storage/nmp/d1/psp"
    );
    assert_eq!(
        summarize(None, &new, &policy).describe(),
        "new baseline, 2 facts"
    );
    let many = ChangeSummary {
        blocking: (0..5)
            .map(|i| FactPath::new(format!("a/{i}")).unwrap())
            .collect(),
        ..ChangeSummary::default()
    };
    assert!(
        many.describe()
            .ends_with("blocking: a/0, a/1, a/2, +2 more"),
        "{}",
        many.describe()
    );
}

#[test]
fn refusals_explain_partial_captures_and_blocking_findings() {
    let policy = Policy::builtin();
    let partial = snapshot("h", &[], SourceStatus::Partial);
    let refusal = super::promote::refusal(&partial, &policy).unwrap();
    assert_eq!(refusal.verdict, Verdict::Incomplete);
    assert_eq!(
        refusal.reasons,
        vec!["source esxi (ssh://root@esx01) is partial: esxcli: not found"]
    );
    let rr = snapshot(
        "h",
        &[
            ("storage/nmp/d1/psp", "VMW_PSP_RR".into()),
            ("storage/nmp/d1/perennially_reserved", true.into()),
        ],
        SourceStatus::Complete,
    );
    let refusal = super::promote::refusal(&rr, &policy).unwrap();
    assert_eq!(refusal.verdict, Verdict::Block);
    assert_eq!(
        refusal.short_reasons,
        vec!["[psp-rr-on-reserved-device] storage/nmp/d1/psp"]
    );
    let healthy = snapshot(
        "h",
        &[("storage/nmp/d1/psp", "VMW_PSP_MRU".into())],
        SourceStatus::Complete,
    );
    assert_eq!(super::promote::refusal(&healthy, &policy), None);
}

use driftgate_store::testing::committer_store as test_store;

#[test]
fn hosts_of_several_fleets_go_into_one_commit() {
    let (_dir, store) = test_store();
    let host = |name: &str| snapshot(name, &[("bios/A", "x".into())], SourceStatus::Complete);
    let request = PromoteRequest {
        snapshots: vec![
            FleetSnapshot {
                fleet: "azure-local".into(),
                snapshot: host("azl-node01"),
                replaces: Vec::new(),
            },
            FleetSnapshot {
                fleet: "esxi".into(),
                snapshot: host("esx01"),
                replaces: Vec::new(),
            },
        ],
        message: Some("Gate run CHG-1".into()),
        force_reason: None,
        lock_wait: Duration::from_secs(1),
    };
    let PromoteOutcome::Promoted { hosts, commit, .. } =
        promote(&store, &Policy::builtin(), request).unwrap()
    else {
        panic!("refused")
    };
    assert!(commit.is_some());
    let paths: Vec<&str> = hosts.iter().map(|h| h.path.as_str()).collect();
    assert_eq!(
        paths,
        [
            "baselines/azure-local/azl-node01.json",
            "baselines/esxi/esx01.json"
        ]
    );
    for path in paths {
        assert!(store.read_head(path).unwrap().is_some(), "{path}");
    }
    let history = store.history(HistoryScope::All, 10).unwrap();
    assert_eq!(history.len(), 1);
    assert_eq!(
        history[0].summary,
        "baseline: promote 2 hosts (azure-local, esxi)"
    );
    for host in ["azl-node01 (fleet azure-local)", "esx01 (fleet esxi)"] {
        assert!(history[0].message.contains(host), "{}", history[0].message);
    }
}

#[test]
fn a_promote_that_expects_another_previous_baseline_is_refused_under_the_lock() {
    // What a gate's post promotes may replace only the baseline its pre was judged against:
    // one promoted by someone else meanwhile is found under the lock and refused.
    let (_dir, store) = test_store();
    let version = |value: &str| {
        snapshot(
            "azl-node01",
            &[("bios/A", value.into())],
            SourceStatus::Complete,
        )
    };
    let (judged, theirs, ours) = (version("judged"), version("theirs"), version("ours"));
    let request = |snapshot: VerifiedSnapshot, replaces: Vec<String>| PromoteRequest {
        snapshots: vec![FleetSnapshot {
            fleet: "azure-local".into(),
            snapshot,
            replaces,
        }],
        message: None,
        force_reason: None,
        lock_wait: Duration::from_secs(1),
    };
    let policy = Policy::builtin();
    promote(&store, &policy, request(judged.clone(), Vec::new())).unwrap();
    promote(&store, &policy, request(theirs, Vec::new())).unwrap();
    let refused = promote(
        &store,
        &policy,
        request(ours.clone(), vec![judged.digest().to_owned()]),
    );
    assert!(
        matches!(refused, Err(PromoteError::Moved { .. })),
        "{refused:?}"
    );
    assert_eq!(store.history(HistoryScope::All, 10).unwrap().len(), 2);
    // The baseline it was judged against is still there: promoted.
    let theirs_now = VerifiedSnapshot::parse(
        std::str::from_utf8(
            &store
                .read_head("baselines/azure-local/azl-node01.json")
                .unwrap()
                .unwrap(),
        )
        .unwrap(),
        "head",
    )
    .unwrap();
    promote(
        &store,
        &policy,
        request(ours, vec![theirs_now.digest().to_owned()]),
    )
    .unwrap();
    assert_eq!(store.history(HistoryScope::All, 10).unwrap().len(), 3);
}

/// The git objects that each store operation reads, in a store of `size` hosts of fleet `a`
/// (plus one of fleet `b`) where `baselines/a/` has a history of 4 promotes: a promote of 3
/// changed hosts, 1 identical one and 1 new one; a show; the history of one host; and the
/// read of every baseline at HEAD. Each from a freshly opened store, so counts start at 0.
fn objects_read(size: usize) -> [(&'static str, ObjectCounts); 4] {
    let (dir, store) = test_store();
    let policy = Policy::builtin();
    let host = |name: &str, value: &str| {
        snapshot(name, &[("bios/A", value.into())], SourceStatus::Complete)
    };
    let promote_all = |store: &Store, fleet: &str, snapshots: Vec<VerifiedSnapshot>| {
        let request = PromoteRequest::one_fleet(fleet, snapshots, Duration::from_secs(1));
        let PromoteOutcome::Promoted { .. } = promote(store, &policy, request).unwrap() else {
            panic!("refused")
        };
    };
    let names: Vec<String> = (0..size).map(|i| format!("h{i:04}")).collect();
    promote_all(&store, "a", names.iter().map(|n| host(n, "x")).collect());
    promote_all(&store, "b", vec![host("other", "x")]);
    for round in ["v1", "v2", "v3"] {
        promote_all(
            &store,
            "a",
            vec![host("h0000", round), host("h0001", round)],
        );
    }
    let fresh = || Store::discover(dir.path()).unwrap();

    let store = fresh();
    let mut snapshots: Vec<VerifiedSnapshot> = ["h0002", "h0003", "h0004"]
        .iter()
        .map(|n| host(n, "changed"))
        .collect();
    snapshots.push(host("h0005", "x"));
    snapshots.push(host("new-host", "x"));
    promote_all(&store, "a", snapshots);
    let promoted = store.object_counts();

    let store = fresh();
    let file = store.host_file("HEAD", "h0003").unwrap().unwrap();
    store.read_file(&file).unwrap();
    let shown = store.object_counts();

    let store = fresh();
    let host = HostName::new("h0001").unwrap();
    let history = log(&store, &Policy::builtin(), Some(&host), 10).unwrap();
    assert_eq!(history.len(), 4, "the first promote and three rounds");
    let logged = store.object_counts();

    let store = fresh();
    let files = store.baseline_files("HEAD").unwrap();
    assert_eq!(files.len(), size + 2);
    for file in &files {
        store.read_file(file).unwrap();
    }
    let mut read_all = store.object_counts();
    read_all.blobs_read -= files.len() as u64;
    [
        ("promote", promoted),
        ("show", shown),
        ("log", logged),
        ("read all (beyond one blob per host)", read_all),
    ]
}

#[test]
fn store_operations_read_as_many_git_objects_in_a_store_of_200_hosts_as_in_one_of_10() {
    let (small, large) = (objects_read(10), objects_read(200));
    for ((what, small), (_, large)) in small.iter().zip(&large) {
        assert_eq!(small, large, "{what}: objects read grow with the store");
    }
    let [(_, promoted), (_, shown), (_, logged), (_, read_all)] = large;
    // Per changed host one blob read (its previous baseline) and one written; the identical
    // host is neither read nor written. Trees: HEAD's root, baselines/ and both fleet folders
    // for the lookups, the same path again for the commit's check of the work tree, and the
    // new root.
    assert_eq!((promoted.blobs_read, promoted.blobs_written), (3, 4));
    assert!(promoted.trees_read <= 8, "{promoted:?}");
    assert!(promoted.commits_read <= 2, "{promoted:?}");
    // Root, baselines/, the two fleet folders, the blob.
    assert_eq!((shown.trees_read, shown.blobs_read), (4, 1), "{shown:?}");
    // Each of the host's four versions once (a version a commit replaced is the one the
    // commit before it wrote). Of each of the 7 commits, its root and baselines folder once;
    // of the 5 that changed `baselines/a/`, that folder once (as parent, then as child).
    assert_eq!(logged.blobs_read, 4, "{logged:?}");
    assert!(logged.trees_read <= 7 * 2 + 5, "{logged:?}");
    assert_eq!(
        (read_all.trees_read, read_all.blobs_read),
        (4, 0),
        "{read_all:?}"
    );
}

#[test]
fn the_log_says_which_version_of_a_baseline_does_not_verify() {
    let (_dir, store) = test_store();
    let policy = Policy::builtin();
    let good = snapshot("h1", &[("bios/A", "x".into())], SourceStatus::Complete);
    let request = PromoteRequest::one_fleet("a", vec![good], Duration::from_secs(1));
    let PromoteOutcome::Promoted { hosts, .. } = promote(&store, &policy, request).unwrap() else {
        panic!("refused")
    };
    let lock = store.lock(Duration::from_secs(1)).unwrap();
    let edit = FileWrite::new(hosts[0].path.as_str(), b"{}\n".to_vec());
    store
        .commit(&lock, &[edit], "hand edit\n", &|_| false)
        .unwrap();
    drop(lock);
    let history = log(&store, &policy, None, 10).unwrap();
    let (path, change) = &history[0].changes[0];
    assert_eq!(path, &hosts[0].path);
    let Err(LogChangeError::Unreadable(error)) = change else {
        panic!("{change:?}")
    };
    let text = LogChangeError::Unreadable(error.clone()).to_string();
    assert!(
        text.starts_with("unreadable: ") && text.contains(&format!("git:{}:{path}", history[0].id)),
        "{text}"
    );
}
