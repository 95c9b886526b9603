//! The vCenter source against what vCenters answer: govmomi's `vcsim` (its default model, and
//! a saved inventory edited to model seed 2), compared with what pyVmomi reads from the same
//! simulator; and the recorded responses of a real vCenter 8.0.3 (the vcrpy cassette
//! `tests/fixtures/test_json_host_explode.yaml` of pyVmomi's source distribution, Apache-2.0,
//! which `scripts/test-deps.sh` downloads from PyPI into `target/fixtures/vcenter/`; it is not
//! committed). Answers no simulator gives (a property twice, two policies or two SCSI LUNs for
//! one device, a reserved device without its flag) are `vcsim`'s recorded answers, edited and replayed
//! ([`soap_replay`]).

use std::path::PathBuf;

use serde_json::{Value, json};

use crate::common::gate::{Ran, run};
use crate::common::vcsim::{self, PASSWORD, SEED_2_HOST, SEED_2_LUN, USER, Vcsim};
use crate::common::{driftgate, example, soap_replay};
use driftgate_collect::vcenter::{AnswerError, host_config, host_facts};

/// `esxi=vcenter://…?host=HOST&pin=…` of `sim`.
fn source(sim: &Vcsim, host: &str) -> String {
    let address = sim
        .url()
        .trim_start_matches("https://")
        .trim_end_matches("/sdk")
        .to_owned();
    format!("esxi=vcenter://{address}?host={host}&pin={}", sim.pin())
}

/// `driftgate capture` of `host` through `sim`, the account in the default variables.
fn capture(sim: &Vcsim, host: &str, password: &str) -> (Ran, Value) {
    let ran = run(driftgate()
        .env("DRIFTGATE_BMC_USERNAME", USER)
        .env("DRIFTGATE_BMC_PASSWORD", password)
        .args(["capture", "--host", "esx", "--source", &source(sim, host)]));
    let snapshot = serde_json::from_str(&ran.stdout).unwrap_or(Value::Null);
    (ran, snapshot)
}

#[test]
fn each_host_of_the_default_model_gives_the_luns_and_policies_pyvmomi_reads() {
    let sim = Vcsim::start();
    let pyvmomi = sim.read_luns();
    let hosts = pyvmomi["hosts"].as_array().unwrap();
    assert_eq!(hosts.len(), 4, "{pyvmomi:#}");
    for host in hosts {
        let name = host["name"].as_str().unwrap();
        let (ran, snapshot) = capture(&sim, name, PASSWORD);
        assert_eq!(ran.code, 0, "{name}: {}", ran.stderr);
        let facts = &snapshot["facts"];
        assert_eq!(facts["host/esxi/version"], host["version"], "{name}");
        assert_eq!(facts["host/esxi/build"], host["build"], "{name}");
        for lun in host["luns"].as_array().unwrap() {
            let device = lun["canonical_name"].as_str().unwrap();
            let hpp = lun["satp"].is_null()
                && !lun["policy"].is_null()
                && !lun["policy"].as_str().unwrap().starts_with("VMW_");
            let (plugin, leaf) = if hpp { ("hpp", "pss") } else { ("nmp", "psp") };
            let fact = |leaf: &str| facts[format!("storage/{plugin}/{device}/{leaf}")].clone();
            assert_eq!(fact(leaf), lun["policy"], "{name} {device}");
            assert_eq!(fact("satp"), lun["satp"], "{name} {device}");
            // pyVmomi's null: the server left it unset, and so is the fact.
            assert_eq!(
                fact("perennially_reserved"),
                lun["perennially_reserved"],
                "{name} {device}"
            );
        }
    }
    assert_eq!(sim.sessions(), 0, "every capture logged out");
}

#[test]
fn seed_2_on_vcenter_blocks_names_the_device_and_equals_the_esxcli_recording() {
    let dir = tempfile::tempdir().unwrap();
    vcsim::save_default_inventory(dir.path());
    vcsim::model_seed_2(dir.path());
    let sim = Vcsim::load(dir.path());
    let (ran, snapshot) = capture(&sim, SEED_2_HOST, PASSWORD);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let file = dir.path().join("esx01.json");
    std::fs::write(&file, &ran.stdout).unwrap();
    let check = run(driftgate().args(["check", "--snapshot"]).arg(&file));
    assert_eq!(check.code, 1, "{}", check.stdout);
    assert!(
        check.stdout.contains(SEED_2_LUN) && check.stdout.contains("psp-rr-on-reserved-device"),
        "{}",
        check.stdout
    );
    // The same host read with esxcli (the recording of seed 2): the same facts where both
    // read the same thing.
    let recorded: Value =
        serde_json::from_slice(&std::fs::read(example("esxi-mscs-psp/current.json")).unwrap())
            .unwrap();
    let shared = |facts: &Value| -> Vec<(String, Value)> {
        facts
            .as_object()
            .unwrap()
            .iter()
            .filter(|(path, _)| {
                path.starts_with("host/esxi/version")
                    || path.starts_with("host/esxi/build")
                    || (path.starts_with("storage/nmp/naa.60050768028081713c000000000000")
                        && [
                            "psp",
                            "satp",
                            "perennially_reserved",
                            "working_paths",
                            "vendor",
                            "model",
                            "is_local",
                        ]
                        .iter()
                        .any(|leaf| path.ends_with(&format!("/{leaf}"))))
            })
            .map(|(p, v)| (p.clone(), v.clone()))
            .collect()
    };
    assert_eq!(shared(&snapshot["facts"]), shared(&recorded["facts"]));
    // Only esxcli reads the SATP claim rules and the SATPs' defaults.
    let only_esxcli: Vec<&String> = recorded["facts"]
        .as_object()
        .unwrap()
        .keys()
        .filter(|p| p.starts_with("storage/satp"))
        .collect();
    assert!(!only_esxcli.is_empty());
    assert!(
        snapshot["facts"]
            .as_object()
            .unwrap()
            .keys()
            .all(|p| !p.starts_with("storage/satp"))
    );

    // A host on ESXi 7.0 whose NVMe device the High Performance Plugin claims.
    let (ran, hpp) = capture(&sim, vcsim::HPP_HOST, PASSWORD);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert_eq!(
        hpp["facts"][format!("storage/hpp/{}/pss", vcsim::HPP_LUN)],
        json!("LB-RR")
    );
    assert_eq!(hpp["facts"]["host/esxi/version"], json!("7.0.0"));
    assert_eq!(
        hpp["facts"][format!("storage/nmp/{}/psp", vcsim::HPP_LUN)],
        Value::Null
    );

    // Most Recently Used on the reserved device passes.
    drop(sim);
    // The host's own file and its storage system's both hold its storage.
    for entry in std::fs::read_dir(dir.path()).unwrap() {
        let file = entry.unwrap().path();
        let text = std::fs::read_to_string(&file).unwrap_or_default();
        if text.contains(&reserved_unit()) {
            std::fs::write(&file, mru_on_reserved(&text)).unwrap();
        }
    }
    let sim = Vcsim::load(dir.path());
    let (ran, snapshot) = capture(&sim, SEED_2_HOST, PASSWORD);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert_eq!(
        snapshot["facts"][format!("storage/nmp/{SEED_2_LUN}/psp")],
        json!("VMW_PSP_MRU")
    );
    std::fs::write(&file, &ran.stdout).unwrap();
    let check = run(driftgate().args(["check", "--snapshot"]).arg(&file));
    assert_eq!(check.code, 0, "{}", check.stdout);
}

/// The key of the reserved device's logical unit in a saved inventory.
fn reserved_unit() -> String {
    format!(
        "MultipathInfo.LogicalUnit-{}",
        SEED_2_LUN.replace(['.', ':'], "")
    )
}

/// The saved host `text` with the reserved device's policy Most Recently Used: the policy
/// element that follows its logical unit's key (`…LogicalUnit-<name without . and :>`).
fn mru_on_reserved(text: &str) -> String {
    let at = text
        .find(&reserved_unit())
        .expect("the host lists the device");
    let (before, after) = text.split_at(at);
    let policy = after.find("VMW_PSP_RR").expect("its policy follows");
    format!(
        "{before}{}VMW_PSP_MRU{}",
        &after[..policy],
        &after[policy + "VMW_PSP_RR".len()..]
    )
}

#[test]
fn a_wrong_password_and_an_unknown_host_fail_naming_the_vcenter_fault_and_the_host() {
    let sim = Vcsim::start();
    let (ran, snapshot) = capture(&sim, "DC0_H0", "wrong");
    assert_eq!(ran.code, 3, "{}", ran.stderr);
    let error = snapshot["sources"][0]["error"].as_str().unwrap();
    assert!(
        error.contains("Login") && error.contains("InvalidLogin"),
        "{error}"
    );
    let (ran, snapshot) = capture(&sim, "esx-gone", PASSWORD);
    assert_eq!(ran.code, 3, "{}", ran.stderr);
    let error = snapshot["sources"][0]["error"].as_str().unwrap();
    assert!(
        error.contains("knows no host named \"esx-gone\"") && error.contains("DC0_H0"),
        "{error}"
    );
    assert_eq!(sim.sessions(), 0);
}

/// The hosts of the simulator's default model.
const HOSTS: [&str; 4] = ["DC0_H0", "DC0_C0_H0", "DC0_C0_H1", "DC0_C0_H2"];

#[test]
fn a_nightly_check_of_the_vcenters_hosts_reads_the_vcenter_once_and_logs_out() {
    let sim = Vcsim::start();
    let work = tempfile::tempdir().unwrap();
    let store = work.path().join("store");
    driftgate()
        .args(["baseline", "init"])
        .arg(&store)
        .assert()
        .code(0);
    // The vCenter named once for the fleet; each host is read by its own name.
    let address = sim
        .url()
        .trim_start_matches("https://")
        .trim_end_matches("/sdk")
        .to_owned();
    let mut inventory = format!(
        "[defaults]\nfleet = \"esxi\"\nvcenter = \"vcenter://{address}?pin={}\"\n",
        sim.pin()
    );
    for host in HOSTS {
        inventory.push_str(&format!("\n[[host]]\nname = \"{host}\"\n"));
    }
    std::fs::write(store.join("inventory.toml"), inventory).unwrap();
    let ran = run(driftgate()
        .env("DRIFTGATE_BMC_USERNAME", USER)
        .env("DRIFTGATE_BMC_PASSWORD", PASSWORD)
        .arg("-v")
        .arg("--repo")
        .arg(&store)
        .args(["check", "--all", "--bootstrap", "--out-dir"])
        .arg(work.path().join("night")));
    assert!(
        ran.code == 0 || ran.code == 1,
        "{}
{}",
        ran.stdout,
        ran.stderr
    );
    // The simulator saw one login for the four hosts, and no session is left.
    assert_eq!(sim.logins(), 1, "{}", ran.stderr);
    assert_eq!(
        ran.stderr.matches("logged out").count(),
        1,
        "{}",
        ran.stderr
    );
    assert_eq!(sim.sessions(), 0);
    for host in HOSTS {
        let snapshot: Value = serde_json::from_slice(
            &std::fs::read(work.path().join(format!("night/snapshots/{host}.json"))).unwrap(),
        )
        .unwrap();
        assert_eq!(snapshot["sources"][0]["status"], "complete", "{host}");
    }
}

/// The cassette, read as vcrpy wrote it.
fn cassette() -> yaml_serde::Value {
    let file = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("target/fixtures/vcenter/test_json_host_explode.yaml");
    let text = std::fs::read_to_string(&file).unwrap_or_else(|e| {
        panic!(
            "{}: {e}: run `bash scripts/test-deps.sh`, which downloads it from pyVmomi's source distribution on PyPI",
            file.display()
        )
    });
    yaml_serde::from_str(&text).unwrap()
}

/// The answer to pyVmomi's `Fetch` of a host's `config`.
fn host_config_answer() -> String {
    let cassette = cassette();
    let interactions = cassette["interactions"].as_sequence().unwrap();
    interactions
        .iter()
        .find(|i| {
            let request = i["request"]["body"].as_str().unwrap_or("");
            request.contains("<Fetch ")
                && request.contains("type=\"HostSystem\"")
                && request.contains(">config</prop>")
        })
        .and_then(|i| i["response"]["body"]["string"].as_str())
        .expect("the cassette fetches a host's config")
        .to_owned()
}

#[test]
fn a_real_vcenter_8_host_config_parses_into_hpp_facts() {
    let host = host_config(&host_config_answer()).unwrap();
    let (facts, errors) = host_facts("esx-8", &host);
    assert!(errors.is_empty(), "{errors:?}");
    let get = |path: &str| facts.get(path).map(ToString::to_string);
    assert_eq!(get("host/esxi/version").as_deref(), Some("\"8.0.3\""));
    assert_eq!(get("host/esxi/build").as_deref(), Some("\"69507956\""));
    let hpp: Vec<(&str, String)> = facts
        .iter()
        .filter(|(p, _)| p.as_str().starts_with("storage/hpp/") && p.as_str().ends_with("/pss"))
        .map(|(p, v)| (p.as_str(), v.to_string()))
        .collect();
    assert!(!hpp.is_empty(), "{facts:?}");
    assert!(hpp.iter().all(|(_, v)| v == "\"FIXED\""), "{hpp:?}");
    let reserved: Vec<String> = facts
        .iter()
        .filter(|(p, _)| p.as_str().ends_with("/perennially_reserved"))
        .map(|(_, v)| v.to_string())
        .collect();
    assert!(
        !reserved.is_empty() && reserved.iter().all(|v| v == "false"),
        "{reserved:?}"
    );
    assert!(
        facts
            .keys()
            .all(|p| !p.as_str().starts_with("storage/nmp/")),
        "an HPP host has no NMP devices"
    );
}

#[test]
fn the_real_vcenter_8_answer_without_a_flag_or_with_its_multipath_twice_fails_closed() {
    let whole = host_config_answer();
    // ESXi 8.0.3 (vSphere API 8.0.2.0 in the answer) says the flag of each of its 12 LUNs.
    let without = whole.replacen("<perenniallyReserved>false</perenniallyReserved>", "", 1);
    let (_, errors) = host_facts("esx-8", &host_config(&without).unwrap());
    assert!(
        errors.len() == 1
            && errors[0].starts_with("host esx-8: ")
            && errors[0].contains(
                ": config.storageDevice.scsiLun: no perenniallyReserved, which a host of vSphere API 8.0.2.0 gives for every SCSI LUN"
            ),
        "{errors:?}"
    );
    let start = whole.find("<multipathInfo>").unwrap();
    let end = whole.find("</multipathInfo>").unwrap() + "</multipathInfo>".len();
    let twice = format!("{}{}{}", &whole[..end], &whole[start..end], &whole[end..]);
    let (facts, errors) = host_facts("esx-8", &host_config(&twice).unwrap());
    assert_eq!(
        errors,
        [
            "host esx-8: config.storageDevice.multipathInfo: given twice: which one holds cannot be told"
        ]
    );
    assert!(
        facts.keys().all(|p| !p.as_str().starts_with("storage/")),
        "no device of an ambiguous answer: {facts:?}"
    );
}

#[test]
fn every_cut_of_the_real_answer_is_an_error_not_fewer_devices() {
    let whole = host_config_answer();
    let step = whole.len() / 40;
    for cut in (1..40).map(|i| i * step) {
        let cut_at = (0..=cut)
            .rev()
            .find(|i| whole.is_char_boundary(*i))
            .unwrap();
        match host_config(&whole[..cut_at]) {
            Err(AnswerError::Malformed(_)) => {}
            other => panic!("cut at {cut_at}: {other:?}"),
        }
    }
}

#[test]
fn a_nightly_check_stopped_by_sigterm_while_the_vcenter_answers_logs_out() {
    // The vCenter takes 5 s to retrieve the hosts' properties: the signal comes meanwhile.
    let sim = Vcsim::start_with(&["-method-delay", "RetrievePropertiesEx:5000"]);
    let work = tempfile::tempdir().unwrap();
    let store = work.path().join("store");
    driftgate()
        .args(["baseline", "init"])
        .arg(&store)
        .assert()
        .code(0);
    std::fs::write(
        store.join("inventory.toml"),
        format!(
            "[[host]]\nname = \"dc0-h0\"\nfleet = \"esxi\"\nsources = [\"{}\"]\n",
            source(&sim, "DC0_H0")
        ),
    )
    .unwrap();
    let mut child = crate::common::driftgate_process()
        .env("DRIFTGATE_BMC_USERNAME", USER)
        .env("DRIFTGATE_BMC_PASSWORD", PASSWORD)
        .arg("--repo")
        .arg(&store)
        .args(["check", "--all", "--bootstrap", "--out-dir"])
        .arg(work.path().join("night"))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let waited = std::time::Instant::now();
    while !sim.received("RetrievePropertiesEx") {
        assert!(
            waited.elapsed() < std::time::Duration::from_secs(20),
            "no retrieval: {}",
            sim.stderr()
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let pid = libc::pid_t::try_from(child.id()).unwrap();
    // SAFETY: kill touches no memory; the pid is our child, not yet reaped.
    unsafe { libc::kill(pid, libc::SIGTERM) };
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(143), "stopped by SIGTERM");
    assert!(sim.received("Logout"), "the session was logged out");
    assert_eq!(sim.sessions(), 0);
}

/// `driftgate capture` of the seed-2 host through a replay of `answers`, and `check` of what
/// it wrote: (capture, snapshot, check's exit code, the methods the replay received).
fn replayed(answers: soap_replay::Answers) -> (Ran, Value, i32, Vec<String>) {
    let replay = soap_replay::Replay::serve(answers);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("esx01.json");
    let ran = run(driftgate()
        .env("DRIFTGATE_BMC_USERNAME", USER)
        .env("DRIFTGATE_BMC_PASSWORD", PASSWORD)
        .args([
            "capture",
            "--host",
            "esx",
            "--source",
            &replay.source(SEED_2_HOST),
        ])
        .arg("--out")
        .arg(&out));
    let snapshot: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let check = run(driftgate().args(["check", "--snapshot"]).arg(&out));
    (ran, snapshot, check.code, replay.received())
}

#[test]
fn the_recorded_seed_2_answers_replayed_give_the_vcsim_capture() {
    let (ran, snapshot, check, received) = replayed(soap_replay::seed_2().clone());
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert_eq!(snapshot["sources"][0]["status"], "complete");
    assert_eq!(
        snapshot["facts"][format!("storage/nmp/{SEED_2_LUN}/perennially_reserved")],
        json!(true)
    );
    assert_eq!(check, 1, "Round Robin on the reserved device blocks");
    assert_eq!(received.last().map(String::as_str), Some("Logout"));
}

#[test]
fn a_reserved_device_without_its_flag_is_partial_naming_host_lun_property_and_esxcli() {
    // ESXi 5.0 (vSphere API 5.0) predates the property: its Round Robin device is told to be
    // read with esxcli. Before: complete, and Round Robin on the MSCS LUN passed.
    let (ran, snapshot, check, received) = replayed(soap_replay::without_reserved("5.0"));
    assert_eq!(ran.code, 3, "{}", ran.stderr);
    let source = &snapshot["sources"][0];
    assert_eq!(source["status"], "partial");
    let error = source["error"].as_str().unwrap();
    assert!(
        error.contains(&format!(
            "host {SEED_2_HOST}: {SEED_2_LUN}: config.storageDevice.scsiLun: no perenniallyReserved, and the device uses VMW_PSP_RR"
        )) && error.contains(&format!("`esxcli storage core device list -d {SEED_2_LUN}`")),
        "{error}"
    );
    assert_eq!(check, 3, "never a pass");
    assert_eq!(received.last().map(String::as_str), Some("Logout"));
    // A host whose API has the property gives it for every LUN: without it, the answer is
    // broken whatever the policy.
    let (ran, snapshot, check, _) = replayed(soap_replay::without_reserved("7.0.3.0"));
    assert_eq!(ran.code, 3, "{}", ran.stderr);
    let error = snapshot["sources"][0]["error"].as_str().unwrap();
    assert!(
        error.contains(&format!("{SEED_2_LUN}: config.storageDevice.scsiLun: no perenniallyReserved, which a host of vSphere API 7.0.3.0 gives for every SCSI LUN")),
        "{error}"
    );
    assert_eq!(check, 3);
}

#[test]
fn multipath_info_twice_two_policies_or_a_device_twice_is_partial_and_neither_is_read() {
    // Before: complete and PASS, Most Recently Used winning silently (the last property, the
    // first policy, the last SCSI LUN of the device).
    for (answers, says) in [
        (
            soap_replay::multipath_twice(),
            format!("host {SEED_2_HOST}: config.storageDevice.multipathInfo: given twice"),
        ),
        (
            soap_replay::two_policies(),
            format!(
                "host {SEED_2_HOST}: {SEED_2_LUN}: config.storageDevice.multipathInfo: policy given twice"
            ),
        ),
        (
            soap_replay::device_twice(),
            format!(
                "host {SEED_2_HOST}: {SEED_2_LUN}: config.storageDevice.scsiLun: the SCSI LUNs \"key-vim.host.ScsiDisk-{id}\" and \"key-vim.host.ScsiDisk-{id}-again\" are one device, given twice",
                id = SEED_2_LUN.replace('.', "")
            ),
        ),
    ] {
        let (ran, snapshot, check, received) = replayed(answers);
        assert_eq!(ran.code, 3, "{}", ran.stderr);
        let source = &snapshot["sources"][0];
        assert_eq!(source["status"], "partial");
        let error = source["error"].as_str().unwrap();
        assert!(error.contains(&says), "{says:?} not in {error}");
        assert_eq!(
            snapshot["facts"][format!("storage/nmp/{SEED_2_LUN}/psp")],
            Value::Null,
            "neither policy is read"
        );
        assert_eq!(check, 3);
        assert_eq!(received.last().map(String::as_str), Some("Logout"));
    }
}
