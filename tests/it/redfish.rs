//! The Redfish source end to end: offline mockups, and a real HTTP(S) server on 127.0.0.1
//! (`driftgate mockup serve`) with authentication, latency and injected faults.

use crate::common;

use std::path::{Path, PathBuf};

use common::capture::capture;
use common::simulator::{PASSWORD, Simulator, USER, bmc};
use common::{copy_dir, driftgate, files_under, public_data};
use predicates::prelude::*;
use serde_json::Value;

fn shared_mockups() -> Vec<PathBuf> {
    let dir = public_data("redfish");
    [
        "libredfish-dell",
        "libredfish-dell_multi_dpu",
        "dmtf-public-smartnic",
        "dmtf-public-rackmount1",
    ]
    .iter()
    .map(|m| dir.join(m))
    .collect()
}

#[test]
fn every_shared_mockup_captures_the_same_offline_and_over_http() {
    let mockups = shared_mockups();
    for dir in mockups
        .iter()
        .chain([bmc("baseline"), bmc("post-update")].iter())
    {
        let saved = tempfile::tempdir().unwrap();
        let offline = capture(
            &format!("redfish=mockup:{}", dir.display()),
            &["--save-mockup", &saved.path().display().to_string()],
            false,
        );
        assert_eq!(
            (offline.code, offline.source()["status"].as_str()),
            (0, Some("complete")),
            "{}: {}",
            dir.display(),
            offline.error()
        );
        let again = capture(&format!("redfish=mockup:{}", dir.display()), &[], false);
        assert_eq!(
            offline.snapshot["facts"],
            again.snapshot["facts"],
            "{}: capturing twice differs",
            dir.display()
        );
        // The saved copy (secrets removed) replays to the same facts: the filter drops
        // secrets, not ids that look like keys or links under secret-sounding names.
        let dropped = dropped_outside_secrets(dir, saved.path());
        assert!(
            dropped.is_empty(),
            "{}: the saved copy lost more than secrets:\n{}",
            dir.display(),
            dropped.join("\n")
        );
        let replay = capture(
            &format!("redfish=mockup:{}", saved.path().display()),
            &[],
            false,
        );
        assert_eq!(
            (replay.code, replay.source()["status"].as_str()),
            (0, Some("complete")),
            "{}: the saved copy: {}",
            dir.display(),
            replay.error()
        );
        assert_eq!(
            offline.snapshot["facts"],
            replay.snapshot["facts"],
            "{}: the saved copy captures differently",
            dir.display()
        );
        let server = Simulator::start(dir, &["--auth", "session"]);
        let live = capture(&format!("redfish={}", server.url), &[], true);
        assert_eq!(live.code, 0, "{}: {}", dir.display(), live.error());
        assert_eq!(
            offline.snapshot["facts"],
            live.snapshot["facts"],
            "{}: offline and HTTP differ",
            dir.display()
        );
        assert_eq!(
            server.sessions(),
            0,
            "{}: the session was not deleted",
            dir.display()
        );
        assert!(
            live.stderr.contains("plain http://"),
            "http:// warns on every run"
        );
    }
}

/// What a saved mockup in `saved` lost against the original in `dir` beyond what may go:
/// a scalar inside settings (an `Attributes` object, an attribute registry entry), or a
/// scalar whose name says it is a secret. A link, an object, an id or a digest outside
/// settings (Dell's firmware `HashValue`, `#Bios.ChangePassword`) must stay.
fn dropped_outside_secrets(dir: &Path, saved: &Path) -> Vec<String> {
    fn compare(original: &Value, copy: &Value, settings: bool, at: &str, lost: &mut Vec<String>) {
        match (original, copy) {
            (Value::Object(original), Value::Object(copy)) => {
                let settings = settings || original.contains_key("AttributeName");
                for (name, value) in original {
                    let here = format!("{at}/{name}");
                    match copy.get(name) {
                        Some(kept) => {
                            compare(value, kept, settings || name == "Attributes", &here, lost)
                        }
                        None => {
                            let scalar = match value {
                                Value::Object(_) => false,
                                Value::Array(items) => {
                                    !items.iter().any(|v| v.is_object() || v.is_array())
                                }
                                _ => true,
                            };
                            if !(scalar && (settings || driftgate_secrets::is_secret_name(name))) {
                                lost.push(format!("{here} = {value}"));
                            }
                        }
                    }
                }
            }
            (Value::Array(original), Value::Array(copy)) if original.len() == copy.len() => {
                for (index, (value, kept)) in original.iter().zip(copy).enumerate() {
                    compare(value, kept, settings, &format!("{at}/{index}"), lost);
                }
            }
            _ if original == copy => {}
            _ => lost.push(format!("{at} changed")),
        }
    }
    let mut lost = Vec::new();
    let mut files = common::files_under(saved);
    files.sort();
    assert!(files.len() > 5, "{}: {files:?}", saved.display());
    for file in files {
        let relative = file.strip_prefix(saved).unwrap();
        let read = |path: &Path| -> Value {
            serde_json::from_str(&std::fs::read_to_string(path).unwrap())
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        };
        // DMTF's public mockups are flat: their folder is `/redfish/v1` itself.
        let original = if dir.join("redfish/v1/index.json").is_file() {
            dir.join(relative)
        } else {
            dir.join(relative.strip_prefix("redfish/v1").unwrap())
        };
        compare(
            &read(&original),
            &read(&file),
            false,
            &relative.display().to_string(),
            &mut lost,
        );
    }
    lost
}

#[test]
fn the_dell_capture_shows_dcbx_disabled_beside_rdma_switched_off_and_warns() {
    let mockups = shared_mockups();
    let dell = &mockups[0];
    let captured = capture(&format!("redfish=mockup:{}", dell.display()), &[], false);
    // Dell's NIC attributes describe one function (partition) of the port: RoCE supported,
    // RDMA switched off (RDMANICModeOnPort Disabled), DCBX disabled. Each function is keyed by
    // its MAC (here its port's).
    for (mac, function) in [
        ("e4:3d:1a:13:27:f0", "e4:3d:1a:13:27:f0"),
        ("e4:3d:1a:13:27:f1", "e4:3d:1a:13:27:f1"),
    ] {
        let fact = |leaf: &str| {
            captured.snapshot["facts"][format!("nic/{mac}/bmc/function/{function}/{leaf}")].clone()
        };
        assert_eq!(fact("dcbx_mode"), "disabled", "{mac}");
        assert_eq!(fact("rdma_protocol"), "roce", "{mac}");
        assert_eq!(fact("rdma_enabled"), false, "{mac}");
    }
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("dell.json");
    std::fs::write(&file, serde_json::to_string(&captured.snapshot).unwrap()).unwrap();
    // Not RoCE without flow control: one setting away from it (issue 61).
    driftgate()
        .args(["check", "--snapshot"])
        .arg(&file)
        .assert()
        .code(0)
        .stdout(
            predicate::str::contains("[bmc-dcbx-disabled-rdma-off]")
                .and(predicate::str::contains(
                    "\"NIC.Integrated.1-1\" (e4:3d:1a:13:27:f0)",
                ))
                .and(predicate::str::contains("[bmc-dcbx-disabled-with-rdma]").not()),
        );
}

#[test]
fn firmware_is_keyed_by_component_and_previous_versions_are_history() {
    let captured = capture(
        &format!("redfish=mockup:{}", bmc("post-update").display()),
        &[],
        false,
    );
    let facts = &captured.snapshot["facts"];
    assert_eq!(facts["firmware/nic.slot.3-1-1/version"], "229.1.123.0");
    assert_eq!(facts["firmware/bios.setup.1-1/version"], "2.19.1");
    let firmware: Vec<&String> = facts
        .as_object()
        .unwrap()
        .keys()
        .filter(|k| k.starts_with("firmware/"))
        .collect();
    assert_eq!(firmware.len(), 4, "{firmware:?}");
}

#[test]
fn secrets_never_reach_a_snapshot() {
    let captured = capture(
        &format!("redfish=mockup:{}", bmc("baseline").display()),
        &[],
        false,
    );
    let text = captured.snapshot.to_string();
    for secret in [
        "chap-s3cret-value",
        "4711",
        "SetupPassword",
        "AdminPin",
        "ChapSecret",
    ] {
        assert!(!text.contains(secret), "{secret} leaked into the snapshot");
    }
    assert_eq!(
        captured.snapshot["facts"]["bios/SysProfile"],
        "PerfOptimized"
    );
}

#[test]
fn basic_auth_when_sessions_are_refused_or_full() {
    for args in [
        &["--auth", "basic"][..],
        &["--auth", "session", "--fault", "session-limit"][..],
    ] {
        let server = Simulator::start(&bmc("baseline"), args);
        let captured = capture(&format!("redfish={}", server.url), &["-v"], true);
        assert_eq!(captured.code, 0, "{args:?}: {}", captured.error());
        assert!(
            captured.stderr.contains("using Basic authentication"),
            "{args:?}: {}",
            captured.stderr
        );
        assert_eq!(server.sessions(), 0);
    }
}

#[test]
fn the_password_can_come_from_standard_input() {
    let server = Simulator::start(&bmc("baseline"), &["--auth", "basic"]);
    let output = driftgate()
        .args([
            "capture",
            "--host",
            "azl-node01",
            "--password-stdin",
            "--bmc-username",
            USER,
            "--source",
            &format!("redfish={}", server.url),
        ])
        .env_remove("DRIFTGATE_BMC_PASSWORD")
        .write_stdin(format!("{PASSWORD}\n"))
        .output()
        .unwrap();
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn wrong_or_missing_credentials_fail_the_source() {
    let server = Simulator::start(&bmc("baseline"), &["--auth", "session"]);
    let mut cmd = driftgate();
    let output = cmd
        .args([
            "capture",
            "--host",
            "azl-node01",
            "--source",
            &format!("redfish={}", server.url),
        ])
        .env("DRIFTGATE_BMC_USERNAME", USER)
        .env("DRIFTGATE_BMC_PASSWORD", "wrong")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(3));
    let snapshot: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(snapshot["sources"][0]["status"], "failed");
    assert!(
        snapshot["sources"][0]["error"]
            .as_str()
            .unwrap()
            .contains("login refused (POST /redfish/v1/SessionService/Sessions: HTTP 401")
    );
    let refused = snapshot["sources"][0]["error"].as_str().unwrap();
    assert!(
        refused
            .contains("check the BMC account of DRIFTGATE_BMC_USERNAME and DRIFTGATE_BMC_PASSWORD"),
        "{refused}"
    );
    // Anonymous against a service that wants credentials: 401 on every resource, said as a
    // login the BMC wants, never as a session lost.
    let anonymous = capture(&format!("redfish={}", server.url), &[], false);
    assert_eq!(anonymous.code, 3);
    let error = anonymous.error();
    assert!(error.contains("HTTP 401"), "{error}");
    assert!(error.contains("the BMC wants a login"), "{error}");
    assert!(
        error.contains("no account was given: check the BMC account"),
        "{error}"
    );
    assert!(!error.contains("lost mid-crawl"), "{error}");
    // A user name without a password is a usage error, before any request.
    driftgate()
        .args([
            "capture",
            "--host",
            "h",
            "--source",
            &format!("redfish={}", server.url),
        ])
        .env("DRIFTGATE_BMC_USERNAME", USER)
        .env_remove("DRIFTGATE_BMC_PASSWORD")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no password"));
}

#[test]
fn busy_services_are_retried_honouring_retry_after_and_give_up_after_three() {
    let server = Simulator::start(&bmc("baseline"), &["--fault", "unavailable=2"]);
    let captured = capture(&format!("redfish={}", server.url), &[], false);
    assert_eq!(captured.code, 0, "{}", captured.error());
    let server = Simulator::start(&bmc("baseline"), &["--fault", "unavailable=1000"]);
    let captured = capture(&format!("redfish={}", server.url), &[], false);
    assert_eq!(
        (captured.code, captured.source()["status"].as_str()),
        (3, Some("failed"))
    );
    assert!(
        captured.error().contains("GET /redfish/v1: HTTP 503"),
        "{}",
        captured.error()
    );
}

#[test]
fn each_broken_resource_makes_the_capture_partial_naming_uri_and_cause() {
    let adapters = "/redfish/v1/Chassis/System.Embedded.1/NetworkAdapters";
    let cases = [
        (format!("truncate={adapters}"), "is not valid JSON"),
        (format!("oversize={adapters}"), "exceeds 33554432 bytes"),
        (format!("redirect-loop={adapters}"), "too many redirects"),
        (format!("hang={adapters}"), "timed out"),
        (
            format!("status=500:{adapters}"),
            "HTTP 500: Injected fault.",
        ),
    ];
    for (fault, cause) in cases {
        let server = Simulator::start(&bmc("baseline"), &["--auth", "session", "--fault", &fault]);
        let captured = capture(
            &format!("redfish={}", server.url),
            &["--bmc-timeout", "2"],
            true,
        );
        assert_eq!(captured.code, 3, "{fault}");
        assert_eq!(captured.source()["status"], "partial", "{fault}");
        let error = captured.error();
        assert!(
            error.contains(adapters) && error.contains(cause),
            "{fault}: {error}"
        );
        assert_eq!(
            server.sessions(),
            0,
            "{fault}: the session must be deleted after a failure too"
        );
        // What could be read is still there, and the verdict is INCOMPLETE, never a pass.
        assert_eq!(
            captured.snapshot["facts"]["bios/SysProfile"], "PerfOptimized",
            "{fault}"
        );
    }
}

#[test]
fn an_unreachable_bmc_fails_and_never_looks_healthy() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let captured = capture(&format!("redfish=http://127.0.0.1:{port}"), &[], false);
    assert_eq!(
        (captured.code, captured.source()["status"].as_str()),
        (3, Some("failed"))
    );
    assert!(
        captured.error().contains("connection refused"),
        "{}",
        captured.error()
    );
    assert!(captured.snapshot["facts"].as_object().unwrap().is_empty());
}

#[test]
fn expand_is_used_when_offered_and_dropped_on_501() {
    for args in [&[][..], &["--fault", "no-expand"][..]] {
        let server = Simulator::start(&bmc("post-update"), args);
        let captured = capture(&format!("redfish={}", server.url), &[], false);
        assert_eq!(captured.code, 0, "{args:?}: {}", captured.error());
        assert_eq!(
            captured.snapshot["facts"]["nic/00:0a:f7:12:34:57/bmc/function/00:0a:f7:12:34:57/dcbx_mode"],
            "disabled"
        );
    }
}

#[test]
fn tls_pins_and_ca_files() {
    let server = Simulator::start(&bmc("baseline"), &["--tls"]);
    let pin = server.pin.clone().unwrap();
    let https = server.url.clone();
    assert!(https.starts_with("https://"));
    // Verified by default: a self-signed certificate is refused, and the error names the pin
    // of the certificate the BMC presents and how to trust it; no library's raw log line.
    let refused = capture(&format!("redfish={https}"), &[], false);
    assert_eq!(refused.code, 3);
    let error = refused.error();
    assert!(error.contains("certificate"), "{error}");
    assert!(
        error.contains(&format!("the BMC presents the certificate {pin}")),
        "{error}"
    );
    assert!(error.contains(&format!("?pin={pin}")), "{error}");
    assert!(error.contains("ca_file"), "{error}");
    assert!(
        refused.stderr.lines().all(|l| l.starts_with("driftgate: ")),
        "{}",
        refused.stderr
    );
    // The same with an account: the login's error says it too.
    let with_account = capture(&format!("redfish={https}"), &[], true);
    assert_eq!(with_account.code, 3);
    assert!(
        with_account.error().contains(&format!("?pin={pin}")),
        "{}",
        with_account.error()
    );
    // Pinned: accepted when it matches.
    let pinned = capture(&format!("redfish={https}?pin={pin}"), &[], false);
    assert_eq!(pinned.code, 0, "{}", pinned.error());
    // A pin that does not match says the fingerprint changed.
    let wrong = format!("sha256:{}", "00".repeat(32));
    let mismatch = capture(&format!("redfish={https}?pin={wrong}"), &[], false);
    assert_eq!(mismatch.code, 3);
    assert!(
        mismatch.error().contains("certificate fingerprint changed"),
        "{}",
        mismatch.error()
    );
    // --insecure works and warns.
    let insecure = capture(&format!("redfish={https}"), &["--insecure"], false);
    assert_eq!(insecure.code, 0);
    assert!(
        insecure.stderr.contains("--insecure"),
        "{}",
        insecure.stderr
    );

    // A CA file: the server's certificate is issued by a test CA.
    let dir = tempfile::tempdir().unwrap();
    let ca_key = rcgen::KeyPair::generate().unwrap();
    let mut ca_params = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
    ca_params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    ca_params
        .distinguished_name
        .push(rcgen::DnType::CommonName, "driftgate test CA");
    let ca = ca_params.self_signed(&ca_key).unwrap();
    let issuer = rcgen::Issuer::new(ca_params, ca_key);
    let leaf_key = rcgen::KeyPair::generate().unwrap();
    let leaf = rcgen::CertificateParams::new(vec!["127.0.0.1".to_owned(), "localhost".to_owned()])
        .unwrap()
        .signed_by(&leaf_key, &issuer)
        .unwrap();
    let (ca_pem, cert_pem, key_pem) = (
        dir.path().join("ca.pem"),
        dir.path().join("cert.pem"),
        dir.path().join("key.pem"),
    );
    std::fs::write(&ca_pem, ca.pem()).unwrap();
    std::fs::write(&cert_pem, leaf.pem()).unwrap();
    std::fs::write(&key_pem, leaf_key.serialize_pem()).unwrap();
    let server = Simulator::start(
        &bmc("baseline"),
        &[
            "--tls-cert",
            cert_pem.to_str().unwrap(),
            "--tls-key",
            key_pem.to_str().unwrap(),
        ],
    );
    let with_ca = capture(
        &format!("redfish={}", server.url),
        &["--ca-cert", ca_pem.to_str().unwrap()],
        false,
    );
    assert_eq!(with_ca.code, 0, "{}", with_ca.error());
    let without = capture(&format!("redfish={}", server.url), &[], false);
    assert_eq!(without.code, 3);
}

#[test]
fn the_password_never_appears_in_files_or_the_most_verbose_log() {
    let server = Simulator::start(&bmc("baseline"), &["--auth", "session"]);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("snapshot.json");
    let saved = dir.path().join("saved-mockup");
    let output = driftgate()
        .args([
            "-vvv",
            "capture",
            "--host",
            "azl-node01",
            "--source",
            &format!("redfish={}", server.url),
        ])
        .arg("--out")
        .arg(&out)
        .arg("--save-mockup")
        .arg(&saved)
        .env("DRIFTGATE_BMC_USERNAME", USER)
        .env("DRIFTGATE_BMC_PASSWORD", PASSWORD)
        .output()
        .unwrap();
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let log = String::from_utf8_lossy(&output.stderr);
    assert!(
        log.contains("GET /redfish/v1"),
        "the most verbose level logs requests: {log}"
    );
    assert!(!log.contains(PASSWORD) && !String::from_utf8_lossy(&output.stdout).contains(PASSWORD));
    let mut files = 0;
    for entry in files_under(dir.path()) {
        let content = std::fs::read(&entry).unwrap();
        let text = String::from_utf8_lossy(&content);
        files += 1;
        for secret in [PASSWORD, "chap-s3cret-value"] {
            assert!(
                !text.contains(secret),
                "{secret} found in {}",
                entry.display()
            );
        }
    }
    assert!(
        files > 30,
        "the saved mockup holds every response ({files} files)"
    );
    // The saved mockup replays offline to the same facts.
    let replay = capture(&format!("redfish=mockup:{}", saved.display()), &[], false);
    let original: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(replay.snapshot["facts"], original["facts"]);
}

#[test]
fn bad_locations_and_credentials_in_urls_are_usage_errors() {
    for source in [
        "redfish=ftp://bmc",
        "redfish=https://root:pw@bmc",
        "redfish=https://bmc?pin=md5:00",
        "redfish=http://bmc?pin=sha256:00",
        "redfish=mockup:",
    ] {
        let output = driftgate()
            .args(["capture", "--host", "h", "--source", source])
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(2), "{source}");
        assert!(
            !String::from_utf8_lossy(&output.stderr).contains(":pw@"),
            "{source}: the password is echoed"
        );
    }
    driftgate()
        .args([
            "capture",
            "--host",
            "h",
            "--source",
            "redfish=mockup:/nonexistent",
        ])
        .assert()
        .code(3)
        .stderr(predicate::str::contains("not a Redfish mockup"));
}

/// A copy of a recorded BMC whose Systems collection carries `next_link`.
fn bmc_with_next_link(next_link: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&bmc("baseline"), dir.path());
    let systems = dir.path().join("redfish/v1/Systems/index.json");
    let mut collection: Value =
        serde_json::from_str(&std::fs::read_to_string(&systems).unwrap()).unwrap();
    collection["Members@odata.nextLink"] = Value::from(next_link);
    std::fs::write(&systems, collection.to_string()).unwrap();
    dir
}

#[test]
fn credentials_never_follow_a_link_to_another_origin() {
    let thief = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    thief.set_nonblocking(true).unwrap();
    let port = thief.local_addr().unwrap().port();
    for link in [
        format!("http://127.0.0.1:{port}/steal"),
        "//127.0.0.1:1/steal".to_owned(),
        "@127.0.0.1:1/x".to_owned(),
    ] {
        let mockup = bmc_with_next_link(&link);
        let server = Simulator::start(mockup.path(), &["--auth", "basic"]);
        let captured = capture(&format!("redfish={}", server.url), &[], true);
        assert_eq!(
            (captured.code, captured.source()["status"].as_str()),
            (3, Some("partial")),
            "{link}"
        );
        assert!(
            captured.error().contains("refused"),
            "{link}: {}",
            captured.error()
        );
    }
    assert!(
        thief.accept().is_err(),
        "nothing may connect to the other origin"
    );
}

#[test]
fn a_paging_loop_is_an_incomplete_collection() {
    let mockup = bmc_with_next_link("/redfish/v1/Systems");
    let captured = capture(
        &format!("redfish=mockup:{}", mockup.path().display()),
        &[],
        false,
    );
    assert_eq!(
        (captured.code, captured.source()["status"].as_str()),
        (3, Some("partial"))
    );
    assert!(
        captured.error().contains("nextLink loops"),
        "{}",
        captured.error()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_login_answering_after_the_capture_gave_up_has_its_session_deleted() {
    use driftgate_http::Credentials;
    use driftgate_redfish::{self as redfish, RedfishLocation, RedfishOptions};
    use std::time::{Duration, Instant};
    // The session opens at once; its answer comes after the host deadline (1 s) and the
    // logout's grace (LOGOUT_GRACE) have passed.
    let answer = redfish::LOGOUT_GRACE.as_secs() + 3;
    let fault = format!("slow-login={answer}");
    let server = Simulator::start(&bmc("baseline"), &["--auth", "session", "--fault", &fault]);
    let mut options = RedfishOptions {
        credentials: Some(Credentials {
            username: USER.to_owned(),
            password: PASSWORD.to_owned(),
            origin: "the test's account".to_owned(),
        }),
        ..RedfishOptions::default()
    };
    options.client.host_timeout = Duration::from_secs(1);
    let location = RedfishLocation::parse(&server.url).unwrap();
    let started = Instant::now();
    let capture = redfish::capture(&location, &options, &driftgate_collect::Cancel::new()).await;
    assert!(
        started.elapsed() < Duration::from_secs(answer),
        "the capture does not wait for the login: {:?}",
        started.elapsed()
    );
    let error = capture.error_text().unwrap();
    assert!(
        error.contains("no answer within the host deadline of 1 s (--host-timeout)"),
        "{error}"
    );
    // The simulator answers its own client at once (a local process): the brief block of this
    // worker leaves the other one to the session's deletion.
    let sessions = || server.sessions();
    assert_eq!(sessions(), 1, "the BMC opened the session");
    // The login answers later and its session is deleted then, on a task of its own.
    let until = Instant::now() + Duration::from_secs(answer + 10);
    loop {
        let open = sessions();
        if open == 0 {
            break;
        }
        assert!(Instant::now() < until, "{open} session(s) left open");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// Asserts that `received` (what a simulator got during one capture) is one session login, then
/// only GETs, then one DELETE of the session that login created (as the simulator logged it),
/// and returns that session's URI.
#[track_caller]
fn only_gets_and_its_own_session(server: &Simulator, received: &[(String, String)]) -> String {
    let created = server
        .log_lines()
        .iter()
        .find_map(|line| {
            line.split_once("session ")?
                .1
                .strip_suffix(" created")
                .map(str::to_owned)
        })
        .unwrap_or_else(|| panic!("no session created: {:?}", server.log_lines()));
    let (first, rest) = received.split_first().expect("requests were received");
    let (last, gets) = rest.split_last().expect("more than the login");
    assert_eq!(
        (first.0.as_str(), first.1.as_str()),
        ("POST", "/redfish/v1/SessionService/Sessions"),
        "the login comes first: {received:?}"
    );
    assert_eq!(
        (last.0.as_str(), last.1.as_str()),
        ("DELETE", created.as_str()),
        "the last request deletes the session the login created: {received:?}"
    );
    let others: Vec<_> = gets.iter().filter(|(method, _)| method != "GET").collect();
    assert!(others.is_empty(), "only GETs in between: {others:?}");
    assert!(gets.len() > 5, "the capture read the service: {gets:?}");
    created
}

#[test]
fn a_whole_capture_sends_only_gets_one_login_and_the_delete_of_its_own_session() {
    let mockups = shared_mockups();
    for dir in &mockups {
        let mut server = Simulator::start_logged(dir, &["--auth", "session"]);
        let captured = capture(&format!("redfish={}", server.url), &[], true);
        assert_eq!(captured.code, 0, "{}: {}", dir.display(), captured.error());
        let received = server.received("session deleted");
        only_gets_and_its_own_session(&server, &received);
        assert_eq!(server.sessions(), 0, "{}", dir.display());
    }
}

#[test]
fn the_login_the_gets_and_the_logout_share_the_bmc_s_connections() {
    // A BMC gets no more connections than requests in flight: the login's is the GETs' first
    // and the logout's. A login on a connection of its own kept it idle through the crawl, and
    // a connection given back late left a request to open one more: each one a TLS handshake
    // for the BMC and memory for every host in flight.
    for (in_flight, at_most) in [("1", 1), ("4", 4)] {
        let mut server = Simulator::start_logged(&bmc("baseline"), &["--auth", "session"]);
        let captured = capture(
            &format!("redfish={}", server.url),
            &["--bmc-concurrency", in_flight],
            true,
        );
        assert_eq!(captured.code, 0, "{}", captured.error());
        let received = server.received("session deleted");
        only_gets_and_its_own_session(&server, &received);
        let (connections, login_only) = server.connections();
        assert!(
            (1..=at_most).contains(&connections) && login_only == 0,
            "{in_flight} in flight: {connections} connections for {} requests, {login_only} \
             of them carrying the login and no GET",
            received.len()
        );
    }
}

#[test]
fn a_session_location_naming_another_resource_is_never_deleted() {
    for hostile in [
        "/redfish/v1/AccountService/Accounts/2",
        "/redfish/v1/SessionService/Sessions/../../AccountService/Accounts/2",
        "/redfish/v1/SessionService/Sessions",
        "/redfish/v1/SessionService/Sessions/1/Accounts",
    ] {
        let fault = format!("session-location={hostile}");
        let mut server =
            Simulator::start_logged(&bmc("baseline"), &["--auth", "session", "--fault", &fault]);
        let captured = capture(&format!("redfish={}", server.url), &[], true);
        let received = server.received("DEBUG DELETE");
        // The session is deleted by its own URI (`Sessions/<Id>` of the login's body), and
        // nothing else is.
        let deleted = only_gets_and_its_own_session(&server, &received);
        assert_eq!(
            deleted, "/redfish/v1/SessionService/Sessions/1",
            "{hostile}"
        );
        assert_eq!(server.sessions(), 0, "{hostile}: the session is deleted");
        assert_eq!(
            (captured.code, captured.status()),
            (0, "complete"),
            "{hostile}: {}",
            captured.error()
        );
        // The log says what the BMC sent.
        assert!(
            captured.stderr.contains(&format!(
                "the login's Location header {hostile:?} names no session of /redfish/v1/SessionService/Sessions"
            )),
            "{hostile}: {}",
            captured.stderr
        );
    }
}
