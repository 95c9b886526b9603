//! End-to-end tests of the `driftgate` binary: verdicts, exit codes, formats and input errors.

use crate::common;

use std::path::Path;

use assert_cmd::Command;
use common::{driftgate, example, root, stdout_of, temp_file};
use predicates::prelude::*;

fn check(snapshot: &str, baseline: Option<&str>) -> Command {
    let mut cmd = driftgate();
    cmd.args(["check", "--snapshot", &example(snapshot)]);
    if let Some(baseline) = baseline {
        cmd.args(["--baseline", &example(baseline)]);
    }
    cmd
}

#[test]
fn seed_1_post_update_against_baseline_blocks_naming_dcbx_and_pfc() {
    let (code, out) = stdout_of(&mut check(
        "azure-local-dcbx/post-update.json",
        Some("azure-local-dcbx/baseline.json"),
    ));
    assert_eq!(code, 1, "{out}");
    let first = out.lines().next().unwrap();
    assert!(first.starts_with("BLOCK azl-node01: "), "{first}");
    assert!(
        first.contains("dcbx-mode") && first.contains("pfc-not-operational"),
        "{first}"
    );
    assert!(
        out.contains(
            "firmware/nic.slot.3-1-1/version changed from \"229.0.166.0\" to \"229.1.123.0\""
        ),
        "{out}"
    );
    assert!(
        out.contains("not enforcing the OS PFC configuration"),
        "{out}"
    );
}

/// Seed 1 reads as one story per affected port, the root cause first: the setting in the NIC
/// firmware, what the OS shows, the firmware that changed; the 32 findings after them.
#[test]
fn seed_1_check_tells_one_story_per_port_in_text_and_markdown() {
    let dir = tempfile::tempdir().unwrap();
    let md_file = dir.path().join("ticket.md");
    let (code, text) = stdout_of(
        check(
            "azure-local-dcbx/post-update.json",
            Some("azure-local-dcbx/baseline.json"),
        )
        .arg("--report")
        .arg(format!("markdown={}", md_file.display())),
    );
    assert_eq!(code, 1, "{text}");
    let lines: Vec<&str> = text.lines().collect();
    let stories = lines
        .iter()
        .position(|l| l.starts_with("STORIES (2)"))
        .unwrap_or_else(|| panic!("no stories: {text}"));
    let details = lines
        .iter()
        .position(|l| *l == "BLOCK (28)")
        .unwrap_or_else(|| panic!("no findings: {text}"));
    assert!(stories < details, "{text}");
    // The stories are on the first screen of a terminal.
    assert!(details < 30, "{text}");
    let told = &lines[stories + 1..details];
    let heads: Vec<usize> = (0..told.len())
        .filter(|&i| told[i].starts_with("  block  port "))
        .collect();
    assert_eq!(heads.len(), 2, "one story per affected port: {told:#?}");
    for (n, &at) in heads.iter().enumerate() {
        let port = n + 1;
        assert!(
            told[at].starts_with(&format!(
                "  block  port \"SLOT 3 Port {port}\" (00:0a:f7:12:34:5{}) on NIC.Slot.3",
                5 + port
            )),
            "{}",
            told[at]
        );
        let end = heads.get(n + 1).copied().unwrap_or(told.len());
        let story: Vec<&str> = told[at + 1..end]
            .iter()
            .map(|l| l.trim())
            .filter(|l| !l.is_empty())
            .collect();
        assert_eq!(
            story[0],
            format!(
                "setting in the NIC firmware  bmc/function/00:0a:f7:12:34:5{}/dcbx_mode \"ieee\" → \"disabled\"",
                5 + port
            )
        );
        assert!(
            story[1].starts_with(
                "what the OS shows            os/dcbx_support/current \"ieee\" → \"none\""
            ),
            "{story:#?}"
        );
        assert_eq!(
            story.last().copied(),
            Some("the firmware that changed    229.0.166.0 → 229.1.123.0"),
            "{story:#?}"
        );
    }

    let md = std::fs::read_to_string(&md_file).unwrap();
    let findings = md.find("\n#### Findings\n").expect("the findings");
    let told = &md[..findings];
    assert_eq!(told.matches("\n#### port ").count(), 2, "{told}");
    for port in [1, 2] {
        let at = told
            .find(&format!("#### port \"SLOT 3 Port {port}\""))
            .unwrap_or_else(|| panic!("{told}"));
        let story = &told[at..];
        let story = &story[..story[1..].find("\n#### ").map_or(story.len(), |n| n + 1)];
        let bullets: Vec<&str> = story.lines().filter(|l| l.starts_with("- ")).collect();
        assert_eq!(bullets.len(), 3, "{story}");
        assert_eq!(
            bullets[0],
            format!(
                "- Setting in the NIC firmware: `bmc/function/00:0a:f7:12:34:5{}/dcbx_mode` \"ieee\" → \"disabled\"",
                5 + port
            )
        );
        assert!(
            bullets[1]
                .starts_with("- What the OS shows: `os/dcbx_support/current` \"ieee\" → \"none\""),
            "{story}"
        );
        assert_eq!(
            bullets[2],
            "- The firmware that changed: 229.0.166.0 → 229.1.123.0"
        );
    }
    // Every finding is still in the table below.
    assert_eq!(md[findings..].matches("\n| block |").count(), 28, "{md}");
    assert_eq!(md[findings..].matches("\n| info |").count(), 4, "{md}");
}

#[test]
fn seed_1_pre_update_against_baseline_passes() {
    let (code, out) = stdout_of(&mut check(
        "azure-local-dcbx/pre-update.json",
        Some("azure-local-dcbx/baseline.json"),
    ));
    assert_eq!(code, 0, "{out}");
    assert!(out.starts_with("PASS azl-node01: no findings"), "{out}");
}

#[test]
fn seed_1_post_update_alone_blocks_through_invariants() {
    let (code, out) = stdout_of(&mut check("azure-local-dcbx/post-update.json", None));
    assert_eq!(code, 1, "{out}");
    for id in [
        "[pfc-not-operational]",
        "[dcbx-capability-lost]",
        "[bmc-dcbx-disabled-with-rdma]",
    ] {
        assert!(out.contains(id), "{id} missing from {out}");
    }
}

#[test]
fn seed_2_round_robin_on_the_mscs_rdm_blocks() {
    let (code, out) = stdout_of(&mut check(
        "esxi-mscs-psp/current.json",
        Some("esxi-mscs-psp/baseline.json"),
    ));
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("\"VMW_PSP_MRU\" → \"VMW_PSP_RR\""), "{out}");
    assert!(out.contains("[psp-rr-on-reserved-device]"), "{out}");
    assert!(
        out.contains("naa.60050768028081713c0000000000007d"),
        "{out}"
    );
    let (code, _) = stdout_of(&mut check("esxi-mscs-psp/current.json", None));
    assert_eq!(code, 1);
    let (code, out) = stdout_of(&mut check("esxi-mscs-psp/baseline.json", None));
    assert_eq!(code, 0, "{out}");
}

#[test]
fn a_firmware_only_update_passes() {
    let (code, out) = stdout_of(&mut check(
        "benign-firmware-update/post-update.json",
        Some("benign-firmware-update/baseline.json"),
    ));
    assert_eq!(code, 0, "{out}");
    assert!(out.starts_with("PASS azl-node02: 3 info"), "{out}");
}

#[test]
fn an_incomplete_capture_exits_3_even_with_nothing_else_to_say() {
    let fixture = root().join("tests/fixtures/azl-node01-windows-failed.json");
    let (code, out) = stdout_of(driftgate().args(["check", "--snapshot"]).arg(&fixture));
    assert_eq!(code, 3, "{out}");
    assert!(
        out.starts_with("INCOMPLETE azl-node01: snapshot source windows (ssh://azl-node01) failed"),
        "{out}"
    );
    // Used as the baseline it makes the comparison incomplete as well.
    let (code, _) = stdout_of(
        driftgate()
            .args([
                "check",
                "--snapshot",
                &example("azure-local-dcbx/pre-update.json"),
                "--baseline",
            ])
            .arg(&fixture),
    );
    assert_eq!(code, 3);
}

#[test]
fn strict_makes_warnings_block() {
    let dir = tempfile::tempdir().unwrap();
    let policy = dir.path().join("strict.toml");
    std::fs::write(
        &policy,
        "[[rule]]\nid = \"firmware-versions\"\non_change = \"warn\"\n",
    )
    .unwrap();
    let run = |strict: bool| {
        let mut cmd = check(
            "benign-firmware-update/post-update.json",
            Some("benign-firmware-update/baseline.json"),
        );
        cmd.arg("--policy").arg(&policy);
        if strict {
            cmd.arg("--strict");
        }
        stdout_of(&mut cmd)
    };
    let (code, out) = run(false);
    assert_eq!(code, 0, "{out}");
    assert!(out.starts_with("WARN azl-node02: 3 warnings"), "{out}");
    let (code, out) = run(true);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("--strict: warnings block"), "{out}");
}

#[test]
fn json_reports_validate_against_the_checked_in_schema() {
    let schema: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("schemas/report.schema.json")).unwrap(),
    )
    .unwrap();
    let validator = jsonschema::validator_for(&schema).expect("the report schema compiles");
    let cases = [
        (
            "azure-local-dcbx/post-update.json",
            Some("azure-local-dcbx/baseline.json"),
            "block",
        ),
        (
            "azure-local-dcbx/pre-update.json",
            Some("azure-local-dcbx/baseline.json"),
            "pass",
        ),
        ("esxi-mscs-psp/current.json", None, "block"),
        (
            "benign-firmware-update/post-update.json",
            Some("benign-firmware-update/baseline.json"),
            "pass",
        ),
    ];
    for (snapshot, baseline, verdict) in cases {
        let (_, out) = stdout_of(check(snapshot, baseline).args(["--format", "json"]));
        let report: serde_json::Value =
            serde_json::from_str(&out).unwrap_or_else(|e| panic!("{snapshot}: {e}\n{out}"));
        let errors: Vec<String> = validator
            .iter_errors(&report)
            .map(|e| e.to_string())
            .collect();
        assert!(errors.is_empty(), "{snapshot}: {errors:?}");
        assert_eq!(report["verdict"], verdict, "{snapshot}");
        assert_eq!(report["schema"], "driftgate.report/v1");
    }
    let (code, out) = stdout_of(
        driftgate()
            .args(["check", "--format", "json", "--snapshot"])
            .arg(root().join("tests/fixtures/azl-node01-windows-failed.json")),
    );
    assert_eq!(code, 3);
    let report: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(validator.is_valid(&report));
    assert_eq!(
        report["incomplete_sources"][0]["error"],
        "ssh://azl-node01: connection timed out after 10 s"
    );
    // Staged values and per-port firmware attribution are in the schema too.
    for snapshot in [
        "staged-flow-control-reset.json",
        "nic-firmware-and-dcbx.json",
    ] {
        let (_, out) = check_issue10(snapshot, &["--format", "json"]);
        let report: serde_json::Value = serde_json::from_str(&out).unwrap();
        let errors: Vec<String> = validator
            .iter_errors(&report)
            .map(|e| e.to_string())
            .collect();
        assert!(errors.is_empty(), "{snapshot}: {errors:?}");
    }
}

#[test]
fn markdown_report_fits_a_ticket() {
    let (code, out) = stdout_of(
        check(
            "esxi-mscs-psp/current.json",
            Some("esxi-mscs-psp/baseline.json"),
        )
        .args(["--format", "markdown"]),
    );
    assert_eq!(code, 1);
    let out = out.replace(&root().display().to_string(), "<root>");
    insta::assert_snapshot!("esxi_markdown", out);
}

#[test]
fn text_report_of_seed_2() {
    let (_, out) = stdout_of(&mut check(
        "esxi-mscs-psp/current.json",
        Some("esxi-mscs-psp/baseline.json"),
    ));
    let out = out.replace(&root().display().to_string(), "<root>");
    insta::assert_snapshot!("esxi_text", out);
}

#[test]
fn colour_only_on_request_or_a_terminal() {
    let escape = predicate::str::contains("\u{1b}[");
    check("esxi-mscs-psp/current.json", None)
        .assert()
        .code(1)
        .stdout(escape.clone().not());
    check("esxi-mscs-psp/current.json", None)
        .args(["--color", "always"])
        .assert()
        .code(1)
        .stdout(escape.clone());
    check("esxi-mscs-psp/current.json", None)
        .args(["--color", "never"])
        .assert()
        .code(1)
        .stdout(escape.not());
}

#[test]
fn snapshots_can_come_from_standard_input_once() {
    let text = std::fs::read_to_string(example("esxi-mscs-psp/current.json")).unwrap();
    driftgate()
        .args(["check", "--snapshot", "-"])
        .write_stdin(text.clone())
        .assert()
        .code(1);
    driftgate()
        .args(["diff", "-", "-"])
        .write_stdin(text)
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "standard input (`-`) can be read only once",
        ));
}

#[test]
fn diff_classifies_changes_only() {
    let (code, out) = stdout_of(driftgate().args([
        "diff",
        &example("esxi-mscs-psp/baseline.json"),
        &example("esxi-mscs-psp/current.json"),
    ]));
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("[esxi-psp]") && !out.contains("[psp-rr-on-reserved-device]"),
        "{out}"
    );
    let (code, out) = stdout_of(driftgate().args([
        "diff",
        &example("esxi-mscs-psp/current.json"),
        &example("esxi-mscs-psp/current.json"),
    ]));
    assert_eq!(code, 0, "{out}");
    driftgate()
        .args([
            "diff",
            &example("esxi-mscs-psp/baseline.json"),
            &example("azure-local-dcbx/baseline.json"),
        ])
        .assert()
        .stderr(predicate::str::contains("comparing different hosts"));
}

#[test]
fn check_refuses_a_baseline_of_another_host() {
    check(
        "esxi-mscs-psp/current.json",
        Some("azure-local-dcbx/baseline.json"),
    )
    .assert()
    .code(2)
    .stderr(
        predicate::str::contains("is a snapshot of host esx01 but baseline")
            .and(predicate::str::contains("azl-node01")),
    );
}

fn assert_input_error(snapshot: &Path, needle: &str) {
    let name = snapshot.display().to_string();
    driftgate()
        .args(["check", "--snapshot", &name])
        .assert()
        .code(2)
        .stdout("")
        .stderr(
            predicate::str::contains(format!("driftgate: error: {name}: "))
                .and(predicate::str::contains(needle)),
        );
}

/// `text` with the line containing `needle` preceded by a copy of it whose `from` reads `to`.
fn duplicate_fact_line(text: &str, needle: &str, from: &str, to: &str) -> String {
    let mut out = String::new();
    for line in text.lines() {
        if line.contains(needle) {
            out.push_str(&line.replace(from, to));
            out.push('\n');
        }
        out.push_str(line);
        out.push('\n');
    }
    assert_ne!(out.len(), text.len(), "{needle} is in the example");
    out
}

#[test]
fn bad_snapshots_exit_2_naming_the_file() {
    let good = std::fs::read_to_string(example("esxi-mscs-psp/current.json")).unwrap();
    let cases = [
        (
            "malformed.json",
            good[..good.len() / 2].to_owned(),
            "not a valid driftgate snapshot",
        ),
        (
            "wrong-schema.json",
            good.replace("driftgate.snapshot/v1", "driftgate.snapshot/v0"),
            "schema is \"driftgate.snapshot/v0\"",
        ),
        (
            "edited.json",
            good.replace("\"VMW_PSP_RR\"", "\"VMW_PSP_MRU\""),
            "digest mismatch",
        ),
        (
            "unsealed.json",
            good.lines()
                .filter(|l| !l.contains("\"digest\""))
                .collect::<Vec<_>>()
                .join("\n"),
            "has no digest",
        ),
        (
            "empty.json",
            String::new(),
            "not a valid driftgate snapshot",
        ),
        (
            // The digest covers the re-serialized form, where the last value wins: a reader
            // of the file sees MRU first, the judge would have seen RR.
            "duplicated-fact.json",
            duplicate_fact_line(
                &good,
                "7d/psp\": \"VMW_PSP_RR\"",
                "VMW_PSP_RR",
                "VMW_PSP_MRU",
            ),
            "key \"storage/nmp/naa.60050768028081713c0000000000007d/psp\" appears twice in \"facts\"",
        ),
    ];
    for (name, text, needle) in cases {
        let (_dir, path) = temp_file(name, &text);
        assert_input_error(&path, needle);
    }
    assert_input_error(Path::new("/nonexistent/snapshot.json"), "cannot read");
}

#[test]
fn a_bad_policy_exits_2_naming_file_and_line() {
    let (_dir, policy) = temp_file(
        "fleet.toml",
        "[[rule]]\nid = \"x\"\npath = \"nic/**\"\non_change = \"block\"\nseverity = \"high\"\n",
    );
    let name = policy.display().to_string();
    check("esxi-mscs-psp/current.json", None)
        .args(["--policy", &name])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(format!(
            "{name}:5:1: unknown field `severity`"
        )));
    driftgate()
        .args(["policy", "show", "--policy", &name])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(format!("{name}:5:1")));
    // The environment variable names the policy as well.
    check("esxi-mscs-psp/current.json", None)
        .env("DRIFTGATE_POLICY", &name)
        .assert()
        .code(2);
}

#[test]
fn a_user_policy_can_turn_an_invariant_off() {
    let (_dir, policy) = temp_file(
        "fleet.toml",
        "[invariants]\npsp-rr-on-reserved-device = \"ignore\"\n",
    );
    check("esxi-mscs-psp/current.json", None)
        .arg("--policy")
        .arg(&policy)
        .assert()
        .code(0);
}

#[test]
fn usage_errors_exit_2() {
    driftgate()
        .args(["check"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--snapshot"));
    driftgate()
        .args(["check", "--snapshot", "x", "--format", "yaml"])
        .assert()
        .code(2);
    driftgate().args(["schema", "nothing"]).assert().code(2);
}

#[test]
fn schema_command_prints_the_checked_in_schemas() {
    for name in ["snapshot", "policy", "report"] {
        let expected =
            std::fs::read_to_string(root().join(format!("schemas/{name}.schema.json"))).unwrap();
        driftgate()
            .args(["schema", name])
            .assert()
            .code(0)
            .stdout(expected);
    }
}

#[test]
fn examples_validate_against_the_snapshot_schema_and_the_store_mirrors_their_baselines() {
    let schema: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("schemas/snapshot.schema.json")).unwrap(),
    )
    .unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    for dir in [
        "azure-local-dcbx",
        "benign-firmware-update",
        "esxi-mscs-psp",
    ] {
        for entry in std::fs::read_dir(root().join("examples").join(dir)).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "json") {
                let doc: serde_json::Value =
                    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
                assert!(validator.is_valid(&doc), "{}", path.display());
            }
        }
    }
    for (store, example) in [
        (
            "baselines/azure-local/azl-node01.json",
            "examples/azure-local-dcbx/baseline.json",
        ),
        (
            "baselines/azure-local/azl-node02.json",
            "examples/benign-firmware-update/baseline.json",
        ),
        (
            "baselines/esxi-mscs/esx01.json",
            "examples/esxi-mscs-psp/baseline.json",
        ),
    ] {
        let a = std::fs::read_to_string(root().join(store)).unwrap();
        let b = std::fs::read_to_string(root().join(example)).unwrap();
        assert_eq!(a, b, "{store} differs from {example}");
    }
}

#[test]
fn seal_writes_canonical_form_and_refuses_a_tampered_digest() {
    let sealed = std::fs::read_to_string(example("esxi-mscs-psp/baseline.json")).unwrap();
    let value: serde_json::Value = serde_json::from_str(&sealed).unwrap();
    let mut unsealed = value.clone();
    unsealed.as_object_mut().unwrap().remove("digest");
    let (dir, input) = temp_file("hand.json", &serde_json::to_string(&unsealed).unwrap());
    let out = dir.path().join("sealed.json");
    driftgate()
        .args(["snapshot", "seal"])
        .arg(&input)
        .arg("--out")
        .arg(&out)
        .assert()
        .code(0);
    assert_eq!(std::fs::read_to_string(&out).unwrap(), sealed);

    let tampered = sealed.replace("\"VMW_PSP_MRU\"", "\"VMW_PSP_RR\"");
    let (_dir2, bad) = temp_file("tampered.json", &tampered);
    driftgate()
        .args(["snapshot", "seal"])
        .arg(&bad)
        .arg("--out")
        .arg(&out)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("digest mismatch"));
    assert_eq!(
        std::fs::read_to_string(&out).unwrap(),
        sealed,
        "a refused seal leaves the old file"
    );
}

#[test]
fn help_explains_exit_codes() {
    driftgate()
        .arg("--help")
        .assert()
        .code(0)
        .stdout(predicate::str::contains("3 incomplete"));
}

/// `check` of a hand-written issue-10 snapshot against its baseline, both under
/// `tests/fixtures/compare/issue10/`.
fn check_issue10(snapshot: &str, extra: &[&str]) -> (i32, String) {
    let dir = root().join("tests/fixtures/compare/issue10");
    stdout_of(
        driftgate()
            .args(["check", "--snapshot"])
            .arg(dir.join(snapshot))
            .arg("--baseline")
            .arg(dir.join("baseline.json"))
            .args(extra),
    )
}

#[test]
fn a_benign_firmware_only_update_with_version_attributes_passes_under_strict() {
    // Inventory versions, BIOS and NIC version attributes, the port's package version, the
    // OS's view of it, and a BIOS clock that moved: nothing to warn about.
    let (code, out) = check_issue10("firmware-only.json", &["--strict"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.starts_with("PASS lab-node10: 8 info"), "{out}");
    assert!(!out.contains("bios/DateTime"), "{out}");
}

#[test]
fn a_staged_flow_control_reset_blocks_until_the_next_reboot() {
    let (code, out) = check_issue10("staged-flow-control-reset.json", &[]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("[bmc-flow-control]"), "{out}");
    assert!(out.contains("takes effect at the next reboot"), "{out}");
    let (code, out) = check_issue10("staged-flow-control-reset.json", &["--format", "json"]);
    assert_eq!(code, 1, "{out}");
    let report: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(report["findings"][0]["pending"], true, "{out}");
}

#[test]
fn a_nic_firmware_bump_is_named_in_the_finding_of_its_ports_changed_setting() {
    let (code, out) = check_issue10("nic-firmware-and-dcbx.json", &[]);
    assert_eq!(code, 1, "{out}");
    let finding = out
        .find("/bmc/function/02:5a:10:00:01:01/dcbx_mode  [dcbx-mode]")
        .unwrap_or_else(|| panic!("{out}"));
    let line = out[finding..]
        .lines()
        .find(|l| l.contains("NIC firmware of this port"))
        .unwrap_or_else(|| panic!("{out}"));
    assert!(
        line.contains(
            "NIC firmware of this port: \"22.31.1014\" → \"22.36.1010\" (nic/02:5a:10:00:01:01/bmc/firmware/version)"
        ),
        "the port's own firmware comes first: {line}"
    );
    // The rest of the host's is counted beside the finding and listed once, above.
    assert!(
        line.ends_with("; 1 other firmware change on this host (listed above)"),
        "{line}"
    );
    let alongside = out.find("firmware changed alongside:").unwrap();
    assert!(
        out[alongside..finding].contains("firmware/bios/version"),
        "{out}"
    );
    assert!(out.contains("function NIC.Slot.1-1-1"), "{out}");
}

#[test]
fn the_nic_firmware_lldp_agent_switched_on_blocks() {
    let (code, out) = check_issue10("lldp-agent-on.json", &[]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("[bmc-lldp]"), "{out}");
    assert!(out.contains("competes with the host's DCBX"), "{out}");
}

/// A name too long for the file names built from it is refused wherever it enters, naming its
/// length, the limit and the file name, with exit 2 and nothing written: `capture --host` and
/// `import --host` (a host name of 250 bytes: `<host>.result.json` would be 262), `baseline
/// promote --fleet` (a fleet of 256 bytes is itself too long a folder name). 243 bytes pass.
#[test]
fn a_name_too_long_for_its_file_names_is_refused_wherever_it_enters() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("snapshot.json");
    let bmc = root().join("examples/azure-local-dcbx/recorded/baseline/bmc");
    let paste = root().join("tests/fixtures/windows/get-netadapterqos-seed1.txt");
    let host = |len: usize| format!("h{}", "x".repeat(len - 1));
    let limit = "over the 243 bytes a host name may have: the file name <host>.result.json";
    for command in ["capture", "import"] {
        let mut cmd = driftgate();
        match command {
            "capture" => cmd
                .args(["capture", "--source"])
                .arg(format!("redfish=mockup:{}", bmc.display())),
            _ => cmd.args(["import", "windows-qos"]).arg(&paste),
        };
        cmd.args(["--host", &host(250), "--out"])
            .arg(&out)
            .assert()
            .code(2)
            .stderr(predicate::str::contains(limit))
            .stderr(predicate::str::contains("is 250 bytes long"));
        assert!(!out.exists(), "{command}");
    }
    driftgate()
        .args(["import", "windows-qos"])
        .arg(&paste)
        .args(["--host", &host(243), "--out"])
        .arg(&out)
        .assert()
        .code(0);
    let store = dir.path().join("store");
    driftgate()
        .args(["baseline", "init"])
        .arg(&store)
        .assert()
        .code(0);
    let commits = || common::git(&store, &["rev-list", "--count", "HEAD"]);
    let before = commits();
    driftgate()
        .arg("--repo")
        .arg(&store)
        .args(["baseline", "promote", "--fleet", &"f".repeat(256)])
        .arg(example("azure-local-dcbx/baseline.json"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "is 256 bytes long, over the 255 bytes a fleet name may have: the file name <fleet> (the baseline folder baselines/<fleet>/) would be 256 bytes",
        ));
    assert_eq!(commits(), before);
}
