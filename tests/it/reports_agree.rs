//! The same fleet result rendered in every format agrees on the verdict counts: one
//! `check --all` of a mixed lab writes all seven formats at once (`--report` repeated), and
//! each file is read back the way its consumer reads it (JUnit as XML, SARIF and JSON as JSON,
//! the Prometheus text line by line, the HTML rows and summary, the text and Markdown
//! headline). A `report merge` of the same hosts in shards renders the same counts.

use crate::common;

use std::collections::BTreeMap;
use std::path::Path;

use common::fleet::{FleetLab, Host, State, recorded};
use common::fleet_sim::FleetSim;

/// Hosts by verdict word (`PASS`, `WARN`, `BLOCK`, `INCOMPLETE`), and the total.
type Counts = BTreeMap<String, usize>;

/// healthy (2, one cluster), drifted (in that cluster), unreachable, no baseline.
fn mixed() -> FleetLab {
    FleetLab::new(
        &[
            Host::new("azl-node01", State::Recorded("baseline")).in_cluster("azl-a"),
            Host::new("azl-node02", State::Recorded("baseline")).in_cluster("azl-a"),
            Host::new("azl-node03", State::Recorded("post-update")).in_cluster("azl-a"),
            Host::new("azl-node04", State::Unreachable),
            Host::new("azl-node05", State::Recorded("baseline")),
        ],
        &["azl-node01", "azl-node02", "azl-node03", "azl-node04"],
    )
}

const FORMATS: [(&str, &str); 7] = [
    ("text", "report.txt"),
    ("json", "report.json"),
    ("markdown", "report.md"),
    ("junit", "junit.xml"),
    ("sarif", "driftgate.sarif"),
    ("prometheus", "driftgate.prom"),
    ("html", "report.html"),
];

fn report_args(dir: &Path) -> Vec<String> {
    FORMATS
        .iter()
        .flat_map(|(format, file)| {
            [
                "--report".to_owned(),
                format!("{format}={}", dir.join(file).display()),
            ]
        })
        .collect()
}

fn read(dir: &Path, file: &str) -> String {
    std::fs::read_to_string(dir.join(file)).unwrap_or_else(|e| panic!("{file}: {e}"))
}

fn tally<'a>(verdicts: impl IntoIterator<Item = &'a str>) -> Counts {
    let mut counts = Counts::new();
    let mut total = 0;
    for verdict in verdicts {
        *counts.entry(verdict.to_uppercase()).or_default() += 1;
        total += 1;
    }
    counts.insert("TOTAL".into(), total);
    counts
}

fn from_json(text: &str) -> Counts {
    let report: serde_json::Value = serde_json::from_str(text).expect("the JSON report parses");
    tally(
        report["hosts"]
            .as_array()
            .expect("hosts")
            .iter()
            .map(|h| h["verdict"].as_str().expect("a verdict")),
    )
}

fn counts_field(counts: &serde_json::Value) -> Counts {
    let mut out = Counts::new();
    for (word, key) in [
        ("PASS", "pass"),
        ("WARN", "warn"),
        ("BLOCK", "block"),
        ("INCOMPLETE", "incomplete"),
        ("TOTAL", "total"),
    ] {
        let n = counts[key]
            .as_u64()
            .unwrap_or_else(|| panic!("counts.{key}")) as usize;
        if n > 0 || word == "TOTAL" {
            out.insert(word.into(), n);
        }
    }
    out
}

fn from_headline(text: &str) -> Counts {
    // `FLEET INCOMPLETE — 5 hosts: 2 pass · 1 warn · 1 block · 1 incomplete` (Markdown escapes
    // its punctuation: read it as rendered).
    let text = text.replace('\\', "");
    let line = text
        .lines()
        .find(|l| l.contains(" hosts: "))
        .unwrap_or_else(|| panic!("no headline in\n{text}"));
    let (head, tail) = line.split_once(" hosts: ").expect("a headline");
    let total: usize = head
        .rsplit(' ')
        .next()
        .and_then(|n| n.parse().ok())
        .expect("a host total");
    let mut counts = Counts::new();
    counts.insert("TOTAL".into(), total);
    for part in tail.split(" · ") {
        // The last part may go on: `1 incomplete (3 shards merged)`.
        let mut words = part.split_whitespace();
        let n: usize = words.next().and_then(|n| n.parse().ok()).expect("a count");
        let word = words.next().expect("a verdict after the count");
        if n > 0 {
            counts.insert(word.to_uppercase(), n);
        }
    }
    counts
}

fn from_junit(text: &str) -> Counts {
    let doc = roxmltree::Document::parse(text).expect("the JUnit report is XML");
    let verdicts: Vec<String> = doc
        .descendants()
        .filter(|n| n.has_tag_name("testsuite"))
        .filter_map(|suite| {
            suite
                .descendants()
                .find(|p| p.has_tag_name("property") && p.attribute("name") == Some("verdict"))
                .and_then(|p| p.attribute("value"))
                .map(str::to_owned)
        })
        .collect();
    tally(verdicts.iter().map(String::as_str))
}

fn from_sarif(text: &str) -> (Counts, Counts) {
    let sarif: serde_json::Value = serde_json::from_str(text).expect("the SARIF report parses");
    let properties = &sarif["runs"][0]["properties"];
    let hosts = tally(
        properties["hosts"]
            .as_array()
            .expect("runs[0].properties.hosts")
            .iter()
            .map(|h| h["verdict"].as_str().expect("a verdict")),
    );
    (hosts, counts_field(&properties["counts"]))
}

/// The value of the sample `name{…label="value"…}`'s label `label`.
fn label<'a>(line: &'a str, label: &str) -> Option<&'a str> {
    let start = line.find(&format!("{label}=\""))? + label.len() + 2;
    let rest = &line[start..];
    Some(&rest[..rest.find('"')?])
}

fn from_prometheus(text: &str) -> (Counts, Counts) {
    let mut per_host = Vec::new();
    let mut totals = Counts::new();
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let value = line.rsplit(' ').next().expect("a value");
        if line.starts_with("driftgate_verdict{") && value == "1" {
            per_host.push(label(line, "verdict").expect("a verdict label").to_owned());
        }
        if line.starts_with("driftgate_hosts{") {
            let n: usize = value.parse().expect("a host count");
            let verdict = label(line, "verdict")
                .expect("a verdict label")
                .to_uppercase();
            if n > 0 {
                totals.insert(verdict, n);
            }
        }
    }
    let hosts = tally(per_host.iter().map(String::as_str));
    totals.insert("TOTAL".into(), hosts["TOTAL"]);
    (hosts, totals)
}

fn from_html(text: &str) -> (Counts, Counts) {
    let rows: Vec<&str> = text
        .match_indices("<tr ")
        .filter_map(|(at, _)| {
            let tag = &text[at..at + text[at..].find('>').expect("a closed tag")];
            tag.contains("data-host=")
                .then(|| label(tag, "data-verdict"))?
        })
        .collect();
    let hosts = tally(rows);
    let mut summary = Counts::new();
    for (at, _) in text.match_indices("data-count=\"") {
        let rest = &text[at + "data-count=\"".len()..];
        let verdict = &rest[..rest.find('"').expect("a closed attribute")];
        let body = &rest[rest.find('>').expect("a closed tag") + 1..];
        let n: String = body.chars().take_while(char::is_ascii_digit).collect();
        let n: usize = n
            .parse()
            .unwrap_or_else(|_| panic!("data-count={verdict}: {body:.40}"));
        if n > 0 {
            summary.insert(verdict.to_owned(), n);
        }
    }
    summary.insert("TOTAL".into(), hosts["TOTAL"]);
    (hosts, summary)
}

/// Every format's counts, by format, read from `dir`.
fn every_format(dir: &Path) -> BTreeMap<String, Counts> {
    let mut all = BTreeMap::new();
    all.insert("json hosts".into(), from_json(&read(dir, "report.json")));
    let json: serde_json::Value =
        serde_json::from_str(&read(dir, "report.json")).expect("the JSON report parses");
    all.insert("json counts".into(), counts_field(&json["counts"]));
    all.insert("text".into(), from_headline(&read(dir, "report.txt")));
    all.insert("markdown".into(), from_headline(&read(dir, "report.md")));
    all.insert("junit".into(), from_junit(&read(dir, "junit.xml")));
    let (hosts, counts) = from_sarif(&read(dir, "driftgate.sarif"));
    all.insert("sarif hosts".into(), hosts);
    all.insert("sarif counts".into(), counts);
    let (hosts, totals) = from_prometheus(&read(dir, "driftgate.prom"));
    all.insert("prometheus per host".into(), hosts);
    all.insert("prometheus totals".into(), totals);
    let (rows, summary) = from_html(&read(dir, "report.html"));
    all.insert("html rows".into(), rows);
    all.insert("html summary".into(), summary);
    all
}

fn assert_agree(all: &BTreeMap<String, Counts>, expected: &Counts) {
    let disagree: Vec<String> = all
        .iter()
        .filter(|(_, counts)| *counts != expected)
        .map(|(format, counts)| format!("{format}: {counts:?}"))
        .collect();
    assert!(
        disagree.is_empty(),
        "expected {expected:?}, but\n{}",
        disagree.join("\n")
    );
}

#[test]
fn every_format_of_one_fleet_result_agrees_on_the_verdict_counts() {
    let lab = mixed();
    let reports = lab.path("reports");
    std::fs::create_dir(&reports).unwrap();
    let args = report_args(&reports);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    lab.check(&args).expect(3);
    let all = every_format(&reports);
    let expected: Counts = [
        ("TOTAL", 5),
        ("PASS", 2),
        ("WARN", 1),
        ("BLOCK", 1),
        ("INCOMPLETE", 1),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v))
    .collect();
    // The lab's mix is what this test is about: if it changed, say so before comparing.
    assert_eq!(all["json hosts"], expected, "the lab's verdicts changed");
    assert_agree(&all, &expected);
}

#[test]
fn a_merge_of_shards_renders_the_same_counts_in_every_format() {
    let lab = mixed();
    let mut dirs = Vec::new();
    for k in 1..=3 {
        let out = lab.path(&format!("shard{k}"));
        let shard = format!("{k}/3");
        let ran = lab.check(&[
            "--shard",
            &shard,
            "--run-id",
            "agree",
            "--out-dir",
            out.to_str().unwrap(),
            "--quiet",
        ]);
        assert!(matches!(ran.code, 0 | 1 | 3), "{}", ran.stderr);
        dirs.push(out);
    }
    let whole = lab.path("whole");
    let merged = lab.path("merged");
    std::fs::create_dir(&whole).unwrap();
    std::fs::create_dir(&merged).unwrap();
    let args = report_args(&whole);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    lab.check(&args).expect(3);
    let args = report_args(&merged);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let dirs: Vec<&Path> = dirs.iter().map(|d| d.as_path()).collect();
    lab.merge(&dirs, &args).expect(3);
    let whole = every_format(&whole);
    let expected = whole["json hosts"].clone();
    assert_agree(&every_format(&merged), &expected);
}

/// The findings each format shows for `host`: JSON's report findings and counts, SARIF's
/// results, JUnit's failed and erred test cases, Prometheus' finding samples, the HTML row's
/// findings cell and section findings, Markdown's table row.
fn findings_of(dir: &Path, host: &str) -> BTreeMap<&'static str, String> {
    let mut seen = BTreeMap::new();
    let json: serde_json::Value = serde_json::from_str(&read(dir, "report.json")).unwrap();
    let entry = common::fleet::host(&json, host);
    seen.insert(
        "json",
        format!(
            "{} findings, counts {}",
            entry["report"]["findings"].as_array().map_or(0, Vec::len),
            entry["counts"]
        ),
    );
    let sarif: serde_json::Value = serde_json::from_str(&read(dir, "driftgate.sarif")).unwrap();
    let rules: Vec<&str> = sarif["runs"][0]["results"]
        .as_array()
        .expect("results")
        .iter()
        .filter(|r| r["properties"]["host"] == host)
        .map(|r| r["ruleId"].as_str().expect("a rule id"))
        .collect();
    seen.insert("sarif", rules.join(" "));
    let junit = read(dir, "junit.xml");
    let doc = roxmltree::Document::parse(&junit).unwrap();
    let suite = doc
        .descendants()
        .find(|n| {
            n.has_tag_name("testsuite")
                && n.attribute("name").is_some_and(|name| name.ends_with(host))
        })
        .unwrap_or_else(|| panic!("no suite of {host}"));
    let failing: Vec<String> = suite
        .children()
        .filter(|c| c.has_tag_name("testcase"))
        .filter_map(|case| {
            let bad = case
                .children()
                .find(|o| o.has_tag_name("failure") || o.has_tag_name("error"))?;
            Some(format!(
                "{} {}",
                case.attribute("name")?,
                bad.tag_name().name()
            ))
        })
        .collect();
    seen.insert("junit", failing.join(", "));
    let prom = read(dir, "driftgate.prom");
    let samples: Vec<&str> = prom
        .lines()
        .filter(|l| l.starts_with("driftgate_findings{") && label(l, "host") == Some(host))
        .filter(|l| !l.ends_with(" 0"))
        .collect();
    seen.insert("prometheus", samples.join("\n"));
    let html = read(dir, "report.html");
    let row = &html[html
        .find(&format!("<tr data-host=\"{host}\""))
        .expect("a row")..];
    let row = &row[..row.find("</tr>").expect("a closed row")];
    let cells: Vec<&str> = row.split("<td").collect();
    let section = html
        .match_indices("<section class=\"host\"")
        .map(|(at, _)| &html[at..])
        .find(|rest| rest[..rest.find('>').unwrap()].contains(&format!("data-host=\"{host}\"")))
        .expect("a section of the host");
    let section = &section[..section.find("</section>").expect("a closed section")];
    seen.insert(
        "html",
        format!(
            "cell {:?}, {} findings listed",
            cells
                .get(5)
                .map(|c| &c[c.find('>').unwrap() + 1..c.find("</td>").unwrap()]),
            section.matches("<li><span class=\"sev").count()
        ),
    );
    // Markdown escapes punctuation: read it as rendered. The row of the table of hosts not
    // passing, not of the one of failed captures (host and why only).
    let markdown = read(dir, "report.md").replace('\\', "");
    let line = markdown
        .lines()
        .find(|l| l.starts_with(&format!("| {host} |")) && l.matches('|').count() > 4)
        .unwrap_or_else(|| panic!("no row of {host} in\n{markdown}"));
    // The block, warn and info counts follow the verdict cell.
    let cells: Vec<&str> = line.split('|').map(str::trim).collect();
    let verdict = cells
        .iter()
        .position(|c| ["PASS", "WARN", "BLOCK", "INCOMPLETE"].contains(&c.trim_matches('*')))
        .unwrap_or(cells.len());
    seen.insert(
        "markdown",
        cells
            .iter()
            .skip(verdict + 1)
            .take(3)
            .copied()
            .collect::<Vec<_>>()
            .join(" "),
    );
    seen
}

/// A BMC that is down and one that never answers are not drifted: in every format each is
/// one incomplete result with no finding, beside a passing and a blocked host judged as ever.
#[test]
fn a_down_and_a_hanging_bmc_are_one_incomplete_result_and_no_finding_in_every_format() {
    let sim = FleetSim::start(
        &[&recorded("baseline").join("bmc")],
        2,
        &["--bmc-fault", "0:down", "--bmc-fault", "1:hang-all"],
    );
    let url = |i: usize| format!("http://{}", sim.address(i));
    let lab = FleetLab::new(
        &[
            Host::new("azl-node01", State::Recorded("baseline")),
            Host::new("azl-node02", State::Recorded("post-update")),
            Host::new("azl-node03", State::Bmc(url(0))),
            Host::new("azl-node04", State::Bmc(url(1))),
        ],
        &["azl-node01", "azl-node02", "azl-node03", "azl-node04"],
    );
    let reports = lab.path("reports");
    std::fs::create_dir(&reports).unwrap();
    let mut args = report_args(&reports);
    args.extend(["--host-timeout".to_owned(), "3".to_owned()]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    lab.check(&args).expect(3);
    let expected: Counts = [("TOTAL", 4), ("PASS", 1), ("BLOCK", 1), ("INCOMPLETE", 2)]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v))
        .collect();
    assert_agree(&every_format(&reports), &expected);
    let unread: BTreeMap<&str, String> = [
        (
            "json",
            "0 findings, counts {\"block\":0,\"info\":0,\"warn\":0}",
        ),
        ("sarif", "capture/incomplete"),
        ("junit", "capture error"),
        ("prometheus", ""),
        ("html", "cell Some(\"none\"), 0 findings listed"),
        ("markdown", "0 0 0"),
    ]
    .into_iter()
    .map(|(k, v)| (k, v.to_owned()))
    .collect();
    for host in ["azl-node03", "azl-node04"] {
        assert_eq!(findings_of(&reports, host), unread, "{host}");
    }
    // The drifted host is judged as ever.
    let drifted = findings_of(&reports, "azl-node02");
    assert!(drifted["sarif"].contains("dcbx-mode"), "{drifted:?}");
    assert!(drifted["junit"].contains("failure"), "{drifted:?}");
    // The text summary names each unread host once, with its reason (and among the slowest).
    let text = read(&reports, "report.txt");
    for host in ["azl-node03", "azl-node04"] {
        let lines = text
            .lines()
            .filter(|l| l.contains(host) && !l.starts_with("slowest"));
        assert_eq!(lines.count(), 1, "{text}");
    }
}
