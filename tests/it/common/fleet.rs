//! A fleet lab for `check --all` and `report merge`: a baseline store with baselines for some
//! hosts (captured from the recorded seed-1 host), an inventory whose hosts read recorded
//! states (`redfish=mockup:…` + `windows=dir:…`), a missing mockup (unreachable) or a
//! simulator URL, and helpers to run the fleet commands in it. Sized by the caller: the same
//! lab serves a five-host test and a fifty-host simulator test.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::gate::{Ran, run};
use super::{driftgate, root};

/// The fleet of every lab host.
pub(crate) const FLEET: &str = "azure-local";

/// What a host of the lab looks like when read.
#[derive(Debug, Clone)]
pub(crate) enum State {
    /// A recorded state of seed 1: `baseline`, `benign-update` or `post-update`.
    Recorded(&'static str),
    /// Its BMC is a mockup folder that does not exist: the capture fails.
    Unreachable,
    /// Its BMC is served at this URL (a simulator); the OS side is the recorded baseline.
    Bmc(String),
}

/// One host of the lab's inventory.
#[derive(Debug, Clone)]
pub(crate) struct Host {
    /// Its name.
    pub name: String,
    /// Its cluster.
    pub cluster: Option<String>,
    /// How it reads.
    pub state: State,
}

impl Host {
    /// A host `name` in `state`, in no cluster.
    pub(crate) fn new(name: &str, state: State) -> Host {
        Host {
            name: name.to_owned(),
            cluster: None,
            state,
        }
    }

    /// The same host in `cluster`.
    pub(crate) fn in_cluster(mut self, cluster: &str) -> Host {
        self.cluster = Some(cluster.to_owned());
        self
    }
}

/// The recorded folder of seed 1's `state`.
pub(crate) fn recorded(state: &str) -> PathBuf {
    root()
        .join("examples/azure-local-dcbx/recorded")
        .join(state)
}

/// A store and an inventory in a temporary directory.
pub(crate) struct FleetLab {
    /// The temporary directory.
    pub dir: tempfile::TempDir,
    /// The baseline store.
    pub store: PathBuf,
}

impl FleetLab {
    /// A store whose inventory lists `hosts`, with a baseline (seed 1's recorded baseline
    /// state, captured under that name) for each of `baselines` (inventory hosts or orphans).
    pub(crate) fn new(hosts: &[Host], baselines: &[&str]) -> FleetLab {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let store = dir.path().join("store");
        driftgate()
            .args(["baseline", "init"])
            .arg(&store)
            .assert()
            .code(0);
        let lab = FleetLab { dir, store };
        if !baselines.is_empty() {
            let files: Vec<PathBuf> = baselines.iter().map(|h| lab.capture_baseline(h)).collect();
            driftgate()
                .arg("--repo")
                .arg(&lab.store)
                .args(["baseline", "promote", "--fleet", FLEET])
                .args(&files)
                .assert()
                .code(0);
        }
        lab.write_inventory(hosts);
        lab
    }

    /// Captures seed 1's recorded baseline state as host `name` into a file of the lab.
    fn capture_baseline(&self, name: &str) -> PathBuf {
        let file = self.dir.path().join(format!("{name}.baseline.json"));
        let state = recorded("baseline");
        driftgate()
            .args(["capture", "--host", name, "--source"])
            .arg(format!("redfish=mockup:{}", state.join("bmc").display()))
            .arg("--source")
            .arg(format!("windows=dir:{}", state.join("windows").display()))
            .arg("--out")
            .arg(&file)
            .assert()
            .code(0);
        file
    }

    /// Writes the store's `inventory.toml` listing `hosts`.
    pub(crate) fn write_inventory(&self, hosts: &[Host]) {
        let mut text = format!("[defaults]\nfleet = \"{FLEET}\"\n");
        for host in hosts {
            let windows = recorded("baseline").join("windows");
            let (bmc, windows) = match &host.state {
                State::Recorded(state) => (
                    format!("mockup:{}", recorded(state).join("bmc").display()),
                    recorded(state).join("windows"),
                ),
                State::Unreachable => (
                    format!("mockup:{}", self.dir.path().join("no-such-bmc").display()),
                    windows,
                ),
                State::Bmc(url) => (url.clone(), windows),
            };
            text.push_str(&format!("\n[[host]]\nname = \"{}\"\n", host.name));
            if let Some(cluster) = &host.cluster {
                text.push_str(&format!("cluster = \"{cluster}\"\n"));
            }
            text.push_str(&format!(
                "sources = [\"redfish={bmc}\", \"windows=dir:{}\"]\n",
                windows.display()
            ));
        }
        std::fs::write(self.store.join("inventory.toml"), text).expect("the store is writable");
    }

    /// A path in the lab's temporary directory.
    pub(crate) fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    /// `driftgate --repo STORE check --all ARGS…`, CI unset, standard error piped.
    pub(crate) fn check(&self, args: &[&str]) -> Ran {
        run(self.command().args(["check", "--all"]).args(args))
    }

    /// `driftgate report merge DIRS… ARGS…`.
    pub(crate) fn merge(&self, dirs: &[&Path], args: &[&str]) -> Ran {
        run(self
            .command()
            .args(["report", "merge"])
            .args(dirs)
            .args(args))
    }

    /// [`FleetLab::command`] as a `std::process::Command`, for tests that signal it.
    pub(crate) fn process(&self) -> std::process::Command {
        let mut cmd = super::driftgate_process();
        cmd.arg("--repo").arg(&self.store).env_remove("CI");
        cmd
    }

    /// driftgate with the lab's store.
    pub(crate) fn command(&self) -> assert_cmd::Command {
        let mut cmd = driftgate();
        cmd.arg("--repo").arg(&self.store).env_remove("CI");
        cmd
    }
}

/// The host `name` of a `--format json` fleet report.
pub(crate) fn host<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["hosts"]
        .as_array()
        .expect("hosts")
        .iter()
        .find(|h| h["host"] == name)
        .unwrap_or_else(|| panic!("no host {name} in {report:#}"))
}

/// Host → verdict of a fleet report.
pub(crate) fn verdicts(report: &Value) -> Vec<(String, String)> {
    report["hosts"]
        .as_array()
        .expect("hosts")
        .iter()
        .map(|h| {
            (
                h["host"].as_str().expect("a name").to_owned(),
                h["verdict"].as_str().expect("a verdict").to_owned(),
            )
        })
        .collect()
}

/// What must be equal between one run and a merge of its shards: per host its verdict,
/// counts and failure; the counts, verdict and fleet findings.
pub(crate) fn comparable(report: &Value) -> Value {
    let hosts: Vec<Value> = report["hosts"]
        .as_array()
        .expect("hosts")
        .iter()
        .map(|h| {
            serde_json::json!({
                "host": h["host"], "fleet": h["fleet"], "cluster": h["cluster"],
                "verdict": h["verdict"], "counts": h["counts"], "failure": h["failure"],
                "snapshot_file": h["snapshot_file"], "findings": h["report"]["findings"],
            })
        })
        .collect();
    serde_json::json!({
        "verdict": report["verdict"], "strict": report["strict"], "counts": report["counts"],
        "hosts": hosts, "findings": report["findings"],
    })
}

/// Five hosts: two passing and one blocked (DCBX reset) in cluster `azl-a`, one unreachable, one
/// in no cluster; baselines for four of them and one orphan.
pub(crate) fn mixed() -> FleetLab {
    FleetLab::new(
        &[
            Host::new("azl-node01", State::Recorded("baseline")).in_cluster("azl-a"),
            Host::new("azl-node02", State::Recorded("baseline")).in_cluster("azl-a"),
            Host::new("azl-node03", State::Recorded("post-update")).in_cluster("azl-a"),
            Host::new("azl-node04", State::Unreachable),
            Host::new("azl-node05", State::Recorded("baseline")),
        ],
        &[
            "azl-node01",
            "azl-node02",
            "azl-node03",
            "azl-node04",
            "retired01",
        ],
    )
}

/// The mixed lab run as three shards (`shard-1` … `shard-3`), and which of their directories
/// holds `host`.
pub(crate) fn three_shards(lab: &FleetLab, host: &str) -> (Vec<PathBuf>, usize) {
    let dirs: Vec<PathBuf> = (1..=3).map(|k| lab.path(&format!("shard-{k}"))).collect();
    for (k, dir) in (1..=3).zip(&dirs) {
        let shard = format!("{k}/3");
        let out = dir.to_str().expect("a UTF-8 temporary path");
        lab.check(&["--shard", &shard, "--out-dir", out, "--quiet"]);
    }
    let holder = dirs
        .iter()
        .position(|dir| {
            let mut found = false;
            edit_json(&dir.join("run.json"), |run| {
                found = run["hosts"]
                    .as_array()
                    .is_some_and(|hosts| hosts.iter().any(|h| h == host));
            });
            found
        })
        .unwrap_or_else(|| panic!("no shard holds {host}"));
    (dirs, holder)
}

/// Rewrites the JSON file `file` after `edit`.
pub(crate) fn edit_json(file: &Path, edit: impl FnOnce(&mut Value)) {
    let text = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    let mut doc: Value =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    edit(&mut doc);
    let text = serde_json::to_string_pretty(&doc).expect("a JSON value serializes");
    std::fs::write(file, text).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
}
