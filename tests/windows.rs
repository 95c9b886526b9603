//! The Windows source end to end: recorded collector output and BMC mockups reproduce the
//! seed-1 examples; pasted `Get-NetAdapterQos` text imports; the collector runs over the real
//! ssh transport against a test sshd whose `powershell` is a stand-in.

#![allow(clippy::unwrap_used)] // a test that cannot set up should panic where it stands

mod common;
#[path = "common/sshd.rs"]
mod sshd;

use std::os::unix::fs::PermissionsExt;

use common::{driftgate, root, stdout_of};
use predicates::prelude::*;
use serde_json::Value;
use sshd::Sshd;

const RECORDED: &str = "examples/azure-local-dcbx/recorded";

fn capture(args: &[&str]) -> (i32, Value) {
    let output = driftgate()
        .args(["capture", "--host", "azl-node01"])
        .args(args)
        .output()
        .unwrap();
    let snapshot = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&output.stderr)));
    (output.status.code().unwrap(), snapshot)
}

#[test]
fn recorded_outputs_reproduce_the_seed_1_examples() {
    for (state, file) in [
        ("baseline", "baseline.json"),
        ("baseline", "pre-update.json"),
        ("post-update", "post-update.json"),
    ] {
        let (code, captured) = capture(&[
            "--source",
            &format!("redfish=mockup:{RECORDED}/{state}/bmc"),
            "--source",
            &format!("windows=dir:{RECORDED}/{state}/windows"),
        ]);
        assert_eq!(code, 0);
        let checked_in: Value = serde_json::from_str(
            &std::fs::read_to_string(root().join("examples/azure-local-dcbx").join(file)).unwrap(),
        )
        .unwrap();
        for key in ["facts", "sources", "host", "schema"] {
            assert_eq!(
                captured[key], checked_in[key],
                "{file}: {key} differs; regenerate it with driftgate capture (README)"
            );
        }
    }
}

#[test]
fn bmc_and_os_views_of_a_port_join_by_mac() {
    let snapshot: Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("examples/azure-local-dcbx/post-update.json"))
            .unwrap(),
    )
    .unwrap();
    let facts = snapshot["facts"].as_object().unwrap();
    let port = "nic/00:0a:f7:12:34:56";
    assert_eq!(facts[&format!("{port}/bmc/dcbx_mode")], "disabled");
    assert_eq!(facts[&format!("{port}/os/dcbx_support/current")], "none");
    assert_eq!(facts[&format!("{port}/os/name")], "SLOT 3 Port 1");
    assert!(
        !facts.keys().any(|k| k.starts_with("nic/name-")),
        "every adapter joined by MAC"
    );
}

#[test]
fn the_seed_1_paste_alone_blocks_saying_the_adapter_ignores_the_os() {
    let dir = tempfile::tempdir().unwrap();
    let snapshot = dir.path().join("ticket.json");
    driftgate()
        .args([
            "import",
            "windows-qos",
            "tests/fixtures/windows/get-netadapterqos-seed1.txt",
            "--host",
            "azl-node01",
            "--out",
        ])
        .arg(&snapshot)
        .assert()
        .code(0)
        .stderr(predicate::str::contains(
            "has no MAC in the OS data: keyed by name",
        ));
    let (code, out) = stdout_of(driftgate().args(["check", "--snapshot"]).arg(&snapshot));
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("[pfc-not-operational]"), "{out}");
    assert!(
        out.contains("is not enforcing the OS PFC configuration (PFC on priority 3)"),
        "{out}"
    );
}

#[test]
fn imports_read_utf16_and_refuse_what_they_cannot_parse() {
    driftgate()
        .args([
            "import",
            "windows-qos",
            "tests/fixtures/windows/get-netadapterqos-healthy-crlf-utf16.txt",
            "--host",
            "azl-node01",
        ])
        .assert()
        .code(0)
        .stdout(predicate::str::contains(
            "\"nic/name-slot_3_port_1/os/flow_control/operational/priority/3\": true",
        ));
    driftgate()
        .args([
            "import",
            "windows-qos",
            "tests/fixtures/windows/get-netadapterqos-unparseable.txt",
            "--host",
            "azl-node01",
        ])
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicate::str::contains(
            "get-netadapterqos-unparseable.txt: not Get-NetAdapterQos output: line 10:",
        ));
    let dir = tempfile::tempdir().unwrap();
    let binary = dir.path().join("binary.txt");
    std::fs::write(&binary, [0xC3, 0x28, 0xA0, 0xA1]).unwrap();
    driftgate()
        .args(["import", "windows-qos"])
        .arg(&binary)
        .args(["--host", "x"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("cannot decode"));
}

#[test]
fn the_collector_runs_over_ssh() {
    // A stand-in `powershell` that prints the recorded collector output, whatever it is asked.
    let bin = tempfile::tempdir().unwrap();
    let recording = root()
        .join(RECORDED)
        .join("post-update/windows/windows-qos.json");
    let script = bin.path().join("powershell");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\ncase \"$*\" in *-EncodedCommand*) cat '{}' ;; *) exit 9 ;; esac\n",
            recording.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let server = Sshd::start(bin.path());
    let config = server.client_config.display().to_string();
    let (code, over_ssh) = capture(&[
        "--ssh-config",
        &config,
        "--source",
        "windows=ssh://testhost",
    ]);
    assert_eq!(code, 0, "{over_ssh}");
    let (_, from_dir) = capture(&[
        "--source",
        &format!("windows=dir:{RECORDED}/post-update/windows"),
    ]);
    assert_eq!(over_ssh["facts"], from_dir["facts"]);

    // A host without PowerShell: the source fails naming the command's error.
    let empty = tempfile::tempdir().unwrap();
    let server = Sshd::start(empty.path());
    let config = server.client_config.display().to_string();
    let (code, snapshot) = capture(&[
        "--ssh-config",
        &config,
        "--source",
        "windows=ssh://testhost",
    ]);
    assert_eq!(code, 3);
    let error = snapshot["sources"][0]["error"].as_str().unwrap();
    assert!(
        error.contains("exited with status 127") && error.contains("not found"),
        "{error}"
    );
}
