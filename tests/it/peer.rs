//! The other end of each link from recordings: seed 1's Windows nodes with the remote DCB
//! settings of a healthy switch and of one that stopped advertising PFC, and a switchless
//! pair of Linux nodes whose ports are each other's LLDP neighbours (recorded with
//! `scripts/lldp-lab.sh`, tests/fixtures/lldp/README.md), where one node's DCBX reset is one
//! cluster finding naming both.

use std::path::Path;

use serde_json::Value;

use crate::common::{driftgate, root};

fn capture(host: &str, sources: &[String], out: &Path) {
    let mut cmd = driftgate();
    cmd.args(["capture", "--host", host, "--out"]).arg(out);
    for source in sources {
        cmd.args(["--source", source]);
    }
    let output = cmd.output().unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

fn check(args: &[&str]) -> (i32, String) {
    let output = driftgate()
        .args(["check", "--color", "never"])
        .args(args)
        .output()
        .unwrap();
    (
        output.status.code().unwrap(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
    )
}

#[test]
fn seed_1_with_a_healthy_switch_passes_and_with_a_switch_without_pfc_blocks() {
    let work = tempfile::tempdir().unwrap();
    let snapshot = |state: &str| {
        let out = work.path().join(format!("{state}.json"));
        let dir = root()
            .join("tests/fixtures/peer")
            .join(format!("seed1-switch-{state}"));
        capture(
            "azl-node01",
            &[format!("windows=dir:{}", dir.display())],
            &out,
        );
        out.display().to_string()
    };
    let (healthy, off) = (snapshot("healthy"), snapshot("pfc-off"));
    let (code, out) = check(&["--snapshot", &healthy]);
    assert_eq!(code, 0, "{out}");
    assert!(out.starts_with("PASS azl-node01"), "{out}");

    let (code, out) = check(&["--snapshot", &off]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.starts_with("BLOCK azl-node01: 2 blocking [peer-pfc-missing]"),
        "{out}"
    );
    assert!(
        out.contains("port \"SLOT 3 Port 1\" (00:0a:f7:12:34:56): the host runs PFC on priority 3, but the other end of the link advertises PFC on none"),
        "{out}"
    );
    let (code, out) = check(&["--snapshot", &off, "--baseline", &healthy]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("[peer-pfc]"), "{out}");
    assert!(
        out.contains("[3] → []: port \"SLOT 3 Port 2\" (00:0a:f7:12:34:57): the other end of the link advertises PFC on none (was 3)"),
        "{out}"
    );
}

/// A fleet run of the switchless pair: node-a healthy, node-b healthy or with its DCBX reset
/// (its PFC off, its NIC sending no DCBX any more, which node-a's agent sees).
fn pair(node_b_reset: bool) -> Value {
    let fixtures = root().join("tests/fixtures/lldp/pair");
    let dir = |name: &str| fixtures.join(name).display().to_string();
    let (b_linux, a_sees) = if node_b_reset {
        ("node-b-linux-reset", "node-a-sees-b-reset")
    } else {
        ("node-b-linux", "node-a-sees-b")
    };
    let work = tempfile::tempdir().unwrap();
    let inventory = work.path().join("inventory.toml");
    std::fs::write(
        &inventory,
        format!(
            r#"[defaults]
fleet = "switchless"

[[host]]
name = "node-a"
cluster = "pair"
sources = ["linux=dir:{}", "lldp=dir:{}"]

[[host]]
name = "node-b"
cluster = "pair"
sources = ["linux=dir:{}", "lldp=dir:{}"]
"#,
            dir("node-a-linux"),
            dir(a_sees),
            dir(b_linux),
            dir("node-b-sees-a"),
        ),
    )
    .unwrap();
    let repo = work.path().join("repo");
    git2::Repository::init(&repo).unwrap();
    let output = driftgate()
        .arg("--repo")
        .arg(&repo)
        .args([
            "check",
            "--all",
            "--bootstrap",
            "--format",
            "json",
            "--inventory",
        ])
        .arg(&inventory)
        .output()
        .unwrap();
    serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&output.stderr)))
}

fn cluster_findings(report: &Value) -> Vec<&Value> {
    report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"].as_str().unwrap().starts_with("cluster/"))
        .collect()
}

#[test]
fn one_nodes_dcbx_reset_in_a_switchless_pair_is_one_cluster_finding_naming_both() {
    let healthy = pair(false);
    assert!(cluster_findings(&healthy).is_empty(), "{healthy:#}");
    for host in healthy["hosts"].as_array().unwrap() {
        assert_eq!(host["report"]["verdict"], "pass", "{host:#}");
    }

    let reset = pair(true);
    let findings = cluster_findings(&reset);
    assert_eq!(findings.len(), 1, "{findings:#?}");
    let finding = findings[0];
    assert_eq!(finding["rule"], "cluster/link-pfc");
    assert_eq!(finding["severity"], "block");
    assert_eq!(finding["hosts"], serde_json::json!(["node-a", "node-b"]));
    let message = finding["message"].as_str().unwrap();
    for said in [
        "the link node-a \"eth1\" (02:00:00:00:42:0a) ↔ node-b \"eth1\" (02:00:00:00:42:0b)",
        "node-a runs PFC on 3; node-b runs PFC on none",
        "node-a sees node-b send no DCBX TLV",
        "node-b sees node-a advertise PFC on 3",
    ] {
        assert!(message.contains(said), "{said:?} not in {message}");
    }
    assert_eq!(reset["verdict"], "block");
    for host in reset["hosts"].as_array().unwrap() {
        let (name, verdict) = (host["host"].as_str().unwrap(), &host["verdict"]);
        assert_eq!(
            verdict, "block",
            "{name}: the cluster finding names it: {host:#}"
        );
    }
}

#[test]
fn a_fabric_that_must_advertise_dcb_blocks_a_peer_without_dcbx_by_policy() {
    let work = tempfile::tempdir().unwrap();
    let fixtures = root().join("tests/fixtures/lldp/pair");
    let snapshot = work.path().join("node-a.json");
    capture(
        "node-a",
        &[
            format!("linux=dir:{}", fixtures.join("node-a-linux").display()),
            format!(
                "lldp=dir:{}",
                fixtures.join("node-a-sees-b-reset").display()
            ),
        ],
        &snapshot,
    );
    let snapshot = snapshot.display().to_string();
    let (code, out) = check(&["--snapshot", &snapshot]);
    assert_eq!(code, 0, "a warning by default: {out}");
    assert!(out.starts_with("WARN node-a: 1 warning"), "{out}");
    assert!(
        out.contains("the peer port eth1 of node-b sends no DCBX TLV"),
        "{out}"
    );
    let policy = work.path().join("driftgate.toml");
    std::fs::write(&policy, "[invariants]\npeer-no-dcbx = \"block\"\n").unwrap();
    let (code, out) = check(&[
        "--snapshot",
        &snapshot,
        "--policy",
        &policy.display().to_string(),
    ]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.starts_with("BLOCK node-a: 1 blocking [peer-no-dcbx]"),
        "{out}"
    );
}
