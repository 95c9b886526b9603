//! Policy judgements end to end: site policies written against an older built-in policy,
//! staged values, and the built-in rules for LLDP and raw HII attributes.

use crate::common;

use common::{driftgate, root};

const ISSUE10: &str = "tests/fixtures/compare/issue10";

/// `check` of `snapshot` against the issue-10 baseline with `extra` arguments: exit code,
/// stdout, stderr.
fn check(snapshot: &str, extra: &[&str]) -> (i32, String, String) {
    let dir = root().join(ISSUE10);
    let output = driftgate()
        .args(["check", "--snapshot"])
        .arg(dir.join(snapshot))
        .arg("--baseline")
        .arg(dir.join("baseline.json"))
        .args(extra)
        .output()
        .unwrap();
    (
        output.status.code().unwrap(),
        String::from_utf8(output.stdout).unwrap(),
        String::from_utf8(output.stderr).unwrap(),
    )
}

#[test]
fn a_site_policy_with_the_old_bmc_pending_rule_still_blocks_a_staged_flow_control_reset() {
    // Issue 10 (1c): the old default `bmc-pending` rule, kept in a site policy, beat the live
    // path's blocking rule and turned this staged reset into a warning.
    let policy = root()
        .join(ISSUE10)
        .join("site-policy-old-bmc-pending.toml");
    let (code, out, err) = check(
        "staged-flow-control-reset.json",
        &["--policy", policy.to_str().unwrap()],
    );
    assert_eq!(code, 1, "{out}\n{err}");
    assert!(out.starts_with("BLOCK"), "{out}");
    assert!(out.contains("[bmc-flow-control]"), "{out}");
    assert!(out.contains("takes effect at the next reboot"), "{out}");
    // It is told, once, that the id it defines is retired and what judges staged values now.
    let retired: Vec<&str> = err.lines().filter(|l| l.contains("retired")).collect();
    assert_eq!(retired.len(), 1, "{err}");
    assert!(
        retired[0].contains("site-policy-old-bmc-pending.toml:4: rule id \"bmc-pending\" is retired from the built-in policy"),
        "{err}"
    );
    assert!(retired[0].contains("rule of the live path"), "{err}");
    // The built-in policy alone warns about nothing.
    let (code, _, err) = check("staged-flow-control-reset.json", &[]);
    assert_eq!(code, 1);
    assert!(!err.contains("retired"), "{err}");
}

#[test]
fn policy_show_prints_the_new_rules_and_the_staged_value_rule() {
    let output = driftgate().args(["policy", "show"]).output().unwrap();
    assert_eq!(output.status.code(), Some(0));
    let shown = String::from_utf8(output.stdout).unwrap();
    for needle in [
        "id = \"bmc-lldp-receive\"\npath = \"nic/*/bmc/**/lldp/receive/**\"\non_change = \"warn\"",
        "id = \"bmc-lldp-transmit\"\npath = \"nic/*/bmc/**/lldp/transmit/**\"\non_change = \"info\"",
        "id = \"bmc-hii-attributes\"\npath = \"nic/*/bmc/**/hii/**\"\non_change = \"warn\"",
        "id = \"bmc-hii-status\"\npath = \"nic/*/bmc/**/hii/status/**\"\non_change = \"ignore\"",
        "id = \"bmc-hii-dcb\"\npath = \"nic/*/bmc/**/hii/dcb/**\"\non_change = \"block\"",
        "id = \"bios-status\"\npath = \"bios/status/**\"\non_change = \"ignore\"",
        "id = \"bios-dcb\"\npath = \"bios/dcb/**\"\non_change = \"block\"",
        "id = \"bmc-identity\"\npath = \"nic/*/bmc/{adapter,port,interface}\"",
        "lower it only when its path has no wildcard",
    ] {
        assert!(shown.contains(needle), "{needle}\n{shown}");
    }
    // What it shows is a policy that loads to the same rules.
    let (_dir, file) = common::temp_file("shown.toml", &shown);
    let again = driftgate()
        .args(["policy", "show", "--policy"])
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(again.status.code(), Some(0));
    let again = String::from_utf8(again.stdout).unwrap();
    let rules = |text: &str| -> Vec<String> {
        text.lines()
            .filter(|l| !l.starts_with('#'))
            .map(str::to_owned)
            .collect()
    };
    assert_eq!(rules(&shown), rules(&again));
    // The old site rule is flagged there too.
    let policy = root()
        .join(ISSUE10)
        .join("site-policy-old-bmc-pending.toml");
    let output = driftgate()
        .args(["policy", "show", "--policy"])
        .arg(&policy)
        .output()
        .unwrap();
    let err = String::from_utf8(output.stderr).unwrap();
    assert!(err.contains("rule id \"bmc-pending\" is retired"), "{err}");
}
