//! Prometheus textfiles in end-to-end tests: `promtool` (Debian's `prometheus`, installed by
//! `bash scripts/test-deps.sh`) as the real consumer's checker, the samples of a textfile read
//! with driftgate's own parser, and a `promtool test rules` file of the example alerts over
//! nights made of real textfiles.

use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use driftgate_report::prometheus::textfile::{self, Sample};

use super::root;

/// The example alerts.
pub(crate) fn alerts() -> std::path::PathBuf {
    root().join("examples/prometheus/alerts.yml")
}

/// `promtool ARGS…` with `stdin`; panics, naming the setup script, when promtool is missing.
pub(crate) fn promtool(args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new("promtool")
        .args(args)
        .current_dir(root())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| {
            panic!(
                "promtool cannot be run ({e}): install it with `bash scripts/test-deps.sh` \
                 (Debian's prometheus package)"
            )
        });
    child
        .stdin
        .take()
        .expect("stdin is piped")
        .write_all(stdin.as_bytes())
        .expect("promtool reads its input");
    child.wait_with_output().expect("promtool runs")
}

/// What promtool said, both streams.
pub(crate) fn said(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// `promtool check metrics` of `text`: `Err` with what it said unless it accepted the file
/// with no lint message at all.
pub(crate) fn check_metrics(text: &str) -> Result<(), String> {
    let output = promtool(&["check", "metrics"], text);
    let said = said(&output);
    if output.status.success() && said.trim().is_empty() {
        Ok(())
    } else {
        Err(format!("{:?}: {said}", output.status.code()))
    }
}

/// `promtool test rules FILE`: `Err` with what it said unless every test passed.
pub(crate) fn test_rules(file: &Path) -> Result<(), String> {
    let output = promtool(&["test", "rules", &file.display().to_string()], "");
    let said = said(&output);
    if output.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{}: {:?}: {said}",
            file.display(),
            output.status.code()
        ))
    }
}

/// The samples of a textfile, each line parsed (a line that does not parse fails the test).
pub(crate) fn samples(text: &str) -> Vec<Sample> {
    textfile::samples(text)
        .map(|s| s.unwrap_or_else(|e| panic!("{e}\n{text}")))
        .collect()
}

/// Per host, the value of metric `name` (its samples with a `host` label and, when given,
/// `verdict`).
pub(crate) fn per_host(text: &str, name: &str, verdict: Option<&str>) -> BTreeMap<String, f64> {
    let mut values = BTreeMap::new();
    for s in samples(text).into_iter().filter(|s| s.name == name) {
        if verdict.is_some_and(|v| s.labels.get("verdict").map(String::as_str) != Some(v)) {
            continue;
        }
        let host = s.labels.get("host").expect("a host label").clone();
        assert!(values.insert(host, s.value).is_none(), "{name} twice");
    }
    values
}

/// The value of the one sample of `name` whose labels include `labels`.
pub(crate) fn value(text: &str, name: &str, labels: &[(&str, &str)]) -> Option<f64> {
    let found: Vec<f64> = samples(text)
        .into_iter()
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

/// A host's labels in a textfile: (host, fleet, cluster).
pub(crate) fn hosts(text: &str) -> Vec<(String, String, String)> {
    let mut hosts: Vec<(String, String, String)> = samples(text)
        .into_iter()
        .filter(|s| s.name == "driftgate_verdict")
        .map(|s| {
            let label = |k: &str| s.labels.get(k).cloned().unwrap_or_default();
            (label("host"), label("fleet"), label("cluster"))
        })
        .collect();
    hosts.dedup();
    hosts
}

/// Minutes a night lasts in [`two_nights_test`]'s series.
const NIGHT: usize = 24 * 60;

/// The example's `DriftgateHostIncompleteTwoNights` over three nights of textfiles, as a
/// `promtool test rules` file: `nights[k]` is the file node_exporter served during night k
/// (scraped once a minute) with its run time moved k × 24 h later (the runs of a test are
/// seconds apart; the last success times are the files' own); the alert must
/// not fire while night `quiet_until` is served and must fire for each of `firing` during
/// the night after. The annotations expected are the rule's, from `alerts.yml`, filled in.
pub(crate) fn two_nights_test(nights: &[String], quiet_until: usize, firing: &[&str]) -> String {
    const ALERT: &str = "DriftgateHostIncompleteTwoNights";
    // The scrape's labels, and the nightly file's `report` label the alerts select.
    const TARGET: &str = r#"instance="gw1:9100",job="node",report="fleet""#;
    let rule = alert_rule(ALERT);
    let labels = |l: &[(&str, &str)]| {
        l.iter()
            .filter(|(_, v)| !v.is_empty()) // Prometheus drops empty labels.
            .map(|(k, v)| format!("{k}=\"{v}\""))
            .collect::<Vec<_>>()
            .join(",")
    };
    // Each night's value of each series, in series order.
    let mut series: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    for (k, text) in nights.iter().enumerate() {
        let run = value(
            text,
            "driftgate_run_timestamp_seconds",
            &[("report", "fleet")],
        )
        .expect("a fleet run's time");
        // The run as if it had run on night k, 24 h after the first.
        let shifted = run + (k * 86_400) as f64;
        series
            .entry(format!("driftgate_run_timestamp_seconds{{{TARGET}}}"))
            .or_default()
            .push(shifted);
        for (host, fleet, cluster) in hosts(text) {
            let l = [
                ("host", host.as_str()),
                ("fleet", fleet.as_str()),
                ("cluster", cluster.as_str()),
            ];
            if let Some(at) = value(text, "driftgate_last_success_timestamp_seconds", &l) {
                series
                    .entry(format!(
                        "driftgate_last_success_timestamp_seconds{{{TARGET},{}}}",
                        labels(&l)
                    ))
                    .or_default()
                    .push(at);
            }
            let mut with_verdict = l.to_vec();
            with_verdict.push(("verdict", "incomplete"));
            let incomplete = value(text, "driftgate_verdict", &with_verdict).expect("a verdict");
            series
                .entry(format!(
                    "driftgate_verdict{{{TARGET},{}}}",
                    labels(&with_verdict)
                ))
                .or_default()
                .push(incomplete);
        }
    }
    let mut yaml = format!(
        "# Generated by tests/it/reports_prometheus.rs from real textfiles.\nrule_files:\n  - {}\nevaluation_interval: 5m\ntests:\n  - interval: 1m\n    input_series:\n",
        alerts().display()
    );
    for (name, nightly) in &series {
        assert_eq!(
            nightly.len(),
            nights.len(),
            "{name} is in every night's file"
        );
        let values: Vec<String> = nightly
            .iter()
            .map(|v| format!("{v}x{}", NIGHT - 1))
            .collect();
        yaml.push_str(&format!(
            "      - series: '{name}'\n        values: '{}'\n",
            values.join(" ")
        ));
    }
    let hour = |h: usize| format!("{h}h");
    yaml.push_str(&format!(
        "    alert_rule_test:\n      - eval_time: {}\n        alertname: {ALERT}\n        exp_alerts: []\n",
        hour(24 * (quiet_until + 1) - 1)
    ));
    yaml.push_str(&format!(
        "      - eval_time: {}\n        alertname: {ALERT}\n        exp_alerts:\n",
        hour(24 * (quiet_until + 1) + 1)
    ));
    let last = nights.last().expect("a night");
    for (host, fleet, cluster) in hosts(last)
        .into_iter()
        .filter(|(h, _, _)| firing.contains(&h.as_str()))
    {
        let mut exp: BTreeMap<String, String> = rule.labels.clone();
        exp.insert("instance".into(), "gw1:9100".into());
        exp.insert("job".into(), "node".into());
        exp.insert("report".into(), "fleet".into());
        exp.insert("host".into(), host.clone());
        for (k, v) in [("fleet", fleet), ("cluster", cluster)] {
            if !v.is_empty() {
                exp.insert(k.into(), v);
            }
        }
        yaml.push_str(&format!(
            "          - exp_labels: {}\n            exp_annotations: {}\n",
            flow(&exp),
            flow(&fill(&rule.annotations, &host))
        ));
    }
    yaml
}

/// The labels and annotations of an alerting rule.
struct AlertRule {
    labels: BTreeMap<String, String>,
    annotations: BTreeMap<String, String>,
}

/// The rule `alert` of the example alerts.
fn alert_rule(alert: &str) -> AlertRule {
    let text = std::fs::read_to_string(alerts()).expect("examples/prometheus/alerts.yml");
    let doc: serde_json::Value = yaml_serde::from_str(&text).expect("alerts.yml is YAML");
    let rule = doc["groups"]
        .as_array()
        .expect("groups")
        .iter()
        .flat_map(|g| g["rules"].as_array().expect("rules").iter())
        .find(|r| r["alert"] == alert)
        .unwrap_or_else(|| panic!("no alert {alert} in alerts.yml"));
    let map = |v: &serde_json::Value| -> BTreeMap<String, String> {
        v.as_object()
            .map(|o| {
                o.iter()
                    .map(|(k, v)| (k.clone(), v.as_str().expect("a string").to_owned()))
                    .collect()
            })
            .unwrap_or_default()
    };
    AlertRule {
        labels: map(&rule["labels"]),
        annotations: map(&rule["annotations"]),
    }
}

/// `annotations` with `{{ $labels.host }}` filled in (the only template the rule uses).
fn fill(annotations: &BTreeMap<String, String>, host: &str) -> BTreeMap<String, String> {
    annotations
        .iter()
        .map(|(k, v)| {
            let filled = v.replace("{{ $labels.host }}", host);
            assert!(
                !filled.contains("{{"),
                "a template this test cannot fill: {v}"
            );
            (k.clone(), filled)
        })
        .collect()
}

/// A YAML flow mapping of `map`, every value quoted as JSON (which YAML reads).
fn flow(map: &BTreeMap<String, String>) -> String {
    let pairs: Vec<String> = map
        .iter()
        .map(|(k, v)| format!("{k}: {}", serde_json::Value::from(v.as_str())))
        .collect();
    format!("{{{}}}", pairs.join(", "))
}
