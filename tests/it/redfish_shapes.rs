//! Redfish answers of the wrong shape, a host that takes too long and authentication lost
//! mid-crawl, end to end: the seed-1 post-update mockup (which BLOCKs) mutated as
//! `tests/fixtures/fuzz/redfish/shapes.json` says, captured offline and from a real
//! `driftgate mockup serve` on 127.0.0.1. A wrong shape is `partial` (exit 3) naming the URI
//! and the property, never a PASS; a `null` is "no value" and stays complete.

use crate::common;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use common::capture::{Captured, capture};
use common::simulator::{Simulator, bmc};
use common::{copy_dir, driftgate, root};
use serde_json::Value;

/// `driftgate check` of `captured`: with no baseline (invariants), and against `baseline`
/// (the capture of the seed-1 baseline mockup). Exit codes.
fn check(captured: &Captured, baseline: &Path) -> (i32, i32) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("snapshot.json");
    std::fs::write(&file, &captured.text).unwrap();
    let run = |extra: &[&Path]| {
        let mut cmd = driftgate();
        cmd.args(["check", "--snapshot"]).arg(&file);
        if let Some(baseline) = extra.first() {
            cmd.arg("--baseline").arg(baseline);
        }
        cmd.output().unwrap().status.code().unwrap()
    };
    (run(&[]), run(&[baseline]))
}

/// A copy of the seed-1 post-update mockup with `edits` applied.
fn mutated(edits: &Value) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&bmc("post-update"), dir.path());
    for edit in edits.as_array().unwrap() {
        let file = dir
            .path()
            .join("redfish/v1")
            .join(edit["file"].as_str().unwrap());
        let mut body: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap())
            .unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let pointer = edit["pointer"].as_str().unwrap();
        match edit.get("value") {
            Some(value) => match body.pointer_mut(pointer) {
                Some(old) => *old = value.clone(),
                None => {
                    // A member the resource lacks: added to its object.
                    let (parent, key) = pointer.rsplit_once('/').unwrap();
                    body.pointer_mut(parent)
                        .and_then(Value::as_object_mut)
                        .unwrap_or_else(|| panic!("{pointer} in {}", file.display()))
                        .insert(key.to_owned(), value.clone());
                }
            },
            None => {
                let (parent, key) = pointer.rsplit_once('/').unwrap();
                match body.pointer_mut(parent).unwrap() {
                    Value::Object(map) => {
                        map.remove(key).unwrap();
                    }
                    Value::Array(items) => {
                        items.remove(key.parse().unwrap());
                    }
                    _ => panic!("{pointer}: not in an object or array"),
                }
            }
        }
        std::fs::write(&file, serde_json::to_string_pretty(&body).unwrap()).unwrap();
    }
    dir
}

fn cases(kind: &str) -> Vec<Value> {
    let file = root().join("tests/fixtures/fuzz/redfish/shapes.json");
    let all: Value = serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
    all[kind].as_array().unwrap().clone()
}

/// The seed-1 baseline, captured from its recorded mockup (redfish facts only).
fn baseline_snapshot() -> (tempfile::TempDir, PathBuf) {
    let captured = capture(
        &format!("redfish=mockup:{}", bmc("baseline").display()),
        &[],
        false,
    );
    assert_eq!(captured.code, 0, "{}", captured.error());
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("baseline.json");
    std::fs::write(&file, &captured.text).unwrap();
    (dir, file)
}

#[test]
fn the_intact_seed_1_mockup_is_complete_and_blocks() {
    let (_dir, baseline) = baseline_snapshot();
    let intact = capture(
        &format!("redfish=mockup:{}", bmc("post-update").display()),
        &[],
        false,
    );
    assert_eq!((intact.code, intact.status()), (0, "complete"));
    assert_eq!(
        check(&intact, &baseline),
        (1, 1),
        "BLOCK, with and without a baseline"
    );
}

#[test]
fn each_wrong_shape_is_partial_naming_uri_and_property_and_never_passes() {
    let (_dir, baseline) = baseline_snapshot();
    for case in cases("partial") {
        let name = case["name"].as_str().unwrap();
        let expect = case["expect"].as_str().unwrap();
        let mockup = mutated(&case["edits"]);
        let server = Simulator::start(mockup.path(), &["--auth", "session"]);
        let offline = capture(
            &format!("redfish=mockup:{}", mockup.path().display()),
            &[],
            false,
        );
        let live = capture(&format!("redfish={}", server.url), &[], true);
        for (how, captured) in [("offline", &offline), ("http", &live)] {
            assert_eq!(
                (captured.code, captured.status()),
                (3, "partial"),
                "{name} ({how}): {}",
                captured.error()
            );
            assert!(
                captured.error().contains(expect),
                "{name} ({how}): expected {expect:?} in {:?}",
                captured.error()
            );
            assert_eq!(
                check(captured, &baseline),
                (3, 3),
                "{name} ({how}): INCOMPLETE, never PASS"
            );
        }
        assert_eq!(server.sessions(), 0, "{name}: the session is deleted");
    }
}

#[test]
fn null_is_no_value_and_stays_complete() {
    for case in cases("complete") {
        let name = case["name"].as_str().unwrap();
        let mockup = mutated(&case["edits"]);
        let captured = capture(
            &format!("redfish=mockup:{}", mockup.path().display()),
            &[],
            false,
        );
        assert_eq!(
            (captured.code, captured.status()),
            (0, "complete"),
            "{name}: {}",
            captured.error()
        );
        assert_eq!(
            captured.snapshot["facts"]["nic/00:0a:f7:12:34:57/bmc/function/00:0a:f7:12:34:57/dcbx_mode"],
            "disabled",
            "{name}"
        );
        let (_dir, baseline) = baseline_snapshot();
        assert_eq!(check(&captured, &baseline), (1, 1), "{name}: still BLOCKs");
    }
}

#[test]
fn the_host_deadline_stops_a_slow_bmc_and_names_itself() {
    // 300 ms a request, one at a time: the whole crawl would take about 12 s.
    let server = Simulator::start(
        &bmc("post-update"),
        &["--auth", "session", "--latency", "300"],
    );
    let started = Instant::now();
    let captured = capture(
        &format!("redfish={}", server.url),
        &["--host-timeout", "2", "--bmc-concurrency", "1"],
        true,
    );
    let took = started.elapsed();
    // Only the system's interfaces (identities, no evidence) are read in time: failed.
    assert_eq!(
        (captured.code, captured.status()),
        (3, "failed"),
        "{}",
        captured.error()
    );
    assert!(
        captured
            .error()
            .contains("no answer within the host deadline of 2 s (--host-timeout)"),
        "{}",
        captured.error()
    );
    assert!(
        took < Duration::from_secs(6),
        "stopped at the deadline: {took:?}"
    );
    assert_eq!(
        server.sessions(),
        0,
        "the session is deleted after the deadline"
    );
    // A deadline that passes before the service root is read fails the source.
    let server = Simulator::start(&bmc("post-update"), &["--latency", "1500"]);
    let captured = capture(
        &format!("redfish={}", server.url),
        &["--host-timeout", "1"],
        false,
    );
    captured.assert_incomplete("failed", "host deadline of 1 s");
}

#[test]
fn a_login_that_never_answers_ends_at_the_host_deadline_not_the_request_timeout() {
    let server = Simulator::start(
        &bmc("post-update"),
        &[
            "--auth",
            "session",
            "--fault",
            "hang=/redfish/v1/SessionService/Sessions",
        ],
    );
    let started = Instant::now();
    let captured = capture(
        &format!("redfish={}", server.url),
        &["--host-timeout", "1", "--bmc-timeout", "120"],
        true,
    );
    let took = started.elapsed();
    captured.assert_incomplete(
        "failed",
        "no answer within the host deadline of 1 s (--host-timeout): login POST /redfish/v1/SessionService/Sessions",
    );
    // The deadline, then at most the grace the session's delete is given (10 s), not the
    // 120 s a request may take.
    assert!(
        took < Duration::from_secs(1 + 10 + 10),
        "ended at the deadline: {took:?}"
    );
}

#[test]
fn a_session_lost_mid_crawl_is_renewed_once() {
    let reference = capture(
        &format!("redfish=mockup:{}", bmc("post-update").display()),
        &[],
        false,
    );
    // Request 6 finds every session gone (a BMC reset): one new login, and the crawl goes on.
    let server = Simulator::start(
        &bmc("post-update"),
        &["--auth", "session", "--fault", "expire-sessions=6"],
    );
    let captured = capture(&format!("redfish={}", server.url), &["-v"], true);
    assert_eq!(captured.code, 0, "{}", captured.error());
    assert!(
        captured.stderr.contains("logging in again"),
        "{}",
        captured.stderr
    );
    assert_eq!(captured.snapshot["facts"], reference.snapshot["facts"]);
    assert_eq!(server.sessions(), 0, "the new session is deleted");
}

#[test]
fn a_session_lost_with_requests_in_flight_is_renewed_once_and_the_capture_completes() {
    // Default concurrency (4) and 100 ms an answer: requests start while the new login is on
    // its way. They must wait for it and go with the new token; main (6bfc436) sent them with
    // none, took their 401 for a second refusal and stopped the crawl (partial).
    let reference = capture(
        &format!("redfish=mockup:{}", bmc("post-update").display()),
        &[],
        false,
    );
    // The crawl takes about 20 requests: each of these lands mid-crawl.
    for expires_at in [3, 5, 7, 10, 13] {
        let server = Simulator::start(
            &bmc("post-update"),
            &[
                "--auth",
                "session",
                "--latency",
                "100",
                "--fault",
                &format!("expire-sessions={expires_at}"),
            ],
        );
        let captured = capture(&format!("redfish={}", server.url), &["-v"], true);
        assert_eq!(
            (captured.code, captured.status()),
            (0, "complete"),
            "sessions expire at request {expires_at}: {}",
            captured.error()
        );
        assert_eq!(
            captured.stderr.matches("logging in again").count(),
            1,
            "sessions expire at request {expires_at}: one new login: {}",
            captured.stderr
        );
        assert_eq!(
            captured.snapshot["facts"], reference.snapshot["facts"],
            "sessions expire at request {expires_at}"
        );
        assert_eq!(server.sessions(), 0, "the new session is deleted");
    }
}

#[test]
fn a_401_with_the_session_alive_deletes_it_before_logging_in_again() {
    // Some BMCs answer 401 for one resource while the session lives: the old session is
    // deleted before the new login, or every such 401 costs one of the few session slots.
    let server = Simulator::start(
        &bmc("post-update"),
        &[
            "--auth",
            "session",
            "--fault",
            "status=401:/redfish/v1/Systems",
        ],
    );
    let captured = capture(&format!("redfish={}", server.url), &["-v"], true);
    // The collections are read at the same time: whether Chassis and UpdateService answered
    // before the second 401 stopped the crawl depends on timing (on a loaded machine they may
    // not have been sent), so the source is partial or failed, and never complete.
    assert_eq!(captured.code, 3, "{}", captured.error());
    assert!(
        matches!(captured.status(), "partial" | "failed"),
        "{}: {}",
        captured.status(),
        captured.error()
    );
    assert!(
        captured.error().contains("again after logging in again"),
        "{}",
        captured.error()
    );
    assert_eq!(
        server.sessions(),
        0,
        "both sessions are deleted: {}",
        captured.stderr
    );
}

#[test]
fn after_a_401_a_failed_login_stops_the_crawl_at_once() {
    // Sessions vanish at request 8 (the login is request 0) and the account then refuses
    // logins (locked). One request at a time and no `$expand`, so that every request is
    // counted: main (ed8d009) sent 18 here, 8 of them after the failed login.
    const EXPIRES_AT: u64 = 8;
    let server = Simulator::start(
        &bmc("post-update"),
        &[
            "--auth",
            "session",
            "--fault",
            "no-expand",
            "--fault",
            &format!("expire-sessions={EXPIRES_AT}"),
            "--fault",
            "logins=1",
        ],
    );
    let captured = capture(
        &format!("redfish={}", server.url),
        &["--bmc-concurrency", "1"],
        true,
    );
    // Nothing was read before the session was lost: failed.
    assert_eq!(
        (captured.code, captured.status()),
        (3, "failed"),
        "{}",
        captured.error()
    );
    let error = captured.error();
    assert!(
        error.contains("HTTP 401")
            && error.contains(
                "logging in again failed: login refused (POST /redfish/v1/SessionService/Sessions: HTTP 401"
            ),
        "{error}"
    );
    assert!(error.contains("no further requests sent"), "{error}");
    // What the server received: the requests before the sessions vanished, the one refused,
    // the DELETE of the old session and the one failed login. Nothing after it.
    assert_eq!(server.requests(), EXPIRES_AT + 3);
}

#[test]
fn anonymous_401_stops_at_once() {
    // Without credentials every resource but the root answers 401: one is enough.
    let server = Simulator::start(&bmc("post-update"), &["--auth", "session"]);
    let captured = capture(
        &format!("redfish={}", server.url),
        &["--bmc-concurrency", "1"],
        false,
    );
    assert_eq!(captured.code, 3);
    assert!(
        captured.error().contains("HTTP 401"),
        "{}",
        captured.error()
    );
    let received = server.requests();
    assert!(received <= 3, "{received} requests reached the BMC");
}

/// The Dell NIC attributes of function `NIC.Slot.3-1-1` of the seed-1 mockups.
const ATTRIBUTES_3_1_1: &str = "/redfish/v1/Chassis/System.Embedded.1/NetworkAdapters/NIC.Slot.3/NetworkDeviceFunctions/NIC.Slot.3-1-1/Oem/Dell/DellNetworkAttributes/NIC.Slot.3-1-1";

#[test]
fn a_key_given_twice_in_a_bmc_response_makes_the_source_partial_naming_uri_and_key() {
    let (_dir, baseline) = baseline_snapshot();
    // DCBX disabled (the incident), then the same key again saying IEEE: a reader that keeps
    // the last one sees a healthy port.
    let fault = format!("duplicate-key={ATTRIBUTES_3_1_1}#/Attributes/Broadcom_DCBX=Enabled_IEEE");
    let server = Simulator::start(
        &bmc("post-update"),
        &["--auth", "session", "--fault", &fault],
    );
    let live = capture(&format!("redfish={}", server.url), &[], true);
    // The same document in a mockup folder: a file is read as a BMC is.
    let folder = tempfile::tempdir().unwrap();
    copy_dir(&bmc("post-update"), folder.path());
    let file = folder
        .path()
        .join(format!("{}/index.json", &ATTRIBUTES_3_1_1[1..]));
    let text = std::fs::read_to_string(&file).unwrap();
    let twice = text.replacen(
        "\"Broadcom_DCBX\": \"Disabled\",",
        "\"Broadcom_DCBX\": \"Disabled\",\n        \"Broadcom_DCBX\": \"Enabled_IEEE\",",
        1,
    );
    assert_ne!(text, twice, "the recorded attributes say Broadcom_DCBX");
    std::fs::write(&file, twice).unwrap();
    let offline = capture(
        &format!("redfish=mockup:{}", folder.path().display()),
        &[],
        false,
    );
    for (how, captured) in [("http", &live), ("offline", &offline)] {
        captured.assert_incomplete(
            "partial",
            &format!(
                "GET {ATTRIBUTES_3_1_1}: key \"Broadcom_DCBX\" appears twice in \"Attributes\""
            ),
        );
        let facts = captured.snapshot["facts"].as_object().unwrap();
        let dcbx = "nic/00:0a:f7:12:34:56/bmc/function/00:0a:f7:12:34:56/dcbx_mode";
        assert_eq!(facts.get(dcbx), None, "{how}: neither value is kept");
        assert_eq!(check(captured, &baseline), (3, 3), "{how}: never a pass");
    }
    assert_eq!(server.sessions(), 0);
}

#[test]
fn a_collection_listing_itself_the_root_and_a_member_twice_invents_no_port() {
    let intact = capture(
        &format!("redfish=mockup:{}", bmc("post-update").display()),
        &[],
        false,
    );
    let ports = "/redfish/v1/Chassis/System.Embedded.1/NetworkAdapters/NIC.Slot.3/NetworkPorts";
    let mockup = tempfile::tempdir().unwrap();
    copy_dir(&bmc("post-update"), mockup.path());
    let file = mockup.path().join(format!("{}/index.json", &ports[1..]));
    let mut collection: Value =
        serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let members = collection["Members"].as_array().unwrap().clone();
    assert_eq!(members.len(), 2, "two ports");
    let mut listed = vec![
        serde_json::json!({"@odata.id": ports}),
        serde_json::json!({"@odata.id": "/redfish/v1"}),
    ];
    listed.extend([members[0].clone(), members[0].clone(), members[1].clone()]);
    collection["Members@odata.count"] = Value::from(listed.len());
    collection["Members"] = Value::Array(listed);
    std::fs::write(&file, collection.to_string()).unwrap();
    let server = Simulator::start(mockup.path(), &["--auth", "session"]);
    let offline = capture(
        &format!("redfish=mockup:{}", mockup.path().display()),
        &[],
        false,
    );
    // Over HTTP the simulator offers `$expand`: the members come inline, the same checks hold.
    let live = capture(&format!("redfish={}", server.url), &[], true);
    for (how, captured) in [("offline", &offline), ("http", &live)] {
        for says in [
            format!(
                "{ports}: @odata.type is the string \"#NetworkPortCollection.NetworkPortCollection\", expected a resource of type NetworkPort (Members/0 of {ports})"
            ),
            format!(
                "/redfish/v1: @odata.type is the string \"#ServiceRoot.v1_10_0.ServiceRoot\", expected a resource of type NetworkPort (Members/1 of {ports})"
            ),
            format!(
                "{ports}: Members/3 is {ports}/NIC.Slot.3-1 again, expected each member listed once (it is Members/2)"
            ),
        ] {
            captured.assert_incomplete("partial", &says);
        }
        // No phantom port, and the real ports' facts (flow control included) are all there.
        assert_eq!(
            captured.snapshot["facts"], intact.snapshot["facts"],
            "{how}: the facts are the intact service's"
        );
    }
    assert_eq!(server.sessions(), 0);
}
