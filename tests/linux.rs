//! The Linux source end to end: recordings reproduce the Mellanox example, the firmware LLDP
//! agent that a firmware update re-enabled blocks, and the tools run over the real ssh
//! transport against a test sshd whose `ip`, `dcb`, `ethtool`, `devlink`, `mlnx_qos` and
//! `mlxconfig` are stand-ins printing the recordings.

#![allow(clippy::unwrap_used)] // a test that cannot set up should panic where it stands

mod common;
#[path = "common/sshd.rs"]
mod sshd;

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use common::{driftgate, root, stdout_of};
use serde_json::Value;
use sshd::Sshd;

const EXAMPLE: &str = "examples/linux-mellanox-lldp";

fn capture(args: &[&str]) -> (i32, Value) {
    let output = driftgate()
        .args(["capture", "--host", "rdma-node07"])
        .args(args)
        .output()
        .unwrap();
    let snapshot = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&output.stderr)));
    (output.status.code().unwrap(), snapshot)
}

#[test]
fn recorded_outputs_reproduce_the_mellanox_example() {
    for (state, file) in [
        ("baseline", "baseline.json"),
        ("post-update", "post-update.json"),
    ] {
        let (code, captured) =
            capture(&["--source", &format!("linux=dir:{EXAMPLE}/recorded/{state}")]);
        assert_eq!(code, 0);
        let checked_in: Value = serde_json::from_str(
            &std::fs::read_to_string(root().join(EXAMPLE).join(file)).unwrap(),
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
fn the_firmware_lldp_agent_coming_back_blocks() {
    let (code, out) = stdout_of(driftgate().args([
        "check",
        "--snapshot",
        &format!("{EXAMPLE}/post-update.json"),
        "--baseline",
        &format!("{EXAMPLE}/baseline.json"),
    ]));
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("[firmware-lldp-agent-active]") && out.contains("LLDP DCBX agent is enabled"),
        "{out}"
    );
    assert!(
        out.contains("nic/0c:42:a1:5e:77:10/os/firmware/version changed from"),
        "firmware attribution: {out}"
    );
    let (code, out) = stdout_of(driftgate().args([
        "check",
        "--snapshot",
        &format!("{EXAMPLE}/post-update.json"),
    ]));
    assert_eq!(code, 1, "{out}");
    let (code, _) =
        stdout_of(driftgate().args(["check", "--snapshot", &format!("{EXAMPLE}/baseline.json")]));
    assert_eq!(code, 0);
}

/// One stand-in script, linked under every tool name, that prints the recording the `dir:`
/// naming scheme gives the command it was called as.
fn stand_in_tools(recordings: &Path) -> tempfile::TempDir {
    let bin = tempfile::tempdir().unwrap();
    let script = bin.path().join("standin");
    std::fs::write(
        &script,
        format!(
            r#"#!/bin/sh
dir='{}'
tool=$(basename "$0")
case "$tool $*" in
  "ip -j -d link show") f=ip-link.json ;;
  "dcb -j "*) f="dcb-$2-$5.json" ;;
  "ethtool --json -a "*) f="ethtool-pause-$3.json" ;;
  "ethtool -a "*) f="ethtool-pause-$2.txt" ;;
  "ethtool -i "*) f="ethtool-driver-$2.txt" ;;
  "devlink -j dev info") f=devlink-info.json ;;
  "mlnx_qos -i "*) f="mlnx_qos-$2.txt" ;;
  "mlxconfig -d "*) f="mlxconfig-$2.txt" ;;
  *) echo "stand-in: unexpected command: $tool $*" >&2; exit 2 ;;
esac
[ -f "$dir/$f" ] || {{ echo "$tool: no recording $f" >&2; exit 1; }}
cat "$dir/$f"
[ -f "$dir/$f.stderr" ] && cat "$dir/$f.stderr" >&2
exit "$(cat "$dir/$f.exit" 2>/dev/null || echo 0)"
"#,
            recordings.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    for tool in ["ip", "dcb", "ethtool", "devlink", "mlnx_qos", "mlxconfig"] {
        std::os::unix::fs::symlink(&script, bin.path().join(tool)).unwrap();
    }
    bin
}

#[test]
fn the_tools_run_over_ssh() {
    let recordings = root().join(EXAMPLE).join("recorded/post-update");
    let bin = stand_in_tools(&recordings);
    let server = Sshd::start(bin.path());
    let config = server.client_config.display().to_string();
    let (code, over_ssh) = capture(&["--ssh-config", &config, "--source", "linux=ssh://testhost"]);
    assert_eq!(code, 0, "{over_ssh}");
    let (_, from_dir) = capture(&["--source", &format!("linux=dir:{}", recordings.display())]);
    assert_eq!(over_ssh["facts"], from_dir["facts"]);
    assert_eq!(
        over_ssh["facts"]["nic/0c:42:a1:5e:77:11/os/firmware_lldp/dcbx"],
        true
    );
}
