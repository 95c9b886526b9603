//! The nightly state survives a clean checkout (issue 37, item 7), end to end over the fleet
//! simulator and the real `git`: a night's `check --all` keeps each host's last success on the
//! store's branch `driftgate/state` and leaves `git status` clean; a plain `git clone` of the
//! store (no local branch of it, only `origin/driftgate/state`) runs the next night with every
//! BMC down, and its Prometheus textfile (a new file: no earlier one to keep times from) and
//! HTML report carry the first night's last success of every host, and the stale-capture
//! finding names that age, not "no capture on record". The clone's push of the branch is a
//! fast-forward.

use crate::common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use common::fleet::{FleetLab, Host, State};
use common::fleet_sim::FleetSim;
use common::prometheus::{check_metrics, per_host};
use common::simulator::bmc;
use serde_json::Value;

const HOSTS: usize = 3;
const LAST_SUCCESS: &str = "driftgate_last_success_timestamp_seconds";

fn utf8(path: &Path) -> &str {
    path.to_str().expect("a UTF-8 path")
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// `check --all` of `store` over `inventory`, with the simulator's account, writing a
/// Prometheus textfile, an HTML page and a JSON report named `name` into the lab.
fn night(lab: &FleetLab, store: &Path, inventory: &Path, name: &str, code: i32) -> Night {
    let prom = lab.path(&format!("{name}.prom"));
    let html = lab.path(&format!("{name}.html"));
    let mut command = common::driftgate();
    command
        .env_remove("CI")
        .arg("--repo")
        .arg(store)
        .args(["check", "--all", "--inventory", utf8(inventory)])
        .args([
            "--host-timeout",
            "10",
            "--stale-after",
            "1s",
            "--format",
            "json",
        ])
        .args(["--report", &format!("prometheus={}", prom.display())])
        .args(["--report", &format!("html={}", html.display())]);
    FleetSim::with_account(&mut command);
    let ran = common::gate::run(&mut command).expect(code);
    let prom = read(&prom);
    check_metrics(&prom).unwrap_or_else(|e| panic!("{name}: {e}\n{prom}"));
    Night {
        report: ran.json(),
        prom,
        html: read(&html),
        stderr: ran.stderr,
    }
}

struct Night {
    report: Value,
    prom: String,
    html: String,
    stderr: String,
}

impl Night {
    /// Host → its `last_success_at` in the JSON report, as Unix seconds.
    fn last_success(&self) -> BTreeMap<String, f64> {
        self.report["hosts"]
            .as_array()
            .expect("hosts")
            .iter()
            .filter_map(|h| {
                let at: jiff::Timestamp = h["last_success_at"].as_str()?.parse().ok()?;
                Some((h["host"].as_str()?.to_owned(), at.as_second() as f64))
            })
            .collect()
    }

    /// The stale-capture messages, by host.
    fn stale_captures(&self) -> BTreeMap<String, String> {
        self.report["findings"]
            .as_array()
            .expect("findings")
            .iter()
            .filter(|f| f["rule"] == "fleet/stale-capture")
            .map(|f| {
                (
                    f["hosts"][0].as_str().expect("a host").to_owned(),
                    f["message"].as_str().expect("a message").to_owned(),
                )
            })
            .collect()
    }
}

#[test]
fn a_fresh_clone_of_a_store_that_ran_a_night_keeps_each_hosts_last_success() {
    let lab = FleetLab::new(&[], &[]);
    let inventory = lab.path("inventory.toml");
    let sim = FleetSim::start(
        &[&bmc("baseline")],
        HOSTS,
        &["--write-inventory", utf8(&inventory)],
    );
    // The store as an operator keeps it: its inventory committed, baselines promoted.
    std::fs::remove_file(lab.store.join("inventory.toml")).expect("the lab's inventory");
    let boot = lab.path("bootstrap");
    common::nightly::check(&lab, &inventory, &["--bootstrap", "--out-dir", utf8(&boot)]).expect(0);
    let mut snapshots: Vec<PathBuf> = std::fs::read_dir(boot.join("snapshots"))
        .expect("the bootstrap's snapshots")
        .map(|e| e.expect("an entry").path())
        .collect();
    snapshots.sort();
    lab.command()
        .args(["baseline", "promote", "--fleet", "sim"])
        .args(&snapshots)
        .assert()
        .code(0);

    let first = night(&lab, &lab.store, &inventory, "night-1", 0);
    let captured = first.last_success();
    assert_eq!(captured.len(), HOSTS, "{:#}", first.report);
    assert_eq!(per_host(&first.prom, LAST_SUCCESS, None), captured);
    assert_eq!(
        common::git(
            &lab.store,
            &["status", "--porcelain", "--untracked-files=all"]
        ),
        "",
        "a night leaves nothing for git status (no `?? .driftgate/`)"
    );
    let state = common::git(&lab.store, &["show", "driftgate/state:state.json"]);
    for i in 0..HOSTS {
        assert!(state.contains(&FleetSim::host(i)), "{state}");
    }
    // The baselines' branch carries promotes only.
    let main_log = common::git(&lab.store, &["log", "--format=%s", "HEAD"]);
    assert!(!main_log.contains("state:"), "{main_log}");

    // Every BMC goes down; the next night runs from a plain clone, as a CI job does.
    drop(sim);
    // Older than --stale-after 1s, in whole seconds.
    std::thread::sleep(std::time::Duration::from_millis(2100));
    let clone = lab.path("clone");
    common::git(
        lab.dir.path(),
        &["clone", "--quiet", utf8(&lab.store), "clone"],
    );
    assert_eq!(
        common::git(&clone, &["branch", "--list", "driftgate/state"]),
        "",
        "a clone has no local state branch, only origin's copy"
    );
    let second = night(&lab, &clone, &inventory, "night-2", 3);
    assert_eq!(
        per_host(&second.prom, LAST_SUCCESS, None),
        captured,
        "the Prometheus metric keeps the first night's success:\n{}",
        second.prom
    );
    assert_eq!(second.last_success(), captured, "{:#}", second.report);
    for (host, at) in &captured {
        let shown = jiff::Timestamp::from_second(*at as i64)
            .unwrap()
            .to_string();
        let row = second
            .html
            .split("<tr ")
            .map(|row| row.split("</tr>").next().unwrap_or(row))
            .find(|row| row.contains(&format!("data-host=\"{host}\"")))
            .unwrap_or_else(|| panic!("no row of {host}"));
        assert!(
            row.contains(&format!("data-key=\"{}\"", *at as i64)) && row.contains(&shown),
            "the HTML column shows {host}'s last success {shown}: {row}"
        );
        assert!(!row.contains("never"), "{row}");
    }
    let stale = second.stale_captures();
    assert_eq!(stale.len(), HOSTS, "{:#}", second.report);
    for (host, message) in &stale {
        assert!(
            message.starts_with(&format!("last complete capture of {host} was ")),
            "the stale alert knows the last capture: {message}"
        );
    }
    assert!(!second.stderr.contains("not saved"), "{}", second.stderr);
    assert_eq!(
        common::git(&clone, &["status", "--porcelain", "--untracked-files=all"]),
        ""
    );
    // Nothing new was learnt: the clone's local branch is origin's copy, which it pushes.
    assert_eq!(
        common::git(&clone, &["rev-parse", "driftgate/state"]),
        common::git(&clone, &["rev-parse", "origin/driftgate/state"])
    );
    common::git(&clone, &["push", "--quiet", "origin", "driftgate/state"]);
}

#[test]
fn a_state_that_cannot_be_saved_is_a_warning_naming_the_store_and_the_verdict_stands() {
    let lab = FleetLab::new(
        &[Host::new("azl-node01", State::Recorded("baseline"))],
        &["azl-node01"],
    );
    let passing = lab.check(&["--format", "json"]).expect(0);
    assert!(!passing.stderr.contains("warning"), "{}", passing.stderr);
    common::git(&lab.store, &["branch", "-D", "driftgate/state"]);
    // A branch named `driftgate` leaves no room for `driftgate/state`.
    common::git(&lab.store, &["branch", "driftgate"]);
    let ran = lab.check(&["--format", "json"]).expect(0);
    assert_eq!(ran.json()["verdict"], passing.json()["verdict"]);
    assert!(
        ran.stderr.contains("driftgate: warning: the hosts' last good captures were not saved in the branch driftgate/state (")
            && ran.stderr.contains(&lab.store.display().to_string())
            && ran.stderr.contains("this run's verdict stands"),
        "{}",
        ran.stderr
    );
}

/// A `--no-rejudge` merge started inside a git repository that is no baseline store (the
/// checkout holding the results, a project's own repository) writes no state branch into it;
/// the store the night ran against keeps its state.
#[test]
fn a_merge_in_a_repository_without_baselines_writes_no_state_there() {
    let lab = FleetLab::new(
        &[Host::new("azl-node01", State::Recorded("baseline"))],
        &["azl-node01"],
    );
    let out = lab.path("night");
    lab.check(&["--out-dir", utf8(&out), "--quiet"]).expect(0);
    let elsewhere = lab.path("results-checkout");
    std::fs::create_dir(&elsewhere).unwrap();
    common::git(&elsewhere, &["init", "--quiet"]);
    common::git(
        &elsewhere,
        &["commit", "--quiet", "--allow-empty", "-m", "results"],
    );
    let merged = common::driftgate()
        .args(["report", "merge", "--no-rejudge", "--format", "json"])
        .arg(&out)
        .current_dir(&elsewhere)
        .env_remove("DRIFTGATE_REPO")
        .output()
        .unwrap();
    assert_eq!(
        merged.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&merged.stderr)
    );
    assert_eq!(
        common::git(&elsewhere, &["branch", "--list", "driftgate/state"]),
        ""
    );
    assert!(!common::git(&lab.store, &["branch", "--list", "driftgate/state"]).is_empty());
}
