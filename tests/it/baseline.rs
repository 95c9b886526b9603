//! End-to-end tests of the git baseline store on temporary repositories: init, promote,
//! show, log, diff, `git:`/`baseline:` references, dirty and bare repositories, concurrent
//! promotes and promotes killed at random moments.

use crate::common;

use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, SystemTime};

use assert_cmd::Command;
use common::{Random, driftgate, example, git, root, stdout_of};
use predicates::prelude::*;

const AZL_BASELINE: &str = "azure-local-dcbx/baseline.json";
const AZL_PRE: &str = "azure-local-dcbx/pre-update.json";
const AZL_POST: &str = "azure-local-dcbx/post-update.json";
const ESX_BASELINE: &str = "esxi-mscs-psp/baseline.json";

fn in_store(store: &Path) -> Command {
    let mut cmd = driftgate();
    cmd.arg("--repo").arg(store);
    cmd
}

fn init_store() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temporary directory");
    driftgate()
        .args(["baseline", "init"])
        .arg(dir.path())
        .assert()
        .code(0);
    dir
}

fn promote(store: &Path, snapshots: &[&str]) -> Command {
    let mut cmd = in_store(store);
    cmd.args(["baseline", "promote", "--fleet", "azure-local"]);
    for s in snapshots {
        cmd.arg(example(s));
    }
    cmd
}

fn commit_count(store: &Path) -> usize {
    git(store, &["rev-list", "--count", "HEAD"])
        .trim()
        .parse()
        .expect("a number")
}

fn assert_repository_valid(store: &Path) {
    git(store, &["fsck", "--full", "--strict", "--no-dangling"]);
}

#[test]
fn init_creates_the_layout_once() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("new-store");
    driftgate()
        .args(["baseline", "init"])
        .arg(&store)
        .assert()
        .code(0)
        .stdout(predicate::str::contains(
            "added baselines/README.md, driftgate.toml, .gitignore",
        ));
    assert_eq!(
        std::fs::read_to_string(store.join(".gitignore")).unwrap(),
        "# driftgate's own folder of the work tree (gate runs): never committed\n/.driftgate/\n"
    );
    assert!(
        std::fs::read_to_string(store.join("baselines/README.md"))
            .unwrap()
            .contains("baselines/<fleet>/<host>.json")
    );
    let policy = std::fs::read_to_string(store.join("driftgate.toml")).unwrap();
    assert!(
        policy.lines().all(|l| l.is_empty() || l.starts_with('#')),
        "the policy template is all comments"
    );
    assert_eq!(commit_count(&store), 1);
    driftgate()
        .args(["baseline", "init"])
        .arg(&store)
        .assert()
        .code(0)
        .stdout(predicate::str::contains("already a baseline store"));
    assert_eq!(commit_count(&store), 1);
    assert_eq!(git(&store, &["status", "--porcelain"]), "");
}

#[test]
fn init_adopts_an_existing_repository_and_keeps_its_files() {
    let dir = tempfile::tempdir().unwrap();
    git(dir.path(), &["init", "-q"]);
    std::fs::write(
        dir.path().join("driftgate.toml"),
        "[invariants]\ndcbx-capability-lost = \"warn\"\n",
    )
    .unwrap();
    git(dir.path(), &["add", "driftgate.toml"]);
    git(dir.path(), &["commit", "-qm", "our policy"]);
    driftgate()
        .args(["baseline", "init"])
        .arg(dir.path())
        .assert()
        .code(0)
        .stdout(predicate::str::contains(
            "added baselines/README.md, .gitignore in",
        ));
    assert_eq!(
        std::fs::read_to_string(dir.path().join("driftgate.toml")).unwrap(),
        "[invariants]\ndcbx-capability-lost = \"warn\"\n"
    );
    assert_eq!(commit_count(dir.path()), 2);
}

#[test]
fn promote_show_log_and_diff_across_revisions() {
    let dir = init_store();
    let store = dir.path();

    // Many at once: one commit.
    promote(store, &[AZL_BASELINE, ESX_BASELINE])
        .assert()
        .code(0)
        .stdout(predicate::str::contains(
            "azl-node01 → baselines/azure-local/azl-node01.json: new baseline, 125 facts",
        ))
        .stdout(predicate::str::contains(
            "esx01 → baselines/azure-local/esx01.json: new baseline",
        ));
    assert_eq!(commit_count(store), 2);
    assert_eq!(
        git(store, &["show", "--name-only", "--format=%s", "HEAD"]),
        "baseline: promote 2 hosts (azure-local)\n\nbaselines/azure-local/azl-node01.json\nbaselines/azure-local/esx01.json\n"
    );

    // The same facts captured later: no commit.
    promote(store, &[AZL_PRE])
        .assert()
        .code(0)
        .stdout(predicate::str::contains("no changes; nothing committed"));
    assert_eq!(commit_count(store), 2);

    // A blocking snapshot is refused, then forced with a recorded reason.
    promote(store, &[AZL_POST])
        .assert()
        .code(1)
        .stdout(predicate::str::contains("REFUSED azl-node01"))
        .stdout(predicate::str::contains("[pfc-not-operational]"));
    assert_eq!(commit_count(store), 2);
    promote(store, &[AZL_POST])
        .args([
            "--force",
            "--reason",
            "lab reproduction of the DCBX reset",
            "-m",
            "CHG-4711",
        ])
        .assert()
        .code(0)
        .stdout(predicate::str::contains(
            "22 block, 0 warn, 4 info; blocking: nic/00:0a:f7:12:34:56/bmc/function/00:0a:f7:12:34:56/dcbx_mode",
        ));
    let message = git(store, &["log", "-1", "--format=%B"]);
    for needle in [
        "baseline: promote azl-node01 (azure-local)",
        "CHG-4711",
        "snapshot sha256:",
        "by driftgate 0.1.0",
        "changes against the previous baseline: 22 block, 0 warn, 4 info",
        "    blocking: nic/00:0a:f7:12:34:57/os/num_tcs/current/pfc",
        "  forced: lab reproduction of the DCBX reset",
        "    overrode: [pfc-not-operational] nic/00:0a:f7:12:34:56/os/dcbx_support/current",
        "Policy: built-in policy, ",
        "Promoted-by: driftgate",
    ] {
        assert!(
            message.contains(needle),
            "{needle:?} missing from:\n{message}"
        );
    }
    assert_eq!(
        git(store, &["log", "-1", "--format=%an <%ae>"]),
        "Test Operator <test@example.com>\n"
    );

    // The history reads well in plain git: one fact per line.
    let patch = git(store, &["show", "--format=", "HEAD"]);
    assert!(patch.contains("\n-    \"nic/00:0a:f7:12:34:56/bmc/function/NIC.Slot.3-1-1/dcbx_mode\": \"ieee\",\n+    \"nic/00:0a:f7:12:34:56/bmc/function/NIC.Slot.3-1-1/dcbx_mode\": \"disabled\",\n"), "{patch}");

    // show at several revisions gives back exactly what was promoted.
    let baseline_text = std::fs::read_to_string(example(AZL_BASELINE)).unwrap();
    let post_text = std::fs::read_to_string(example(AZL_POST)).unwrap();
    in_store(store)
        .args(["baseline", "show", "azl-node01"])
        .assert()
        .code(0)
        .stdout(post_text.clone());
    in_store(store)
        .args(["baseline", "show", "azl-node01", "--rev", "HEAD~1"])
        .assert()
        .code(0)
        .stdout(baseline_text);

    // log of the host: newest first, with the policy-classified summary.
    let (code, log) = stdout_of(in_store(store).args(["baseline", "log", "azl-node01"]));
    assert_eq!(code, 0);
    let lines: Vec<&str> = log.lines().collect();
    assert!(
        lines[0].ends_with("Test Operator  baseline: promote azl-node01 (azure-local)"),
        "{log}"
    );
    assert!(
        lines[1].starts_with(
            "    baselines/azure-local/azl-node01.json: 22 block, 0 warn, 4 info; blocking: "
        ),
        "{log}"
    );
    assert!(lines[1].ends_with(", +19 more"), "{log}");
    assert!(lines[2].contains("promote 2 hosts"), "{log}");
    assert_eq!(
        lines[3],
        // The 123 facts written, read with each of its 2 functions' Id as a fact.
        "    baselines/azure-local/azl-node01.json: new baseline, 125 facts"
    );
    assert_eq!(lines.len(), 4, "{log}");
    let (_, log) = stdout_of(in_store(store).args(["baseline", "log", "--limit", "1"]));
    assert_eq!(
        log.lines().filter(|l| !l.starts_with(' ')).count(),
        1,
        "{log}"
    );

    // diff between revisions is policy-classified and judged.
    in_store(store)
        .args(["baseline", "diff", "azl-node01", "HEAD~1"])
        .assert()
        .code(1)
        .stdout(predicate::str::starts_with(
            "BLOCK azl-node01: 22 blocking [dcbx-mode",
        ));
    in_store(store)
        .args(["baseline", "diff", "azl-node01", "HEAD~1", "HEAD~1"])
        .assert()
        .code(0);

    // References resolve against the store wherever a snapshot is taken.
    in_store(store)
        .args([
            "check",
            "--snapshot",
            &example(AZL_PRE),
            "--baseline",
            "baseline:azl-node01@HEAD~1",
        ])
        .assert()
        .code(0);
    in_store(store)
        .args([
            "check",
            "--snapshot",
            &example(AZL_POST),
            "--baseline",
            "git:HEAD~1:baselines/azure-local/azl-node01.json",
        ])
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "against baseline git:HEAD~1:baselines/azure-local/azl-node01.json",
        ));
    in_store(store)
        .args(["diff", "baseline:azl-node01@HEAD~1", "baseline:azl-node01"])
        .assert()
        .code(1);
    assert_repository_valid(store);
}

#[test]
fn unknown_hosts_revisions_and_paths_exit_2_saying_which() {
    let dir = init_store();
    let store = dir.path();
    promote(store, &[AZL_BASELINE]).assert().code(0);
    let cases = [
        ("baseline:nohost", "host nohost has no baseline at \"HEAD\""),
        ("baseline:azl-node01@v9", "unknown revision \"v9\""),
        (
            "git:HEAD:baselines/x/y.json",
            "no file \"baselines/x/y.json\" at revision \"HEAD\"",
        ),
        (
            "git:nope:baselines/azure-local/azl-node01.json",
            "unknown revision \"nope\"",
        ),
        ("baseline:../etc", "invalid host name"),
    ];
    for (reference, needle) in cases {
        in_store(store)
            .args([
                "check",
                "--snapshot",
                &example(AZL_PRE),
                "--baseline",
                reference,
            ])
            .assert()
            .code(2)
            .stderr(predicate::str::contains(needle));
    }
    in_store(store)
        .args(["baseline", "show", "nohost"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("has no baseline"));
    let outside = tempfile::tempdir().unwrap();
    driftgate()
        .current_dir(outside.path())
        .args(["baseline", "show", "azl-node01"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("not inside a git repository"));
    // DRIFTGATE_REPO names the store too.
    driftgate()
        .current_dir(outside.path())
        .env("DRIFTGATE_REPO", store)
        .args(["baseline", "show", "azl-node01"])
        .assert()
        .code(0);
}

#[test]
fn partial_snapshots_are_refused_unless_forced_and_force_needs_a_reason() {
    let dir = init_store();
    let store = dir.path();
    promote(store, &[AZL_BASELINE]).assert().code(0);
    let partial = root().join("tests/fixtures/azl-node01-windows-failed.json");
    in_store(store)
        .args(["baseline", "promote", "--fleet", "azure-local"])
        .arg(&partial)
        .assert()
        .code(3)
        .stdout(predicate::str::contains("its capture is incomplete"))
        .stdout(predicate::str::contains(
            "source windows (ssh://azl-node01) is failed: ssh://azl-node01: connection timed out",
        ));
    in_store(store)
        .args(["baseline", "promote", "--fleet", "azure-local", "--force"])
        .arg(&partial)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--reason"));
    assert_eq!(commit_count(store), 2);
    in_store(store)
        .args([
            "baseline",
            "promote",
            "--fleet",
            "azure-local",
            "--force",
            "--reason",
            "windows host decommissioned",
        ])
        .arg(&partial)
        .assert()
        .code(0);
    assert!(git(store, &["log", "-1", "--format=%B"]).contains("forced: windows host decommissioned\n    overrode: source windows (ssh://azl-node01) is failed"));
}

#[test]
fn a_host_lives_in_one_fleet_and_fleet_names_are_checked() {
    let dir = init_store();
    let store = dir.path();
    promote(store, &[AZL_BASELINE]).assert().code(0);
    in_store(store)
        .args(["baseline", "promote", "--fleet", "other"])
        .arg(example(AZL_PRE))
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "already has its baseline at baselines/azure-local/azl-node01.json",
        ));
    in_store(store)
        .args(["baseline", "promote", "--fleet", "../up"])
        .arg(example(ESX_BASELINE))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("invalid fleet name"));
    promote(store, &[AZL_BASELINE, AZL_PRE])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("host azl-node01 is given twice"));
}

#[test]
fn promote_in_a_dirty_worktree_commits_only_its_own_file() {
    let dir = init_store();
    let store = dir.path();
    std::fs::write(store.join("notes.md"), "work in progress\n").unwrap();
    std::fs::write(
        store.join("driftgate.toml"),
        "# edited, staged, not committed\n",
    )
    .unwrap();
    git(store, &["add", "driftgate.toml"]);
    let before = git(store, &["status", "--porcelain"]);
    promote(store, &[ESX_BASELINE]).assert().code(0);
    assert_eq!(git(store, &["status", "--porcelain"]), before);
    assert_eq!(
        git(store, &["show", "--name-only", "--format=", "HEAD"]),
        "baselines/azure-local/esx01.json\n"
    );
    assert_eq!(
        std::fs::read_to_string(store.join("notes.md")).unwrap(),
        "work in progress\n"
    );
    assert_repository_valid(store);
}

#[test]
fn a_bare_repository_works_as_a_store() {
    let dir = tempfile::tempdir().unwrap();
    git(dir.path(), &["init", "-q", "--bare"]);
    driftgate()
        .args(["baseline", "init"])
        .arg(dir.path())
        .assert()
        .code(0);
    promote(dir.path(), &[ESX_BASELINE]).assert().code(0);
    let expected = std::fs::read_to_string(example(ESX_BASELINE)).unwrap();
    in_store(dir.path())
        .args(["baseline", "show", "esx01"])
        .assert()
        .code(0)
        .stdout(expected);
    assert_eq!(
        git(dir.path(), &["ls-tree", "-r", "--name-only", "HEAD"]),
        ".gitignore\nbaselines/README.md\nbaselines/azure-local/esx01.json\ndriftgate.toml\n"
    );
    assert_repository_valid(dir.path());
}

#[test]
fn the_stores_committed_policy_applies() {
    let dir = init_store();
    let store = dir.path();
    promote(store, &[ESX_BASELINE]).assert().code(0);
    let current = example("esxi-mscs-psp/current.json");
    in_store(store)
        .args([
            "check",
            "--snapshot",
            &current,
            "--baseline",
            "baseline:esx01",
        ])
        .assert()
        .code(1);
    std::fs::write(
        store.join("driftgate.toml"),
        "[[rule]]\nid = \"esxi-psp\"\non_change = \"warn\"\n\n[invariants]\npsp-rr-on-reserved-device = \"warn\"\n",
    )
    .unwrap();
    // Not yet committed: not yet in force.
    in_store(store)
        .args([
            "check",
            "--snapshot",
            &current,
            "--baseline",
            "baseline:esx01",
        ])
        .assert()
        .code(1);
    git(
        store,
        &["commit", "-qam", "fleet policy: RR is tolerated here"],
    );
    in_store(store)
        .args([
            "check",
            "--snapshot",
            &current,
            "--baseline",
            "baseline:esx01",
        ])
        .assert()
        .code(0)
        .stdout(predicate::str::starts_with("WARN esx01"));
    in_store(store)
        .args(["policy", "show"])
        .assert()
        .code(0)
        .stdout(predicate::str::contains(
            "driftgate.toml:2\n[[rule]]\nid = \"esxi-psp\"",
        ));
}

#[test]
fn concurrent_promotes_both_land_in_order_or_one_fails_cleanly() {
    let dir = init_store();
    let store = dir.path();
    for round in 0..4 {
        let (first, second) = if round % 2 == 0 {
            (AZL_BASELINE, ESX_BASELINE)
        } else {
            (AZL_POST, "esxi-mscs-psp/current.json")
        };
        let before = commit_count(store);
        let spawn = |snapshot: &str| {
            std::process::Command::new(assert_cmd::cargo::cargo_bin("driftgate"))
                .arg("--repo")
                .arg(store)
                .args([
                    "baseline",
                    "promote",
                    "--fleet",
                    "lab",
                    "--force",
                    "--reason",
                    "concurrency test",
                    "--lock-wait",
                    "20",
                ])
                .arg(example(snapshot))
                .env("GIT_AUTHOR_NAME", "Test Operator")
                .env("GIT_AUTHOR_EMAIL", "test@example.com")
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("driftgate starts")
        };
        let (a, b) = (spawn(first), spawn(second));
        let (a, b) = (a.wait_with_output().unwrap(), b.wait_with_output().unwrap());
        let landed = [&a, &b]
            .iter()
            .filter(|o| o.status.code() == Some(0))
            .count();
        for output in [&a, &b] {
            let stderr = String::from_utf8_lossy(&output.stderr);
            assert!(
                output.status.code() == Some(0)
                    || stderr.contains("another driftgate promote holds")
                    || stderr.contains("the branch moved"),
                "round {round}: unclean failure: {stderr}"
            );
        }
        assert_eq!(commit_count(store), before + landed, "round {round}");
        assert_eq!(git(store, &["status", "--porcelain"]), "", "round {round}");
        assert_repository_valid(store);
    }
    let log = git(store, &["log", "--format=%s", "-8"]);
    assert!(
        log.lines()
            .filter(|l| l.starts_with("baseline: promote"))
            .count()
            >= 4,
        "{log}"
    );
}

#[test]
fn a_promote_killed_at_random_moments_never_breaks_the_repository() {
    let dir = init_store();
    let store = dir.path();
    promote(store, &[AZL_BASELINE]).assert().code(0);
    let seed = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64
        | 1;
    // DRIFTGATE_KILL_SEED replays a failing run: the seed is in every failure message.
    let seed = std::env::var("DRIFTGATE_KILL_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(seed);
    let mut random = Random(seed);
    for round in 0..30 {
        let snapshot = if round % 2 == 0 {
            AZL_POST
        } else {
            AZL_BASELINE
        };
        let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("driftgate"))
            .arg("--repo")
            .arg(store)
            .args([
                "baseline",
                "promote",
                "--fleet",
                "azure-local",
                "--force",
                "--reason",
                "kill test",
            ])
            .arg(example(snapshot))
            .env("GIT_AUTHOR_NAME", "Test Operator")
            .env("GIT_AUTHOR_EMAIL", "test@example.com")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("driftgate starts");
        std::thread::sleep(Duration::from_micros(random.next(40_000)));
        let _ = child.kill(); // SIGKILL on Unix
        let _ = child.wait();
        assert_repository_valid(store);
        in_store(store)
            .args(["baseline", "show", "azl-node01"])
            .assert()
            .code(0)
            .stdout(predicate::str::contains("\"host\": \"azl-node01\""));
        // Whatever the work tree holds at the baseline path is a whole, verifiable snapshot.
        let on_disk = store.join("baselines/azure-local/azl-node01.json");
        driftgate()
            .args(["check", "--snapshot"])
            .arg(&on_disk)
            .assert()
            .code(predicate::in_iter([0, 1]));
        let _ = seed;
    }
    // After the kills, a promote that runs to the end works and cleans up leftovers, git's
    // own lock files included: none may wedge the store.
    let output = promote(store, &[AZL_PRE]).output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "seed {seed}: {stderr}");
    let leftovers: Vec<_> = std::fs::read_dir(store.join("baselines/azure-local"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "seed {seed}: {leftovers:?}");
    // Whatever an interrupted promote left in the work tree is put back in line with HEAD.
    assert_eq!(git(store, &["status", "--porcelain"]), "", "seed {seed}");
    assert_repository_valid(store);
}

/// `count` baselines of hosts `fleet-host000…` into `dir`, each the Azure Local baseline with
/// another host name and a BIOS value of `wave`: every wave is a new blob for every host.
fn fleet_wave(dir: &Path, count: usize, wave: usize) -> Vec<std::path::PathBuf> {
    use driftgate_snapshot::{FactPath, HostName, VerifiedSnapshot};
    let text = std::fs::read_to_string(example(AZL_BASELINE)).unwrap();
    let base = VerifiedSnapshot::parse(&text, AZL_BASELINE).unwrap();
    (0..count)
        .map(|i| {
            let mut snapshot = base.snapshot().clone();
            snapshot.host = HostName::new(format!("fleet-host{i:03}")).unwrap();
            snapshot.facts.insert(
                FactPath::new("bios/KillTestWave").unwrap(),
                format!("wave {wave}").into(),
            );
            let sealed = VerifiedSnapshot::seal(snapshot, "kill test");
            let path = dir.join(format!("fleet-host{i:03}.json"));
            std::fs::write(&path, sealed.snapshot().to_canonical_json()).unwrap();
            path
        })
        .collect()
}

#[test]
fn a_fleet_wide_promote_killed_at_random_moments_never_breaks_the_repository() {
    // More hosts than the store flushes one by one: their objects are flushed together.
    const HOSTS: usize = 40;
    let dir = init_store();
    let store = dir.path();
    let inputs = tempfile::tempdir().unwrap();
    let promote_wave = |wave: usize| {
        let mut command = std::process::Command::new(assert_cmd::cargo::cargo_bin("driftgate"));
        command
            .arg("--repo")
            .arg(store)
            .args(["baseline", "promote", "--fleet", "lab", "--force"])
            .args(["--reason", "kill test"])
            .args(fleet_wave(inputs.path(), HOSTS, wave))
            .env("GIT_AUTHOR_NAME", "Test Operator")
            .env("GIT_AUTHOR_EMAIL", "test@example.com");
        command
    };
    let quiet = |mut command: std::process::Command| {
        command.stdout(Stdio::null()).stderr(Stdio::null());
        command
    };
    // How long one whole promote takes here: the kills fall anywhere inside it.
    let started = std::time::Instant::now();
    assert!(quiet(promote_wave(0)).status().unwrap().success());
    let whole = u64::try_from(started.elapsed().as_micros()).unwrap().max(1);
    let seed = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64
        | 1;
    // DRIFTGATE_KILL_SEED replays a failing run: the seed is in every failure message.
    let seed = std::env::var("DRIFTGATE_KILL_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(seed);
    let mut random = Random(seed);
    for wave in 1..=12 {
        let mut child = quiet(promote_wave(wave)).spawn().expect("driftgate starts");
        std::thread::sleep(Duration::from_micros(random.next(whole)));
        let _ = child.kill(); // SIGKILL on Unix
        let _ = child.wait();
        assert_repository_valid(store);
        in_store(store)
            .args(["baseline", "show", "fleet-host017"])
            .assert()
            .code(0)
            .stdout(predicate::str::contains("\"host\": \"fleet-host017\""));
    }
    // After the kills, a promote that runs to the end lands and leaves the store clean.
    let before = commit_count(store);
    let output = promote_wave(99).output().unwrap();
    assert!(
        output.status.success(),
        "seed {seed}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(commit_count(store), before + 1, "seed {seed}");
    assert_eq!(git(store, &["status", "--porcelain"]), "", "seed {seed}");
    assert_repository_valid(store);
    let shown = git(store, &["show", "HEAD:baselines/lab/fleet-host039.json"]);
    assert!(shown.contains("wave 99"), "seed {seed}");
}

/// The lock files libgit2 takes to commit on the store's branch, relative to the store.
fn git_lock_files(store: &Path) -> Vec<String> {
    let branch = git(store, &["symbolic-ref", "HEAD"]).trim().to_owned();
    vec![
        ".git/index.lock".to_owned(),
        ".git/HEAD.lock".to_owned(),
        format!(".git/{branch}.lock"),
        format!(".git/logs/{branch}.lock"),
    ]
}

#[test]
fn git_locks_left_by_a_killed_promote_are_removed_and_said() {
    for lock in git_lock_files(init_store().path()) {
        let dir = init_store();
        let store = dir.path();
        promote(store, &[AZL_BASELINE]).assert().code(0);
        let before = commit_count(store);
        let path = store.join(&lock);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        // What a promote SIGKILLed inside libgit2 leaves: its own marker, then git's lock
        // file, created but never renamed.
        std::fs::write(store.join(".git/driftgate.promoting"), "12345\n").unwrap();
        std::thread::sleep(Duration::from_millis(20));
        std::fs::write(&path, "half-written").unwrap();
        promote(store, &[AZL_POST])
            .args(["--force", "--reason", "lock test"])
            .assert()
            .code(0)
            .stdout(predicate::str::contains("committed"))
            .stderr(
                predicate::str::contains(format!("driftgate: warning: removed {}", path.display()))
                    .and(predicate::str::contains("interrupted promote")),
            );
        assert!(!path.exists(), "{lock}");
        assert!(!store.join(".git/driftgate.promoting").exists(), "{lock}");
        assert_eq!(commit_count(store), before + 1, "{lock}");
        assert_eq!(git(store, &["status", "--porcelain"]), "", "{lock}");
        assert_repository_valid(store);
    }
}

#[test]
fn a_git_lock_no_interrupted_promote_left_is_named_and_left_alone() {
    // git itself may keep index.lock, closed, while its editor runs: without driftgate's
    // marker of an interrupted promote, a lock file is never driftgate's to remove.
    let dir = init_store();
    let store = dir.path();
    let path = store.join(".git/index.lock");
    std::fs::write(&path, "").unwrap();
    promote(store, &[AZL_BASELINE]).assert().code(2).stderr(
        predicate::str::contains(format!("git lock file {}", path.display())).and(
            predicate::str::contains("no interrupted driftgate promote left it"),
        ),
    );
    assert!(path.exists());
}

#[test]
fn a_git_lock_a_live_process_holds_is_named_and_left_alone() {
    let dir = init_store();
    let store = dir.path();
    promote(store, &[AZL_BASELINE]).assert().code(0);
    let before = commit_count(store);
    for lock in git_lock_files(store) {
        let path = store.join(&lock);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        // An interrupted promote, and since then another git at work: it holds its lock
        // file open until it renames it.
        std::fs::write(store.join(".git/driftgate.promoting"), "12345\n").unwrap();
        std::thread::sleep(Duration::from_millis(20));
        let holder = std::fs::File::create(&path).unwrap();
        promote(store, &[AZL_POST])
            .args(["--force", "--reason", "lock test"])
            .assert()
            .code(2)
            .stdout("")
            .stderr(
                predicate::str::contains(format!("git lock file {}", path.display()))
                    .and(predicate::str::contains(format!(
                        "held open by pid {}",
                        std::process::id()
                    )))
                    .and(predicate::str::contains(format!(
                        "(`fuser {0}` names none), remove {0}",
                        path.display()
                    ))),
            );
        assert!(path.exists(), "{lock} is someone's: never removed");
        // The refusal kept the interrupted promote's marker: once the other git is gone,
        // the leftover is recognised as before.
        assert!(store.join(".git/driftgate.promoting").exists(), "{lock}");
        drop(holder);
        promote(store, &[AZL_POST])
            .args(["--force", "--reason", "lock test"])
            .assert()
            .code(0)
            .stderr(predicate::str::contains(format!(
                "driftgate: warning: removed {}",
                path.display()
            )));
        assert!(!path.exists(), "{lock}");
    }
    // The first promote after the refusals commits; the later ones find nothing changed.
    assert_eq!(commit_count(store), before + 1);
    assert_repository_valid(store);
}

/// A store of one host, `h1`, with two baselines (seed 1 before, then after a firmware-only
/// update), its inventory, and the newer baseline's blob id.
fn two_baselines() -> (common::fleet::FleetLab, String) {
    use common::fleet::{FLEET, FleetLab, Host, State, recorded};
    let lab = FleetLab::new(&[Host::new("h1", State::Recorded("baseline"))], &["h1"]);
    let newer = lab.path("h1.newer.json");
    let state = recorded("benign-update");
    driftgate()
        .args(["capture", "--host", "h1", "--source"])
        .arg(format!("redfish=mockup:{}", state.join("bmc").display()))
        .arg("--source")
        .arg(format!("windows=dir:{}", state.join("windows").display()))
        .arg("--out")
        .arg(&newer)
        .assert()
        .code(0);
    lab.command()
        .args(["baseline", "promote", "--fleet", FLEET])
        .arg(&newer)
        .assert()
        .code(0);
    let blob = git(
        &lab.store,
        &["rev-parse", "HEAD:baselines/azure-local/h1.json"],
    );
    (lab, blob.trim().to_owned())
}

#[test]
fn a_damaged_object_in_any_shape_is_exit_2_naming_it_and_git_fsck_within_seconds() {
    use common::damage::{Damage, damage};
    for shape in Damage::ALL {
        let (lab, blob) = two_baselines();
        let snapshot = lab.path("h1.newer.json");
        let damaged = damage(&lab.store, &blob, shape);
        let commands: [&[&str]; 4] = [
            &["baseline", "show", "h1"],
            &[
                "check",
                "--snapshot",
                snapshot.to_str().unwrap(),
                "--baseline",
                "baseline:h1",
            ],
            &["baseline", "diff", "h1", "HEAD~1", "HEAD"],
            &["check", "--all", "--quiet"],
        ];
        for args in commands {
            let mut cmd = common::driftgate_process();
            cmd.arg("--repo")
                .arg(&lab.store)
                .args(args)
                .env_remove("CI");
            let output = common::output_within(&mut cmd, Duration::from_secs(5));
            let stderr = String::from_utf8_lossy(&output.stderr);
            let what = format!("{shape:?}, {args:?}: {stderr}");
            assert_eq!(output.status.code(), Some(2), "{what}");
            let path = if shape == Damage::DamagedPack {
                // In the pack, the older baseline is stored as a change to the newer one:
                // reading either fails, and the first one read is named.
                let older = git(
                    &lab.store,
                    &["rev-parse", "HEAD~1:baselines/azure-local/h1.json"],
                );
                assert!(
                    stderr.contains(&blob) || stderr.contains(older.trim()),
                    "names the object: {what}"
                );
                damaged.parent().unwrap().display().to_string()
            } else {
                assert!(stderr.contains(&blob), "names the object: {what}");
                damaged.display().to_string()
            };
            assert!(stderr.contains(&path), "names {path}: {what}");
            assert!(stderr.contains("git fsck --full"), "{what}");
        }
    }
}

#[test]
fn a_link_where_a_folder_of_the_work_tree_belongs_is_refused_and_nothing_behind_it_is_touched() {
    let store = init_store();
    let other = tempfile::tempdir().unwrap();
    std::fs::write(other.path().join("azl-node01.json"), "not driftgate's\n").unwrap();
    std::fs::create_dir_all(store.path().join("baselines")).unwrap();
    std::os::unix::fs::symlink(other.path(), store.path().join("baselines/azure-local")).unwrap();
    let output = promote(store.path(), &[AZL_BASELINE]).output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("baselines/azure-local is a symbolic link where driftgate keeps a folder"),
        "{stderr}"
    );
    assert_eq!(
        std::fs::read_to_string(other.path().join("azl-node01.json")).unwrap(),
        "not driftgate's\n"
    );
    assert_eq!(std::fs::read_dir(other.path()).unwrap().count(), 1);
}
