//! The README's "What fails closed" table, row by row: each fault is brought about for real
//! (a `driftgate mockup serve` with injected faults, cut recordings, a killed promote's lock
//! file, edited snapshots, signals) and every cell of its row is checked: exit code, source
//! status, what the error says, what is written. A row without a scenario, or a scenario
//! without a row, fails the test, so the table and the behaviour cannot drift apart.

use crate::common;
use crate::fix_targets;

use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt as _;
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use common::planted::{Planted, corpus_names};
use common::simulator::{PASSWORD, Simulator, USER, bmc};
use common::{driftgate, example, root};
use serde_json::Value;

/// One row of the table.
#[derive(Debug)]
struct Row {
    id: String,
    exits: Vec<i32>,
    status: Option<String>,
    says: Vec<String>,
    written: Written,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Written {
    /// The snapshot file, whose sources say what happened.
    Snapshot,
    /// No file at all.
    Nothing,
    /// A commit in the store.
    Commit,
    /// The report files of `--report FORMAT=FILE`.
    Reports,
    /// The scripts of `fix plan --emit-scripts`.
    Scripts,
    /// A `fix apply` record in the run directory.
    Record,
}

impl Written {
    /// The snapshot when one was written (`written`), else nothing.
    fn snapshot_if(written: bool) -> Self {
        if written {
            Written::Snapshot
        } else {
            Written::Nothing
        }
    }
}

/// What a scenario did.
#[derive(Debug)]
struct Seen {
    exits: Vec<i32>,
    status: Option<String>,
    text: String,
    written: Written,
}

impl Seen {
    /// A command that reports only on standard error and by its exit code.
    fn of(output: &std::process::Output, written: Written) -> Seen {
        Seen {
            exits: vec![output.status.code().unwrap()],
            status: None,
            text: String::from_utf8_lossy(&output.stderr).into_owned(),
            written,
        }
    }
}

/// The parts of a cell in backticks.
fn quoted(cell: &str) -> Vec<String> {
    cell.split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_owned)
        .collect()
}

fn table() -> Vec<Row> {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let section = readme
        .split("### What fails closed")
        .nth(1)
        .expect("the README has a \"What fails closed\" section");
    let rows: Vec<Row> = section
        .lines()
        .take_while(|l| !l.starts_with('#'))
        .filter(|l| l.starts_with("| `"))
        .map(|line| {
            let cells: Vec<&str> = line.trim_matches('|').split('|').map(str::trim).collect();
            assert_eq!(cells.len(), 5, "five cells: {line}");
            let written = match cells[4] {
                w if w.starts_with("the snapshot") => Written::Snapshot,
                w if w.starts_with("the scripts") => Written::Scripts,
                w if w.starts_with("nothing") => Written::Nothing,
                w if w.starts_with("the commit") => Written::Commit,
                w if w.starts_with("the record") => Written::Record,
                w if w.starts_with("the reports") => Written::Reports,
                w => panic!("unknown \"what is written\" {w:?} in {line}"),
            };
            Row {
                id: quoted(cells[0]).remove(0),
                exits: cells[1]
                    .split(", ")
                    .map(|c| c.parse().unwrap_or_else(|_| panic!("exit {c:?}: {line}")))
                    .collect(),
                status: (cells[2] != "—").then(|| cells[2].to_owned()),
                says: quoted(cells[3]),
                written,
            }
        })
        .collect();
    assert!(rows.len() >= 10, "the table has its rows: {rows:?}");
    rows
}

/// `driftgate capture` of `source` into a fresh `--out` file, credentials from the
/// environment; what it did, with `check` of the snapshot where one was written.
fn capture(source: &str, extra: &[&str]) -> Seen {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("snapshot.json");
    let output = driftgate()
        .args(["capture", "--host", "azl-node01", "--source", source])
        .arg("--out")
        .arg(&out)
        .args(["--bmc-timeout", "2"])
        .args(extra)
        .env("DRIFTGATE_BMC_USERNAME", USER)
        .env("DRIFTGATE_BMC_PASSWORD", PASSWORD)
        .output()
        .unwrap();
    let mut text = String::from_utf8_lossy(&output.stderr).into_owned();
    let (status, written) = match std::fs::read_to_string(&out) {
        Ok(snapshot) => {
            let snapshot: Value = serde_json::from_str(&snapshot).unwrap();
            let source = &snapshot["sources"][0];
            text.push_str(source["error"].as_str().unwrap_or(""));
            let status = source["status"].as_str().unwrap().to_owned();
            // A broken capture judged on its own is incomplete, never a pass.
            let judged = driftgate()
                .args(["check", "--snapshot"])
                .arg(&out)
                .output()
                .unwrap();
            if status != "complete" {
                assert_eq!(judged.status.code(), Some(3), "check of a {status} capture");
            }
            (Some(status), Written::Snapshot)
        }
        Err(_) => (None, Written::Nothing),
    };
    Seen {
        exits: vec![output.status.code().unwrap()],
        status,
        text,
        written,
    }
}

/// A simulator of the seed-1 baseline BMC with session authentication and `args`.
fn live(args: &[&str]) -> Simulator {
    let mut all = vec!["--auth", "session"];
    all.extend_from_slice(args);
    Simulator::start(&bmc("baseline"), &all)
}

/// A copy of `dir` to change.
fn copy_of(dir: &Path) -> tempfile::TempDir {
    let temp = tempfile::tempdir().unwrap();
    common::copy_dir(dir, temp.path());
    temp
}

/// Sets `key` of the JSON file `file` to `value`.
fn edit_json(file: &Path, key: &str, value: Value) {
    let mut doc: Value = serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
    doc[key] = value;
    std::fs::write(file, doc.to_string()).unwrap();
}

const ADAPTERS: &str = "/redfish/v1/Chassis/System.Embedded.1/NetworkAdapters";

fn fault(spec: &str) -> Seen {
    let server = live(&["--fault", spec]);
    let seen = capture(&format!("redfish={}", server.url), &[]);
    // A service that answers 503 to everything cannot list its sessions either.
    if !spec.starts_with("unavailable") {
        assert_eq!(server.sessions(), 0, "{spec}: the session is deleted");
    }
    seen
}

fn refused() -> Seen {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    capture(&format!("redfish=http://127.0.0.1:{port}"), &[])
}

fn host_deadline() -> Seen {
    let server = live(&["--latency", "300"]);
    capture(
        &format!("redfish={}", server.url),
        &["--host-timeout", "2", "--bmc-concurrency", "1"],
    )
}

fn lost_session() -> Seen {
    let server = live(&[
        "--fault",
        "no-expand",
        "--fault",
        "expire-sessions=8",
        "--fault",
        "logins=1",
    ]);
    capture(
        &format!("redfish={}", server.url),
        &["--bmc-concurrency", "1"],
    )
}

fn session_limit() -> Seen {
    let server = live(&["--fault", "session-limit"]);
    let seen = capture(&format!("redfish={}", server.url), &["-v"]);
    assert_eq!(server.sessions(), 0);
    seen
}

/// A login whose `Location` header names a BMC account: the simulator's own record of what it
/// received shows that only the session the login opened was deleted.
fn hostile_session_location() -> Seen {
    let mut server = Simulator::start_logged(
        &bmc("baseline"),
        &[
            "--auth",
            "session",
            "--fault",
            "session-location=/redfish/v1/AccountService/Accounts/2",
        ],
    );
    let seen = capture(&format!("redfish={}", server.url), &[]);
    let received = server.received("session deleted");
    let not_gets: Vec<(&str, &str)> = received
        .iter()
        .filter(|(method, _)| method != "GET")
        .map(|(method, uri)| (method.as_str(), uri.as_str()))
        .collect();
    assert_eq!(
        not_gets,
        [
            ("POST", "/redfish/v1/SessionService/Sessions"),
            ("DELETE", "/redfish/v1/SessionService/Sessions/1")
        ]
    );
    assert_eq!(server.sessions(), 0);
    seen
}

/// The seed-1 post-update BMC (DCBX disabled) whose NIC attributes then say `Broadcom_DCBX` a
/// second time, enabled.
fn bmc_duplicate_key() -> Seen {
    let attributes = format!(
        "{ADAPTERS}/NIC.Slot.3/NetworkDeviceFunctions/NIC.Slot.3-1-1/Oem/Dell/DellNetworkAttributes/NIC.Slot.3-1-1"
    );
    let fault = format!("duplicate-key={attributes}#/Attributes/Broadcom_DCBX=Enabled_IEEE");
    let server = Simulator::start(
        &bmc("post-update"),
        &["--auth", "session", "--fault", &fault],
    );
    let seen = capture(&format!("redfish={}", server.url), &[]);
    assert_eq!(server.sessions(), 0);
    seen
}

/// A `NetworkPorts` collection that lists itself, the service root and one port twice.
fn collection_lists_itself() -> Seen {
    let mockup = copy_of(&bmc("post-update"));
    let ports = format!("{ADAPTERS}/NIC.Slot.3/NetworkPorts");
    let file = mockup.path().join(format!("{}/index.json", &ports[1..]));
    let link = |uri: &str| serde_json::json!({ "@odata.id": uri });
    let members = [
        link(&ports),
        link("/redfish/v1"),
        link(&format!("{ports}/NIC.Slot.3-1")),
        link(&format!("{ports}/NIC.Slot.3-1")),
        link(&format!("{ports}/NIC.Slot.3-2")),
    ];
    edit_json(&file, "Members@odata.count", Value::from(members.len()));
    edit_json(&file, "Members", Value::from(members.to_vec()));
    let server = Simulator::start(mockup.path(), &["--auth", "session"]);
    let seen = capture(&format!("redfish={}", server.url), &[]);
    assert_eq!(server.sessions(), 0);
    seen
}

fn wrong_type() -> Seen {
    let mockup = copy_of(&bmc("post-update"));
    let adapters = mockup
        .path()
        .join("redfish/v1/Chassis/System.Embedded.1/NetworkAdapters/index.json");
    edit_json(
        &adapters,
        "Members",
        serde_json::json!({"@odata.id": format!("{ADAPTERS}/NIC.Slot.3")}),
    );
    capture(&format!("redfish=mockup:{}", mockup.path().display()), &[])
}

fn other_origin() -> Seen {
    let mockup = copy_of(&bmc("baseline"));
    edit_json(
        &mockup.path().join("redfish/v1/Systems/index.json"),
        "Members@odata.nextLink",
        Value::from("http://127.0.0.1:1/steal"),
    );
    let server = Simulator::start(mockup.path(), &["--auth", "basic"]);
    capture(&format!("redfish={}", server.url), &[])
}

fn pin_mismatch() -> Seen {
    let server = Simulator::start(&bmc("baseline"), &["--tls"]);
    let wrong = format!("sha256:{}", "00".repeat(32));
    capture(&format!("redfish={}?pin={wrong}", server.url), &[])
}

/// A BMC that answers every request but lists no system, adapter or firmware.
fn nothing_found() -> Seen {
    let server = Simulator::start(&root().join("tests/fixtures/redfish/empty-service"), &[]);
    capture(&format!("redfish={}", server.url), &[])
}

fn truncated_recording() -> Seen {
    let recording = copy_of(&root().join("examples/esxi-mscs-psp/recorded/round-robin"));
    let nmp = recording.path().join("esxcli_storage_nmp_device_list.txt");
    let text = std::fs::read_to_string(&nmp).unwrap();
    let cut = text.find("Path Selection Policy: VMW_P").unwrap() + 28;
    std::fs::write(&nmp, &text[..cut]).unwrap();
    capture(&format!("esxi=dir:{}", recording.path().display()), &[])
}

/// A capture of `host` through govmomi's `vcsim`, with its account (`right`) or the BMC
/// simulator's (which it refuses).
fn vcenter(host: &str, right: bool) -> Seen {
    let sim = common::vcsim::Vcsim::start();
    let address = sim
        .url()
        .trim_start_matches("https://")
        .trim_end_matches("/sdk")
        .to_owned();
    let source = format!(
        "esxi=vcenter://{}@{address}?host={host}&pin={}",
        common::vcsim::USER,
        sim.pin()
    );
    let dir = tempfile::tempdir().unwrap();
    let account = dir.path().join("vcenter.toml");
    std::fs::write(
        &account,
        format!(
            "username = \"{}\"\npassword = \"{}\"\n",
            common::vcsim::USER,
            common::vcsim::PASSWORD
        ),
    )
    .unwrap();
    std::fs::set_permissions(&account, std::fs::Permissions::from_mode(0o600)).unwrap();
    let file = account.display().to_string();
    let extra: &[&str] = if right {
        &["--credentials-file", &file]
    } else {
        &[]
    };
    capture(&source, extra)
}

fn truncated_paste() -> Seen {
    let paste =
        std::fs::read_to_string(root().join("tests/fixtures/windows/get-netadapterqos-seed1.txt"))
            .unwrap();
    // Cut right after the first letter of the Capabilities table's first value.
    let cut = paste.find("MacSecBypass        : N").unwrap() + 23;
    let (dir, path) = common::temp_file("cut.txt", &paste[..cut]);
    let out = dir.path().join("snapshot.json");
    let output = driftgate()
        .args(["import", "windows-qos"])
        .arg(&path)
        .args(["--host", "azl-node01", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    let written = Written::snapshot_if(out.exists());
    Seen::of(&output, written)
}

fn signals() -> Seen {
    let mut seen = Seen {
        exits: Vec::new(),
        status: None,
        text: String::new(),
        written: Written::Nothing,
    };
    for signal in [libc::SIGTERM, libc::SIGINT, libc::SIGHUP] {
        let mut server =
            Simulator::start_logged(&bmc("baseline"), &["--auth", "session", "--latency", "300"]);
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("snapshot.json");
        let child = std::process::Command::new(assert_cmd::cargo::cargo_bin("driftgate"))
            .args(["capture", "--host", "azl-node01", "--source"])
            .arg(format!("redfish={}", server.url))
            .arg("--out")
            .arg(&out)
            .env("DRIFTGATE_BMC_USERNAME", USER)
            .env("DRIFTGATE_BMC_PASSWORD", PASSWORD)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        assert!(
            server.logged("created", Duration::from_secs(10)),
            "the capture logs in"
        );
        assert!(
            server.logged_times("DEBUG GET /redfish/v1/", 3, Duration::from_secs(20)),
            "the capture gets into its crawl"
        );
        // SAFETY: kill touches no memory; the pid is our unreaped child.
        let sent = unsafe { libc::kill(libc::pid_t::try_from(child.id()).unwrap(), signal) };
        assert_eq!(sent, 0);
        let output = child.wait_with_output().unwrap();
        seen.exits.push(output.status.code().unwrap_or(-1));
        seen.text.push_str(&String::from_utf8_lossy(&output.stderr));
        if out.exists() {
            seen.written = Written::Snapshot;
        }
        assert!(
            server.logged("session deleted", Duration::from_secs(5)),
            "signal {signal}: the session is deleted: {:?}",
            server.log_lines()
        );
    }
    seen
}

fn killed_promote() -> Seen {
    let store = tempfile::tempdir().unwrap();
    driftgate()
        .args(["baseline", "init"])
        .arg(store.path())
        .assert()
        .code(0);
    // What a promote SIGKILLed between libgit2 creating the index lock and renaming it
    // leaves: driftgate's marker of a promote at work, and git's lock file.
    std::fs::write(store.path().join(".git/driftgate.promoting"), "12345\n").unwrap();
    std::thread::sleep(Duration::from_millis(20));
    std::fs::write(store.path().join(".git/index.lock"), "half").unwrap();
    let commits = |store: &Path| common::git(store, &["rev-list", "--count", "HEAD"]);
    let before = commits(store.path());
    let output = driftgate()
        .arg("--repo")
        .arg(store.path())
        .args(["baseline", "promote", "--fleet", "azure-local"])
        .arg(example("azure-local-dcbx/baseline.json"))
        .output()
        .unwrap();
    let written = if commits(store.path()) != before {
        Written::Commit
    } else {
        Written::Nothing
    };
    Seen::of(&output, written)
}

/// A capture (at -v, with `--save-mockup`) of a mockup whose BIOS and NIC attributes hold
/// secrets under the spellings issue 35 lists, one under a name its registry flags
/// `WriteOnly`: the capture is complete and says what it withheld, and neither the snapshot,
/// the saved mockup nor the log holds a value.
fn secret_spelling() -> Seen {
    let planted = Planted::new(corpus_names(35));
    let dir = tempfile::tempdir().unwrap();
    let (out, saved) = (dir.path().join("snapshot.json"), dir.path().join("saved"));
    let output = driftgate()
        .args(["-v", "capture", "--host", "azl-node01", "--source"])
        .arg(format!("redfish=mockup:{}", planted.path().display()))
        .arg("--out")
        .arg(&out)
        .arg("--save-mockup")
        .arg(&saved)
        .output()
        .unwrap();
    let mut seen = Seen::of(&output, Written::Snapshot);
    let snapshot: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    seen.status = snapshot["sources"][0]["status"].as_str().map(str::to_owned);
    let mut written = vec![out];
    written.extend(common::files_under(&saved));
    assert!(written.len() > 30, "{written:?}");
    for file in written {
        let leaked = planted.leaks(&std::fs::read_to_string(&file).unwrap());
        assert!(leaked.is_empty(), "{} holds {leaked:?}", file.display());
    }
    let leaked = planted.leaks(&seen.text);
    assert!(leaked.is_empty(), "the log holds {leaked:?}");
    seen
}

/// `check` of the ESXi example after `edit`; `check` writes nothing.
fn bad_snapshot(edit: impl Fn(&str) -> String) -> Seen {
    let good = std::fs::read_to_string(example("esxi-mscs-psp/current.json")).unwrap();
    let (_dir, path) = common::temp_file("snapshot.json", &edit(&good));
    let output = driftgate()
        .args(["check", "--snapshot"])
        .arg(&path)
        .output()
        .unwrap();
    assert!(output.stdout.is_empty(), "no report of a bad input");
    Seen::of(&output, Written::Nothing)
}

/// A store of one host whose newer baseline's blob is cut in half on disk, and `baseline show`
/// of it: it must give up at once, not spin in libgit2.
fn corrupt_object() -> Seen {
    use common::damage::{Damage, damage};
    use common::fleet::{FLEET, FleetLab, Host, State};
    let lab = FleetLab::new(&[Host::new("h1", State::Recorded("baseline"))], &["h1"]);
    let blob = common::git(
        &lab.store,
        &["rev-parse", &format!("HEAD:baselines/{FLEET}/h1.json")],
    );
    damage(&lab.store, blob.trim(), Damage::Truncated);
    let mut cmd = common::driftgate_process();
    cmd.arg("--repo")
        .arg(&lab.store)
        .args(["baseline", "show", "h1"]);
    let output = common::output_within(&mut cmd, Duration::from_secs(5));
    assert!(
        output.stdout.is_empty(),
        "nothing of a damaged baseline is shown"
    );
    Seen::of(&output, Written::Nothing)
}

/// Someone else's folder with a file, linked where a folder of driftgate's belongs (`link`,
/// created with its parents); `run` then must leave the folder as it was.
fn through_a_link(link: &Path, run: impl FnOnce() -> std::process::Output) -> Seen {
    let other = tempfile::tempdir().unwrap();
    std::fs::write(other.path().join("azl-node01.json"), "someone else's\n").unwrap();
    std::fs::create_dir_all(link.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(other.path(), link).unwrap();
    let output = run();
    let names: Vec<_> = std::fs::read_dir(other.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    let untouched = names == ["azl-node01.json"]
        && std::fs::read_to_string(other.path().join("azl-node01.json")).unwrap()
            == "someone else's\n";
    Seen::of(
        &output,
        if untouched {
            Written::Nothing
        } else {
            Written::Snapshot
        },
    )
}

fn linked_out_dir_folder() -> Seen {
    use common::fleet::{FleetLab, Host, State};
    let lab = FleetLab::new(
        &[Host::new("azl-node01", State::Recorded("baseline"))],
        &["azl-node01"],
    );
    let out = lab.path("nightly");
    through_a_link(&out.join("snapshots"), || {
        lab.command()
            .args(["check", "--all", "--quiet", "--out-dir"])
            .arg(&out)
            .output()
            .unwrap()
    })
}

fn linked_run_folder() -> Seen {
    let lab = common::gate::Lab::new();
    through_a_link(&lab.run_dir("R2").join("pre"), || {
        lab.command()
            .args(["gate", "pre", "--run", "R2", "azl-node01"])
            .output()
            .unwrap()
    })
}

/// `report merge` of the mixed lab's three shards after `edit` of the directories (and the one
/// holding the blocked host `azl-node03`).
fn merge_after(edit: impl FnOnce(&[std::path::PathBuf], usize)) -> Seen {
    let lab = common::fleet::mixed();
    let (dirs, holder) = common::fleet::three_shards(&lab, "azl-node03");
    edit(&dirs, holder);
    let output = lab
        .command()
        .args(["report", "merge"])
        .args(&dirs)
        .output()
        .unwrap();
    assert!(
        output.stdout.is_empty(),
        "no fleet result of a refused merge"
    );
    Seen::of(&output, Written::Nothing)
}

/// `gate pre` of an inventory host whose name (250 bytes) would make its gate step's
/// `<host>.result.json` longer than a file name may be: refused before any request reaches its
/// BMC; a run directory written would hold the snapshot.
fn long_host_name() -> Seen {
    let mut lab = common::gate::Lab::new();
    lab.name = format!("azl-{}", "n".repeat(246));
    lab.write_inventory(&lab.url());
    let requests = lab.simulator.as_ref().unwrap().requests();
    let output = lab
        .command()
        .args(["gate", "pre", "--run", "CHG-1", &lab.name])
        .output()
        .unwrap();
    assert_eq!(lab.simulator.as_ref().unwrap().requests(), requests);
    let written = Written::snapshot_if(lab.store.join(".driftgate").exists());
    Seen::of(&output, written)
}

/// `check` of the seed-1 update under a policy of 20,000 rules: a quarter each of one glob
/// family, globs with a first segment of their own, globs whose first segment is a wildcard
/// and expectations, the last rule taking over DCBX modes. Loading and matching it was
/// quadratic in the rules (minutes); it completes, and its last rule blocks the update.
fn huge_policy() -> Seen {
    let mut text = String::new();
    for i in 0..20_000 {
        let body = match i % 4 {
            0 => format!("path = \"nic/*/bmc/attr{i}\"\non_change = \"block\""),
            1 => format!("path = \"site{i}/**/x\"\non_change = \"warn\""),
            2 => format!("path = \"**/leaf{i}\"\non_change = \"info\""),
            _ => format!("path = \"firmware/none{i}/**\"\nexpect = \"x\""),
        };
        text.push_str(&format!("[[rule]]\nid = \"site-rule-{i}\"\n{body}\n\n"));
    }
    text.push_str("[[rule]]\nid = \"site-dcbx-mode\"\npath = \"nic/*/bmc/**/dcbx_mode\"\non_change = \"block\"\n");
    let (_dir, policy) = common::temp_file("huge.toml", &text);
    let output = driftgate()
        .args(["check", "--snapshot"])
        .arg(example("azure-local-dcbx/post-update.json"))
        .arg("--baseline")
        .arg(example("azure-local-dcbx/baseline.json"))
        .arg("--policy")
        .arg(&policy)
        .output()
        .unwrap();
    let mut seen = Seen::of(&output, Written::Nothing);
    seen.text.push_str(&String::from_utf8_lossy(&output.stdout));
    seen
}

/// The shipped nightly units' commands run as systemd runs them (`systemd_unit.rs`): driftgate
/// logs in with the account from `$CREDENTIALS_DIRECTORY`, and the `git pull` and `git push`
/// of the store's own units, their ssh and hooks, each a witness, had none of it in their
/// environment, no credentials' folder, and read no credential.
fn unit_account() -> Seen {
    let night = crate::systemd_unit::night_as_the_unit_runs_it();
    Seen {
        exits: vec![night.exit],
        status: None,
        text: format!(
            "{}\nwitnesses without the account or CREDENTIALS_DIRECTORY, having read no credential: {}",
            night.said,
            night.witnesses.join(", ")
        ),
        written: Written::snapshot_if(night.snapshots > 0),
    }
}

/// `capture` whose BMC account is the systemd credentials a unit's `LoadCredential=` gives
/// (`$CREDENTIALS_DIRECTORY`), the password's file readable by everyone: refused before any
/// request, as a credentials file others can read is (ignoring it would log in without one).
fn open_credential() -> Seen {
    let server = live(&[]);
    let dir = tempfile::tempdir().unwrap();
    for (name, value, mode) in [
        ("DRIFTGATE_BMC_USERNAME", USER, 0o400),
        ("DRIFTGATE_BMC_PASSWORD", PASSWORD, 0o644),
    ] {
        let file = dir.path().join(name);
        std::fs::write(&file, value).unwrap();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(mode)).unwrap();
    }
    let out = dir.path().join("snapshot.json");
    let requests = server.requests();
    let output = driftgate()
        .args(["capture", "--host", "azl-node01", "--source"])
        .arg(format!("redfish={}", server.url))
        .arg("--out")
        .arg(&out)
        .env_remove("DRIFTGATE_BMC_USERNAME")
        .env_remove("DRIFTGATE_BMC_PASSWORD")
        .env("CREDENTIALS_DIRECTORY", dir.path())
        .output()
        .unwrap();
    assert_eq!(server.requests(), requests, "no request reached the BMC");
    let written = Written::snapshot_if(out.exists());
    Seen::of(&output, written)
}

/// What `fix apply` of `run` wrote: its records, when there are any.
fn apply_records(lab: &common::gate::Lab, run: &str) -> Written {
    let records = std::fs::read_dir(lab.run_dir(run).join("fix"))
        .map(|dir| {
            dir.filter(|e| {
                e.as_ref()
                    .is_ok_and(|e| e.file_name().to_string_lossy().starts_with("apply-"))
            })
            .count()
        })
        .unwrap_or(0);
    if records > 0 {
        Written::Record
    } else {
        Written::Nothing
    }
}

/// Two `fix apply --yes --reset` of one run started together, the BMC answering each write
/// 4 s late: one sends (one PATCH per step, one reset), the other is refused naming it.
fn concurrent_apply() -> Seen {
    use crate::fix_once::{SLOW, blocked, sent, spawn_apply};
    let run = "CHG-4001";
    let lab = blocked(&["--fault", SLOW], run);
    let first = spawn_apply(&lab, run, &["--reset"]);
    let second = spawn_apply(&lab, run, &["--reset"]);
    let outputs = [
        first.wait_with_output().unwrap(),
        second.wait_with_output().unwrap(),
    ];
    let mut exits: Vec<i32> = outputs.iter().map(|o| o.status.code().unwrap()).collect();
    exits.sort_unstable();
    assert_eq!(sent(&lab, "PATCH", "/redfish/v1/"), 2, "one PATCH per step");
    assert_eq!(
        sent(
            &lab,
            "POST",
            "/redfish/v1/Systems/System.Embedded.1/Actions/ComputerSystem.Reset"
        ),
        1,
        "one reset"
    );
    Seen {
        exits,
        status: None,
        text: outputs
            .iter()
            .map(|o| String::from_utf8_lossy(&o.stderr).into_owned())
            .collect(),
        written: apply_records(&lab, run),
    }
}

/// SIGTERM, then (another lab) SIGINT, while `fix apply`'s first PATCH is in flight.
fn signal_during_apply() -> Seen {
    use crate::fix_once::{IN_FLIGHT, arrived, blocked, logged, record, spawn_apply};
    let mut seen = Seen {
        exits: Vec::new(),
        status: None,
        text: String::new(),
        written: Written::Nothing,
    };
    for signal in [libc::SIGTERM, libc::SIGINT] {
        let run = "CHG-4002";
        let mut lab = blocked(&["--fault", IN_FLIGHT], run);
        let child = spawn_apply(&lab, run, &["--reset"]);
        arrived(&lab, "PATCH", "/redfish/v1/");
        crate::fix_once::send(&child, signal);
        let output = child.wait_with_output().unwrap();
        seen.exits.push(output.status.code().unwrap_or(-1));
        seen.text.push_str(&String::from_utf8_lossy(&output.stderr));
        seen.written = apply_records(&lab, run);
        let steps = &record(&lab, run, 1)["hosts"][0]["steps"];
        assert_eq!(steps[0]["outcome"], "applied", "{steps:#}");
        assert_eq!(steps[1]["outcome"], "not_sent", "{steps:#}");
        logged(&mut lab, "session deleted");
    }
    seen
}

/// SIGKILL while `fix apply`'s first PATCH is in flight, then `fix apply` again.
fn killed_apply() -> Seen {
    use crate::fix_once::{IN_FLIGHT, arrived, blocked, record, spawn_apply};
    let run = "CHG-4003";
    let lab = blocked(&["--fault", IN_FLIGHT], run);
    let child = spawn_apply(&lab, run, &["--reset"]);
    arrived(&lab, "PATCH", "/redfish/v1/");
    crate::fix_once::send(&child, libc::SIGKILL);
    let _ = child.wait_with_output().unwrap();
    assert_eq!(
        record(&lab, run, 1)["hosts"][0]["steps"][0]["outcome"],
        "sending"
    );
    let output = spawn_apply(&lab, run, &[]).wait_with_output().unwrap();
    Seen::of(&output, apply_records(&lab, run))
}

/// `fix plan --emit-scripts` of `current` against `baseline` into `dir`: what it printed and the
/// text of its script `file`.
fn planned_script(current: &Path, baseline: &Path, dir: &Path, file: &str) -> (Seen, String) {
    let plan = crate::fix::emit_scripts(current, baseline, dir, &[]);
    let script = std::fs::read_to_string(dir.join(file)).unwrap_or_default();
    let seen = Seen {
        exits: vec![plan.code],
        status: None,
        text: format!("{}{}{script}", plan.stdout, plan.stderr),
        written: if script.is_empty() {
            Written::Nothing
        } else {
            Written::Scripts
        },
    };
    (seen, script)
}

/// A NIC attribute's baseline value ends the step's comment line with a command after it: the
/// comment shows the newline, and the `-bmc.sh`, run, PATCHes the value as it is and writes
/// no file.
fn script_comment_newline() -> Seen {
    let work = tempfile::tempdir().unwrap();
    let (current, baseline) = crate::fix::attribute_drift(work.path(), crate::fix::LEAK);
    let dir = work.path().join("scripts");
    let (mut seen, _) = planned_script(&current, &baseline, &dir, "azl-node01-bmc.sh");
    let (ran, received, _) =
        crate::fix::run_bmc_script(&dir.join("azl-node01-bmc.sh"), "root", "calvin");
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert!(ran.left.is_empty(), "the script wrote {:?}", ran.left);
    assert_eq!(received.len(), 1);
    let body: Value = serde_json::from_slice(&received[0].body).unwrap();
    assert_eq!(body["Attributes"][crate::fix::PFC], crate::fix::LEAK);
    seen.text.push_str(&ran.stderr);
    seen
}

/// A Windows adapter's name with typographic quotes: each line of the `-windows.ps1` is one
/// command with the name one string (`fix::a_windows_adapter_name_…` tokenizes it).
fn script_typographic_quote() -> Seen {
    let work = tempfile::tempdir().unwrap();
    crate::fix::adapter_named(work.path(), crate::fix::ADAPTER);
    let (seen, script) = planned_script(
        &work.path().join("current.json"),
        &work.path().join("baseline.json"),
        &work.path().join("scripts"),
        "azl-node01-windows.ps1",
    );
    let file = work.path().join("scripts/azl-node01-windows.ps1");
    let read = common::powershell::as_windows_powershell_reads(&std::fs::read(file).unwrap());
    let lines = common::powershell::lines(&read).unwrap();
    assert!(
        lines
            .iter()
            .all(|line| !line.contains(&common::powershell::word("Write-Host"))),
        "{script}"
    );
    seen
}

/// BMC passwords curl's configuration syntax would change: curl logs in with each as it is.
fn script_password_quoting() -> Seen {
    let work = tempfile::tempdir().unwrap();
    let (current, baseline) = crate::fix::attribute_drift(work.path(), "7");
    let dir = work.path().join("scripts");
    let (seen, _) = planned_script(&current, &baseline, &dir, "azl-node01-bmc.sh");
    for password in ["with\"quote", r"back\slash\t", "new\nline"] {
        let (ran, received, _) =
            crate::fix::run_bmc_script(&dir.join("azl-node01-bmc.sh"), "root", password);
        assert_eq!(ran.code, 0, "{}", ran.stderr);
        assert_eq!(received.len(), 1);
        assert_eq!(
            received[0].account,
            format!("root:{password}").into_bytes(),
            "{password:?}"
        );
    }
    seen
}

/// A capture of the seed-2 host through vcsim's recorded answers, edited into `answers` and
/// replayed: the session is logged out all the same.
fn vcenter_replayed(answers: common::soap_replay::Answers) -> Seen {
    let replay = common::soap_replay::Replay::serve(answers);
    let seen = capture(&replay.source(common::vcsim::SEED_2_HOST), &[]);
    assert_eq!(replay.received().last().map(String::as_str), Some("Logout"));
    seen
}

/// A capture of a hostile `lldptool` recording of port `eth1`.
fn lldp_hostile(attack: common::lldp_hostile::Attack) -> Seen {
    use common::lldp_hostile::{Agent, recording};
    let recording = recording(Agent::Lldptool, attack);
    capture(&format!("lldp=dir:{}", recording.path().display()), &[])
}

/// `snapshot seal --out` into a character device (a FIFO where the test cannot make one): the
/// snapshot goes into it, and it is still a device (tests/it/output_paths.rs has every kind of
/// output path).
fn out_device() -> Seen {
    let (output, stayed) = crate::output_paths::sealed_into_a_device();
    let written = Written::snapshot_if(stayed);
    Seen::of(&output, written)
}

/// `snapshot seal --out` naming a symbolic link to nothing: refused, the link stays.
fn out_link_to_nothing() -> Seen {
    let dir = tempfile::tempdir().unwrap();
    let link = dir.path().join("sealed.json");
    std::os::unix::fs::symlink(dir.path().join("missing.json"), &link).unwrap();
    let output = driftgate()
        .args(["snapshot", "seal"])
        .arg(example("azure-local-dcbx/baseline.json"))
        .arg("--out")
        .arg(&link)
        .output()
        .unwrap();
    assert!(std::fs::symlink_metadata(&link).unwrap().is_symlink());
    let written = Written::snapshot_if(dir.path().join("missing.json").exists());
    Seen::of(&output, written)
}

/// `check` of a snapshot whose peer name, NIC firmware version and source error hold escape
/// sequences, with a report file in every format (tests/it/reports_cli.rs checks each file's
/// syntax): the reports are written when every one of them holds no raw control character.
fn control_bytes() -> Seen {
    use common::reports::{HostileCheck, raw_controls};
    let dir = tempfile::tempdir().unwrap();
    let check = HostileCheck::new(dir.path());
    let formats = [
        "text",
        "json",
        "markdown",
        "junit",
        "sarif",
        "prometheus",
        "html",
    ];
    let file = |format: &str| dir.path().join(format!("report.{format}"));
    let mut args = Vec::new();
    for format in formats {
        args.push("--report".to_owned());
        args.push(format!("{format}={}", file(format).display()));
    }
    let output = check.check("always", &args);
    let clean = formats.iter().all(|format| {
        std::fs::read_to_string(file(format))
            .is_ok_and(|t| !t.is_empty() && raw_controls(&t).is_empty())
    });
    let written = if clean {
        Written::Reports
    } else {
        Written::Nothing
    };
    let mut seen = Seen::of(&output, written);
    seen.text.push_str(&String::from_utf8_lossy(&output.stdout));
    seen
}

fn scenarios() -> BTreeMap<&'static str, fn() -> Seen> {
    let mut all: BTreeMap<&'static str, fn() -> Seen> = BTreeMap::new();
    all.insert("bmc-timeout", || fault(&format!("hang={ADAPTERS}")));
    all.insert("host-deadline", host_deadline);
    all.insert("refused", refused);
    all.insert("401-mid-crawl", lost_session);
    all.insert("503", || fault("unavailable=1000"));
    all.insert("session-limit", session_limit);
    all.insert("truncated-body", || fault(&format!("truncate={ADAPTERS}")));
    all.insert("wrong-type", wrong_type);
    all.insert("oversize", || fault(&format!("oversize={ADAPTERS}")));
    all.insert("redirect-loop", || {
        fault(&format!("redirect-loop={ADAPTERS}"))
    });
    all.insert("other-origin", other_origin);
    all.insert("pin-mismatch", pin_mismatch);
    all.insert("nothing-found", nothing_found);
    all.insert("truncated-recording", truncated_recording);
    all.insert("vcenter-wrong-password", || vcenter("DC0_H0", false));
    all.insert("vcenter-unknown-host", || vcenter("esx-gone", true));
    all.insert("truncated-paste", truncated_paste);
    all.insert("signal", signals);
    all.insert("killed-promote", killed_promote);
    all.insert("edited-snapshot", || {
        bad_snapshot(|s| s.replace("\"VMW_PSP_RR\"", "\"VMW_PSP_MRU\""))
    });
    all.insert("hostile-session-location", hostile_session_location);
    all.insert("bmc-duplicate-key", bmc_duplicate_key);
    all.insert("collection-lists-itself", collection_lists_itself);
    all.insert("secret-spelling", secret_spelling);
    all.insert("corrupt-object", corrupt_object);
    all.insert("linked-out-dir-folder", linked_out_dir_folder);
    all.insert("linked-run-folder", linked_run_folder);
    all.insert("merge-missing-host", || {
        merge_after(|dirs, holder| {
            let dir = &dirs[holder];
            common::fleet::edit_json(&dir.join("run.json"), |run| {
                run["hosts"]
                    .as_array_mut()
                    .unwrap()
                    .retain(|h| h != "azl-node03");
            });
            std::fs::remove_file(dir.join("hosts/azl-node03.json")).unwrap();
            std::fs::remove_file(dir.join("snapshots/azl-node03.json")).unwrap();
        })
    });
    all.insert("merge-edited-record", || {
        merge_after(|dirs, holder| {
            let record = dirs[holder].join("hosts/azl-node03.json");
            common::fleet::edit_json(&record, |doc| {
                let zero = serde_json::json!({"block": 0, "warn": 0, "info": 0});
                doc["result"]["verdict"] = Value::from("pass");
                doc["result"]["counts"] = zero.clone();
                doc["result"]["report"]["verdict"] = Value::from("pass");
                doc["result"]["report"]["counts"] = zero;
                doc["result"]["report"]["findings"] = serde_json::json!([]);
            });
        })
    });
    all.insert("duplicated-key", || {
        bad_snapshot(|s| {
            s.replacen(
                "  \"facts\": {\n",
                "  \"facts\": {\n    \"host/esxi/version\": \"5.5.0\",\n",
                1,
            )
        })
    });
    all.insert("long-host-name", long_host_name);
    all.insert("huge-policy", huge_policy);
    all.insert("out-device", out_device);
    all.insert("out-link-to-nothing", out_link_to_nothing);
    all.insert("control-bytes", control_bytes);
    all.insert("vcenter-no-reserved-flag", || {
        vcenter_replayed(common::soap_replay::without_reserved("5.0"))
    });
    all.insert("vcenter-property-twice", || {
        vcenter_replayed(common::soap_replay::multipath_twice())
    });
    all.insert("vcenter-policy-twice", || {
        vcenter_replayed(common::soap_replay::two_policies())
    });
    all.insert("lldp-repeated-tlv", || {
        lldp_hostile(common::lldp_hostile::Attack::RepeatedName)
    });
    all.insert("lldp-long-string", || {
        lldp_hostile(common::lldp_hostile::Attack::LongName)
    });
    all.insert("lldp-ets-180", || {
        lldp_hostile(common::lldp_hostile::Attack::Ets180)
    });
    all.insert("script-comment-newline", script_comment_newline);
    all.insert("script-typographic-quote", script_typographic_quote);
    all.insert("script-password-quoting", script_password_quoting);
    all.insert("open-credential", open_credential);
    all.insert("unit-account", unit_account);
    all.insert("concurrent-apply", concurrent_apply);
    all.insert("signal-during-apply", signal_during_apply);
    all.insert("killed-apply", killed_apply);
    all.insert("write-claimed-resource", || {
        write_attack(fix_targets::claimed_resource())
    });
    all.insert("write-hidden-dots", || {
        write_attack(fix_targets::hidden_dots('\t'))
    });
    all.insert("write-encoded-slash", || {
        write_attack(fix_targets::encoded_slashes())
    });
    all.insert("write-redirected", || {
        write_attack(fix_targets::redirected_patch())
    });
    all.insert("reset-redirected", || {
        write_attack(fix_targets::redirected_reset())
    });
    all.insert("reset-claimed-system", || {
        write_attack(fix_targets::claimed_system())
    });
    all.insert("reset-other-system-first", || {
        write_attack(fix_targets::other_system_first())
    });
    all.insert("reset-two-owners", || {
        write_attack(fix_targets::two_owners())
    });
    all.insert("out-stdout-appended", out_stdout_appended);
    all.insert("out-refused-before-run", out_refused_before_run);
    all.insert("nic-firmware-link-string", nic_firmware_link_string);
    all
}

/// The CIMC-style fixture (`RelatedItem` a string on its BIOS, CIMC and disk entries, which
/// alone leave it complete) with the VIC's own entry's link a string too.
fn nic_firmware_link_string() -> Seen {
    let mockup = copy_of(&root().join("tests/fixtures/redfish/cimc-string-related-item"));
    edit_json(
        &mockup.path().join(
            "redfish/v1/UpdateService/FirmwareInventory/UCSC-MLOM-C25Q-04-slot-MLOM/index.json",
        ),
        "RelatedItem",
        Value::from("/redfish/v1/Chassis/1/NetworkAdapters/UCSC-MLOM-C25Q-04_FCH2337A1B2"),
    );
    capture(&format!("redfish=mockup:{}", mockup.path().display()), &[])
}

/// `snapshot seal --out /dev/stdout` with standard output appended to a file: the snapshot
/// when it follows what the file held.
fn out_stdout_appended() -> Seen {
    let (output, kept) = crate::output_paths::sealed_into_appended_stdout();
    Seen::of(&output, Written::snapshot_if(kept))
}

/// `check --all --report json=` a link to nothing: nothing when no host was captured.
fn out_refused_before_run() -> Seen {
    let (output, untouched) = crate::output_paths::report_refused_before_the_run();
    Seen::of(
        &output,
        if untouched {
            Written::Nothing
        } else {
            Written::Reports
        },
    )
}

/// A `fix apply` against a hostile BMC, as a row sees it (its own checks of what the BMC
/// received have passed).
fn write_attack(attack: fix_targets::Attack) -> Seen {
    Seen {
        exits: vec![attack.ran.code],
        status: None,
        text: attack.ran.stderr,
        written: if attack.recorded {
            Written::Record
        } else {
            Written::Nothing
        },
    }
}

#[test]
fn every_row_of_the_readme_table_is_what_happens() {
    let rows = table();
    let scenarios = scenarios();
    let ids: Vec<&str> = rows.iter().map(|r| r.id.as_str()).collect();
    let known: Vec<&str> = scenarios.keys().copied().collect();
    let mut sorted = ids.clone();
    sorted.sort_unstable();
    assert_eq!(
        sorted, known,
        "rows of the README table vs scenarios of this test"
    );
    for row in &rows {
        let seen = scenarios[row.id.as_str()]();
        let id = &row.id;
        assert_eq!(seen.exits, row.exits, "{id}: exit code; {}", seen.text);
        assert_eq!(
            seen.status, row.status,
            "{id}: source status; {}",
            seen.text
        );
        for says in &row.says {
            assert!(
                seen.text.contains(says.as_str()),
                "{id}: {says:?} not in {}",
                seen.text
            );
        }
        assert_eq!(
            seen.written, row.written,
            "{id}: what is written; {}",
            seen.text
        );
    }
}
