//! The nightly fleet of issue 12 over the real fleet simulator: [`COUNT`] session-authenticated
//! BMCs in clusters of 4, bootstrapped the way an operator bootstraps a fleet (a first
//! `check --all --out-dir` against an empty store, then `baseline promote OUT/snapshots/*.json`),
//! then served again in the nightly state with one host of each kind of trouble.
//!
//! Host names are stable across the two simulators (`sim-IIII`, by index); their ports are not,
//! which is why the simulator rewrites the inventory each time.

use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

use serde_json::Value;

use super::fleet::FleetLab;
use super::fleet_sim::FleetSim;
use super::gate::{Ran, run};
use super::simulator::bmc;

/// Simulated hosts (more than 50), 13 clusters of 4.
pub(crate) const COUNT: usize = 52;
/// Served from the recorded `post-update` state: the NIC firmware update reset its DCBX mode.
pub(crate) const DRIFTED: usize = 5;
/// The cluster odd-one-out: its DCBX mode is CEE where its cluster runs IEEE, at the bootstrap
/// already (so its own baseline has the odd value and it has no drift of its own).
pub(crate) const ODD: usize = 9;
/// Nothing listens.
pub(crate) const DOWN: usize = 13;
/// Every request answers 503 (`Retry-After: 1`).
pub(crate) const STORM: usize = 17;
/// Accepts connections and never answers, not even a login.
pub(crate) const HANGING: usize = 21;
/// Joined the fleet after the bootstrap: no baseline.
pub(crate) const NEW: usize = 25;
/// The odd-one-out's cluster.
pub(crate) const ODD_CLUSTER: &str = "sim-c002";

/// `--host-timeout` of the runs. Not 3: a 503 storm ends after the client's 3 retries, each
/// waiting the simulator's `Retry-After: 1`, so about 3 s after its first request; with a 3 s
/// host deadline it would race the deadline. And a debug build's capture of a simulated host
/// under a loaded 2-core machine takes seconds. Neither slows the run: the hanging BMC is cut
/// by the [`BMC_TIMEOUT`] of its login, before this deadline.
pub(crate) const HOST_TIMEOUT: u64 = 10;
/// `--bmc-timeout` of the runs: one unanswered request gives up after this.
pub(crate) const BMC_TIMEOUT: u64 = 4;
/// `--concurrency` of the runs: 64 hosts at once on 2 cores would make each host's capture
/// take as long as the whole run, racing its deadlines; 8 keeps each capture short.
pub(crate) const CONCURRENCY: &str = "8";

/// One nightly fleet at a time: the simulated fleet is CPU-bound, and three of them at once
/// on a 2-core machine would starve each other's hosts past their deadlines.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// The NIC attributes of port 1 of NIC.Slot.3 (its DCBX mode is `Broadcom_DCBX`).
const NIC_ATTRIBUTES: &str = "/redfish/v1/Chassis/System.Embedded.1/NetworkAdapters/NIC.Slot.3/NetworkDeviceFunctions/NIC.Slot.3-1-1/Oem/Dell/DellNetworkAttributes/NIC.Slot.3-1-1";

/// Holds the machine for one simulated fleet until dropped (see [`ONE_AT_A_TIME`]).
pub(crate) fn one_at_a_time() -> MutexGuard<'static, ()> {
    // A test that failed while holding the lock leaves nothing behind that matters here.
    ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner())
}

/// A bootstrapped store and the simulator serving the nightly state.
pub(crate) struct Nightly {
    /// The store (and a temporary directory for output directories).
    pub lab: FleetLab,
    /// The nightly simulator; its `inventory` lists every host.
    pub sim: FleetSim,
    /// The bootstrap run's `--format json` report.
    pub bootstrap: Value,
    /// Held while the fleet exists.
    _alone: MutexGuard<'static, ()>,
}

/// `--bmc-set` of the odd-one-out, at the bootstrap and at night alike.
fn odd_dcbx() -> String {
    format!("{ODD}:{NIC_ATTRIBUTES}#/Attributes/Broadcom_DCBX=Enabled_CEE")
}

/// The simulator's arguments common to both states.
fn common_args(odd: &str) -> Vec<&str> {
    vec!["--auth", "session", "--cluster-size", "4", "--bmc-set", odd]
}

impl Nightly {
    /// Bootstraps the fleet and starts the nightly simulator.
    ///
    /// Down, storming and hanging BMCs cannot be bootstrapped, so the bootstrap runs on a
    /// simulator without faults (every BMC in the baseline state, the odd-one-out's DCBX set),
    /// which is then stopped and replaced by the nightly one: as in a real fleet, the faults
    /// come after the baselines were taken.
    pub(crate) fn start() -> Nightly {
        let alone = one_at_a_time();
        let lab = FleetLab::new(&[], &[]);
        let baseline = bmc("baseline");
        let odd = odd_dcbx();
        let boot = lab.path("bootstrap");
        let bootstrap = {
            let sim = FleetSim::start(&[&baseline], COUNT, &common_args(&odd));
            // Without baselines every host warns, and the odd-one-out blocks already.
            let boot = boot.to_str().expect("a UTF-8 path");
            check(
                &lab,
                &sim.inventory,
                &["--bootstrap", "--out-dir", boot, "--format", "json"],
            )
            .expect(1)
            .json()
        };
        // sim-0025 joins the fleet after the bootstrap: its snapshot is not promoted.
        std::fs::remove_file(boot.join(format!("snapshots/{}.json", FleetSim::host(NEW))))
            .expect("the bootstrap wrote every host's snapshot");
        let mut snapshots: Vec<PathBuf> = std::fs::read_dir(boot.join("snapshots"))
            .expect("the bootstrap's snapshots")
            .map(|e| e.expect("a directory entry").path())
            .collect();
        snapshots.sort();
        assert_eq!(snapshots.len(), COUNT - 1);
        lab.command()
            .args(["baseline", "promote", "--fleet", "sim"])
            .args(&snapshots)
            .assert()
            .code(0);

        let post = bmc("post-update");
        let drifted = format!("{DRIFTED}={}", post.display());
        let (down, storm, hanging) = (
            format!("{DOWN}:down"),
            format!("{STORM}:unavailable=100000"),
            format!("{HANGING}:hang-all"),
        );
        let mut args = common_args(&odd);
        args.extend([
            "--bmc-state",
            &drifted,
            "--bmc-fault",
            &down,
            "--bmc-fault",
            &storm,
            "--bmc-fault",
            &hanging,
        ]);
        let sim = FleetSim::start(&[&baseline], COUNT, &args);
        Nightly {
            lab,
            sim,
            bootstrap,
            _alone: alone,
        }
    }

    /// `check --all` of the nightly fleet with the runs' timeouts and more `args`.
    pub(crate) fn check(&self, args: &[&str]) -> Ran {
        check(&self.lab, &self.sim.inventory, args)
    }

    /// A path in the lab's temporary directory, as the command line takes it.
    pub(crate) fn path(&self, rel: &str) -> String {
        self.lab
            .path(rel)
            .to_str()
            .expect("a UTF-8 path")
            .to_owned()
    }
}

/// `driftgate --repo STORE check --all --inventory INVENTORY` with the runs' timeouts, the
/// account and more `args`.
pub(crate) fn check(lab: &FleetLab, inventory: &Path, args: &[&str]) -> Ran {
    let mut command = lab.command();
    command
        .args(["check", "--all", "--inventory"])
        .arg(inventory)
        .args(["--host-timeout", &HOST_TIMEOUT.to_string()])
        .args(["--bmc-timeout", &BMC_TIMEOUT.to_string()])
        .args(["--concurrency", CONCURRENCY])
        .args(args);
    FleetSim::with_account(&mut command);
    run(&mut command)
}

/// The verdict every host of the nightly fleet must get.
pub(crate) fn expected_verdict(index: usize) -> &'static str {
    match index {
        DRIFTED | ODD => "block",
        DOWN | STORM | HANGING => "incomplete",
        NEW => "warn",
        _ => "pass",
    }
}
