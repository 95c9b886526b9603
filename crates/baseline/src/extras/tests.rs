use std::time::Duration;

use super::*;
use crate::{PromoteOutcome, PromoteRequest, promote};
use driftgate_compare::{JudgeOptions, Report, judge};
use driftgate_snapshot::VerifiedSnapshot;

const HOST: &str = "azl-node01";
const PATH: &str = "baselines/azure-local/azl-node01.json";

fn example(file: &str) -> VerifiedSnapshot {
    let path = format!(
        "{}/examples/{file}",
        concat!(env!("CARGO_MANIFEST_DIR"), "/../..")
    );
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    VerifiedSnapshot::parse(&text, file).unwrap()
}

/// A store holding the example's baseline in one commit, and that commit.
fn store() -> (tempfile::TempDir, Store, String) {
    let (dir, store) = driftgate_store::testing::committer_store();
    let baseline = example("azure-local-dcbx/baseline.json");
    let request = PromoteRequest::one_fleet("azure-local", vec![baseline], Duration::from_secs(1));
    let PromoteOutcome::Promoted {
        commit: Some(commit),
        ..
    } = promote(&store, &Policy::builtin(), request).unwrap()
    else {
        panic!("not promoted")
    };
    (dir, store, commit.id.to_string())
}

/// The example after its update judged against the baseline at `path` of `commit`, as `check`
/// reads it from the store.
fn judged(store: &Store, commit: &str, path: &str) -> Report {
    let baseline = store.read_baseline(commit, PATH, HOST).unwrap();
    let mut report = judge(
        &example("azure-local-dcbx/post-update.json"),
        Some(&baseline),
        &Policy::builtin(),
        &JudgeOptions::default(),
    );
    report.baseline.as_mut().unwrap().origin = format!("git:{commit}:{path}");
    report
}

#[test]
fn each_format_gets_only_the_reads_it_needs() {
    let (_dir, store, commit) = store();
    let report = judged(&store, &commit, PATH);
    let policy = Policy::builtin();
    let read = |formats: &[Format], policy: Option<&Policy>| {
        let (extras, warnings) =
            read_extras(Document::Check(&report, &[]), formats, &store, policy);
        assert!(warnings.is_empty(), "{warnings:?}");
        extras
    };

    let sarif = read(&[Format::Sarif], Some(&policy));
    assert_eq!(sarif.baseline_lines.keys().collect::<Vec<_>>(), [HOST]);
    assert_eq!(sarif.baseline_lines[HOST].path, PATH);
    assert_eq!(sarif.baseline_lines[HOST].commit, commit);
    assert!(sarif.timelines.is_empty());

    let html = read(&[Format::Html], Some(&policy));
    assert!(html.baseline_lines.is_empty());
    assert_eq!(html.timelines.keys().collect::<Vec<_>>(), [HOST]);
    assert!(
        commit.starts_with(&html.timelines[HOST][0].commit),
        "the promoting commit (short id)"
    );

    let both = read(&[Format::Json, Format::Html, Format::Sarif], Some(&policy));
    assert_eq!(both.baseline_lines.len(), 1);
    assert_eq!(both.timelines.len(), 1);

    // Without a policy no change can be rated: no timelines.
    assert!(read(&[Format::Html], None).timelines.is_empty());
    for format in [
        Format::Text,
        Format::Json,
        Format::Markdown,
        Format::Junit,
        Format::Prometheus,
    ] {
        let none = read(&[format], Some(&policy));
        assert!(none.baseline_lines.is_empty(), "{format:?}");
        assert!(none.timelines.is_empty(), "{format:?}");
        assert_eq!(none.previous_textfile, None, "{format:?}");
    }
}

#[test]
fn a_store_that_cannot_be_read_costs_that_part_only_said_as_a_warning() {
    let (_dir, store, commit) = store();
    let gone = "baselines/azure-local/gone.json";
    let report = judged(&store, &commit, gone);
    let policy = Policy::builtin();
    let (extras, warnings) = read_extras(
        Document::Check(&report, &[]),
        &[Format::Sarif, Format::Html],
        &store,
        Some(&policy),
    );
    assert!(extras.baseline_lines.is_empty());
    assert_eq!(
        extras.timelines.len(),
        1,
        "the timelines are read all the same"
    );
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    let said = warnings[0].to_string();
    assert!(matches!(warnings[0], ExtrasWarning::NoBaselineLines(_)));
    assert!(
        said.starts_with("the SARIF report has no baseline lines"),
        "{said}"
    );
    assert!(said.contains(gone), "{said}");
}
