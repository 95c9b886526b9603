//! The HTML report in a real headless browser: `check --all --report html=FILE` over a small
//! fleet lab whose store has history (a forced promote by a gate run changed a blocked
//! setting), one host whose BMC sends a `<script>` in a string. The page loads with no console
//! error, filters and sorts, is shown on a screenshot, shows the script as text and never
//! runs it; a page whose script was tampered with is refused by its own
//! Content-Security-Policy (the console check can fail). And the first screen of a nightly
//! fleet of simulated BMCs at 1400×900: every blocked and incomplete host by name, with why.

use crate::common;

use std::path::{Path, PathBuf};

use common::browser::{Browser, png_size};
use common::fleet::{self, FLEET, FleetLab, Host, State, recorded};
use common::fleet_sim::FleetSim;
use common::nightly;
use common::simulator::bmc;
use common::{copy_dir, driftgate};
use serde_json::{Value, json};

const EVIL: &str = "<script>window.__pwned=1</script><img src=x onerror=\"window.__pwned=2\">";
const RUN: &str = "CHG-2001";

/// A copy of the recorded baseline BMC whose NIC HII attribute `BootProtocol` is [`EVIL`].
fn evil_bmc(dir: &Path) -> PathBuf {
    let bmc = dir.join("evil-bmc");
    copy_dir(&recorded("baseline").join("bmc"), &bmc);
    let quoted = serde_json::to_string(EVIL).expect("a JSON string");
    let mut replaced = 0;
    for file in common::files_under(&bmc) {
        let text = std::fs::read_to_string(&file).expect("a mockup file");
        if text.contains("\"BootProtocol\": \"NONE\"") {
            let text = text.replace(
                "\"BootProtocol\": \"NONE\"",
                &format!("\"BootProtocol\": {quoted}"),
            );
            std::fs::write(&file, text).expect("the copy is writable");
            replaced += 1;
        }
    }
    assert!(
        replaced > 0,
        "no BootProtocol attribute in the recorded BMC"
    );
    bmc
}

/// Promotes seed 1's post-update state as azl-node01's baseline, as gate run [`RUN`] would
/// (forced: it blocks), so the store's history has a blocked setting changing.
fn promote_post_update(lab: &FleetLab) {
    let file = lab.path("azl-node01.post.json");
    let state = recorded("post-update");
    driftgate()
        .args(["capture", "--host", "azl-node01", "--source"])
        .arg(format!("redfish=mockup:{}", state.join("bmc").display()))
        .arg("--source")
        .arg(format!("windows=dir:{}", state.join("windows").display()))
        .arg("--out")
        .arg(&file)
        .assert()
        .code(0);
    lab.command()
        .args(["baseline", "promote", "--fleet", FLEET, "--force"])
        .args(["--reason", "lab: keep the updated state"])
        .args(["--message", &format!("gate post {RUN}\n\nRun: {RUN}")])
        .arg(&file)
        .assert()
        .code(0);
}

/// The lab, its report file and the report's text.
fn report() -> (FleetLab, PathBuf, String) {
    let names = ["azl-node01", "azl-node02", "azl-node03", "azl-evil"];
    let lab = FleetLab::new(&[], &names);
    let bmc = evil_bmc(lab.dir.path());
    lab.write_inventory(&[
        Host::new("azl-node01", State::Recorded("baseline")).in_cluster("azl"),
        Host::new("azl-node02", State::Recorded("baseline")).in_cluster("azl"),
        Host::new("azl-node03", State::Unreachable).in_cluster("azl"),
        Host::new("azl-evil", State::Bmc(format!("mockup:{}", bmc.display()))),
    ]);
    promote_post_update(&lab);
    let file = lab.path("report.html");
    let ran = lab.check(&["--report", &format!("html={}", file.display())]);
    assert_eq!(ran.code, 3, "an unreachable host: {}", ran.stderr);
    let html = std::fs::read_to_string(&file).expect("the report was written");
    (lab, file, html)
}

fn url(file: &Path) -> String {
    format!("file://{}", file.display())
}

/// The console's errors and warnings.
fn problems(browser: &Browser) -> Vec<Value> {
    browser
        .console()
        .into_iter()
        .filter(|e| e["level"] != "INFO" && e["level"] != "DEBUG")
        .collect()
}

/// The hosts of the visible rows, in table order.
fn visible(browser: &Browser) -> Vec<String> {
    let hosts = browser.execute(
        "return Array.from(document.querySelectorAll('#hosts tbody tr'))\
           .filter(r => !r.hidden && r.offsetParent !== null)\
           .map(r => r.getAttribute('data-host'));",
        json!([]),
    );
    serde_json::from_value(hosts).expect("host names")
}

#[test]
fn the_fleet_report_loads_filters_sorts_and_never_runs_a_bmc_string() {
    let (_lab, file, html) = report();
    // What the static page says.
    for (host, verdict) in [
        ("azl-evil", "WARN"),
        ("azl-node01", "BLOCK"),
        ("azl-node02", "PASS"),
        ("azl-node03", "INCOMPLETE"),
    ] {
        let row = format!("<tr data-host=\"{host}\" data-verdict=\"");
        let at = html
            .find(&row)
            .unwrap_or_else(|| panic!("no row of {host}"));
        let verdict_of = &html[at + row.len()..];
        let found = &verdict_of[..verdict_of.find('"').expect("a closing quote")];
        assert!(
            found == verdict || (host == "azl-evil" && found == "BLOCK"),
            "{host}: {found}"
        );
    }
    // azl-node01's timeline: the gate run's promote, a blocked setting from → to, the
    // firmware that changed with it, the commit that created the baseline.
    let section = &html[html
        .find("<section class=\"host\" id=\"host-azl-node01\" data-host=\"azl-node01\"")
        .expect("azl-node01's section")..];
    let timeline = &section[section.find("class=\"timeline\"").expect("a timeline")..];
    let timeline = &timeline[..timeline.find("</ol>").expect("its end")];
    assert!(timeline.contains(&format!("gate run {RUN}")), "{timeline}");
    assert!(
        timeline.contains("baseline: promote azl-node01"),
        "{timeline}"
    );
    assert!(
        timeline.contains(
            "dcbx_mode</code> <span class=\"change\">&quot;ieee&quot; → &quot;disabled&quot;"
        ),
        "{timeline}"
    );
    assert!(
        timeline.contains("firmware changed in the same commit"),
        "{timeline}"
    );
    assert!(
        timeline.contains("&quot;229.0.166.0&quot; → &quot;229.1.123.0&quot;"),
        "{timeline}"
    );
    assert!(timeline.contains("created the baseline"), "{timeline}");
    assert!(
        !html.contains("<script>window"),
        "the BMC string is escaped"
    );

    let browser = Browser::start();
    browser.goto(&url(&file));
    assert_eq!(problems(&browser), Vec::<Value>::new(), "console on load");
    assert_eq!(
        browser.execute("return document.title;", json!([])),
        json!("INCOMPLETE driftgate fleet check")
    );
    // Problems first: blocked, incomplete, warned, then passing hosts (azl-evil's string
    // blocks or warns, as the policy judges it).
    let first = visible(&browser);
    let evil_blocks = html.contains("<tr data-host=\"azl-evil\" data-verdict=\"BLOCK\"");
    let problems_first = if evil_blocks {
        ["azl-evil", "azl-node01", "azl-node03", "azl-node02"]
    } else {
        ["azl-node01", "azl-node03", "azl-evil", "azl-node02"]
    };
    assert_eq!(first, problems_first);

    // The capture value is text on the page and never ran.
    // Values are shown in their JSON form (quoted), as every format shows them. The host's
    // section is scrolled to: a section off screen is not laid out (nor in `innerText`).
    let quoted = serde_json::to_string(EVIL).expect("a JSON string");
    let shown = browser.execute(
        "var section = document.getElementById('host-azl-evil');\
         section.scrollIntoView();\
         return section.innerText.includes(arguments[0]);",
        json!([quoted]),
    );
    assert_eq!(shown, json!(true), "the BMC string is shown as text");
    let pwned = browser.execute("return typeof window.__pwned;", json!([]));
    assert_eq!(pwned, json!("undefined"));
    let images = browser.execute("return document.images.length;", json!([]));
    assert_eq!(images, json!(0));

    // Filter by text, then by verdict (the select, then the summary's BLOCK button).
    let text = browser.find("#filter-text");
    browser.type_into(&text, "node02");
    assert_eq!(visible(&browser), ["azl-node02"]);
    let shown = browser.execute(
        "return document.getElementById('shown').textContent;",
        json!([]),
    );
    assert_eq!(shown, json!("1 of 4 hosts"));
    let sections = browser.execute(
        "return Array.from(document.querySelectorAll('section.host')).filter(s => !s.hidden).map(s => s.dataset.host);",
        json!([]),
    );
    assert!(
        sections
            .as_array()
            .expect("a list")
            .iter()
            .all(|h| h == "azl-node02"),
        "{sections}"
    );
    browser.clear(&text);
    browser.type_into(&text, "AZL-NODE0");
    assert_eq!(
        visible(&browser),
        ["azl-node01", "azl-node03", "azl-node02"],
        "blocked, incomplete, then passing"
    );
    // Clearing fires no input event; a space does, and filters nothing.
    browser.clear(&text);
    browser.type_into(&text, " ");
    browser.click(&browser.find("#filter-verdict option[value=\"INCOMPLETE\"]"));
    assert_eq!(visible(&browser), ["azl-node03"]);
    browser.click(&browser.find("button[data-filter=\"PASS\"]"));
    assert_eq!(visible(&browser), ["azl-node02"]);
    browser.click(&browser.find("button[data-filter=\"\"]"));
    assert_eq!(visible(&browser).len(), 4);
    let count = browser.execute(
        "return document.querySelector('[data-count=\"INCOMPLETE\"]').textContent;",
        json!([]),
    );
    assert_eq!(count, json!("1"));

    // Sort: host descending after two clicks, verdict, capture time.
    let host_header = browser.find("th button[data-column=\"0\"]");
    browser.click(&host_header);
    assert_eq!(
        visible(&browser),
        ["azl-evil", "azl-node01", "azl-node02", "azl-node03"]
    );
    browser.click(&host_header);
    assert_eq!(
        visible(&browser),
        ["azl-node03", "azl-node02", "azl-node01", "azl-evil"]
    );
    let sort = browser.execute(
        "return document.querySelector('th button[data-column=\"0\"]').parentElement.getAttribute('aria-sort');",
        json!([]),
    );
    assert_eq!(sort, json!("descending"));
    let verdict_header = browser.find("th button[data-column=\"3\"]");
    browser.click(&verdict_header);
    browser.click(&verdict_header);
    assert_eq!(
        visible(&browser),
        problems_first,
        "descending by verdict is the page's own order"
    );
    // Filtering still applies to the sorted rows.
    browser.type_into(&text, "evil");
    assert_eq!(visible(&browser), ["azl-evil"]);
    browser.clear(&text);
    browser.type_into(&text, " ");

    // A screenshot of the page as it is.
    let png = browser.screenshot();
    let (width, height) = png_size(&png).expect("a PNG");
    assert!(
        (800..=2600).contains(&width) && (500..=2000).contains(&height),
        "{width}x{height}"
    );
    assert!(
        png.len() > 20_000 && png.len() < 10_000_000,
        "{} bytes",
        png.len()
    );
    std::fs::write(file.with_extension("png"), &png).expect("the screenshot is writable");

    assert_eq!(problems(&browser), Vec::<Value>::new(), "console after use");
    assert_eq!(
        browser.execute("return typeof window.__pwned;", json!([])),
        json!("undefined")
    );
}

#[test]
fn a_tampered_script_is_refused_by_the_page_policy_and_the_console_says_so() {
    let (lab, _file, html) = report();
    let tampered = html.replacen("\"use strict\";", "\"use strict\"; window.__pwned = 3;", 1);
    assert_ne!(tampered, html, "the page has its script");
    let broken = lab.path("tampered.html");
    std::fs::write(&broken, tampered).expect("the copy is writable");
    let browser = Browser::start();
    browser.goto(&url(&broken));
    let problems = problems(&browser);
    assert!(
        problems.iter().any(|e| e["message"]
            .as_str()
            .is_some_and(|m| m.contains("Content Security Policy"))),
        "{problems:?}"
    );
    assert_eq!(
        browser.execute("return typeof window.__pwned;", json!([])),
        json!("undefined")
    );
    // Without its script the filter does nothing: the working page's test above is real.
    browser.type_into(&browser.find("#filter-text"), "node02");
    assert_eq!(visible(&browser).len(), 4);
}

/// Simulated hosts of the nightly fleet whose first screen is looked at.
const HOSTS: usize = 30;
/// Served the recorded post-update state at night (their DCBX mode reset): blocked. Their
/// names sort late, after 24 passing hosts.
const BLOCKED: [usize; 2] = [24, 27];
/// Nothing listens at night: incomplete.
const DOWN: [usize; 2] = [26, 29];
/// Joined the fleet after the bootstrap (no baseline): warned.
const NEW: usize = 28;

/// The nightly fleet's HTML, Markdown and JSON reports of `check --all` over [`HOSTS`]
/// simulated BMCs, bootstrapped as an operator does, then served with [`BLOCKED`], [`DOWN`] and
/// [`NEW`] hosts. Returns the lab (it holds the files) and the three files.
fn nightly_reports() -> (FleetLab, [PathBuf; 3]) {
    let lab = FleetLab::new(&[], &[]);
    let baseline = bmc("baseline");
    let boot = lab.path("bootstrap");
    {
        let sim = FleetSim::start(&[&baseline], HOSTS, &["--auth", "session"]);
        let out = boot.to_str().expect("a UTF-8 path");
        nightly::check(&lab, &sim.inventory, &["--bootstrap", "--out-dir", out]).expect(0);
    }
    let mut snapshots: Vec<PathBuf> = (0..HOSTS)
        .filter(|i| *i != NEW)
        .map(|i| boot.join(format!("snapshots/{}.json", FleetSim::host(i))))
        .collect();
    snapshots.sort();
    lab.command()
        .args(["baseline", "promote", "--fleet", "sim"])
        .args(&snapshots)
        .assert()
        .code(0);
    let post = bmc("post-update");
    let list = |indices: &[usize]| {
        let indices: Vec<String> = indices.iter().map(ToString::to_string).collect();
        indices.join(",")
    };
    let state = format!("{}={}", list(&BLOCKED), post.display());
    let down = format!("{}:down", list(&DOWN));
    let sim = FleetSim::start(
        &[&baseline],
        HOSTS,
        &[
            "--auth",
            "session",
            "--bmc-state",
            &state,
            "--bmc-fault",
            &down,
        ],
    );
    let files = ["fleet.html", "fleet.md", "fleet.json"].map(|name| lab.path(name));
    let [html, md, json] = files.each_ref().map(|f| f.display().to_string());
    nightly::check(
        &lab,
        &sim.inventory,
        &[
            "--report",
            &format!("html={html}"),
            "--report",
            &format!("markdown={md}"),
            "--report",
            &format!("json={json}"),
        ],
    )
    .expect(3);
    (lab, files)
}

#[test]
fn the_first_screen_of_a_nightly_fleet_shows_every_blocked_and_incomplete_host() {
    let _alone = nightly::one_at_a_time();
    let (_lab, [html, md, json]) = nightly_reports();
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(&json).expect("the JSON report"))
            .expect("JSON");
    let names =
        |indices: &[usize]| -> Vec<String> { indices.iter().map(|i| FleetSim::host(*i)).collect() };
    let (blocked, down) = (names(&BLOCKED), names(&DOWN));
    let troubled: Vec<String> = blocked.iter().chain(&down).cloned().collect();
    for (host, verdict) in blocked
        .iter()
        .map(|h| (h, "block"))
        .chain(down.iter().map(|h| (h, "incomplete")))
        .chain([(&FleetSim::host(NEW), "warn")])
    {
        assert_eq!(fleet::host(&report, host)["verdict"], verdict, "{host}");
    }

    // An operator opens the page at 1400×900.
    let browser = Browser::start_sized(1400, 900);
    browser.goto(&url(&html));
    assert_eq!(problems(&browser), Vec::<Value>::new(), "console on load");
    assert_eq!(
        browser.execute("return [window.innerWidth, window.innerHeight];", json!([])),
        json!([1400, 900])
    );
    // Blocked, incomplete, warned, then passing hosts, each by name.
    let order = visible(&browser);
    let mut expected = troubled.clone();
    expected.push(FleetSim::host(NEW));
    assert_eq!(order[..5], expected[..], "{order:?}");
    assert_eq!(order.len(), HOSTS);
    // Each problem host's name is on the first screen, and is what is seen there (nothing
    // covers it).
    let seen = browser.execute(
        "return arguments[0].map(function (host) {\
           var cell = document.querySelector('#hosts tbody tr[data-host=\"' + host + '\"]').cells[0];\
           var r = cell.getBoundingClientRect();\
           var at = document.elementFromPoint(r.left + 4, r.top + r.height / 2);\
           return {host: host, top: r.top, bottom: r.bottom, text: cell.textContent, seen: cell.contains(at)};\
         });",
        json!([troubled]),
    );
    for place in seen.as_array().expect("a list") {
        let host = place["host"].as_str().expect("a host");
        let (top, bottom) = (
            place["top"].as_f64().unwrap(),
            place["bottom"].as_f64().unwrap(),
        );
        assert!(
            top >= 0.0 && bottom <= 900.0,
            "{host} is not on the first screen: {place}"
        );
        assert_eq!(place["text"], host, "{place}");
        assert_eq!(place["seen"], true, "{host} is covered: {place}");
    }
    // The why column: a blocked host's first blocking rule and its port; a down host's failure
    // as the JSON report words it, whole in the title.
    let why = |host: &str| {
        browser.execute(
            "var cell = document.querySelector('#hosts tbody tr[data-host=\"' + arguments[0] + '\"] td.reason');\
             return [cell.textContent, cell.title];",
            json!([host]),
        )
    };
    for host in &blocked {
        let cell = why(host);
        assert!(
            cell[0].as_str().is_some_and(|t| t.contains(" on nic/")),
            "{host}: {cell}"
        );
    }
    for host in &down {
        let failure = &fleet::host(&report, host)["failure"];
        assert!(failure.is_string(), "{host}: {failure}");
        assert_eq!(why(host)[1], *failure, "{host}");
    }
    assert_eq!(
        why(&FleetSim::host(0)),
        json!(["", ""]),
        "a passing host has no why"
    );
    // A host's link goes to its section, by its name.
    let last = &down[down.len() - 1];
    browser.click(&browser.find(&format!("#hosts a[href=\"#host-{last}\"]")));
    let landed = browser.execute(
        "return [location.hash, document.getElementById(location.hash.slice(1)).getBoundingClientRect().top];",
        json!([]),
    );
    assert_eq!(landed[0], format!("#host-{last}"));
    let top = landed[1].as_f64().expect("a position");
    // Scrolled to: its top at the top of the screen (to a fraction of a pixel).
    assert!(
        (-1.0..900.0).contains(&top),
        "the section is on screen: {top}"
    );
    let png = browser.screenshot();
    assert_eq!(png_size(&png), Some((1400, 900)));
    assert_eq!(problems(&browser), Vec::<Value>::new(), "console after use");

    // The Markdown's table of hosts not passing: the same order, with why.
    let md = std::fs::read_to_string(&md).expect("the Markdown report");
    let table = &md[md.find("### Hosts not passing").expect("the hosts table")..];
    let rows: Vec<&str> = table.lines().filter(|l| l.starts_with("| sim-")).collect();
    let hosts: Vec<&str> = rows
        .iter()
        .map(|r| r[2..].split(" | ").next().expect("a host cell"))
        .collect();
    assert_eq!(hosts, expected, "{table}");
    for row in &rows[..BLOCKED.len()] {
        assert!(row.contains(" on nic/"), "{row}");
    }
    assert!(
        rows[rows.len() - 1].ends_with("| fleet/missing-baseline |"),
        "{table}"
    );
}
