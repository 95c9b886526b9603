//! First contact with a self-signed BMC, as an operator meets it: `check --all` fails the host
//! with the certificate the BMC presents (its pin, subject, issuer) and `pin=`; `inventory pin
//! HOST --write` records that pin in the inventory (comments kept) after a confirmation; the
//! same run then reads the host. Against the TLS fleet simulator, over real processes.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::Value;

use crate::common::driftgate;
use crate::common::fleet_sim::FleetSim;
use crate::common::simulator::bmc;

/// A comment of the operator's that the rewrite must keep.
const COMMENT: &str = "# rack 12, BMCs replaced in March — ask facilities before rebooting";

/// A TLS fleet of two BMCs and a copy of its inventory without the pins, with a comment.
struct Lab {
    sim: FleetSim,
    pin: String,
    dir: tempfile::TempDir,
    inventory: PathBuf,
    store: PathBuf,
}

fn lab() -> Lab {
    let sim = FleetSim::start(&[&bmc("baseline")], 2, &["--tls"]);
    let pin = sim.pin.clone().expect("a pin with --tls");
    let dir = tempfile::tempdir().unwrap();
    let written = std::fs::read_to_string(&sim.inventory).unwrap();
    assert!(written.contains(&format!("?pin={pin}")), "{written}");
    let unpinned = written.replace(&format!("?pin={pin}"), "");
    let inventory = dir.path().join("inventory.toml");
    std::fs::write(&inventory, format!("{COMMENT}\n{unpinned}")).unwrap();
    let store = dir.path().join("store");
    let init = driftgate()
        .args(["baseline", "init"])
        .arg(&store)
        .output()
        .unwrap();
    assert!(init.status.success(), "{init:?}");
    Lab {
        sim,
        pin,
        dir,
        inventory,
        store,
    }
}

impl Lab {
    /// `check --all` over the inventory: its exit code and each host's result.
    fn check_all(&self, run: &str) -> (i32, Vec<Value>) {
        let out = self.dir.path().join(run);
        let output = driftgate()
            .args(["check", "--all", "--bootstrap", "--repo"])
            .arg(&self.store)
            .arg("--inventory")
            .arg(&self.inventory)
            .arg("--out-dir")
            .arg(&out)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.lines().all(|l| !l.contains("failed to verify")),
            "no library line: {stderr}"
        );
        let hosts = (0..2)
            .map(|i| {
                let file = out
                    .join("hosts")
                    .join(format!("{}.json", FleetSim::host(i)));
                let text = std::fs::read_to_string(&file)
                    .unwrap_or_else(|e| panic!("{}: {e}; {stderr}", file.display()));
                serde_json::from_str::<Value>(&text).unwrap()["result"].clone()
            })
            .collect();
        (output.status.code().unwrap(), hosts)
    }

    fn pin_command(&self, host: &str, args: &[&str]) -> assert_cmd::Command {
        let mut command = driftgate();
        command
            .args(["inventory", "pin", host, "--inventory"])
            .arg(&self.inventory)
            .args(args);
        command
    }

    fn inventory_text(&self) -> String {
        std::fs::read_to_string(&self.inventory).unwrap()
    }
}

/// Runs `command` under util-linux's `script`, so that it has a terminal, and types `answer`.
fn on_a_terminal(command: &[&str], answer: &str) -> (i32, String) {
    let line = std::iter::once(
        assert_cmd::cargo::cargo_bin("driftgate")
            .display()
            .to_string(),
    )
    .chain(command.iter().map(|a| (*a).to_owned()))
    .map(|a| format!("'{a}'"))
    .collect::<Vec<_>>()
    .join(" ");
    let mut child = Command::new("script")
        .args(["--quiet", "--return", "--command", &line, "/dev/null"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("util-linux's script (scripts/test-deps.sh installs it)");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(answer.as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    (
        output.status.code().unwrap(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
    )
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn a_self_signed_bmc_is_pinned_from_its_error_and_then_read() {
    let lab = lab();
    let pin = &lab.pin;

    // Not pinned: the host fails, and the failure names the certificate and how to pin it.
    let (code, hosts) = lab.check_all("unpinned");
    assert_eq!(code, 3);
    for (i, host) in hosts.iter().enumerate() {
        let failure = host["failure"].as_str().unwrap_or_default();
        assert!(failure.contains("certificate not trusted"), "{failure}");
        assert!(failure.contains(pin.as_str()), "{failure}");
        assert!(
            failure.contains(&format!("redfish={}?pin={pin}", lab.sim.urls[i])),
            "{failure}"
        );
        assert!(
            failure.contains("subject CN=rcgen self signed cert;"),
            "{failure}"
        );
        assert!(
            failure.contains("issuer CN=rcgen self signed cert (self-signed)"),
            "{failure}"
        );
        assert!(failure.contains("inventory pin HOST --write"), "{failure}");
    }

    // Looking does not write.
    let before = lab.inventory_text();
    let shown = lab.pin_command("sim-0000", &[]).output().unwrap();
    let stdout = String::from_utf8_lossy(&shown.stdout);
    assert_eq!(shown.status.code(), Some(0), "{shown:?}");
    for part in [
        "subject:    CN=rcgen self signed cert",
        "issuer:     CN=rcgen self signed cert (self-signed)",
        "valid:      from 1975-01-01 00:00:00 UTC to 4096-01-01 00:00:00 UTC",
        &format!("pin:        {pin}"),
        &format!("Pinned source: redfish={}?pin={pin}", lab.sim.urls[0]),
        "Pinning trusts exactly this certificate",
        "until it is pinned",
        "--write",
    ] {
        assert!(stdout.contains(part), "{part}: {stdout}");
    }
    assert_eq!(lab.inventory_text(), before);

    // Without a terminal, --write without --yes refuses and writes nothing.
    let refused = lab.pin_command("sim-0000", &["--write"]).output().unwrap();
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("pass --yes"), "{stderr}");
    assert!(
        stderr.lines().all(|l| l.starts_with("driftgate: ")),
        "{stderr}"
    );
    assert_eq!(lab.inventory_text(), before);

    // On a terminal: "n" writes nothing, "y" pins sim-0000.
    let inventory = path(&lab.inventory);
    let args = [
        "inventory",
        "pin",
        "sim-0000",
        "--inventory",
        inventory,
        "--write",
    ];
    let (code, screen) = on_a_terminal(&args, "n\n");
    assert_eq!(code, 2, "{screen}");
    assert!(screen.contains("[y/N]"), "{screen}");
    assert!(
        screen.contains("not confirmed: nothing was written"),
        "{screen}"
    );
    assert_eq!(lab.inventory_text(), before);
    let (code, screen) = on_a_terminal(&args, "y\n");
    assert_eq!(code, 0, "{screen}");
    assert!(screen.contains("Pinned: "), "{screen}");

    // --yes for scripts pins sim-0001; a second run has nothing to write.
    let pinned = lab
        .pin_command("sim-0001", &["--write", "--yes"])
        .output()
        .unwrap();
    assert_eq!(pinned.status.code(), Some(0), "{pinned:?}");
    let again = lab
        .pin_command("sim-0001", &["--write", "--yes"])
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&again.stdout).contains("pins this certificate already"),
        "{again:?}"
    );

    // The inventory carries the pins, and everything else as it was.
    let after = lab.inventory_text();
    let mut expected = before.clone();
    for url in &lab.sim.urls {
        expected = expected.replace(
            &format!("\"redfish={url}\""),
            &format!("\"redfish={url}?pin={pin}\""),
        );
    }
    assert_eq!(after, expected);
    assert!(after.starts_with(COMMENT), "{after}");

    // The same run now reads both hosts.
    let (code, hosts) = lab.check_all("pinned");
    assert!(matches!(code, 0 | 1), "exit {code}: {hosts:?}");
    for host in &hosts {
        assert!(host["failure"].is_null(), "{host}");
        assert_ne!(host["verdict"], "incomplete", "{host}");
    }
}

#[test]
fn hosts_that_cannot_be_pinned_are_told_by_host_file_and_line() {
    let lab = lab();
    // A port nothing listens on: bound, then freed.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let down = format!("https://{}", closed.local_addr().unwrap());
    drop(closed);
    let text = format!(
        "[defaults]\nfleet = \"lab\"\n\n[[host]]\nname = \"down\"\nsources = [\"redfish={down}\"]\n\n\
         [[host]]\nname = \"plain\"\nsources = [\"redfish=http://127.0.0.1:8000\"]\n\n\
         [[host]]\nname = \"os-only\"\nsources = [\"linux=ssh://root@os-only\"]\n"
    );
    let inventory = lab.dir.path().join("lab.toml");
    std::fs::write(&inventory, &text).unwrap();
    let file = path(&inventory);
    for (host, line, says) in [
        ("down", 4, "cannot connect to 127.0.0.1:"),
        (
            "plain",
            8,
            "plain http (http://127.0.0.1:8000): there is no certificate to pin",
        ),
        ("os-only", 12, "has no Redfish source"),
        (
            "nobody",
            0,
            "no host `nobody` in the inventory (hosts there: down, plain, os-only)",
        ),
    ] {
        let output = driftgate()
            .args([
                "inventory",
                "pin",
                host,
                "--write",
                "--yes",
                "--inventory",
                file,
            ])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{host}: {stderr}");
        let at = if line == 0 {
            format!("driftgate: error: {file}: ")
        } else {
            format!("driftgate: error: {file}:{line}: ")
        };
        assert!(stderr.starts_with(&at), "{host}: {stderr}");
        assert!(stderr.contains(says), "{host}: {stderr}");
        assert!(output.stdout.is_empty(), "{host}");
    }
    assert_eq!(std::fs::read_to_string(&inventory).unwrap(), text);

    // An Ansible inventory is never rewritten: the exact variable to set instead, exit 2.
    let hosts = lab.dir.path().join("hosts.yml");
    let yaml = format!(
        "all:\n  hosts:\n    sim-0000:\n      driftgate_fleet: sim\n      driftgate_bmc: {}\n",
        lab.sim.urls[0]
    );
    std::fs::write(&hosts, &yaml).unwrap();
    let output = driftgate()
        .args([
            "inventory",
            "pin",
            "sim-0000",
            "--write",
            "--yes",
            "--inventory",
        ])
        .arg(&hosts)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("is an Ansible inventory"), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "driftgate_bmc: \"{}?pin={}\"",
            lab.sim.urls[0], lab.pin
        )),
        "{stderr}"
    );
    assert_eq!(std::fs::read_to_string(&hosts).unwrap(), yaml);
}
