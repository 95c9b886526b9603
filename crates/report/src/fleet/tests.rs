//! The fleet summary over a small fleet judged from the shipped examples (insta snapshots),
//! and its bounds at 1,000 and 10,000 hosts.

use crate::document::Spool;
use crate::document::{FleetFinding, FleetReport, HostCounts, HostResult};
use crate::testing::{self, judge, renamed};
use driftgate_compare::{Counts, Report, Severity, Verdict};
use driftgate_snapshot::VerifiedSnapshot;

fn example(file: &str) -> VerifiedSnapshot {
    let path = format!("{}/{file}", concat!(env!("CARGO_MANIFEST_DIR"), "/../.."));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    VerifiedSnapshot::parse(&text, file).unwrap()
}

fn host(name: &str, cluster: Option<&str>, report: Report, ms: u64) -> HostResult {
    HostResult {
        host: name.into(),
        fleet: "lab".into(),
        cluster: cluster.map(Into::into),
        verdict: report.verdict,
        counts: report.counts,
        failure: None,
        capture_ms: ms,
        snapshot_file: Some(format!("out/snapshots/{name}.json")),
        last_success_at: None,
        report: report.into(),
    }
}

fn rank(v: Verdict) -> u8 {
    match v {
        Verdict::Pass => 0,
        Verdict::Warn => 1,
        Verdict::Block => 2,
        Verdict::Incomplete => 3,
    }
}

/// `hosts` and `findings` as a fleet report: host verdicts raised by the findings naming
/// them, counts, the fleet verdict.
fn fleet(mut hosts: Vec<HostResult>, findings: Vec<FleetFinding>, shards: &[&str]) -> FleetReport {
    let mut verdict = Verdict::Pass;
    for h in &mut hosts {
        for f in findings.iter().filter(|f| f.hosts.contains(&h.host)) {
            let v = match f.severity {
                Severity::Block => Verdict::Block,
                Severity::Warn => Verdict::Warn,
                _ => Verdict::Pass,
            };
            if rank(v) > rank(h.verdict) {
                h.verdict = v;
            }
        }
        if rank(h.verdict) > rank(verdict) {
            verdict = h.verdict;
        }
    }
    FleetReport {
        shards: shards.iter().map(|s| (*s).to_owned()).collect(),
        verdict,
        ..testing::fleet_report("driftgate test", hosts, findings)
    }
}

/// Three Azure Local nodes (node01 after the update that reset its DCBX), the ESXi MSCS node
/// with its shared disk on Round Robin, a Linux node, one that timed out, one without a
/// baseline; with their cluster and stale findings.
fn small_fleet() -> FleetReport {
    let base = example("examples/azure-local-dcbx/baseline.json");
    let post = example("examples/azure-local-dcbx/post-update.json");
    let (n2, n3) = (
        renamed(&base, "azl-node02", "56:78"),
        renamed(&base, "azl-node03", "9a:bc"),
    );
    let esx_base = example("examples/esxi-mscs-psp/baseline.json");
    let esx = example("examples/esxi-mscs-psp/current.json");
    let linux_base = example("examples/linux-mellanox-lldp/baseline.json");
    let linux = example("examples/linux-mellanox-lldp/post-update.json");
    let azl = Some("azl");
    let mut timed_out = host("azl-node04", azl, judge(&n3, Some(&n3)), 30_000);
    timed_out.verdict = Verdict::Incomplete;
    timed_out.snapshot_file = None;
    timed_out.failure = Some(
        "redfish https://bmc-azl-node04: the host deadline of 30 s passed (GET /redfish/v1/Chassis/System.Embedded.1/NetworkAdapters)".into(),
    );
    let hosts = vec![
        host("azl-node01", azl, judge(&post, Some(&base)), 4_210),
        host("azl-node02", azl, judge(&n2, Some(&n2)), 3_950),
        host("azl-node03", azl, judge(&n3, Some(&n3)), 12_480),
        timed_out,
        host("esx01", Some("mscs"), judge(&esx, Some(&esx_base)), 820),
        host("rdma-node07", None, judge(&linux, Some(&linux_base)), 640),
        host("rdma-node08", None, judge(&linux_base, None), 610),
    ];
    let mut findings = testing::fleet_findings("cluster-azl");
    findings.extend(testing::fleet_findings("stale-lab"));
    fleet(hosts, findings, &[])
}

macro_rules! snapshot {
    ($name:expr, $value:expr) => {
        insta::with_settings!({ snapshot_path => "../snapshots", prepend_module_to_snapshot => false }, {
            insta::assert_snapshot!($name, $value);
        })
    };
}

fn text(report: &FleetReport) -> String {
    text_in(report, None)
}

/// The text summary for a terminal of `columns` (none: piped).
fn text_in(report: &FleetReport, columns: Option<usize>) -> String {
    let mut out = Vec::new();
    super::text(report, columns, &mut out).unwrap();
    anstream::adapter::strip_str(&String::from_utf8(out).unwrap()).to_string()
}

fn markdown(report: &FleetReport) -> String {
    let mut out = Vec::new();
    super::markdown(report, &mut out).unwrap();
    String::from_utf8(out).unwrap()
}

/// The fleet JSON copies each spooled report as the spool holds it: the same bytes as every
/// report rendered in place, and a spool that lost its bytes is an error, not a short report.
#[test]
fn the_json_of_spooled_reports_is_that_of_the_reports_in_memory() {
    let held = small_fleet();
    let mut in_memory = Vec::new();
    serde_json::to_writer_pretty(&mut in_memory, &held).unwrap();
    in_memory.push(b'\n');
    let spool = Spool::new().unwrap();
    let mut spooled = held.clone();
    for host in &mut spooled.hosts {
        spool.keep(&mut host.report).unwrap();
        assert!(host.report.is_spooled());
    }
    let mut copied = Vec::new();
    super::json(&spooled, &mut copied).unwrap();
    assert_eq!(
        String::from_utf8(copied).unwrap(),
        String::from_utf8(in_memory).unwrap()
    );
    spool.truncate_for_test(10);
    let error = super::json(&spooled, &mut Vec::new()).unwrap_err();
    assert!(error.to_string().contains("a spooled report"), "{error}");
}

#[test]
fn summary_of_a_small_fleet() {
    let report = small_fleet();
    let text = text(&report);
    assert!(
        text.starts_with("FLEET INCOMPLETE — 7 hosts: 2 pass · 1 warn · 3 block · 1 incomplete\n"),
        "{text}"
    );
    // Cut to 100 columns, the ellipsis included: the whole message is in the JSON and Markdown
    // reports.
    assert!(text.contains("  block  cluster azl: DCBX mode of NIC.Slot.3-1-1 (BMC): azl-node01 has \"disabled\" where 2 of 3 nod…\n"), "{text}");
    assert!(
        text.contains("azl-node04: redfish https://bmc-azl-node04"),
        "{text}"
    );
    assert!(
        text.contains("slowest  azl-node04 30.0 s · azl-node03 12.4 s · azl-node01 4.2 s"),
        "{text}"
    );
    assert!(text.contains("per-host results in out/hosts"), "{text}");
    snapshot!("fleet_small_text", text);
    let md = markdown(&report);
    assert!(md.contains("| azl-node04 | azl | INCOMPLETE |"), "{md}");
    assert!(
        !md.contains("| azl-node02 |"),
        "passing hosts are not in the table: {md}"
    );
    // Problems first: blocked, incomplete, then warned hosts, each by name, with why.
    let table = &md[md.find("### Hosts not passing").unwrap()..];
    let rows: Vec<&str> = table
        .lines()
        .filter_map(|l| l.strip_prefix("| "))
        .filter_map(|l| l.split(" | ").next())
        .skip(1)
        .collect();
    assert_eq!(
        rows,
        [
            "azl-node01",
            "esx01",
            "rdma-node07",
            "azl-node04",
            "rdma-node08"
        ]
    );
    assert!(
        table.contains("| BLOCK | 28 | 0 | 4 | dcbx-mode on nic/00\\:0a\\:f7\\:12\\:34\\:56 |"),
        "{table}"
    );
    assert!(
        table.contains("| WARN | 0 | 0 | 0 | fleet/missing-baseline |"),
        "{table}"
    );
    snapshot!("fleet_small_markdown", md);
}

#[test]
fn the_headline_names_merged_shards() {
    let mut report = small_fleet();
    report.shards = vec!["1/3".into(), "2/3".into(), "3/3".into()];
    let text = text(&report);
    assert!(
        text.lines().next().unwrap().ends_with("(3 shards merged)"),
        "{text}"
    );
}

/// `n` hosts: the first `block` blocked, the next `warn` warned, the next `incomplete`
/// incomplete (each with a failure), the rest passing; with findings of 40 rules and `cluster`
/// cluster findings.
fn big_fleet(
    n: usize,
    block: usize,
    warn: usize,
    incomplete: usize,
    cluster: usize,
) -> FleetReport {
    let base = example("examples/azure-local-dcbx/baseline.json");
    let post = example("examples/azure-local-dcbx/post-update.json");
    let blocked = judge(&post, Some(&base));
    let passed = judge(&base, Some(&base));
    let hosts = (0..n)
        .map(|i| {
            let name = format!("sim-{i:04}");
            let mut report = if i < block + warn {
                blocked.clone()
            } else {
                passed.clone()
            };
            for (k, f) in report.findings.iter_mut().enumerate() {
                f.id = format!("rule-{:02}", (i + k) % 40);
                if i >= block {
                    f.severity = Severity::Warn;
                }
            }
            let mut h = host(&name, Some("c"), report, (i as u64 * 7_919) % 30_000);
            h.verdict = match i {
                i if i < block => Verdict::Block,
                i if i < block + warn => Verdict::Warn,
                i if i < block + warn + incomplete => {
                    h.failure = Some(format!(
                        "redfish https://10.0.{}.{}: connection refused after 3 attempts; {}",
                        i / 256,
                        i % 256,
                        "x".repeat(200)
                    ));
                    Verdict::Incomplete
                }
                _ => Verdict::Pass,
            };
            h.counts = Counts {
                block: 3,
                warn: 2,
                info: 1,
            };
            h
        })
        .collect();
    let findings = (0..cluster)
        .map(|i| FleetFinding {
            rule: "cluster/dcbx-mode".into(),
            severity: Severity::Block,
            cluster: Some(format!("c{i}")),
            hosts: vec![format!("sim-{:04}", n - 1 - i)],
            path: Some("nic/NIC.Slot.3-1/bmc/dcbx_mode".into()),
            values: vec![serde_json::json!("disabled")],
            majority: None,
            message: format!("cluster c{i}: DCBX mode of NIC.Slot.3-1 (BMC) sim-{:04} has \"disabled\" where 3 of 4 nodes have \"ieee\"", n - 1 - i),
        })
        .collect();
    let mut report = fleet(hosts, findings, &["1/2", "2/2"]);
    // `fleet` raised the hosts named by cluster findings; keep the intended split.
    report.counts = HostCounts {
        total: n,
        block,
        warn,
        incomplete,
        pass: n - block - warn - incomplete,
    };
    report
}

#[test]
fn a_thousand_hosts_fit_one_screen() {
    let report = big_fleet(1_000, 18, 20, 12, 30);
    let text = text(&report);
    let lines = text.lines().count();
    assert!(lines <= super::TEXT_LINES, "{lines} lines:\n{text}");
    assert!(
        text.starts_with("FLEET INCOMPLETE — 1000 hosts: 950 pass · 20 warn · 18 block · 12 incomplete (2 shards merged)"),
        "{text}"
    );
    for counted in ["more rules\n", "… and 27 more\n", "… and 7 more\n"] {
        assert!(text.contains(counted), "{counted}:\n{text}");
    }
    // Escapes do not count: the text is rendered without colour here.
    assert!(
        text.lines()
            .all(|l| l.chars().count() <= super::DEFAULT_COLUMNS),
        "{text}"
    );
    let many = fleet(Vec::new(), Vec::new(), &["1/64"; 64]);
    assert!(
        super::Summary::of(&many)
            .unwrap()
            .headline()
            .ends_with("(64 shards merged)"),
        "{}",
        super::Summary::of(&many).unwrap().headline()
    );
}

#[test]
fn ten_thousand_failing_hosts_stay_under_the_markdown_limit() {
    let report = big_fleet(10_000, 4_000, 3_000, 3_000, 500);
    let md = markdown(&report);
    assert!(md.len() < super::MARKDOWN_LIMIT, "{}", md.len());
    assert!(
        md.contains("more hosts not shown"),
        "{}",
        &md[md.len() - 300..]
    );
    assert!(
        md.contains("_… and 450 more_"),
        "cluster findings are counted past 50"
    );
    assert!(md.contains("| sim-0000 | c | BLOCK |"), "{}", &md[..3000]);
}

#[test]
fn the_top_findings_leave_out_hosts_that_could_not_be_read() {
    let post = example("examples/azure-local-dcbx/post-update.json");
    let baseline = example("examples/azure-local-dcbx/baseline.json");
    let mut unread = host("azl-node01", None, judge(&post, Some(&baseline)), 10);
    assert!(!unread.report.get().unwrap().findings.is_empty());
    let read = fleet(vec![unread.clone()], Vec::new(), &[]);
    assert!(
        text(&read).contains("top findings by rule"),
        "{}",
        text(&read)
    );
    // Its findings are of the facts its failed source did not give: the failure says why.
    unread.failure = Some("redfish failed: https://bmc: timed out".into());
    unread.verdict = Verdict::Incomplete;
    let failed = fleet(vec![unread], Vec::new(), &[]);
    assert!(
        !text(&failed).contains("top findings by rule"),
        "{}",
        text(&failed)
    );
    assert!(text(&failed).contains("timed out"), "{}", text(&failed));
}

#[test]
fn hostile_capture_values_render_inert() {
    use crate::markdown::inert::{BACKTICKS, HOSTILE, assert_inert};
    let mut report = big_fleet(3, 1, 0, 2, 1);
    report.hosts[1].failure = Some(HOSTILE.into());
    report.hosts[2].failure = Some(BACKTICKS.into());
    report.hosts[2].cluster = Some(HOSTILE.into());
    for f in &mut report.findings {
        f.message = HOSTILE.into();
    }
    let md = markdown(&report);
    assert!(md.contains("\\[x\\]\\(https\\://evil\\)"), "{md}");
    assert_inert(&md, &[HOSTILE, BACKTICKS]);
}

#[test]
fn a_failure_fills_the_terminal_it_is_shown_in() {
    let base = example("examples/azure-local-dcbx/baseline.json");
    let mut down = host("azl-node04", None, judge(&base, Some(&base)), 30_000);
    down.verdict = Verdict::Incomplete;
    let why = format!(
        "redfish https://bmc-azl-node04: {}",
        "connection refused; ".repeat(12)
    );
    down.failure = Some(why.clone());
    let report = fleet(vec![down], Vec::new(), &[]);
    let failed_line = |text: &str| -> usize {
        text.lines()
            .find(|l| l.starts_with("  azl-node04: "))
            .map(|l| l.chars().count())
            .unwrap_or_else(|| panic!("no failed host line:\n{text}"))
    };
    // Piped: 100 columns. A 160-column terminal: 160. Too narrow to name host and reason: 40.
    assert_eq!(failed_line(&text_in(&report, None)), 100);
    assert_eq!(failed_line(&text_in(&report, Some(160))), 160);
    assert_eq!(failed_line(&text_in(&report, Some(10))), 40);
    // A reason that fits is shown whole.
    let wide = text_in(&report, Some(400));
    assert!(wide.contains(why.trim_end()), "{wide}");
}
