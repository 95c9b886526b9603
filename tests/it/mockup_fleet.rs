//! End-to-end tests of the fleet simulator (`driftgate mockup serve DIR… --count N`): every
//! BMC answers (or not) as configured over real HTTP with its own state, sessions and
//! counters, its inventory passes `inventory check`, and a simulated BMC captures the same
//! facts as its folder.

use crate::common;

use std::collections::BTreeSet;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};
use std::time::Duration;

use common::capture::capture;
use common::fleet_sim::FleetSim;
use common::simulator::bmc;
use common::{driftgate, stdout_of};
use serde_json::Value;

/// The NIC attributes of port 1 of NIC.Slot.3 (its DCBX mode is `Broadcom_DCBX`).
const NIC_ATTRIBUTES: &str = "/redfish/v1/Chassis/System.Embedded.1/NetworkAdapters/NIC.Slot.3/NetworkDeviceFunctions/NIC.Slot.3-1-1/Oem/Dell/DellNetworkAttributes/NIC.Slot.3-1-1";
const FIRMWARE: &str = "/redfish/v1/UpdateService/FirmwareInventory";

/// The resource at `uri` as the folder holds it.
fn recorded(dir: &Path, uri: &str) -> Value {
    let file = dir.join(uri.trim_start_matches('/')).join("index.json");
    let text = std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", file.display()))
}

fn dcbx(sim: &FleetSim, index: usize) -> Value {
    sim.get(index, NIC_ATTRIBUTES).json()["Attributes"]["Broadcom_DCBX"].clone()
}

#[test]
fn each_bmc_answers_as_configured_with_its_own_state_sessions_and_counters() {
    let (baseline, post, benign) = (bmc("baseline"), bmc("post-update"), bmc("benign-update"));
    let state = format!("11={}", benign.display());
    let set = format!("8:{NIC_ATTRIBUTES}#/Attributes/Broadcom_DCBX=Disabled");
    let sim = FleetSim::start(
        &[&baseline, &post],
        12,
        &[
            "--auth",
            "session",
            "--bmc-fault",
            "3:down",
            "--bmc-fault",
            "5:hang-all",
            "--bmc-set",
            &set,
            "--bmc-state",
            &state,
            "--cluster-size",
            "4",
            "--fleet",
            "lab",
        ],
    );
    let distinct: BTreeSet<&String> = sim.urls.iter().collect();
    assert_eq!(distinct.len(), 12, "{:?}", sim.urls);
    let down: Vec<usize> = (0..12).filter(|i| sim.down[*i]).collect();
    assert_eq!(down, [3]);

    // Every listening BMC but the hanging one answers, each from its own folder.
    let answering: Vec<usize> = (0..12).filter(|i| ![3, 5].contains(i)).collect();
    for &i in &answering {
        let folder: &PathBuf = match i {
            11 => &benign,
            _ if i % 2 == 0 => &baseline,
            _ => &post,
        };
        let root = sim.get(i, "/redfish/v1");
        assert_eq!(root.status, 200, "BMC {i}: {root:?}");
        assert_eq!(
            sim.get(i, FIRMWARE).json(),
            recorded(folder, FIRMWARE),
            "BMC {i}"
        );
    }
    // Only BMC 8 has its DCBX reset: the other baseline BMCs keep the recorded IEEE mode.
    assert_eq!(
        recorded(&baseline, NIC_ATTRIBUTES)["Attributes"]["Broadcom_DCBX"],
        "Enabled_IEEE"
    );
    assert_eq!(dcbx(&sim, 8), "Disabled");
    for i in [0, 2, 4, 6, 10] {
        assert_eq!(dcbx(&sim, i), "Enabled_IEEE", "BMC {i}");
    }
    // The patch changes only its property.
    let mut patched = sim.get(8, NIC_ATTRIBUTES).json();
    patched["Attributes"]["Broadcom_DCBX"] = "Enabled_IEEE".into();
    assert_eq!(patched, recorded(&baseline, NIC_ATTRIBUTES));

    // BMC 3: nothing listens. BMC 5: it accepts, counts, and never answers, not even a login.
    let refused = sim.request(3, "GET", "/redfish/v1", &[], "", Duration::from_secs(2));
    assert_eq!(refused.unwrap_err().kind(), ErrorKind::ConnectionRefused);
    let hung = sim.request(5, "GET", "/redfish/v1", &[], "", Duration::from_millis(500));
    let hung_login = sim.login(5, Duration::from_millis(500));
    for result in [hung, hung_login] {
        let error = result.expect_err("a hanging BMC never answers");
        assert!(
            matches!(error.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut),
            "{error}"
        );
    }
    assert_eq!(sim.requests(5), 2, "the hanging BMC saw both requests");

    // Sessions are per BMC: a token of BMC 0 is nothing to BMC 2 (same folder).
    let login = sim.login(0, Duration::from_secs(10)).unwrap();
    assert_eq!(login.status, 201, "{login:?}");
    let token = format!("X-Auth-Token: {}", login.header("X-Auth-Token").unwrap());
    assert_eq!((sim.sessions(0), sim.sessions(2)), (1, 0));
    let with_token = |i| {
        sim.request(
            i,
            "GET",
            "/redfish/v1/Systems",
            &[&token],
            "",
            Duration::from_secs(10),
        )
        .unwrap()
        .status
    };
    assert_eq!((with_token(0), with_token(2)), (200, 401));

    // Request counters are per BMC.
    let (four, six) = (sim.requests(4), sim.requests(6));
    for _ in 0..3 {
        sim.get(4, "/redfish/v1/Systems");
    }
    assert_eq!((sim.requests(4), sim.requests(6)), (four + 3, six));

    // The written inventory lists every BMC (the down one too) in clusters of 4.
    let (code, checked) = stdout_of(
        driftgate()
            .args(["inventory", "check", "--inventory"])
            .arg(&sim.inventory),
    );
    assert_eq!(code, 0, "{checked}");
    assert!(
        checked.contains("12 hosts in 1 fleet, 3 clusters"),
        "{checked}"
    );
    let hosts = listed(&sim);
    assert_eq!(hosts.len(), 12);
    for (i, host) in hosts.iter().enumerate() {
        assert_eq!(host["name"], FleetSim::host(i));
        assert_eq!(host["fleet"], "lab");
        assert_eq!(host["cluster"], format!("sim-c00{}", i / 4));
        assert_eq!(
            host["sources"],
            serde_json::json!([format!("redfish={}", sim.urls[i])])
        );
        assert_eq!(
            host["credentials"],
            serde_json::json!({"username_env": "DRIFTGATE_MOCKUP_USERNAME", "password_env": "DRIFTGATE_MOCKUP_PASSWORD"})
        );
    }
    let inventory = std::fs::read_to_string(&sim.inventory).unwrap();
    assert!(!inventory.contains(common::simulator::PASSWORD));
}

#[test]
fn a_simulated_bmc_captures_the_same_facts_as_its_folder() {
    let (baseline, post) = (bmc("baseline"), bmc("post-update"));
    let set = format!("2:{NIC_ATTRIBUTES}#/Attributes/Broadcom_DCBX=Disabled");
    let sim = FleetSim::start(
        &[&baseline, &post],
        3,
        &["--auth", "session", "--bmc-set", &set],
    );
    let folder = capture(&format!("redfish=mockup:{}", post.display()), &[], false);
    let live = capture(&format!("redfish={}", sim.urls[1]), &[], true);
    assert_eq!(
        (live.code, live.status(), folder.status()),
        (0, "complete", "complete"),
        "{}",
        live.stderr
    );
    assert!(folder.snapshot["facts"].as_object().unwrap().len() > 20);
    assert_eq!(live.snapshot["facts"], folder.snapshot["facts"]);

    // BMC 2 serves the baseline with its DCBX reset: the capture differs in that alone.
    let odd = capture(&format!("redfish={}", sim.urls[2]), &[], true);
    let original = capture(
        &format!("redfish=mockup:{}", baseline.display()),
        &[],
        false,
    );
    let (odd, original) = (
        odd.snapshot["facts"].as_object().unwrap().clone(),
        original.snapshot["facts"].as_object().unwrap().clone(),
    );
    let changed: Vec<&String> = odd
        .keys()
        .chain(original.keys())
        .filter(|k| odd.get(*k) != original.get(*k))
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    assert!(!changed.is_empty());
    assert!(changed.iter().all(|k| k.contains("dcbx")), "{changed:?}");
}

#[test]
fn loopback_bmcs_share_a_port_on_addresses_of_their_own() {
    let baseline = bmc("baseline");
    let sim = FleetSim::start(&[&baseline], 3, &["--loopback", "--bmc-fault", "1:down"]);
    let port = sim.address(0).rsplit_once(':').unwrap().1;
    let expected: Vec<String> = (2..5)
        .map(|last| format!("http://127.0.0.{last}:{port}"))
        .collect();
    assert_eq!(sim.urls, expected);
    for i in [0, 2] {
        assert_eq!(sim.get(i, "/redfish/v1").status, 200, "BMC {i}");
    }
    let refused = sim.request(1, "GET", "/redfish/v1", &[], "", Duration::from_secs(2));
    assert_eq!(refused.unwrap_err().kind(), ErrorKind::ConnectionRefused);
}

#[test]
fn a_tls_fleet_writes_pinned_sources_that_capture() {
    let post = bmc("post-update");
    let sim = FleetSim::start(&[&post], 2, &["--tls"]);
    let pin = sim.pin.clone().expect("a pin with --tls");
    assert!(pin.starts_with("sha256:"), "{pin}");
    let hosts = listed(&sim);
    let source = hosts[1]["sources"][0].as_str().unwrap().to_owned();
    assert_eq!(source, format!("redfish={}?pin={pin}", sim.urls[1]));
    assert!(sim.urls[1].starts_with("https://127.0.0.1:"));
    assert!(hosts[1]["credentials"].is_null());
    let live = capture(&source, &[], false);
    assert_eq!(
        (live.code, live.status()),
        (0, "complete"),
        "{}",
        live.stderr
    );
}

#[test]
fn per_bmc_flags_that_name_nothing_fail_before_serving() {
    let baseline = bmc("baseline");
    for (args, says) in [
        (
            &["--bmc-fault", "4:down"][..],
            "--bmc-fault names BMC 4, but --count 4 serves BMCs 0-3",
        ),
        (
            &["--bmc-fault", "x:down"][..],
            "expected a BMC index, a range A-B",
        ),
        (&["--bmc-fault", "1:explode"][..], "unknown fault"),
        (
            &["--bmc-set", "1:/redfish/v1/Nope#/a=1"][..],
            "--bmc-set of BMC 1",
        ),
        (
            &["--bmc-set", "0:/redfish/v1#/Nope/x=1"][..],
            "/redfish/v1#/Nope/x: the resource has nothing at \"/Nope\"",
        ),
        (
            &["--bmc-state", "2=/nonexistent"][..],
            "/nonexistent: not a Redfish mockup",
        ),
        (&["--fleet", "x"][..], "--write-inventory"),
    ] {
        let output = driftgate()
            .args(["mockup", "serve"])
            .arg(&baseline)
            .args(["--count", "4", "--listen", "127.0.0.1:0"])
            .args(args)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(says), "{args:?}: {stderr}");
        assert!(output.stdout.is_empty(), "{args:?}");
    }
}

#[test]
fn the_help_shows_a_fleet_example() {
    let (code, help) = stdout_of(driftgate().args(["mockup", "serve", "--help"]));
    assert_eq!(code, 0);
    for part in [
        "Examples:",
        "--count 50",
        "--bmc-fault 7:hang-all",
        "--bmc-set",
        "--write-inventory",
    ] {
        assert!(help.contains(part), "{part}: {help}");
    }
}

/// The hosts `driftgate inventory list --format json` reads from the simulator's inventory.
fn listed(sim: &FleetSim) -> Vec<Value> {
    let (code, listed) = stdout_of(
        driftgate()
            .args(["inventory", "list", "--format", "json", "--inventory"])
            .arg(&sim.inventory),
    );
    assert_eq!(code, 0, "{listed}");
    serde_json::from_str(&listed).expect("inventory list --format json is JSON")
}

/// The hosts of a `check --all -vv` run whose log line ends as `is`, in order: `" s)"` for
/// `HOST: VERDICT (N s)` (finished), `"capture started"`.
fn hosts_logged(stderr: &str, is: &str) -> Vec<String> {
    stderr
        .lines()
        .filter_map(|line| {
            let (host, rest) = line.split_once(": ")?;
            let host = host.rsplit(' ').next()?;
            (host.starts_with("sim-") && rest.ends_with(is)).then(|| host.to_owned())
        })
        .collect()
}

/// A night of `check --all --bootstrap -vv --concurrency 1` over `sim` into `out`: the hosts in
/// the order they started, in the order they finished, and its log. No host may be incomplete
/// (3), nothing refused (2).
fn one_at_a_time(
    lab: &common::fleet::FleetLab,
    sim: &FleetSim,
    out: &Path,
) -> (Vec<String>, Vec<String>, String) {
    let mut command = lab.command();
    command
        .args(["check", "--all", "--bootstrap", "-vv", "--concurrency", "1"])
        .arg("--inventory")
        .arg(&sim.inventory)
        .arg("--out-dir")
        .arg(out);
    FleetSim::with_account(&mut command);
    let output = command.output().expect("driftgate runs");
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(matches!(output.status.code(), Some(0 | 1)), "{stderr}");
    let started = hosts_logged(&stderr, "capture started");
    (started, hosts_logged(&stderr, " s)"), stderr)
}

#[test]
fn a_slow_bmc_steps_aside_for_the_others_and_starts_first_and_aside_the_next_night() {
    let baseline = bmc("baseline");
    // BMC 1 answers every request after 600 ms: its host takes several seconds, the others
    // a fraction of one.
    let sim = FleetSim::start(&[&baseline], 4, &["--bmc-fault", "1:latency=600"]);
    let lab = common::fleet::FleetLab::new(&[], &[]);
    let out = lab.path("night");
    let night = || one_at_a_time(&lab, &sim, &out);
    // One host at a time, but sim-0001 steps aside once it has run three times as long as
    // sim-0000 (at least 2 s): the two after it do not wait for it.
    let (started, finished, stderr) = night();
    let inventory_order = ["sim-0000", "sim-0001", "sim-0002", "sim-0003"];
    assert_eq!(started, inventory_order, "{stderr}");
    let expected = ["sim-0000", "sim-0002", "sim-0003", "sim-0001"];
    assert_eq!(finished, expected, "{stderr}");
    // The next night reads how long each took from the output directory: sim-0001 was slow,
    // so it starts first, and aside at once: the others start beside it.
    // The quick ones start in the order of how long each took (milliseconds apart): any order
    // of them, as long as sim-0001 goes first and ends last.
    let (started, finished, stderr) = night();
    assert_eq!(started.len(), 4, "{stderr}");
    assert_eq!(started[0], "sim-0001", "{stderr}");
    assert_eq!(finished.len(), 4, "{stderr}");
    assert_eq!(finished[3], "sim-0001", "{stderr}");
}

#[test]
fn on_a_first_night_a_slow_bmc_is_seen_before_its_turn_and_the_look_costs_no_request() {
    let baseline = bmc("baseline");
    // Every BMC answers after 100 ms, BMC 4 after 700 ms: its service root, asked for while
    // sim-0000 is captured, is late.
    let args = ["--auth", "session", "--latency", "100"];
    let sim = FleetSim::start(
        &[&baseline],
        6,
        &[&args[..], &["--bmc-fault", "4:latency=700"]].concat(),
    );
    let lab = common::fleet::FleetLab::new(&[], &[]);
    let out = lab.path("night");
    let night = || {
        let (started, _, stderr) = one_at_a_time(&lab, &sim, &out);
        (started, stderr)
    };
    let counts = || (0..6).map(|i| sim.requests(i)).collect::<Vec<_>>();
    // One host at a time, and one look: sim-0004's has taken longer than the floor (500 ms)
    // while sim-0000 is still being read (about 1.5 s), so it starts next, aside.
    let (started, stderr) = night();
    assert_eq!(started.len(), 6, "{stderr}");
    assert_eq!(started[..2], ["sim-0000", "sim-0004"], "{stderr}");
    let first = counts();
    // The next night knows every host from the first: it looks at none, and each capture
    // asks for its root itself, after its login. Each BMC got as many requests either night.
    let (started, stderr) = night();
    assert_eq!(started[0], "sim-0004", "{stderr}");
    let second: Vec<u64> = counts().iter().zip(&first).map(|(c, f)| c - f).collect();
    assert_eq!(first, second, "{stderr}");
}
