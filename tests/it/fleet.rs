//! `check --all` and `report merge` end to end: a store, an inventory of recorded hosts (and a
//! hanging simulated BMC), the fleet JSON against its published schema, the output directory,
//! `--snapshots`, shards merged, exit codes.

use crate::common;

use std::time::{Duration, Instant};

use common::fleet::{
    FleetLab, Host, State, comparable, edit_json, host, mixed, three_shards, verdicts,
};
use common::gate::run;
use common::simulator::{Simulator, bmc};
use serde_json::Value;

/// healthy (2, one cluster), drifted, unreachable, no baseline; one orphan baseline.
fn fleet_schema() -> jsonschema::Validator {
    let schema = run(common::driftgate().args(["schema", "fleet-report"])).expect(0);
    let schema: Value = serde_json::from_str(&schema.stdout).expect("the schema is JSON");
    jsonschema::validator_for(&schema).expect("the fleet-report schema compiles")
}

#[test]
fn a_mixed_fleet_gives_every_host_its_verdict_the_worst_exit_code_and_a_valid_report() {
    let lab = mixed();
    let out = lab.path("nightly");
    let ran = lab
        .check(&["--out-dir", out.to_str().unwrap(), "--format", "json"])
        .expect(3);
    let report = ran.json();
    let errors: Vec<String> = fleet_schema()
        .iter_errors(&report)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{errors:#?}\n{report:#}");
    assert_eq!(report["schema"], "driftgate.fleet-report/v1");
    assert_eq!(report["verdict"], "incomplete");
    assert_eq!(report["shards"], serde_json::json!([]));
    let counts = &report["counts"];
    assert_eq!(
        (
            counts["total"].as_u64(),
            counts["block"].as_u64(),
            counts["incomplete"].as_u64()
        ),
        (Some(5), Some(1), Some(1)),
        "{report:#}"
    );
    assert_eq!(host(&report, "azl-node01")["verdict"], "pass");
    assert_eq!(host(&report, "azl-node03")["verdict"], "block");
    let unreachable = host(&report, "azl-node04");
    assert_eq!(unreachable["verdict"], "incomplete");
    let failure = unreachable["failure"].as_str().expect("a failure");
    assert!(failure.contains("no-such-bmc"), "{failure}");
    // Without a baseline: judged by invariants and expectations only, its snapshot kept.
    let new = host(&report, "azl-node05");
    assert!(new["report"]["baseline"].is_null(), "{new:#}");
    assert_eq!(new["snapshot_file"], "snapshots/azl-node05.json");
    for name in ["azl-node01", "azl-node03", "azl-node04", "azl-node05"] {
        assert!(out.join(format!("hosts/{name}.json")).is_file(), "{name}");
        assert!(
            out.join(format!("snapshots/{name}.json")).is_file(),
            "{name}"
        );
    }
    let run_file: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("run.json")).unwrap()).unwrap();
    assert_eq!(run_file["schema"], "driftgate.fleet-run/v1");
    assert_eq!(run_file["hosts"].as_array().unwrap().len(), 5);
    assert_eq!(
        run_file["orphans"],
        serde_json::json!(["baselines/azure-local/retired01.json"])
    );
    assert!(
        run_file["policy_digest"]
            .as_str()
            .unwrap()
            .starts_with("sha256:")
    );
    // Piped standard error: no progress bar, not a single redraw.
    assert!(
        !ran.stderr.contains('\r') && !ran.stderr.contains("hosts  "),
        "{}",
        ran.stderr
    );
    // The first run's snapshots bootstrap the missing baseline.
    common::driftgate()
        .arg("--repo")
        .arg(&lab.store)
        .args(["baseline", "promote", "--fleet", "azure-local"])
        .arg(out.join("snapshots/azl-node05.json"))
        .assert()
        .code(0);
    let again = lab.check(&["--format", "json"]).expect(3).json();
    assert!(!host(&again, "azl-node05")["report"]["baseline"].is_null());
}

#[test]
fn a_missing_baseline_warns_its_host_and_an_orphan_warns_the_fleet() {
    let lab = mixed();
    let report = lab.check(&["--format", "json"]).expect(3).json();
    assert_eq!(host(&report, "azl-node05")["verdict"], "warn");
    let rules: Vec<&str> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["rule"].as_str().unwrap())
        .collect();
    assert!(rules.contains(&"fleet/missing-baseline"), "{rules:?}");
    assert!(rules.contains(&"fleet/orphan-baseline"), "{rules:?}");
}

#[test]
fn the_exit_code_is_the_worst_verdict_of_the_selection() {
    let lab = mixed();
    let healthy = lab.check(&["--cluster", "azl-a", "--format", "json"]);
    // azl-node03 drifted: BLOCK, exit 1; nothing incomplete in that cluster.
    let report = healthy.expect(1).json();
    assert_eq!(report["counts"]["total"], 3);
    lab.write_inventory(&[
        Host::new("azl-node01", State::Recorded("baseline")),
        Host::new("azl-node02", State::Recorded("baseline")),
    ]);
    // Both hosts pass; the baselines of the hosts dropped from the inventory are orphans,
    // which warn the fleet: still exit 0.
    let report = lab.check(&["--format", "json"]).expect(0).json();
    assert_eq!(report["verdict"], "warn");
    assert_eq!(report["counts"]["pass"], 2);
    assert!(
        report["findings"]
            .as_array()
            .unwrap()
            .iter()
            .all(|f| f["rule"] == "fleet/orphan-baseline"),
        "{}",
        report["findings"]
    );
    lab.check(&["--fleet", "no-such-fleet", "--format", "json"])
        .expect(2);
    let usage = run(lab
        .command()
        .args(["check", "--all", "--snapshot", "x.json"]))
    .expect(2);
    assert!(
        usage.stderr.contains("cannot be used with"),
        "{}",
        usage.stderr
    );
}

#[test]
fn judging_a_previous_out_dir_with_snapshots_gives_the_same_verdicts() {
    let lab = mixed();
    let out = lab.path("captured");
    let captured = lab
        .check(&["--out-dir", out.to_str().unwrap(), "--format", "json"])
        .expect(3)
        .json();
    let judged = lab
        .check(&["--snapshots", out.to_str().unwrap(), "--format", "json"])
        .expect(3)
        .json();
    assert_eq!(verdicts(&judged), verdicts(&captured));
    assert_eq!(judged["counts"], captured["counts"]);
    // A snapshot that is missing, or corrupt, makes its host INCOMPLETE naming the file.
    std::fs::remove_file(out.join("snapshots/azl-node01.json")).unwrap();
    std::fs::write(out.join("snapshots/azl-node02.json"), "{ not json").unwrap();
    let broken = lab
        .check(&["--snapshots", out.to_str().unwrap(), "--format", "json"])
        .expect(3)
        .json();
    for name in ["azl-node01", "azl-node02"] {
        let h = host(&broken, name);
        assert_eq!(h["verdict"], "incomplete", "{h:#}");
        let failure = h["failure"].as_str().unwrap();
        assert!(failure.contains(&format!("{name}.json")), "{failure}");
    }
}

#[test]
fn three_shards_merged_equal_one_run() {
    let lab = mixed();
    let whole = lab.path("whole");
    let one = lab
        .check(&["--out-dir", whole.to_str().unwrap(), "--format", "json"])
        .expect(3)
        .json();
    let dirs: Vec<_> = (1..=3).map(|k| lab.path(&format!("shard-{k}"))).collect();
    let mut hosts = 0;
    for (k, dir) in (1..=3).zip(&dirs) {
        let shard = lab
            .check(&[
                "--shard",
                &format!("{k}/3"),
                "--out-dir",
                dir.to_str().unwrap(),
                "--format",
                "json",
            ])
            .json();
        assert_eq!(shard["shards"], serde_json::json!([format!("{k}/3")]));
        hosts += shard["counts"]["total"].as_u64().unwrap();
    }
    assert_eq!(hosts, 5, "every host in exactly one shard");
    let refs: Vec<&std::path::Path> = dirs.iter().map(|d| d.as_path()).collect();
    let merged = lab.merge(&refs, &["--format", "json"]);
    assert_eq!(merged.code, 3, "{}", merged.stderr);
    let merged = merged.json();
    assert_eq!(merged["shards"], serde_json::json!(["1/3", "2/3", "3/3"]));
    assert_eq!(comparable(&merged), comparable(&one));
    // The unsharded run's directory alone merges to itself.
    let alone = lab
        .merge(&[whole.as_path()], &["--format", "json"])
        .expect(3)
        .json();
    assert_eq!(comparable(&alone), comparable(&one));
    // A missing shard, or one given twice, is refused naming the directory.
    let missing = lab.merge(&refs[..2], &["--format", "json"]).expect(2);
    assert!(missing.stderr.contains("3/3 missing"), "{}", missing.stderr);
    let twice = lab
        .merge(&[refs[0], refs[0], refs[1], refs[2]], &[])
        .expect(2);
    assert!(twice.stderr.contains("and so is"), "{}", twice.stderr);
    let mixed = lab.merge(&[whole.as_path(), refs[0]], &[]).expect(2);
    assert!(mixed.stderr.contains("unsharded"), "{}", mixed.stderr);
}

#[test]
fn a_hanging_bmc_is_incomplete_within_its_host_timeout_and_the_others_are_judged() {
    let simulator = Simulator::start(&bmc("baseline"), &["--fault", "hang=/redfish/v1/Systems"]);
    let lab = FleetLab::new(
        &[
            Host::new("azl-node01", State::Recorded("baseline")),
            Host::new("azl-node09", State::Bmc(simulator.url.clone())),
        ],
        &["azl-node01", "azl-node09"],
    );
    let started = Instant::now();
    let report = lab
        .check(&[
            "--host-timeout",
            "2",
            "--bmc-timeout",
            "60",
            "--format",
            "json",
        ])
        .expect(3)
        .json();
    let took = started.elapsed();
    // Its deadline (2 s) plus the hard deadline's grace (15 s: the session delete's 10 s and
    // 5 s more) plus slack for a busy machine.
    assert!(took < Duration::from_secs(2 + 15 + 10), "{took:?}");
    assert_eq!(host(&report, "azl-node01")["verdict"], "pass");
    let hung = host(&report, "azl-node09");
    assert_eq!(hung["verdict"], "incomplete", "{hung:#}");
    assert!(hung["failure"].is_string(), "{hung:#}");
}

#[test]
fn help_shows_a_nightly_run_and_a_merge_of_shards() {
    let check = run(common::driftgate().args(["check", "--help"])).expect(0);
    assert!(
        check.stdout.contains("check --all --out-dir"),
        "{}",
        check.stdout
    );
    assert!(check.stdout.contains("--shard 1/3"), "{}", check.stdout);
    let merge = run(common::driftgate().args(["report", "merge", "--help"])).expect(0);
    assert!(
        merge.stdout.contains("report merge results/1"),
        "{}",
        merge.stdout
    );
}

#[test]
fn a_signal_stops_the_run_and_no_run_file_is_written() {
    let mut simulator =
        Simulator::start_logged(&bmc("baseline"), &["--fault", "hang=/redfish/v1/Systems"]);
    let lab = FleetLab::new(
        &[Host::new("azl-node09", State::Bmc(simulator.url.clone()))],
        &["azl-node09"],
    );
    let out = lab.path("stopped");
    let child = lab
        .process()
        .args(["check", "--all", "--bmc-timeout", "60", "--out-dir"])
        .arg(&out)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // The run is under way once the capture waits on the hanging resource.
    assert!(simulator.logged("DEBUG GET /redfish/v1/Systems", Duration::from_secs(20)));
    let pid = libc::pid_t::try_from(child.id()).unwrap();
    // SAFETY: the pid is our child's, not yet reaped.
    unsafe { libc::kill(pid, libc::SIGTERM) };
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(143), "{stderr}");
    assert!(stderr.contains("stopped by SIGTERM"), "{stderr}");
    assert!(!out.join("run.json").exists());
}

/// Someone else's folder with files a careless clean would delete, one of them hidden.
fn someone_elses(dir: &std::path::Path) -> std::path::PathBuf {
    let other = dir.join("someone-elses");
    std::fs::create_dir_all(&other).unwrap();
    for name in ["azl-node01.json", ".hidden.json", "notes.json"] {
        std::fs::write(other.join(name), format!("{name} is not driftgate's\n")).unwrap();
    }
    other
}

fn unchanged(other: &std::path::Path) {
    let mut names: Vec<String> = std::fs::read_dir(other)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(names, [".hidden.json", "azl-node01.json", "notes.json"]);
    for name in names {
        assert_eq!(
            std::fs::read_to_string(other.join(&name)).unwrap(),
            format!("{name} is not driftgate's\n")
        );
    }
}

#[test]
fn a_link_where_an_out_dir_folder_belongs_is_refused_and_nothing_behind_it_is_touched() {
    for folder in ["snapshots", "hosts"] {
        let lab = FleetLab::new(
            &[Host::new("azl-node01", State::Recorded("baseline"))],
            &["azl-node01"],
        );
        let other = someone_elses(lab.dir.path());
        let out = lab.path("nightly");
        std::fs::create_dir_all(&out).unwrap();
        std::os::unix::fs::symlink(&other, out.join(folder)).unwrap();
        let ran = lab.check(&["--out-dir", out.to_str().unwrap(), "--quiet"]);
        assert_eq!(ran.code, 2, "{folder}: {}", ran.stderr);
        let planted = out.join(folder).display().to_string();
        assert!(
            ran.stderr.contains(&format!(
                "{planted} is a symbolic link where driftgate keeps a folder of its own: refused"
            )),
            "{folder}: {}",
            ran.stderr
        );
        unchanged(&other);
        assert!(!out.join("run.json").exists());
    }
}

fn merged(lab: &FleetLab, dirs: &[std::path::PathBuf], args: &[&str]) -> common::gate::Ran {
    let refs: Vec<&std::path::Path> = dirs.iter().map(|d| d.as_path()).collect();
    lab.merge(&refs, args)
}

#[test]
fn a_merge_of_shards_with_a_host_removed_added_duplicated_or_edited_is_refused_naming_shard_and_host()
 {
    const BLOCKED: &str = "azl-node03";
    let refused = |ran: common::gate::Ran, shard: &std::path::Path, host: &str, says: &str| {
        assert_eq!(ran.code, 2, "{}", ran.stderr);
        let shard = shard.display().to_string();
        for part in [shard.as_str(), &format!("host {host}"), says] {
            assert!(ran.stderr.contains(part), "{part:?} not in {}", ran.stderr);
        }
    };
    // Removed: the blocked host's line in its shard's run.json and its files; the shard's
    // list of planned hosts still names it.
    let lab = mixed();
    let (dirs, k) = three_shards(&lab, BLOCKED);
    assert_eq!(merged(&lab, &dirs, &[]).code, 3, "the honest merge");
    edit_json(&dirs[k].join("run.json"), |run| {
        run["hosts"]
            .as_array_mut()
            .unwrap()
            .retain(|h| h != BLOCKED);
    });
    std::fs::remove_file(dirs[k].join(format!("hosts/{BLOCKED}.json"))).unwrap();
    std::fs::remove_file(dirs[k].join(format!("snapshots/{BLOCKED}.json"))).unwrap();
    refused(
        merged(&lab, &dirs, &[]),
        &dirs[k],
        BLOCKED,
        "its results were removed",
    );
    // … and from its list of planned hosts too: the other shards' lists name it.
    edit_json(&dirs[k].join("run.json"), |run| {
        run["planned"]
            .as_array_mut()
            .unwrap()
            .retain(|h| h["name"] != BLOCKED);
    });
    refused(
        merged(&lab, &dirs, &[]),
        &dirs[k],
        BLOCKED,
        "its results were removed",
    );
    // … from every shard's, the digests recomputed: the inventory names it.
    for dir in &dirs {
        edit_json(&dir.join("run.json"), |run| {
            run["planned"]
                .as_array_mut()
                .unwrap()
                .retain(|h| h["name"] != BLOCKED);
            let digest = planned_digest(&run["planned"]);
            run["planned_hosts_digest"] = Value::from(digest);
        });
    }
    refused(
        merged(&lab, &dirs, &[]),
        &dirs[k],
        BLOCKED,
        "is missing from the hosts the run planned",
    );

    // Added: a host of no inventory, its record and snapshot copied from another host.
    let lab = mixed();
    let (dirs, k) = three_shards(&lab, BLOCKED);
    let other = "azl-node99";
    edit_json(&dirs[k].join("run.json"), |run| {
        run["hosts"]
            .as_array_mut()
            .unwrap()
            .push(Value::from(other));
    });
    refused(merged(&lab, &dirs, &[]), &dirs[k], other, "it was added");

    // Duplicated: the blocked host's results copied into another shard's directory.
    let lab = mixed();
    let (dirs, k) = three_shards(&lab, BLOCKED);
    let j = (k + 1) % 3;
    for folder in ["hosts", "snapshots"] {
        let file = format!("{folder}/{BLOCKED}.json");
        std::fs::copy(dirs[k].join(&file), dirs[j].join(&file)).unwrap();
    }
    edit_json(&dirs[j].join("run.json"), |run| {
        run["hosts"]
            .as_array_mut()
            .unwrap()
            .push(Value::from(BLOCKED));
    });
    refused(
        merged(&lab, &dirs, &[]),
        &dirs[j],
        BLOCKED,
        "it is not in shard",
    );

    // Edited: the blocked host's record says PASS throughout (verdict, counts, findings,
    // cluster facts); its snapshot beside it still shows DCBX disabled.
    let lab = mixed();
    let (dirs, k) = three_shards(&lab, BLOCKED);
    let record = dirs[k].join(format!("hosts/{BLOCKED}.json"));
    // A node of its cluster that passed: its facts are what the cluster expects.
    let healthy = dirs
        .iter()
        .map(|dir| dir.join("hosts/azl-node01.json"))
        .find(|file| file.exists())
        .unwrap();
    let healthy: Value = serde_json::from_str(&std::fs::read_to_string(healthy).unwrap()).unwrap();
    edit_json(&record, |doc| {
        let zero = serde_json::json!({"block": 0, "warn": 0, "info": 0});
        doc["result"]["verdict"] = Value::from("pass");
        doc["result"]["counts"] = zero.clone();
        doc["result"]["report"]["verdict"] = Value::from("pass");
        doc["result"]["report"]["counts"] = zero;
        doc["result"]["report"]["findings"] = serde_json::json!([]);
        doc["result"]["report"]["firmware_changes"] = serde_json::json!([]);
        doc["cluster_facts"] = healthy["cluster_facts"].clone();
    });
    refused(
        merged(&lab, &dirs, &[]),
        &dirs[k],
        BLOCKED,
        "its record says PASS (0 blocking, 0 warnings), but its snapshot judged against git:",
    );
    // Trusting the records is a choice the report states.
    let trusted = merged(&lab, &dirs, &["--no-rejudge"]);
    assert!(
        trusted
            .stdout
            .contains("records trusted as the shards wrote them, not judged again"),
        "{}",
        trusted.stdout
    );
}

/// `sha256:` of a run file's `planned` list, as driftgate computes it.
fn planned_digest(planned: &Value) -> String {
    use sha2::{Digest as _, Sha256};
    let mut hasher = Sha256::new();
    for host in planned.as_array().unwrap() {
        hasher.update(
            format!(
                "{}\t{}\t{}\n",
                host["name"].as_str().unwrap(),
                host["fleet"].as_str().unwrap(),
                host["cluster"].as_str().unwrap_or("")
            )
            .as_bytes(),
        );
    }
    format!("sha256:{}", hex::encode(hasher.finalize()))
}
