use std::path::{Path, PathBuf};
use std::time::Duration;

use super::*;
use driftgate_collect::SourceSpec;
use driftgate_collect::transport::Location;
use driftgate_redfish::RedfishLocation;

const FILE: &str = "/srv/store/inventory.toml";

fn parse(text: &str) -> Result<Inventory, InventoryErrors> {
    Inventory::parse(text, Path::new(FILE))
}

fn problems(text: &str) -> Vec<(usize, String)> {
    parse(text)
        .expect_err("the inventory has problems")
        .problems
        .into_iter()
        .map(|p| {
            assert_eq!(p.file, FILE);
            (p.line, p.message)
        })
        .collect()
}

/// The one problem at `line`, which must contain `needle`.
fn assert_problem(text: &str, line: usize, needle: &str) {
    let found = problems(text);
    assert!(
        found.iter().any(|(l, m)| *l == line && m.contains(needle)),
        "no problem at line {line} containing {needle:?} in {found:#?}"
    );
}

const HOST: &str = r#"
[[host]]
name = "azl-node01"
fleet = "azure-local"
sources = ["redfish=https://bmc-azl-node01"]
"#;

#[test]
fn a_complete_inventory_parses_with_everything_resolved() {
    let inventory = parse(
        r#"[defaults]
fleet = "azure-local"
credentials = { username_env = "BMC_USER", password_env = "BMC_PASS" }
timeouts = { bmc_seconds = 60, host_seconds = 300, command_seconds = 45 }

[[host]]
name = "azl-node01"
cluster = "azl-cluster-a"
tags = ["rack12", "gpu"]
sources = ["redfish=https://bmc-azl-node01?pin=sha256:00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff", "windows=ssh://admin@azl-node01:2222"]

[[host]]
name = "esx01"
fleet = "vmware"
sources = ["esxi=dir:recorded/esx01"]
"#,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(inventory.file, PathBuf::from(FILE));
    let node = inventory.host("azl-node01").expect("listed");
    assert_eq!(node.fleet, "azure-local");
    assert_eq!(node.cluster.as_deref(), Some("azl-cluster-a"));
    assert_eq!(node.tags, ["rack12", "gpu"]);
    assert_eq!(node.line, 6);
    assert_eq!(
        node.sources
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>(),
        [
            "redfish=https://bmc-azl-node01?pin=sha256:00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff",
            "windows=ssh://admin@azl-node01:2222"
        ]
    );
    assert_eq!(
        node.credentials,
        Some(CredentialsRef::Env {
            username_env: "BMC_USER".into(),
            password_env: "BMC_PASS".into()
        })
    );
    assert_eq!(
        node.timeouts,
        Timeouts {
            bmc: Some(Duration::from_secs(60)),
            host: Some(Duration::from_secs(300)),
            command: Some(Duration::from_secs(45)),
        }
    );
    let esx = inventory.host("esx01").expect("listed");
    assert_eq!(esx.fleet, "vmware");
    assert_eq!(esx.line, 12);
    assert_eq!(
        esx.sources,
        [SourceSpec::Esxi(Location::Dir(
            "/srv/store/recorded/esx01".into()
        ))]
    );
    assert!(inventory.host("nope").is_none());
}

#[test]
fn settings_resolve_host_over_cluster_over_fleet_over_defaults() {
    let inventory = parse(
        r#"[defaults]
fleet = "f"
credentials_file = "defaults.toml"
ca_file = "defaults.pem"
timeouts = { bmc_seconds = 1, host_seconds = 1, command_seconds = 1 }

[fleet.f]
credentials_file = "fleet.toml"
ca_file = "fleet.pem"
timeouts = { bmc_seconds = 2, host_seconds = 2 }

[cluster.c]
credentials = { username_env = "CLUSTER_USER", password_env = "CLUSTER_PASS" }
timeouts = { bmc_seconds = 3 }

[[host]]
name = "in-cluster"
cluster = "c"
sources = ["redfish=https://a"]

[[host]]
name = "own"
cluster = "c"
sources = ["redfish=https://b"]
credentials_file = "/etc/driftgate/own.toml"
ca_file = "own.pem"
timeouts = { command_seconds = 4 }

[[host]]
name = "fleet-only"
sources = ["redfish=https://c"]

[[host]]
name = "other-fleet"
fleet = "g"
sources = ["redfish=https://d"]
"#,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let secs = |n| Some(Duration::from_secs(n));
    let host = |name| inventory.host(name).expect("listed");

    let in_cluster = host("in-cluster");
    assert_eq!(
        in_cluster.credentials,
        Some(CredentialsRef::Env {
            username_env: "CLUSTER_USER".into(),
            password_env: "CLUSTER_PASS".into()
        })
    );
    assert_eq!(
        in_cluster.ca_file.as_deref(),
        Some(Path::new("/srv/store/fleet.pem"))
    );
    assert_eq!(
        in_cluster.timeouts,
        Timeouts {
            bmc: secs(3),
            host: secs(2),
            command: secs(1)
        }
    );

    let own = host("own");
    assert_eq!(
        own.credentials,
        Some(CredentialsRef::File("/etc/driftgate/own.toml".into()))
    );
    assert_eq!(
        own.ca_file.as_deref(),
        Some(Path::new("/srv/store/own.pem"))
    );
    assert_eq!(
        own.timeouts,
        Timeouts {
            bmc: secs(3),
            host: secs(2),
            command: secs(4)
        }
    );

    let fleet_only = host("fleet-only");
    assert_eq!(
        fleet_only.credentials,
        Some(CredentialsRef::File("/srv/store/fleet.toml".into()))
    );
    assert_eq!(
        fleet_only.timeouts,
        Timeouts {
            bmc: secs(2),
            host: secs(2),
            command: secs(1)
        }
    );

    let other = host("other-fleet");
    assert_eq!(
        other.credentials,
        Some(CredentialsRef::File("/srv/store/defaults.toml".into()))
    );
    assert_eq!(
        other.ca_file.as_deref(),
        Some(Path::new("/srv/store/defaults.pem"))
    );
}

#[test]
fn relative_locations_resolve_against_the_inventory_folder() {
    let text = r#"[[host]]
name = "h"
fleet = "f"
sources = ["redfish=mockup:rec/bmc", "windows=dir:../rec/windows", "linux=dir:/abs/linux", "esxi=local:"]
credentials_file = "creds/bmc.toml"
"#;
    let inventory =
        Inventory::parse(text, Path::new("site/inventory.toml")).unwrap_or_else(|e| panic!("{e}"));
    let host = &inventory.hosts[0];
    assert_eq!(
        host.sources,
        [
            SourceSpec::Redfish(RedfishLocation::Mockup("site/rec/bmc".into())),
            SourceSpec::Windows(Location::Dir("site/../rec/windows".into())),
            SourceSpec::Linux(Location::Dir("/abs/linux".into())),
            SourceSpec::Esxi(Location::Local),
        ]
    );
    assert_eq!(
        host.credentials,
        Some(CredentialsRef::File("site/creds/bmc.toml".into()))
    );
    // A file in the current folder keeps its paths as written.
    let inventory =
        Inventory::parse(text, Path::new("inventory.toml")).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        inventory.hosts[0].sources[0],
        SourceSpec::Redfish(RedfishLocation::Mockup("rec/bmc".into()))
    );
}

#[test]
fn not_toml_names_the_parser_line_and_never_the_text() {
    let found = problems("[[host]]\nname = \"a\"\nfleet = \"f\"\nsecret_sauce = \"hunter2\n");
    assert!(
        found
            .iter()
            .any(|(l, m)| *l == 4 && m.starts_with("not TOML: ")),
        "{found:#?}"
    );
    assert!(!format!("{found:?}").contains("hunter2"), "{found:#?}");
}

#[test]
fn toml_that_ends_inside_a_value_is_told_at_the_end_of_the_file_on_its_last_line() {
    // The toml crate places this error at the end of the text, the line after the last.
    let text = "[[host]]\nname = \"h1\"\nnotes = \"\"\"\nnever closed\n";
    let found = problems(text);
    let (line, message) = found
        .iter()
        .find(|(_, m)| m.starts_with("not TOML"))
        .unwrap_or_else(|| panic!("no not-TOML problem in {found:#?}"));
    assert_eq!(*line, 4, "{message}");
    assert!(message.ends_with("(at the end of the file)"), "{message}");
    assert!(found.iter().all(|(line, _)| *line <= 4), "{found:#?}");
}

#[test]
fn unknown_keys_are_named_with_the_known_ones_at_every_level() {
    let text = r#"nodes = 1
[defaults]
flet = "f"
[fleet.f]
cluster = "c"
[[host]]
name = "h"
fleet = "f"
source = ["redfish=https://a"]
sources = ["redfish=https://a"]
credentials = { username_env = "U", password_env = "P", domain = "x" }
timeouts = { bmc = 5 }
"#;
    assert_problem(
        text,
        1,
        "unknown key `nodes` in the top level (known: defaults, fleet, cluster, host)",
    );
    assert_problem(text, 3, "unknown key `flet` in [defaults] (known: fleet,");
    assert_problem(
        text,
        5,
        "unknown key `cluster` in [fleet.f] (known: credentials, credentials_file, ca_file, timeouts, vcenter)",
    );
    assert_problem(text, 9, "unknown key `source` in [[host]] (known: name,");
    assert_problem(
        text,
        11,
        "unknown key `domain` in `credentials` (known: username_env, password_env)",
    );
    assert_problem(
        text,
        12,
        "unknown key `bmc` in `timeouts` (known: bmc_seconds, host_seconds, command_seconds)",
    );
    assert_eq!(problems(text).len(), 6, "{:#?}", problems(text));
}

#[test]
fn a_key_that_would_hold_a_secret_is_refused_anywhere_and_its_value_never_shown() {
    let text = r#"password = "top-s3cret"
[defaults]
fleet = "f"
token = "tok-s3cret"
[fleet.f]
community = "public-s3cret"
[[host]]
name = "h"
sources = ["redfish=https://a"]
credentials = { username_env = "U", password_env = "P", password = "cred-s3cret" }
api_key = "key-s3cret"
[host.extra]
passwd = "nested-s3cret"
bmc_secret = "x-s3cret"
"#;
    let errors = parse(text).expect_err("secrets are refused");
    for (line, key) in [
        (1, "password"),
        (4, "token"),
        (6, "community"),
        (10, "password"),
        (11, "api_key"),
        (13, "passwd"),
        (14, "bmc_secret"),
    ] {
        assert!(
            errors.problems.iter().any(|p| p.line == line
                && p.message == format!("key `{key}`: never put a secret in the inventory: reference it with credentials = {{ username_env, password_env }} or credentials_file")),
            "line {line} `{key}`: {errors}"
        );
    }
    for shown in [errors.to_string(), format!("{errors:?}")] {
        assert!(!shown.contains("s3cret"), "{shown}");
    }
    // A secret key is reported once, not again as an unknown key; the unknown table `extra` is.
    assert_eq!(errors.problems.len(), 8, "{errors}");
}

#[test]
fn hosts_need_a_good_unique_name() {
    let text = r#"[defaults]
fleet = "f"
[[host]]
sources = ["redfish=https://a"]
[[host]]
name = "bad/name"
sources = ["redfish=https://a"]
[[host]]
name = "twin"
sources = ["redfish=https://a"]
[[host]]
name = 7
sources = ["redfish=https://a"]
[[host]]
name = "twin"
sources = ["redfish=https://b"]
"#;
    assert_problem(text, 3, "a [[host]] without `name`");
    assert_problem(text, 6, "invalid host name \"bad/name\"");
    assert_problem(text, 12, "`name` must be a string, not integer");
    assert_problem(text, 9, "host `twin` is given more than once (lines 9, 15)");
    assert_problem(
        text,
        15,
        "host `twin` is given more than once (lines 9, 15)",
    );
    assert_eq!(problems(text).len(), 5, "{:#?}", problems(text));
}

#[test]
fn a_host_needs_a_fleet_and_names_use_the_host_name_charset() {
    let text = r#"[[host]]
name = "lost"
sources = ["redfish=https://a"]
[[host]]
name = "h"
fleet = "bad fleet"
cluster = "-c"
tags = ["ok", "no/slash", 3]
sources = ["redfish=https://a"]
"#;
    assert_problem(
        text,
        1,
        "host `lost` has no fleet: give `fleet = \"…\"` in its [[host]] or in [defaults]",
    );
    assert_problem(
        text,
        6,
        "bad fleet name: \"bad fleet\": use letters, digits",
    );
    // A refused fleet is not also a missing one.
    assert!(
        !problems(text).iter().any(|(l, _)| *l == 4),
        "{:#?}",
        problems(text)
    );
    assert_problem(text, 7, "bad cluster name: \"-c\"");
    let found = problems(text);
    assert!(
        found
            .iter()
            .any(|(l, m)| *l == 8 && m.contains("bad tag: \"no/slash\"")),
        "{found:#?}"
    );
    assert!(
        found
            .iter()
            .any(|(l, m)| *l == 8 && m.contains("`tags` must be a string, not integer")),
        "{found:#?}"
    );
    assert_problem(
        "[defaults]\nfleet = \"a b\"\n",
        2,
        "bad fleet name: \"a b\"",
    );
    assert_problem(
        "[fleet.\"a b\"]\n[[host]]\nname = \"h\"\nfleet = \"x\"\nsources = [\"redfish=https://a\"]\n",
        1,
        "bad fleet name: \"a b\"",
    );
}

#[test]
fn sources_are_required_parsed_and_one_per_kind() {
    let text = r#"[defaults]
fleet = "f"
[[host]]
name = "none"
[[host]]
name = "empty"
sources = []
[[host]]
name = "bad"
sources = [
  "redfish=ftp://bmc",
  "windows=ssh://admin:Passw0rd@h",
  "nokind",
  "redfish=https://a",
  "redfish=https://b",
]
"#;
    assert_problem(text, 3, "host `none` has no `sources`");
    assert_problem(text, 7, "host `empty`: `sources` is empty");
    assert_problem(
        text,
        11,
        "bad source: invalid Redfish location \"ftp://bmc\"",
    );
    assert_problem(text, 12, "bad source: invalid location");
    assert_problem(text, 13, "bad source: \"nokind\": expected KIND=LOCATION");
    assert_problem(
        text,
        15,
        "two `redfish` sources (lines 14 and 15): a host has one source of each kind",
    );
    assert!(!format!("{:?}", problems(text)).contains("Passw0rd"));
}

#[test]
fn credentials_need_both_variables_and_one_form_per_level() {
    let text = r#"[defaults]
fleet = "f"
credentials = { username_env = "U" }
credentials_file = "bmc.toml"
[fleet.f]
credentials = { username_env = "", password_env = "P" }
[[host]]
name = "h"
sources = ["redfish=https://a"]
credentials = { username_env = "U", password_env = "hunter2!" }
[[host]]
name = "i"
sources = ["redfish=https://a"]
credentials = "U:P"
ca_file = ""
"#;
    assert_problem(
        text,
        4,
        "give either `credentials` or `credentials_file` at one level, not both",
    );
    assert_problem(text, 6, "`username_env` is empty");
    assert_problem(text, 10, "`password_env` must name an environment variable");
    assert_problem(text, 14, "`credentials` must be { username_env");
    assert_problem(text, 15, "`ca_file` is empty");
    assert_problem(
        "[[host]]\nname = \"h\"\nfleet = \"f\"\nsources = [\"redfish=https://a\"]\ncredentials = { username_env = \"U\" }\n",
        5,
        "`credentials` without `password_env`",
    );
    assert!(!format!("{:?}", problems(text)).contains("hunter2"));
}

#[test]
fn timeouts_are_positive_whole_seconds() {
    let text = r#"[defaults]
fleet = "f"
timeouts = { bmc_seconds = 0 }
[[host]]
name = "h"
sources = ["redfish=https://a"]
timeouts = { host_seconds = -5, command_seconds = 1.5 }
[[host]]
name = "i"
sources = ["redfish=https://a"]
timeouts = { bmc_seconds = "60" }
[[host]]
name = "j"
sources = ["redfish=https://a"]
timeouts = 60
"#;
    assert_problem(
        text,
        3,
        "`bmc_seconds` must be a positive whole number of seconds",
    );
    assert_problem(
        text,
        7,
        "`host_seconds` must be a positive whole number of seconds",
    );
    assert_problem(
        text,
        7,
        "`command_seconds` must be a positive whole number of seconds",
    );
    assert_problem(
        text,
        11,
        "`bmc_seconds` must be a positive whole number of seconds",
    );
    assert_problem(text, 15, "`timeouts` must be { bmc_seconds = N");
    let hex = parse(&format!("{HOST}timeouts = {{ bmc_seconds = 0x10 }}\n"))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(hex.hosts[0].timeouts.bmc, Some(Duration::from_secs(16)));
}

#[test]
fn a_group_no_host_uses_is_a_typo() {
    let text = r#"[fleet.azure-locl]
ca_file = "ca.pem"
[fleet.azure-local]
[cluster.azl-cluster-b]
[[host]]
name = "h"
fleet = "azure-local"
cluster = "azl-cluster-a"
sources = ["redfish=https://a"]
"#;
    assert_problem(
        text,
        1,
        "[fleet.azure-locl] is used by no host (a typo? fleets of the hosts: azure-local)",
    );
    assert_problem(
        text,
        4,
        "[cluster.azl-cluster-b] is used by no host (a typo? clusters of the hosts: azl-cluster-a)",
    );
    assert_eq!(problems(text).len(), 2, "{:#?}", problems(text));
    // A host with a refused name still uses its groups: one problem, not two.
    let found = problems(
        "[fleet.f]\n[[host]]\nname = \"bad/name\"\nfleet = \"f\"\nsources = [\"redfish=https://a\"]\n",
    );
    assert_eq!(found.len(), 1, "{found:#?}");
    // A fleet used through [defaults] counts.
    parse("[defaults]\nfleet = \"f\"\n[fleet.f]\n[[host]]\nname = \"h\"\nsources = [\"redfish=https://a\"]\n")
        .unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn wrong_shapes_are_problems_not_panics() {
    let text = r#"defaults = 1
fleet = "x"
cluster = { c = 1 }
host = "h"
"#;
    assert_problem(text, 1, "`defaults` must be a table");
    assert_problem(text, 2, "`fleet` must be tables of settings");
    assert_problem(text, 3, "`cluster.c` must be a table");
    assert_problem(text, 4, "`host` must be an array of tables");
    assert_problem("host = [1]\n", 1, "each host must be a table");
    assert_problem(
        "# nothing yet\n[defaults]\nfleet = \"f\"\n",
        1,
        "no [[host]]: an inventory lists at least one host",
    );
    assert_problem("", 1, "no [[host]]");
}

#[test]
fn every_problem_is_reported_in_line_order() {
    let errors = parse(
        "[[host]]\nname = \"b/a\"\nsources = []\n[[host]]\nfleet = \"f\"\nsources = [\"x\"]\n",
    )
    .expect_err("broken");
    let lines: Vec<usize> = errors.problems.iter().map(|p| p.line).collect();
    assert_eq!(lines, [2, 3, 4, 6], "{errors}");
    let text = errors.to_string();
    assert!(
        text.starts_with("/srv/store/inventory.toml:2: invalid host name"),
        "{text}"
    );
    assert_eq!(text.lines().count(), 4, "{text}");
}

#[test]
fn an_unreadable_file_is_one_problem_without_a_line() {
    let errors = Inventory::load(Path::new("/nonexistent/inventory.toml")).expect_err("missing");
    assert_eq!(errors.problems.len(), 1);
    assert!(
        errors
            .to_string()
            .starts_with("/nonexistent/inventory.toml: cannot read: "),
        "{errors}"
    );
}

#[test]
fn selection_filters_by_fleet_cluster_and_tag() {
    let inventory = parse(
        r#"[[host]]
name = "a"
fleet = "f"
cluster = "c"
tags = ["t"]
sources = ["redfish=https://a"]
[[host]]
name = "b"
fleet = "f"
sources = ["redfish=https://b"]
[[host]]
name = "c"
fleet = "g"
tags = ["t"]
sources = ["redfish=https://c"]
"#,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let names = |selection: Selection| -> Vec<String> {
        inventory
            .select(&selection)
            .iter()
            .map(|h| h.name.as_str().to_owned())
            .collect()
    };
    assert_eq!(names(Selection::default()), ["a", "b", "c"]);
    let fleet = Some("f".to_owned());
    assert_eq!(
        names(Selection {
            fleet: fleet.clone(),
            ..Selection::default()
        }),
        ["a", "b"]
    );
    assert_eq!(
        names(Selection {
            tag: Some("t".into()),
            ..Selection::default()
        }),
        ["a", "c"]
    );
    assert_eq!(
        names(Selection {
            fleet,
            cluster: Some("c".into()),
            tag: Some("t".into())
        }),
        ["a"]
    );
}

#[test]
fn credentials_from_the_environment_name_the_missing_variable() {
    let missing = CredentialsRef::Env {
        username_env: "DRIFTGATE_TEST_UNSET_USER_5c1d".into(),
        password_env: "DRIFTGATE_TEST_UNSET_PASS_5c1d".into(),
    };
    assert_eq!(
        missing.env_names(),
        [
            "DRIFTGATE_TEST_UNSET_USER_5c1d",
            "DRIFTGATE_TEST_UNSET_PASS_5c1d"
        ]
    );
    let error = missing.resolve().expect_err("unset").to_string();
    assert!(
        error.contains("DRIFTGATE_TEST_UNSET_USER_5c1d is not set"),
        "{error}"
    );
    // A variable this process has (setting one would race other tests' threads).
    let (name, value) = std::env::vars_os()
        .filter_map(|(n, v)| Some((n.into_string().ok()?, v.into_string().ok()?)))
        .find(|(_, value)| !value.is_empty())
        .expect("some variable is set");
    let half = CredentialsRef::Env {
        username_env: name.as_str().into(),
        password_env: "DRIFTGATE_TEST_UNSET_PASS_5c1d".into(),
    };
    let error = half.resolve().expect_err("password unset").to_string();
    assert!(
        error.contains("DRIFTGATE_TEST_UNSET_PASS_5c1d") && !error.contains(&value),
        "{error}"
    );
    let both = CredentialsRef::Env {
        username_env: name.as_str().into(),
        password_env: name.into(),
    };
    let credentials = both.resolve().expect("both set");
    assert_eq!(
        (credentials.username.as_str(), credentials.password.as_str()),
        (value.as_str(), value.as_str())
    );
}

#[test]
fn credentials_from_a_file_go_through_its_permission_check() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bmc.toml");
    std::fs::write(&path, "username = \"root\"\npassword = \"file-s3cret\"\n").unwrap();
    let reference = CredentialsRef::File(path.clone());
    assert!(reference.env_names().is_empty());
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
    let error = reference.resolve().expect_err("too open").to_string();
    assert!(error.contains("chmod 600"), "{error}");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
    let credentials = reference.resolve().expect("owner-only");
    assert_eq!(credentials.username, "root");
    assert!(!format!("{credentials:?}").contains("file-s3cret"));
}

#[test]
fn a_parsed_inventory_holds_no_secret_in_its_debug_output() {
    let inventory = parse(
        r#"[defaults]
credentials = { username_env = "BMC_USER", password_env = "BMC_PASS" }
[[host]]
name = "h"
fleet = "f"
sources = ["redfish=https://bmc", "windows=ssh://admin@h"]
"#,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let debug = format!("{inventory:?}");
    assert!(debug.contains("BMC_PASS"), "{debug}");
    // Refused locations are never echoed with their password either.
    let errors = parse(
        "[[host]]\nname = \"h\"\nfleet = \"f\"\nsources = [\"redfish=https://root:Pa55@bmc\", \"esxi=ssh://root:Pa55@esx\"]\n",
    )
    .expect_err("passwords in URLs are refused");
    assert_eq!(errors.problems.len(), 2, "{errors}");
    for shown in [errors.to_string(), format!("{errors:?}")] {
        assert!(!shown.contains("Pa55"), "{shown}");
    }
    let errors = parse(
        "[[host]]\nname = \"h\"\nfleet = \"f\"\nsources = [\"redfish=https://bmc?pin=sha256:00&password=Pa55\"]\n",
    )
    .expect_err("a password in a query is refused");
    assert_eq!(
        errors.to_string(),
        format!(
            "{FILE}:4: bad source: query parameter `password`: never put a secret in the inventory: reference it with credentials = {{ username_env, password_env }} or credentials_file"
        )
    );
}

#[test]
fn source_locations_print_as_they_parse() {
    for text in [
        "redfish=https://bmc:8443",
        "redfish=http://127.0.0.1:8000",
        "redfish=mockup:rec/bmc",
        "windows=ssh://admin@h:2222",
        "linux=ssh://h",
        "esxi=local:",
        "linux=dir:/rec/linux",
    ] {
        let source = SourceSpec::parse(text).unwrap();
        assert_eq!(source.to_string(), text);
        assert_eq!(SourceSpec::parse(&source.to_string()).unwrap(), source);
    }
}

/// Reads `text` as [`Inventory::parse`] does and whole, asserts both say the same (hosts or
/// problems, lines included), and returns whether the first was read in pieces.
fn same_as_whole(text: &str) -> bool {
    let (parsed, in_pieces) = parse::read(text, Path::new(FILE), true);
    let (whole, was_whole) = parse::read(text, Path::new(FILE), false);
    assert!(!was_whole, "the whole text was read in pieces");
    assert_eq!(format!("{parsed:#?}"), format!("{whole:#?}"), "{text}");
    in_pieces
}

#[test]
fn an_inventory_read_one_host_at_a_time_says_what_it_says_read_whole() {
    let grouped = r#"# the lab
[defaults]
fleet = "azure-local"
credentials = { username_env = "BMC_USER", password_env = "BMC_PASS" }

[fleet.azure-local]
timeouts = { bmc_seconds = 9 }

[cluster.c1]
ca_file = "ca.pem"

[[host]]
name = "n1"
cluster = "c1"
tags = ["rack-4", "gpu"]
sources = ["redfish=https://bmc-n1", "windows=ssh://admin@n1"]

[[host]]  # the second node
name = "n2"
cluster = "c1"
sources = ["redfish=https://bmc-n2"]
[host.timeouts]
host_seconds = 300

  [[host]]
  name = "n3"
  fleet = "other"
  sources = ["linux=dir:recorded/n3"]
"#;
    assert!(same_as_whole(grouped));
    let inventory = parse(grouped).unwrap();
    let names: Vec<&str> = inventory.hosts.iter().map(|h| h.name.as_str()).collect();
    assert_eq!(names, ["n1", "n2", "n3"]);
    assert_eq!(
        inventory.hosts[1].timeouts.host,
        Some(Duration::from_secs(300))
    );
    assert_eq!(
        inventory.hosts[1].timeouts.bmc,
        Some(Duration::from_secs(9))
    );

    // Problems of later hosts keep their lines, names given twice are found across pieces.
    let broken = "[[host]]\nname = \"a\"\nfleet = \"f\"\nsources = [\"redfish=https://a\"]\n\
                  [[host]]\nname = \"a\"\nfleet = \"f\"\npassword = \"x\"\nsources = [\"bogus\"]\n";
    assert!(same_as_whole(broken));
    let found = problems(broken);
    assert!(
        found
            .iter()
            .any(|(l, m)| *l == 6 && m.contains("lines 2, 6"))
    );
    assert!(
        found
            .iter()
            .any(|(l, m)| *l == 8 && m.contains("never put a secret"))
    );
    assert!(
        found
            .iter()
            .any(|(l, m)| *l == 9 && m.contains("bad source"))
    );
}

#[test]
fn an_inventory_whose_pieces_mean_something_else_is_read_whole() {
    let after = |tail: &str| format!("{HOST}{tail}");
    let whole = [
        // `[[host]]` inside a multi-line string: the piece before it is not TOML.
        after("notes = \"\"\"\n[[host]]\nname = \"ghost\"\n\"\"\"\n"),
        // Inside a multi-line array.
        after("tags = [\n  \"a\",\n[[host]]\n]\n"),
        // A host's piece that sets more than its host.
        after("[defaults]\nfleet = \"azure-local\"\n"),
        after("[fleet.azure-local]\nca_file = \"ca.pem\"\n"),
        // `host` set before the first header.
        format!("host = []\n{HOST}"),
        // A piece that is not TOML on its own.
        after("[[host]]\nname = \"b\nfleet = \"f\"\n"),
        format!("[defaults\n{HOST}"),
    ];
    for text in &whole {
        assert!(!same_as_whole(text), "read in pieces: {text}");
    }
    // The string's `[[host]]` is no host.
    let inventory = parse(&whole[0]).expect_err("`notes` is no key of a host");
    assert!(
        inventory
            .problems
            .iter()
            .all(|p| !p.message.contains("ghost")),
        "{inventory}"
    );
    assert_problem(&whole[5], 7, "not TOML");
}

#[test]
fn a_vcenter_named_once_reads_every_esxi_host_of_its_group_by_its_name() {
    let pin = format!("sha256:{}", "ab".repeat(32));
    let text = format!(
        r#"
[defaults]
fleet = "esxi"

[fleet.esxi]
vcenter = "vcenter://ops@vc01.example.com?pin={pin}"

[[host]]
name = "esx01"

[[host]]
name = "esx02"
sources = ["redfish=https://bmc-esx02"]

[[host]]
name = "esx03"
sources = ["esxi=ssh://root@esx03"]

[[host]]
name = "azl-node09"
sources = ["redfish=https://bmc-azl-node09", "windows=ssh://admin@azl-node09"]
"#
    );
    let inventory = parse(&text).unwrap_or_else(|e| panic!("{e}"));
    let sources = |name: &str| {
        inventory
            .host(name)
            .unwrap()
            .sources
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
    };
    assert_eq!(
        sources("esx01"),
        [format!(
            "esxi=vcenter://ops@vc01.example.com?host=esx01&pin={pin}"
        )]
    );
    assert_eq!(
        sources("esx02"),
        [
            "redfish=https://bmc-esx02".to_owned(),
            format!("esxi=vcenter://ops@vc01.example.com?host=esx02&pin={pin}")
        ]
    );
    // A host with an esxi source of its own keeps it; a Windows host is no ESXi host.
    assert_eq!(sources("esx03"), ["esxi=ssh://root@esx03"]);
    assert_eq!(sources("azl-node09").len(), 2);
    assert_problem(
        "[defaults]\nfleet = \"f\"\nvcenter = \"vcenter://vc01?host=esx01\"\n",
        3,
        "a group's vCenter names no host=",
    );
    assert_problem(
        "[defaults]\nfleet = \"f\"\n\n[[host]]\nname = \"lonely\"\n",
        4,
        "host `lonely` has no `sources`",
    );
}

#[test]
fn the_hosts_of_a_large_inventory_take_the_room_they_need() {
    // Read in pieces (each `[[host]]` on its own) or whole: either way, the list a run keeps
    // for its length holds no room for the hosts it was made of.
    for pieces in [true, false] {
        let mut text = String::from("[defaults]\nfleet = \"lab\"\n");
        for n in 0..1000 {
            text.push_str(&format!(
                "\n[[host]]\nname = \"node{n:04}\"\nsources = [\"redfish=https://10.0.{}.{}\"]\n",
                n / 250,
                n % 250 + 1
            ));
        }
        if !pieces {
            // A multi-line array makes the reader take the text whole.
            text.push_str("\n[[host]]\nname = \"last\"\nsources = [\n  \"linux=local:\",\n]\n");
        }
        let inventory = parse(&text).unwrap_or_else(|e| panic!("{e}"));
        assert!(inventory.hosts.len() >= 1000);
        assert_eq!(
            inventory.hosts.capacity(),
            inventory.hosts.len(),
            "{pieces}"
        );
    }
}
