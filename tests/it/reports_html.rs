//! The HTML report in a real headless browser: `check --all --report html=FILE` over a small
//! fleet lab whose store has history (a forced promote by a gate run changed a blocked
//! setting), one host whose BMC sends a `<script>` in a string. The page loads with no console
//! error, filters and sorts, is shown on a screenshot, shows the script as text and never
//! runs it; a page whose script was tampered with is refused by its own
//! Content-Security-Policy (the console check can fail).

use crate::common;

use std::path::{Path, PathBuf};

use common::browser::{Browser, png_size};
use common::fleet::{FLEET, FleetLab, Host, State, recorded};
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
        .find("<section class=\"host\" id=\"host-1\" data-host=\"azl-node01\"")
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
    assert_eq!(
        visible(&browser),
        ["azl-evil", "azl-node01", "azl-node02", "azl-node03"]
    );

    // The capture value is text on the page and never ran.
    // Values are shown in their JSON form (quoted), as every format shows them.
    let quoted = serde_json::to_string(EVIL).expect("a JSON string");
    let shown = browser.execute(
        "return document.body.innerText.includes(arguments[0]);",
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
        ["azl-node01", "azl-node02", "azl-node03"]
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
    let order = visible(&browser);
    assert_eq!(
        order[0], "azl-node03",
        "INCOMPLETE first descending: {order:?}"
    );
    assert_eq!(order[3], "azl-node02", "PASS last: {order:?}");
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
