//! Textfiles of the shipped examples (insta snapshots: a check, a gate post, a small fleet),
//! what a host keeps from the file being replaced, escaping, and the textfile parser.

use crate::document::{FleetFinding, FleetReport, HostResult};
use crate::document::{GATE_REPORT_SCHEMA_ID, GateReport, RunSummary, Step};
use crate::format::{Document, Extras};
use crate::testing::{self, judge};
use crate::view::View;
use driftgate_compare::testing::{example, three_way};
use driftgate_compare::{Report, Severity, Verdict};
use driftgate_snapshot::{HostName, Snapshot, SourceRecord, SourceStatus, VerifiedSnapshot};

use super::textfile::{self, LAST_SUCCESS, ParseError};
use super::{Textfile, render};

fn shipped(file: &str) -> VerifiedSnapshot {
    let path = format!(
        "{}/examples/{file}",
        concat!(env!("CARGO_MANIFEST_DIR"), "/../..")
    );
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    VerifiedSnapshot::parse(&text, &format!("examples/{file}")).unwrap()
}

/// A host whose BMC could not be reached: one failed source saying why.
fn unreachable(host: &str, error: &str) -> Report {
    let snapshot = Snapshot {
        host: HostName::new(host).unwrap(),
        captured_at: "2026-12-01T02:00:31Z".parse().unwrap(),
        tool: "driftgate test".into(),
        sources: vec![SourceRecord {
            name: "redfish".into(),
            target: format!("https://bmc-{host}"),
            status: SourceStatus::Failed,
            error: Some(error.into()),
        }],
        facts: Default::default(),
    };
    judge(&VerifiedSnapshot::seal(snapshot, host), None)
}

fn text(document: Document<'_>, previous: Option<&str>) -> String {
    let extras = Extras {
        previous_textfile: previous.map(ToOwned::to_owned),
        ..Extras::default()
    };
    let mut out = Vec::new();
    render(&View::of(document), &extras, &mut out).unwrap();
    String::from_utf8(out).unwrap()
}

fn host(
    name: &str,
    cluster: Option<&str>,
    report: Report,
    ms: u64,
    ok: Option<&str>,
) -> HostResult {
    HostResult {
        host: name.into(),
        fleet: "lab".into(),
        cluster: cluster.map(Into::into),
        verdict: report.verdict,
        counts: report.counts,
        failure: None,
        capture_ms: ms,
        snapshot_file: None,
        last_success_at: ok.map(Into::into),
        report: report.into(),
    }
}

/// Seed 1's node after the update that reset its DCBX (blocked, and the odd node of its
/// cluster), a node that agrees, the ESXi MSCS node, a Linux node without a baseline, and
/// three hosts that could not be read: one the fleet state remembers, one only the previous
/// textfile knows, one never read.
fn small_fleet() -> FleetReport {
    let base = shipped("azure-local-dcbx/baseline.json");
    let post = shipped("azure-local-dcbx/post-update.json");
    let esx = judge(
        &shipped("esxi-mscs-psp/current.json"),
        Some(&shipped("esxi-mscs-psp/baseline.json")),
    );
    let linux = judge(&shipped("linux-mellanox-lldp/baseline.json"), None);
    let refused = "GET https://bmc-azl-node04/redfish/v1: connection refused";
    let mut hosts = vec![
        host(
            "azl-node01",
            Some("azl"),
            judge(&post, Some(&base)),
            4_210,
            Some("2026-12-01T02:00:04Z"),
        ),
        host(
            "azl-node02",
            Some("azl"),
            judge(&base, Some(&base)),
            3_950,
            Some("2026-12-01T02:00:03Z"),
        ),
        host(
            "azl-node04",
            Some("azl"),
            unreachable("azl-node04", refused),
            1_020,
            Some("2026-11-29T02:00:07Z"),
        ),
        host(
            "esx01",
            Some("mscs"),
            esx,
            820,
            Some("2026-12-01T02:00:01Z"),
        ),
        host(
            "new-node",
            None,
            unreachable("new-node", "the host deadline of 30 s passed"),
            30_000,
            None,
        ),
        host(
            "rdma-node08",
            None,
            linux,
            610,
            Some("2026-12-01T02:00:01Z"),
        ),
        host(
            "old-node",
            None,
            unreachable("old-node", "no route to host"),
            3_000,
            None,
        ),
    ];
    hosts.sort_by(|a, b| a.host.cmp(&b.host));
    let findings = vec![
        FleetFinding {
            rule: "cluster/dcbx-mode".into(),
            severity: Severity::Block,
            cluster: Some("azl".into()),
            hosts: vec!["azl-node01".into()],
            path: Some("nic/*/bmc/dcbx_mode".into()),
            values: vec![serde_json::json!("disabled")],
            majority: None,
            message: "azl-node01 has \"disabled\" where the cluster has \"ieee\"".into(),
        },
        FleetFinding {
            rule: "fleet/orphan-baseline".into(),
            severity: Severity::Warn,
            cluster: None,
            hosts: Vec::new(),
            path: None,
            values: Vec::new(),
            majority: None,
            message: "baselines/lab/gone.json has no host in the inventory".into(),
        },
    ];
    testing::block_by_findings(&mut hosts, &findings);
    testing::fleet_report("driftgate test", hosts, findings)
}

/// What the file being replaced said of the fleet: `new-node` was read once.
const PREVIOUS: &str = "\
# HELP driftgate_last_success_timestamp_seconds When the host was last read completely.
# TYPE driftgate_last_success_timestamp_seconds gauge
driftgate_last_success_timestamp_seconds{cluster=\"\",fleet=\"lab\",host=\"new-node\"} 1764468000
driftgate_last_success_timestamp_seconds{cluster=\"azl\",fleet=\"lab\",host=\"azl-node04\"} 1000
";

fn seed_one_post() -> GateReport {
    let post = example("post-update.json");
    let report = three_way(
        &post,
        &example("baseline.json"),
        &example("pre-update.json"),
        Vec::new(),
    );
    let host = testing::gate_host(report, &post, "runs/CHG-1042/post-1/azl-node01.json", 2_480);
    GateReport {
        schema: GATE_REPORT_SCHEMA_ID.into(),
        tool: "driftgate test".into(),
        run: RunSummary {
            id: "CHG-1042".into(),
            dir: "runs/CHG-1042".into(),
            step: Step::Post,
            attempt: Some(1),
            started_at: "2026-12-01T22:10:00Z".into(),
            policy_digest: "sha256:policy".into(),
        },
        verdict: host.verdict,
        strict: false,
        hosts: vec![host],
        allowances: Vec::new(),
        expired_allowances: Vec::new(),
        warnings: Vec::new(),
        promotion: None,
    }
}

macro_rules! snapshot {
    ($name:expr, $value:expr) => {
        insta::with_settings!({ snapshot_path => "../snapshots", prepend_module_to_snapshot => false }, {
            insta::assert_snapshot!($name, $value);
        })
    };
}

/// The value of the sample of `name` whose labels include every one of `labels`.
fn value(text: &str, name: &str, labels: &[(&str, &str)]) -> Option<f64> {
    let found: Vec<f64> = textfile::samples(text)
        .map(|s| s.unwrap_or_else(|e| panic!("{e}\n{text}")))
        .filter(|s| {
            s.name == name
                && labels
                    .iter()
                    .all(|(k, v)| s.labels.get(*k).map(String::as_str) == Some(*v))
        })
        .map(|s| s.value)
        .collect();
    assert!(found.len() <= 1, "{name} {labels:?} twice:\n{text}");
    found.first().copied()
}

#[test]
fn a_check_of_seed_one_after_the_update() {
    let report = judge(
        &example("post-update.json"),
        Some(&example("baseline.json")),
    );
    let text = text(Document::Check(&report, &[]), None);
    let node = [("host", "azl-node01"), ("fleet", ""), ("cluster", "")];
    assert_eq!(
        value(&text, "driftgate_verdict", &[node[0], ("verdict", "block")]),
        Some(1.0)
    );
    assert_eq!(
        value(&text, "driftgate_hosts", &[("verdict", "block")]),
        Some(1.0)
    );
    assert_eq!(
        value(&text, LAST_SUCCESS, &node),
        Some(seconds(&report.snapshot.captured_at))
    );
    // A check has no capture of its own to time.
    assert!(
        !text.contains("driftgate_capture_duration_seconds"),
        "{text}"
    );
    snapshot!("prometheus_check_seed_one_post", text);
}

#[test]
fn a_gate_post_of_seed_one() {
    let gate = seed_one_post();
    let text = text(Document::Gate(&gate), None);
    let node = ("host", "azl-node01");
    assert_eq!(
        value(
            &text,
            "driftgate_verdict",
            &[node, ("cluster", "azl-cluster-a"), ("verdict", "block")]
        ),
        Some(1.0)
    );
    assert_eq!(
        value(&text, "driftgate_capture_duration_seconds", &[node]),
        Some(2.48)
    );
    assert_eq!(
        value(&text, "driftgate_run_timestamp_seconds", &[]),
        Some(seconds("2026-12-01T22:10:00Z"))
    );
    snapshot!("prometheus_gate_seed_one_post", text);
}

#[test]
fn a_small_fleet_with_hosts_that_could_not_be_read() {
    let fleet = small_fleet();
    let text = text(Document::Fleet(&fleet), Some(PREVIOUS));
    // Each host has one verdict at 1 and the three others at 0, and they add up to the counts.
    for h in &fleet.hosts {
        let mut ones = 0.0;
        for v in ["pass", "warn", "block", "incomplete"] {
            let got = value(
                &text,
                "driftgate_verdict",
                &[("host", &h.host), ("verdict", v)],
            );
            assert!(
                matches!(got, Some(x) if x == 0.0 || x == 1.0),
                "{} {v}: {got:?}",
                h.host
            );
            ones += got.unwrap_or_default();
        }
        assert_eq!(ones, 1.0, "{}", h.host);
    }
    let c = fleet.counts;
    for (v, n) in [
        ("pass", c.pass),
        ("warn", c.warn),
        ("block", c.block),
        ("incomplete", c.incomplete),
    ] {
        assert_eq!(
            value(&text, "driftgate_hosts", &[("verdict", v)]),
            Some(n as f64),
            "{v}"
        );
    }
    // The state file's time wins over the previous file's; the previous file's is kept when the
    // run knows none; a host never read has no sample (never a 0).
    let last = |h: &str| value(&text, LAST_SUCCESS, &[("host", h)]);
    assert_eq!(last("azl-node04"), Some(seconds("2026-11-29T02:00:07Z")));
    assert_eq!(last("new-node"), Some(1_764_468_000.0));
    assert_eq!(last("old-node"), None);
    assert_eq!(
        value(
            &text,
            "driftgate_sources_incomplete",
            &[("host", "old-node")]
        ),
        Some(1.0)
    );
    // The cluster finding that blocks node01 is one of its findings, and the fleet's.
    assert_eq!(
        value(
            &text,
            "driftgate_findings",
            &[("host", "azl-node01"), ("rule", "cluster/dcbx-mode")]
        ),
        Some(1.0)
    );
    assert_eq!(
        value(
            &text,
            "driftgate_fleet_findings",
            &[("rule", "fleet/orphan-baseline"), ("severity", "warn")]
        ),
        Some(1.0)
    );
    assert_eq!(
        value(&text, "driftgate_run_timestamp_seconds", &[]),
        Some(seconds("2026-12-01T02:03:10Z"))
    );
    snapshot!("prometheus_fleet_small", text);
}

#[test]
fn every_blocked_host_has_a_blocking_finding_and_no_sample_has_a_timestamp() {
    let fleet = small_fleet();
    let text = text(Document::Fleet(&fleet), None);
    for h in fleet.hosts.iter().filter(|h| h.verdict == Verdict::Block) {
        let blocking: f64 = textfile::samples(&text)
            .map(Result::unwrap)
            .filter(|s| {
                s.name == "driftgate_findings"
                    && s.labels["host"] == h.host
                    && s.labels["severity"] == "block"
            })
            .map(|s| s.value)
            .sum();
        assert!(blocking >= 1.0, "{}:\n{text}", h.host);
    }
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        // `name{labels} value` or `name value`: a timestamp would be one more field.
        let (rest, fields) = line
            .rsplit_once('}')
            .map_or((line, 2), |(_, rest)| (rest, 1));
        assert_eq!(
            rest.split_whitespace().count(),
            fields,
            "a timestamp in {line:?}"
        );
    }
}

#[test]
fn label_values_from_a_capture_are_escaped_and_read_back() {
    let mut fleet = small_fleet();
    let odd = "lab \"a\" \\ b\nc";
    fleet.hosts[0].cluster = Some(odd.into());
    fleet.hosts[0].fleet = "fleet}{,=".into();
    let text = text(Document::Fleet(&fleet), None);
    assert!(text.contains(r#"cluster="lab \"a\" \\ b\nc""#), "{text}");
    let cluster = |s: &textfile::Sample| s.labels.get("cluster").cloned();
    let read: Vec<_> = textfile::samples(&text)
        .map(|s| s.unwrap_or_else(|e| panic!("{e}\n{text}")))
        .filter(|s| s.labels.get("host").map(String::as_str) == Some(&fleet.hosts[0].host))
        .collect();
    assert!(!read.is_empty());
    for sample in &read {
        assert_eq!(cluster(sample).as_deref(), Some(odd), "{sample:?}");
        assert_eq!(sample.labels["fleet"], "fleet}{,=");
    }
}

#[test]
fn a_previous_textfile_fills_in_only_hosts_the_run_knows_no_success_of() {
    let fleet = small_fleet();
    let view = View::of(Document::Fleet(&fleet));
    let with = Textfile::of(&view, Some(PREVIOUS)).unwrap();
    let without = Textfile::of(&view, None).unwrap();
    let last = |t: &Textfile, h: &str| {
        t.hosts
            .iter()
            .find(|m| m.labels.host == h)
            .and_then(|m| m.last_success)
    };
    assert_eq!(last(&with, "new-node"), Some(1_764_468_000.0));
    assert_eq!(last(&without, "new-node"), None);
    // The previous file's 1000 for azl-node04 does not replace what the run knows.
    assert_eq!(last(&with, "azl-node04"), last(&without, "azl-node04"));
    // A host only the previous file lists is not carried on: the run decides which hosts exist.
    let gone = format!("{PREVIOUS}{LAST_SUCCESS}{{host=\"gone\"}} 5\n");
    assert!(
        Textfile::of(&view, Some(&gone))
            .unwrap()
            .hosts
            .iter()
            .all(|h| h.labels.host != "gone")
    );
    // A garbled previous file is no error: the render only has less to keep.
    assert_eq!(Textfile::of(&view, Some("\u{0}garbage{")).unwrap(), without);
}

#[test]
fn the_parser_reads_samples_with_escapes_and_timestamps() {
    let sample =
        textfile::parse_sample(r#"  m_1:x{a="1",b="q\"\\\n" , } -1.5e3 1700000000000"#, 3).unwrap();
    assert_eq!(sample.name, "m_1:x");
    assert_eq!(sample.labels["a"], "1");
    assert_eq!(sample.labels["b"], "q\"\\\n");
    assert_eq!(sample.value, -1500.0);
    assert!(
        textfile::parse_sample("up +Inf", 1)
            .unwrap()
            .value
            .is_infinite()
    );
    assert_eq!(textfile::parse_sample("up 1", 1).unwrap().labels.len(), 0);
}

#[test]
fn broken_lines_are_refused_naming_line_and_column() {
    for (line, column, reason) in [
        ("{a=\"1\"} 1", 1, "a metric name expected"),
        ("m{a=1} 1", 5, "a double-quoted label value expected"),
        ("m{a=\"1} 1", 10, "the label value is not closed"),
        (
            "m{a=\"\\t\"} 1",
            7,
            "an escape other than \\\\, \\\" or \\n",
        ),
        (
            "m{a=\"1\" b=\"2\"} 1",
            9,
            "`,` or `}` expected after a label value",
        ),
        ("m{a=\"1\",a=\"2\"} 1", 14, "a label given twice"),
        ("m{1=\"1\"} 1", 3, "a label name expected"),
        ("m{a\"1\"} 1", 4, "`=` expected after a label name"),
        ("m", 2, "a blank expected before the value"),
        ("m inf", 6, "a number expected as the value"),
        (
            "m 1 soon",
            9,
            "an integer timestamp expected after the value",
        ),
        ("m 1 2 3", 7, "nothing expected after the timestamp"),
    ] {
        assert_eq!(
            textfile::parse_sample(line, 7),
            Err(ParseError {
                line: 7,
                column,
                reason
            }),
            "{line:?}"
        );
    }
    let text = "# HELP x y\n\nm 1\nm{ 2\n";
    let errors: Vec<String> = textfile::samples(text)
        .filter_map(Result::err)
        .map(|e| e.to_string())
        .collect();
    assert_eq!(errors, ["line 4, column 4: a label name expected"]);
}

#[test]
fn last_success_times_skip_broken_lines_and_other_metrics() {
    let text = format!(
        "{LAST_SUCCESS}{{host=\"a\"}} 10\n\
         {LAST_SUCCESS}{{host=\"a\",cluster=\"old\"}} 20\n\
         {LAST_SUCCESS}{{host=\"b\"}} NaN\n\
         {LAST_SUCCESS}{{host=\"c\"}} 0\n\
         {LAST_SUCCESS}{{host=\"d\" 30\n\
         {LAST_SUCCESS} 40\n\
         driftgate_verdict{{host=\"e\",verdict=\"pass\"}} 1\n\
         {LAST_SUCCESS}{{host=\"f\"}} 50\n"
    );
    let times = textfile::last_success_times(&text);
    assert_eq!(
        times.into_iter().collect::<Vec<_>>(),
        [("a".to_owned(), 20.0), ("f".to_owned(), 50.0)]
    );
}

fn seconds(time: &str) -> f64 {
    time.parse::<jiff::Timestamp>().unwrap().as_second() as f64
}
