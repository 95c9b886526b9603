//! `driftgate fix plan|apply` end to end: seed 1 against `driftgate mockup serve` of the
//! recorded iDRAC (plan, refusals, staged apply, pending, reset, verified by `gate post` and
//! named in the promote's commit), seed 2's emitted script run against a stand-in `esxcli`
//! that changes its recordings as ESXi would.

use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::common::gate::{Lab, Ran, run};
use crate::common::{copy_dir, driftgate, example, git, root, scripts};

const RDM: &str = "naa.60050768028081713c0000000000007d";

/// A bin folder with a stand-in `esxcli` over a copy of recordings in `dir`: the list
/// commands print them, `storage nmp device set -d D -P P` rewrites D's policy (with the one
/// working path ESXi shows for MRU and FIXED), and `storage nmp satp rule add -s S -d D -P P
/// -e DESC` adds a device rule row, as ESXi does.
fn writable_esxcli(dir: &Path) -> tempfile::TempDir {
    let bin = tempfile::tempdir().unwrap();
    let script = format!(
        r#"#!/usr/bin/env python3
import sys, re
d = {dir:?}
args = sys.argv[1:]
def opt(flag):
    return args[args.index(flag) + 1]
if args[:4] == ["storage", "nmp", "device", "set"]:
    device, psp = opt("-d"), opt("-P")
    path = d + "/esxcli_storage_nmp_device_list.txt"
    blocks = open(path).read().split("\n\n")
    found = False
    for i, block in enumerate(blocks):
        if block.startswith(device + "\n"):
            found = True
            paths = re.search(r"Working Paths: (.*)", block).group(1).split(", ")
            block = re.sub(r"Path Selection Policy: .*", "Path Selection Policy: " + psp, block)
            if psp in ("VMW_PSP_MRU", "VMW_PSP_FIXED"):
                block = re.sub(r"Path Selection Policy Device Config: .*", "Path Selection Policy Device Config: Current Path=" + paths[0], block)
                block = re.sub(r"Working Paths: .*", "Working Paths: " + paths[0], block)
            blocks[i] = block
    if not found:
        print("Error: Unknown device " + device, file=sys.stderr); sys.exit(1)
    open(path, "w").write("\n\n".join(blocks))
elif args[:5] == ["storage", "nmp", "satp", "rule", "add"]:
    path = d + "/esxcli_storage_nmp_satp_rule_list.txt"
    lines = [l for l in open(path).read().split("\n") if l]
    # Columns where the dashes say; esxcli widens a column to its longest cell.
    spans = [(m.start(), m.end()) for m in re.finditer(r"-+", lines[1])]
    def cells(line):
        out = []
        for i, (start, end) in enumerate(spans):
            stop = spans[i + 1][0] if i + 1 < len(spans) else len(line)
            out.append(line[start:stop].strip())
        return out
    rows = [cells(l) for l in [lines[0]] + lines[2:]]
    rows.insert(1, [opt("-s"), opt("-d"), "", "", "", "", "", "user", "", opt("-P"), "", opt("-e") if "-e" in args else ""])
    widths = [max(len(r[i]) for r in rows + [["-" * (e - s) for s, e in spans]]) for i in range(len(spans))]
    render = lambda r: "  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip()
    out = [render(rows[0]), "  ".join("-" * w for w in widths)] + [render(r) for r in rows[1:]]
    open(path, "w").write("\n".join(out) + "\n")
else:
    name = d + "/esxcli_" + "_".join(args) + ".txt"
    try:
        sys.stdout.write(open(name).read())
    except FileNotFoundError:
        print("Error: Unknown command or namespace " + " ".join(args), file=sys.stderr); sys.exit(1)
"#
    );
    let path = bin.path().join("esxcli");
    std::fs::write(&path, script).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    bin
}

#[test]
fn seed_2_the_emitted_script_fixes_the_policy_and_keeps_it_with_a_device_rule() {
    let work = tempfile::tempdir().unwrap();
    let recordings = work.path().join("esx01");
    copy_dir(
        &root().join("examples/esxi-mscs-psp/recorded/round-robin"),
        &recordings,
    );
    let scripts = work.path().join("scripts");
    let plan = run(driftgate()
        .args([
            "fix",
            "plan",
            "--snapshot",
            &example("esxi-mscs-psp/current.json"),
        ])
        .args([
            "--baseline",
            &example("esxi-mscs-psp/baseline.json"),
            "--emit-scripts",
        ])
        .arg(&scripts))
    .expect(0);
    assert!(
        plan.stdout.contains(&format!(
            "$ esxcli storage nmp device set -d {RDM} -P VMW_PSP_MRU"
        )),
        "{}",
        plan.stdout
    );
    // The vendor rule for IBM 2145 gives Round Robin: a device rule keeps MRU across a
    // reboot or rescan.
    assert!(
        plan.stdout.contains(&format!(
            "esxcli storage nmp satp rule add -s VMW_SATP_SVC -d {RDM} -P VMW_PSP_MRU"
        )),
        "{}",
        plan.stdout
    );
    let script = scripts.join("esx01-esxi.sh");
    let bin = writable_esxcli(&recordings);
    let path = format!(
        "{}:{}",
        bin.path().display(),
        std::env::var("PATH").unwrap()
    );
    let ran = std::process::Command::new("sh")
        .arg(&script)
        .env("PATH", path)
        .output()
        .unwrap();
    assert!(
        ran.status.success(),
        "{}",
        String::from_utf8_lossy(&ran.stderr)
    );
    // The next capture passes against the baseline, and its claim rules hold the device rule.
    let after = work.path().join("after.json");
    driftgate()
        .args(["capture", "--host", "esx01", "--source"])
        .arg(format!("esxi=dir:{}", recordings.display()))
        .arg("--out")
        .arg(&after)
        .assert()
        .code(0);
    let check = run(driftgate()
        .args(["check", "--snapshot"])
        .arg(&after)
        .args(["--baseline", &example("esxi-mscs-psp/baseline.json")]));
    assert_eq!(check.code, 0, "{}\n{}", check.stdout, check.stderr);
    let snapshot: Value = serde_json::from_slice(&std::fs::read(&after).unwrap()).unwrap();
    assert_eq!(
        snapshot["facts"][format!("storage/nmp/{RDM}/psp")],
        json!("VMW_PSP_MRU")
    );
    // The device's own rule, not one for every array of the SATP.
    assert_eq!(
        snapshot["facts"][format!("storage/satp_rule/VMW_SATP_SVC/device/{RDM}/default_psp")],
        json!("VMW_PSP_MRU")
    );
    assert_eq!(
        snapshot["facts"]["storage/satp_rule/VMW_SATP_SVC/any/any/default_psp"],
        Value::Null
    );
    let replanned = run(driftgate()
        .args(["fix", "plan", "--snapshot"])
        .arg(&after)
        .args(["--baseline", &example("esxi-mscs-psp/baseline.json")]))
    .expect(0);
    assert!(
        replanned.stdout.contains("Nothing to fix"),
        "{}",
        replanned.stdout
    );
}

const DCBX_1: &str = "nic/00:0a:f7:12:34:56/bmc/function/00:0a:f7:12:34:56/dcbx_mode";
const ATTRIBUTES_1: &str = "/redfish/v1/Chassis/System.Embedded.1/NetworkAdapters/NIC.Slot.3/NetworkDeviceFunctions/NIC.Slot.3-1-1/Oem/Dell/DellNetworkAttributes/NIC.Slot.3-1-1";

/// `driftgate --repo STORE fix ARGS…` of `lab`, its standard input not a terminal.
fn fix(lab: &Lab, args: &[&str]) -> Ran {
    let mut cmd = lab.command();
    cmd.arg("fix").args(args);
    run(&mut cmd)
}

/// The seed-1 lab after its update: `gate pre` passed, the host went to `post-update` and
/// `gate post` blocked.
fn blocked_after_update(run_id: &str) -> Lab {
    let lab = Lab::new();
    lab.gate(&["pre", "--run", run_id, "azl-node01"]).expect(0);
    lab.state("post-update");
    lab.gate(&["post", "--run", run_id]).expect(1);
    lab
}

fn simulator_get(lab: &Lab, uri: &str) -> Value {
    lab.simulator.as_ref().expect("the simulator runs").get(uri)
}

fn records(lab: &Lab, run_id: &str) -> Vec<Value> {
    let dir = lab.run_dir(run_id).join("fix");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .map(|d| {
            d.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|e| e == "json"))
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
        .iter()
        .map(|f| serde_json::from_slice(&std::fs::read(f).unwrap()).unwrap())
        .collect()
}

#[test]
fn seed_1_plan_apply_pending_reset_and_the_gate_verifies_it() {
    let lab = blocked_after_update("CHG-2001");
    // The plan: per affected function, the Dell NIC attribute Settings PATCH restoring IEEE
    // DCBX, staged for the next reset.
    let plan = fix(&lab, &["plan", "--run", "CHG-2001", "--format", "json"])
        .expect(0)
        .json();
    let steps = plan["hosts"][0]["steps"].as_array().unwrap();
    let patches: Vec<&Value> = steps.iter().filter(|s| s["layer"] == "bmc").collect();
    assert_eq!(patches.len(), 2, "{plan:#}");
    for (patch, fqdd) in patches.iter().zip(["NIC.Slot.3-1-1", "NIC.Slot.3-2-1"]) {
        let action = &patch["action"];
        assert_eq!(action["kind"], "redfish_patch");
        assert!(
            action["settings"]
                .as_str()
                .unwrap()
                .ends_with(&format!("DellNetworkAttributes/{fqdd}/Settings")),
            "{action:#}"
        );
        assert_eq!(action["apply_time"], "OnReset");
        assert_eq!(
            action["body"],
            json!({"Attributes": {"Broadcom_DCBX": "Enabled_IEEE"}, "@Redfish.SettingsApplyTime": {"ApplyTime": "OnReset"}})
        );
        assert_eq!(patch["changes"][0]["to"], "ieee");
        assert_eq!(patch["reboot"], true);
    }
    // What follows from DCBX (the OS's negotiated state) is verified with it, not fixed alone.
    let effects = plan["hosts"][0]["effects"].as_array().unwrap();
    assert!(
        effects.iter().any(
            |e| e["fact"] == "nic/00:0a:f7:12:34:56/os/dcbx_support/current"
                && e["follows"] == json!(["bmc-1"])
        ),
        "{plan:#}"
    );
    let pending = || simulator_get(&lab, &format!("{ATTRIBUTES_1}/Settings"))["Attributes"].clone();

    // Nothing is sent without `apply`, nor by `apply` without --yes on a pipe, nor by a dry run.
    let refused = fix(
        &lab,
        &["apply", "--run", "CHG-2001", "--ticket", "CHG-2001"],
    )
    .expect(2);
    assert!(
        refused.stderr.contains("confirmation") && refused.stderr.contains("nothing was sent"),
        "{}",
        refused.stderr
    );
    let dry = fix(
        &lab,
        &[
            "apply",
            "--run",
            "CHG-2001",
            "--ticket",
            "CHG-2001",
            "--dry-run",
            "--reset",
        ],
    )
    .expect(0);
    assert!(
        dry.stdout.contains("[reset] POST /redfish/v1/Systems/System.Embedded.1/Actions/ComputerSystem.Reset {\"ResetType\":\"GracefulRestart\"}"),
        "{}",
        dry.stdout
    );
    assert!(dry.stdout.contains(&format!("PATCH {ATTRIBUTES_1}/Settings {{\"@Redfish.SettingsApplyTime\":{{\"ApplyTime\":\"OnReset\"}},\"Attributes\":{{\"Broadcom_DCBX\":\"Enabled_IEEE\"}}}}")), "{}", dry.stdout);
    assert_eq!(pending(), json!({}), "nothing staged before apply");
    assert!(records(&lab, "CHG-2001").is_empty());

    // Staged, read back as pending, recorded with the ticket.
    let applied = fix(
        &lab,
        &[
            "apply", "--run", "CHG-2001", "--ticket", "CHG-2001", "--yes",
        ],
    )
    .expect(0);
    assert!(
        applied
            .stderr
            .contains("[bmc-1] applied: staged for the next reset"),
        "{}",
        applied.stderr
    );
    assert!(
        applied
            .stderr
            .contains("fix apply: applied (2 step(s) sent, 0 already current or staged)"),
        "{}",
        applied.stderr
    );
    assert_eq!(pending(), json!({"Broadcom_DCBX": "Enabled_IEEE"}));
    assert_eq!(
        simulator_get(&lab, ATTRIBUTES_1)["Attributes"]["Broadcom_DCBX"],
        "Disabled"
    );
    let record = &records(&lab, "CHG-2001")[0];
    assert_eq!(record["ticket"], "CHG-2001");
    let step = &record["hosts"][0]["steps"][0];
    assert_eq!(step["outcome"], "applied");
    assert_eq!(step["requests"][0]["method"], "PATCH");
    assert_eq!(step["requests"][0]["status"], 202);
    assert!(
        step["job"].as_str().unwrap().contains("/Jobs/JID_"),
        "{step:#}"
    );

    // A second apply of the same plan sends nothing.
    let again = fix(
        &lab,
        &[
            "apply", "--run", "CHG-2001", "--ticket", "CHG-2001", "--yes",
        ],
    )
    .expect(0);
    assert!(
        again.stderr.contains("skipped (already pending)"),
        "{}",
        again.stderr
    );
    assert_eq!(
        records(&lab, "CHG-2001")[1]["hosts"][0]["steps"][0]["outcome"],
        "already_pending"
    );

    // Before the reset the gate still blocks, naming the step pending.
    let before = lab
        .gate(&["post", "--run", "CHG-2001", "--format", "json"])
        .expect(1)
        .json();
    let fixes = before["hosts"][0]["fixes"].as_array().unwrap();
    assert!(
        fixes
            .iter()
            .any(|f| f["fact"] == DCBX_1 && f["state"] == "pending"),
        "{before:#}"
    );
    let text = lab.gate(&["post", "--run", "CHG-2001"]).expect(1);
    assert!(
        text.stdout.contains("pending: staged for the next reset"),
        "{}",
        text.stdout
    );

    // Planned again from that post, the staged value is the step's own, not one to clear.
    let replanned = fix(&lab, &["plan", "--run", "CHG-2001", "--format", "json"])
        .expect(0)
        .json();
    let host = &replanned["hosts"][0];
    assert!(
        host["not_fixable"]
            .as_array()
            .unwrap()
            .iter()
            .all(|n| n["reason"] != "pending"),
        "{host:#}"
    );
    let staged = "nic/00:0a:f7:12:34:56/bmc/function/00:0a:f7:12:34:56/pending/dcbx_mode";
    assert!(
        host["effects"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["fact"] == staged && e["follows"] == json!(["bmc-1"])),
        "{host:#}"
    );

    // The reset applies it; the OS then negotiates IEEE DCBX again (the Windows collector's
    // output of the host with its DCBX back: the benign update's).
    fix(
        &lab,
        &[
            "apply", "--run", "CHG-2001", "--ticket", "CHG-2001", "--yes", "--reset",
        ],
    )
    .expect(0);
    assert_eq!(
        simulator_get(&lab, ATTRIBUTES_1)["Attributes"]["Broadcom_DCBX"],
        "Enabled_IEEE"
    );
    assert_eq!(pending(), json!({}));
    // Applied again before the gate has looked: the BMC already has it, nothing else is written.
    let current = fix(
        &lab,
        &[
            "apply", "--run", "CHG-2001", "--ticket", "CHG-2001", "--yes",
        ],
    )
    .expect(0);
    assert!(
        current.stderr.contains("[bmc-1] skipped (already current)"),
        "{}",
        current.stderr
    );
    let windows = root().join("examples/azure-local-dcbx/recorded/benign-update/windows");
    let _ = std::fs::remove_dir_all(lab.host.join("windows"));
    copy_dir(&windows, &lab.host.join("windows"));
    let after = lab
        .gate(&["post", "--run", "CHG-2001", "--promote", "--format", "json"])
        .expect(0)
        .json();
    let fixes = after["hosts"][0]["fixes"].as_array().unwrap();
    assert!(
        !fixes.is_empty() && fixes.iter().all(|f| f["state"] == "took_effect"),
        "{after:#}"
    );
    let message = git(&lab.store, &["log", "-1", "--format=%B"]);
    assert!(
        message.contains("ticket CHG-2001: bmc-1") && message.contains("(took effect)"),
        "{message}"
    );
}

#[test]
fn a_read_only_attribute_a_value_outside_the_registry_and_an_incomplete_host_are_refused() {
    // RDMAProtocolSupport is read-only and immutable in the NIC's registry: the BMC decides it.
    let lab = Lab::new();
    lab.gate(&["pre", "--run", "CHG-2002", "azl-node01"])
        .expect(0);
    lab.state("benign-update");
    let attributes = lab.host.join(format!("bmc{ATTRIBUTES_1}/index.json"));
    let text = std::fs::read_to_string(&attributes).unwrap();
    std::fs::write(
        &attributes,
        text.replace(
            "\"RDMAProtocolSupport\": \"RoCE\"",
            "\"RDMAProtocolSupport\": \"iWARP\"",
        ),
    )
    .unwrap();
    lab.gate(&["post", "--run", "CHG-2002"]).expect(1);
    let plan = fix(&lab, &["plan", "--run", "CHG-2002"]).expect(0);
    assert!(
        plan.stdout.contains("RDMAProtocolSupport of")
            && plan.stdout.contains("immutable in the attribute registry"),
        "{}",
        plan.stdout
    );
    let refused = fix(
        &lab,
        &["apply", "--run", "CHG-2002", "--ticket", "T-1", "--yes"],
    )
    .expect(2);
    assert!(
        refused.stderr.contains("fix refused, nothing sent")
            && refused.stderr.contains("RDMAProtocolSupport"),
        "{}",
        refused.stderr
    );
    assert_eq!(
        simulator_get(&lab, &format!("{ATTRIBUTES_1}/Settings"))["Attributes"],
        json!({})
    );

    // A NIC whose registry no longer offers IEEE DCBX: no value it allows restores it.
    let lab = blocked_after_update("CHG-2003");
    let registry = lab.host.join("bmc/redfish/v1/Registries/NetworkAttributesRegistry_NIC.Slot.3-1-1/NetworkAttributesRegistry_NIC.Slot.3-1-1.json/index.json");
    let mut value: Value = serde_json::from_slice(&std::fs::read(&registry).unwrap()).unwrap();
    for entry in value["RegistryEntries"]["Attributes"]
        .as_array_mut()
        .unwrap()
    {
        if entry["AttributeName"] == "Broadcom_DCBX" {
            entry["Value"] = json!([{"ValueName": "Disabled", "ValueDisplayName": "Disabled"}, {"ValueName": "Enabled_CEE", "ValueDisplayName": "CEE (only)"}]);
        }
    }
    std::fs::write(&registry, serde_json::to_vec_pretty(&value).unwrap()).unwrap();
    let refused = fix(
        &lab,
        &["apply", "--run", "CHG-2003", "--ticket", "T-2", "--yes"],
    )
    .expect(2);
    assert!(
        refused.stderr.contains("Broadcom_DCBX of")
            && refused.stderr.contains("allows (Disabled, Enabled_CEE)")
            && refused.stderr.contains("gives \"ieee\""),
        "{}",
        refused.stderr
    );
    assert_eq!(
        simulator_get(&lab, &format!("{ATTRIBUTES_1}/Settings"))["Attributes"],
        json!({})
    );

    // A host whose post could not read its BMC, and a host not in the run.
    let mut lab = blocked_after_update("CHG-2004");
    lab.stop_bmc();
    lab.gate(&["post", "--run", "CHG-2004"]).expect(3);
    let refused = fix(
        &lab,
        &["apply", "--run", "CHG-2004", "--ticket", "T-3", "--yes"],
    )
    .expect(2);
    assert!(
        refused.stderr.contains("is INCOMPLETE"),
        "{}",
        refused.stderr
    );
    let other = fix(
        &lab,
        &[
            "apply",
            "--run",
            "CHG-2004",
            "--ticket",
            "T-3",
            "--yes",
            "azl-node09",
        ],
    )
    .expect(2);
    assert!(other.stderr.contains("azl-node09"), "{}", other.stderr);
}

/// A store under `work` whose inventory holds one host `(name, fleet, source)` read through a
/// `local:` source, its `baseline` promoted; and `driftgate` in that store with the stand-ins in
/// `bin` first on `PATH`.
fn local_host_store(
    work: &Path,
    bin: &Path,
    (name, fleet, source): (&str, &str, &str),
    baseline: &Path,
) -> (PathBuf, impl Fn(&[&str]) -> Ran + use<>) {
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap());
    let store = work.join("store");
    driftgate()
        .args(["baseline", "init"])
        .arg(&store)
        .assert()
        .code(0);
    std::fs::write(
        store.join("inventory.toml"),
        format!("[[host]]\nname = \"{name}\"\nfleet = \"{fleet}\"\nsources = [\"{source}\"]\n"),
    )
    .unwrap();
    driftgate()
        .arg("--repo")
        .arg(&store)
        .args(["baseline", "promote", "--fleet", fleet])
        .arg(baseline)
        .assert()
        .code(0);
    let at = store.clone();
    let driftgate_at = move |args: &[&str]| {
        let mut cmd = driftgate();
        cmd.env("PATH", &path).arg("--repo").arg(&at).args(args);
        run(&mut cmd)
    };
    (store, driftgate_at)
}

/// Seed 2's ESXi host `esx01` under `work`, read with `local:` through a stand-in `esxcli` over
/// a writable copy of its Round Robin recordings, its baseline promoted, and `gate pre --run
/// RUN` blocked: the recordings, the stand-in's folder, the store and `driftgate` in it.
fn esx01_gated(
    work: &Path,
    run: &str,
) -> (
    PathBuf,
    tempfile::TempDir,
    PathBuf,
    impl Fn(&[&str]) -> Ran + use<>,
) {
    let recordings = work.join("esx01");
    copy_dir(
        &root().join("examples/esxi-mscs-psp/recorded/round-robin"),
        &recordings,
    );
    let bin = writable_esxcli(&recordings);
    let (store, driftgate_at) = local_host_store(
        work,
        bin.path(),
        ("esx01", "esxi", "esxi=local:"),
        Path::new(&example("esxi-mscs-psp/baseline.json")),
    );
    driftgate_at(&["gate", "pre", "--run", run, "esx01"]).expect(1);
    (recordings, bin, store, driftgate_at)
}

#[test]
fn the_os_steps_run_through_the_hosts_transport_only_with_layer_os() {
    // An ESXi host read with `local:` through a stand-in `esxcli` over seed 2's recordings.
    let work = tempfile::tempdir().unwrap();
    let (recordings, _bin, store, driftgate_at) = esx01_gated(work.path(), "CHG-3001");
    // The BMC layer (the default) has nothing to do here; nothing runs on the host.
    let bmc = driftgate_at(&[
        "fix", "apply", "--run", "CHG-3001", "--ticket", "CHG-3001", "--yes",
    ])
    .expect(0);
    assert!(bmc.stderr.contains("nothing to apply"), "{}", bmc.stderr);
    let text =
        std::fs::read_to_string(recordings.join("esxcli_storage_nmp_device_list.txt")).unwrap();
    assert!(text.contains("Path Selection Policy: VMW_PSP_RR"));
    let os = driftgate_at(&[
        "fix", "apply", "--run", "CHG-3001", "--ticket", "CHG-3001", "--yes", "--layer", "os",
    ])
    .expect(0);
    assert!(
        os.stderr.contains("[esxi-1] applied: ran on the host"),
        "{}",
        os.stderr
    );
    let record: Value = serde_json::from_slice(
        &std::fs::read(store.join(".driftgate/runs/CHG-3001/fix/apply-1.json")).unwrap(),
    )
    .unwrap();
    let requests = &record["hosts"][0]["steps"][0]["requests"];
    assert_eq!(
        requests[0]["body"],
        json!(format!(
            "esxcli storage nmp device set -d {RDM} -P VMW_PSP_MRU"
        ))
    );
    assert_eq!(requests[0]["status"], 0);
    let post = driftgate_at(&["gate", "post", "--run", "CHG-3001", "--format", "json"])
        .expect(0)
        .json();
    assert_eq!(
        post["hosts"][0]["fixes"][0]["state"], "took_effect",
        "{post:#}"
    );
}

#[test]
fn a_signal_during_a_command_line_starts_none_of_the_step_s_later_lines() {
    // Seed 2's step is two lines (the policy, then a device rule). The first is held until the
    // test has sent SIGINT; driftgate runs with SIGTERM ignored, so its children ignore the
    // SIGTERM it sends them on the signal and the first line ends well.
    let work = tempfile::tempdir().unwrap();
    let (recordings, bin, store, _) = esx01_gated(work.path(), "CHG-3009");
    let (started, signalled) = (work.path().join("started"), work.path().join("signalled"));
    let held = tempfile::tempdir().unwrap();
    let esxcli = held.path().join("esxcli");
    std::fs::write(
        &esxcli,
        format!(
            "#!/bin/sh\ncase \"$*\" in 'storage nmp device set'*)\n  : > '{}'\n  while [ ! -e '{}' ]; do sleep 0.05; done\n  sleep 0.3;;\nesac\nexec '{}' \"$@\"\n",
            started.display(),
            signalled.display(),
            bin.path().join("esxcli").display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&esxcli, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = format!(
        "{}:{}",
        held.path().display(),
        std::env::var("PATH").unwrap()
    );
    let child = std::process::Command::new("sh")
        .arg("-c")
        .arg("trap '' TERM; exec \"$0\" \"$@\"")
        .arg(assert_cmd::cargo::cargo_bin("driftgate"))
        .args(["--color", "never", "--repo"])
        .arg(&store)
        .args([
            "fix", "apply", "--run", "CHG-3009", "--ticket", "CHG-3009", "--yes",
        ])
        .args(["--layer", "os"])
        .env("PATH", &path)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while !started.exists() {
        assert!(
            std::time::Instant::now() < deadline,
            "the first line never ran"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    crate::fix_once::send(&child, libc::SIGINT);
    std::fs::write(&signalled, "").unwrap();
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(130), "{stderr}");
    let record: Value = serde_json::from_slice(
        &std::fs::read(store.join(".driftgate/runs/CHG-3009/fix/apply-1.json")).unwrap(),
    )
    .unwrap();
    let step = &record["hosts"][0]["steps"][0];
    assert_eq!(step["outcome"], "failed", "{record:#}");
    assert_eq!(step["requests"].as_array().unwrap().len(), 1, "{record:#}");
    assert_eq!(step["requests"][0]["status"], 0, "{record:#}");
    let detail = step["detail"].as_str().unwrap();
    assert!(
        detail.contains(
            "stopped by a signal after 1 of its 2 lines; not run: `esxcli storage nmp satp rule add"
        ),
        "{detail}"
    );
    let rules =
        std::fs::read_to_string(recordings.join("esxcli_storage_nmp_satp_rule_list.txt")).unwrap();
    assert!(!rules.contains("driftgate: keep"), "{rules}");
}

#[test]
fn a_nightly_out_dir_is_planned_from_its_snapshots_and_the_bmc_sessions_are_closed() {
    // The lab's BMC asks for a session: every one `fix` opens is deleted again.
    let lab = Lab::authenticated();
    lab.state("post-update");
    let out = lab.dir.path().join("nightly");
    let mut night = lab.command();
    night.args(["check", "--all", "--out-dir"]).arg(&out);
    run(&mut night).expect(1);
    let plan = fix(
        &lab,
        &[
            "plan",
            "--out-dir",
            out.to_str().unwrap(),
            "--format",
            "json",
        ],
    )
    .expect(0)
    .json();
    assert!(
        plan["made_from"]
            .as_str()
            .unwrap()
            .starts_with("nightly out-dir"),
        "{plan:#}"
    );
    let steps = plan["hosts"][0]["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 2, "{plan:#}");
    assert_eq!(
        steps[0]["action"]["body"]["Attributes"],
        json!({"Broadcom_DCBX": "Enabled_IEEE"})
    );
    let simulator = lab.simulator.as_ref().unwrap();
    assert_eq!(simulator.sessions(), 0, "the plan's session was deleted");
}

/// A String NIC attribute whose name says PFC, so that a change of it blocks.
pub(crate) const PFC: &str = "Vendor_PFCPriorities";

/// The attack's baseline value: a newline, then a line that writes the BMC password to a file.
pub(crate) const LEAK: &str = "0\nprintf %s \"$DRIFTGATE_BMC_PASSWORD\" > leaked-password.txt #";

/// Captures of the seed-1 baseline BMC given one more NIC attribute [`PFC`], `was` in the
/// baseline and `0` now, in `work`: (current, baseline).
pub(crate) fn attribute_drift(work: &Path, was: &str) -> (std::path::PathBuf, std::path::PathBuf) {
    attribute_drift_named(work, PFC, was)
}

/// Captures of the seed-1 baseline BMC given one more writable String NIC attribute `name`,
/// `was` in the baseline and `0` now, in `work`: (current, baseline). The current mockup folder
/// stays: the plan reads the BMC there.
pub(crate) fn attribute_drift_named(
    work: &Path,
    name: &str,
    was: &str,
) -> (std::path::PathBuf, std::path::PathBuf) {
    for (state, value) in [("baseline", was), ("current", "0")] {
        let bmc = work.join(state).join("bmc");
        scripts::bmc_with_attribute(&bmc, name, value);
        driftgate()
            .args(["capture", "--host", "azl-node01", "--source"])
            .arg(format!("redfish=mockup:{}", bmc.display()))
            .arg("--out")
            .arg(work.join(format!("{state}.json")))
            .assert()
            .code(0);
    }
    (work.join("current.json"), work.join("baseline.json"))
}

/// `fix plan --snapshot CURRENT --baseline BASELINE --emit-scripts DIR ARGS…`.
pub(crate) fn emit_scripts(current: &Path, baseline: &Path, dir: &Path, args: &[&str]) -> Ran {
    run(driftgate()
        .args(["fix", "plan", "--snapshot"])
        .arg(current)
        .arg("--baseline")
        .arg(baseline)
        .arg("--emit-scripts")
        .arg(dir)
        .args(args))
}

/// Runs a `-bmc.sh` against a recording BMC stand-in with `user` and `password`.
pub(crate) fn run_bmc_script(
    script: &Path,
    user: &str,
    password: &str,
) -> (
    scripts::ScriptRun,
    Vec<scripts::Received>,
    scripts::StandIns,
) {
    let recorder = scripts::Recorder::start();
    let stand_ins = scripts::StandIns::new();
    let ran = scripts::run_script(
        script,
        &stand_ins,
        &[
            ("BMC", recorder.url.as_str()),
            ("DRIFTGATE_BMC_USERNAME", user),
            ("DRIFTGATE_BMC_PASSWORD", password),
        ],
    );
    (ran, recorder.received(), stand_ins)
}

#[test]
fn a_value_that_ends_its_comment_line_stays_data_in_the_emitted_bmc_script() {
    let work = tempfile::tempdir().unwrap();
    let (current, baseline) = attribute_drift(work.path(), LEAK);
    let dir = work.path().join("scripts");
    let plan = emit_scripts(&current, &baseline, &dir, &[]).expect(0);
    // The plan a ticket or a confirmation shows has no line the value made either.
    assert!(
        plan.stdout.contains(&format!(r"{PFC}=0\u{{a}}printf %s"))
            && !plan.stdout.lines().any(|l| l.starts_with("printf")),
        "{}",
        plan.stdout
    );
    let script = dir.join("azl-node01-bmc.sh");
    let text = std::fs::read_to_string(&script).unwrap();
    // The summary's newline is shown, not written: the comment is one line.
    assert!(
        text.contains(&format!(r"{PFC}=0\u{{a}}printf %s")),
        "{text}"
    );
    let (ran, received, stand_ins) = run_bmc_script(&script, "root", "calvin-7");
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert!(ran.left.is_empty(), "the script wrote {:?}", ran.left);
    assert_eq!(stand_ins.calls("curl").len(), 1);
    assert_eq!(received.len(), 1, "{received:?}");
    assert_eq!(received[0].method, "PATCH");
    assert_eq!(
        received[0].path,
        format!("/{}/Settings", scripts::NIC_ATTRIBUTES)
    );
    let body: Value = serde_json::from_slice(&received[0].body).unwrap();
    assert_eq!(body["Attributes"][PFC], LEAK, "the value arrives as it was");
    assert_eq!(received[0].account, b"root:calvin-7");
}

#[test]
fn any_bmc_password_reaches_curl_byte_exact_and_nowhere_else() {
    let work = tempfile::tempdir().unwrap();
    let (current, baseline) = attribute_drift(work.path(), "7");
    let dir = work.path().join("scripts");
    emit_scripts(&current, &baseline, &dir, &[]).expect(0);
    let script = dir.join("azl-node01-bmc.sh");
    for password in [
        "with\"quote",
        r"back\slash\t",
        "new\nline",
        "user = \"root:x\"\n--url http://elsewhere/",
        "tab\tcr\rvt\u{b} ü€‘’ :colon #hash $(id) `id` '",
        "\\",
    ] {
        let (ran, received, stand_ins) = run_bmc_script(&script, "root", password);
        assert_eq!(ran.code, 0, "{password:?}: {}", ran.stderr);
        assert_eq!(received.len(), 1, "{password:?}: {received:?}");
        assert_eq!(
            String::from_utf8_lossy(&received[0].account),
            format!("root:{password}"),
            "{password:?}"
        );
        // Never on a command line, never in curl's environment.
        let calls = stand_ins.calls("curl");
        assert_eq!(calls.len(), 1);
        for arg in &calls[0].args {
            assert!(
                !String::from_utf8_lossy(arg).contains(password),
                "{password:?} in argv"
            );
        }
        let env = std::fs::read(stand_ins.env_of("curl", 0)).unwrap();
        assert!(
            !String::from_utf8_lossy(&env).contains("DRIFTGATE_BMC_PASSWORD"),
            "{password:?}: the account is in curl's environment"
        );
    }
    // HTTP Basic authentication cannot carry a user name with a colon: nothing is sent.
    let (ran, received, stand_ins) = run_bmc_script(&script, "ro:ot", "secret");
    assert_eq!(ran.code, 2, "{}", ran.stderr);
    assert!(ran.stderr.contains("holds a colon"), "{}", ran.stderr);
    assert!(received.is_empty() && stand_ins.calls("curl").is_empty());
}

/// The attack's Windows adapter name: a typographic quote ends a PowerShell string too.
pub(crate) const ADAPTER: &str = "SLOT 3 Port 1\u{2019}; Write-Host X; \u{2019}\n";

/// Captures in `work` of seed 1's Windows host whose first adapter is called `name`, its QoS
/// enabled in the baseline and disabled now: `current.json` and `baseline.json`.
pub(crate) fn adapter_named(work: &Path, name: &str) {
    let recorded = root().join("examples/azure-local-dcbx/recorded/baseline/windows");
    for (state, enabled) in [("baseline", true), ("current", false)] {
        let folder = work.join(state);
        copy_dir(&recorded, &folder);
        let file = folder.join("windows-qos.json");
        let mut doc: Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
        for list in ["Adapters", "AdapterQos"] {
            for adapter in doc[list].as_array_mut().unwrap() {
                if adapter["Name"] == "SLOT 3 Port 1" {
                    adapter["Name"] = json!(name);
                    if list == "AdapterQos" {
                        adapter["Enabled"] = json!(enabled);
                    }
                }
            }
        }
        std::fs::write(&file, serde_json::to_vec_pretty(&doc).unwrap()).unwrap();
        driftgate()
            .args(["capture", "--host", "azl-node01", "--source"])
            .arg(format!("windows=dir:{}", folder.display()))
            .arg("--out")
            .arg(work.join(format!("{state}.json")))
            .assert()
            .code(0);
    }
}

#[test]
fn a_windows_adapter_name_with_typographic_quotes_stays_one_string() {
    use crate::common::powershell::{self, Token, literal, word};
    let work = tempfile::tempdir().unwrap();
    adapter_named(work.path(), ADAPTER);
    let snapshot: Value =
        serde_json::from_slice(&std::fs::read(work.path().join("current.json")).unwrap()).unwrap();
    let named = snapshot["facts"]["nic/00:0a:f7:12:34:56/os/name"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(named.contains('\u{2019}'), "{named:?}");
    let dir = work.path().join("scripts");
    let plan = emit_scripts(
        &work.path().join("current.json"),
        &work.path().join("baseline.json"),
        &dir,
        &["--format", "json"],
    )
    .expect(0)
    .json();
    let expected = vec![
        vec![
            word("if"),
            Token::Operator('('),
            Token::Operator('('),
            word("Get-NetAdapter"),
            word("-Name"),
            literal(&named),
            Token::Operator(')'),
            word(".MacAddress"),
            word("-ne"),
            literal("00-0A-F7-12-34-56"),
            Token::Operator(')'),
            Token::Operator('{'),
            word("throw"),
            literal(&format!(
                "adapter {named} is not the port 00:0a:f7:12:34:56"
            )),
            Token::Operator('}'),
        ],
        vec![word("Enable-NetAdapterQos"), word("-Name"), literal(&named)],
    ];
    // What `fix apply --layer os` runs is the plan's lines: each is the command, the name one
    // string.
    let step = &plan["hosts"][0]["steps"][0];
    let lines: Vec<Vec<Token>> = step["action"]["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|line| powershell::tokenize(line.as_str().unwrap()).unwrap())
        .collect();
    assert_eq!(lines, expected, "{step:#}");
    // The script: comments, `$ErrorActionPreference`, and those lines, nothing else.
    let text = powershell::as_windows_powershell_reads(
        &std::fs::read(dir.join("azl-node01-windows.ps1")).unwrap(),
    );
    let commands: Vec<Vec<Token>> = powershell::lines(&text)
        .unwrap()
        .into_iter()
        .filter(|line| !line.is_empty() && !matches!(line[..], [Token::Comment(_)]))
        .collect();
    let mut all = vec![vec![
        word("$ErrorActionPreference"),
        word("="),
        literal("Stop"),
    ]];
    all.extend(expected);
    assert_eq!(commands, all, "{text}");
}

/// A bin folder with a stand-in `powershell`: the collector's call (`-ExecutionPolicy Bypass`)
/// prints `recorded`'s `windows-qos.json`; any other call appends its arguments,
/// NUL-separated, to `log/<n>.args` and succeeds.
fn recording_powershell(recorded: &Path, log: &Path) -> tempfile::TempDir {
    let bin = tempfile::tempdir().unwrap();
    let script = format!(
        "#!/bin/sh\ncase \" $* \" in\n*' -ExecutionPolicy '*) cat > /dev/null; cat {qos:?} ;;\n*) n=0; while [ -e {log:?}/$n.args ]; do n=$((n + 1)); done; for a in \"$@\"; do printf '%s\\0' \"$a\"; done > {log:?}/$n.args ;;\nesac\n",
        qos = recorded.join("windows-qos.json").display().to_string(),
        log = log.display().to_string(),
    );
    let file = bin.path().join("powershell");
    std::fs::write(&file, script).unwrap();
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o755)).unwrap();
    bin
}

#[test]
fn fix_apply_runs_a_windows_line_encoded_with_the_adapter_name_one_string() {
    use crate::common::powershell::{self, Token, literal, word};
    use base64::Engine as _;
    let work = tempfile::tempdir().unwrap();
    adapter_named(work.path(), ADAPTER);
    let log = work.path().join("log");
    std::fs::create_dir(&log).unwrap();
    let bin = recording_powershell(&work.path().join("current"), &log);
    let (_store, driftgate_at) = local_host_store(
        work.path(),
        bin.path(),
        ("azl-node01", "win", "windows=local:"),
        &work.path().join("baseline.json"),
    );
    driftgate_at(&["gate", "pre", "--run", "CHG-W1", "azl-node01"]).expect(1);
    let applied = driftgate_at(&[
        "fix", "apply", "--run", "CHG-W1", "--ticket", "CHG-W1", "--yes", "--layer", "os",
    ])
    .expect(0);
    assert!(
        applied
            .stderr
            .contains("[windows-1] applied: ran on the host"),
        "{}",
        applied.stderr
    );
    let named = ADAPTER;
    let mac = "00:0a:f7:12:34:56";
    let expected = [
        vec![
            word("if"),
            Token::Operator('('),
            Token::Operator('('),
            word("Get-NetAdapter"),
            word("-Name"),
            literal(named),
            Token::Operator(')'),
            word(".MacAddress"),
            word("-ne"),
            literal("00-0A-F7-12-34-56"),
            Token::Operator(')'),
            Token::Operator('{'),
            word("throw"),
            literal(&format!("adapter {named} is not the port {mac}")),
            Token::Operator('}'),
        ],
        vec![word("Enable-NetAdapterQos"), word("-Name"), literal(named)],
    ];
    for (n, line) in expected.iter().enumerate() {
        let args = std::fs::read(log.join(format!("{n}.args"))).unwrap();
        let args: Vec<String> = args
            .split(|b| *b == 0)
            .filter(|a| !a.is_empty())
            .map(|a| String::from_utf8(a.to_vec()).unwrap())
            .collect();
        // Letters, digits and `+/=` only: nothing on the way (ssh, cmd.exe) reads it again.
        assert_eq!(
            args[..3],
            ["-NoProfile", "-NonInteractive", "-EncodedCommand"]
        );
        assert_eq!(args.len(), 4, "{args:?}");
        let utf16: Vec<u16> = base64::engine::general_purpose::STANDARD
            .decode(&args[3])
            .unwrap()
            .chunks(2)
            .map(|pair| u16::from_le_bytes([pair[0], pair[1]]))
            .collect();
        let script = String::from_utf16(&utf16).unwrap();
        let want = vec![
            vec![word("$ErrorActionPreference"), word("="), literal("Stop")],
            line.clone(),
        ];
        assert_eq!(powershell::lines(&script).unwrap(), want, "{script}");
    }
    assert!(!log.join("2.args").exists(), "two lines run, no more");
}
