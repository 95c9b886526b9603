//! Ansible inventories with `group_vars/` and `host_vars/` beside them resolve in driftgate as
//! in Ansible: each host's driftgate settings (`inventory list --format json`) are compared
//! with what `ansible-inventory --list` and `--host` of ansible-core resolve for it, run for
//! real. Broken vars files are refused naming the file and line, as Ansible refuses them.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::common;
use common::ansible::{ansible_inventory, groups_of_hosts};
use common::driftgate;

/// Runs driftgate and returns (exit code, stdout, stderr).
fn run(args: &[&str]) -> (i32, String, String) {
    let output = driftgate().args(args).output().unwrap();
    (
        output.status.code().unwrap(),
        String::from_utf8(output.stdout).unwrap(),
        String::from_utf8(output.stderr).unwrap(),
    )
}

/// `inventory list --format json` of `inventory`, by host name, without each host's line.
fn driftgate_hosts(inventory: &Path) -> Vec<Value> {
    let file = inventory.to_str().unwrap();
    let (code, stdout, stderr) =
        run(&["inventory", "list", "--inventory", file, "--format", "json"]);
    assert_eq!(code, 0, "{}: {stderr}", inventory.display());
    let mut hosts: Vec<Value> = serde_json::from_str(&stdout).unwrap();
    for host in &mut hosts {
        host.as_object_mut().unwrap().remove("line");
    }
    hosts.sort_by_key(|h| h["name"].as_str().unwrap().to_owned());
    hosts
}

/// What driftgate must list for a host that Ansible resolves to variables `vars`, in
/// `groups`, with `base` the inventory's folder: docs/inventory.md's table of variables.
fn expected_host(name: &str, vars: &Value, groups: &[String], base: &Path) -> Value {
    let text = |key: &str| vars.get(key).map(|v| v.as_str().unwrap().to_owned());
    let path = |key: &str| text(key).map(|p| base.join(p).display().to_string());
    let mut tags: Vec<String> = groups.to_vec();
    if let Some(extra) = vars.get("driftgate_tags") {
        tags.extend(
            extra
                .as_array()
                .unwrap()
                .iter()
                .map(|t| t.as_str().unwrap().to_owned()),
        );
    }
    tags.sort();
    tags.dedup();
    let mut sources = Vec::new();
    if let Some(bmc) = text("driftgate_bmc") {
        let bmc = if bmc.contains("://") {
            bmc
        } else {
            format!("https://{bmc}")
        };
        sources.push(format!("redfish={bmc}"));
    }
    if let Some(os) = text("driftgate_os") {
        let user = text("ansible_user")
            .map(|u| format!("{u}@"))
            .unwrap_or_default();
        let host = text("ansible_host").unwrap_or_else(|| name.to_owned());
        let port = vars
            .get("ansible_port")
            .map(|p| format!(":{p}"))
            .unwrap_or_default();
        sources.push(format!("{os}=ssh://{user}{host}{port}"));
    }
    assert!(vars.get("driftgate_sources").is_none(), "not compared here");
    let credentials = match (
        vars.get("driftgate_credentials"),
        path("driftgate_credentials_file"),
    ) {
        (Some(_), Some(_)) => panic!("{name}: the comparison reads one credentials variable"),
        (Some(env), None) => env.clone(),
        (None, Some(file)) => json!({ "file": file }),
        (None, None) => Value::Null,
    };
    let timeouts = vars.get("driftgate_timeouts").cloned().unwrap_or(json!({}));
    json!({
        "name": name,
        "fleet": text("driftgate_fleet"),
        "cluster": text("driftgate_cluster"),
        "tags": tags,
        "sources": sources,
        "credentials": credentials,
        "ca_file": path("driftgate_ca_file"),
        "timeouts": {
            "bmc_seconds": timeouts.get("bmc_seconds"),
            "host_seconds": timeouts.get("host_seconds"),
            "command_seconds": timeouts.get("command_seconds"),
        },
    })
}

/// Ansible's resolution of `inventory` as driftgate must list it: `--list` for each host's
/// groups and variables; `--host` for each host agrees with it.
fn ansible_hosts(inventory: &Path) -> Vec<Value> {
    let list = ansible_inventory(inventory, &["--list"]);
    let base = inventory.parent().unwrap();
    let mut hosts = Vec::new();
    for (name, groups) in groups_of_hosts(&list) {
        let vars = &list["_meta"]["hostvars"][&name];
        let one = ansible_inventory(inventory, &["--host", &name]);
        assert_eq!(&one, vars, "{name}: --host and --list disagree");
        let groups: Vec<String> = groups.into_iter().collect();
        hosts.push(expected_host(&name, vars, &groups, base));
    }
    hosts
}

fn fixture(name: &str) -> PathBuf {
    common::inventory::fixture_path(&format!("ansible-vars/{name}"))
}

/// The fixture sets its variables at every level Ansible reads (`hosts.yml` says which wins
/// where): both forms of the inventory resolve as Ansible resolves them.
#[test]
fn group_vars_and_host_vars_resolve_as_ansible_inventory_resolves_them() {
    for name in ["hosts.yml", "hosts.ini"] {
        let inventory = fixture(name);
        let driftgate = driftgate_hosts(&inventory);
        let ansible = ansible_hosts(&inventory);
        assert_eq!(driftgate.len(), 5, "{name}");
        assert_eq!(
            driftgate,
            ansible,
            "{name}: driftgate:\n{}\nAnsible:\n{}",
            serde_json::to_string_pretty(&driftgate).unwrap(),
            serde_json::to_string_pretty(&ansible).unwrap()
        );
    }
    // What the comparison shows, spelled out: a value from each kind of place won somewhere.
    let hosts = driftgate_hosts(&fixture("hosts.yml"));
    let host = |name: &str| hosts.iter().find(|h| h["name"] == name).unwrap().clone();
    // group_vars/ungrouped.yml, over all's variables in the inventory and group_vars/all.yml.
    assert_eq!(host("loose01")["fleet"], "loose");
    // group_vars/all.yml over the linux group's variables in the inventory file.
    assert_eq!(host("lnx01")["timeouts"]["bmc_seconds"], 10);
    // group_vars/azure/ (a folder): 20-override.json replaces 10-base.yml's timeouts whole;
    // host_vars/node01.yml wins over both.
    assert_eq!(host("node02")["timeouts"]["bmc_seconds"], 45);
    assert_eq!(host("node02")["timeouts"]["host_seconds"], Value::Null);
    assert_eq!(host("node01")["timeouts"]["bmc_seconds"], 60);
    // host_vars/node02/ (a folder): b.json after a.yml.
    assert_eq!(host("node02")["fleet"], "azure-canary");
    // A host variable in the inventory over group_vars/cluster_a.
    assert_eq!(host("node02")["cluster"], "from-inventory-node02");
    // `ansible_group_priority: 10` reads azure's files after canary's and rack12's.
    assert!(
        host("node01")["ca_file"]
            .as_str()
            .unwrap()
            .ends_with("/azure-sub-ca.pem")
    );
    // canary and rack12 at one depth: by name, rack12 last.
    assert!(
        host("node01")["tags"]
            .as_array()
            .unwrap()
            .contains(&json!("rack12-extra"))
    );
    // host_vars/lnx01 (no extension) gives the port of the ssh source.
    assert_eq!(
        host("lnx01")["sources"][1],
        "linux=ssh://driftgate@10.0.2.21:2222"
    );
}

/// `-v` tells where each variable of a host was set, for an operator who wonders which file
/// won; without it, nothing.
#[test]
fn verbose_says_which_file_set_each_variable() {
    let inventory = fixture("hosts.yml");
    let file = inventory.to_str().unwrap();
    let (code, _, stderr) = run(&["-v", "inventory", "list", "--inventory", file]);
    assert_eq!(code, 0, "{stderr}");
    let dir = inventory.parent().unwrap().display().to_string();
    for says in [
        format!("host node02: driftgate_fleet from {dir}/host_vars/node02/b.json:1"),
        format!("host node01: driftgate_timeouts from {dir}/host_vars/node01.yml:1"),
        format!("host node01: driftgate_ca_file from {dir}/group_vars/azure/sub/40-ca.yaml:2"),
        format!("host node02: driftgate_cluster from {dir}/hosts.yml:27"),
        format!("host node03: driftgate_credentials from {dir}/host_vars/node03.json:1"),
    ] {
        assert!(stderr.contains(&says), "{says:?} not in:\n{stderr}");
    }
    let (code, _, stderr) = run(&["inventory", "check", "--inventory", file]);
    assert_eq!(code, 0, "{stderr}");
    assert!(!stderr.contains(" from "), "{stderr}");
}

/// The operator: `inventory check` finds the fleet that only group_vars/ sets.
#[test]
fn inventory_check_reads_the_fleet_from_group_vars() {
    let dir = tempfile::tempdir().unwrap();
    let inventory = dir.path().join("hosts");
    std::fs::write(&inventory, "[lab]\nnode01 driftgate_bmc=bmc01\n").unwrap();
    std::fs::create_dir(dir.path().join("group_vars")).unwrap();
    std::fs::write(
        dir.path().join("group_vars/lab.yml"),
        "driftgate_fleet: lab\n",
    )
    .unwrap();
    let (code, stdout, stderr) = run(&[
        "inventory",
        "check",
        "--inventory",
        inventory.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(
        stdout.contains(": 1 host in 1 fleet, 0 clusters: no problems"),
        "{stdout}"
    );
    let vars = ansible_inventory(&inventory, &["--host", "node01"]);
    assert_eq!(vars["driftgate_fleet"], "lab");
}

/// A small inventory in a fresh folder: `hosts.yml` with node01 in group lab, and `files`
/// (path below the folder → text) beside it.
fn inventory_with(files: &[(&str, &str)]) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let inventory = dir.path().join("hosts.yml");
    std::fs::write(
        &inventory,
        "all:\n  children:\n    lab:\n      hosts:\n        node01:\n          driftgate_bmc: bmc01\n",
    )
    .unwrap();
    for (path, text) in files {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    (dir, inventory)
}

/// `inventory check` of `inventory`: exit 2, and stderr, which names `file:line`.
fn refused(inventory: &Path, file: &str, says: &str) -> String {
    let (code, stdout, stderr) = run(&[
        "inventory",
        "check",
        "--inventory",
        inventory.to_str().unwrap(),
    ]);
    assert_eq!(code, 2, "{stdout}{stderr}");
    let at = format!("{}{file}: ", inventory.parent().unwrap().display());
    assert!(
        stderr.contains(&at) && stderr.contains(says),
        "{at}…{says:?} not in:\n{stderr}"
    );
    stderr
}

#[test]
fn a_broken_vars_file_is_refused_naming_file_and_line_as_ansible_refuses_it() {
    for (path, text, at, says) in [
        (
            "group_vars/lab.yml",
            "driftgate_fleet: lab\ndriftgate_tags: [a,\n",
            "/group_vars/lab.yml:2",
            "not YAML",
        ),
        (
            "group_vars/lab/10-fleet.json",
            "{\"driftgate_fleet\": \"lab\" \"x\": 1}\n",
            "/group_vars/lab/10-fleet.json:1",
            "not YAML",
        ),
        (
            "host_vars/node01.yml",
            "- driftgate_fleet: lab\n",
            "/host_vars/node01.yml:1",
            "host `node01`: a vars file is a mapping of variables, not a list",
        ),
    ] {
        let (dir, inventory) = inventory_with(&[(path, text)]);
        refused(&inventory, at, says);
        let ansible = common::ansible::run(&inventory, &["--list"]);
        assert!(!ansible.status.success(), "{path}: Ansible took it");
        drop(dir);
    }
}

#[test]
fn a_secret_in_a_vars_file_is_refused_at_its_line_and_never_shown() {
    let (_dir, inventory) = inventory_with(&[(
        "group_vars/all.yml",
        "driftgate_fleet: lab\n# the account\ndriftgate_bmc_password: Hunter2\n",
    )]);
    let stderr = refused(
        &inventory,
        "/group_vars/all.yml:3",
        "group `all`: variable `driftgate_bmc_password`: never put a secret",
    );
    assert!(!stderr.contains("Hunter2"), "{stderr}");
}

/// Root reads a file whatever its mode: then a file no one can read, /proc/self/mem (the
/// reader's own memory, which fails at offset 0), stands in through a link.
fn make_unreadable(path: &Path) {
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::write(path, "driftgate_fleet: lab\n").unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o000)).unwrap();
    if std::fs::read(path).is_ok() {
        std::fs::remove_file(path).unwrap();
        std::os::unix::fs::symlink("/proc/self/mem", path).unwrap();
    }
}

#[test]
fn an_unreadable_vars_file_is_refused_never_skipped() {
    let (dir, inventory) = inventory_with(&[("group_vars/all.yml", "driftgate_fleet: lab\n")]);
    std::fs::create_dir(dir.path().join("host_vars")).unwrap();
    make_unreadable(&dir.path().join("host_vars/node01.yml"));
    refused(&inventory, "/host_vars/node01.yml", "cannot read:");
}

/// A vars file linked from outside the inventory's folder is read, as Ansible reads it (and
/// left as it was); a link to nothing is a file that is not there, so Ansible and driftgate
/// read the next name (`lab.yaml` after `lab.yml`).
#[test]
fn linked_vars_files_are_read_as_ansible_reads_them() {
    let outside = tempfile::tempdir().unwrap();
    let shared = outside.path().join("shared-all.yml");
    let text = "driftgate_fleet: shared\ndriftgate_cluster: c1\n";
    std::fs::write(&shared, text).unwrap();
    let (dir, inventory) = inventory_with(&[("group_vars/lab.yaml", "driftgate_cluster: c2\n")]);
    std::os::unix::fs::symlink(&shared, dir.path().join("group_vars/all.yml")).unwrap();
    std::os::unix::fs::symlink(
        outside.path().join("gone.yml"),
        dir.path().join("group_vars/lab.yml"),
    )
    .unwrap();
    let hosts = driftgate_hosts(&inventory);
    assert_eq!(hosts, ansible_hosts(&inventory));
    assert_eq!(hosts[0]["fleet"], "shared");
    assert_eq!(hosts[0]["cluster"], "c2");
    assert_eq!(std::fs::read_to_string(&shared).unwrap(), text);
}

/// A file encrypted whole with Ansible Vault holds secrets: skipped unread (Ansible would need
/// the vault password to read it; `ansible-inventory` is not asked here).
#[test]
fn a_vault_encrypted_vars_file_is_skipped_unread() {
    let vault = "$ANSIBLE_VAULT;1.1;AES256\n6231336362383934353436363739663431386261\n";
    let (_dir, inventory) = inventory_with(&[
        ("group_vars/lab/plain.yml", "driftgate_fleet: lab\n"),
        ("group_vars/lab/vault.yml", vault),
    ]);
    let hosts = driftgate_hosts(&inventory);
    assert_eq!(hosts[0]["fleet"], "lab");
}
