//! Secrets never reach a file driftgate writes: secrets planted in a mockup's BIOS and NIC
//! (Dell HII) attributes are captured offline and over HTTP with `--save-mockup`, and none
//! shows up in a snapshot, a saved mockup, a report or a log line; a snapshot that still holds
//! one (written before the filter) is judged without printing it; and no child process
//! inherits driftgate's credential variables.

use crate::common;

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use common::planted::{FUNCTION, HEX_KEY, Planted, corpus_names, read_json, write_json};
use common::simulator::{PASSWORD, Simulator, USER};
use common::{copy_dir, driftgate, files_under, root};
use serde_json::{Value, json};

/// The attribute names issue `issue` found leaking (its rows in the secret filter's corpus,
/// which the unit tests read too): `count` of them.
fn issue_names(issue: u64, count: usize) -> Vec<String> {
    let names = corpus_names(issue);
    assert_eq!(names.len(), count, "issue {issue} lists {count}: {names:?}");
    names
}

/// Spellings of secret words beyond those issue 35 lists: case and separators folded away,
/// qualifiers, digits and storage words around the word (the unit tests generate more).
const SPELLINGS: [&str; 11] = [
    "pass-word",
    "PASSWD",
    "Pwd",
    "PIN",
    "aDmInPaSsWoRd",
    "ADMINPIN",
    "Setup Pass.Word",
    "HDD_1_PIN",
    "Bios-Key-HASH",
    "sEcReT",
    "ToKeN",
];

/// What a run printed, kept to be searched.
struct Run {
    code: i32,
    output: String,
}

fn run(cmd: &mut assert_cmd::Command) -> Run {
    let output = cmd.output().unwrap();
    Run {
        code: output.status.code().unwrap(),
        output: format!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        ),
    }
}

/// Captures `planted` offline and over HTTP at `-vvv` with `--save-mockup`, captures the saved
/// copy again, and reports the live snapshot against the example's baseline in every format;
/// no planted value may be in any file written or any line printed, and the controls arrive.
fn assert_nothing_planted_is_written(planted: &Planted) {
    let out = tempfile::tempdir().unwrap();
    let o = |name: &str| out.path().join(name).display().to_string();
    let capture = |source: &str, snapshot: &str, saved: &str| {
        let mut cmd = driftgate();
        cmd.args([
            "-vvv",
            "capture",
            "--host",
            "azl-node01",
            "--source",
            source,
        ])
        .args(["--save-mockup", saved, "--out", snapshot])
        .env("DRIFTGATE_BMC_USERNAME", USER)
        .env("DRIFTGATE_BMC_PASSWORD", PASSWORD);
        run(&mut cmd)
    };
    let mut runs = Vec::new();
    let offline = capture(
        &format!("redfish=mockup:{}", planted.path().display()),
        &o("offline.json"),
        &o("saved-offline"),
    );
    assert_eq!(offline.code, 0, "{}", offline.output);
    runs.push(("offline capture", offline));
    {
        let server = Simulator::start(planted.path(), &["--auth", "session"]);
        let live = capture(
            &format!("redfish={}", server.url),
            &o("live.json"),
            &o("saved-live"),
        );
        assert_eq!(live.code, 0, "{}", live.output);
        assert!(
            live.output.contains("GET /redfish/v1"),
            "-vvv logs requests: {}",
            live.output
        );
        // What was left out is said by name, never by value.
        assert!(
            live.output.contains(
                "withheld as secrets (no value kept): /redfish/v1/Systems/System.Embedded.1/Bios: "
            ),
            "{}",
            live.output
        );
        runs.push(("capture over HTTP", live));
    }
    // The saved copy is a mockup that captures to the same facts, and stays clean.
    let again = capture(
        &format!("redfish=mockup:{}", o("saved-live")),
        &o("again.json"),
        &o("saved-again"),
    );
    assert_eq!(again.code, 0, "{}", again.output);
    runs.push(("capture of the saved mockup", again));
    let facts = |file: &str| read_json(&out.path().join(file))["facts"].clone();
    assert_eq!(facts("live.json"), facts("offline.json"));
    assert_eq!(facts("again.json"), facts("live.json"));
    let formats = [
        "text",
        "json",
        "markdown",
        "junit",
        "sarif",
        "prometheus",
        "html",
    ];
    for format in ["text", "json", "markdown"] {
        let mut cmd = driftgate();
        cmd.args(["check", "--snapshot", &o("live.json")])
            .args(["--baseline", "examples/azure-local-dcbx/baseline.json"])
            .args(["--format", format]);
        if format == "text" {
            for report in formats {
                cmd.args([
                    "--report",
                    &format!("{report}={}", o(&format!("report.{report}"))),
                ]);
            }
        }
        let check = run(&mut cmd);
        // Without the example's windows source the verdict is incomplete; findings are listed.
        assert_eq!(check.code, 3, "{}", check.output);
        assert!(check.output.contains("dcbx_mode"), "{}", check.output);
        runs.push(("check report", check));
    }
    for format in formats {
        let report = std::fs::read_to_string(out.path().join(format!("report.{format}"))).unwrap();
        // Prometheus counts findings and shows no value.
        assert!(
            format == "prometheus" || report.contains("control-bios-keyboard"),
            "{format}: {report}"
        );
    }
    // Not vacuous: the facts and the harmless controls are there, from both attribute sets.
    let snapshot = read_json(&out.path().join("live.json"));
    let facts = &snapshot["facts"];
    for (path, value) in [
        ("bios/KeyboardLayout", "control-bios-keyboard"),
        (
            "bios/pending/KeyboardLayout",
            "control-bios-pending-keyboard",
        ),
        (
            "nic/00:0a:f7:12:34:56/bmc/function/00:0a:f7:12:34:56/hii/KeyboardLayout",
            "control-nic-keyboard",
        ),
        (
            "nic/00:0a:f7:12:34:56/bmc/function/00:0a:f7:12:34:56/pending/hii/NWManagementPassThrough",
            "control-nic-passthrough-staged",
        ),
        (
            "nic/00:0a:f7:12:34:56/bmc/function/00:0a:f7:12:34:56/dcbx_mode",
            "disabled",
        ),
        ("bios/PassWordStatus", "control-bios-password-status"),
    ] {
        assert_eq!(facts[path], json!(value), "{path} in {facts:#}");
    }
    let saved = std::fs::read_to_string(
        out.path()
            .join(format!("saved-live/redfish/v1/{FUNCTION}/index.json")),
    )
    .unwrap();
    assert!(saved.contains("control-nic-passthrough"), "{saved}");
    let files = files_under(out.path());
    assert!(files.len() > 50, "{files:?}");
    // Every leak at once, so a failure shows what reached where.
    let mut leaked = Vec::new();
    for file in files {
        let found = planted.leaks(&std::fs::read_to_string(&file).unwrap());
        if !found.is_empty() {
            let name = file.strip_prefix(out.path()).unwrap().display().to_string();
            leaked.push(format!("{name}: {found:?}"));
        }
    }
    for (what, run) in &runs {
        let found = planted.leaks(&run.output);
        if !found.is_empty() {
            leaked.push(format!("output of {what}: {found:?}"));
        }
    }
    assert!(
        leaked.is_empty(),
        "planted secrets leaked:\n{}",
        leaked.join("\n")
    );
}

#[test]
fn planted_secrets_reach_no_file_written() {
    assert_nothing_planted_is_written(&Planted::new(issue_names(9, 10)));
}

/// Issue 35: `PassWord`, `AdminPassWord`, `Pass_Word`, `PaSsWoRd`… were written verbatim into
/// the snapshot and the saved mockup; a registry's `WriteOnly` flag was not read.
#[test]
fn secret_spellings_reach_no_file_written() {
    let mut names = issue_names(35, 7);
    names.extend(SPELLINGS.map(str::to_owned));
    assert_nothing_planted_is_written(&Planted::new(names));
}

/// A baseline sealed from `base` with `extra` facts added.
fn sealed(base: &str, extra: &[(&str, &str)], dir: &Path, name: &str) -> String {
    let mut snapshot = read_json(&root().join(base));
    snapshot.as_object_mut().unwrap().remove("digest");
    for (path, value) in extra {
        snapshot["facts"][*path] = json!(value);
    }
    let unsealed = dir.join(format!("{name}.unsealed.json"));
    write_json(&unsealed, &snapshot);
    let target = dir.join(name).display().to_string();
    let seal = run(driftgate()
        .args(["snapshot", "seal"])
        .arg(&unsealed)
        .args(["--out", &target]));
    assert_eq!(seal.code, 0, "{}", seal.output);
    target
}

#[test]
fn reports_never_print_a_secret_an_old_snapshot_still_holds() {
    let dir = tempfile::tempdir().unwrap();
    let baseline = sealed(
        "examples/azure-local-dcbx/baseline.json",
        &[
            (
                "bios/SnmpCommunityString",
                "PLANTED-bios-SnmpCommunityString",
            ),
            ("bios/AssetNote", HEX_KEY),
            (
                "nic/00:0a:f7:12:34:56/bmc/hii/IpmiKgKey",
                "PLANTED-nic-IpmiKgKey",
            ),
            ("bios/Pass_Word", "PLANTED-old-Pass_Word"),
        ],
        dir.path(),
        "baseline.json",
    );
    let snapshot = sealed(
        "examples/azure-local-dcbx/post-update.json",
        &[
            (
                "bios/SnmpCommunityString",
                "PLANTED-nic-SnmpCommunityString",
            ),
            ("nic/00:0a:f7:12:34:56/bmc/hii/ApiKey", "PLANTED-nic-ApiKey"),
            ("bios/Pass_Word", "PLANTED-new-Pass_Word"),
            (
                "nic/00:0a:f7:12:34:56/bmc/hii/PaSsWoRd",
                "PLANTED-new-PaSsWoRd",
            ),
        ],
        dir.path(),
        "post.json",
    );
    for format in ["text", "json", "markdown"] {
        for args in [
            vec!["check", "--snapshot", &snapshot, "--baseline", &baseline],
            vec!["diff", &baseline, &snapshot],
        ] {
            let report = run(driftgate().args(&args).args(["--format", format]));
            assert_eq!(report.code, 1, "{}", report.output);
            for value in ["PLANTED", HEX_KEY] {
                assert!(
                    !report.output.contains(value),
                    "{args:?} --format {format} holds {value}: {}",
                    report.output
                );
            }
            // The changes are still judged and named, only their values are hidden.
            for path in [
                "bios/SnmpCommunityString",
                "bios/AssetNote",
                "hii/ApiKey",
                "bios/Pass_Word",
                "hii/PaSsWoRd",
            ] {
                assert!(
                    report.output.contains(path),
                    "{format}: {path}: {}",
                    report.output
                );
            }
            assert!(report.output.contains("redacted"), "{}", report.output);
        }
    }
}

/// A stand-in for every tool a capture may run: it writes its environment to `$ENV_DUMP`
/// and fails, so the capture goes on to the next command.
fn env_dumping_tools(dump: &Path) -> tempfile::TempDir {
    let bin = tempfile::tempdir().unwrap();
    let script = bin.path().join("dump-env");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\nenv > '{}'/\"$(basename \"$0\").$$\"\necho 'stand-in: no data' >&2\nexit 1\n",
            dump.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    for tool in [
        "ssh",
        "ip",
        "dcb",
        "ethtool",
        "devlink",
        "mlnx_qos",
        "mlxconfig",
        "multipath",
        "lldptool",
        "esxcli",
        "pwsh",
        "powershell",
    ] {
        std::os::unix::fs::symlink(&script, bin.path().join(tool)).unwrap();
    }
    bin
}

#[test]
fn child_processes_inherit_no_driftgate_credentials() {
    for (source, tool) in [
        ("linux=local:", "ip"),
        ("linux=ssh://testhost", "ssh"),
        ("esxi=ssh://root@esx01", "ssh"),
    ] {
        let dump = tempfile::tempdir().unwrap();
        let bin = env_dumping_tools(dump.path());
        // A credentials file is read at start whatever the sources; its path is withheld too.
        let secrets = tempfile::tempdir().unwrap();
        let file = secrets.path().join("PLANTED-env-credentials.toml");
        std::fs::write(
            &file,
            "username = \"PLANTED-env-file-user\"\npassword = \"PLANTED-env-file-password\"\n",
        )
        .unwrap();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
        let path = format!(
            "{}:{}",
            bin.path().display(),
            std::env::var("PATH").unwrap_or_default()
        );
        let capture = run(driftgate()
            .args(["capture", "--host", "node01", "--source", source])
            .env("PATH", path)
            .env("DRIFTGATE_BMC_USERNAME", "PLANTED-env-username")
            .env("DRIFTGATE_BMC_PASSWORD", "PLANTED-env-password")
            .env("DRIFTGATE_BMC_CREDENTIALS", &file)
            .env("DRIFTGATE_MOCKUP_PASSWORD", "PLANTED-env-mockup")
            .env("DRIFTGATE_TOKEN", "PLANTED-env-token")
            .env("KEPT_FOR_CHILDREN", "kept"));
        assert_ne!(capture.code, 0, "the stand-ins fail: {}", capture.output);
        assert!(
            !capture.output.contains("PLANTED-env"),
            "{}",
            capture.output
        );
        let dumps = files_under(dump.path());
        assert!(
            dumps
                .iter()
                .any(|d| d.file_name().unwrap().to_string_lossy().starts_with(tool)),
            "{source}: {tool} never ran: {dumps:?}: {}",
            capture.output
        );
        for file in dumps {
            let env = std::fs::read_to_string(&file).unwrap();
            assert!(
                env.contains("KEPT_FOR_CHILDREN=kept"),
                "{}: {env}",
                file.display()
            );
            assert!(
                !env.lines().any(|l| l.starts_with("DRIFTGATE_")),
                "{source}: {} inherited {}",
                file.display(),
                env.lines()
                    .filter(|l| l.starts_with("DRIFTGATE_"))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
    }
}

/// Ids and digests that look like key material by their hex digits, planted outside settings.
const NGUID: &str = "0123456789ABCDEF0123456789ABCDEF";
const DIGEST: &str = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";
const ADAPTER: &str = "Chassis/System.Embedded.1/NetworkAdapters/NIC.Slot.3";
const FIRMWARE: &str = "UpdateService/FirmwareInventory/Installed-159-2.19.1__BIOS.Setup.1-1";

#[test]
fn saved_mockups_keep_ids_links_and_auth_switches() {
    let planted = Planted::new(issue_names(9, 10));
    let v1 = planted.path().join("redfish/v1");
    let edit = |file: &str, change: &dyn Fn(&mut serde_json::Map<String, Value>)| {
        let path = v1.join(file).join("index.json");
        let mut body = read_json(&path);
        change(body.as_object_mut().unwrap());
        write_json(&path, &body);
    };
    edit(ADAPTER, &|adapter| {
        adapter.insert(
            "Identifiers".into(),
            json!([{"DurableName": NGUID, "DurableNameFormat": "NGUID"}]),
        );
    });
    edit(FIRMWARE, &|firmware| {
        firmware.insert("SoftwareId".into(), json!(NGUID));
        firmware.insert("Oem".into(), json!({"Vendor": {"ImageHash": DIGEST}}));
    });
    edit("Systems/System.Embedded.1", &|system| {
        system.insert(
            "Keys".into(),
            json!({"@odata.id": "/redfish/v1/Systems/System.Embedded.1/Keys"}),
        );
    });
    // The example's BIOS registry does not list it: kept as a switch position by value.
    edit("Systems/System.Embedded.1/Bios", &|bios| {
        bios["Attributes"]["ChapMutualAuth"] = json!("Disabled");
    });
    let saved = tempfile::tempdir().unwrap();
    let snapshot = saved.path().join("snapshot.json");
    let captured = run(driftgate()
        .args(["capture", "--host", "azl-node01", "--source"])
        .arg(format!("redfish=mockup:{}", planted.path().display()))
        .arg("--save-mockup")
        .arg(saved.path())
        .arg("--out")
        .arg(&snapshot));
    assert_eq!(captured.code, 0, "{}", captured.output);
    assert_eq!(
        read_json(&snapshot)["facts"]["bios/ChapMutualAuth"],
        json!("Disabled")
    );
    let copy = |file: &str| {
        read_json(
            &saved
                .path()
                .join("redfish/v1")
                .join(file)
                .join("index.json"),
        )
    };
    assert_eq!(copy(ADAPTER)["Identifiers"][0]["DurableName"], json!(NGUID));
    assert_eq!(copy(FIRMWARE)["SoftwareId"], json!(NGUID));
    assert_eq!(copy(FIRMWARE)["Oem"]["Vendor"]["ImageHash"], json!(DIGEST));
    assert_eq!(
        copy("Systems/System.Embedded.1")["Keys"]["@odata.id"],
        json!("/redfish/v1/Systems/System.Embedded.1/Keys")
    );
    let bios = copy("Systems/System.Embedded.1/Bios");
    assert_eq!(bios["Attributes"]["ChapMutualAuth"], json!("Disabled"));
    // Not vacuous: the secrets planted beside them are gone.
    let leaked = planted.leaks(&bios.to_string());
    assert!(leaked.is_empty(), "the saved BIOS holds {leaked:?}");
    assert!(bios["Attributes"].get("AssetNote").is_none(), "{bios:#}");
}

/// The Azure Local post-update BMC with `file` (under `redfish/v1`) cut to its first half.
fn truncated(file: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(
        &root().join("examples/azure-local-dcbx/recorded/post-update/bmc"),
        dir.path(),
    );
    let path = dir.path().join("redfish/v1").join(file).join("index.json");
    let text = std::fs::read(&path).unwrap();
    std::fs::write(&path, &text[..text.len() / 2]).unwrap();
    dir
}

#[test]
fn a_listed_attribute_registry_that_cannot_be_read_makes_the_capture_partial() {
    for (file, named) in [
        (
            "Systems/System.Embedded.1/Bios/BiosRegistry",
            "/redfish/v1/Systems/System.Embedded.1/Bios/BiosRegistry",
        ),
        (
            "Registries/BiosAttributeRegistry.v1_0_0",
            "/redfish/v1/Registries/BiosAttributeRegistry.v1_0_0",
        ),
        ("Registries", "/redfish/v1/Registries"),
    ] {
        let mockup = truncated(file);
        for source in [
            format!("redfish=mockup:{}", mockup.path().display()),
            "http".to_owned(),
        ] {
            let server;
            let source = if source == "http" {
                server = Simulator::start(mockup.path(), &["--auth", "session"]);
                format!("redfish={}", server.url)
            } else {
                source
            };
            let captured = driftgate()
                .args(["capture", "--host", "azl-node01", "--source", &source])
                .env("DRIFTGATE_BMC_USERNAME", USER)
                .env("DRIFTGATE_BMC_PASSWORD", PASSWORD)
                .output()
                .unwrap();
            let snapshot: Value = serde_json::from_slice(&captured.stdout).unwrap();
            let status = &snapshot["sources"][0];
            assert_eq!(
                status["status"],
                json!("partial"),
                "{file} over {source}: {status}"
            );
            let error = status["error"].as_str().unwrap_or("");
            assert!(error.contains(named), "{file} over {source}: {error}");
        }
    }
    // A registry the service does not list is no fault: the example lists no NIC registry.
    let captured = run(driftgate().args([
        "capture",
        "--host",
        "azl-node01",
        "--source",
        &format!(
            "redfish=mockup:{}",
            root()
                .join("examples/azure-local-dcbx/recorded/post-update/bmc")
                .display()
        ),
    ]));
    assert_eq!(captured.code, 0, "{}", captured.output);
    assert!(
        captured.output.contains("\"complete\""),
        "{}",
        captured.output
    );
}

#[test]
fn a_registry_file_without_a_location_uri_makes_the_capture_partial() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(
        &root().join("examples/azure-local-dcbx/recorded/post-update/bmc"),
        dir.path(),
    );
    let entry = dir
        .path()
        .join("redfish/v1/Registries/BiosAttributeRegistry.v1_0_0/index.json");
    let mut file = read_json(&entry);
    file["Location"] = json!([{"Language": "en"}]);
    write_json(&entry, &file);
    let captured = driftgate()
        .args(["capture", "--host", "azl-node01", "--source"])
        .arg(format!("redfish=mockup:{}", dir.path().display()))
        .output()
        .unwrap();
    let snapshot: Value = serde_json::from_slice(&captured.stdout).unwrap();
    let source = &snapshot["sources"][0];
    assert_eq!(source["status"], json!("partial"), "{source}");
    let error = source["error"].as_str().unwrap_or("");
    assert!(
        error.contains("/redfish/v1/Registries/BiosAttributeRegistry.v1_0_0")
            && error.contains("Location"),
        "{error}"
    );
}
