//! Example snapshots and three-way judgements for the tests of this crate and of the crates
//! that render judgements (feature `testing`).

#![allow(clippy::unwrap_used)] // a test that cannot set up should panic where it stands

use crate::{Allowance, Comparison, JudgeOptions, Policy, Report, judge_comparison};
use driftgate_snapshot::{FactPath, FactValue, Snapshot, VerifiedSnapshot};

/// The Azure Local example's snapshot `file` (`baseline.json`, `pre-update.json`, …).
pub fn example(file: &str) -> VerifiedSnapshot {
    let path = format!(
        "{}/examples/azure-local-dcbx/{file}",
        concat!(env!("CARGO_MANIFEST_DIR"), "/../..")
    );
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    VerifiedSnapshot::parse(&text, &format!("examples/azure-local-dcbx/{file}")).unwrap()
}

/// `from` with `edit` applied, sealed again (canonical JSON, fresh digest) as `origin`.
pub fn edited(
    from: &VerifiedSnapshot,
    origin: &str,
    edit: impl FnOnce(&mut Snapshot),
) -> VerifiedSnapshot {
    let mut snapshot = from.snapshot().clone();
    edit(&mut snapshot);
    VerifiedSnapshot::parse(&snapshot.to_canonical_json(), origin).unwrap()
}

/// Sets fact `path` of `snapshot` to `value`.
pub fn set(snapshot: &mut Snapshot, path: &str, value: FactValue) {
    snapshot.facts.insert(FactPath::new(path).unwrap(), value);
}

/// `post` judged three-way against `baseline` and `pre` under the built-in policy.
pub fn three_way(
    post: &VerifiedSnapshot,
    baseline: &VerifiedSnapshot,
    pre: &VerifiedSnapshot,
    allowances: Vec<Allowance>,
) -> Report {
    let comparison = Comparison {
        snapshot: post,
        baseline: Some(baseline),
        pre: Some(pre),
    };
    let options = JudgeOptions {
        allowances,
        ..JudgeOptions::default()
    };
    judge_comparison(&comparison, &Policy::builtin(), &options)
}
