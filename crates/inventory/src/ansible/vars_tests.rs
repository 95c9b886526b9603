//! Tests of `group_vars/` and `host_vars/`: the precedence of each level (`precedence.rs`),
//! read from vars files given in memory, and each broken vars file a problem naming it; then
//! which files of a real folder are read (`vars_dirs.rs`).

#![allow(clippy::unwrap_used, clippy::panic)] // a test that cannot set up should panic where it stands

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::vars_dirs::VarsFile;
use super::{Format, Names, VarsFiles, read};
use crate::{CredentialsRef, Inventory, InventoryErrors};

/// Vars files in memory: (`group_vars/NAME…` or `host_vars/NAME…` path, text), each file of a
/// name in the order given.
fn files(list: &[(&str, &str)]) -> VarsFiles {
    let mut files = VarsFiles::default();
    for (path, text) in list {
        let (dir, rest) = path.split_once('/').unwrap();
        let name = rest.split(['/', '.']).next().unwrap().to_owned();
        let file = VarsFile {
            path: PathBuf::from("/inv").join(path),
            text: Ok((*text).to_owned()),
        };
        let of = match dir {
            "group_vars" => &mut files.groups,
            "host_vars" => &mut files.hosts,
            _ => panic!("{path}"),
        };
        of.entry(name).or_default().push(file);
    }
    files
}

fn ini_with(text: &str, vars: &[(&str, &str)]) -> Result<Inventory, InventoryErrors> {
    let vars = files(vars);
    read(text, Path::new("/inv/hosts"), Format::Ini, |_| vars)
}

/// Every host's fleet, cluster and BMC timeout, by name.
fn resolved(inventory: &Inventory) -> BTreeMap<String, (String, Option<String>, Option<u64>)> {
    inventory
        .hosts
        .iter()
        .map(|h| {
            let bmc = h.timeouts.bmc.map(|d| d.as_secs());
            (
                h.name.as_str().to_owned(),
                (h.fleet.clone(), h.cluster.clone(), bmc),
            )
        })
        .collect()
}

fn fleet_of(inventory: &Inventory, host: &str) -> String {
    inventory.host(host).unwrap().fleet.clone()
}

#[test]
fn group_vars_all_wins_over_every_group_variable_of_the_inventory_file() {
    let text = "[lab]\nnode01 driftgate_bmc=b\n[lab:vars]\ndriftgate_fleet=from-lab-vars\n";
    let inventory = ini_with(
        text,
        &[("group_vars/all.yml", "driftgate_fleet: from-all-file\n")],
    );
    assert_eq!(fleet_of(&inventory.unwrap(), "node01"), "from-all-file");
    // … and a group's own file over group_vars/all.
    let inventory = ini_with(
        text,
        &[
            ("group_vars/all.yml", "driftgate_fleet: from-all-file\n"),
            ("group_vars/lab.yml", "driftgate_fleet: from-lab-file\n"),
        ],
    );
    assert_eq!(fleet_of(&inventory.unwrap(), "node01"), "from-lab-file");
}

#[test]
fn group_files_go_by_depth_then_priority_then_name() {
    let text = "\
[parent:children]
child
[child]
node01 driftgate_bmc=b
[alpha]
node01
[beta]
node01
";
    let vars = [
        ("group_vars/parent.yml", "driftgate_fleet: parent\n"),
        ("group_vars/child.yml", "driftgate_fleet: child\n"),
        ("group_vars/alpha.yml", "driftgate_cluster: alpha\n"),
        ("group_vars/beta.yml", "driftgate_cluster: beta\n"),
    ];
    let inventory = ini_with(text, &vars).unwrap();
    // child (depth 2) over parent (depth 1); beta over alpha by name at depth 1.
    assert_eq!(
        resolved(&inventory)["node01"],
        ("child".into(), Some("beta".into()), None)
    );
    // A higher ansible_group_priority (in the inventory file) is read later at its depth.
    let text = format!("{text}[alpha:vars]\nansible_group_priority=5\n");
    let inventory = ini_with(&text, &vars).unwrap();
    assert_eq!(
        inventory.host("node01").unwrap().cluster.as_deref(),
        Some("alpha")
    );
}

#[test]
fn host_variables_win_over_groups_and_host_vars_over_the_inventory_file() {
    let text = "[lab]\nnode01 driftgate_bmc=b driftgate_fleet=inline\nnode02 driftgate_bmc=b\n";
    let vars = [
        ("group_vars/lab.yml", "driftgate_fleet: group\n"),
        ("host_vars/node02.yml", "driftgate_fleet: host-file\n"),
    ];
    let inventory = ini_with(text, &vars).unwrap();
    assert_eq!(fleet_of(&inventory, "node01"), "inline");
    assert_eq!(fleet_of(&inventory, "node02"), "host-file");
    let text = "[lab]\nnode01 driftgate_bmc=b driftgate_fleet=inline\n";
    let inventory = ini_with(text, &[("host_vars/node01.yml", "driftgate_fleet: file\n")]);
    assert_eq!(fleet_of(&inventory.unwrap(), "node01"), "file");
}

#[test]
fn a_later_file_of_a_folder_replaces_a_dict_whole() {
    let vars = [
        (
            "group_vars/all/10.yml",
            "driftgate_fleet: lab\ndriftgate_timeouts: {bmc_seconds: 5, host_seconds: 50}\n",
        ),
        (
            "group_vars/all/20.json",
            "{\"driftgate_timeouts\": {\"command_seconds\": 7}}",
        ),
    ];
    let inventory = ini_with("node01 driftgate_bmc=b\n", &vars).unwrap();
    let timeouts = inventory.host("node01").unwrap().timeouts;
    assert_eq!(timeouts.bmc, None);
    assert_eq!(timeouts.host, None);
    assert_eq!(timeouts.command.unwrap().as_secs(), 7);
}

#[test]
fn a_host_in_no_group_reads_group_vars_ungrouped_and_one_in_a_group_does_not() {
    let text = "loose driftgate_bmc=b\n[lab]\nnode01 driftgate_bmc=b\n";
    let vars = [
        ("group_vars/all.yml", "driftgate_fleet: all\n"),
        ("group_vars/ungrouped.yml", "driftgate_fleet: ungrouped\n"),
    ];
    let inventory = ini_with(text, &vars).unwrap();
    assert_eq!(fleet_of(&inventory, "loose"), "ungrouped");
    assert_eq!(fleet_of(&inventory, "node01"), "all");
    // Listed before any section and in a group too: Ansible takes it out of `ungrouped`.
    let text = "node01 driftgate_bmc=b\n[lab]\nnode01\n";
    let inventory = ini_with(text, &vars).unwrap();
    assert_eq!(fleet_of(&inventory, "node01"), "all");
    assert_eq!(inventory.host("node01").unwrap().tags, ["lab"]);
}

#[test]
fn the_names_whose_files_are_read_are_the_groups_in_use_and_the_hosts() {
    let text = "[lab]\nnode01 driftgate_bmc=b driftgate_fleet=f\n[empty]\n[rack:children]\nlab\n";
    let mut asked = Names::default();
    read(text, Path::new("/inv/hosts"), Format::Ini, |names| {
        asked.groups = names.groups.clone();
        asked.hosts = names.hosts.clone();
        VarsFiles::default()
    })
    .unwrap();
    let groups: Vec<&str> = asked.groups.iter().map(String::as_str).collect();
    assert_eq!(groups, ["all", "lab", "rack"]);
    assert_eq!(asked.hosts, ["node01"]);
}

#[test]
fn credentials_from_a_file_at_a_higher_level_win_and_both_in_one_file_are_refused() {
    let text = "[lab]\nnode01 driftgate_bmc=b driftgate_fleet=f\n";
    let inventory = ini_with(
        text,
        &[
            (
                "group_vars/lab.yml",
                "driftgate_credentials: {username_env: U, password_env: P}\n",
            ),
            (
                "host_vars/node01.yml",
                "driftgate_credentials_file: node01.toml\n",
            ),
        ],
    )
    .unwrap();
    let host = inventory.host("node01").unwrap();
    assert_eq!(
        host.credentials,
        Some(CredentialsRef::File(PathBuf::from("/inv/node01.toml")))
    );
    // `-v` tells where the one used was set, not the other.
    let origins: Vec<String> = host
        .origins
        .iter()
        .map(|o| format!("{} {}:{}", o.variable, o.file, o.line))
        .collect();
    assert_eq!(
        origins,
        [
            "driftgate_bmc /inv/hosts:2",
            "driftgate_credentials_file /inv/host_vars/node01.yml:1",
            "driftgate_fleet /inv/hosts:2",
        ]
    );
    let errors = ini_with(
        text,
        &[(
            "group_vars/lab.yml",
            "driftgate_credentials_file: a.toml\ndriftgate_credentials: {username_env: U, password_env: P}\n",
        )],
    )
    .unwrap_err();
    let problem = &errors.problems[0];
    assert_eq!(problem.file, "/inv/group_vars/lab.yml", "{errors}");
    assert_eq!(problem.line, 2, "{errors}");
    assert!(problem.message.contains("not both"), "{errors}");
}

/// The one problem of `vars` for a host `node01` of group `lab`.
fn problem_of(vars: &[(&str, &str)]) -> String {
    let errors = ini_with("[lab]\nnode01 driftgate_bmc=b driftgate_fleet=f\n", vars).unwrap_err();
    assert_eq!(errors.problems.len(), 1, "{errors}");
    errors.to_string()
}

#[test]
fn each_broken_vars_file_is_a_problem_naming_it_and_the_line() {
    let cases = [
        (
            "group_vars/lab.yml",
            "driftgate_cluster: c\ndriftgate_tags: [a,\n",
            "/inv/group_vars/lab.yml:2: not YAML",
        ),
        (
            "host_vars/node01.yml",
            "- driftgate_fleet: f\n",
            "/inv/host_vars/node01.yml:1: host `node01`: a vars file is a mapping of variables, not a list",
        ),
        (
            "group_vars/lab.yml",
            "just text\n",
            "/inv/group_vars/lab.yml:1: group `lab`: a vars file is a mapping of variables, not a string",
        ),
        (
            "group_vars/lab.yml",
            "driftgate_cluster: c\ndriftgate_clutser: c\n",
            "/inv/group_vars/lab.yml:2: group `lab`: unknown variable `driftgate_clutser`",
        ),
        (
            "group_vars/lab.yml",
            "driftgate_cluster: [c]\n",
            "/inv/group_vars/lab.yml:1: host `node01`: `driftgate_cluster` must be a string, not a list",
        ),
    ];
    for (path, text, says) in cases {
        let problem = problem_of(&[(path, text)]);
        assert!(problem.starts_with(says), "{says:?} is not {problem:?}");
    }
    let mut unreadable = files(&[]);
    unreadable.hosts.insert(
        "node01".into(),
        vec![VarsFile {
            path: "/inv/host_vars/node01.yml".into(),
            text: Err("Permission denied (os error 13)".into()),
        }],
    );
    let errors = read(
        "[lab]\nnode01 driftgate_bmc=b driftgate_fleet=f\n",
        Path::new("/inv/hosts"),
        Format::Ini,
        |_| unreadable,
    )
    .unwrap_err();
    assert_eq!(
        errors.to_string(),
        "/inv/host_vars/node01.yml: cannot read: Permission denied (os error 13)"
    );
}

#[test]
fn a_secret_in_a_vars_file_is_refused_and_never_shown() {
    let problem = problem_of(&[(
        "group_vars/all.yml",
        "# x\ndriftgate_bmc_password: Hunter2\n",
    )]);
    assert!(
        problem.starts_with("/inv/group_vars/all.yml:2: group `all`: variable `driftgate_bmc_password`: never put a secret"),
        "{problem}"
    );
    assert!(!problem.contains("Hunter2"));
    let errors = problem_of(&[("group_vars/all.yml", "driftgate_fleet: [\"Hunter2\n")]);
    assert!(!errors.contains("Hunter2"), "{errors}");
}

#[test]
fn empty_files_vault_files_and_other_variables_set_nothing() {
    let text = "[lab]\nnode01 driftgate_bmc=b driftgate_fleet=f\n";
    for empty in [
        "",
        "# only a comment\n",
        "---\n",
        "{}\n",
        "[]\n",
        "~\n",
        "false\n",
    ] {
        let inventory = ini_with(text, &[("group_vars/lab.yml", empty)]);
        assert_eq!(fleet_of(&inventory.unwrap(), "node01"), "f", "{empty:?}");
    }
    let vault = "$ANSIBLE_VAULT;1.1;AES256\n3661386234\n";
    let inventory = ini_with(text, &[("group_vars/lab/vault.yml", vault)]).unwrap();
    assert_eq!(fleet_of(&inventory, "node01"), "f");
    let others =
        "ansible_password: Hunter2\nvault_token: !vault |\n  $ANSIBLE_VAULT;1.1;AES256\n  3661\n";
    let inventory = ini_with(text, &[("group_vars/lab.yml", others)]).unwrap();
    assert!(!format!("{inventory:?}").contains("Hunter2"));
}

#[test]
fn a_yaml_inventory_reads_vars_files_too() {
    let text = "all:\n  hosts:\n    node01: {driftgate_bmc: b}\n";
    let vars = files(&[("group_vars/ungrouped.yml", "driftgate_fleet: loose\n")]);
    let inventory = read(text, Path::new("/inv/hosts.yml"), Format::Yaml, |_| vars).unwrap();
    assert_eq!(fleet_of(&inventory, "node01"), "loose");
}

/// Which files of a real folder are read, and in which order.
mod folders {
    use std::path::Path;

    use super::super::{Names, vars_dirs};

    fn write(dir: &Path, path: &str, text: &str) {
        let path = dir.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    fn read_names(dir: &Path, groups: &[&str]) -> Vec<String> {
        let names = Names {
            groups: groups.iter().map(|g| (*g).to_owned()).collect(),
            hosts: Vec::new(),
        };
        let files = vars_dirs::read(dir, &names);
        assert!(files.folders.is_empty());
        files
            .groups
            .values()
            .flatten()
            .map(|f| {
                let path = f.path.strip_prefix(dir).unwrap().display().to_string();
                match &f.text {
                    Ok(_) => path,
                    Err(e) => format!("{path}: {e}"),
                }
            })
            .collect()
    }

    #[test]
    fn the_first_name_found_is_read_a_folder_in_name_order_skipping_what_ansible_skips() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        for path in [
            "group_vars/a",
            "group_vars/a.yml", // the bare name first: a.yml is not read
            "group_vars/b.yaml",
            "group_vars/b.json", // .yaml before .json
            "group_vars/c/20.json",
            "group_vars/c/10.yml",
            "group_vars/c/sub/30.yaml",
            "group_vars/c/noext",
            "group_vars/c/.hidden.yml",
            "group_vars/c/40.yml~",
            "group_vars/c/notes.txt",
            "group_vars/c/skip.d/50.yml",
            "group_vars/c/.git/60.yml",
            "group_vars/d.txt",
        ] {
            write(d, path, "{}\n");
        }
        std::os::unix::fs::symlink(d.join("nowhere.yml"), d.join("group_vars/e.yml")).unwrap();
        write(d, "group_vars/e.json", "{}\n");
        assert_eq!(
            read_names(d, &["a", "b", "c", "d", "e", "absent"]),
            [
                "group_vars/a",
                "group_vars/b.yaml",
                "group_vars/c/10.yml",
                "group_vars/c/20.json",
                "group_vars/c/noext",
                "group_vars/c/sub/30.yaml",
                "group_vars/e.json",
            ]
        );
    }

    #[test]
    fn no_folder_reads_nothing_and_a_file_in_its_place_is_told() {
        let dir = tempfile::tempdir().unwrap();
        assert!(read_names(dir.path(), &["all"]).is_empty());
        write(dir.path(), "group_vars", "not a folder\n");
        let names = Names {
            groups: ["all".to_owned()].into(),
            hosts: Vec::new(),
        };
        let files = vars_dirs::read(dir.path(), &names);
        assert_eq!(files.folders.len(), 1);
        assert!(
            files.folders[0]
                .text
                .as_ref()
                .unwrap_err()
                .starts_with("not a folder")
        );
    }
}
