use driftgate_compare::{JudgeOptions, Policy, Report};
use driftgate_snapshot::{
    FactPath, FactValue, Facts, HostName, Snapshot, SourceRecord, SourceStatus, VerifiedSnapshot,
};

fn verified(facts: &[(&str, FactValue)]) -> VerifiedSnapshot {
    let facts: Facts = facts
        .iter()
        .map(|(p, v)| (FactPath::new(*p).unwrap(), v.clone()))
        .collect();
    let snapshot = Snapshot {
        host: HostName::new("h1").unwrap(),
        captured_at: "2026-11-30T02:00:00Z".parse().unwrap(),
        tool: "driftgate test".into(),
        sources: vec![SourceRecord {
            name: "linux".into(),
            target: "local:".into(),
            status: SourceStatus::Complete,
            error: None,
        }],
        facts,
    };
    VerifiedSnapshot::parse(&snapshot.to_canonical_json(), "h1.json").unwrap()
}

fn report_with_long_value() -> Report {
    let old = verified(&[(
        "bios/BootOrder",
        "NIC.Slot.3-1\nHardDisk.List.1-1\nOptical.SATAEmbedded.J-1\n".into(),
    )]);
    let new = verified(&[(
        "bios/BootOrder",
        "HardDisk.List.1-1\nNIC.Slot.3-1\nOptical.SATAEmbedded.J-1\n".into(),
    )]);
    driftgate_compare::judge(
        &new,
        Some(&old),
        &Policy::builtin(),
        &JudgeOptions::default(),
    )
}

fn plain(bytes: Vec<u8>) -> String {
    anstream::adapter::strip_str(&String::from_utf8(bytes).unwrap()).to_string()
}

#[test]
fn text_shows_multi_line_values_as_a_unified_diff() {
    let mut out = Vec::new();
    super::text::render(&report_with_long_value(), &[], &mut out).unwrap();
    let text = plain(out);
    assert!(
        text.starts_with("WARN h1: 1 warning (against baseline h1.json)\n"),
        "{text}"
    );
    assert!(
        text.contains("      --- baseline\n      +++ snapshot\n"),
        "{text}"
    );
    assert!(text.contains("      -HardDisk.List.1-1\n"), "{text}");
    assert!(text.contains("      +HardDisk.List.1-1\n"), "{text}");
}

#[test]
fn markdown_puts_multi_line_values_in_a_diff_block_and_escapes_cells() {
    let mut out = Vec::new();
    super::markdown::render(&report_with_long_value(), &[], &mut out).unwrap();
    let md = String::from_utf8(out).unwrap();
    assert!(md.contains("(multi-line, see below)"), "{md}");
    assert!(md.contains("```diff\n--- baseline\n+++ snapshot\n"), "{md}");

    let old = verified(&[("bios/Name", "a|b".into())]);
    let new = verified(&[("bios/Name", "a|c".into())]);
    let report = driftgate_compare::judge(
        &new,
        Some(&old),
        &Policy::builtin(),
        &JudgeOptions::default(),
    );
    let mut out = Vec::new();
    super::markdown::render(&report, &[], &mut out).unwrap();
    let md = String::from_utf8(out).unwrap();
    let row = md.lines().find(|l| l.starts_with("| warn")).unwrap();
    assert_eq!(
        row.matches(" | ").count(),
        5,
        "a value's `|` must not add a column: {row}"
    );
}

#[test]
fn a_clean_report_says_so_in_every_format() {
    let snap = verified(&[("bios/A", "x".into())]);
    let report = driftgate_compare::judge(
        &snap,
        Some(&snap),
        &Policy::builtin(),
        &JudgeOptions::default(),
    );
    let mut text = Vec::new();
    super::text::render(&report, &[], &mut text).unwrap();
    assert!(plain(text).starts_with("PASS h1: no findings (against baseline h1.json)"));
    let mut md = Vec::new();
    super::markdown::render(&report, &[], &mut md).unwrap();
    assert!(String::from_utf8(md).unwrap().contains("No findings."));
    let mut json = Vec::new();
    super::json::render(&report, &mut json).unwrap();
    let value: serde_json::Value = serde_json::from_slice(&json).unwrap();
    assert_eq!(value["verdict"], "pass");
}

fn report_with_firmware_and_staged_values() -> Report {
    let port = "nic/00:0a:f7:12:34:56";
    let old = verified(&[
        (&format!("{port}/bmc/dcbx_mode"), "ieee".into()),
        (&format!("{port}/bmc/firmware/version"), "22.31.1014".into()),
        (
            &format!("{port}/bmc/flow_control/configured"),
            "rx_tx".into(),
        ),
        ("firmware/bios/version", "2.19.1".into()),
        ("bios/pending/SysProfile", "PerfOptimized".into()),
    ]);
    let new = verified(&[
        (&format!("{port}/bmc/dcbx_mode"), "disabled".into()),
        (&format!("{port}/bmc/firmware/version"), "22.36.1010".into()),
        (
            &format!("{port}/bmc/flow_control/configured"),
            "rx_tx".into(),
        ),
        (
            &format!("{port}/bmc/pending/flow_control/configured"),
            "none".into(),
        ),
        ("firmware/bios/version", "2.20.0".into()),
        ("bios/pending/SysProfile", "PerfPerWattOptimizedOs".into()),
    ]);
    driftgate_compare::judge(
        &new,
        Some(&old),
        &Policy::builtin(),
        &JudgeOptions::default(),
    )
}

#[test]
fn text_and_markdown_name_the_ports_firmware_first_and_staged_values() {
    let report = report_with_firmware_and_staged_values();
    let expected = "NIC firmware of this port: \"22.31.1014\" → \"22.36.1010\" (nic/00:0a:f7:12:34:56/bmc/firmware/version); 1 other firmware change on this host (listed above)";
    let mut out = Vec::new();
    super::text::render(&report, &[], &mut out).unwrap();
    let text = plain(out);
    assert!(text.contains(&format!("    {expected}\n")), "{text}");
    assert!(
        text.contains("new staged value \"none\": takes effect at the next reboot"),
        "{text}"
    );
    assert!(
        text.contains(
            "\"PerfOptimized\" → \"PerfPerWattOptimizedOs\" (staged: takes effect at the next reboot)"
        ),
        "{text}"
    );
    let mut md = Vec::new();
    super::markdown::render(&report, &[], &mut md).unwrap();
    // Escapes aside: the escaping has tests of its own.
    let md = String::from_utf8(md).unwrap().replace('\\', "");
    let row = md
        .lines()
        .find(|l| l.contains("`dcbx-mode`"))
        .unwrap_or_else(|| panic!("{md}"));
    assert!(row.contains(expected), "{row}");
    assert!(md.contains("takes effect at the next reboot"), "{md}");
    let mut json = Vec::new();
    super::json::render(&report, &mut json).unwrap();
    let value: serde_json::Value = serde_json::from_slice(&json).unwrap();
    let dcbx = value["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["id"] == "dcbx-mode")
        .unwrap();
    assert_eq!(dcbx["firmware"][0]["this_port"], true);
    assert_eq!(dcbx["firmware"][1]["path"], "firmware/bios/version");
}

#[test]
fn beside_a_finding_one_change_reported_twice_is_named_once_and_the_rest_counted() {
    let mut report = report_with_firmware_and_staged_values();
    let finding = report
        .findings
        .iter_mut()
        .find(|f| !f.firmware.is_empty())
        .expect("a finding with firmware");
    let own = finding
        .firmware
        .iter()
        .find(|f| f.this_port)
        .expect("the port's firmware change")
        .clone();
    let other = finding
        .firmware
        .iter()
        .find(|f| !f.this_port)
        .expect("another firmware change")
        .clone();
    // The inventory entry of the port's adapter says the same as its controller.
    let mut inventory = own.clone();
    inventory.path = driftgate_snapshot::FactPath::new("firmware/nic.slot.3-1-1/version").unwrap();
    finding.firmware.insert(1, inventory);
    for n in 0..3 {
        let mut more = other.clone();
        more.path =
            driftgate_snapshot::FactPath::new(format!("firmware/cpld-{n}/version")).unwrap();
        finding.firmware.push(more);
    }
    let line = crate::wording::firmware_line(finding).unwrap();
    assert_eq!(
        line,
        "NIC firmware of this port: \"22.31.1014\" → \"22.36.1010\" \
         (nic/00:0a:f7:12:34:56/bmc/firmware/version, firmware/nic.slot.3-1-1/version); \
         4 other firmware changes on this host (listed above)"
    );
}

#[test]
fn a_ports_firmware_unchanged_is_said_only_when_known_else_why_it_is_unknown() {
    // Three ports whose DCBX changed while the BIOS firmware did: one whose BMC reports its
    // firmware (unchanged), one whose BMC reports none, one only an OS reports.
    let (known, unlinked, os_only) = (
        "nic/00:0a:f7:12:34:56",
        "nic/00:0a:f7:12:34:57",
        "nic/00:0a:f7:12:34:58",
    );
    let facts = |dcbx: &str, bios: &str| {
        verified(&[
            (&format!("{known}/bmc/dcbx_mode"), dcbx.into()),
            (
                &format!("{known}/bmc/firmware/version"),
                "22.31.1014".into(),
            ),
            (&format!("{unlinked}/bmc/dcbx_mode"), dcbx.into()),
            (&format!("{unlinked}/bmc/adapter"), "NIC.Slot.3".into()),
            (&format!("{os_only}/os/dcbx_support/current"), dcbx.into()),
            ("firmware/bios/version", bios.into()),
        ])
    };
    let report = driftgate_compare::judge(
        &facts("disabled", "2.20.0"),
        Some(&facts("ieee", "2.19.1")),
        &Policy::builtin(),
        &JudgeOptions::default(),
    );
    let line = |port: &str| {
        let finding = report
            .findings
            .iter()
            .find(|f| f.path.as_str().starts_with(port))
            .unwrap_or_else(|| panic!("a finding on {port}"));
        crate::wording::firmware_line(finding).unwrap()
    };
    assert_eq!(
        line(known),
        "no firmware change of this port; 1 firmware change on this host (listed above)"
    );
    assert_eq!(
        line(unlinked),
        "the BMC does not link this port to a firmware inventory entry; \
         1 firmware change on this host (listed above)"
    );
    assert_eq!(
        line(os_only),
        "no source names this port's firmware; 1 firmware change on this host (listed above)"
    );
    let stories =
        driftgate_compare::stories(&report, &facts("disabled", "2.20.0").snapshot().facts);
    let told = super::port_summary::tell(&report, &stories);
    let of = |port: &str| {
        told.iter()
            .find(|t| t.story.subject == port)
            .and_then(|t| t.firmware.clone())
    };
    assert_eq!(
        of(unlinked).as_deref(),
        Some(
            "the BMC does not link this port to a firmware inventory entry; 1 firmware change on this host"
        )
    );
    assert_eq!(
        of(known).as_deref(),
        Some("none of this port's; 1 firmware change on this host")
    );
}

#[test]
fn a_ports_firmware_is_named_with_its_first_finding_only() {
    let mut report = report_with_firmware_and_staged_values();
    let first = report
        .findings
        .iter()
        .position(|f| !f.firmware.is_empty())
        .expect("a finding with firmware");
    let mut again = report.findings[first].clone();
    again.id = "bmc-npar".to_owned();
    again.severity = driftgate_compare::Severity::Warn;
    report.findings.push(again);
    let with_firmware = report
        .findings
        .iter()
        .filter(|f| !f.firmware.is_empty())
        .count();
    let mut out = Vec::new();
    super::text::render(&report, &[], &mut out).unwrap();
    let text = plain(out);
    let ports: std::collections::HashSet<&str> = report
        .findings
        .iter()
        .filter(|f| !f.firmware.is_empty())
        .filter_map(crate::wording::port_of)
        .collect();
    assert!(
        with_firmware > ports.len(),
        "the test needs a port with two findings"
    );
    assert_eq!(
        text.matches("NIC firmware of this port").count(),
        ports.len(),
        "{text}"
    );
    let mut out = Vec::new();
    super::markdown::render(&report, &[], &mut out).unwrap();
    let markdown = String::from_utf8(out).unwrap();
    assert_eq!(
        markdown.matches("NIC firmware of this port").count(),
        ports.len(),
        "{markdown}"
    );
}

#[test]
fn one_render_entry_writes_each_format() {
    let report = report_with_firmware_and_staged_values();
    let stories = driftgate_compare::stories(&report, &driftgate_snapshot::Facts::new());
    assert!(!stories.is_empty());
    type Render<'r> = Box<dyn Fn(&mut dyn std::io::Write) -> std::io::Result<()> + 'r>;
    let direct: [(crate::format::Format, Render<'_>); 3] = [
        (
            super::Format::Text,
            Box::new(|out| super::text::render(&report, &stories, out)),
        ),
        (
            super::Format::Json,
            Box::new(|out| super::json::render(&report, out)),
        ),
        (
            super::Format::Markdown,
            Box::new(|out| super::markdown::render(&report, &stories, out)),
        ),
    ];
    for (format, render) in direct {
        let (mut one, mut other) = (Vec::new(), Vec::new());
        let document = super::Document::Check(&report, &stories);
        super::render(document, format, &super::Extras::default(), &mut one).unwrap();
        render(&mut other).unwrap();
        assert!(!one.is_empty());
        assert_eq!(one, other, "{format:?}");
    }
}

macro_rules! snapshot {
    ($name:expr, $value:expr) => {
        insta::with_settings!({ snapshot_path => "snapshots", prepend_module_to_snapshot => false }, {
            insta::assert_snapshot!($name, $value);
        })
    };
}

/// `check` of seed 1: the shipped example's post-update state against its baseline (two way),
/// and its stories.
fn seed_one() -> (Report, Vec<driftgate_compare::Story>) {
    use driftgate_compare::testing::example;
    let post = example("post-update.json");
    let mut report = driftgate_compare::judge(
        &post,
        Some(&example("baseline.json")),
        &Policy::builtin(),
        &JudgeOptions::default(),
    );
    report.tool = "<tool>".into();
    let stories = driftgate_compare::stories(&report, &post.snapshot().facts);
    (report, stories)
}

#[test]
fn a_check_of_seed_one_tells_one_story_per_port_before_its_findings() {
    let (report, stories) = seed_one();
    assert_eq!(report.counts.block, 28);
    let mut out = Vec::new();
    super::text::render(&report, &stories, &mut out).unwrap();
    let text = plain(out);
    let told = &text[text.find("STORIES (2)").expect("the stories")..];
    let details = told
        .find("\nBLOCK (28)\n")
        .expect("the findings after the stories");
    let told = &told[..details];
    // A function is keyed by its MAC, the port's own here.
    for (port, function) in [("1", "56"), ("2", "57")] {
        let label = format!(
            "port \"SLOT 3 Port {port}\" (00:0a:f7:12:34:5{}) on NIC.Slot.3",
            5 + port.parse::<u8>().unwrap()
        );
        let at = told
            .find(&label)
            .unwrap_or_else(|| panic!("{label}: {told}"));
        let story = &told[at..];
        let story = &story[..story[1..]
            .find("block  port")
            .map_or(story.len(), |n| n + 1)];
        // The setting in the NIC firmware, what the OS shows, the firmware that changed.
        let lines: Vec<&str> = story.lines().map(str::trim).collect();
        assert_eq!(
            lines[1],
            format!(
                "setting in the NIC firmware  bmc/function/00:0a:f7:12:34:{function}/dcbx_mode \"ieee\" → \"disabled\""
            ),
            "{story}"
        );
        assert!(
            lines[2].starts_with(
                "what the OS shows            os/dcbx_support/current \"ieee\" → \"none\""
            ),
            "{story}"
        );
        assert_eq!(
            lines
                .iter()
                .find(|l| l.starts_with("the firmware that changed")),
            Some(&"the firmware that changed    229.0.166.0 → 229.1.123.0"),
            "{story}"
        );
    }
    snapshot!("check_seed_one_text", text);

    let mut out = Vec::new();
    super::markdown::render(&report, &stories, &mut out).unwrap();
    let md = String::from_utf8(out).unwrap();
    let stories_at = md.find("#### port").expect("the stories");
    let table_at = md.find("#### Findings").expect("the findings");
    assert!(stories_at < table_at, "{md}");
    assert_eq!(md.matches("\n#### port ").count(), 2, "{md}");
    assert_eq!(
        md.matches("- The firmware that changed: 229.0.166.0 → 229.1.123.0\n")
            .count(),
        2,
        "{md}"
    );
    snapshot!("check_seed_one_markdown", md);
}
