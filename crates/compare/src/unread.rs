//! What a comparison could not see. A source that failed, read only part of its host, or was
//! not asked leaves its facts unknown, not gone: a fact one side lacks because its source did
//! not read it is never a finding (not "removed", not a violated expectation), whatever the
//! policy says of it. The verdict is INCOMPLETE all the same, and each incomplete source says
//! how many findings it kept out of the report.

use driftgate_snapshot::{SourceStatus, VerifiedSnapshot, WHOLE_CAPTURE, reads};

use crate::verdict::{Finding, FindingKind, IncompleteSource, Role};

/// The source kinds of one side of a comparison that did not read everything they read on a
/// good day.
#[derive(Debug, Default)]
pub(crate) struct Unread<'a> {
    kinds: Vec<&'a str>,
}

impl<'a> Unread<'a> {
    /// The sources of `side` that are not complete, and those of `reference` (the snapshot it
    /// is compared with) it does not list at all.
    pub(crate) fn of(side: &'a VerifiedSnapshot, reference: Option<&'a VerifiedSnapshot>) -> Self {
        let sources = &side.snapshot().sources;
        let mut kinds: Vec<&str> = sources
            .iter()
            .filter(|s| s.status != SourceStatus::Complete)
            .map(|s| s.name.as_str())
            .collect();
        if sources.is_empty() {
            // Nothing says any of its facts were read.
            kinds.push(WHOLE_CAPTURE);
        }
        let reference = reference.map(|r| r.snapshot().sources.as_slice());
        for expected in reference.unwrap_or_default() {
            if !sources.iter().any(|s| s.name == expected.name) {
                kinds.push(&expected.name);
            }
        }
        Unread { kinds }
    }

    /// The source that should have read `path` on this side and did not, if any.
    fn missed(&self, path: &str) -> Option<&'a str> {
        self.kinds.iter().copied().find(|kind| reads(kind, path))
    }
}

/// The source that did not read the fact `finding` is about, between an `old` and a `new`
/// side: a fact gone from `new` (or missing where an expectation or invariant looks for it)
/// that `new`'s source did not read, or a fact new in `new` that `old`'s source did not read.
/// A change of a value both sides read is judged.
pub(crate) fn not_read<'a>(
    finding: &Finding,
    old: &Unread<'a>,
    new: &Unread<'a>,
) -> Option<(Role, &'a str)> {
    let path = finding.path.as_str();
    match finding.kind {
        FindingKind::Changed => None,
        FindingKind::Added => old.missed(path).map(|kind| (Role::Baseline, kind)),
        FindingKind::Removed => new.missed(path).map(|kind| (Role::Snapshot, kind)),
        FindingKind::Expectation | FindingKind::Invariant if finding.new.is_none() => {
            new.missed(path).map(|kind| (Role::Snapshot, kind))
        }
        FindingKind::Expectation | FindingKind::Invariant => None,
    }
}

/// Every reason the comparison cannot be trusted: a source of any snapshot that is not
/// complete, a snapshot that lists no source at all, and a source the baseline was captured
/// from that the snapshot lacks, unless the snapshot's whole capture failed (that one failure
/// is the reason).
pub(crate) fn incomplete_sources(
    snapshot: &VerifiedSnapshot,
    baseline: Option<&VerifiedSnapshot>,
    pre: Option<&VerifiedSnapshot>,
) -> Vec<IncompleteSource> {
    let mut incomplete = Vec::new();
    let roles = [
        (Role::Snapshot, Some(snapshot)),
        (Role::Baseline, baseline),
        (Role::Pre, pre),
    ];
    for (role, verified) in roles {
        let Some(verified) = verified else { continue };
        let sources = &verified.snapshot().sources;
        if sources.is_empty() {
            incomplete.push(IncompleteSource {
                role,
                name: WHOLE_CAPTURE.to_owned(),
                target: verified.origin().to_owned(),
                status: SourceStatus::Failed,
                error: Some(
                    "the snapshot lists no source: nothing says its facts were read".to_owned(),
                ),
                not_judged: 0,
            });
        }
        incomplete.extend(
            sources
                .iter()
                .filter(|s| s.status != SourceStatus::Complete)
                .map(|s| IncompleteSource {
                    role,
                    name: s.name.clone(),
                    target: s.target.clone(),
                    status: s.status,
                    error: s.error.clone(),
                    not_judged: 0,
                }),
        );
    }
    let present = &snapshot.snapshot().sources;
    let whole_failed = present.iter().any(|s| s.name == WHOLE_CAPTURE);
    for expected in baseline
        .map(|b| b.snapshot().sources.as_slice())
        .unwrap_or_default()
    {
        if !whole_failed && !present.iter().any(|s| s.name == expected.name) {
            incomplete.push(IncompleteSource {
                role: Role::Snapshot,
                name: expected.name.clone(),
                target: expected.target.clone(),
                status: SourceStatus::Failed,
                error: Some(format!(
                    "the baseline was captured with a {} source that this snapshot lacks",
                    expected.name
                )),
                not_judged: 0,
            });
        }
    }
    incomplete
}

/// Counts, on the incomplete source of `role` and `kind`, one finding it kept out.
pub(crate) fn count_not_judged(incomplete: &mut [IncompleteSource], role: Role, kind: &str) {
    // A snapshot with no source at all is listed as the whole capture.
    let entry = incomplete
        .iter_mut()
        .find(|s| s.role == role && s.name == kind);
    if let Some(entry) = entry {
        entry.not_judged += 1;
    }
}
