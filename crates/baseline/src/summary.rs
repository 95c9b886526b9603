//! How a baseline changed, classified by the policy: what a promote reports per host and
//! writes into its commit, and what `baseline log` shows per commit.

use std::fmt::Write as _;

use driftgate_compare::{Counts, JudgeOptions, Policy, Severity};
use driftgate_snapshot::{FactPath, VerifiedSnapshot};

/// A policy-classified summary of how a baseline changed.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ChangeSummary {
    /// Whether there was no previous baseline.
    pub first: bool,
    /// Findings per severity.
    pub counts: Counts,
    /// Paths of blocking changes.
    pub blocking: Vec<FactPath>,
    /// Number of facts after the change.
    pub facts: usize,
}

impl ChangeSummary {
    /// `new baseline, 42 facts` or `2 block, 1 warn, 0 info; blocking: a, b` (at most three
    /// paths, then a count).
    pub fn describe(&self) -> String {
        const SHOWN: usize = 3;
        let mut text = self.counts_line();
        if !self.blocking.is_empty() {
            let paths: Vec<&str> = self
                .blocking
                .iter()
                .take(SHOWN)
                .map(FactPath::as_str)
                .collect();
            let _ = write!(text, "; blocking: {}", paths.join(", "));
            if self.blocking.len() > SHOWN {
                let _ = write!(text, ", +{} more", self.blocking.len() - SHOWN);
            }
        }
        text
    }

    /// `new baseline, 42 facts` or `2 block, 1 warn, 0 info`.
    pub(super) fn counts_line(&self) -> String {
        if self.first {
            return format!("new baseline, {} facts", self.facts);
        }
        let c = self.counts;
        format!("{} block, {} warn, {} info", c.block, c.warn, c.info)
    }
}

/// How `new` differs from `old` under `policy`.
pub fn summarize(
    old: Option<&VerifiedSnapshot>,
    new: &VerifiedSnapshot,
    policy: &Policy,
) -> ChangeSummary {
    let facts = new.snapshot().facts.len();
    let Some(old) = old else {
        return ChangeSummary {
            first: true,
            facts,
            ..ChangeSummary::default()
        };
    };
    let report = driftgate_compare::judge(
        new,
        Some(old),
        policy,
        &JudgeOptions {
            strict: false,
            changes_only: true,
            without_rule_counts: true,
            ..JudgeOptions::default()
        },
    );
    ChangeSummary {
        first: false,
        counts: report.counts,
        blocking: report
            .findings_at(Severity::Block)
            .map(|f| f.path.clone())
            .collect(),
        facts,
    }
}
