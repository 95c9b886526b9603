//! Judging Windows inputs the way `driftgate import` + `check` and `capture` + `check` would,
//! in memory: for truncation walks and property tests over the pure parsers.

use std::sync::OnceLock;

use driftgate_collect::encoding::decode_text;
use driftgate_collect::transport::{CommandOutput, CommandSpec, CommandTransport, TransportError};
use driftgate_collect::{CaptureOptions, NoReporter, SourceSpec, capture_host, windows};
use driftgate_compare::{JudgeOptions, Policy, Verdict};
use driftgate_snapshot::{Facts, HostName, Snapshot, SourceRecord, SourceStatus, VerifiedSnapshot};

use super::root;

/// The seed-1 host.
pub(crate) const HOST: &str = "azl-node01";

/// What became of an input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Judged {
    /// Refused (`import` exits 2) or captured as a source that is not complete; the error.
    NotComplete(String),
    /// Complete, and judged so.
    Verdict(Verdict),
}

impl Judged {
    /// Whether this is the failure the truncation property forbids: complete and passing.
    pub(crate) fn passes(&self) -> bool {
        matches!(self, Judged::Verdict(Verdict::Pass | Verdict::Warn))
    }
}

fn policy() -> &'static Policy {
    static POLICY: OnceLock<Policy> = OnceLock::new();
    POLICY.get_or_init(Policy::builtin)
}

fn judge(sources: Vec<SourceRecord>, facts: Facts, baseline: Option<&VerifiedSnapshot>) -> Verdict {
    let snapshot = Snapshot {
        host: HostName::new(HOST).expect("a valid host name"),
        captured_at: "2026-11-30T02:00:00Z".parse().expect("a timestamp"),
        tool: "driftgate test".to_owned(),
        sources,
        facts,
    };
    let sealed = Snapshot::seal(&snapshot.to_canonical_json(), "in-memory")
        .expect("a snapshot driftgate wrote reads back");
    driftgate_compare::judge(&sealed, baseline, policy(), &JudgeOptions::default()).verdict
}

/// `driftgate import windows-qos FILE` then `driftgate check --snapshot` (no baseline) on
/// the bytes of a paste.
pub(crate) fn judge_paste(bytes: &[u8]) -> Judged {
    let text = match decode_text(bytes) {
        Ok(text) => text,
        Err(e) => return Judged::NotComplete(format!("cannot decode: {e}")),
    };
    match windows::text::parse(&text) {
        Err(e) => Judged::NotComplete(e.to_string()),
        Ok((facts, _)) => {
            let source = SourceRecord {
                name: "windows".into(),
                target: "import:paste".into(),
                status: SourceStatus::Complete,
                error: None,
            };
            Judged::Verdict(judge(vec![source], facts, None))
        }
    }
}

/// A command transport that answers with recorded bytes, as `dir:` does.
pub(crate) struct Recorded<'a>(pub &'a [u8]);

impl CommandTransport for Recorded<'_> {
    fn target(&self) -> String {
        "dir:recorded".to_owned()
    }

    fn run(&self, _: &CommandSpec<'_>) -> Result<CommandOutput, TransportError> {
        Ok(CommandOutput {
            status: 0,
            stdout: self.0.to_vec(),
            stderr: Vec::new(),
        })
    }
}

/// The BMC side of the seed-1 post-update state: its Redfish mockup, captured once.
pub(crate) fn post_update_bmc() -> &'static (SourceRecord, Facts) {
    static BMC: OnceLock<(SourceRecord, Facts)> = OnceLock::new();
    BMC.get_or_init(|| {
        let dir = root().join("examples/azure-local-dcbx/recorded/post-update/bmc");
        let spec = SourceSpec::parse(&format!("redfish=mockup:{}", dir.display()))
            .expect("a valid source");
        let captured = tokio::runtime::Runtime::new()
            .expect("a runtime")
            .block_on(capture_host(
                HostName::new(HOST).expect("a valid host name"),
                &[spec],
                &CaptureOptions::default(),
                &NoReporter,
            ));
        let snapshot = captured.snapshot;
        assert!(snapshot.is_complete(), "{:?}", snapshot.sources);
        (snapshot.sources[0].clone(), snapshot.facts)
    })
}

/// The seed-1 baseline (`examples/azure-local-dcbx/baseline.json`).
pub(crate) fn seed_1_baseline() -> &'static VerifiedSnapshot {
    static BASELINE: OnceLock<VerifiedSnapshot> = OnceLock::new();
    BASELINE.get_or_init(|| {
        let path = root().join("examples/azure-local-dcbx/baseline.json");
        let text = std::fs::read_to_string(&path).expect("the example baseline is there");
        VerifiedSnapshot::parse(&text, "baseline.json").expect("the example baseline is sealed")
    })
}

/// Collector output bytes judged two ways: (alone, no baseline: invariants only; with the
/// post-update BMC facts against the seed-1 baseline, as `capture` of both sources and
/// `check --baseline` would).
pub(crate) fn judge_collector(bytes: &[u8]) -> (Judged, Judged) {
    let capture = windows::capture(&Recorded(bytes));
    if capture.status != SourceStatus::Complete {
        let error = capture.error_text().unwrap_or_default();
        return (
            Judged::NotComplete(error.clone()),
            Judged::NotComplete(error),
        );
    }
    let windows = SourceRecord {
        name: "windows".into(),
        target: "dir:recorded".into(),
        status: SourceStatus::Complete,
        error: None,
    };
    let alone = judge(vec![windows.clone()], capture.facts.clone(), None);
    let (bmc_source, bmc_facts) = post_update_bmc();
    let mut facts = bmc_facts.clone();
    facts.extend(capture.facts);
    let with_bmc = judge(
        vec![bmc_source.clone(), windows],
        facts,
        Some(seed_1_baseline()),
    );
    (Judged::Verdict(alone), Judged::Verdict(with_bmc))
}
