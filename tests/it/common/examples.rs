//! A simulated fleet with a bootstrapped baseline store, as the scheduler examples
//! (examples/kubernetes, examples/systemd) expect to find one, and the shell to run the
//! commands they hold.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::fleet_sim::{FleetSim, PASSWORD_ENV, USERNAME_ENV};
use super::simulator::{PASSWORD, USER, bmc};
use super::{driftgate, stdout_of};

/// Hosts of the [`Night`]: clusters of 3; BMC 1 post-update (DCBX reset: BLOCK), BMC 4 down
/// (INCOMPLETE).
pub(crate) const HOSTS: usize = 6;

/// A night of a bootstrapped fleet: its store holds every host's baseline (captured while
/// all were in the baseline state) and the inventory of the simulator now serving the night.
pub(crate) struct Night {
    /// The simulator of the night, kept for its life: it stops on drop.
    _sim: FleetSim,
    /// The baseline store (a git repository with `inventory.toml`).
    pub store: PathBuf,
    _scratch: tempfile::TempDir,
}

impl Night {
    /// Bootstraps the store as an operator would (`check --all --out-dir OUT` of the
    /// known-good fleet, then `baseline promote OUT/snapshots/*.json --fleet sim`), then
    /// serves the night.
    pub(crate) fn start() -> Night {
        let scratch = tempfile::tempdir().expect("a temporary directory");
        let store = scratch.path().join("store");
        driftgate()
            .arg("baseline")
            .arg("init")
            .arg(&store)
            .assert()
            .success();
        let args = ["--auth", "session", "--cluster-size", "3"];
        let good = FleetSim::start(&[&bmc("baseline")], HOSTS, &args);
        std::fs::copy(&good.inventory, store.join("inventory.toml")).expect("copy the inventory");
        let out = scratch.path().join("bootstrap");
        let mut first = driftgate();
        first.arg("--repo").arg(&store).args([
            "check",
            "--all",
            "--bootstrap",
            "--quiet",
            "--out-dir",
        ]);
        first.arg(&out);
        FleetSim::with_account(&mut first).assert().code(0);
        let mut snapshots: Vec<PathBuf> = std::fs::read_dir(out.join("snapshots"))
            .expect("the snapshots")
            .map(|e| e.expect("a snapshot").path())
            .collect();
        snapshots.sort();
        assert_eq!(snapshots.len(), HOSTS);
        driftgate()
            .arg("--repo")
            .arg(&store)
            .args(["baseline", "promote", "--fleet", "sim"])
            .args(&snapshots)
            .assert()
            .success();
        drop(good);
        let post = bmc("post-update");
        let state = format!("1={}", post.display());
        let night = FleetSim::start(
            &[&bmc("baseline")],
            HOSTS,
            &[&args[..], &["--bmc-state", &state, "--bmc-fault", "4:down"]].concat(),
        );
        std::fs::copy(&night.inventory, store.join("inventory.toml")).expect("copy the inventory");
        Night {
            _sim: night,
            store,
            _scratch: scratch,
        }
    }

    /// Exit code and JSON report of one unsharded `check --all` of the night.
    pub(crate) fn unsharded(&self) -> (i32, Value) {
        let mut check = driftgate();
        check
            .arg("--repo")
            .arg(&self.store)
            .args(["check", "--all", "--quiet", "--format", "json"]);
        let (code, out) = stdout_of(FleetSim::with_account(&mut check));
        (
            code,
            serde_json::from_str(&out).expect("a JSON fleet report"),
        )
    }
}

/// Runs `script` with `sh -c` as a scheduler would: `driftgate` on PATH (the one under test),
/// the simulator's account and `env` in its environment. Returns its exit code and output.
pub(crate) fn sh(script: &str, env: &[(&str, &str)]) -> (i32, String) {
    let bin = assert_cmd::cargo::cargo_bin("driftgate");
    let dir = bin.parent().expect("the binary's directory");
    let path = std::env::join_paths(std::iter::once(dir.to_path_buf()).chain(
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
    ))
    .expect("a PATH");
    let output = std::process::Command::new("sh")
        .args(["-c", script])
        .env("PATH", path)
        .env_remove("DRIFTGATE_REPO")
        .env_remove("DRIFTGATE_INVENTORY")
        .env(USERNAME_ENV, USER)
        .env(PASSWORD_ENV, PASSWORD)
        .envs(env.iter().copied())
        .output()
        .expect("sh runs");
    let text = String::from_utf8_lossy(&output.stdout).into_owned()
        + &String::from_utf8_lossy(&output.stderr);
    (output.status.code().expect("exited normally"), text)
}

/// Per host its verdict, and the fleet verdict and counts, of a JSON fleet report: what a
/// merge of shards must share with one run.
pub(crate) fn verdicts(report: &Value) -> (Vec<(String, String)>, Value, Value) {
    let hosts = report["hosts"]
        .as_array()
        .expect("hosts")
        .iter()
        .map(|h| (h["host"].to_string(), h["verdict"].to_string()))
        .collect();
    (hosts, report["verdict"].clone(), report["counts"].clone())
}

/// `path` as text.
pub(crate) fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A unit file's values by section and key (repeated keys in order).
pub(crate) fn unit(path: &Path) -> BTreeMap<(String, String), Vec<String>> {
    let mut values: BTreeMap<(String, String), Vec<String>> = BTreeMap::new();
    let mut section = String::new();
    for line in read(path).lines().map(str::trim) {
        if line.is_empty() || line.starts_with('#') || line.starts_with(';') {
            continue;
        }
        if let Some(name) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            section = name.to_owned();
            continue;
        }
        let (key, value) = line
            .split_once('=')
            .unwrap_or_else(|| panic!("{}: not KEY=VALUE: {line}", path.display()));
        values
            .entry((section.clone(), key.to_owned()))
            .or_default()
            .push(value.to_owned());
    }
    values
}

/// The one value of `key` in `[section]` of a [`unit`]; panics on none or several.
pub(crate) fn one<'a>(
    unit: &'a BTreeMap<(String, String), Vec<String>>,
    section: &str,
    key: &str,
) -> &'a str {
    match unit
        .get(&(section.to_owned(), key.to_owned()))
        .map(Vec::as_slice)
    {
        Some([value]) => value,
        other => panic!("[{section}] {key}: {other:?}"),
    }
}
