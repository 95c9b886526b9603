//! `--report prometheus=FILE` end to end, checked by the real consumer's tool (`promtool`,
//! installed by `bash scripts/test-deps.sh`): rendered textfiles pass `promtool check metrics`
//! and broken ones do not; the example alerts pass `promtool check rules` and their own
//! `promtool test rules`. The "done when" of issue 13 over the fleet simulator: a healthy
//! nightly run, then nights where every BMC is unreachable writing the same file: every host
//! keeps its last success time and shows INCOMPLETE, and a `promtool test rules` file made of
//! those real textfiles shows the example's "incomplete for 2 nights" alert firing after the
//! second failed night and not after the first. A merge of shards keeps the times too.

use crate::common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use common::fleet::{FleetLab, Host, State};
use common::fleet_sim::FleetSim;
use common::prometheus::{
    alerts, check_metrics, hosts, per_host, promtool, said, samples, test_rules, two_nights_test,
    value,
};
use common::simulator::bmc;
use serde_json::Value;

const LAST_SUCCESS: &str = "driftgate_last_success_timestamp_seconds";

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn json(path: &Path) -> Value {
    serde_json::from_str(&read(path)).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn utf8(path: &Path) -> &str {
    path.to_str().expect("a UTF-8 path")
}

/// Per host of a fleet JSON report, `field` of it as Unix seconds (RFC 3339 in the report).
fn times(report: &Value, field: impl Fn(&Value) -> &Value) -> BTreeMap<String, f64> {
    report["hosts"]
        .as_array()
        .expect("hosts")
        .iter()
        .map(|h| {
            let at: jiff::Timestamp = field(h)
                .as_str()
                .unwrap_or_else(|| panic!("no time in {h:#}"))
                .parse()
                .expect("an RFC 3339 time");
            (
                h["host"].as_str().expect("a name").to_owned(),
                at.as_second() as f64,
            )
        })
        .collect()
}

#[test]
fn textfiles_of_a_check_and_of_a_fleet_pass_promtool_check_metrics() {
    let lab = FleetLab::new(
        &[
            Host::new("azl-node01", State::Recorded("post-update")).in_cluster("azl"),
            Host::new("azl-node02", State::Recorded("baseline")).in_cluster("azl"),
            Host::new("azl-node03", State::Unreachable).in_cluster("azl"),
        ],
        &["azl-node01", "azl-node02", "azl-node03"],
    );
    let check = lab.path("check.prom");
    common::driftgate()
        .args(["check", "--snapshot"])
        .arg(common::example("azure-local-dcbx/post-update.json"))
        .arg("--baseline")
        .arg(common::example("azure-local-dcbx/baseline.json"))
        .arg("--report")
        .arg(format!("prometheus={}", check.display()))
        .assert()
        .code(1);
    let check = read(&check);
    check_metrics(&check).unwrap_or_else(|e| panic!("{e}\n{check}"));
    assert_eq!(
        value(
            &check,
            "driftgate_verdict",
            &[("host", "azl-node01"), ("fleet", ""), ("verdict", "block")]
        ),
        Some(1.0),
        "{check}"
    );

    let fleet = lab.path("fleet.prom");
    let report = lab.path("fleet.json");
    lab.check(&[
        "--report",
        &format!("prometheus={}", fleet.display()),
        "--report",
        &format!("json={}", report.display()),
    ])
    .expect(3);
    let fleet = read(&fleet);
    check_metrics(&fleet).unwrap_or_else(|e| panic!("{e}\n{fleet}"));
    // The file agrees with the JSON report on every host's verdict and on the counts.
    let report = json(&report);
    for h in report["hosts"].as_array().expect("hosts") {
        let (name, verdict) = (h["host"].as_str().unwrap(), h["verdict"].as_str().unwrap());
        assert_eq!(
            per_host(&fleet, "driftgate_verdict", Some(verdict)).get(name),
            Some(&1.0),
            "{name} {verdict}\n{fleet}"
        );
    }
    for verdict in ["pass", "warn", "block", "incomplete"] {
        assert_eq!(
            value(&fleet, "driftgate_hosts", &[("verdict", verdict)]),
            report["counts"][verdict].as_f64(),
            "{verdict}\n{fleet}"
        );
    }
    // The unreachable host was never read: no last success time, not a 0.
    assert_eq!(
        value(&fleet, LAST_SUCCESS, &[("host", "azl-node03")]),
        None,
        "{fleet}"
    );
    assert_eq!(
        value(
            &fleet,
            "driftgate_sources_incomplete",
            &[("host", "azl-node03")]
        ),
        Some(1.0),
        "{fleet}"
    );

    // The check's file and the fleet's in one textfile directory: node_exporter merges them,
    // and no series of one is a series of the other (the `report` label tells them apart).
    let series = |text: &str| -> BTreeSet<String> {
        samples(text)
            .into_iter()
            .map(|s| {
                assert!(s.labels.contains_key("report"), "{s:?}");
                format!("{}{:?}", s.name, s.labels)
            })
            .collect()
    };
    let (of_check, of_fleet) = (series(&check), series(&fleet));
    let shared: Vec<&String> = of_check.intersection(&of_fleet).collect();
    assert!(shared.is_empty(), "series in both files: {shared:?}");
    assert!(!of_check.is_empty() && of_fleet.len() > of_check.len());
    let merged = merge_textfiles(&[&check, &fleet]);
    check_metrics(&merged).unwrap_or_else(|e| panic!("{e}\n{merged}"));
    // promtool does not see duplicate series (the intersection above does); without the
    // label, `driftgate_hosts` and `driftgate_run_timestamp_seconds` would be in both.
    assert!(shared.is_empty());
}

/// Textfiles as node_exporter's collector merges them: each family's `# HELP` and `# TYPE`
/// once, then the samples of every file.
fn merge_textfiles(texts: &[&str]) -> String {
    let mut families: BTreeMap<String, (Vec<String>, Vec<String>)> = BTreeMap::new();
    for text in texts {
        for line in text.lines() {
            let family = match line
                .strip_prefix("# HELP ")
                .or(line.strip_prefix("# TYPE "))
            {
                Some(rest) => rest.split(' ').next().unwrap_or_default(),
                None => line.split(['{', ' ']).next().unwrap_or_default(),
            };
            let (head, body) = families.entry(family.to_owned()).or_default();
            if line.starts_with('#') {
                if !head.iter().any(|l| l == line) {
                    head.push(line.to_owned());
                }
            } else if !line.is_empty() {
                body.push(line.to_owned());
            }
        }
    }
    let mut out = String::new();
    for (head, body) in families.values() {
        for line in head.iter().chain(body) {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

#[test]
fn promtool_rejects_broken_textfiles() {
    let good = "# HELP driftgate_hosts Hosts of the run by verdict.\n\
                # TYPE driftgate_hosts gauge\n\
                driftgate_hosts{verdict=\"block\"} 1\n";
    check_metrics(good).expect("the good file passes");
    for (broken, why) in [
        (
            good.replace("verdict=\"block\"", "verdict=\"bl\"ock\""),
            "an unescaped quote in a label value",
        ),
        (good.replace("} 1", "} one"), "a value that is not a number"),
        (
            good.replace("\ndriftgate_hosts{", "\n2driftgate_hosts{"),
            "a metric name that starts with a digit",
        ),
        (
            good.replace("} 1", "} 1 1700000000000 7"),
            "a field after the timestamp",
        ),
        (
            good.replace("gauge", "counter"),
            "a counter without _total (a lint)",
        ),
        (
            good.replace("# HELP driftgate_hosts Hosts of the run by verdict.\n", ""),
            "no help text (a lint)",
        ),
    ] {
        assert!(check_metrics(&broken).is_err(), "{why} passed:\n{broken}");
    }
}

#[test]
fn the_example_alerts_pass_promtool_check_rules_and_their_tests() {
    let alerts = alerts();
    let checked = promtool(&["check", "rules", utf8(&alerts)], "");
    assert!(checked.status.success(), "{}", said(&checked));
    let tests = alerts.with_file_name("alerts.test.yml");
    test_rules(&tests).unwrap_or_else(|e| panic!("{e}"));

    // The tests can fail: a threshold that fires after one failed night is caught.
    let dir = tempfile::tempdir().expect("a temporary directory");
    let text = read(&alerts);
    let one_night = text.replace(
        ") > 36 * 3600\n          and ignoring(verdict)",
        ") > 12 * 3600\n          and ignoring(verdict)",
    );
    assert_ne!(
        one_night, text,
        "the rule's threshold is where this test expects it"
    );
    std::fs::write(dir.path().join("alerts.yml"), one_night).expect("writable");
    std::fs::copy(&tests, dir.path().join("alerts.test.yml")).expect("copied");
    let failed = test_rules(&dir.path().join("alerts.test.yml"))
        .expect_err("a rule that fires after one night fails the example's tests");
    assert!(
        failed.contains("DriftgateHostIncompleteTwoNights"),
        "{failed}"
    );
}

/// Simulated hosts of the done-when fleet.
const HOSTS: usize = 4;

/// A fleet of [`HOSTS`] simulated BMCs with their baselines promoted, after one healthy night
/// (`check --all --report prometheus=FILE --report json=…`, every host PASS).
struct Healthy {
    lab: FleetLab,
    /// The simulator, until the test stops it.
    sim: Option<FleetSim>,
    /// Its inventory, kept in the lab (the simulator's own folder goes with it).
    inventory: PathBuf,
    /// The textfile every night writes.
    textfile: PathBuf,
    /// The healthy night's textfile.
    first: String,
    /// Per host, its capture time that night (Unix seconds).
    captured: BTreeMap<String, f64>,
}

impl Healthy {
    fn start() -> Healthy {
        let lab = FleetLab::new(&[], &[]);
        let inventory = lab.path("inventory.toml");
        let sim = FleetSim::start(
            &[&bmc("baseline")],
            HOSTS,
            &["--write-inventory", utf8(&inventory)],
        );
        let boot = lab.path("bootstrap");
        common::nightly::check(&lab, &inventory, &["--bootstrap", "--out-dir", utf8(&boot)])
            .expect(0);
        let mut snapshots: Vec<PathBuf> = std::fs::read_dir(boot.join("snapshots"))
            .expect("the bootstrap's snapshots")
            .map(|e| e.expect("an entry").path())
            .collect();
        snapshots.sort();
        lab.command()
            .args(["baseline", "promote", "--fleet", "sim"])
            .args(&snapshots)
            .assert()
            .code(0);
        let mut healthy = Healthy {
            textfile: lab.path("textfile/driftgate.prom"),
            lab,
            sim: Some(sim),
            inventory,
            first: String::new(),
            captured: BTreeMap::new(),
        };
        std::fs::create_dir_all(healthy.textfile.parent().expect("in a folder")).expect("writable");
        let (text, report) = healthy.night("night-0", 0);
        healthy.captured = times(&report, |h| &h["report"]["snapshot"]["captured_at"]);
        assert_eq!(healthy.captured.len(), HOSTS);
        healthy.first = text;
        healthy
    }

    /// One night: `check --all` writing the textfile and a JSON report `NAME.json`, with more
    /// `args`; the exit code must be `code`. The textfile and the report.
    fn night_with(&self, name: &str, code: i32, args: &[&str]) -> (String, Value) {
        let report = self.lab.path(&format!("{name}.json"));
        let mut all = vec![
            "--report".to_owned(),
            format!("prometheus={}", self.textfile.display()),
            "--report".to_owned(),
            format!("json={}", report.display()),
        ];
        all.extend(args.iter().map(|a| (*a).to_owned()));
        let all: Vec<&str> = all.iter().map(String::as_str).collect();
        common::nightly::check(&self.lab, &self.inventory, &all).expect(code);
        let text = read(&self.textfile);
        check_metrics(&text).unwrap_or_else(|e| panic!("{name}: {e}\n{text}"));
        (text, json(&report))
    }

    fn night(&self, name: &str, code: i32) -> (String, Value) {
        self.night_with(name, code, &[])
    }

    /// Stops every BMC: nothing listens any more.
    fn unplug(&mut self) {
        drop(self.sim.take());
    }

    /// Asserts that every host of `text` is INCOMPLETE with its healthy night's capture time.
    fn assert_kept(&self, text: &str, what: &str) {
        assert_eq!(
            per_host(text, LAST_SUCCESS, None),
            self.captured,
            "{what}:\n{text}"
        );
        let incomplete = per_host(text, "driftgate_verdict", Some("incomplete"));
        assert_eq!(incomplete.len(), HOSTS, "{what}:\n{text}");
        assert!(incomplete.values().all(|v| *v == 1.0), "{what}:\n{text}");
        let sources = per_host(text, "driftgate_sources_incomplete", None);
        assert!(sources.values().all(|n| *n >= 1.0), "{what}:\n{text}");
        assert_eq!(
            value(text, "driftgate_hosts", &[("verdict", "incomplete")]),
            Some(HOSTS as f64),
            "{what}:\n{text}"
        );
    }
}

#[test]
fn a_night_with_every_bmc_unreachable_keeps_last_success_and_fires_the_two_nights_alert_on_the_second()
 {
    let mut fleet = Healthy::start();
    let first = fleet.first.clone();
    assert_eq!(
        per_host(&first, "driftgate_verdict", Some("pass"))
            .values()
            .sum::<f64>(),
        HOSTS as f64,
        "{first}"
    );
    assert_eq!(
        per_host(&first, LAST_SUCCESS, None),
        fleet.captured,
        "{first}"
    );
    assert_eq!(hosts(&first).len(), HOSTS);

    fleet.unplug();
    let (second, report) = fleet.night("night-1", 3);
    fleet.assert_kept(&second, "the first unreachable night");
    // The JSON report says the same.
    assert_eq!(times(&report, |h| &h["last_success_at"]), fleet.captured);
    let (third, _) = fleet.night("night-2", 3);
    fleet.assert_kept(&third, "the second unreachable night");
    assert!(
        value(&third, "driftgate_run_timestamp_seconds", &[])
            >= value(&first, "driftgate_run_timestamp_seconds", &[]),
        "the run time moves on"
    );

    // The example's alert over those real files as three nights: quiet after the first failed
    // night, firing for every host after the second.
    let dir = tempfile::tempdir().expect("a temporary directory");
    let names: Vec<String> = (0..HOSTS).map(FleetSim::host).collect();
    let firing: Vec<&str> = names.iter().map(String::as_str).collect();
    let nights = [first.clone(), second.clone(), third.clone()];
    let generated = dir.path().join("two-nights.test.yml");
    std::fs::write(&generated, two_nights_test(&nights, 1, &firing)).expect("writable");
    test_rules(&generated).unwrap_or_else(|e| panic!("{e}\n{}", read(&generated)));
    // The generated test can fail: it says so when the alert is expected after one night.
    let early = dir.path().join("one-night.test.yml");
    std::fs::write(&early, two_nights_test(&nights, 0, &firing)).expect("writable");
    let failed = test_rules(&early).expect_err("the alert does not fire after one night");
    assert!(
        failed.contains("DriftgateHostIncompleteTwoNights"),
        "{failed}"
    );

    // Without the store's nightly state, the file being replaced still keeps the times.
    common::git(&fleet.lab.store, &["branch", "-D", "driftgate/state"]);
    let (fourth, report) = fleet.night("night-3", 3);
    fleet.assert_kept(&fourth, "a night without the nightly state");
    assert!(
        report["hosts"]
            .as_array()
            .unwrap()
            .iter()
            .all(|h| h.get("last_success_at").is_none()),
        "the run itself knows no success: {report:#}"
    );
}

#[test]
fn a_merge_of_unreachable_shards_keeps_each_hosts_last_success() {
    let mut fleet = Healthy::start();
    fleet.unplug();
    let dirs: Vec<PathBuf> = (1..=2)
        .map(|k| fleet.lab.path(&format!("shard-{k}")))
        .collect();
    for (k, dir) in (1..=2).zip(&dirs) {
        common::nightly::check(
            &fleet.lab,
            &fleet.inventory,
            &[
                "--shard",
                &format!("{k}/2"),
                "--out-dir",
                utf8(dir),
                "--format",
                "json",
            ],
        )
        .expect(3);
    }
    // The merge runs where no textfile was written yet: the times come from the shards alone.
    let merged = fleet.lab.path("merged.prom");
    let refs: Vec<&Path> = dirs.iter().map(PathBuf::as_path).collect();
    let ran = fleet
        .lab
        .merge(
            &refs,
            &[
                "--format",
                "json",
                "--inventory",
                utf8(&fleet.inventory),
                "--report",
                &format!("prometheus={}", merged.display()),
            ],
        )
        .expect(3);
    let report = ran.json();
    assert_eq!(
        times(&report, |h| &h["last_success_at"]),
        fleet.captured,
        "{report:#}"
    );
    let text = read(&merged);
    check_metrics(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    fleet.assert_kept(&text, "the merge");
}
