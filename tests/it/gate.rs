//! End-to-end tests of `driftgate gate pre|post` over a real `driftgate mockup serve` serving
//! a copy of the seed-1 host's recorded iDRAC, switched between states the way a firmware
//! update would, with its recorded Windows collector output, a temporary baseline store and
//! an inventory (`tests/it/common/gate.rs`). One test per line of the issue's "Done when".

use crate::common;

use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, SystemTime};

use common::gate::{Lab, folders};
use common::{Random, files_under, git};
use driftgate_snapshot::VerifiedSnapshot;
use serde_json::Value;

const HOST: &str = "azl-node01";
const DCBX_MODE: &str = "nic/00:0a:f7:12:34:56/bmc/function/00:0a:f7:12:34:56/dcbx_mode";

/// The findings of the report's only host.
fn findings(report: &Value) -> &Vec<Value> {
    report["hosts"][0]["report"]["findings"]
        .as_array()
        .expect("findings")
}

#[test]
fn a_healthy_update_passes_and_promote_makes_one_commit_naming_the_run_and_the_firmware() {
    let lab = Lab::new();
    lab.gate(&["pre", "--run", "CHG-2001", HOST]).expect(0);
    lab.state("benign-update");
    let before = lab.commits();
    let post = lab
        .gate(&["post", "--run", "CHG-2001", "--promote", "--format", "json"])
        .expect(0);
    let report = post.json();
    assert_eq!(report["verdict"], "pass");
    assert_eq!(report["run"]["attempt"], 1);
    assert_eq!(report["promotion"]["status"], "promoted", "{report:#}");
    assert_eq!(lab.commits(), before + 1);
    let message = git(&lab.store, &["log", "-1", "--format=%B"]);
    assert!(message.contains("CHG-2001"), "{message}");
    assert!(message.contains("229.0.166.0 → 229.1.123.0"), "{message}");
    assert!(
        message.contains("nic/00:0a:f7:12:34:56/bmc/firmware/version"),
        "{message}"
    );
    // The new baseline is the post snapshot, byte for byte.
    let post_file = lab
        .run_dir("CHG-2001")
        .join("post-1")
        .join(format!("{HOST}.json"));
    let baseline = git(
        &lab.store,
        &["show", &format!("HEAD:baselines/azure-local/{HOST}.json")],
    );
    assert_eq!(baseline, std::fs::read_to_string(post_file).unwrap());
    assert!(
        post.stderr.contains(&format!("{HOST}: PASS (")),
        "{}",
        post.stderr
    );
    // Each host's outcome is kept beside its snapshot, written as the host finished.
    for step in ["pre", "post-1"] {
        let file = lab
            .run_dir("CHG-2001")
            .join(step)
            .join(format!("{HOST}.result.json"));
        let text =
            std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let outcome: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(outcome["host"], HOST, "{text}");
        assert_eq!(outcome["verdict"], "pass", "{text}");
        assert_eq!(outcome["fleet"], "azure-local", "{text}");
    }
}

#[test]
fn the_seed_1_update_blocks_naming_the_nic_firmware_of_the_same_port_and_promotes_nothing() {
    let lab = Lab::new();
    lab.gate(&["pre", "--run", "CHG-2002", HOST]).expect(0);
    lab.state("post-update");
    let before = lab.commits();
    let post = lab
        .gate(&["post", "--run", "CHG-2002", "--promote", "--format", "json"])
        .expect(1);
    let report = post.json();
    assert_eq!(report["verdict"], "block");
    let dcbx = findings(&report)
        .iter()
        .find(|f| f["path"] == DCBX_MODE && f["id"] == "dcbx-mode")
        .unwrap_or_else(|| panic!("no dcbx-mode finding: {report:#}"));
    assert_eq!(
        (&dcbx["old"], &dcbx["new"]),
        (&"ieee".into(), &"disabled".into())
    );
    assert_eq!(dcbx["origin"], "update", "{dcbx:#}");
    let firmware = &dcbx["firmware"][0];
    assert_eq!(firmware["this_port"], true, "{dcbx:#}");
    assert!(
        [
            "firmware/nic.slot.3-1-1/version",
            "nic/00:0a:f7:12:34:56/bmc/firmware/version"
        ]
        .contains(&firmware["path"].as_str().unwrap_or_default()),
        "the port's own NIC firmware comes first: {dcbx:#}"
    );
    assert_eq!(firmware["old"], "229.0.166.0");
    assert_eq!(firmware["new"], "229.1.123.0");
    assert_eq!(report["promotion"]["status"], "skipped");
    assert_eq!(lab.commits(), before);
    assert!(
        post.stderr.contains(&format!("{HOST}: BLOCK (")),
        "{}",
        post.stderr
    );
}

#[test]
fn pre_existing_drift_blocks_pre_and_the_run_gets_no_post() {
    let lab = Lab::new();
    lab.state("post-update");
    let head = git(&lab.store, &["rev-parse", "HEAD"]);
    let pre = lab.gate(&["pre", "--run", "CHG-2003", HOST]).expect(1);
    assert!(pre.stdout.contains("BLOCK"), "{}", pre.stdout);
    let run = lab.run_dir("CHG-2003");
    assert_eq!(folders(&run), vec!["pre"]);
    assert!(run.join("pre").join(format!("{HOST}.json")).is_file());
    assert!(run.join("pre/report.json").is_file());
    assert_eq!(git(&lab.store, &["rev-parse", "HEAD"]), head);
    assert!(
        !folders(&run).iter().any(|f| f.starts_with("post-")),
        "{:?}",
        folders(&run)
    );
}

#[test]
fn allowed_changes_pass_and_are_listed_as_allowed_with_their_reason() {
    let lab = Lab::new();
    let allow = lab.dir.path().join("allow.toml");
    std::fs::write(
        &allow,
        r#"
[[allow]]
path = "nic/*/bmc/**/dcbx_mode"
value = "disabled"
reason = "the new firmware runs DCBX in the OS (vendor advisory 4711)"
ticket = "CHG-2004"

[[allow]]
path = "nic/*/os/dcbx_support/current"
value = "none"
reason = "follows from the DCBX change"

[[allow]]
path = "nic/*/os/num_tcs/current/*"
value = 0
reason = "follows from the DCBX change"

[[allow]]
path = "nic/*/os/flow_control/operational/priority/3"
value = false
reason = "follows from the DCBX change"

[[allow]]
path = "nic/*/os/traffic_class/operational/**"
reason = "follows from the DCBX change"
"#,
    )
    .unwrap();
    lab.gate(&["pre", "--run", "CHG-2004", HOST]).expect(0);
    lab.state("post-update");
    let allow = allow.display().to_string();
    let post = lab
        .gate(&[
            "post",
            "--run",
            "CHG-2004",
            "--allow-file",
            &allow,
            "--format",
            "json",
        ])
        .expect(0);
    let report = post.json();
    let allowed = report["hosts"][0]["report"]["allowed"].as_array().unwrap();
    let dcbx = allowed
        .iter()
        .find(|a| a["finding"]["path"] == DCBX_MODE)
        .unwrap_or_else(|| panic!("{report:#}"));
    assert!(
        dcbx["allowance"]["reason"]
            .as_str()
            .unwrap()
            .contains("vendor advisory 4711")
    );
    assert!(findings(&report).iter().all(|f| f["severity"] != "block"));

    // Given at pre, the same allowances waive drift that is already there, and are recorded
    // in the run: its post applies them without being told again.
    let lab = Lab::new();
    lab.state("post-update");
    lab.gate(&["pre", "--run", "CHG-2014", "--allow-file", &allow, HOST])
        .expect(0);
    let manifest = std::fs::read_to_string(lab.run_dir("CHG-2014").join("manifest.json")).unwrap();
    assert!(manifest.contains("vendor advisory 4711"), "{manifest}");
    // The post, with the waived drift still there, passes and promotes, overriding baseline
    // promote's refusal of blocking invariants by naming the run and its allowances.
    let post = lab
        .gate(&["post", "--run", "CHG-2014", "--promote", "--format", "json"])
        .expect(0);
    let report = post.json();
    assert!(
        !report["hosts"][0]["report"]["allowed"]
            .as_array()
            .unwrap()
            .is_empty()
    );
    assert_eq!(report["promotion"]["status"], "promoted", "{report:#}");
    let message = git(&lab.store, &["log", "-1", "--format=%B"]);
    assert!(message.contains("Gate run CHG-2014, post-1"), "{message}");
    assert!(message.contains("vendor advisory 4711"), "{message}");
    assert!(message.contains("forced: gate run CHG-2014"), "{message}");
}

#[test]
fn an_expired_allowance_is_ignored_with_a_warning_naming_it() {
    let lab = Lab::new();
    let allow = lab.dir.path().join("allow.toml");
    std::fs::write(
        &allow,
        "[[allow]]\npath = \"nic/*/bmc/**/dcbx_mode\"\nvalue = \"disabled\"\nreason = \"old waiver\"\nexpires = \"2020-01-31\"\n",
    )
    .unwrap();
    let allow = allow.display().to_string();
    lab.gate(&["pre", "--run", "CHG-2005", HOST]).expect(0);
    lab.state("post-update");
    let post = lab
        .gate(&[
            "post",
            "--run",
            "CHG-2005",
            "--allow-file",
            &allow,
            "--format",
            "json",
        ])
        .expect(1);
    assert!(
        post.stderr.contains("nic/*/bmc/**/dcbx_mode")
            && post.stderr.contains("expired on 2020-01-31"),
        "{}",
        post.stderr
    );
    let report = post.json();
    assert_eq!(
        report["expired_allowances"][0]["path"],
        "nic/*/bmc/**/dcbx_mode"
    );
    assert!(report["allowances"].as_array().unwrap().is_empty());
    assert!(
        findings(&report).iter().any(|f| f["path"] == DCBX_MODE),
        "{report:#}"
    );
}

#[test]
fn an_unreachable_bmc_at_post_is_incomplete_and_nothing_is_promoted() {
    let mut lab = Lab::new();
    lab.gate(&["pre", "--run", "CHG-2006", HOST]).expect(0);
    lab.state("benign-update");
    lab.stop_bmc();
    let before = lab.commits();
    let post = lab
        .gate(&["post", "--run", "CHG-2006", "--promote", "--format", "json"])
        .expect(3);
    let report = post.json();
    assert_eq!(report["verdict"], "incomplete");
    assert_eq!(report["promotion"]["status"], "skipped");
    assert!(
        report["promotion"]["reason"]
            .as_str()
            .unwrap()
            .contains("INCOMPLETE")
    );
    assert_eq!(lab.commits(), before);
    assert!(
        post.stderr.contains(&format!("{HOST}: INCOMPLETE (")),
        "{}",
        post.stderr
    );
}

#[test]
fn a_pending_dcbx_disable_blocks_at_post_with_the_next_reboot_label() {
    let lab = Lab::new();
    lab.gate(&["pre", "--run", "CHG-2007", HOST]).expect(0);
    lab.state("pending-dcbx-disable");
    let post = lab.gate(&["post", "--run", "CHG-2007"]).expect(1);
    assert!(
        post.stdout.contains("takes effect at the next reboot"),
        "{}",
        post.stdout
    );
    let json = lab
        .gate(&["post", "--run", "CHG-2007", "--format", "json"])
        .expect(1)
        .json();
    let pending = findings(&json)
        .iter()
        .find(|f| f["pending"] == true && f["severity"] == "block")
        .unwrap_or_else(|| panic!("{json:#}"));
    assert!(pending["path"].as_str().unwrap().contains("/pending/"));
}

#[test]
fn post_without_pre_an_unknown_run_and_a_host_without_baseline_are_exit_2() {
    let lab = Lab::new();
    let unknown = lab.gate(&["post", "--run", "NO-SUCH-RUN"]).expect(2);
    assert!(
        unknown.stderr.contains("no run NO-SUCH-RUN"),
        "{}",
        unknown.stderr
    );
    lab.gate(&["pre", "--run", "CHG-2008", HOST]).expect(0);
    let other = lab
        .gate(&["post", "--run", "CHG-2008", "azl-node02"])
        .expect(2);
    assert!(
        other.stderr.contains("azl-node02 is not in run CHG-2008"),
        "{}",
        other.stderr
    );
    // A host of the run whose pre snapshot is gone.
    std::fs::remove_file(lab.run_dir("CHG-2008").join(format!("pre/{HOST}.json"))).unwrap();
    let gone = lab.gate(&["post", "--run", "CHG-2008"]).expect(2);
    assert!(gone.stderr.contains("no pre snapshot"), "{}", gone.stderr);
    // A host without a baseline is refused at pre, saying how to make one.
    let inventory = lab.store.join("inventory.toml");
    let mut text = std::fs::read_to_string(&inventory).unwrap();
    text.push_str(&format!(
        "\n[[host]]\nname = \"azl-node02\"\nsources = [\"redfish={}\"]\n",
        lab.url()
    ));
    std::fs::write(&inventory, text).unwrap();
    let new = lab
        .gate(&["pre", "--run", "CHG-2009", "azl-node02"])
        .expect(2);
    assert!(
        new.stderr.contains("no baseline") && new.stderr.contains("baseline promote"),
        "{}",
        new.stderr
    );
    let absent = lab
        .gate(&["pre", "--run", "CHG-2009", "azl-node09"])
        .expect(2);
    assert!(
        absent.stderr.contains("no host azl-node09"),
        "{}",
        absent.stderr
    );
    let bad = lab.gate(&["pre", "--run", "../x", HOST]).expect(2);
    assert!(bad.stderr.contains("invalid run id"), "{}", bad.stderr);
}

#[test]
fn every_post_is_kept_and_a_pre_after_a_post_is_refused() {
    let lab = Lab::new();
    lab.gate(&["pre", "--run", "CHG-2010", HOST]).expect(0);
    lab.state("pending-dcbx-disable");
    lab.gate(&["post", "--run", "CHG-2010"]).expect(1);
    // After the reboot the staged value is live.
    lab.state("post-update");
    let second = lab
        .gate(&["post", "--run", "CHG-2010", "--format", "json"])
        .expect(1);
    assert_eq!(second.json()["run"]["attempt"], 2);
    let run = lab.run_dir("CHG-2010");
    assert_eq!(folders(&run), vec!["post-1", "post-2", "pre"]);
    for post in ["post-1", "post-2"] {
        assert!(run.join(post).join(format!("{HOST}.json")).is_file());
        assert!(run.join(post).join("report.json").is_file());
    }
    let again = lab.gate(&["pre", "--run", "CHG-2010", HOST]).expect(2);
    assert!(
        again.stderr.contains("already has a post"),
        "{}",
        again.stderr
    );
}

#[test]
fn a_serial_rollout_gates_node_after_node_in_one_run() {
    let lab = two_nodes();
    lab.gate(&["pre", "--run", "CHG-2020", HOST]).expect(0);
    lab.state("benign-update");
    lab.gate(&["post", "--run", "CHG-2020", HOST]).expect(0);
    lab.state("baseline");
    // The next node joins the same run although the run already has a post.
    lab.gate(&["pre", "--run", "CHG-2020", "azl-node02"])
        .expect(0);
    lab.state("benign-update");
    lab.gate(&["post", "--run", "CHG-2020", "azl-node02"])
        .expect(0);
    // A node that was already posted keeps the pre its post was judged against.
    let again = lab.gate(&["pre", "--run", "CHG-2020", HOST]).expect(2);
    assert!(
        again
            .stderr
            .contains("host azl-node01 already has a post in run CHG-2020"),
        "{}",
        again.stderr
    );
}

/// A lab with a second node, `azl-node02`, behind the lab's one simulated BMC: each has its
/// own baseline and inventory entry.
fn two_nodes() -> Lab {
    let lab = Lab::new();
    let second = lab.dir.path().join("azl-node02.json");
    lab.command()
        .args(["capture", "--host", "azl-node02"])
        .arg(format!("--source=redfish={}", lab.url()))
        .arg(format!(
            "--source=windows=dir:{}",
            lab.host.join("windows").display()
        ))
        .arg("--out")
        .arg(&second)
        .assert()
        .code(0);
    lab.command()
        .args(["baseline", "promote", "--fleet", "azure-local"])
        .arg(&second)
        .assert()
        .code(0);
    let inventory = std::fs::read_to_string(lab.store.join("inventory.toml")).unwrap();
    let node02 = inventory
        .split_once("[[host]]")
        .map(|(_, host)| {
            format!(
                "[[host]]{}",
                host.replace("name = \"azl-node01\"", "name = \"azl-node02\"")
            )
        })
        .unwrap();
    std::fs::write(
        lab.store.join("inventory.toml"),
        format!("{inventory}\n{node02}"),
    )
    .unwrap();
    lab
}

#[test]
fn each_host_is_promoted_only_under_the_policy_its_own_pre_was_judged_by() {
    // A serial rollout whose policy was weakened before the second node's pre: a post of
    // both under today's policy must not promote the first under rules it was not pre'd by.
    let lab = two_nodes();
    let weaker = lab.dir.path().join("weaker.toml");
    std::fs::write(
        &weaker,
        "[[rule]]\nid = \"bios-attributes\"\non_change = \"info\"\n",
    )
    .unwrap();
    let weaker = weaker.to_str().unwrap();
    lab.gate(&["pre", "--run", "CHG-2040", HOST]).expect(0);
    lab.gate(&["pre", "--run", "CHG-2040", "--policy", weaker, "azl-node02"])
        .expect(0);
    lab.state("benign-update");
    let before = lab.commits();
    let post = lab
        .gate(&[
            "post",
            "--run",
            "CHG-2040",
            "--policy",
            weaker,
            "--promote",
            "--format",
            "json",
        ])
        .expect(2);
    let report = post.json();
    let reason = report["promotion"]["reason"].as_str().unwrap();
    assert!(
        reason.starts_with("the policy changed since pre (azl-node01: sha256:"),
        "{reason}"
    );
    assert_eq!(lab.commits(), before);
}

#[test]
fn a_generated_run_id_is_printed_and_runs_stay_out_of_git() {
    let lab = Lab::new();
    let pre = lab.gate(&["pre", HOST]).expect(0);
    let id = pre
        .stderr
        .lines()
        .find_map(|l| l.strip_prefix("run ")?.split(':').next())
        .unwrap_or_else(|| panic!("no run id in {}", pre.stderr))
        .to_owned();
    assert_eq!(id.len(), "20261201T140502Z-".len() + 6, "{id}");
    assert!(pre.stderr.contains("pass it to gate post --run"));
    // The store's first run folder: its `.gitignore` is written, and the operator told so.
    let ignore = lab.store.join(".driftgate/.gitignore");
    assert!(
        pre.stderr.contains(&format!(
            "driftgate: wrote {} (`*`): git ignores driftgate's run folders in this store",
            ignore.display()
        )),
        "{}",
        pre.stderr
    );
    assert_eq!(std::fs::read_to_string(&ignore).unwrap(), "*\n");
    let manifest: Value = serde_json::from_str(
        &std::fs::read_to_string(lab.run_dir(&id).join("manifest.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(manifest["schema"], "driftgate.run/v1");
    assert_eq!(manifest["id"], id.as_str());
    assert_eq!(manifest["hosts"][0]["fleet"], "azure-local");
    assert_eq!(manifest["hosts"][0]["cluster"], "azl-cluster-a");
    assert!(
        manifest["policy_digest"]
            .as_str()
            .unwrap()
            .starts_with("sha256:")
    );
    let status = git(&lab.store, &["status", "--porcelain"]);
    assert!(!status.contains(".driftgate"), "{status}");
    // The host read completely is remembered in the store's nightly state, under the run.
    let state = git(&lab.store, &["show", "driftgate/state:state.json"]);
    assert!(state.contains(&format!("\"{HOST}\"")), "{state}");
    let body = git(&lab.store, &["log", "-1", "--format=%b", "driftgate/state"]);
    assert!(body.contains(&format!("Run: {id}")), "{body}");
    // Before any post, pre may run again: it replaces the host's pre snapshot.
    let pre_file = lab.run_dir(&id).join(format!("pre/{HOST}.json"));
    let first = std::fs::read_to_string(&pre_file).unwrap();
    std::thread::sleep(Duration::from_millis(1100)); // another capture second
    let again = lab.gate(&["pre", "--run", &id, HOST]).expect(0);
    assert!(
        !again.stderr.contains(".gitignore"),
        "said once: {}",
        again.stderr
    );
    assert_ne!(std::fs::read_to_string(&pre_file).unwrap(), first);
    let manifest = std::fs::read_to_string(lab.run_dir(&id).join("manifest.json")).unwrap();
    assert_eq!(manifest.matches("\"azl-node01\"").count(), 1, "{manifest}");
    lab.state("benign-update");
    lab.gate(&["post", "--run", &id]).expect(0);
}

#[test]
fn a_signal_stops_the_gate_writing_no_snapshot_and_no_report() {
    let mut lab = Lab::with_simulator(&["--fault", "hang=/redfish/v1/Systems"]);
    let child = lab
        .process()
        .args([
            "gate",
            "pre",
            "--run",
            "CHG-2011",
            HOST,
            "--bmc-timeout",
            "60",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The gate is under way once the capture waits on the hanging resource.
    let simulator = lab.simulator.as_mut().expect("the simulator runs");
    assert!(simulator.logged("DEBUG GET /redfish/v1/Systems", Duration::from_secs(20)));
    let pid = libc::pid_t::try_from(child.id()).unwrap();
    // SAFETY: the pid is our child's, not yet reaped.
    unsafe { libc::kill(pid, libc::SIGTERM) };
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(143), "{stderr}");
    assert!(stderr.contains("stopped by SIGTERM"), "{stderr}");
    let run = lab.run_dir("CHG-2011");
    assert!(!run.join(format!("pre/{HOST}.json")).exists());
    assert!(!run.join("pre/report.json").exists());
}

#[test]
fn credentials_never_reach_the_run_directory_or_the_store() {
    let lab = Lab::authenticated();
    lab.gate(&["pre", "--run", "CHG-2012", HOST]).expect(0);
    lab.state("benign-update");
    let post = lab
        .gate(&["post", "--run", "CHG-2012", "--promote"])
        .expect(0);
    let password = common::simulator::PASSWORD;
    let mut unset = lab.command();
    unset
        .env_remove(common::gate::PASSWORD_ENV)
        .args(["gate", "pre", "--run", "CHG-2015", HOST]);
    let unset = common::gate::run(&mut unset).expect(2);
    assert!(
        unset.stderr.contains(common::gate::PASSWORD_ENV),
        "{}",
        unset.stderr
    );
    assert!(!post.stdout.contains(password) && !post.stderr.contains(password));
    for file in files_under(&lab.store) {
        let bytes = std::fs::read(&file).unwrap();
        assert!(
            !String::from_utf8_lossy(&bytes).contains(password),
            "{} holds the BMC password",
            file.display()
        );
    }
}

/// Every file of a run directory parses: JSON, and every snapshot (`<step>/<host>.json`)
/// verifies against its digest. Temporary files of an atomic write a kill cut short
/// (`.driftgate-*.tmp`) are not run files.
fn assert_run_readable(run: &Path, seed: u64) {
    if !run.exists() {
        return;
    }
    for file in files_under(run) {
        let name = file.file_name().unwrap().to_string_lossy().into_owned();
        if name.starts_with(".driftgate-") && name.ends_with(".tmp") {
            continue;
        }
        let text = std::fs::read_to_string(&file).unwrap();
        let value: Result<Value, _> = serde_json::from_str(&text);
        assert!(value.is_ok(), "seed {seed}: {}: {text}", file.display());
        let in_step = file.parent() != Some(run);
        if in_step && name != "report.json" && !name.ends_with(".result.json") {
            let verified = VerifiedSnapshot::parse(&text, &file.display().to_string());
            assert!(verified.is_ok(), "seed {seed}: {verified:?}");
        }
    }
}

/// `git fsck` of the store, naming the seed when it fails.
fn assert_store_valid(store: &Path, seed: u64) {
    let out = std::process::Command::new("git")
        .arg("-C")
        .arg(store)
        .args(["fsck", "--full", "--strict", "--no-dangling"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "seed {seed}: git fsck: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn a_post_promote_killed_at_random_moments_leaves_the_store_valid_and_the_run_readable() {
    let lab = Lab::new();
    lab.gate(&["pre", "--run", "CHG-2013", HOST]).expect(0);
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
    let run = lab.run_dir("CHG-2013");
    // How long one whole post with promote takes here: the kills fall anywhere inside it.
    lab.state("benign-update");
    let started = std::time::Instant::now();
    let first = lab.gate(&["post", "--run", "CHG-2013", "--promote"]);
    let whole = u64::try_from(started.elapsed().as_micros()).unwrap().max(1);
    assert_eq!(
        first.code, 0,
        "seed {seed}: {}\n{}",
        first.stdout, first.stderr
    );
    for round in 0..16 {
        // Alternate, so that every promote that gets through has something to commit.
        lab.state(if round % 2 == 0 {
            "baseline"
        } else {
            "benign-update"
        });
        let mut child = lab
            .process()
            .args(["gate", "post", "--run", "CHG-2013", "--promote"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let delay = random.next(whole);
        std::thread::sleep(Duration::from_micros(delay));
        let _ = child.kill(); // SIGKILL
        let _ = child.wait();
        assert_store_valid(&lab.store, seed);
        assert_run_readable(&run, seed);
    }
    lab.state("benign-update");
    let last = lab.gate(&["post", "--run", "CHG-2013", "--promote"]);
    assert!(
        last.code == 0,
        "seed {seed}: {}\n{}",
        last.stdout,
        last.stderr
    );
    assert_store_valid(&lab.store, seed);
    assert_run_readable(&run, seed);
    let status = git(&lab.store, &["status", "--porcelain"]);
    assert_eq!(status.trim(), "?? inventory.toml", "seed {seed}");
}

#[test]
fn a_bare_store_needs_run_dir_and_a_policy_change_since_pre_is_said() {
    let lab = Lab::new();
    let bare = lab.dir.path().join("bare.git");
    git(
        lab.dir.path(),
        &[
            "clone",
            "--quiet",
            "--bare",
            lab.store.to_str().unwrap(),
            "bare.git",
        ],
    );
    let inventory = lab.dir.path().join("inventory.toml");
    std::fs::copy(lab.store.join("inventory.toml"), &inventory).unwrap();
    let in_bare = |args: &[&str]| {
        let mut cmd = lab.command();
        cmd.arg("--repo")
            .arg(&bare)
            .arg("gate")
            .args(args)
            .arg("--inventory")
            .arg(&inventory);
        common::gate::run(&mut cmd)
    };
    let refused = in_bare(&["pre", "--run", "CHG-2016", HOST]).expect(2);
    assert!(refused.stderr.contains("--run-dir"), "{}", refused.stderr);
    let run = lab.dir.path().join("runs/CHG-2016");
    let run_dir = run.display().to_string();
    in_bare(&["pre", "--run", "CHG-2016", "--run-dir", &run_dir, HOST]).expect(0);
    assert!(run.join("manifest.json").is_file());
    let other = in_bare(&["post", "--run", "CHG-9", "--run-dir", &run_dir]).expect(2);
    assert!(
        other.stderr.contains("holds run CHG-2016"),
        "{}",
        other.stderr
    );
    // A post judged under another policy than its pre says so.
    let policy = lab.dir.path().join("policy.toml");
    std::fs::write(
        &policy,
        "[[rule]]\nid = \"bios-attributes\"\non_change = \"block\"\n",
    )
    .unwrap();
    let post = in_bare(&[
        "post",
        "--run",
        "CHG-2016",
        "--run-dir",
        &run_dir,
        "--policy",
        policy.to_str().unwrap(),
        "--format",
        "json",
    ])
    .expect(0);
    let warnings = post.json()["warnings"].to_string();
    assert!(warnings.contains("the policy changed"), "{warnings}");
}

#[test]
fn an_allowance_without_a_value_at_pre_waives_only_drift_already_there() {
    // A waiver said before the update does not cover what the update then does.
    let lab = Lab::new();
    lab.gate(&["pre", "--run", "CHG-2030", "--allow", "nic/*/bmc/**", HOST])
        .expect(0);
    lab.state("pending-dcbx-disable");
    let before = lab.commits();
    let post = lab
        .gate(&["post", "--run", "CHG-2030", "--promote", "--format", "json"])
        .expect(1);
    let report = post.json();
    assert_eq!(report["verdict"], "block", "{report:#}");
    assert!(
        findings(&report)
            .iter()
            .any(|f| f["severity"] == "block" && f["pending"] == true),
        "{report:#}"
    );
    assert_eq!(report["promotion"]["status"], "skipped", "{report:#}");
    assert_eq!(lab.commits(), before);

    // Drift already there at pre, waived at pre, still passes at post.
    let lab = Lab::new();
    lab.state("post-update");
    lab.gate(&["pre", "--run", "CHG-2031", "--allow", "**", HOST])
        .expect(0);
    let post = lab
        .gate(&["post", "--run", "CHG-2031", "--format", "json"])
        .expect(0);
    let report = post.json();
    let allowed = report["hosts"][0]["report"]["allowed"].as_array().unwrap();
    assert!(!allowed.is_empty(), "{report:#}");
    assert!(
        allowed
            .iter()
            .all(|a| a["finding"]["origin"] == "pre_existing"),
        "{report:#}"
    );
}

#[test]
fn allowances_given_at_pre_are_the_hosts_of_that_pre_only() {
    let lab = two_nodes();
    lab.gate(&["pre", "--run", "CHG-2032", "--allow", "**=disabled", HOST])
        .expect(0);
    lab.gate(&["pre", "--run", "CHG-2032", "azl-node02"])
        .expect(0);
    let manifest: Value = serde_json::from_str(
        &std::fs::read_to_string(lab.run_dir("CHG-2032").join("manifest.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(manifest["hosts"][0]["name"], HOST);
    assert_eq!(manifest["hosts"][0]["allowances"][0]["path"], "**");
    assert_eq!(manifest["hosts"][1]["name"], "azl-node02");
    assert_eq!(manifest["hosts"][1]["allowances"], Value::Array(vec![]));
    lab.state("post-update");
    // node02's post does not apply node01's declared change.
    let node02 = lab
        .gate(&[
            "post",
            "--run",
            "CHG-2032",
            "--format",
            "json",
            "azl-node02",
        ])
        .expect(1)
        .json();
    assert!(
        findings(&node02)
            .iter()
            .any(|f| f["path"] == DCBX_MODE && f["severity"] == "block"),
        "{node02:#}"
    );
    let node01 = lab
        .gate(&["post", "--run", "CHG-2032", "--format", "json", HOST])
        .json();
    assert!(
        node01["hosts"][0]["report"]["allowed"]
            .as_array()
            .unwrap()
            .iter()
            .any(|a| a["finding"]["path"] == DCBX_MODE),
        "{node01:#}"
    );
}

#[test]
fn the_same_rules_from_another_file_are_the_same_policy_and_a_changed_one_is_not_promoted() {
    let lab = Lab::new();
    let rules = "[[rule]]\nid = \"bios-attributes\"\non_change = \"block\"\n";
    let here = lab.dir.path().join("policy.toml");
    std::fs::create_dir(lab.dir.path().join("copy")).unwrap();
    let copy = lab.dir.path().join("copy/policy.toml");
    std::fs::write(&here, rules).unwrap();
    std::fs::write(&copy, format!("# the same rules\n\n{rules}")).unwrap();
    let (here, copy) = (here.to_str().unwrap(), copy.to_str().unwrap());
    lab.gate(&["pre", "--run", "CHG-2033", "--policy", here, HOST])
        .expect(0);
    lab.state("benign-update");
    let post = lab
        .gate(&[
            "post",
            "--run",
            "CHG-2033",
            "--policy",
            copy,
            "--promote",
            "--format",
            "json",
        ])
        .expect(0);
    let report = post.json();
    assert_eq!(report["promotion"]["status"], "promoted", "{report:#}");
    assert!(
        !report["warnings"]
            .to_string()
            .contains("the policy changed"),
        "{report:#}"
    );

    // Weakened after pre: the post is judged and said, but not promoted (exit 2).
    let lab = Lab::new();
    let weaker = lab.dir.path().join("weaker.toml");
    std::fs::write(&weaker, rules.replace("block", "info")).unwrap();
    lab.gate(&["pre", "--run", "CHG-2034", "--policy", here, HOST])
        .expect(0);
    let before = lab.commits();
    let post = lab
        .gate(&[
            "post",
            "--run",
            "CHG-2034",
            "--policy",
            weaker.to_str().unwrap(),
            "--promote",
            "--format",
            "json",
        ])
        .expect(2);
    let report = post.json();
    assert_eq!(report["verdict"], "pass", "{report:#}");
    assert_eq!(report["promotion"]["status"], "skipped", "{report:#}");
    let reason = report["promotion"]["reason"].as_str().unwrap();
    assert!(
        reason.starts_with("the policy changed since pre (azl-node01: sha256:")
            && reason.contains("run the gate again from pre"),
        "{reason}"
    );
    assert!(
        report["warnings"]
            .to_string()
            .contains("the policy changed"),
        "{report:#}"
    );
    assert_eq!(lab.commits(), before);
}

#[test]
fn strict_at_pre_makes_the_runs_posts_strict() {
    let lab = Lab::new();
    // Firmware changes warn under this policy: a strict post blocks on them.
    let policy = lab.dir.path().join("policy.toml");
    std::fs::write(
        &policy,
        "[[rule]]\nid = \"firmware-warns\"\npath = \"**/firmware/**\"\non_change = \"warn\"\nwhy = \"test\"\n\n[[rule]]\nid = \"firmware-warns-top\"\npath = \"firmware/**\"\non_change = \"warn\"\nwhy = \"test\"\n",
    )
    .unwrap();
    let policy = policy.to_str().unwrap();
    lab.gate(&["pre", "--run", "CHG-2035", "--policy", policy, HOST])
        .expect(0);
    lab.state("benign-update");
    let lax = lab
        .gate(&[
            "post", "--run", "CHG-2035", "--policy", policy, "--format", "json",
        ])
        .expect(0)
        .json();
    assert_eq!(lax["verdict"], "warn", "{lax:#}");

    let lab = Lab::new();
    lab.gate(&[
        "pre", "--run", "CHG-2036", "--strict", "--policy", policy, HOST,
    ])
    .expect(0);
    lab.state("benign-update");
    let post = lab
        .gate(&[
            "post", "--run", "CHG-2036", "--policy", policy, "--format", "json",
        ])
        .expect(1);
    let report = post.json();
    assert_eq!(report["strict"], true, "{report:#}");
    assert!(
        report["warnings"].to_string().contains("--strict"),
        "{report:#}"
    );
}

#[test]
fn a_post_judges_against_the_baseline_its_pre_read_and_says_when_it_moved() {
    let lab = Lab::new();
    lab.gate(&["pre", "--run", "CHG-2037", HOST]).expect(0);
    let manifest: Value = serde_json::from_str(
        &std::fs::read_to_string(lab.run_dir("CHG-2037").join("manifest.json")).unwrap(),
    )
    .unwrap();
    let digest = manifest["hosts"][0]["baseline_digest"].clone();
    assert_eq!(
        manifest["hosts"][0]["baseline_commit"].as_str().unwrap(),
        git(&lab.store, &["rev-parse", "HEAD"]).trim()
    );
    // Someone promotes another baseline of the host meanwhile (forced: it blocks).
    lab.state("post-update");
    let other = lab.dir.path().join("other.json");
    lab.command()
        .args(["capture", "--host", HOST])
        .arg(format!("--source=redfish={}", lab.url()))
        .arg(format!(
            "--source=windows=dir:{}",
            lab.host.join("windows").display()
        ))
        .arg("--out")
        .arg(&other)
        .assert()
        .code(0);
    lab.command()
        .args(["baseline", "promote", "--fleet", "azure-local"])
        .args(["--force", "--reason", "someone else's promote"])
        .arg(&other)
        .assert()
        .code(0);
    lab.state("benign-update");
    let report = lab
        .gate(&["post", "--run", "CHG-2037", "--format", "json"])
        .expect(0)
        .json();
    assert_eq!(
        report["hosts"][0]["report"]["baseline"]["digest"], digest,
        "{report:#}"
    );
    assert!(
        report["warnings"]
            .to_string()
            .contains("the baseline of azl-node01 moved since the pre of run CHG-2037"),
        "{report:#}"
    );
    // Promoting would replace the baseline someone else promoted, unjudged: refused.
    let commits = lab.commits();
    let refused = lab
        .gate(&["post", "--run", "CHG-2037", "--promote", "--format", "json"])
        .expect(2);
    assert!(
        refused.json()["promotion"]["reason"]
            .as_str()
            .unwrap()
            .contains("the baseline of azl-node01 moved since pre"),
        "{}",
        refused.stdout
    );
    assert_eq!(lab.commits(), commits);
}

#[test]
fn a_promote_that_fails_keeps_the_judged_report_and_exits_2() {
    let lab = Lab::new();
    lab.gate(&["pre", "--run", "CHG-2038", HOST]).expect(0);
    lab.state("benign-update");
    let before = lab.commits();
    // Another promote holds the store's lock for the whole wait.
    let lock = std::fs::File::create(lab.store.join(".git/driftgate.lock")).unwrap();
    lock.lock().unwrap();
    let post = lab
        .gate(&[
            "post",
            "--run",
            "CHG-2038",
            "--promote",
            "--lock-wait",
            "1",
            "--format",
            "json",
        ])
        .expect(2);
    drop(lock);
    let report = post.json();
    assert_eq!(report["verdict"], "pass", "{report:#}");
    assert!(
        report["promotion"]["reason"]
            .as_str()
            .unwrap()
            .starts_with("promote failed: "),
        "{report:#}"
    );
    assert!(post.stderr.contains("not promoted"), "{}", post.stderr);
    let kept: Value = serde_json::from_str(
        &std::fs::read_to_string(lab.run_dir("CHG-2038").join("post-1/report.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(kept["promotion"], report["promotion"]);
    assert_eq!(lab.commits(), before);
}

#[test]
fn the_help_of_the_gate_and_its_steps_shows_an_example_and_the_report_formats() {
    let lab = Lab::new();
    for args in [
        &["gate", "--help"][..],
        &["gate", "pre", "--help"],
        &["gate", "post", "--help"],
    ] {
        let mut cmd = lab.command();
        cmd.args(args);
        let help = common::gate::run(&mut cmd).expect(0).stdout;
        assert!(help.contains("Example"), "{args:?}: {help}");
        if args.len() == 3 {
            // clap wraps long lines: compare the words.
            let words = help.split_whitespace().collect::<Vec<_>>().join(" ");
            assert!(words.contains("`driftgate schema gate-report`"), "{help}");
            assert!(!words.contains("`driftgate schema report`"), "{help}");
        }
    }
}

#[test]
fn the_gate_reads_an_ansible_inventory() {
    let lab = Lab::new();
    let inventory = lab.dir.path().join("hosts.yml");
    let text = format!(
        "all:\n  children:\n    azl_cluster_a:\n      vars:\n        driftgate_fleet: azure-local\n        driftgate_cluster: azl-cluster-a\n      hosts:\n        {HOST}:\n          driftgate_bmc: {}\n          driftgate_sources: [\"windows=dir:{}\"]\n",
        lab.url(),
        lab.host.join("windows").display()
    );
    std::fs::write(&inventory, text).unwrap();
    let inventory = inventory.display().to_string();
    lab.gate(&["pre", "--run", "CHG-2201", "--inventory", &inventory, HOST])
        .expect(0);
    lab.state("benign-update");
    let post = lab
        .gate(&[
            "post",
            "--run",
            "CHG-2201",
            "--inventory",
            &inventory,
            "--format",
            "json",
        ])
        .expect(0);
    assert_eq!(post.json()["verdict"], "pass");
}

#[test]
fn a_link_where_a_run_folder_belongs_is_refused_and_nothing_behind_it_is_touched() {
    // Each folder of `.driftgate/runs/R2/pre` in turn is a link to someone else's folder.
    for depth in 1..=4 {
        let lab = Lab::new();
        let other = lab.dir.path().join("someone-elses");
        std::fs::create_dir_all(&other).unwrap();
        std::fs::write(other.join("azl-node01.json"), "not driftgate's\n").unwrap();
        std::fs::write(other.join("manifest.json"), "not driftgate's\n").unwrap();
        let chain = [".driftgate", "runs", "R2", "pre"];
        let mut planted = lab.store.clone();
        for name in &chain[..depth - 1] {
            planted = planted.join(name);
            std::fs::create_dir_all(&planted).unwrap();
        }
        planted = planted.join(chain[depth - 1]);
        std::os::unix::fs::symlink(&other, &planted).unwrap();
        let ran = lab.gate(&["pre", "--run", "R2", "azl-node01"]);
        assert_eq!(ran.code, 2, "{planted:?}: {}", ran.stderr);
        assert!(
            ran.stderr.contains(&format!(
                "{} is a symbolic link where driftgate keeps a folder of its own",
                planted.display()
            )),
            "{}",
            ran.stderr
        );
        let mut names: Vec<String> = std::fs::read_dir(&other)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        assert_eq!(names, ["azl-node01.json", "manifest.json"], "{planted:?}");
        for name in names {
            assert_eq!(
                std::fs::read_to_string(other.join(name)).unwrap(),
                "not driftgate's\n"
            );
        }
    }
}

/// A host name of `len` bytes, spelled as host names are.
fn long_host_name(len: usize) -> String {
    format!("azl-{}", "n".repeat(len - 4))
}

#[test]
fn a_host_name_too_long_for_its_file_names_is_refused_before_anything_is_captured() {
    let mut lab = Lab::new();
    lab.name = long_host_name(250);
    lab.write_inventory(&lab.url());
    let requests = lab.simulator.as_ref().unwrap().requests();
    let pre = lab.gate(&["pre", "--run", "CHG-2101", &lab.name]).expect(2);
    for says in [
        "host name \"azl-nnnnnnnnnnnnnnnnnnnn…nnnnnnnn\" is 250 bytes long",
        "<host>.result.json",
        "would be 262 bytes, over the file-name limit of 255 bytes (NAME_MAX)",
    ] {
        assert!(pre.stderr.contains(says), "{says:?} not in {}", pre.stderr);
    }
    assert!(!pre.stderr.contains("File name too long"), "{}", pre.stderr);
    // Nothing captured, nothing written: no request reached the BMC, no run directory.
    assert_eq!(lab.simulator.as_ref().unwrap().requests(), requests);
    assert!(!lab.store.join(".driftgate").exists());
    // A run id too long for its folder is refused the same way.
    lab.name = HOST.to_owned();
    lab.write_inventory(&lab.url());
    let run = "r".repeat(256);
    let refused = lab.gate(&["pre", "--run", &run, HOST]).expect(2);
    assert!(
        refused.stderr.contains(
            "the file name <id> (the run directory .driftgate/runs/<id>/) would be 256 bytes"
        ),
        "{}",
        refused.stderr
    );
    assert!(!lab.store.join(".driftgate").exists());
}

#[test]
fn a_host_name_of_200_bytes_is_gated_and_promoted_end_to_end() {
    let lab = Lab::named(&long_host_name(200));
    let name = lab.name.clone();
    lab.gate(&["pre", "--run", "CHG-2102", &name]).expect(0);
    lab.state("benign-update");
    let post = lab
        .gate(&["post", "--run", "CHG-2102", "--promote", "--format", "json"])
        .expect(0);
    assert_eq!(
        post.json()["promotion"]["status"],
        "promoted",
        "{}",
        post.stdout
    );
    for step in ["pre", "post-1"] {
        for file in [format!("{name}.json"), format!("{name}.result.json")] {
            let path = lab.run_dir("CHG-2102").join(step).join(&file);
            assert!(path.is_file(), "{}", path.display());
        }
    }
    let baseline = git(
        &lab.store,
        &["show", &format!("HEAD:baselines/azure-local/{name}.json")],
    );
    assert!(baseline.contains(&format!("\"host\": \"{name}\"")));
}
