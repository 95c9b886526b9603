//! `fix apply` against a hostile BMC (`driftgate mockup serve` of the seed-1 iDRAC, edited and
//! faulted as a BMC that wants its accounts or its manager written): every PATCH and POST the
//! simulator receives is one the plan names, aimed from the URIs driftgate read, never from
//! what the BMC claims, never after a redirect. The simulator's own list of what it received
//! (`/driftgate/requests`) is the witness.

use std::path::PathBuf;

use serde_json::{Value, json};

use crate::common::fleet::edit_json;
use crate::common::gate::{Lab, PASSWORD_ENV, Ran, USERNAME_ENV, run};
use crate::common::simulator::{PASSWORD, Simulator, USER};
use crate::common::{copy_dir, driftgate, public_data};

const ATTRIBUTES: [&str; 2] = [
    "/redfish/v1/Chassis/System.Embedded.1/NetworkAdapters/NIC.Slot.3/NetworkDeviceFunctions/NIC.Slot.3-1-1/Oem/Dell/DellNetworkAttributes/NIC.Slot.3-1-1",
    "/redfish/v1/Chassis/System.Embedded.1/NetworkAdapters/NIC.Slot.3/NetworkDeviceFunctions/NIC.Slot.3-2-1/Oem/Dell/DellNetworkAttributes/NIC.Slot.3-2-1",
];
const ACCOUNT: &str = "/redfish/v1/AccountService/Accounts/2";
const SYSTEM: &str = "/redfish/v1/Systems/System.Embedded.1";
const RESET: &str = "/redfish/v1/Systems/System.Embedded.1/Actions/ComputerSystem.Reset";
const MANAGER_RESET: &str = "/redfish/v1/Managers/iDRAC.Embedded.1/Actions/Manager.Reset";
const SESSIONS: &str = "/redfish/v1/SessionService/Sessions";

/// What one `fix apply` against a hostile BMC did.
pub(crate) struct Attack {
    /// The command.
    pub ran: Ran,
    /// Every request other than a GET the BMC received meanwhile, `METHOD target`.
    pub sent: Vec<String>,
    /// Whether a record of the apply was written in the run directory.
    pub recorded: bool,
}

/// The file the lab's BMC serves `uri` from.
fn served(lab: &Lab, uri: &str) -> PathBuf {
    lab.host.join(format!("bmc{uri}/index.json"))
}

/// The seed-1 lab, its BMC served with `args`, after its update blocked run `run_id` (DCBX
/// disabled on both ports): a plan of two Settings PATCHes and a reset.
fn blocked(args: &[&str], run_id: &str) -> Lab {
    let lab = Lab::with_simulator(args);
    lab.gate(&["pre", "--run", run_id, "azl-node01"]).expect(0);
    lab.state("post-update");
    lab.gate(&["post", "--run", run_id]).expect(1);
    lab
}

/// `fix apply --yes [--reset]` of `run_id`; asserts that every write the BMC received is a
/// session's login or logout or one the plan names (a port's Settings PATCH, the system's
/// reset), exactly as planned.
fn apply(lab: &Lab, run_id: &str, reset: bool) -> Attack {
    let simulator = lab.simulator.as_ref().expect("the simulator runs");
    let before = simulator.sent().len();
    let mut cmd = lab.command();
    cmd.args(["fix", "apply", "--run", run_id, "--ticket", run_id, "--yes"]);
    if reset {
        cmd.arg("--reset");
    }
    let ran = run(&mut cmd);
    let sent = simulator.sent().split_off(before);
    let planned: Vec<String> = ATTRIBUTES
        .iter()
        .map(|a| format!("PATCH {a}/Settings"))
        .chain([format!("POST {RESET}"), format!("POST {SESSIONS}")])
        .collect();
    for request in &sent {
        assert!(
            planned.contains(request) || request.starts_with(&format!("DELETE {SESSIONS}/")),
            "the BMC received {request:?}, which no plan names; all it received: {sent:#?}\n{}",
            ran.stderr
        );
    }
    // The records, not the lock file `fix apply` takes before it reads the BMC.
    let recorded = std::fs::read_dir(lab.run_dir(run_id).join("fix")).is_ok_and(|dir| {
        dir.flatten().any(|entry| {
            let name = entry.file_name();
            let name = name.to_string_lossy();
            name.starts_with("apply-") && name.ends_with(".json")
        })
    });
    Attack {
        ran,
        sent,
        recorded,
    }
}

/// Serves the BMC's account 2 as if it were the first port's settings object (typed so that
/// a crawl reads it as one): what a BMC that wants it written would do.
fn account_as_settings(lab: &Lab) {
    let settings = served(lab, &format!("{}/Settings", ATTRIBUTES[0]));
    let mut body: Value = serde_json::from_slice(&std::fs::read(settings).unwrap()).unwrap();
    body["@odata.id"] = json!(ACCOUNT);
    let file = served(lab, ACCOUNT);
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(file, serde_json::to_vec_pretty(&body).unwrap()).unwrap();
}

/// The first port's attributes name `settings` as their settings object.
fn settings_object(lab: &Lab, settings: &str) {
    edit_json(&served(lab, ATTRIBUTES[0]), |attributes| {
        attributes["@Redfish.Settings"]["SettingsObject"]["@odata.id"] = json!(settings);
    });
}

/// The attribute resource claims to be `/redfish/v1/AccountService` and names account 2 as its
/// settings object.
pub(crate) fn claimed_resource() -> Attack {
    let lab = blocked(&[], "CHG-6001");
    account_as_settings(&lab);
    edit_json(&served(&lab, ATTRIBUTES[0]), |attributes| {
        attributes["@odata.id"] = json!("/redfish/v1/AccountService");
    });
    settings_object(&lab, ACCOUNT);
    apply(&lab, "CHG-6001", false)
}

/// The settings object is the resource, then `/.<hidden>.` ten times (a tab or newline the
/// URL parser drops), then `/AccountService/Accounts/2`.
pub(crate) fn hidden_dots(hidden: char) -> Attack {
    let lab = blocked(&[], "CHG-6002");
    account_as_settings(&lab);
    let dots = format!("/.{hidden}.").repeat(10);
    settings_object(
        &lab,
        &format!("{}{dots}/AccountService/Accounts/2", ATTRIBUTES[0]),
    );
    apply(&lab, "CHG-6002", false)
}

/// The settings object climbs with `..%2F` ten times to `AccountService%2FAccounts%2F2`, on a
/// BMC whose web server decodes `%2F` before it routes.
pub(crate) fn encoded_slashes() -> Attack {
    let lab = blocked(&["--fault", "decode-paths"], "CHG-6003");
    account_as_settings(&lab);
    let climb = "..%2F".repeat(10);
    settings_object(
        &lab,
        &format!("{}/{climb}AccountService%2FAccounts%2F2", ATTRIBUTES[0]),
    );
    apply(&lab, "CHG-6003", false)
}

/// The first port's Settings PATCH is answered `307` to account 2.
pub(crate) fn redirected_patch() -> Attack {
    let fault = format!("redirect-write={}/Settings->{ACCOUNT}", ATTRIBUTES[0]);
    let lab = blocked(&["--fault", &fault], "CHG-6004");
    apply(&lab, "CHG-6004", false)
}

/// The system's reset POST is answered `307` to the manager's reset.
pub(crate) fn redirected_reset() -> Attack {
    let fault = format!("redirect-write={RESET}->{MANAGER_RESET}");
    let lab = blocked(&["--fault", &fault], "CHG-6005");
    apply(&lab, "CHG-6005", true)
}

/// The system claims `@odata.id` `/redfish/v1` and names the manager's reset as its own.
pub(crate) fn claimed_system() -> Attack {
    let lab = blocked(&[], "CHG-6006");
    edit_json(&served(&lab, SYSTEM), |system| {
        system["@odata.id"] = json!("/redfish/v1");
        system["Actions"]["#ComputerSystem.Reset"]["target"] = json!(MANAGER_RESET);
    });
    apply(&lab, "CHG-6006", true)
}

const OTHER: &str = "/redfish/v1/Systems/Other.1";
const CHASSIS: &str = "/redfish/v1/Chassis/System.Embedded.1";

/// `Systems` lists another system, `Other.1`, before the one whose chassis holds the NIC.
pub(crate) fn other_system_first() -> Attack {
    let lab = blocked(&[], "CHG-6007");
    other_system(&lab, &[]);
    apply(&lab, "CHG-6007", true)
}

/// `Other.1`, listed first, and the NIC's chassis link each other too: two owners.
pub(crate) fn two_owners() -> Attack {
    let lab = blocked(&[], "CHG-6008");
    owned_twice(&lab);
    apply(&lab, "CHG-6008", true)
}

/// Serves `Other.1`, listed first, and the NIC's chassis linking each other too.
fn owned_twice(lab: &Lab) {
    other_system(lab, &[CHASSIS]);
    edit_json(&served(lab, CHASSIS), |chassis| {
        chassis["Links"]["ComputerSystems"]
            .as_array_mut()
            .unwrap()
            .push(json!({"@odata.id": OTHER}));
    });
}

/// Serves a system `Other.1` whose `Links.Chassis` are `chassis`, listed first in `Systems`.
fn other_system(lab: &Lab, chassis: &[&str]) {
    let other = OTHER;
    let file = served(lab, other);
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    let body = json!({
        "@odata.id": other,
        "@odata.type": "#ComputerSystem.v1_20_0.ComputerSystem",
        "Id": "Other.1",
        "Name": "Another system of this BMC",
        "Links": {"Chassis": chassis.iter().map(|c| json!({"@odata.id": c})).collect::<Vec<_>>()},
        "Actions": {"#ComputerSystem.Reset": {
            "target": format!("{other}/Actions/ComputerSystem.Reset"),
            "ResetType@Redfish.AllowableValues": ["GracefulRestart"]
        }}
    });
    std::fs::write(&file, serde_json::to_vec_pretty(&body).unwrap()).unwrap();
    edit_json(&served(lab, "/redfish/v1/Systems"), |systems| {
        systems["Members"] = json!([{"@odata.id": other}, {"@odata.id": SYSTEM}]);
        systems["Members@odata.count"] = json!(2);
    });
}

#[test]
fn a_settings_object_below_the_uri_the_bmc_claims_is_not_written() {
    let attack = claimed_resource();
    let stderr = &attack.ran.stderr;
    assert_eq!(attack.ran.code, 2, "{stderr}");
    assert!(
        stderr.contains("fix refused, nothing sent")
            && stderr.contains(&format!(
                "Broadcom_DCBX of {}: the BMC names where to stage it, but \"{ACCOUNT}\" is sent as {ACCOUNT}, which is not below {} (the URI driftgate read)",
                ATTRIBUTES[0], ATTRIBUTES[0]
            )),
        "{stderr}"
    );
    assert!(!attack.recorded);
}

#[test]
fn dot_segments_hidden_by_a_tab_or_a_newline_are_resolved_before_the_check() {
    for hidden in ['\t', '\n'] {
        let attack = hidden_dots(hidden);
        let stderr = &attack.ran.stderr;
        assert_eq!(attack.ran.code, 2, "{hidden:?}: {stderr}");
        assert!(
            stderr.contains(&format!("is sent as {ACCOUNT}, which is not below")),
            "{hidden:?}: {stderr}"
        );
        assert!(
            !attack.sent.iter().any(|r| r.starts_with("PATCH")),
            "{:?}",
            attack.sent
        );
    }
}

#[test]
fn a_percent_encoded_slash_in_a_settings_object_is_refused() {
    let attack = encoded_slashes();
    let stderr = &attack.ran.stderr;
    assert_eq!(attack.ran.code, 2, "{stderr}");
    assert!(
        stderr.contains("holds a \"%\" (percent-encoding a BMC's web server may decode), which a BMC's web server may route elsewhere than it reads"),
        "{stderr}"
    );
    assert!(
        !attack.sent.iter().any(|r| r.starts_with("PATCH")),
        "{:?}",
        attack.sent
    );
}

#[test]
fn a_redirected_write_is_a_failed_step_naming_the_location() {
    let patch = redirected_patch();
    let stderr = &patch.ran.stderr;
    assert_eq!(patch.ran.code, 1, "{stderr}");
    assert!(
        stderr.contains(&format!("[bmc-1] FAILED: the BMC redirected it (HTTP 307) to {ACCOUNT}: a write never follows a redirect")),
        "{stderr}"
    );
    // The other port's step took: fix apply's own outcome, never a gate's "blocked".
    assert!(
        stderr.contains("fix apply: partly applied (1 step(s) applied, 1 not")
            && !stderr.to_lowercase().contains("block"),
        "{stderr}"
    );
    // The other port's PATCH is sent as planned; nothing follows the redirect.
    assert_eq!(
        patch.sent.iter().filter(|r| r.starts_with("PATCH")).count(),
        2,
        "{:?}",
        patch.sent
    );
    assert!(patch.recorded);
}

#[test]
fn a_redirected_reset_is_not_posted_to_the_location() {
    let reset = redirected_reset();
    let stderr = &reset.ran.stderr;
    assert_eq!(reset.ran.code, 1, "{stderr}");
    assert!(
        stderr.contains(&format!(
            "reset GracefulRestart {RESET}: HTTP 307: redirected to {MANAGER_RESET}: a write never follows a redirect"
        )),
        "{stderr}"
    );
    assert_eq!(
        reset.sent.iter().filter(|r| r.starts_with("POST")).count(),
        1,
        "one reset, not followed: {:?}",
        reset.sent
    );
}

#[test]
fn a_reset_target_the_system_claims_outside_itself_is_not_posted() {
    let attack = claimed_system();
    let stderr = &attack.ran.stderr;
    assert!(
        stderr.contains(&format!(
            "reset not sent: the reset target of {SYSTEM}: \"{MANAGER_RESET}\" is sent as {MANAGER_RESET}, which is not below {SYSTEM} (the URI driftgate read)"
        )),
        "{stderr}"
    );
    assert!(
        !attack.sent.iter().any(|r| r.contains("Reset")),
        "{:?}",
        attack.sent
    );
}

#[test]
fn the_reset_goes_to_the_system_that_owns_the_nic_s_chassis() {
    let attack = other_system_first();
    let stderr = &attack.ran.stderr;
    assert_eq!(attack.ran.code, 0, "{stderr}");
    assert!(
        stderr.contains(&format!("reset GracefulRestart {RESET}: HTTP 204")),
        "{stderr}"
    );
    assert_eq!(
        attack
            .sent
            .iter()
            .filter(|r| r.contains("ComputerSystem.Reset"))
            .collect::<Vec<_>>(),
        [&format!("POST {RESET}")]
    );
}

/// A shared capture served writable (sessions required), its baseline captured from it and
/// promoted, the inventory naming it as host `shared`.
struct SharedLab {
    _dir: tempfile::TempDir,
    store: PathBuf,
    bmc: PathBuf,
    simulator: Simulator,
}

impl SharedLab {
    fn new(name: &str) -> SharedLab {
        let dir = tempfile::tempdir().unwrap();
        let bmc = dir.path().join("bmc");
        copy_dir(&public_data(&format!("redfish/{name}")), &bmc);
        let simulator = Simulator::start(&bmc, &["--auth", "session"]);
        let store = dir.path().join("store");
        driftgate()
            .args(["baseline", "init"])
            .arg(&store)
            .assert()
            .code(0);
        let baseline = dir.path().join("baseline.json");
        driftgate()
            .args(["capture", "--host", "shared", "--source"])
            .arg(format!("redfish={}", simulator.url))
            .arg("--out")
            .arg(&baseline)
            .env("DRIFTGATE_BMC_USERNAME", USER)
            .env("DRIFTGATE_BMC_PASSWORD", PASSWORD)
            .assert()
            .code(0);
        driftgate()
            .arg("--repo")
            .arg(&store)
            .args(["baseline", "promote", "--fleet", "shared"])
            .args(["--force", "--reason", "a shared capture, as it is"])
            .arg(&baseline)
            .assert()
            .code(0);
        let inventory = format!(
            "[defaults]\nfleet = \"shared\"\ncredentials = {{ username_env = \"{USERNAME_ENV}\", password_env = \"{PASSWORD_ENV}\" }}\n\n[[host]]\nname = \"shared\"\nsources = [\"redfish={}\"]\n",
            simulator.url
        );
        std::fs::write(store.join("inventory.toml"), inventory).unwrap();
        SharedLab {
            _dir: dir,
            store,
            bmc,
            simulator,
        }
    }

    /// `driftgate --repo STORE ARGS…` with the account in the environment.
    fn run(&self, args: &[&str]) -> Ran {
        let mut cmd = driftgate();
        cmd.env(USERNAME_ENV, USER)
            .env(PASSWORD_ENV, PASSWORD)
            .arg("--repo")
            .arg(&self.store)
            .args(args);
        run(&mut cmd)
    }

    /// The file the BMC serves `uri` from, in either mockup layout.
    fn served(&self, uri: &str) -> PathBuf {
        let nested = self.bmc.join(format!(".{uri}/index.json"));
        if nested.exists() {
            return nested;
        }
        let rest = uri.strip_prefix("/redfish/v1").unwrap();
        self.bmc.join(format!(".{rest}/index.json"))
    }
}

/// A change of a served resource: its URI, a JSON pointer into it, the new value.
type Drift<'a> = (&'a str, &'a str, Value);

#[test]
fn a_whole_apply_against_every_shared_capture_sends_only_the_planned_writes() {
    let dpu_nic = "/redfish/v1/Chassis/System.Embedded.1/NetworkAdapters/NIC.Slot.5/NetworkDeviceFunctions/NIC.Slot.5-1/Oem/Dell/DellNetworkAttributes/NIC.Slot.5-1";
    // Each capture, a drift after `gate pre` of a setting a gate blocks on (none: the capture
    // blocks as it is under `--strict`, its DCBX disabled beside RDMA switched off, a
    // warning; a BIOS setting blocks a `--strict` run),
    // and the system that owns it. The DMTF services publish no attribute registry: their
    // steps are refused, and the BMC sees the plan's session only.
    let captures: [(&str, Option<Drift>, &str); 4] = [
        ("libredfish-dell", None, SYSTEM),
        (
            "libredfish-dell_multi_dpu",
            Some((dpu_nic, "/Attributes/LldpPort1", json!("Disabled"))),
            SYSTEM,
        ),
        (
            "dmtf-public-smartnic",
            Some((
                "/redfish/v1/Chassis/Card1/NetworkAdapters/Slot1/Ports/SC2KP1",
                "/Ethernet/FlowControlConfiguration",
                json!("None"),
            )),
            "/redfish/v1/Systems/Card1-SoC",
        ),
        (
            "dmtf-public-rackmount1",
            Some((
                "/redfish/v1/Systems/437XR1138R2/Bios",
                "/Attributes/ProcTurboMode",
                json!("Disabled"),
            )),
            "/redfish/v1/Systems/437XR1138R2",
        ),
    ];
    let mut reset_anywhere = false;
    for (name, drift, owner) in captures {
        let lab = SharedLab::new(name);
        let strict = matches!(name, "dmtf-public-rackmount1" | "libredfish-dell");
        let mut pre = vec!["gate", "pre", "--run", "R-1", "shared"];
        pre.extend(strict.then_some("--strict"));
        let pre = lab.run(&pre);
        let post = match drift {
            Some((uri, pointer, value)) => {
                pre.expect(0);
                edit_json(&lab.served(uri), |resource| {
                    *resource.pointer_mut(pointer).unwrap() = value;
                });
                lab.run(&["gate", "post", "--run", "R-1"])
            }
            None => pre,
        };
        let plan = lab
            .run(&["fix", "plan", "--run", "R-1", "--format", "json"])
            .expect(0)
            .json();
        let host = &plan["hosts"][0];
        let steps: Vec<&Value> = host["steps"]
            .as_array()
            .map(|s| s.iter().filter(|s| s["layer"] == "bmc").collect())
            .unwrap_or_default();
        let refused = host["not_fixable"]
            .as_array()
            .is_some_and(|n| n.iter().any(|n| n["reason"] == "refused"));
        let before = lab.simulator.sent().len();
        let applied = lab.run(&[
            "fix", "apply", "--run", "R-1", "--ticket", "R-1", "--yes", "--reset",
        ]);
        let sent = lab.simulator.sent().split_off(before);
        assert_eq!(post.code, 1, "{name}: the run blocks");
        // The BMC is read for the plan through one session, deleted at the end.
        let mut expected = vec![format!("POST {SESSIONS}")];
        if !refused {
            expected.extend(
                steps
                    .iter()
                    .map(|s| format!("PATCH {}", s["action"]["settings"].as_str().unwrap())),
            );
            if steps.iter().any(|s| s["reboot"] == true) {
                expected.push(format!("POST {owner}/Actions/ComputerSystem.Reset"));
                reset_anywhere = true;
            }
        }
        expected.push(
            sent.last()
                .filter(|last| last.starts_with(&format!("DELETE {SESSIONS}/")))
                .cloned()
                .unwrap_or_else(|| "a DELETE of the session".into()),
        );
        assert_eq!(
            sent, expected,
            "{name}: gate post exited {}; plan {plan:#}\n{}",
            post.code, applied.stderr
        );
    }
    assert!(reset_anywhere, "a capture planned a PATCH and its reset");
}

#[test]
fn a_reset_is_judged_by_the_steps_that_staged_something_only() {
    // The first port's DCBX is current again: its step stages nothing, and its system (two
    // owners) is no reason to refuse; the second port's step, which staged, is.
    let lab = blocked(&[], "CHG-6012");
    owned_twice(&lab);
    edit_json(&served(&lab, ATTRIBUTES[0]), |attributes| {
        attributes["Attributes"]["Broadcom_DCBX"] = json!("Enabled_IEEE");
    });
    let attack = apply(&lab, "CHG-6012", true);
    let stderr = &attack.ran.stderr;
    assert_eq!(attack.ran.code, 0, "{stderr}");
    assert!(
        stderr.contains("[bmc-1] skipped (already current)")
            && stderr.contains(&format!(
                "reset not sent: bmc-2 ({}): its chassis",
                ATTRIBUTES[1]
            ))
            && !stderr.contains("reset not sent: bmc-1"),
        "{stderr}"
    );
}

#[test]
fn two_systems_owning_the_nic_s_chassis_get_no_reset() {
    let attack = two_owners();
    let stderr = &attack.ran.stderr;
    assert_eq!(attack.ran.code, 0, "{stderr}");
    assert!(
        stderr.contains(&format!(
            "reset not sent: bmc-1 ({}): its chassis {CHASSIS} belongs to several systems ({OTHER}, {SYSTEM})",
            ATTRIBUTES[0]
        )),
        "{stderr}"
    );
    assert!(
        !attack.sent.iter().any(|r| r.contains("Reset")),
        "{:?}",
        attack.sent
    );
}
