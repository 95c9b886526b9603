//! Ansible's own resolution of an inventory, for driftgate's to be compared with:
//! `ansible-inventory` of ansible-core, installed from PyPI into the virtualenv
//! `target/test-venv` by `bash scripts/test-deps.sh`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

/// Where `scripts/test-deps.sh` installs ansible-core.
pub(crate) fn ansible_inventory_bin() -> PathBuf {
    super::root().join("target/test-venv/bin/ansible-inventory")
}

/// `ansible-inventory -i INVENTORY ARGS…`, parsed from its JSON. Run in an empty folder with
/// an empty configuration, so that nothing but the inventory and the files beside it counts
/// (no `ansible.cfg`, no `group_vars/` of a current folder). Panics naming the setup script
/// when ansible-core is not installed, and with Ansible's message when it refuses.
pub(crate) fn ansible_inventory(inventory: &Path, args: &[&str]) -> Value {
    let output = run(inventory, args);
    assert!(
        output.status.success(),
        "ansible-inventory -i {} {args:?} failed: {}",
        inventory.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("ansible-inventory prints JSON")
}

/// `ansible-inventory -i INVENTORY ARGS…` as it ran, for an inventory it should refuse.
pub(crate) fn run(inventory: &Path, args: &[&str]) -> std::process::Output {
    let bin = ansible_inventory_bin();
    assert!(
        bin.exists(),
        "{} is missing: install the test dependencies with `bash scripts/test-deps.sh` \
         (ansible-core from PyPI into target/test-venv)",
        bin.display()
    );
    let scratch = tempfile::tempdir().expect("a temporary folder");
    let config = scratch.path().join("ansible.cfg");
    std::fs::write(&config, "").expect("an empty configuration");
    Command::new(&bin)
        .arg("-i")
        .arg(inventory)
        .args(args)
        .current_dir(scratch.path())
        .env("ANSIBLE_CONFIG", &config)
        .env("ANSIBLE_LOCAL_TEMP", scratch.path())
        .env("ANSIBLE_INVENTORY_UNPARSED_FAILED", "true")
        .env("ANSIBLE_NOCOLOR", "1")
        .output()
        .unwrap_or_else(|e| panic!("{}: {e}: see `bash scripts/test-deps.sh`", bin.display()))
}

/// Each host of `ansible-inventory --list` output `list` with every group it is in (below
/// `all`, with the groups above its own; not `all` nor `ungrouped`).
pub(crate) fn groups_of_hosts(list: &Value) -> BTreeMap<String, BTreeSet<String>> {
    let groups: BTreeMap<&str, &Value> = list
        .as_object()
        .expect("an object")
        .iter()
        .filter(|(name, _)| *name != "_meta")
        .map(|(name, group)| (name.as_str(), group))
        .collect();
    let names = |group: &Value, key: &str| -> Vec<String> {
        group[key]
            .as_array()
            .map(|items| {
                items
                    .iter()
                    .map(|i| i.as_str().unwrap().to_owned())
                    .collect()
            })
            .unwrap_or_default()
    };
    // Every host below `group`, at any depth.
    fn below(
        group: &str,
        groups: &BTreeMap<&str, &Value>,
        names: &dyn Fn(&Value, &str) -> Vec<String>,
        seen: &mut BTreeSet<String>,
    ) -> BTreeSet<String> {
        let mut hosts = BTreeSet::new();
        if !seen.insert(group.to_owned()) {
            return hosts;
        }
        if let Some(body) = groups.get(group) {
            hosts.extend(names(body, "hosts"));
            for child in names(body, "children") {
                hosts.extend(below(&child, groups, names, seen));
            }
        }
        hosts
    }
    let mut of_hosts: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for host in list["_meta"]["hostvars"]
        .as_object()
        .expect("hostvars")
        .keys()
    {
        of_hosts.insert(host.clone(), BTreeSet::new());
    }
    for group in groups.keys() {
        if matches!(*group, "all" | "ungrouped") {
            continue;
        }
        for host in below(group, &groups, &names, &mut BTreeSet::new()) {
            of_hosts
                .entry(host)
                .or_default()
                .insert((*group).to_owned());
        }
    }
    of_hosts
}
