//! A three-way judgement (baseline → pre → post) of a capture whose NIC has a DCBX disable
//! staged for the next reboot: the Redfish mockup and the Windows recording of
//! `tests/fixtures/redfish/pending-dcbx-disable`, against the shipped Azure Local example.

use driftgate_collect::{CaptureOptions, NoReporter, SourceSpec, capture_host};
use driftgate_compare::{
    Comparison, JudgeOptions, Origin, Policy, Severity, Verdict, judge, judge_comparison,
};
use driftgate_snapshot::VerifiedSnapshot;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn example(file: &str) -> VerifiedSnapshot {
    let path = format!("{ROOT}/examples/azure-local-dcbx/{file}");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    VerifiedSnapshot::parse(&text, file).unwrap()
}

fn pending_capture() -> VerifiedSnapshot {
    let fixture = format!("{ROOT}/tests/fixtures/redfish/pending-dcbx-disable");
    let sources = [
        format!("redfish=mockup:{fixture}"),
        format!("windows=dir:{fixture}/windows"),
    ]
    .map(|s| SourceSpec::parse(&s).unwrap());
    let captured = tokio::runtime::Runtime::new()
        .unwrap()
        .block_on(capture_host(
            "azl-node01".parse().unwrap(),
            &sources,
            &CaptureOptions::default(),
            &NoReporter,
        ));
    assert!(
        captured.snapshot.is_complete(),
        "{:?}",
        captured.snapshot.sources
    );
    VerifiedSnapshot::parse(&captured.snapshot.to_canonical_json(), "post.json").unwrap()
}

#[test]
fn a_staged_dcbx_disable_blocks_at_post_and_says_to_run_post_again_after_the_reboot() {
    let post = pending_capture();
    let (baseline, pre) = (example("baseline.json"), example("pre-update.json"));
    let comparison = Comparison {
        snapshot: &post,
        baseline: Some(&baseline),
        pre: Some(&pre),
    };
    let policy = Policy::builtin();
    let report = judge_comparison(&comparison, &policy, &JudgeOptions::default());
    assert_eq!(report.verdict, Verdict::Block);
    let staged = report
        .findings
        .iter()
        .find(|f| {
            f.pending && f.severity == Severity::Block && f.path.as_str().ends_with("dcbx_mode")
        })
        .unwrap_or_else(|| panic!("{:#?}", report.findings));
    assert_eq!(staged.origin, Some(Origin::Update));
    assert!(
        staged
            .message
            .ends_with("takes effect at the next reboot — run `gate post` again after it"),
        "{}",
        staged.message
    );
    // The two-way check of the same capture keeps its message.
    let two_way = judge(&post, Some(&baseline), &policy, &JudgeOptions::default());
    let same = two_way
        .findings
        .iter()
        .find(|f| f.path == staged.path && f.id == staged.id)
        .unwrap();
    assert!(
        same.message.ends_with("takes effect at the next reboot"),
        "{}",
        same.message
    );
    assert_eq!(same.origin, None);
}
