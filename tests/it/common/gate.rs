//! A gate lab: the seed-1 host `azl-node01` served by a real `driftgate mockup serve` from a
//! scratch COPY of its recorded iDRAC, with its Windows collector output in a `dir:` folder of
//! the same copy, so a test switches the host between states (as a firmware update would) by
//! replacing the copy's files; a baseline store with the host's baseline promoted and an
//! inventory that points at the copy.

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::Value;

use super::simulator::{PASSWORD, Simulator, USER};
use super::{copy_dir, driftgate, driftgate_process, example, git, root};

/// Environment variables the lab's inventory names for the BMC account.
pub(crate) const USERNAME_ENV: &str = "LAB_BMC_USER";
/// See [`USERNAME_ENV`].
pub(crate) const PASSWORD_ENV: &str = "LAB_BMC_SECRET";

/// One lab; everything lives in a temporary directory removed on drop.
pub(crate) struct Lab {
    /// The temporary directory.
    pub dir: tempfile::TempDir,
    /// The baseline store.
    pub store: PathBuf,
    /// The host's copy: `bmc/` (served) and `windows/` (read with `dir:`).
    pub host: PathBuf,
    /// The simulated BMC; `None` once stopped.
    pub simulator: Option<Simulator>,
    /// Whether the simulator asks for the account (and the inventory references it).
    pub authenticated: bool,
    /// The host's name in the inventory.
    pub name: String,
}

/// What one driftgate command did.
pub(crate) struct Ran {
    /// Exit code.
    pub code: i32,
    /// Standard output.
    pub stdout: String,
    /// Standard error.
    pub stderr: String,
}

impl Ran {
    /// Standard output as JSON (a `--format json` report).
    pub(crate) fn json(&self) -> Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("{e}: {}\n{}", self.stdout, self.stderr))
    }

    /// Asserts the exit code, showing both streams when it differs.
    #[track_caller]
    pub(crate) fn expect(self, code: i32) -> Ran {
        assert_eq!(
            self.code, code,
            "stdout:\n{}\nstderr:\n{}",
            self.stdout, self.stderr
        );
        self
    }
}

impl Lab {
    /// The host at the `baseline` state, served without authentication.
    pub(crate) fn new() -> Lab {
        Self::start(false, &[], false)
    }

    /// Like [`Lab::new`], with more `mockup serve` arguments (`--fault …`).
    /// Its simulator keeps its log lines, for [`Simulator::logged`].
    pub(crate) fn with_simulator(args: &[&str]) -> Lab {
        Self::start(false, args, true)
    }

    /// Like [`Lab::new`], but the simulator requires a session and the inventory references
    /// the account in [`USERNAME_ENV`] / [`PASSWORD_ENV`].
    pub(crate) fn authenticated() -> Lab {
        Self::start(true, &[], false)
    }

    /// Like [`Lab::authenticated`], with more `mockup serve` arguments; its simulator keeps
    /// its log lines.
    pub(crate) fn authenticated_with(args: &[&str]) -> Lab {
        Self::start(true, args, true)
    }

    fn start(authenticated: bool, extra: &[&str], logged: bool) -> Lab {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let host = dir.path().join("azl-node01");
        let store = dir.path().join("baselines");
        let lab = Lab {
            store,
            host,
            simulator: None,
            authenticated,
            dir,
            name: "azl-node01".to_owned(),
        };
        lab.state("baseline");
        let mut args: Vec<&str> = extra.to_vec();
        if authenticated {
            args.extend(["--auth", "session"]);
        }
        let simulator = if logged {
            Simulator::start_logged(&lab.host.join("bmc"), &args)
        } else {
            Simulator::start(&lab.host.join("bmc"), &args)
        };
        driftgate()
            .args(["baseline", "init"])
            .arg(&lab.store)
            .assert()
            .code(0);
        driftgate()
            .arg("--repo")
            .arg(&lab.store)
            .args(["baseline", "promote", "--fleet", "azure-local"])
            .arg(example("azure-local-dcbx/baseline.json"))
            .assert()
            .code(0);
        let lab = Lab {
            simulator: Some(simulator),
            ..lab
        };
        lab.write_inventory(&lab.url());
        lab
    }

    /// Like [`Lab::new`], with the host named `name` in the inventory and its baseline
    /// captured under that name from the simulated BMC and its Windows folder.
    pub(crate) fn named(name: &str) -> Lab {
        let mut lab = Self::start(false, &[], false);
        lab.name = name.to_owned();
        lab.promote_captured(name);
        lab.write_inventory(&lab.url());
        lab
    }

    /// Captures the host `name` from the simulated BMC (as it serves now) and its Windows
    /// folder, and promotes the capture as its baseline.
    pub(crate) fn promote_captured(&self, name: &str) {
        let baseline = self.dir.path().join(format!("{name}-baseline.json"));
        driftgate()
            .args(["capture", "--host", name, "--source"])
            .arg(format!("redfish={}", self.url()))
            .arg("--source")
            .arg(format!(
                "windows=dir:{}",
                self.host.join("windows").display()
            ))
            .arg("--out")
            .arg(&baseline)
            .assert()
            .code(0);
        driftgate()
            .arg("--repo")
            .arg(&self.store)
            .args(["baseline", "promote", "--fleet", "azure-local"])
            .arg(&baseline)
            .assert()
            .code(0);
    }

    /// The simulated BMC's URL.
    pub(crate) fn url(&self) -> String {
        self.simulator
            .as_ref()
            .expect("the simulator runs")
            .url
            .clone()
    }

    /// Writes the store's `inventory.toml`: the host [`Lab::name`], its BMC at `bmc_url`.
    pub(crate) fn write_inventory(&self, bmc_url: &str) {
        let credentials = if self.authenticated {
            format!(
                "credentials = {{ username_env = \"{USERNAME_ENV}\", password_env = \"{PASSWORD_ENV}\" }}\n"
            )
        } else {
            String::new()
        };
        let text = format!(
            "[defaults]\nfleet = \"azure-local\"\n{credentials}\n[[host]]\nname = \"{}\"\ncluster = \"azl-cluster-a\"\nsources = [\"redfish={bmc_url}\", \"windows=dir:{}\"]\n",
            self.name,
            self.host.join("windows").display()
        );
        std::fs::write(self.store.join("inventory.toml"), text).expect("the store is writable");
    }

    /// Switches the host to `state`: `baseline`, `post-update`, `benign-update` (the recorded
    /// seed-1 states) or `pending-dcbx-disable` (a DCBX disable staged for the next reboot).
    pub(crate) fn state(&self, state: &str) {
        let (bmc, windows) = if state == "pending-dcbx-disable" {
            let fixture = root().join("tests/fixtures/redfish/pending-dcbx-disable");
            (fixture.clone(), fixture.join("windows"))
        } else {
            let recorded = root()
                .join("examples/azure-local-dcbx/recorded")
                .join(state);
            (recorded.join("bmc"), recorded.join("windows"))
        };
        for part in ["bmc", "windows"] {
            let _ = std::fs::remove_dir_all(self.host.join(part));
        }
        copy_dir(&bmc.join("redfish"), &self.host.join("bmc/redfish"));
        copy_dir(&windows, &self.host.join("windows"));
    }

    /// Stops the simulated BMC: nothing listens at its address any more.
    pub(crate) fn stop_bmc(&mut self) {
        self.simulator = None;
    }

    /// `driftgate --repo STORE gate ARGS…`, with the account in the environment.
    pub(crate) fn gate(&self, args: &[&str]) -> Ran {
        let mut cmd = self.command();
        cmd.arg("gate").args(args);
        run(&mut cmd)
    }

    /// The driftgate command of this lab, before its arguments.
    pub(crate) fn command(&self) -> assert_cmd::Command {
        assert_cmd::Command::from_std(self.process())
    }

    /// [`Lab::command`] as a `std::process::Command`, to spawn and signal.
    pub(crate) fn process(&self) -> std::process::Command {
        let mut cmd = driftgate_process();
        cmd.env(USERNAME_ENV, USER)
            .env(PASSWORD_ENV, PASSWORD)
            .arg("--color")
            .arg("never")
            .arg("--repo")
            .arg(&self.store);
        cmd
    }

    /// The directory of run `id` in the store.
    pub(crate) fn run_dir(&self, id: &str) -> PathBuf {
        self.store.join(".driftgate/runs").join(id)
    }

    /// Number of commits in the store.
    pub(crate) fn commits(&self) -> usize {
        git(&self.store, &["rev-list", "--count", "HEAD"])
            .trim()
            .parse()
            .expect("a number")
    }
}

impl Default for Lab {
    fn default() -> Self {
        Self::new()
    }
}

/// Runs `cmd` to its end.
pub(crate) fn run(cmd: &mut assert_cmd::Command) -> Ran {
    let Output {
        status,
        stdout,
        stderr,
    } = cmd.output().expect("driftgate runs");
    Ran {
        code: status.code().expect("exited normally"),
        stdout: String::from_utf8(stdout).expect("UTF-8 output"),
        stderr: String::from_utf8(stderr).expect("UTF-8 output"),
    }
}

/// The folders directly below `dir`, by name.
pub(crate) fn folders(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("a directory entry"))
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}
