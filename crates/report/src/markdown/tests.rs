//! The single-check Markdown's bound: a report of thousands of findings stays under
//! [`MARKDOWN_LIMIT`], blocking findings first, the rest counted.

use super::MARKDOWN_LIMIT;
use driftgate_compare::{JudgeOptions, Policy, Report, Severity};
use driftgate_snapshot::{
    FactPath, FactValue, Facts, HostName, Snapshot, SourceRecord, SourceStatus, VerifiedSnapshot,
};

fn verified(facts: Facts, origin: &str) -> VerifiedSnapshot {
    let snapshot = Snapshot {
        host: HostName::new("azl-node01").unwrap(),
        captured_at: "2026-12-01T02:00:00Z".parse().unwrap(),
        tool: "driftgate test".into(),
        sources: vec![SourceRecord {
            name: "redfish".into(),
            target: "https://bmc-azl-node01".into(),
            status: SourceStatus::Complete,
            error: None,
        }],
        facts,
    };
    VerifiedSnapshot::parse(&snapshot.to_canonical_json(), origin).unwrap()
}

/// `attributes` BIOS attributes and `firmware` firmware versions changed, and the DCBX mode of
/// one port reset (blocking).
fn huge(attributes: usize, firmware: usize) -> Report {
    let facts = |value: &str, dcbx: &str| -> Facts {
        let mut facts = Facts::new();
        for i in 0..attributes {
            facts.insert(
                FactPath::new(format!("bios/Attribute{i:05}")).unwrap(),
                FactValue::from(format!(
                    "{value} setting of a rather long BIOS attribute {i}"
                )),
            );
        }
        for i in 0..firmware {
            facts.insert(
                FactPath::new(format!("firmware/component.{i:05}/version")).unwrap(),
                FactValue::from(format!("{value}.{i}")),
            );
        }
        facts.insert(
            FactPath::new("nic/00:0a:f7:12:34:56/bmc/dcbx_mode").unwrap(),
            FactValue::from(dcbx),
        );
        facts
    };
    let baseline = verified(facts("old", "ieee"), "baseline.json");
    let now = verified(facts("new", "disabled"), "now.json");
    driftgate_compare::judge(
        &now,
        Some(&baseline),
        &Policy::builtin(),
        &JudgeOptions::default(),
    )
}

fn markdown(report: &Report) -> String {
    let mut out = Vec::new();
    super::render(report, &[], &mut out).unwrap();
    String::from_utf8(out).unwrap()
}

#[test]
fn thousands_of_findings_stay_under_the_limit_blocking_first() {
    let report = huge(5_000, 0);
    assert_eq!(report.counts.warn, 5_000);
    let md = markdown(&report);
    assert!(md.len() < MARKDOWN_LIMIT, "{}", md.len());
    assert!(
        md.starts_with("### driftgate: **BLOCK** azl-node01\\:"),
        "{}",
        &md[..500]
    );
    assert!(md.contains("| block | `dcbx-mode` |"), "{}", &md[..2000]);
    let shown = md.lines().filter(|l| l.starts_with("| warn |")).count();
    assert!(shown > 100, "as many rows as fit: {shown}");
    let note = format!(
        "_{} more findings not shown ({} warnings): a Markdown report stays under {MARKDOWN_LIMIT} characters; the JSON report has every finding._",
        5_000 - shown,
        5_000 - shown
    );
    assert!(md.trim_end().ends_with(&note), "{}", &md[md.len() - 500..]);
}

#[test]
fn thousands_of_firmware_changes_are_summarized_in_one_line() {
    let report = huge(0, 3_000);
    assert_eq!(report.firmware_changes.len(), 3_000);
    let md = markdown(&report);
    assert!(md.len() < MARKDOWN_LIMIT, "{}", md.len());
    assert!(
        md.contains("- Firmware changed alongside: 3000 facts (summarized"),
        "{}",
        &md[..2000]
    );
    assert!(md.contains("| block | `dcbx-mode` |"), "{}", &md[..2000]);
    assert_eq!(
        report.findings_at(Severity::Block).count(),
        md.lines().filter(|l| l.starts_with("| block |")).count()
    );
}

#[test]
fn a_report_under_the_limit_is_written_whole() {
    let report = huge(20, 3);
    let md = markdown(&report);
    assert!(
        !md.contains("not shown") && !md.contains("summarized"),
        "{md}"
    );
    assert_eq!(
        md.matches("- Firmware changed alongside: `firmware/")
            .count(),
        3
    );
    assert_eq!(md.lines().filter(|l| l.starts_with("| warn |")).count(), 20);
}

#[test]
fn hostile_capture_values_render_inert() {
    use super::inert::{BACKTICKS, HOSTILE, assert_inert};
    let facts = |a: &str, b: &str| -> Facts {
        [
            ("bios/Hostile", a),
            ("bios/Backticks", b),
            ("nic/00:0a:f7:12:34:56/bmc/dcbx_mode", a),
            ("nic/00:0a:f7:12:34:56/os/dcbx_support/current", b),
        ]
        .into_iter()
        .map(|(p, v)| (FactPath::new(p).unwrap(), FactValue::from(v)))
        .collect()
    };
    let baseline = verified(facts("Enabled", "Enabled"), "baseline.json");
    let mut now = verified(facts(HOSTILE, BACKTICKS), "now.json")
        .snapshot()
        .clone();
    now.sources.push(SourceRecord {
        name: "windows".into(),
        target: "winrm://azl-node01".into(),
        status: SourceStatus::Failed,
        error: Some(HOSTILE.into()),
    });
    let now = VerifiedSnapshot::parse(&now.to_canonical_json(), "now.json").unwrap();
    let report = driftgate_compare::judge(
        &now,
        Some(&baseline),
        &Policy::builtin(),
        &JudgeOptions::default(),
    );
    let md = markdown(&report);
    assert!(md.contains("| `\"Enabled\"` |"), "{md}");
    assert_inert(&md, &[HOSTILE, BACKTICKS]);
    // And told as stories: the port's and the BIOS's.
    let stories = driftgate_compare::stories(&report, &now.snapshot().facts);
    assert!(stories.len() >= 2, "{stories:?}");
    let mut out = Vec::new();
    super::render(&report, &stories, &mut out).unwrap();
    let md = String::from_utf8(out).unwrap();
    assert!(
        md.contains("- Setting in the NIC firmware: `bmc/dcbx_mode`"),
        "{md}"
    );
    assert_inert(&md, &[HOSTILE, BACKTICKS]);
}

#[test]
fn a_value_breaking_out_of_its_code_span_or_table_is_caught() {
    use super::inert::{HOSTILE, assert_inert};
    // The checker fails on what the old escaping let through.
    for broken in [
        format!("| `a` | {HOSTILE} |\n|---|---|\n| b | c |\n"),
        "- see [x](https://evil)\n".to_owned(),
        "- <img src=x>\n".to_owned(),
        "- @team\n".to_owned(),
    ] {
        let caught = std::panic::catch_unwind(|| assert_inert(&broken, &[HOSTILE]));
        assert!(caught.is_err(), "{broken}");
    }
}

#[test]
fn code_spans_take_a_fence_longer_than_the_values_backticks() {
    use super::{code, code_cell, escape};
    assert_eq!(code("a`b"), "``a`b``");
    assert_eq!(code("`x``"), "``` `x`` ```");
    assert_eq!(code(""), "` `");
    assert_eq!(code("two\nlines"), "`two lines`");
    assert_eq!(code_cell("a|b"), escape("a|b"));
    assert_eq!(escape("a@b\n[c]"), "a@&#8203;b \\[c\\]");
}

#[test]
fn hundreds_of_stories_are_told_up_to_a_bound_and_counted() {
    let ports = |dcbx: &str| -> Facts {
        (0..200)
            .map(|i| {
                (
                    FactPath::new(format!(
                        "nic/00:0a:f7:00:{:02x}:{:02x}/bmc/dcbx_mode",
                        i / 256,
                        i % 256
                    ))
                    .unwrap(),
                    FactValue::from(dcbx),
                )
            })
            .collect()
    };
    let now = verified(ports("disabled"), "now.json");
    let report = driftgate_compare::judge(
        &now,
        Some(&verified(ports("ieee"), "baseline.json")),
        &Policy::builtin(),
        &JudgeOptions::default(),
    );
    let stories = driftgate_compare::stories(&report, &now.snapshot().facts);
    assert_eq!(stories.len(), 200);
    let mut out = Vec::new();
    super::render(&report, &stories, &mut out).unwrap();
    let md = String::from_utf8(out).unwrap();
    assert!(md.len() < MARKDOWN_LIMIT, "{}", md.len());
    assert_eq!(md.matches("\n#### port ").count(), super::STORIES);
    assert!(
        md.contains("_180 more stories not told here: the findings below have them._"),
        "{md}"
    );
    // Every finding is in the table.
    assert_eq!(
        md.lines().filter(|l| l.starts_with("| block |")).count(),
        200
    );
}
