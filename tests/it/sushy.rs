//! driftgate against the OpenStack Redfish emulator (sushy-tools' `sushy-emulator` over
//! libvirt's test driver): a Redfish server written by others, whose BIOS settings a PATCH
//! changes. Its registry is listed under another name than its BIOS gives (the crawl finds it
//! by its `Id`), its BIOS `Settings` apply at once, a changed attribute is judged by the
//! built-in `bios-attributes` rule, and the PATCH `fix apply` sends to bring it back is one a
//! third-party implementation accepts and applies.

use crate::common;

use std::path::{Path, PathBuf};

use serde_json::json;

use common::capture::{Captured, capture};
use common::driftgate;
use common::sushy::{HOST, Sushy};

/// `driftgate capture` of `sushy`, also written to `dir/name.json` for `check`.
fn capture_into(sushy: &Sushy, dir: &Path, name: &str, extra: &[&str]) -> (Captured, PathBuf) {
    let captured = capture(&format!("redfish={}", sushy.url()), extra, false);
    assert_eq!(
        (captured.code, captured.status()),
        (0, "complete"),
        "{}: {}",
        captured.error(),
        sushy.stderr()
    );
    let path = dir.join(format!("{name}.json"));
    std::fs::write(&path, &captured.text).unwrap();
    (captured, path)
}

#[test]
fn sushy_starts_answers_and_leaves_no_process_behind() {
    let sushy = Sushy::start();
    let root = sushy.get("/redfish/v1");
    assert_eq!(root["Systems"]["@odata.id"], "/redfish/v1/Systems");
    // libvirt's test domain, by its UUID: `Systems/test` only redirects there.
    let system = sushy.system_uri().to_owned();
    assert!(
        system.starts_with("/redfish/v1/Systems/") && !system.ends_with("/test"),
        "{system}"
    );
    let address = sushy
        .url()
        .strip_prefix("http://")
        .expect("plain http")
        .to_owned();
    let pid = sushy.pid();
    drop(sushy);
    assert!(
        !Path::new(&format!("/proc/{pid}")).exists(),
        "sushy-emulator (pid {pid}) is still there, or a zombie"
    );
    assert!(
        std::net::TcpStream::connect(&address).is_err(),
        "{address} still accepts connections"
    );
}

#[test]
fn a_capture_of_sushy_is_complete_with_its_bios_read_through_its_registry() {
    let sushy = Sushy::start();
    let dir = tempfile::tempdir().unwrap();
    let mockup = dir.path().join("mockup");
    let (captured, _) = capture_into(
        &sushy,
        dir.path(),
        "sushy",
        &["--save-mockup", mockup.to_str().unwrap()],
    );
    let facts = &captured.snapshot["facts"];
    for (name, value) in [
        ("bios/BootMode", "Uefi"),
        ("bios/ProcTurboMode", "Enabled"),
        ("bios/EmbeddedSata", "Raid"),
        ("bios/NumCores", "10"),
    ] {
        assert_eq!(facts[name], value, "{name}: {facts}");
    }
    // Its `Password` attribute is a secret: never a fact, whatever its value.
    assert!(facts.get("bios/SysPassword").is_none(), "{facts}");
    // The BIOS names `BiosAttributeRegistryP89.v1_0_0`; `Registries` lists only
    // `BiosAttributeRegistry.v1_0_0`, whose file locates the registry of that Id.
    let registry = mockup.join("redfish/v1/Systems/Bios/BiosRegistry/index.json");
    let registry: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&registry).unwrap()).unwrap();
    assert_eq!(registry["Id"], "BiosAttributeRegistryP89.v1_0_0");
}

#[test]
fn a_bios_setting_changed_through_sushy_is_a_changed_fact_and_check_warns() {
    let sushy = Sushy::start();
    let dir = tempfile::tempdir().unwrap();
    let (_, before) = capture_into(&sushy, dir.path(), "before", &[]);

    let bios = format!("{}/BIOS", sushy.system_uri());
    let settings = sushy.get(&bios)["@Redfish.Settings"]["SettingsObject"]["@odata.id"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(settings, format!("{bios}/Settings"));
    let reply = sushy.patch(
        &settings,
        &json!({"Attributes": {"ProcTurboMode": "Disabled"},
                "@Redfish.SettingsApplyTime": {"ApplyTime": "OnReset"}}),
    );
    assert_eq!((reply.status, reply.body.as_str()), (204, ""));
    // sushy applies it at once, whatever the apply time asked: no reset needed.
    assert_eq!(sushy.get(&bios)["Attributes"]["ProcTurboMode"], "Disabled");

    let (after_captured, after) = capture_into(&sushy, dir.path(), "after", &[]);
    assert_eq!(
        after_captured.snapshot["facts"]["bios/ProcTurboMode"],
        "Disabled"
    );
    let output = driftgate()
        .arg("check")
        .arg("--snapshot")
        .arg(&after)
        .arg("--baseline")
        .arg(&before)
        .args(["--format", "json"])
        .output()
        .unwrap();
    // A warning is not a failure without --strict.
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["verdict"], "warn", "{report}");
    assert_eq!(
        report["findings"],
        json!([{
            "kind": "changed",
            "id": "bios-attributes",
            "severity": "warn",
            "path": "bios/ProcTurboMode",
            "old": "Enabled",
            "new": "Disabled",
            "message": "changed from \"Enabled\" to \"Disabled\"",
            "why": "A BIOS setting changed; updates sometimes reset them to defaults.",
        }])
    );
}

/// `gate pre` or `gate post` of run `run` in `store` (`host` for pre), as JSON: exit code and
/// report.
fn gate(store: &Path, step: &str, run: &str, extra: &[&str]) -> (i32, serde_json::Value) {
    let output = driftgate()
        .arg("gate")
        .arg(step)
        .arg("--repo")
        .arg(store)
        .args(["--run", run, "--format", "json"])
        .args(extra)
        .output()
        .unwrap();
    let report = serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!("{e}: {}", String::from_utf8_lossy(&output.stderr));
    });
    (output.status.code().unwrap(), report)
}

#[test]
fn a_bios_drift_on_sushy_is_planned_applied_by_fix_and_verified_by_gate_post() {
    let sushy = Sushy::start();
    let dir = tempfile::tempdir().unwrap();
    let store = sushy.promoted_store(dir.path());
    let settings = format!("{}/BIOS/Settings", sushy.system_uri());
    let drift = json!({"Attributes": {"ProcTurboMode": "Disabled"}});
    assert_eq!(sushy.patch(&settings, &drift).status, 204);

    // A BIOS setting is a warning: the host may be flashed; --strict makes it a block.
    let (code, pre) = gate(&store, "pre", "R", &[HOST]);
    assert_eq!((code, &pre["verdict"]), (0, &json!("warn")), "{pre}");
    let findings = &pre["hosts"][0]["report"]["findings"];
    assert_eq!(findings[0]["id"], "bios-attributes", "{findings}");
    assert_eq!(findings[0]["path"], "bios/ProcTurboMode", "{findings}");
    let (code, strict) = gate(&store, "pre", "R-strict", &["--strict", HOST]);
    assert_eq!((code, &strict["verdict"]), (1, &json!("block")), "{strict}");

    // The round trip through `fix`: the strict run blocks on the BIOS setting, its plan is a
    // PATCH of the BIOS's settings object that sushy accepts. sushy applies it at once and
    // ignores the apply time asked for (OnReset): the record says so, and the next capture
    // has the known-good value.
    let fix = |args: &[&str]| {
        let output = driftgate()
            .arg("fix")
            .args(args)
            .arg("--repo")
            .arg(&store)
            .output()
            .unwrap();
        let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
        (
            output.status.code().unwrap(),
            text(&output.stdout),
            text(&output.stderr),
        )
    };
    let (code, plan, stderr) = fix(&["plan", "--run", "R-strict", "--format", "json"]);
    assert_eq!(code, 0, "{plan}{stderr}");
    let plan: serde_json::Value = serde_json::from_str(&plan).unwrap();
    let action = &plan["hosts"][0]["steps"][0]["action"];
    assert_eq!(action["settings"], json!(settings), "{plan:#}");
    assert_eq!(
        action["body"],
        json!({"Attributes": {"ProcTurboMode": "Enabled"}, "@Redfish.SettingsApplyTime": {"ApplyTime": "OnReset"}}),
        "{plan:#}"
    );
    let (code, _, stderr) = fix(&["apply", "--run", "R-strict", "--ticket", "T-1", "--yes"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stderr.contains("applied: the BMC applied it at once although OnReset was asked"),
        "{stderr}"
    );
    let bios = sushy.get(&format!("{}/BIOS", sushy.system_uri()));
    assert_eq!(bios["Attributes"]["ProcTurboMode"], "Enabled");
    let (code, post) = gate(&store, "post", "R-strict", &[]);
    assert_eq!((code, &post["verdict"]), (0, &json!("pass")), "{post}");
    assert_eq!(
        post["hosts"][0]["fixes"][0]["state"], "took_effect",
        "{post}"
    );

    let (code, post) = gate(&store, "post", "R", &[]);
    assert_eq!((code, &post["verdict"]), (0, &json!("pass")), "{post}");
    assert_eq!(post["hosts"][0]["report"]["findings"], json!([]), "{post}");
}
