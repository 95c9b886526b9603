//! End-to-end tests of `driftgate inventory check` and `inventory list`: planted errors are
//! each found at their line, a secret is refused without being echoed, selections resolve,
//! and the inventory is found in the baseline store by default.

use crate::common;

use std::path::Path;

use common::driftgate;
use common::inventory::{fixture, fixture_path};
use predicates::prelude::*;

/// Runs driftgate and returns (exit code, stdout, stderr).
fn run(args: &[&str]) -> (i32, String, String) {
    let output = driftgate().args(args).output().unwrap();
    (
        output.status.code().unwrap(),
        String::from_utf8(output.stdout).unwrap(),
        String::from_utf8(output.stderr).unwrap(),
    )
}

/// Every planted error of `planted.toml`: its line and a part of its message.
const PLANTED: &[(usize, &str)] = &[
    (2, "unknown key `owner` in the top level"),
    (5, "key `password`: never put a secret in the inventory"),
    (
        6,
        "`bmc_seconds` must be a positive whole number of seconds",
    ),
    (8, "[fleet.azure-locl] is used by no host"),
    (11, "[cluster.azl-cluster-b] is used by no host"),
    (13, "a [[host]] without `name`"),
    (18, "invalid host name \"azl/node02\""),
    (
        23,
        "host `azl-node03` is given more than once (lines 23, 36)",
    ),
    (25, "bad cluster name"),
    (26, "bad tag: \"rack/12\""),
    (27, "bad source: invalid location"),
    (
        27,
        "two `redfish` sources: a host has one source of each kind",
    ),
    (28, "`credentials` without `password_env`"),
    (
        29,
        "give either `credentials` or `credentials_file` at one level, not both",
    ),
    (31, "host `azl-node04` has no fleet"),
    (
        36,
        "host `azl-node03` is given more than once (lines 23, 36)",
    ),
    (39, "unknown key `snmp` in [[host]]"),
    (40, "key `community`: never put a secret in the inventory"),
];

#[test]
fn check_finds_every_planted_error_at_its_line() {
    let file = fixture("planted.toml");
    let (code, stdout, stderr) = run(&["inventory", "check", "--inventory", &file]);
    assert_eq!(code, 2, "{stderr}");
    assert_eq!(stdout, "");
    let problems: Vec<&str> = stderr
        .lines()
        .filter_map(|l| l.strip_prefix("driftgate: error: "))
        .collect();
    for (line, message) in PLANTED {
        let prefix = format!("{file}:{line}: ");
        assert!(
            problems
                .iter()
                .any(|p| p.starts_with(&prefix) && p.contains(message)),
            "no `{prefix}…{message}…` in:\n{stderr}"
        );
    }
    // Nothing else, and one closing line that counts them.
    assert_eq!(problems.len(), PLANTED.len() + 1, "{stderr}");
    assert_eq!(
        problems.last().copied(),
        Some(format!("inventory {file}: {} problems", PLANTED.len()).as_str())
    );
    // Problems come in line order.
    let lines: Vec<usize> = problems[..PLANTED.len()]
        .iter()
        .map(|p| {
            p[file.len() + 1..]
                .split(':')
                .next()
                .unwrap()
                .parse()
                .unwrap()
        })
        .collect();
    assert!(lines.is_sorted(), "{lines:?}");
    assert!(!stderr.contains("S3cret"), "a secret was echoed:\n{stderr}");
}

#[test]
fn check_passes_a_clean_inventory() {
    let file = fixture("clean.toml");
    driftgate()
        .args(["inventory", "check", "--inventory", &file])
        .assert()
        .code(0)
        .stdout(format!(
            "inventory {file}: 3 hosts in 2 fleets, 2 clusters: no problems\n"
        ))
        .stderr("");
}

#[test]
fn a_password_is_refused_naming_its_line_and_never_printed() {
    let (_dir, file) = common::temp_file(
        "inventory.toml",
        "[[host]]\nname = \"azl-node01\"\nfleet = \"azure-local\"\nsources = [\"redfish=https://bmc\"]\npassword = \"Hunter2-Never-Shown\"\n",
    );
    let file = file.display().to_string();
    let (code, stdout, stderr) = run(&["inventory", "check", "--inventory", &file]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains(&format!(
            "{file}:5: key `password`: never put a secret in the inventory: reference it with credentials = {{ username_env, password_env }} or credentials_file"
        )),
        "{stderr}"
    );
    for shown in [&stdout, &stderr] {
        assert!(!shown.contains("Hunter2"), "{shown}");
    }
    // Every command that reads the inventory refuses it the same way.
    let (code, stdout, stderr) = run(&["inventory", "list", "--inventory", &file]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains(&format!("{file}:5: key `password`")),
        "{stderr}"
    );
    assert!(!stderr.contains("Hunter2") && !stdout.contains("Hunter2"));
}

fn list(args: &[&str]) -> (i32, String, String) {
    let file = fixture("clean.toml");
    let mut all = vec!["inventory", "list", "--inventory", file.as_str()];
    all.extend_from_slice(args);
    run(&all)
}

fn listed_names(stdout: &str) -> Vec<String> {
    let hosts: Vec<serde_json::Value> = serde_json::from_str(stdout).unwrap();
    hosts
        .iter()
        .map(|h| h["name"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn list_resolves_each_filter() {
    for (args, names) in [
        (&[][..], &["azl-node01", "azl-node02", "esx01"][..]),
        (
            &["--fleet", "azure-local"][..],
            &["azl-node01", "azl-node02"][..],
        ),
        (&["--fleet", "vmware"][..], &["esx01"][..]),
        (
            &["--cluster", "azl-cluster-a"][..],
            &["azl-node01", "azl-node02"][..],
        ),
        (&["--tag", "canary"][..], &["azl-node02"][..]),
        (
            &["--tag", "rack12", "--cluster", "azl-cluster-a"][..],
            &["azl-node01", "azl-node02"][..],
        ),
        (
            &["--fleet", "vmware", "--tag", "rack14"][..],
            &["esx01"][..],
        ),
    ] {
        let mut json = args.to_vec();
        json.extend(["--format", "json"]);
        let (code, stdout, stderr) = list(&json);
        assert_eq!(code, 0, "{args:?}: {stderr}");
        assert_eq!(listed_names(&stdout), names, "{args:?}");
        let (code, text, _) = list(args);
        assert_eq!(code, 0, "{args:?}");
        let blocks: Vec<&str> = text
            .lines()
            .filter(|l| !l.starts_with(' ') && !l.is_empty())
            .collect();
        assert_eq!(blocks, names, "{args:?}:\n{text}");
    }
}

#[test]
fn list_shows_resolved_settings_and_credential_references_only() {
    let (code, stdout, stderr) = list(&["--format", "json"]);
    assert_eq!(code, 0, "{stderr}");
    let hosts: Vec<serde_json::Value> = serde_json::from_str(&stdout).unwrap();
    let node01 = &hosts[0];
    assert_eq!(node01["fleet"], "azure-local");
    assert_eq!(node01["cluster"], "azl-cluster-a");
    assert_eq!(node01["tags"], serde_json::json!(["rack12"]));
    assert_eq!(node01["line"], 15);
    assert_eq!(
        node01["credentials"],
        serde_json::json!({"username_env": "DRIFTGATE_BMC_USERNAME", "password_env": "DRIFTGATE_BMC_PASSWORD"})
    );
    // Cluster over defaults, field by field.
    assert_eq!(
        node01["timeouts"],
        serde_json::json!({"bmc_seconds": 30, "host_seconds": 300, "command_seconds": 60})
    );
    // Relative mockup: and dir: folders resolve against the inventory's folder: they exist.
    let sources = node01["sources"].as_array().unwrap();
    assert_eq!(sources.len(), 2);
    for (source, kind) in sources.iter().zip(["redfish=mockup:", "windows=dir:"]) {
        let location = source.as_str().unwrap().strip_prefix(kind).unwrap();
        assert!(
            location.starts_with("tests/fixtures/inventory/"),
            "{location}"
        );
        assert!(common::root().join(location).is_dir(), "{location}");
    }
    let node02 = &hosts[1];
    assert_eq!(node02["ca_file"], "tests/fixtures/inventory/node02-ca.pem");
    let esx = &hosts[2];
    assert_eq!(
        esx["credentials"],
        serde_json::json!({"file": "tests/fixtures/inventory/esx-bmc.toml"})
    );
    assert_eq!(esx["ca_file"], "/etc/driftgate/vmware-ca.pem");
    assert_eq!(esx["timeouts"]["command_seconds"], 120);
    assert_eq!(esx["sources"][1], "redfish=https://bmc-esx01.example.com");

    let (code, text, _) = list(&["--fleet", "vmware"]);
    assert_eq!(code, 0);
    for expected in [
        "esx01\n",
        "  fleet:       vmware\n",
        "  cluster:     esx-cluster\n",
        "  tags:        rack14\n",
        "  sources:     esxi=dir:tests/fixtures/inventory/../../../examples/esxi-mscs-psp/recorded/round-robin\n",
        "               redfish=https://bmc-esx01.example.com\n",
        "  credentials: file tests/fixtures/inventory/esx-bmc.toml\n",
        "  ca_file:     /etc/driftgate/vmware-ca.pem\n",
        "  timeouts:    bmc 60s, host 300s, command 120s\n",
    ] {
        assert!(text.contains(expected), "no {expected:?} in:\n{text}");
    }
}

#[test]
fn an_empty_selection_says_which_filter_matched_nothing() {
    for (args, message) in [
        (
            &["--fleet", "azure-locl"][..],
            "--fleet azure-locl matches no host of tests/fixtures/inventory/clean.toml (fleets there: azure-local, vmware)",
        ),
        (
            &["--fleet", "azure-local", "--cluster", "nope"][..],
            "--cluster nope matches no host",
        ),
        (&["--tag", "rack99"][..], "--tag rack99 matches no host"),
        (
            &["--fleet", "vmware", "--tag", "canary"][..],
            "matches --fleet vmware --tag canary together",
        ),
    ] {
        let (code, stdout, stderr) = list(args);
        assert_eq!(code, 2, "{args:?}");
        assert_eq!(stdout, "", "{args:?}");
        assert!(stderr.contains(message), "{args:?}: {stderr}");
    }
}

#[test]
fn the_inventory_is_read_from_the_store_or_the_environment() {
    let store = tempfile::tempdir().unwrap();
    driftgate()
        .args(["baseline", "init"])
        .arg(store.path())
        .assert()
        .code(0);
    let expected = store.path().join("inventory.toml");
    driftgate()
        .arg("--repo")
        .arg(store.path())
        .args(["inventory", "check"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(format!(
            "no inventory: {} does not exist; create it, or give one with --inventory FILE or DRIFTGATE_INVENTORY",
            expected.display()
        )));
    std::fs::write(
        &expected,
        "[[host]]\nname = \"h\"\nfleet = \"f\"\nsources = [\"linux=dir:rec/h\"]\n",
    )
    .unwrap();
    driftgate()
        .arg("--repo")
        .arg(store.path())
        .args(["inventory", "list", "--format", "json"])
        .assert()
        .code(0)
        .stdout(predicate::str::contains(format!(
            "\"linux=dir:{}\"",
            store.path().join("rec/h").display()
        )));
    // From inside the store, without --repo.
    driftgate()
        .current_dir(store.path())
        .args(["inventory", "check"])
        .assert()
        .code(0)
        .stdout(predicate::str::contains(
            "1 host in 1 fleet, 0 clusters: no problems",
        ));
    // DRIFTGATE_INVENTORY wins over the store's file.
    driftgate()
        .arg("--repo")
        .arg(store.path())
        .env("DRIFTGATE_INVENTORY", fixture_path("planted.toml"))
        .args(["inventory", "check"])
        .assert()
        .code(2);
    // Outside any store, it says how to give one.
    let elsewhere = tempfile::tempdir().unwrap();
    driftgate()
        .current_dir(elsewhere.path())
        .args(["inventory", "list"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "no inventory: no baseline store to look in; give one with --inventory FILE or DRIFTGATE_INVENTORY",
        ));
    assert!(Path::new(&fixture_path("clean.toml")).is_file());
}

#[test]
fn help_of_each_inventory_command_shows_an_example() {
    for command in [
        &["inventory"][..],
        &["inventory", "check"],
        &["inventory", "list"],
        &["inventory", "pin"],
    ] {
        driftgate()
            .args(command)
            .arg("--help")
            .assert()
            .code(0)
            .stdout(predicate::str::contains("Examples:\n  driftgate inventory"));
    }
    driftgate()
        .arg("--help")
        .assert()
        .code(0)
        .stdout(predicate::str::contains(
            "List and validate the inventory, pin a BMC's certificate: check, list, pin",
        ));
}

/// `inventory list --format json` of `ansible/NAME`, without each host's line (the files
/// differ there).
fn listed_ansible(name: &str) -> Vec<serde_json::Value> {
    let file = fixture(&format!("ansible/{name}"));
    let (code, stdout, stderr) = run(&[
        "inventory",
        "list",
        "--inventory",
        &file,
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{name}: {stderr}");
    let mut hosts: Vec<serde_json::Value> = serde_json::from_str(&stdout).unwrap();
    for host in &mut hosts {
        host.as_object_mut().unwrap().remove("line");
    }
    hosts
}

#[test]
fn an_ansible_inventory_lists_as_its_equivalent_toml() {
    let expected = listed_ansible("equivalent.toml");
    assert_eq!(expected.len(), 5);
    assert_eq!(listed_ansible("hosts.yml"), expected);
    assert_eq!(listed_ansible("hosts.ini"), expected);
    let file = fixture("ansible/hosts.yml");
    let (code, stdout, stderr) = run(&["inventory", "check", "--inventory", &file]);
    assert_eq!(code, 0, "{stdout}{stderr}");
}

#[test]
fn a_broken_ansible_inventory_names_file_line_and_host() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("hosts");
    std::fs::write(
        &file,
        "[lab]\nnode01 driftgate_bmc=bmc01 driftgate_bmc_password=Hunter2\n",
    )
    .unwrap();
    let (code, stdout, stderr) =
        run(&["inventory", "check", "--inventory", file.to_str().unwrap()]);
    assert_ne!(code, 0);
    let line2 = format!("{}:2: host `node01`", file.display());
    assert!(stderr.contains(&line2), "{stderr}");
    assert!(stderr.contains("has no fleet"), "{stderr}");
    assert!(!stderr.contains("Hunter2") && !stdout.contains("Hunter2"));
}

/// A host name of 244 to 253 bytes is spelled as a host name may be, but `<host>.result.json`
/// of a gate step would pass the file system's 255 bytes: `inventory check` refuses it at its
/// line, naming the limit, as it does a fleet or a cluster longer than one file name; 243
/// bytes pass. The same limits hold in an Ansible inventory.
#[test]
fn names_too_long_for_the_file_names_built_from_them_are_refused_naming_the_limit() {
    let name = |len: usize| format!("azl-{}", "n".repeat(len - 4));
    let check = |text: &str, file: &str| {
        let (dir, path) = common::temp_file(file, text);
        let result = run(&["inventory", "check", "--inventory", path.to_str().unwrap()]);
        drop(dir);
        result
    };
    let toml = |host: &str, fleet: &str, cluster: &str| {
        format!(
            "[defaults]\nfleet = \"{fleet}\"\n\n[[host]]\nname = \"{host}\"\ncluster = \"{cluster}\"\nsources = [\"redfish=https://bmc01\"]\n"
        )
    };
    for len in [244, 250, 253] {
        let (code, stdout, stderr) = check(&toml(&name(len), "f", "c"), "inventory.toml");
        assert_eq!(code, 2, "{len}: {stdout}{stderr}");
        for says in [
            format!(
                ":5: host name \"azl-nnnnnnnnnnnnnnnnnnnn…nnnnnnnn\" is {len} bytes long, over the 243 bytes a host name may have"
            ),
            format!(
                "the file name <host>.result.json (a gate run's pre/<host>.result.json) would be {} bytes, over the file-name limit of 255 bytes (NAME_MAX)",
                len + 12
            ),
        ] {
            assert!(stderr.contains(&says), "{len}: {says:?} not in {stderr}");
        }
    }
    let (code, stdout, stderr) = check(&toml(&name(243), "f", "c"), "inventory.toml");
    assert_eq!(code, 0, "{stdout}{stderr}");
    let (code, _, stderr) = check(&toml("h1", &name(256), &name(256)), "inventory.toml");
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains(":2: bad fleet name: fleet name \"azl-")
            && stderr.contains("is 256 bytes long, over the 255 bytes a fleet name may have: the file name <fleet> (the baseline folder baselines/<fleet>/) would be 256 bytes"),
        "{stderr}"
    );
    assert!(
        stderr.contains(":6: bad cluster name: cluster name \"azl-"),
        "{stderr}"
    );
    let yaml = format!(
        "all:\n  vars:\n    driftgate_fleet: f\n  hosts:\n    {}:\n      driftgate_bmc: bmc01\n",
        name(250)
    );
    let (code, _, stderr) = check(&yaml, "hosts.yml");
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("is 250 bytes long, over the 243 bytes"),
        "{stderr}"
    );
}
