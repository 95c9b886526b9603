use std::time::Duration;

use super::*;
use crate::{PromoteOutcome, PromoteRequest, promote};
use driftgate_compare::Policy;
use driftgate_snapshot::VerifiedSnapshot;

fn example(file: &str) -> String {
    let path = format!(
        "{}/examples/{file}",
        concat!(env!("CARGO_MANIFEST_DIR"), "/../..")
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The 1-based line of the first line of `text` that contains `needle`.
fn line_of(text: &str, needle: &str) -> u32 {
    let index = text
        .lines()
        .position(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("{needle} not in the text"));
    u32::try_from(index + 1).unwrap()
}

fn promoted_store(fleet: &str, file: &str) -> (tempfile::TempDir, Store, String) {
    let (dir, store) = driftgate_store::testing::committer_store();
    let snapshot = VerifiedSnapshot::parse(&example(file), file).unwrap();
    let request = PromoteRequest::one_fleet(fleet, vec![snapshot], Duration::from_secs(1));
    let PromoteOutcome::Promoted {
        commit: Some(commit),
        ..
    } = promote(&store, &Policy::builtin(), request).unwrap()
    else {
        panic!("not promoted")
    };
    (dir, store, commit.id.to_string())
}

#[test]
fn baseline_lines_read_git_and_baseline_origins_and_skip_files() {
    let (_dir, store, commit) = promoted_store("azure-local", "azure-local-dcbx/baseline.json");
    let path = "baselines/azure-local/azl-node01.json";
    let git = format!("git:{commit}:{path}");
    let lines = baseline_lines(
        &store,
        &[
            ("azl-node01", git.as_str()),
            ("by-ref", "baseline:azl-node01@HEAD"),
            ("file", "examples/azure-local-dcbx/baseline.json"),
            ("stdin", "<stdin>"),
        ],
    )
    .unwrap();
    assert_eq!(lines.keys().collect::<Vec<_>>(), ["azl-node01", "by-ref"]);
    let text = String::from_utf8(store.read(&commit, path).unwrap()).unwrap();
    for host in ["azl-node01", "by-ref"] {
        let found = &lines[host];
        assert_eq!(found.path, path);
        assert_eq!(found.commit, commit, "HEAD is resolved to its commit");
        assert_eq!(found.lines, fact_lines(&text));
        assert_eq!(found.repository, store.location().display().to_string());
    }
    // Promoted as it was written: its functions keyed by the BMC's Id.
    let dcbx = "nic/00:0a:f7:12:34:56/bmc/function/NIC.Slot.3-1-1/dcbx_mode";
    assert_eq!(
        lines["azl-node01"].lines[dcbx],
        line_of(&text, &format!("\"{dcbx}\""))
    );
}

#[test]
fn a_blob_that_cannot_be_read_is_an_error_naming_it() {
    let (_dir, store, commit) = promoted_store("azure-local", "azure-local-dcbx/baseline.json");
    let missing = format!("git:{commit}:baselines/azure-local/gone.json");
    let error = baseline_lines(&store, &[("gone", missing.as_str())]).unwrap_err();
    let text = error.to_string();
    assert!(text.contains("baselines/azure-local/gone.json"), "{text}");
    assert!(text.contains(&commit), "{text}");

    let error = baseline_lines(&store, &[("h", "git:no-such-rev:baselines/x/h.json")]).unwrap_err();
    assert!(error.to_string().contains("no-such-rev"), "{error}");

    let error = baseline_lines(&store, &[("esx01", "baseline:esx01@HEAD")]).unwrap_err();
    assert!(error.to_string().contains("esx01"), "{error}");
}
