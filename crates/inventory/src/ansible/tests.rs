//! Tests of the Ansible inventory readers: the shipped YAML and INI fixtures resolve to the
//! same hosts as their `inventory.toml` equivalent, and each broken input is a problem that
//! names its file and host.

#![allow(clippy::unwrap_used, clippy::panic)] // a test that cannot set up should panic where it stands

use std::path::{Path, PathBuf};

use super::super::{Inventory, InventoryErrors};

fn fixture(name: &str) -> PathBuf {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .join("tests/fixtures/inventory/ansible")
        .join(name)
}

/// What a host resolves to, without its line (the three files differ there).
fn resolved(inventory: &Inventory) -> Vec<String> {
    inventory
        .hosts
        .iter()
        .map(|h| {
            let mut tags = h.tags.clone();
            tags.sort();
            format!(
                "{} fleet={} cluster={:?} tags={tags:?} sources={:?} credentials={:?} ca_file={:?} timeouts={:?}",
                h.name.as_str(),
                h.fleet,
                h.cluster,
                h.sources.iter().map(ToString::to_string).collect::<Vec<_>>(),
                h.credentials,
                h.ca_file,
                h.timeouts,
            )
        })
        .collect()
}

#[test]
fn yaml_and_ini_resolve_to_the_hosts_of_the_equivalent_toml() {
    let toml = Inventory::load(&fixture("equivalent.toml")).unwrap();
    let yaml = Inventory::load(&fixture("hosts.yml")).unwrap();
    let ini = Inventory::load(&fixture("hosts.ini")).unwrap();
    let expected = resolved(&toml);
    assert_eq!(expected.len(), 5);
    assert_eq!(resolved(&yaml), expected);
    assert_eq!(resolved(&ini), expected);
    // Nested group vars: the child's timeouts win over `all`'s; the group's credentials
    // file over `all`'s variables.
    let node = yaml.host("azl-node01").unwrap();
    assert_eq!(node.timeouts.bmc.unwrap().as_secs(), 30);
    assert!(matches!(
        yaml.host("esx01").unwrap().credentials,
        Some(super::super::CredentialsRef::File(_))
    ));
    assert_eq!(
        yaml.host("lnx01").unwrap().sources[1].to_string(),
        "linux=ssh://driftgate@10.0.2.21:2222"
    );
}

fn yaml_errors(text: &str) -> InventoryErrors {
    super::parse_yaml(text, Path::new("/inv/hosts.yml")).unwrap_err()
}

fn ini_errors(text: &str) -> InventoryErrors {
    super::parse_ini(text, Path::new("/inv/hosts")).unwrap_err()
}

/// Asserts one problem says `part` and names `host` and the file, at `line`.
fn assert_problem(errors: &InventoryErrors, file: &str, line: usize, host: &str, part: &str) {
    let found = errors.problems.iter().any(|p| {
        p.file == file && p.line == line && p.message.contains(host) && p.message.contains(part)
    });
    assert!(found, "no {file}:{line} `{host}` … {part:?} in:\n{errors}");
}

#[test]
fn bad_yaml_names_the_file_and_line() {
    let errors = yaml_errors("all:\n  hosts:\n    a: [\n");
    assert!(
        errors.problems[0].message.starts_with("not YAML"),
        "{errors}"
    );
    assert_eq!(errors.problems[0].file, "/inv/hosts.yml");
    assert!(errors.problems[0].line > 0);
}

#[test]
fn yaml_that_ends_inside_a_value_is_told_at_the_end_of_the_file_on_its_last_line() {
    // The YAML parser places this error on the line after the last, which no editor shows.
    let errors = yaml_errors("all:\n  hosts:\n    a: [\n");
    let problem = &errors.problems[0];
    assert_eq!(problem.line, 3, "{errors}");
    assert!(
        problem.message.ends_with("(at the end of the file)"),
        "{errors}"
    );
    assert!(
        errors.to_string().starts_with("/inv/hosts.yml:3: not YAML"),
        "{errors}"
    );
}

#[test]
fn each_broken_yaml_host_is_a_problem_naming_file_and_host() {
    let text = "\
all:
  vars:
    driftgate_fleet: lab
  hosts:
    node01:
      driftgate_bmc: bmc01
      driftgate_bmc_password: Hunter2
    node02:
      driftgate_bmc: bmc02
      driftgate_clutser: c1
    node03:
      driftgate_fleet: ~
      driftgate_bmc: bmc03
  children:
    nofleet:
      vars:
        driftgate_fleet: 7
      hosts:
        node04:
          driftgate_bmc: bmc04
        node05:
          ansible_host: 10.0.0.5
";
    let errors = yaml_errors(text);
    let file = "/inv/hosts.yml";
    assert_problem(
        &errors,
        file,
        7,
        "node01",
        "`driftgate_bmc_password`: never put a secret",
    );
    assert_problem(
        &errors,
        file,
        10,
        "node02",
        "unknown variable `driftgate_clutser`",
    );
    assert_problem(
        &errors,
        file,
        12,
        "node03",
        "`driftgate_fleet` must be a string",
    );
    assert_problem(
        &errors,
        file,
        17,
        "node04",
        "`driftgate_fleet` must be a string",
    );
    assert_problem(&errors, file, 21, "node05", "has no driftgate source");
    assert!(!errors.to_string().contains("Hunter2"), "{errors}");
}

#[test]
fn each_broken_ini_line_is_a_problem_naming_file_line_and_host() {
    let text = "\
[lab]
node01 driftgate_bmc=bmc01 driftgate_timeouts={bmc_seconds: 0}
node02 driftgate_bmc=bmc02 oops
node03 driftgate_bmc=bmc03 driftgate_bmc_password=Hunter2
node04 driftgate_bmc=bmc04 driftgate_sources=[redfish=https://x, windows=sftp://y]
node05 driftgate_bmc=bmc05 driftgate_tags=[unclosed
[other]
node06 driftgate_bmc=bmc06 driftgate_credentials={username_env: U, password: Hunter2}
web[a:c] driftgate_bmc=x
[lab:vars]
driftgate_fleet=lab
";
    let errors = ini_errors(text);
    let file = "/inv/hosts";
    assert_problem(
        &errors,
        file,
        2,
        "node01",
        "`bmc_seconds` must be a positive whole number",
    );
    assert_problem(&errors, file, 3, "node02", "a host variable is `key=value`");
    assert_problem(
        &errors,
        file,
        4,
        "node03",
        "`driftgate_bmc_password`: never put a secret",
    );
    assert_problem(&errors, file, 5, "node04", "two `redfish` sources");
    assert_problem(&errors, file, 5, "node04", "bad source");
    assert_problem(&errors, file, 6, "node05", "not a valid list or mapping");
    assert_problem(&errors, file, 8, "node06", "has no fleet");
    assert_problem(
        &errors,
        file,
        8,
        "node06",
        "key `password`: never put a secret",
    );
    assert_problem(&errors, file, 9, "web[a:c]", "only numeric ranges");
    assert!(!errors.to_string().contains("Hunter2"), "{errors}");
}

#[test]
fn ansible_secrets_are_never_read() {
    let text = "\
[lab]
node01 driftgate_bmc=bmc01 ansible_password=Hunter2 ansible_become_pass='x y'
[lab:vars]
driftgate_fleet=lab
ansible_ssh_pass=Hunter2
vault_token=!vault |
";
    let inventory = super::parse_ini(text, Path::new("/inv/hosts")).unwrap();
    assert_eq!(inventory.hosts.len(), 1);
    assert!(!format!("{inventory:?}").contains("Hunter2"));
}

#[test]
fn ini_ranges_expand_and_ungrouped_hosts_are_read() {
    let text = "\
loose driftgate_bmc=bmc-loose
[lab]
node[08:10] driftgate_os=linux
[all:vars]
driftgate_fleet=lab
";
    let inventory = super::parse_ini(text, Path::new("/inv/hosts")).unwrap();
    let names: Vec<&str> = inventory.hosts.iter().map(|h| h.name.as_str()).collect();
    assert_eq!(names, ["loose", "node08", "node09", "node10"]);
    assert!(inventory.hosts[0].tags.is_empty());
    assert_eq!(inventory.hosts[1].tags, ["lab"]);
    assert_eq!(
        inventory.hosts[3].sources[0].to_string(),
        "linux=ssh://node10"
    );
    assert_eq!(
        inventory.hosts[0].sources[0].to_string(),
        "redfish=https://bmc-loose"
    );
}

#[test]
fn the_reader_is_picked_by_extension() {
    let dir = tempfile::tempdir().unwrap();
    let ini = "node01 driftgate_bmc=bmc01 driftgate_fleet=lab\n";
    for name in ["hosts", "hosts.ini", "hosts.cfg"] {
        let path = dir.path().join(name);
        std::fs::write(&path, ini).unwrap();
        assert_eq!(Inventory::load(&path).unwrap().hosts.len(), 1, "{name}");
    }
    let yaml = "all:\n  hosts:\n    node01: {driftgate_bmc: bmc01, driftgate_fleet: lab}\n";
    for name in ["hosts.yml", "hosts.yaml"] {
        let path = dir.path().join(name);
        std::fs::write(&path, yaml).unwrap();
        assert_eq!(Inventory::load(&path).unwrap().hosts.len(), 1, "{name}");
    }
}
