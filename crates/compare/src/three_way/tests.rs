//! Three-way judgements over the shipped Azure Local example (baseline, pre-update,
//! post-update) and snapshots derived from it. (A staged change captured from its recording
//! is judged in `tests/it/compare_three_way.rs`: compare does not import collect.)

use crate::testing::{edited, example, set, three_way};
use crate::{
    Allowance, Comparison, JudgeOptions, Origin, Policy, Role, Severity, Verdict, judge,
    judge_comparison,
};
use driftgate_snapshot::{FactValue, SourceStatus};

const DCBX_MODE: &str = "nic/00:0a:f7:12:34:56/bmc/function/00:0a:f7:12:34:56/dcbx_mode";
const BANDWIDTH: &str = "host/qos/traffic_class/smb_direct/bandwidth";

#[test]
fn the_updates_findings_are_its_own_and_name_the_firmware_of_the_same_port_first() {
    let (baseline, pre, post) = (
        example("baseline.json"),
        example("pre-update.json"),
        example("post-update.json"),
    );
    let report = three_way(&post, &baseline, &pre, Vec::new());
    assert_eq!(report.verdict, Verdict::Block);
    assert_eq!(
        report.pre.as_ref().unwrap().origin,
        "examples/azure-local-dcbx/pre-update.json"
    );
    let two_way = judge(
        &post,
        Some(&baseline),
        &Policy::builtin(),
        &JudgeOptions::default(),
    );
    assert_eq!(
        report.findings.len(),
        two_way.findings.len(),
        "the same findings"
    );
    assert!(two_way.findings.iter().all(|f| f.origin.is_none()));
    for finding in &report.findings {
        let want = if finding.severity == Severity::Info {
            Origin::Expected
        } else {
            Origin::Update
        };
        assert_eq!(finding.origin, Some(want), "{}", finding.path);
    }
    let dcbx = report
        .findings
        .iter()
        .find(|f| f.path.as_str() == DCBX_MODE && f.id == "dcbx-mode")
        .unwrap();
    let first = &dcbx.firmware[0];
    assert!(first.this_port, "{:?}", dcbx.firmware);
    assert_eq!(first.path.as_str(), "firmware/nic.slot.3-1-1/version");
    assert_eq!(first.old, Some("229.0.166.0".into()), "pre → post");
    assert_eq!(first.new, Some("229.1.123.0".into()));
    assert!(dcbx.firmware.iter().any(|f| !f.this_port), "then the rest");
}

#[test]
fn firmware_updated_before_pre_is_pre_existing_and_not_the_updates() {
    // The firmware was already updated at pre (from a failed earlier attempt): the update
    // itself changed no firmware, so its findings name none, its firmware changes are none,
    // and the firmware findings since the baseline are pre-existing, not expected.
    let (baseline, post) = (example("baseline.json"), example("post-update.json"));
    let pre = edited(&baseline, "pre.json", |s| {
        for (path, value) in &post.snapshot().facts {
            if crate::is_firmware_version(path.as_str()) {
                s.facts.insert(path.clone(), value.clone());
            }
        }
    });
    let report = three_way(&post, &baseline, &pre, Vec::new());
    let dcbx = report
        .findings
        .iter()
        .find(|f| f.path.as_str() == DCBX_MODE)
        .unwrap();
    assert_eq!(dcbx.origin, Some(Origin::Update));
    assert!(dcbx.firmware.is_empty(), "{:?}", dcbx.firmware);
    assert!(
        report.firmware_changes.is_empty(),
        "the update changed no firmware: {:?}",
        report.firmware_changes
    );
    let firmware: Vec<_> = report
        .findings
        .iter()
        .filter(|f| crate::is_firmware_version(f.path.as_str()))
        .collect();
    assert_eq!(firmware.len(), 4);
    for f in firmware {
        assert_eq!(f.origin, Some(Origin::PreExisting), "{}", f.path);
    }
}

#[test]
fn pre_existing_drift_names_the_firmware_changed_before_pre_not_the_updates() {
    // DCBX already disabled at pre, on the baseline's firmware 229.0.166.0; the update then
    // moves the firmware to 229.1.123.0. The drift is not the update's firmware's doing.
    let (baseline, post) = (example("baseline.json"), example("post-update.json"));
    let disabled = FactValue::from("disabled");
    let pre = edited(&baseline, "pre.json", |s| {
        set(s, DCBX_MODE, disabled.clone())
    });
    let report = three_way(&post, &baseline, &pre, Vec::new());
    let dcbx = report
        .findings
        .iter()
        .find(|f| f.path.as_str() == DCBX_MODE && f.id == "dcbx-mode")
        .unwrap();
    assert_eq!(dcbx.origin, Some(Origin::PreExisting));
    assert!(
        dcbx.firmware.is_empty(),
        "no firmware changed between baseline and pre: {:?}",
        dcbx.firmware
    );
    assert_eq!(report.firmware_changes.len(), 4, "pre → post");

    // Firmware that changed between baseline and pre is what pre-existing drift names.
    let mut old_nic = baseline.clone();
    old_nic = edited(&old_nic, "baseline.json", |s| {
        set(s, "firmware/nic.slot.3-1-1/version", "228.0.1.0".into());
    });
    let report = three_way(&post, &old_nic, &pre, Vec::new());
    let dcbx = report
        .findings
        .iter()
        .find(|f| f.path.as_str() == DCBX_MODE && f.id == "dcbx-mode")
        .unwrap();
    assert_eq!(dcbx.origin, Some(Origin::PreExisting));
    let first = &dcbx.firmware[0];
    assert!(first.this_port, "{:?}", dcbx.firmware);
    assert_eq!(first.path.as_str(), "firmware/nic.slot.3-1-1/version");
    assert_eq!(
        (first.old.clone(), first.new.clone()),
        (Some("228.0.1.0".into()), Some("229.0.166.0".into())),
        "baseline → pre"
    );
    assert_eq!(dcbx.firmware.len(), 1, "{:?}", dcbx.firmware);
    // The report's firmware changes stay the update's: pre → post.
    assert!(
        report
            .firmware_changes
            .iter()
            .all(|f| f.old == Some("229.0.166.0".into())),
        "{:?}",
        report.firmware_changes
    );

    // A two-way judgement of the same post keeps baseline → post.
    let two_way = judge(
        &post,
        Some(&old_nic),
        &Policy::builtin(),
        &JudgeOptions::default(),
    );
    let dcbx = two_way
        .findings
        .iter()
        .find(|f| f.path.as_str() == DCBX_MODE && f.id == "dcbx-mode")
        .unwrap();
    assert_eq!(dcbx.firmware[0].old, Some("228.0.1.0".into()));
    assert_eq!(dcbx.firmware[0].new, Some("229.1.123.0".into()));
}

#[test]
fn drift_already_there_at_pre_is_pre_existing() {
    let (baseline, post) = (example("baseline.json"), example("post-update.json"));
    let pre = edited(&baseline, "pre.json", |s| set(s, BANDWIDTH, 40.into()));
    let post = edited(&post, "post.json", |s| set(s, BANDWIDTH, 40.into()));
    let report = three_way(&post, &baseline, &pre, Vec::new());
    let drift = report
        .findings
        .iter()
        .find(|f| f.path.as_str() == BANDWIDTH)
        .unwrap();
    assert_eq!(drift.origin, Some(Origin::PreExisting));
    assert_eq!(report.verdict, Verdict::Block);

    // Changed again by the update: the update's.
    let post = edited(&post, "post.json", |s| set(s, BANDWIDTH, 30.into()));
    let report = three_way(&post, &baseline, &pre, Vec::new());
    let drift = report
        .findings
        .iter()
        .find(|f| f.path.as_str() == BANDWIDTH)
        .unwrap();
    assert_eq!(drift.origin, Some(Origin::Update));
}

#[test]
fn an_invariant_violated_at_pre_too_is_pre_existing() {
    let (baseline, post) = (example("baseline.json"), example("post-update.json"));
    let report = three_way(&post, &baseline, &post, Vec::new());
    let invariant = report
        .findings
        .iter()
        .find(|f| f.id == "pfc-not-operational")
        .unwrap();
    assert_eq!(invariant.origin, Some(Origin::PreExisting));
    assert!(
        report
            .findings
            .iter()
            .all(|f| f.origin != Some(Origin::Update)),
        "post equals pre: nothing is the update's"
    );
}

#[test]
fn an_allowance_moves_matching_findings_out_of_the_verdict_in_both_judgements() {
    let (baseline, pre, post) = (
        example("baseline.json"),
        example("pre-update.json"),
        example("post-update.json"),
    );
    let allowances = vec![
        Allowance::parse_arg("nic/*/bmc/function/*/dcbx_mode=disabled").unwrap(),
        Allowance::parse_arg("nic/*/os/**").unwrap(),
    ];
    let options = JudgeOptions {
        allowances: allowances.clone(),
        ..JudgeOptions::default()
    };
    for report in [
        three_way(&post, &baseline, &pre, allowances.clone()),
        judge(&post, Some(&baseline), &Policy::builtin(), &options),
    ] {
        assert_eq!(report.verdict, Verdict::Pass, "{:?}", report.findings);
        assert_eq!((report.counts.block, report.counts.info), (0, 4));
        assert_eq!(report.allowed.len(), 28);
        let dcbx = report
            .allowed
            .iter()
            .find(|a| a.finding.path.as_str() == DCBX_MODE && a.finding.id == "dcbx-mode")
            .unwrap();
        assert_eq!(dcbx.allowance, allowances[0]);
        assert!(!dcbx.finding.firmware.is_empty(), "still attributed");
    }
    // A value other than the one allowed still blocks.
    let cee = vec![Allowance::parse_arg("nic/*/bmc/function/*/dcbx_mode=cee").unwrap()];
    let report = three_way(&post, &baseline, &pre, cee);
    assert_eq!((report.verdict, report.allowed.len()), (Verdict::Block, 0));
}

#[test]
fn an_incomplete_pre_makes_the_post_incomplete() {
    let (baseline, post) = (example("baseline.json"), example("post-update.json"));
    let pre = edited(&baseline, "pre.json", |s| {
        s.sources[1].status = SourceStatus::Failed;
        s.sources[1].error = Some("ssh: connection refused".into());
    });
    let report = three_way(&baseline, &baseline, &pre, Vec::new());
    assert_eq!(report.verdict, Verdict::Incomplete);
    assert_eq!(report.incomplete_sources.len(), 1);
    assert_eq!(report.incomplete_sources[0].role, Role::Pre);
    assert_eq!(report.incomplete_sources[0].name, "windows");
    let report = three_way(&post, &baseline, &example("pre-update.json"), Vec::new());
    assert!(report.incomplete_sources.is_empty());
}

#[test]
fn a_violation_the_update_made_worse_is_the_updates_not_pre_existing() {
    // An expectation already violated at pre (MTU 9000 expected, 1514 found) that the update
    // changed again (576): still violated, but by the update's value.
    const MTU: &str = "nic/00:0a:f7:12:34:56/os/mtu";
    let policy = Policy::with_file(
        "[[rule]]\nid = \"jumbo-frames\"\npath = \"nic/*/os/mtu\"\nexpect = 9000\non_violation = \"block\"\n",
        "mtu.toml",
    )
    .unwrap();
    let baseline = edited(&example("baseline.json"), "baseline", |s| {
        set(s, MTU, FactValue::from(9000))
    });
    let judged = |pre_mtu: i64, post_mtu: i64| {
        let pre = edited(&baseline, "pre", |s| set(s, MTU, FactValue::from(pre_mtu)));
        let post = edited(&baseline, "post", |s| {
            set(s, MTU, FactValue::from(post_mtu))
        });
        let comparison = Comparison {
            snapshot: &post,
            baseline: Some(&baseline),
            pre: Some(&pre),
        };
        let report = judge_comparison(&comparison, &policy, &JudgeOptions::default());
        report
            .findings
            .iter()
            .find(|f| f.id == "jumbo-frames")
            .and_then(|f| f.origin)
    };
    assert_eq!(judged(1514, 1514), Some(Origin::PreExisting));
    assert_eq!(judged(1514, 576), Some(Origin::Update));
}
