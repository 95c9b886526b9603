//! The ESXi source end to end: recorded outputs → snapshot → verdict, and capture over the
//! real ssh transport against a test sshd whose `esxcli` is a stand-in printing recordings.

use crate::common;
use crate::common::sshd;

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use common::{copy_dir, driftgate, root, stdout_of};
use driftgate_collect::SourceCapture;
use driftgate_collect::esxi;
use driftgate_collect::transport::{CommandOutput, CommandSpec, CommandTransport, TransportError};
use driftgate_compare::{JudgeOptions, Policy, Verdict};
use driftgate_snapshot::{HostName, Snapshot, SourceRecord, SourceStatus, VerifiedSnapshot};
use predicates::prelude::*;
use sshd::Sshd;

const RDM: &str = "naa.60050768028081713c0000000000007d";

fn recorded(state: &str) -> PathBuf {
    root().join("examples/esxi-mscs-psp/recorded").join(state)
}

/// Captures `host` from `source` and returns (exit code, snapshot as JSON, stderr).
fn capture(source: &str, extra: &[&str]) -> (i32, serde_json::Value, String) {
    let output = driftgate()
        .args(["capture", "--host", "esx01", "--source", source])
        .args(extra)
        .output()
        .expect("driftgate runs");
    let snapshot = serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "{e}: {}\n{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    });
    (
        output.status.code().expect("exit code"),
        snapshot,
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// Captures `esx01` from the recordings in `dir` into the file `snapshot`.
fn capture_into(dir: &Path, snapshot: &Path) -> assert_cmd::assert::Assert {
    driftgate()
        .args(["capture", "--host", "esx01", "--source"])
        .arg(format!("esxi=dir:{}", dir.display()))
        .arg("--out")
        .arg(snapshot)
        .assert()
}

#[test]
fn recorded_outputs_reproduce_the_checked_in_examples() {
    for (state, file) in [
        ("healthy", "baseline.json"),
        ("round-robin", "current.json"),
    ] {
        let (code, captured, _) = capture(
            &format!("esxi=dir:examples/esxi-mscs-psp/recorded/{state}"),
            &[],
        );
        assert_eq!(code, 0);
        let checked_in: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(root().join("examples/esxi-mscs-psp").join(file)).unwrap(),
        )
        .unwrap();
        for key in ["facts", "sources", "host", "schema"] {
            assert_eq!(
                captured[key], checked_in[key],
                "{file}: {key} differs; regenerate with driftgate capture"
            );
        }
    }
}

#[test]
fn round_robin_blocks_naming_device_psp_version_and_why_and_mru_passes() {
    let dir = tempfile::tempdir().unwrap();
    let rr = dir.path().join("rr.json");
    driftgate()
        .args(["capture", "--host", "esx01", "--source"])
        .arg(format!("esxi=dir:{}", recorded("round-robin").display()))
        .arg("--out")
        .arg(&rr)
        .assert()
        .code(0);
    let (code, out) = stdout_of(driftgate().args(["check", "--snapshot"]).arg(&rr));
    assert_eq!(code, 1, "{out}");
    let finding = out
        .lines()
        .skip_while(|l| {
            !(l.starts_with("  storage/") && l.ends_with("[psp-rr-on-reserved-device]"))
        })
        .nth(1)
        .unwrap_or_default();
    for needle in [
        RDM,
        "VMW_PSP_RR",
        "ESXi 5.0.0",
        "SCSI-3 reservations",
        "-P VMW_PSP_MRU",
    ] {
        assert!(
            finding.contains(needle),
            "{needle:?} missing from {finding:?}"
        );
    }
    let (code, out) = stdout_of(driftgate().args([
        "check",
        "--snapshot",
        "examples/esxi-mscs-psp/baseline.json",
    ]));
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("device naa.60050768028081713c0000000000007d uses VMW_PSP_MRU; VMW_SATP_SVC's default gives VMW_PSP_FIXED"), "{out}");
}

#[test]
fn per_device_expectations_and_the_mscs_policy_example() {
    let policy = root().join("examples/esxi-mscs-psp/mscs-policy.toml");
    let (code, out) = stdout_of(
        driftgate()
            .args([
                "check",
                "--snapshot",
                "examples/esxi-mscs-psp/current.json",
                "--policy",
            ])
            .arg(&policy),
    );
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("[psp-rr-mscs-unsupported-guest]"), "{out}");
    assert!(
        out.contains("expected \"VMW_PSP_MRU\", found \"VMW_PSP_RR\""),
        "{out}"
    );
    driftgate()
        .args([
            "check",
            "--snapshot",
            "examples/esxi-mscs-psp/baseline.json",
            "--policy",
        ])
        .arg(&policy)
        .assert()
        .code(0);
}

#[test]
fn a_host_whose_esxcli_failed_is_incomplete() {
    let dir = tempfile::tempdir().unwrap();
    let snapshot = dir.path().join("s.json");
    // An empty recording folder: every esxcli command is missing.
    capture_into(dir.path(), &snapshot)
        .code(3)
        .stderr(predicate::str::contains("source esxi").and(predicate::str::contains("is failed")));
    driftgate()
        .args(["check", "--snapshot"])
        .arg(&snapshot)
        .assert()
        .code(3)
        .stdout(predicate::str::starts_with("INCOMPLETE esx01"));
}

#[test]
fn unknown_source_kinds_and_locations_are_usage_errors() {
    for source in [
        "nope=dir:x",
        "esxi",
        "esxi=ftp://x",
        "esxi=ssh://-oProxyCommand=evil",
    ] {
        driftgate()
            .args(["capture", "--host", "esx01", "--source", source])
            .assert()
            .code(2);
    }
}

/// A bin folder with a stand-in `esxcli` that prints a copy of the recordings in `recordings`
/// (XML form when recorded, else "Unable to find requested formatter"), and hangs while the
/// [`hang_marker`] exists.
fn stand_in_esxcli(recordings: &Path) -> tempfile::TempDir {
    let bin = tempfile::tempdir().unwrap();
    let copy = bin.path().join("recordings");
    std::fs::create_dir(&copy).unwrap();
    copy_dir(recordings, &copy);
    let script = format!(
        r#"#!/bin/sh
dir='{}'
while [ -f "$dir/HANG" ]; do sleep 1; done
case "$1" in
  --formatter=xml) shift; file="$dir/esxcli_$(echo "$*" | tr ' ' '_').xml"
    [ -f "$file" ] || {{ echo "Error: Unable to find requested formatter: xml" >&2; exit 1; }} ;;
  *) file="$dir/esxcli_$(echo "$*" | tr ' ' '_').txt" ;;
esac
if [ -f "$file" ]; then cat "$file"; else echo "Error: Unknown command or namespace $*" >&2; exit 1; fi
"#,
        copy.display()
    );
    let path = bin.path().join("esxcli");
    std::fs::write(&path, script).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    bin
}

fn ssh_capture(server: &Sshd, location: &str, extra: &[&str]) -> (i32, serde_json::Value, String) {
    let config = server.client_config.display().to_string();
    let mut args = vec!["--ssh-config", config.as_str()];
    args.extend_from_slice(extra);
    capture(&format!("esxi={location}"), &args)
}

#[test]
fn capture_over_ssh_equals_capture_of_the_recordings() {
    let bin = stand_in_esxcli(&recorded("round-robin"));
    let server = Sshd::start(bin.path());
    let (code, over_ssh, stderr) = ssh_capture(&server, "ssh://testhost", &[]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(over_ssh["sources"][0]["target"], "ssh://testhost");
    let (_, from_dir, _) = capture(
        &format!("esxi=dir:{}", recorded("round-robin").display()),
        &[],
    );
    assert_eq!(over_ssh["facts"], from_dir["facts"]);
    assert_eq!(
        over_ssh["facts"][format!("storage/nmp/{RDM}/psp")],
        "VMW_PSP_RR"
    );
}

#[test]
fn ssh_failures_make_the_source_fail_with_the_reason() {
    let bin = stand_in_esxcli(&recorded("healthy"));
    let server = Sshd::start(bin.path());

    // A host that refuses connections.
    let closed = format!("ssh://127.0.0.1:{}", sshd::free_port());
    let (code, snapshot, _) = ssh_capture(&server, &closed, &[]);
    assert_eq!(code, 3);
    assert_eq!(snapshot["sources"][0]["status"], "failed");
    let error = snapshot["sources"][0]["error"].as_str().unwrap();
    assert!(
        error.contains("ssh connection failed") && error.contains("refused"),
        "{error}"
    );

    // A command that hangs is stopped at the timeout.
    std::fs::write(hang_marker(&bin), "").unwrap();
    let (code, snapshot, _) = ssh_capture(&server, "ssh://testhost", &["--command-timeout", "2"]);
    std::fs::remove_file(hang_marker(&bin)).unwrap();
    assert_eq!(code, 3);
    let error = snapshot["sources"][0]["error"].as_str().unwrap();
    assert!(
        error.contains("did not finish within 2s and was stopped"),
        "{error}"
    );

    // A host key that does not match what we know.
    server.forget_host_key();
    let (code, snapshot, _) = ssh_capture(&server, "ssh://testhost", &[]);
    assert_eq!(code, 3);
    let error = snapshot["sources"][0]["error"].as_str().unwrap();
    assert!(
        error.contains("ssh connection failed") && error.contains("Host key verification failed"),
        "{error}"
    );
}

/// The stand-in hangs while this file exists beside its copy of the recordings.
fn hang_marker(bin: &tempfile::TempDir) -> PathBuf {
    bin.path().join("recordings/HANG")
}

#[test]
fn a_missing_esxcli_fails_the_source_naming_the_command() {
    let empty_bin = tempfile::tempdir().unwrap();
    let server = Sshd::start(empty_bin.path());
    let (code, snapshot, _) = ssh_capture(&server, "ssh://testhost", &[]);
    assert_eq!(code, 3);
    assert_eq!(snapshot["sources"][0]["status"], "failed");
    let error = snapshot["sources"][0]["error"].as_str().unwrap();
    assert!(
        error.contains("`esxcli storage nmp device list` exited with status 127")
            && error.contains("not found"),
        "{error}"
    );
}

// --- fail closed: truncated and corrupted recordings ----------------------------------------

/// Recordings held in memory and served by file name, as a `dir:` folder serves them.
struct InMemory(std::collections::BTreeMap<String, Vec<u8>>);

impl InMemory {
    /// Every file of a recorded state.
    fn of(state: &str) -> Self {
        let mut files = std::collections::BTreeMap::new();
        for entry in std::fs::read_dir(recorded(state)).unwrap() {
            let entry = entry.unwrap();
            let name = entry.file_name().into_string().unwrap();
            files.insert(name, std::fs::read(entry.path()).unwrap());
        }
        InMemory(files)
    }

    /// A copy with `file` replaced by `bytes`.
    fn with(&self, file: &str, bytes: &[u8]) -> Self {
        let mut files = self.0.clone();
        files.insert(file.to_owned(), bytes.to_vec());
        InMemory(files)
    }
}

impl CommandTransport for InMemory {
    fn target(&self) -> String {
        "dir:in-memory".to_owned()
    }

    fn run(&self, spec: &CommandSpec<'_>) -> Result<CommandOutput, TransportError> {
        let stdout = self
            .0
            .get(spec.file)
            .cloned()
            .ok_or_else(|| TransportError::NotRecorded {
                target: self.target(),
                command: spec.display(),
                file: spec.file.to_owned(),
            })?;
        Ok(CommandOutput {
            status: 0,
            stdout,
            stderr: Vec::new(),
        })
    }
}

/// The capture of `transport` sealed as a snapshot, as `driftgate capture` writes it.
fn snapshot_of(capture: &SourceCapture) -> VerifiedSnapshot {
    let snapshot = Snapshot {
        host: HostName::new("esx01").unwrap(),
        captured_at: "2026-11-30T13:40:57Z".parse().unwrap(),
        tool: driftgate_snapshot::tool_version(),
        sources: vec![SourceRecord {
            name: "esxi".to_owned(),
            target: "dir:in-memory".to_owned(),
            status: capture.status,
            error: capture.error_text(),
        }],
        facts: capture.facts.clone(),
    };
    Snapshot::seal(&snapshot.to_canonical_json(), "in-memory capture").unwrap()
}

/// Verdicts of a capture under the built-in policy: alone (`driftgate check --snapshot`) and
/// against the example's baseline (`--baseline examples/esxi-mscs-psp/baseline.json`).
fn verdicts(
    capture: &SourceCapture,
    baseline: &VerifiedSnapshot,
    policy: &Policy,
) -> (Verdict, Verdict) {
    let snapshot = snapshot_of(capture);
    let options = JudgeOptions::default();
    (
        driftgate_compare::judge(&snapshot, None, policy, &options).verdict,
        driftgate_compare::judge(&snapshot, Some(baseline), policy, &options).verdict,
    )
}

fn example_baseline() -> VerifiedSnapshot {
    let path = root().join("examples/esxi-mscs-psp/baseline.json");
    VerifiedSnapshot::parse(&std::fs::read_to_string(&path).unwrap(), "baseline.json").unwrap()
}

/// Prefixes of the seed-2 recordings that are themselves whole, valid answers: the capture
/// is complete. (file, whole lines kept, why it is a valid answer). Each still blocks.
const WHOLE_PREFIXES: [(&str, usize, &str); 4] = [
    (
        "esxcli_storage_nmp_satp_list.txt",
        5,
        "the SATP list without its last row, VMW_SATP_DEFAULT_AA, which claims no device here: a host without that plugin prints exactly this",
    ),
    (
        "esxcli_storage_nmp_satp_rule_list.txt",
        3,
        "the claim rules with the user rule only: esxcli prints one row per rule, and any set of rules is a valid rule list",
    ),
    (
        "esxcli_storage_nmp_satp_rule_list.txt",
        4,
        "the claim rules without the VMW_SATP_LOCAL and VMW_SATP_ALUA system rules: valid rows, fewer rules",
    ),
    (
        "esxcli_storage_nmp_satp_rule_list.txt",
        5,
        "the claim rules without the VMW_SATP_ALUA system rule: valid rows, fewer rules",
    ),
];

/// The byte offset after the first `lines` line endings of `bytes`.
fn after_lines(bytes: &[u8], lines: usize) -> usize {
    bytes
        .iter()
        .enumerate()
        .filter(|(_, b)| **b == b'\n')
        .nth(lines - 1)
        .map(|(i, _)| i + 1)
        .expect("enough lines")
}

#[test]
fn every_truncation_of_the_seed_2_recordings_is_partial_or_still_blocks() {
    let intact = InMemory::of("round-robin");
    let (baseline, policy) = (example_baseline(), Policy::builtin());
    let whole = esxi::capture(&intact);
    assert_eq!(whole.status, SourceStatus::Complete, "{:?}", whole.error);
    assert_eq!(
        verdicts(&whole, &baseline, &policy),
        (Verdict::Block, Verdict::Block)
    );
    let expected_whole: Vec<(String, usize)> = WHOLE_PREFIXES
        .iter()
        .map(|(file, lines, _)| ((*file).to_owned(), after_lines(&intact.0[*file], *lines)))
        .collect();
    let (mut walked, mut complete, mut escaped) = (0, Vec::new(), Vec::new());
    for (file, bytes) in &intact.0 {
        // Every byte offset short of the whole file; the transport hands bytes over as they
        // are, so a cut inside a multi-byte character is walked too.
        for cut in 0..bytes.len() {
            walked += 1;
            let captured = esxi::capture(&intact.with(file, &bytes[..cut]));
            if captured.status != SourceStatus::Complete {
                continue;
            }
            complete.push((file.clone(), cut));
            // Alone (`check --snapshot`), and against the baseline (`--baseline`).
            let judged = verdicts(&captured, &baseline, &policy);
            if judged != (Verdict::Block, Verdict::Block) {
                escaped.push(format!("{file} cut at byte {cut}: {judged:?}"));
            }
        }
    }
    assert!(walked > 4000, "{walked} prefixes");
    assert!(
        escaped.is_empty(),
        "{} of {walked} prefixes are complete and no longer block:\n{}",
        escaped.len(),
        escaped.join("\n")
    );
    assert_eq!(
        complete, expected_whole,
        "the complete prefixes are exactly the whole answers listed in WHOLE_PREFIXES"
    );
}

/// The fuzz corpus: `STEM.seed-NAME.EXT` (a recording) and `STEM.bug-NAME.EXT` (an input a
/// bug was found with), each standing for the command recorded as `STEM.EXT`.
fn corpus() -> Vec<(String, String, Vec<u8>)> {
    let dir = root().join("tests/fixtures/fuzz/esxi");
    let mut entries: Vec<(String, String, Vec<u8>)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|entry| {
            let entry = entry.unwrap();
            let name = entry.file_name().into_string().unwrap();
            let (stem, rest) = name.split_once('.')?;
            let (case, ext) = rest.rsplit_once('.')?;
            Some((
                case.to_owned(),
                format!("{stem}.{ext}"),
                std::fs::read(entry.path()).unwrap(),
            ))
        })
        .filter(|(case, _, _)| case.starts_with("seed-") || case.starts_with("bug-"))
        .collect();
    entries.sort();
    entries
}

#[test]
fn the_corpus_seeds_are_the_recordings() {
    let recorded = InMemory::of("round-robin");
    let seeds: Vec<_> = corpus()
        .into_iter()
        .filter(|(case, _, _)| case == "seed-round-robin")
        .collect();
    assert_eq!(seeds.len(), recorded.0.len());
    for (_, file, bytes) in seeds {
        assert_eq!(recorded.0.get(&file), Some(&bytes), "{file}");
    }
}

#[test]
fn every_bug_input_of_the_corpus_is_partial_naming_its_file_and_line() {
    let (intact, baseline, policy) = (
        InMemory::of("round-robin"),
        example_baseline(),
        Policy::builtin(),
    );
    let bugs: Vec<_> = corpus()
        .into_iter()
        .filter(|(case, _, _)| case.starts_with("bug-"))
        .collect();
    assert!(bugs.len() >= 10, "{} bug inputs", bugs.len());
    for (case, file, bytes) in bugs {
        let captured = esxi::capture(&intact.with(&file, &bytes));
        let error = captured.error_text().unwrap_or_default();
        assert_eq!(
            captured.status,
            SourceStatus::Partial,
            "{case} ({file}): {error}"
        );
        // The line is in the broken answer, or in the other answer it disagrees with; an
        // answer lost as a whole names no line (never "line 0") and says so.
        let lost = error.contains("an empty answer was lost on the way");
        assert!(
            error.contains(&format!("({file})"))
                && (error.contains(": line ") || lost)
                && !error.contains("line 0"),
            "{case}: the error names neither {file} nor a line: {error}"
        );
        assert_eq!(
            verdicts(&captured, &baseline, &policy),
            (Verdict::Incomplete, Verdict::Incomplete),
            "{case}"
        );
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]

    /// A seed-2 recording cut short and/or with bytes overwritten is partial, or its capture
    /// still blocks. Against the baseline always; alone (`check --snapshot`) when it was only
    /// cut, since a corrupted byte can spell another valid value (ESXi 5.0.0 as 5.5.0) that only
    /// the baseline tells apart.
    #[test]
    fn cut_or_corrupted_recordings_never_pass_where_the_intact_ones_block(
        pick in 0usize..5,
        cut in proptest::option::of(0usize..2048),
        corruptions in proptest::collection::vec((0usize..2048, proptest::prelude::any::<u8>()), 0..3),
    ) {
        let intact = InMemory::of("round-robin");
        let (file, bytes) = intact.0.iter().nth(pick % intact.0.len()).unwrap();
        let mut input = bytes.clone();
        for (at, byte) in &corruptions {
            let at = at % input.len();
            input[at] = *byte;
        }
        if let Some(cut) = cut {
            input.truncate(cut % input.len());
        }
        proptest::prop_assume!(&input != bytes);
        let captured = esxi::capture(&intact.with(file, &input));
        if captured.status == SourceStatus::Complete {
            let (alone, against_baseline) =
                verdicts(&captured, &example_baseline(), &Policy::builtin());
            proptest::prop_assert_eq!(against_baseline, Verdict::Block, "{}", file);
            if corruptions.is_empty() {
                proptest::prop_assert_eq!(alone, Verdict::Block, "{}", file);
            }
        }
    }
}

#[test]
fn a_recording_cut_mid_line_or_an_empty_core_list_is_incomplete_not_a_pass() {
    let nmp =
        std::fs::read_to_string(recorded("round-robin").join("esxcli_storage_nmp_device_list.txt"))
            .unwrap();
    let cut = &nmp[..nmp.rfind("Path Selection Policy: VMW_P").unwrap()
        + "Path Selection Policy: VMW_P".len()];
    for (file, text, needle) in [
        (
            "esxcli_storage_nmp_device_list.txt",
            cut,
            "(esxcli_storage_nmp_device_list.txt): line 21: the output ends in the middle of a line",
        ),
        (
            "esxcli_storage_core_device_list.txt",
            "",
            "(esxcli_storage_core_device_list.txt): no device",
        ),
    ] {
        let dir = tempfile::tempdir().unwrap();
        copy_dir(&recorded("round-robin"), dir.path());
        std::fs::write(dir.path().join(file), text).unwrap();
        let snapshot = dir.path().join("snapshot.json");
        capture_into(dir.path(), &snapshot)
            .code(3)
            .stderr(predicate::str::contains(needle));
        let written: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&snapshot).unwrap()).unwrap();
        assert_eq!(written["sources"][0]["status"], "partial", "{file}");
        for baseline in [None, Some("examples/esxi-mscs-psp/baseline.json")] {
            let mut check = driftgate();
            check.args(["check", "--snapshot"]).arg(&snapshot);
            if let Some(baseline) = baseline {
                check.args(["--baseline", baseline]);
            }
            check
                .assert()
                .code(3)
                .stdout(predicate::str::starts_with("INCOMPLETE esx01"));
        }
    }
}

#[test]
fn a_hanging_esxcli_ends_at_the_host_deadline_naming_the_command() {
    let bin = stand_in_esxcli(&recorded("healthy"));
    std::fs::write(hang_marker(&bin), "").unwrap();
    let path = format!(
        "{}:{}",
        bin.path().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let started = std::time::Instant::now();
    let output = driftgate()
        .args(["capture", "--host", "esx01", "--source", "esxi=local:"])
        .args(["--host-timeout", "2", "--command-timeout", "60"])
        .env("PATH", path)
        .output()
        .unwrap();
    let took = started.elapsed();
    let snapshot: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(output.status.code(), Some(3));
    // The deadline, not the 60 s a command may take (slack for a busy machine).
    assert!(took < std::time::Duration::from_secs(2 + 8), "{took:?}");
    let error = snapshot["sources"][0]["error"].as_str().unwrap();
    assert!(
        error.contains("`esxcli ")
            && error.contains("no answer within the host deadline of 2 s (--host-timeout): `"),
        "{error}"
    );
}
