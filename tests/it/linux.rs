//! The Linux source end to end: recordings reproduce the Mellanox example, the firmware LLDP
//! agent that a firmware update re-enabled blocks, and the tools run over the real ssh
//! transport against a test sshd whose `ip`, `dcb`, `ethtool`, `devlink`, `mlnx_qos` and
//! `mlxconfig` are stand-ins printing the recordings.

use crate::common;
use crate::common::sshd;

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use common::{copy_dir, driftgate, root, stdout_of};
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
                "{file}: {key} differs; regenerate it with driftgate capture (docs/sources.md)"
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

/// Captures a copy of the post-update recordings after `edit` changed it: (exit code, the
/// linux source's status, its error).
fn capture_edited(edit: impl FnOnce(&Path)) -> (i32, String, String) {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(
        &root().join(EXAMPLE).join("recorded/post-update"),
        dir.path(),
    );
    edit(dir.path());
    let (code, snapshot) = capture(&["--source", &format!("linux=dir:{}", dir.path().display())]);
    let source = &snapshot["sources"][0];
    (
        code,
        source["status"].as_str().unwrap().to_owned(),
        source["error"].as_str().unwrap_or("").to_owned(),
    )
}

/// Rewrites one recording.
fn rewrite(dir: &Path, file: &str, change: impl FnOnce(String) -> String) {
    let path = dir.join(file);
    let text = std::fs::read_to_string(&path).unwrap();
    let changed = change(text.clone());
    assert_ne!(changed, text, "{file}: the edit changed nothing");
    std::fs::write(path, changed).unwrap();
}

/// Keeps the lines of `text` before the first one containing `marker`.
fn before(text: &str, marker: &str) -> String {
    let at = text.find(marker).unwrap();
    text[..text[..at].rfind('\n').map_or(0, |n| n + 1)].to_owned()
}

/// Each broken recording makes the capture partial (exit 3), and the error names the command
/// or file, the line, and what was expected. Every case was captured as complete before.
#[test]
fn broken_recordings_make_the_source_partial_naming_command_line_and_expectation() {
    type Edit = Box<dyn FnOnce(&Path)>;
    let cases: Vec<(&str, Edit, &[&str])> = vec![
        (
            "ethtool -i without its bus-info line (dropped every mlxconfig fact of the port)",
            Box::new(|d| {
                rewrite(d, "ethtool-driver-ens1f1np1.txt", |t| {
                    t.replace("bus-info: 0000:3b:00.1\n", "")
                })
            }),
            &[
                "`ethtool -i ens1f1np1`",
                "ethtool-driver-ens1f1np1.txt",
                "no `bus-info:` line before the end of the output",
            ],
        ),
        (
            "ethtool -i cut after bus-info",
            Box::new(|d| {
                rewrite(d, "ethtool-driver-ens1f0np0.txt", |t| {
                    before(&t, "supports-statistics")
                })
            }),
            &["`ethtool -i ens1f0np0`", "no `supports-statistics:` line"],
        ),
        (
            "mlnx_qos cut before its last traffic class",
            Box::new(|d| rewrite(d, "mlnx_qos-ens1f0np0.txt", |t| before(&t, "tc: 3"))),
            &[
                "`mlnx_qos -i ens1f0np0`",
                "mlnx_qos-ens1f0np0.txt",
                "priorities [3] are under no `tc:` line",
            ],
        ),
        (
            "mlnx_qos with a trust state it never prints",
            Box::new(|d| {
                rewrite(d, "mlnx_qos-ens1f0np0.txt", |t| {
                    t.replace("state: pcp", "state: pcq")
                })
            }),
            &[
                "mlnx_qos-ens1f0np0.txt",
                "line 2",
                "unknown trust state \"pcq\"",
            ],
        ),
        (
            "mlnx_qos answered for one port only",
            Box::new(|d| std::fs::remove_file(d.join("mlnx_qos-ens1f1np1.txt")).unwrap()),
            &["`mlnx_qos -i ens1f1np1` gave no answer, though `mlnx_qos -i ens1f0np0` did"],
        ),
        (
            "mlxconfig -e cut before its closing legend",
            Box::new(|d| {
                rewrite(d, "mlxconfig-0000:3b:00.1.txt", |t| {
                    before(&t, "DCBX_IEEE_P1")
                })
            }),
            &[
                "`mlxconfig -d 0000:3b:00.1 -e query`",
                "mlxconfig-0000:3b:00.1.txt",
                "no closing",
                "line before the end of the output",
            ],
        ),
        (
            "mlxconfig with a damaged boolean",
            Box::new(|d| {
                rewrite(d, "mlxconfig-0000:3b:00.0.txt", |t| {
                    t.replacen(
                        "True(1)             True(1)             True(1)",
                        "True(1)             Trum(1)             True(1)",
                        1,
                    )
                })
            }),
            &[
                "mlxconfig-0000:3b:00.0.txt",
                "line 12",
                "LLDP_NB_DCBX_P1: expected one of",
            ],
        ),
        (
            "mlxconfig of another device",
            Box::new(|d| {
                rewrite(d, "mlxconfig-0000:3b:00.1.txt", |t| {
                    t.replace(
                        "Device:             0000:3b:00.1",
                        "Device:             0000:3b:00.0",
                    )
                })
            }),
            &[
                "mlxconfig-0000:3b:00.1.txt",
                "`Device:` is Some(\"0000:3b:00.0\"), expected \"0000:3b:00.1\"",
            ],
        ),
        (
            "dcb dcbx with a damaged bit name",
            Box::new(|d| {
                rewrite(d, "dcb-dcbx-ens1f0np0.json", |t| {
                    t.replace("lld_managed", "lld_manage")
                })
            }),
            &[
                "`dcb -j dcbx show dev ens1f0np0`",
                "dcb-dcbx-ens1f0np0.json",
                "line 1",
                "unknown field `lld_manage`",
            ],
        ),
        (
            "dcb ets with an algorithm dcb never prints",
            Box::new(|d| {
                rewrite(d, "dcb-ets-ens1f0np0.json", |t| {
                    t.replacen("\"ets\"", "\"etz\"", 1)
                })
            }),
            &[
                "dcb-ets-ens1f0np0.json",
                "line 1",
                "unknown algorithm \"etz\"",
            ],
        ),
        (
            "dcb ets without the tables",
            Box::new(|d| {
                std::fs::write(
                    d.join("dcb-ets-ens1f0np0.json"),
                    "{\"prio_tc\":[0,0,0,3,0,0,0,0]}\n",
                )
                .unwrap()
            }),
            &[
                "dcb-ets-ens1f0np0.json",
                "expected `willing`, `tc_bw`, `tc_tsa` and `prio_tc`",
            ],
        ),
        (
            "ethtool pause JSON cut short",
            Box::new(|d| rewrite(d, "ethtool-pause-ens1f0np0.json", |t| before(&t, "\"tx\""))),
            &[
                "`ethtool --json -a ens1f0np0`",
                "ethtool-pause-ens1f0np0.json",
                "line 5",
                "EOF",
            ],
        ),
        (
            "devlink missing one port of its driver",
            Box::new(|d| {
                rewrite(d, "devlink-info.json", |t| {
                    let start = t.find(",\n        \"pci/0000:3b:00.1\"").unwrap();
                    let end = t.rfind("\n    }\n}").unwrap();
                    format!("{}{}", &t[..start], &t[end..])
                })
            }),
            &[
                "`devlink -j dev info`",
                "no device for 0000:3b:00.1 (ens1f1np1)",
            ],
        ),
        (
            "ethtool -i with a damaged driver name (skipped mlxconfig)",
            Box::new(|d| {
                rewrite(d, "ethtool-driver-ens1f1np1.txt", |t| {
                    t.replace("driver: mlx5_core", "driver: m_x5_core")
                })
            }),
            &[
                "`devlink -j dev info`",
                "0000:3b:00.1 is driven by \"mlx5_core\", though `ethtool -i ens1f1np1` says \"m_x5_core\"",
            ],
        ),
        (
            "mlxconfig with a damaged parameter name (dropped a firmware LLDP fact)",
            Box::new(|d| {
                rewrite(d, "mlxconfig-0000:3b:00.1.txt", |t| {
                    t.replace(
                        "        DCBX_WILLING_P2        ",
                        "        DCBX_W                ",
                    )
                })
            }),
            &["mlxconfig-0000:3b:00.1.txt", "no DCBX_WILLING_P2 row"],
        ),
        (
            "ip link with a damaged MAC (keyed the port by name)",
            Box::new(|d| {
                rewrite(d, "ip-link.json", |t| {
                    t.replace(
                        "\"address\": \"0c:42:a1:5e:77:11\"",
                        "\"address\": \"0c:42:a1:5e:7:11\"",
                    )
                })
            }),
            &[
                "`ip -j -d link show`",
                "ip-link.json",
                "ens1f1np1: address \"0c:42:a1:5e:7:11\" is not a MAC address",
            ],
        ),
    ];
    // Every case is tried, and all that fail are listed.
    let mut failures = Vec::new();
    for (what, edit, fragments) in cases {
        let (code, status, error) = capture_edited(edit);
        if (code, status.as_str()) != (3, "partial") {
            failures.push(format!("{what}: exit {code}, {status}: {error}"));
            continue;
        }
        for fragment in fragments {
            if !error.contains(fragment) {
                failures.push(format!("{what}: {fragment:?} not in {error}"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Real outputs of ports that lack a capability are facts, not errors: dcb "Operation not
/// supported" and ethtool's pause "Operation not supported" (JSON form: `[  ]` and the
/// message on stderr), on one port each.
#[test]
fn outputs_that_lack_a_capability_stay_complete() {
    let (code, status, error) = capture_edited(|d| {
        std::fs::write(d.join("dcb-ets-ens1f1np1.json"), "").unwrap();
        std::fs::copy(
            root().join("tests/fixtures/linux/dcb-unsupported.stderr"),
            d.join("dcb-ets-ens1f1np1.json.stderr"),
        )
        .unwrap();
        std::fs::write(d.join("dcb-ets-ens1f1np1.json.exit"), "1\n").unwrap();
        std::fs::write(d.join("ethtool-pause-ens1f0np0.json"), "[  ]\n").unwrap();
        std::fs::copy(
            root().join("tests/fixtures/linux/ethtool-pause-unsupported-netlink.txt"),
            d.join("ethtool-pause-ens1f0np0.json.stderr"),
        )
        .unwrap();
        std::fs::write(d.join("ethtool-pause-ens1f0np0.json.exit"), "75\n").unwrap();
    });
    assert_eq!((code, status.as_str()), (0, "complete"), "{error}");
    // The same with exit status 0: the message on stderr is what tells.
    let (code, status, error) = capture_edited(|d| {
        std::fs::write(d.join("ethtool-pause-ens1f1np1.json"), "[  ]\n").unwrap();
        std::fs::copy(
            root().join("tests/fixtures/linux/ethtool-pause-unsupported-netlink.txt"),
            d.join("ethtool-pause-ens1f1np1.json.stderr"),
        )
        .unwrap();
    });
    assert_eq!((code, status.as_str()), (0, "complete"), "{error}");
}

/// An onboard Intel management port beside the ConnectX ports: `ethtool -i` names `ixgbe`,
/// it has its `dcb`, `ethtool` answers and no `mlnx_qos`/`mlxconfig` recording (those tools
/// know only Mellanox ports, so the capture does not ask them about it). The source stays
/// complete.
#[test]
fn an_intel_port_beside_mellanox_ports_needs_no_mlnx_qos_answer() {
    let (code, status, error) = capture_edited(|d| {
        rewrite(d, "ip-link.json", |text| {
            let mut links: Value = serde_json::from_str(&text).unwrap();
            links.as_array_mut().unwrap().insert(
                1,
                serde_json::json!({
                    "ifindex": 2,
                    "ifname": "eno1",
                    "flags": ["BROADCAST", "MULTICAST", "UP", "LOWER_UP"],
                    "mtu": 1500,
                    "qdisc": "mq",
                    "operstate": "UP",
                    "link_type": "ether",
                    "address": "3c:ec:ef:12:34:56",
                    "broadcast": "ff:ff:ff:ff:ff:ff",
                    "parentbus": "pci",
                    "parentdev": "0000:19:00.0"
                }),
            );
            serde_json::to_string_pretty(&links).unwrap() + "\n"
        });
        std::fs::write(
            d.join("ethtool-driver-eno1.txt"),
            "driver: ixgbe\nversion: 6.8.0-45-generic\nfirmware-version: 0x800003e2, 1.2074.0\n\
             expansion-rom-version: \nbus-info: 0000:19:00.0\nsupports-statistics: yes\n\
             supports-test: yes\nsupports-eeprom-access: yes\nsupports-register-dump: yes\n\
             supports-priv-flags: yes\n",
        )
        .unwrap();
        for (file, fixture) in [
            ("dcb-ets-eno1.json", "dcb-ets.json"),
            ("dcb-pfc-eno1.json", "dcb-pfc.json"),
            ("dcb-dcbx-eno1.json", "dcb-dcbx-host.json"),
        ] {
            std::fs::copy(
                root().join("tests/fixtures/linux").join(fixture),
                d.join(file),
            )
            .unwrap();
        }
        std::fs::write(
            d.join("ethtool-pause-eno1.json"),
            "[ {\n        \"ifname\": \"eno1\",\n        \"autonegotiate\": false,\n        \
             \"rx\": true,\n        \"tx\": true\n    } ]\n",
        )
        .unwrap();
    });
    assert_eq!((code, status.as_str()), (0, "complete"), "{error}");
}
