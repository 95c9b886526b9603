//! The other end of the wire, for real: `scripts/lldp-lab.sh` joins a "switch" and a "host"
//! network namespace by a veth pair; lldpd in the switch sends the IEEE 802.1Qaz TLVs, lldpad
//! in the host receives them, and driftgate captures `--source lldp=local:` inside the host
//! namespace. veth has no DCB, so the host's own DCB is a recording (`linux=dir:`, port eth1
//! with PFC on priority 3); the peer's side is real. Needs root (CI runs as root), lldpd and
//! lldpad (`scripts/test-deps.sh`). Answers no LLDPDU can carry are recordings
//! ([`lldp_hostile`]), captured with `lldp=dir:`.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common::lldp_hostile::{self, Agent, Attack};
use crate::common::{driftgate, root};

const PORT: &str = "nic/02:00:00:00:41:01";

/// A running lab; taken down (agents stopped, namespaces deleted) when dropped.
struct Lab {
    dir: tempfile::TempDir,
    host: String,
}

impl Lab {
    fn up() -> Lab {
        // SAFETY: geteuid reads a process attribute.
        assert_eq!(
            unsafe { libc::geteuid() },
            0,
            "the LLDP lab creates network namespaces: run the tests as root (CI does)"
        );
        let dir = tempfile::tempdir().unwrap();
        // Built before `up` so that a lab that fails half way is taken down too.
        let mut lab = Lab {
            host: String::new(),
            dir,
        };
        lab.script(&["up"]);
        let names = std::fs::read_to_string(lab.dir.path().join("names")).unwrap();
        lab.host = names
            .lines()
            .find_map(|l| l.strip_prefix("HOST="))
            .expect("HOST= in names")
            .to_owned();
        lab
    }

    fn script(&self, args: &[&str]) {
        let (command, rest) = args.split_first().unwrap();
        let status = std::process::Command::new("bash")
            .arg(root().join("scripts/lldp-lab.sh"))
            .arg(command)
            .arg(self.dir.path())
            .args(rest)
            .status()
            .unwrap();
        assert!(status.success(), "lldp-lab.sh {args:?}: {status}");
    }

    /// Captures the host side into `out` and returns the snapshot.
    fn capture(&self, out: &Path) -> Value {
        let output = std::process::Command::new("ip")
            .args(["netns", "exec", &self.host])
            .arg(assert_cmd::cargo::cargo_bin("driftgate"))
            .args(["capture", "--host", "lab-host", "--source", "lldp=local:"])
            .arg("--source")
            .arg(format!(
                "linux=dir:{}",
                fixtures().join("host-linux").display()
            ))
            .arg("--out")
            .arg(out)
            .current_dir(root())
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "capture: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        serde_json::from_str(&std::fs::read_to_string(out).unwrap()).unwrap()
    }

    /// Captures until `ready` holds (the neighbour's change takes milliseconds to arrive, a
    /// shutdown LLDPDU about a tenth of a second), at most 20 s.
    fn capture_when(&self, out: &Path, ready: impl Fn(&Value) -> bool) -> Value {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let snapshot = self.capture(out);
            if ready(&snapshot) {
                return snapshot;
            }
            assert!(Instant::now() < deadline, "never ready: {snapshot:#}");
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for Lab {
    fn drop(&mut self) {
        let _ = std::process::Command::new("bash")
            .arg(root().join("scripts/lldp-lab.sh"))
            .arg("down")
            .arg(self.dir.path())
            .status();
    }
}

fn fixtures() -> PathBuf {
    root().join("tests/fixtures/lldp")
}

fn peer(snapshot: &Value, leaf: &str) -> Value {
    snapshot["facts"][format!("{PORT}/peer/{leaf}")].clone()
}

fn check(snapshot: &Path, baseline: Option<&Path>) -> (i32, String) {
    let mut cmd = driftgate();
    cmd.args(["check", "--color", "never", "--snapshot"])
        .arg(snapshot);
    if let Some(baseline) = baseline {
        cmd.arg("--baseline").arg(baseline);
    }
    let output = cmd.output().unwrap();
    (
        output.status.code().unwrap(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
    )
}

#[test]
fn the_switch_stops_advertising_pfc_then_goes_away_and_each_capture_says_so() {
    let lab = Lab::up();
    let work = tempfile::tempdir().unwrap();
    let base = work.path().join("base.json");
    let snapshot = lab.capture_when(&base, |s| peer(s, "pfc/enabled") == serde_json::json!([3]));
    assert_eq!(snapshot["sources"][0]["status"], "complete");
    assert_eq!(peer(&snapshot, "system_name"), "tor-a");
    assert_eq!(peer(&snapshot, "dcbx"), "ieee");
    assert_eq!(
        peer(&snapshot, "traffic_class/configuration/1/priorities"),
        serde_json::json!([3])
    );
    assert_eq!(
        peer(&snapshot, "traffic_class/configuration/1/bandwidth"),
        50
    );
    assert_eq!(peer(&snapshot, "app/udp/4791"), serde_json::json!([3]));
    assert_eq!(peer(&snapshot, "app/tcp/445"), serde_json::json!([3]));
    let (code, out) = check(&base, None);
    assert_eq!(code, 0, "a healthy link passes: {out}");

    lab.script(&["pfc", "off"]);
    let off = work.path().join("pfc-off.json");
    lab.capture_when(&off, |s| peer(s, "pfc/enabled") == serde_json::json!([]));
    let (code, out) = check(&off, Some(&base));
    assert_eq!(code, 1, "{out}");
    assert!(out.starts_with("BLOCK lab-host"), "{out}");
    assert!(
        out.contains("the peer port swp7 of tor-a advertises PFC on none (was 3)"),
        "{out}"
    );
    assert!(
        out.contains("the host runs PFC on priority 3, but the peer port swp7 of tor-a advertises PFC on none"),
        "without a baseline too: {out}"
    );

    lab.script(&["stop-switch"]);
    let gone = work.path().join("gone.json");
    let snapshot = lab.capture_when(&gone, |s| peer(s, "neighbour") == false);
    assert_eq!(
        snapshot["sources"][0]["status"], "complete",
        "no neighbour is no parse failure"
    );
    let (code, out) = check(&gone, Some(&base));
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("no LLDP neighbour any more (was port swp7 of tor-a, which advertised PFC on 3 and DCBX ieee)"),
        "{out}"
    );
    assert!(
        out.contains("[peer-no-neighbour]"),
        "its own finding: {out}"
    );
    assert!(
        !out.contains("[peer-ets]"),
        "one finding for the neighbour, not one per fact: {out}"
    );
}

/// What the error of a capture of `agent`'s recording of `attack` says: the port (or the
/// command, for lldpcli's answer refused whole) and the TLV.
fn says(agent: Agent, attack: Attack) -> [&'static str; 2] {
    let tlv = match (agent, attack) {
        (Agent::Lldptool, Attack::RepeatedName) => {
            "a second System Name TLV: IEEE 802.1AB allows one in an LLDPDU"
        }
        // 4 MB of JSON for one port: refused unparsed (its parse would take ~40 times that).
        (Agent::Lldpcli, Attack::RepeatedName) => {
            "more than the 262144 the LLDPDUs of 1 port(s) can print"
        }
        (_, Attack::LongName) => {
            "System Name TLV holds 102400 bytes, more than the 255 IEEE 802.1AB allows"
        }
        (_, Attack::Ets180) => {
            "the TC bandwidths sum to 180 %, where IEEE 802.1Qaz has them sum to 100 %"
        }
    };
    let port = match (agent, attack) {
        (Agent::Lldptool, _) => "`lldptool -t -n -i eth1`",
        (Agent::Lldpcli, Attack::RepeatedName) => "`lldpcli -f json0 show neighbors details`",
        (Agent::Lldpcli, _) => "interface \"eth1\"",
    };
    [port, tlv]
}

#[test]
fn answers_no_lldpdu_can_carry_are_partial_naming_the_port_and_the_tlv() {
    let work = tempfile::tempdir().unwrap();
    let out = work.path().join("snapshot.json");
    for agent in [Agent::Lldptool, Agent::Lldpcli] {
        for attack in [Attack::RepeatedName, Attack::LongName, Attack::Ets180] {
            let recording = lldp_hostile::recording(agent, attack);
            let started = Instant::now();
            let output = driftgate()
                .args(["capture", "--host", "lab-host", "--source"])
                .arg(format!("lldp=dir:{}", recording.path().display()))
                .arg("--out")
                .arg(&out)
                .output()
                .unwrap();
            let took = started.elapsed();
            assert!(
                took < Duration::from_secs(20),
                "{agent:?} {attack:?}: {took:?}"
            );
            assert_eq!(output.status.code(), Some(3), "{agent:?} {attack:?}");
            let snapshot: Value =
                serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
            let source = &snapshot["sources"][0];
            assert_eq!(source["status"], "partial", "{agent:?} {attack:?}");
            let error = source["error"].as_str().unwrap();
            for said in says(agent, attack) {
                assert!(
                    error.contains(said),
                    "{agent:?} {attack:?}: {said:?} not in {error}"
                );
            }
            assert!(
                snapshot["facts"]
                    .as_object()
                    .unwrap()
                    .keys()
                    .all(|k| !k.contains("/peer/")),
                "nothing of the neighbour is kept: {snapshot:#}"
            );
            let (code, _) = check(&out, None);
            assert_eq!(code, 3, "{agent:?} {attack:?}: never a pass");
        }
    }
}
