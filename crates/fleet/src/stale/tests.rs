use std::time::Duration;

use jiff::Timestamp;

use super::{StaleInput, findings, parse_age};
use driftgate_compare::Severity;

fn at(text: &str) -> Timestamp {
    text.parse().unwrap()
}

const NOW: &str = "2026-12-01T02:00:00Z";

#[test]
fn ages_read_days_hours_minutes_seconds_and_plain_days() {
    for (text, secs) in [
        ("30d", 30 * 86_400),
        ("12h", 12 * 3_600),
        ("90m", 90 * 60),
        ("45s", 45),
        ("7", 7 * 86_400),
        (" 2D ", 2 * 86_400),
    ] {
        assert_eq!(parse_age(text), Ok(Duration::from_secs(secs)), "{text}");
    }
    for bad in [
        "",
        "d",
        "30x",
        "-3d",
        "1.5d",
        "3 d",
        "99999999999999999999d",
        "30days",
    ] {
        let err = parse_age(bad).expect_err(bad);
        assert!(err.contains("30d") && err.contains("12h"), "{bad}: {err}");
    }
}

#[test]
fn stale_missing_and_orphan_baselines_are_warnings_that_say_why() {
    let hosts = [
        StaleInput {
            host: "h1".into(),
            baseline_captured_at: Some(at("2026-10-21T02:00:00Z")),
            baseline_unread: false,
            last_good: Some(at("2026-11-30T02:00:00Z")),
        },
        StaleInput {
            host: "h2".into(),
            baseline_captured_at: None,
            baseline_unread: false,
            last_good: Some(at("2026-10-01T00:00:00Z")),
        },
        StaleInput {
            host: "h3".into(),
            baseline_captured_at: Some(at("2026-11-20T02:00:00Z")),
            baseline_unread: false,
            last_good: None,
        },
    ];
    let orphans = ["baselines/azl/h9.json".to_owned()];
    let found = findings(
        &hosts,
        &orphans,
        Some(Duration::from_secs(30 * 86_400)),
        at(NOW),
    );
    let got: Vec<(&str, Vec<&str>, &str)> = found
        .iter()
        .map(|f| {
            assert_eq!(f.severity, Severity::Warn);
            (
                f.rule.as_str(),
                f.hosts.iter().map(String::as_str).collect(),
                f.message.as_str(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            (
                "fleet/missing-baseline",
                vec!["h2"],
                "h2 has no baseline: judged by invariants and expect rules only (promote its snapshot with `driftgate baseline promote`)"
            ),
            (
                "fleet/orphan-baseline",
                vec![],
                "baselines/azl/h9.json is the baseline of no inventory host: remove it, or add its host to the inventory"
            ),
            (
                "fleet/stale-baseline",
                vec!["h1"],
                "baseline of h1 was captured 41 days ago (--stale-after 30d)"
            ),
            (
                "fleet/stale-capture",
                vec!["h2"],
                "last complete capture of h2 was 61 days ago (--stale-after 30d)"
            ),
            (
                "fleet/stale-capture",
                vec!["h3"],
                "no complete capture of h3 is on record (--stale-after 30d)"
            ),
        ]
    );
    assert_eq!(found[1].path.as_deref(), Some("baselines/azl/h9.json"));
}

#[test]
fn ages_are_judged_only_with_a_threshold_and_only_when_older() {
    let hosts = [StaleInput {
        host: "h1".into(),
        baseline_captured_at: Some(at("2026-11-30T14:00:00Z")),
        baseline_unread: false,
        last_good: Some(at("2026-12-02T00:00:00Z")),
    }];
    assert_eq!(findings(&hosts, &[], None, at(NOW)), Vec::new());
    assert_eq!(
        findings(&hosts, &[], Some(Duration::from_secs(12 * 3_600)), at(NOW)),
        Vec::new(),
        "exactly 12 hours is not older than 12h; a time after now is not old"
    );
    let found = findings(&hosts, &[], Some(Duration::from_secs(6 * 3_600)), at(NOW));
    assert_eq!(found.len(), 1);
    assert_eq!(
        found[0].message,
        "baseline of h1 was captured 12 hours ago (--stale-after 6h)"
    );
}

#[test]
fn a_baseline_that_could_not_be_read_is_not_reported_missing() {
    let unread = StaleInput {
        host: "h1".into(),
        baseline_captured_at: None,
        baseline_unread: true,
        last_good: Some(at(NOW)),
    };
    assert_eq!(
        findings(std::slice::from_ref(&unread), &[], None, at(NOW)),
        Vec::new()
    );
    let missing = StaleInput {
        baseline_unread: false,
        ..unread
    };
    assert_eq!(
        findings(&[missing], &[], None, at(NOW))[0].rule,
        "fleet/missing-baseline"
    );
}
