//! One `fix apply` of a run at a time, and every write recorded before it is sent: two applies
//! of one run started together against a BMC that answers each write late (one sends, the
//! other is refused naming it, or waits for it with `--wait`); SIGTERM, SIGINT and SIGKILL
//! while the first PATCH is in flight (the record says what was sent, the session is deleted,
//! the rerun names the stopped apply).

use std::process::{Child, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common::gate::Lab;

const SETTINGS_1: &str = "/redfish/v1/Chassis/System.Embedded.1/NetworkAdapters/NIC.Slot.3/NetworkDeviceFunctions/NIC.Slot.3-1-1/Oem/Dell/DellNetworkAttributes/NIC.Slot.3-1-1/Settings";
const RESET: &str = "/redfish/v1/Systems/System.Embedded.1/Actions/ComputerSystem.Reset";

/// A BMC that answers each write 7 s after it arrives: time for a signal to land while the
/// PATCH is in flight on a loaded machine, and the answer (then its read-back) still within
/// the 10 s grace after it.
pub(crate) const IN_FLIGHT: &str = "slow-write=7000";

/// A BMC that answers each write 4 s after it arrives: the apply that takes the lock holds it
/// through two PATCHes and a reset (12 s), long enough for one started with it to reach the
/// lock on a loaded machine.
pub(crate) const SLOW: &str = "slow-write=4000";

/// The seed-1 lab after its update, its simulator requiring sessions and given `args`:
/// `gate pre` passed and `gate post` of `run` blocked on the DCBX the firmware reset.
pub(crate) fn blocked(args: &[&str], run: &str) -> Lab {
    let lab = Lab::authenticated_with(args);
    lab.gate(&["pre", "--run", run, "azl-node01"]).expect(0);
    lab.state("post-update");
    lab.gate(&["post", "--run", run]).expect(1);
    lab
}

/// `fix apply --run RUN --ticket RUN --yes EXTRA…` of `lab`, started, its output piped.
pub(crate) fn spawn_apply(lab: &Lab, run: &str, extra: &[&str]) -> Child {
    lab.process()
        .args(["fix", "apply", "--run", run, "--ticket", run, "--yes"])
        .args(extra)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Waits until `lab`'s simulator logged `text` (within 30 s).
pub(crate) fn logged(lab: &mut Lab, text: &str) {
    let simulator = lab.simulator.as_mut().unwrap();
    assert!(
        simulator.logged(text, Duration::from_secs(30)),
        "{text:?} not logged: {:?}",
        simulator.log_lines()
    );
}

/// How many `method` requests of a URI starting with `uri` `lab`'s simulator received so far:
/// its own list, counted as each request arrives (before a slow write is answered).
pub(crate) fn sent(lab: &Lab, method: &str, uri: &str) -> usize {
    let line = format!("{method} {uri}");
    lab.simulator
        .as_ref()
        .unwrap()
        .sent()
        .iter()
        .filter(|l| l.starts_with(&line))
        .count()
}

/// Waits (up to 30 s) until `lab`'s simulator received a `method` request of a URI starting
/// with `uri`: the request is in flight from then on.
pub(crate) fn arrived(lab: &Lab, method: &str, uri: &str) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while sent(lab, method, uri) == 0 {
        assert!(
            Instant::now() < deadline,
            "no {method} {uri} within 30 s: {:?}",
            lab.simulator.as_ref().unwrap().sent()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The record `fix/apply-N.json` of `run`.
pub(crate) fn record(lab: &Lab, run: &str, n: u32) -> Value {
    let file = lab.run_dir(run).join(format!("fix/apply-{n}.json"));
    let text = std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    serde_json::from_str(&text).unwrap()
}

pub(crate) fn send(child: &Child, signal: libc::c_int) {
    // SAFETY: kill touches no memory; the pid is our unreaped child.
    let sent = unsafe { libc::kill(libc::pid_t::try_from(child.id()).unwrap(), signal) };
    assert_eq!(sent, 0);
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn of_two_applies_of_one_run_at_once_one_sends_and_the_other_names_it() {
    let run = "CHG-3001";
    let lab = blocked(&["--fault", SLOW], run);
    let first = spawn_apply(&lab, run, &["--reset"]);
    let second = spawn_apply(&lab, run, &["--reset"]);
    let pids = [first.id(), second.id()];
    let outputs = [
        first.wait_with_output().unwrap(),
        second.wait_with_output().unwrap(),
    ];
    let codes: Vec<i32> = outputs.iter().map(|o| o.status.code().unwrap()).collect();
    let (done, refused) = match codes[..] {
        [0, 2] => (0, 1),
        [2, 0] => (1, 0),
        _ => panic!(
            "one apply sends, the other is refused: {codes:?}\n{}\n{}",
            stderr(&outputs[0]),
            stderr(&outputs[1])
        ),
    };
    let why = stderr(&outputs[refused]);
    for says in [
        format!("fix apply of run {run} is already running"),
        format!("pid {}", pids[done]),
        format!("ticket {run}"),
        "nothing was sent".to_owned(),
        "--wait".to_owned(),
    ] {
        assert!(why.contains(&says), "{says:?} not in {why}");
    }
    assert_eq!(sent(&lab, "PATCH", SETTINGS_1), 1);
    assert_eq!(sent(&lab, "PATCH", "/redfish/v1/"), 2, "one PATCH per step");
    assert_eq!(sent(&lab, "POST", RESET), 1, "one reset");
    let files = std::fs::read_dir(lab.run_dir(run).join("fix"))
        .unwrap()
        .filter_map(|e| {
            let name = e.unwrap().file_name().into_string().unwrap();
            (name.starts_with("apply-")).then_some(name)
        })
        .count();
    assert_eq!(files, 1, "one record");
    let first = record(&lab, run, 1);
    assert!(first["finished_at"].is_string(), "{first:#}");
    assert_eq!(first["pid"], pids[done]);
}

#[test]
fn an_apply_with_wait_waits_for_the_one_at_work_and_plans_from_what_it_did() {
    let run = "CHG-3002";
    // From its first PATCH on, the first holds the lock for two slow answers (8 s).
    let lab = blocked(&["--fault", SLOW], run);
    let first = spawn_apply(&lab, run, &[]);
    arrived(&lab, "PATCH", SETTINGS_1);
    let second = spawn_apply(&lab, run, &["--wait", "--reset"]);
    let first = first.wait_with_output().unwrap();
    let second = second.wait_with_output().unwrap();
    assert_eq!(first.status.code(), Some(0), "{}", stderr(&first));
    let waited = stderr(&second);
    assert_eq!(second.status.code(), Some(0), "{waited}");
    assert!(
        waited.contains(&format!("waiting for the fix apply of run {run}"))
            && waited.contains(&format!("pid {}", first_pid(&lab, run))),
        "{waited}"
    );
    // It read the BMC after the first was done: both values staged already, one reset.
    assert!(
        waited.contains("[bmc-1] skipped (already pending)")
            && waited.contains("[bmc-2] skipped (already pending)"),
        "{waited}"
    );
    assert!(
        waited.contains("apply-1.json (ticket CHG-3002) sent it"),
        "{waited}"
    );
    assert_eq!(sent(&lab, "PATCH", SETTINGS_1), 1);
    assert_eq!(sent(&lab, "POST", RESET), 1);
}

fn first_pid(lab: &Lab, run: &str) -> u64 {
    record(lab, run, 1)["pid"].as_u64().unwrap()
}

#[test]
fn sigterm_or_sigint_mid_patch_lets_it_finish_records_it_deletes_the_session_and_exits() {
    for (signal, name, code) in [
        (libc::SIGTERM, "SIGTERM", 143),
        (libc::SIGINT, "SIGINT", 130),
    ] {
        let run = "CHG-3003";
        let mut lab = blocked(&["--fault", IN_FLIGHT], run);
        let child = spawn_apply(&lab, run, &["--reset"]);
        arrived(&lab, "PATCH", SETTINGS_1);
        send(&child, signal);
        let output = child.wait_with_output().unwrap();
        let text = stderr(&output);
        assert_eq!(output.status.code(), Some(code), "{name}: {text}");
        assert!(
            text.contains(&format!("fix apply stopped by {name}")) && text.contains("recorded in"),
            "{name}: {text}"
        );
        // The PATCH in flight was answered within the grace and read back: applied.
        let record = record(&lab, run, 1);
        let host = &record["hosts"][0];
        assert_eq!(host["steps"][0]["outcome"], "applied", "{name}: {record:#}");
        assert_eq!(
            host["steps"][1]["outcome"], "not_sent",
            "{name}: {record:#}"
        );
        assert!(host["reset"].is_null(), "{name}: {record:#}");
        assert!(
            host["reset_not_sent"].as_str().unwrap().contains("stopped"),
            "{name}: {record:#}"
        );
        assert!(record["interrupted"].is_string(), "{name}: {record:#}");
        logged(&mut lab, "session deleted");
        assert_eq!(lab.simulator.as_ref().unwrap().sessions(), 0, "{name}");
        assert_eq!(sent(&lab, "POST", RESET), 0, "{name}: no reset");
        // The rerun sends the rest, and names the stopped apply for the step it finds staged.
        let rerun = spawn_apply(&lab, run, &[]).wait_with_output().unwrap();
        let again = stderr(&rerun);
        assert_eq!(rerun.status.code(), Some(0), "{name}: {again}");
        assert!(
            again.contains("[bmc-1] skipped (already pending)")
                && again.contains("apply-1.json (ticket CHG-3003) sent it before it was stopped")
                && again.contains("[bmc-2] applied"),
            "{name}: {again}"
        );
    }
}

#[test]
fn after_sigkill_mid_patch_the_record_says_sending_and_the_rerun_says_so() {
    let run = "CHG-3004";
    let lab = blocked(&["--fault", IN_FLIGHT], run);
    let child = spawn_apply(&lab, run, &["--reset"]);
    let pid = child.id();
    arrived(&lab, "PATCH", SETTINGS_1);
    send(&child, libc::SIGKILL);
    let _ = child.wait_with_output().unwrap();
    let record = record(&lab, run, 1);
    let step = &record["hosts"][0]["steps"][0];
    assert_eq!(step["outcome"], "sending", "{record:#}");
    assert_eq!(step["requests"][0]["sending"], true, "{record:#}");
    assert!(record["finished_at"].is_null(), "{record:#}");
    // The BMC took it: the post checks the step though no answer was recorded, and says so.
    let post = lab
        .gate(&["post", "--run", run, "--format", "json"])
        .expect(1)
        .json();
    let fix = &post["hosts"][0]["fixes"][0];
    assert_eq!(fix["step"], "bmc-1", "{post:#}");
    assert_eq!(fix["state"], "pending", "{post:#}");
    assert_eq!(fix["unanswered"], true, "{post:#}");
    let rerun = spawn_apply(&lab, run, &[]).wait_with_output().unwrap();
    let again = stderr(&rerun);
    assert_eq!(rerun.status.code(), Some(0), "{again}");
    assert!(
        again.contains(&format!("pid {pid}")) && again.contains("ended without releasing its lock"),
        "{again}"
    );
    assert!(
        again.contains("[bmc-1] skipped (already pending)")
            && again.contains("apply-1.json (ticket CHG-3004) was sending it when it stopped"),
        "{again}"
    );
}

#[test]
fn a_patch_unanswered_within_the_grace_after_sigterm_is_recorded_as_sending() {
    let run = "CHG-3005";
    let mut lab = blocked(&["--fault", "slow-write=60000"], run);
    let child = spawn_apply(&lab, run, &["--reset"]);
    arrived(&lab, "PATCH", SETTINGS_1);
    let signalled = Instant::now();
    send(&child, libc::SIGTERM);
    let output = child.wait_with_output().unwrap();
    let took = signalled.elapsed();
    let text = stderr(&output);
    assert_eq!(output.status.code(), Some(143), "{text}");
    assert!(
        took >= Duration::from_secs(9) && took < Duration::from_secs(20),
        "the grace is 10 s: {took:?}"
    );
    assert!(
        text.contains("[bmc-1] NO ANSWER: no answer within the grace of 10 s"),
        "{text}"
    );
    let record = record(&lab, run, 1);
    let step = &record["hosts"][0]["steps"][0];
    assert_eq!(step["outcome"], "sending", "{record:#}");
    assert_eq!(step["requests"][0]["sending"], true, "{record:#}");
    assert!(record["finished_at"].is_string(), "{record:#}");
    logged(&mut lab, "session deleted");
    assert_eq!(lab.simulator.as_ref().unwrap().sessions(), 0);
}

#[test]
fn sigterm_while_the_bmc_is_read_sends_nothing_and_deletes_the_session() {
    let run = "CHG-3006";
    let mut lab = blocked(&["--latency", "300"], run);
    let child = spawn_apply(&lab, run, &["--reset"]);
    let simulator = lab.simulator.as_mut().unwrap();
    // The gate's pre and post logged in before: this is the apply's login, then its crawl.
    assert!(simulator.logged_times(" created", 3, Duration::from_secs(30)));
    let gets = simulator
        .log_lines()
        .iter()
        .filter(|l| l.contains("DEBUG GET /redfish/v1/"))
        .count();
    assert!(simulator.logged_times("DEBUG GET /redfish/v1/", gets + 3, Duration::from_secs(30)));
    send(&child, libc::SIGTERM);
    let output = child.wait_with_output().unwrap();
    let text = stderr(&output);
    assert_eq!(output.status.code(), Some(143), "{text}");
    assert!(
        text.contains(
            "fix apply stopped while the BMCs were read: nothing was sent (stopped by SIGTERM)"
        ),
        "{text}"
    );
    logged(&mut lab, "session deleted");
    assert_eq!(lab.simulator.as_ref().unwrap().sessions(), 0);
    assert_eq!(sent(&lab, "PATCH", "/redfish/v1/"), 0);
    assert!(!lab.run_dir(run).join("fix/apply-1.json").exists());
}
