//! `--host-timeout` bounds the whole host: a BMC that never answers (not even the login) or
//! answers the login only long after the deadline ends its host within the deadline and the
//! 2 s the session's deletion gets, and the command returns then (plus writing its reports):
//! `capture`, `gate pre` and `check --all` alike. The progress names the hosts still running
//! once every other host is done.

use crate::common;

use std::process::{Command, Output};
use std::time::{Duration, Instant};

use common::fleet::{FleetLab, Host, State, recorded};
use common::fleet_sim::FleetSim;
use common::simulator::{PASSWORD, USER};

/// The host deadline given.
const HOST_TIMEOUT: u64 = 5;
/// What a command may take at most: the deadline, the session grace (2 s) and 1 s.
const BOUND: Duration = Duration::from_secs(HOST_TIMEOUT + 2 + 1);

/// Runs `command` with the BMC account in its environment: its output and how long it took.
fn timed(command: &mut Command) -> (Output, Duration) {
    let started = Instant::now();
    let output = command
        .env("DRIFTGATE_BMC_USERNAME", USER)
        .env("DRIFTGATE_BMC_PASSWORD", PASSWORD)
        .env_remove("CI")
        .output()
        .expect("driftgate runs");
    (output, started.elapsed())
}

fn error_text(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Two BMCs with session logins: 0 never answers anything, 1 answers its login after 20 s.
fn hanging() -> FleetSim {
    FleetSim::start(
        &[&recorded("baseline").join("bmc")],
        2,
        &[
            "--auth",
            "session",
            "--bmc-fault",
            "0:hang-all",
            "--bmc-fault",
            "1:slow-login=20000",
        ],
    )
}

#[test]
fn capture_of_a_bmc_that_never_answers_ends_at_the_deadline_and_the_grace() {
    let sim = hanging();
    let dir = tempfile::tempdir().unwrap();
    for index in 0..2 {
        let out = dir.path().join(format!("{index}.json"));
        let (output, took) = timed(
            common::driftgate_process()
                .args(["capture", "--host", "azl-node01", "--source"])
                .arg(format!("redfish=http://{}", sim.address(index)))
                .args(["--host-timeout", &HOST_TIMEOUT.to_string(), "--out"])
                .arg(&out),
        );
        let stderr = error_text(&output);
        assert_eq!(output.status.code(), Some(3), "{stderr}");
        assert!(took <= BOUND, "BMC {index}: took {took:?}\n{stderr}");
        assert!(
            stderr.contains("host deadline of 5 s"),
            "BMC {index}: {stderr}"
        );
    }
}

#[test]
fn a_fleet_and_a_gate_with_two_hanging_bmcs_end_at_the_deadline_and_name_them_while_waiting() {
    let sim = hanging();
    let url = |index: usize| format!("http://{}", sim.address(index));
    let mut hosts: Vec<Host> = (0..28)
        .map(|i| Host::new(&format!("node{i:02}"), State::Recorded("baseline")))
        .collect();
    hosts.push(Host::new("node98", State::Bmc(url(0))));
    hosts.push(Host::new("node99", State::Bmc(url(1))));
    let lab = FleetLab::new(&hosts, &["node01", "node98", "node99"]);
    let timeout = HOST_TIMEOUT.to_string();
    let out = lab.path("night");
    let (output, took) = timed(
        lab.process()
            .args([
                "check",
                "--all",
                "--bootstrap",
                "-v",
                "--host-timeout",
                &timeout,
            ])
            .arg("--out-dir")
            .arg(&out),
    );
    let stderr = error_text(&output);
    assert_eq!(output.status.code(), Some(3), "{stderr}");
    assert!(took <= BOUND, "check --all took {took:?}\n{stderr}");
    assert!(
        stderr.contains("waiting for node98, node99"),
        "the last hosts are named: {stderr}"
    );

    let (output, took) = timed(
        lab.process()
            .args(["gate", "pre", "--run", "CHG-1", "--host-timeout", &timeout])
            .args(["node01", "node98", "node99"]),
    );
    let stderr = error_text(&output);
    assert_eq!(output.status.code(), Some(3), "{stderr}");
    assert!(took <= BOUND, "gate pre took {took:?}\n{stderr}");
    assert!(
        stderr.contains("node01: ") && stderr.contains("waiting for node98, node99"),
        "{stderr}"
    );
}
