use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::*;
use crate::collect::SourceCapture;
use crate::collect::transport::{
    CommandOutput, CommandSpec, CommandTransport, Location, ProcessOptions, TransportError,
    for_location,
};

fn recorded(state: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples/linux-mellanox-lldp/recorded")
        .join(state)
}

fn capture_dir(dir: &Path) -> SourceCapture {
    capture(
        for_location(
            &Location::Dir(dir.to_path_buf()),
            &ProcessOptions::default(),
        )
        .as_ref(),
    )
}

fn copy_of(state: &str) -> tempfile::TempDir {
    crate::collect::test_support::copy_recording(&recorded(state))
}

fn fact(capture: &SourceCapture, path: &str) -> Option<String> {
    capture.facts.get(path).map(ToString::to_string)
}

const P1: &str = "nic/0c:42:a1:5e:77:10/os";
const P2: &str = "nic/0c:42:a1:5e:77:11/os";

#[test]
fn physical_ports_are_keyed_by_mac_and_read_from_every_tool() {
    let base = capture_dir(&recorded("baseline"));
    assert_eq!(
        (base.status, base.error_text().as_deref()),
        (SourceStatus::Complete, None)
    );
    for (leaf, value) in [
        ("name", "\"ens1f0np0\""),
        ("dcb_supported", "true"),
        ("dcbx_control", "\"os\""),
        ("dcbx_willing", "false"),
        ("flow_control/operational/priority/3", "true"),
        ("traffic_class/operational/3/bandwidth", "50"),
        ("firmware_lldp/dcbx", "false"),
        ("trust", "\"pcp\""),
        ("pause/rx", "false"),
        ("driver/name", "\"mlx5_core\""),
    ] {
        assert_eq!(
            fact(&base, &format!("{P1}/{leaf}")).as_deref(),
            Some(value),
            "{leaf}"
        );
    }
    // Port 2 reads its own mlxconfig parameters (the _P2 ones), and only those.
    assert_eq!(
        fact(&base, &format!("{P2}/mlxconfig/LLDP_NB_DCBX_P2")).as_deref(),
        Some("\"False\"")
    );
    assert_eq!(
        fact(&base, &format!("{P2}/mlxconfig/LLDP_NB_DCBX_P1")),
        None
    );
    assert!(
        !base
            .facts
            .keys()
            .any(|k| k.as_str().contains("ens1f0np0.214") || k.as_str().contains("/lo/")),
        "the VLAN and loopback are not ports"
    );
    let post = capture_dir(&recorded("post-update"));
    assert_eq!(
        fact(&post, &format!("{P1}/dcbx_control")).as_deref(),
        Some("\"firmware\"")
    );
    assert_eq!(
        fact(&post, &format!("{P1}/firmware_lldp/dcbx")).as_deref(),
        Some("true")
    );
}

#[test]
fn a_device_without_dcb_is_a_fact_not_a_failure() {
    let dir = copy_of("baseline");
    std::fs::write(dir.path().join("dcb-ets-ens1f1np1.json"), "\n").unwrap();
    std::fs::write(
        dir.path().join("dcb-ets-ens1f1np1.json.stderr"),
        "Attribute read: Operation not supported\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("dcb-ets-ens1f1np1.json.exit"), "1\n").unwrap();
    let captured = capture_dir(dir.path());
    assert_eq!(
        captured.status,
        SourceStatus::Complete,
        "{:?}",
        captured.error
    );
    assert_eq!(
        fact(&captured, &format!("{P2}/dcb_supported")).as_deref(),
        Some("false")
    );
    assert_eq!(
        fact(
            &captured,
            &format!("{P2}/flow_control/operational/priority/3")
        ),
        None
    );
}

#[test]
fn optional_tools_may_be_absent_required_ones_may_not() {
    let dir = copy_of("baseline");
    for optional in [
        "mlnx_qos-ens1f0np0.txt",
        "mlnx_qos-ens1f1np1.txt",
        "devlink-info.json",
        "mlxconfig-0000:3b:00.0.txt",
        "mlxconfig-0000:3b:00.1.txt",
    ] {
        std::fs::remove_file(dir.path().join(optional)).unwrap();
    }
    let captured = capture_dir(dir.path());
    assert_eq!(
        captured.status,
        SourceStatus::Complete,
        "{:?}",
        captured.error
    );
    assert_eq!(fact(&captured, &format!("{P1}/firmware_lldp/dcbx")), None);
    std::fs::remove_file(dir.path().join("dcb-pfc-ens1f0np0.json")).unwrap();
    let captured = capture_dir(dir.path());
    assert_eq!(captured.status, SourceStatus::Partial);
    assert!(
        captured
            .error_text()
            .unwrap()
            .contains("`dcb -j pfc show dev ens1f0np0` was not recorded")
    );
    let empty = tempfile::tempdir().unwrap();
    assert_eq!(capture_dir(empty.path()).status, SourceStatus::Failed);
}

#[test]
fn the_ethtool_text_form_is_the_fallback_and_pending_firmware_is_recorded() {
    let dir = copy_of("baseline");
    std::fs::remove_file(dir.path().join("ethtool-pause-ens1f0np0.json")).unwrap();
    std::fs::write(
        dir.path().join("ethtool-pause-ens1f0np0.txt"),
        "Pause parameters for ens1f0np0:\nAutonegotiate:\toff\nRX:\t\ton\nTX:\t\ton\n",
    )
    .unwrap();
    let devlink = std::fs::read_to_string(dir.path().join("devlink-info.json")).unwrap();
    let pending = devlink.replacen(
        "\"stored\": {\n                    \"fw.version\": \"22.39.1002\"",
        "\"stored\": {\n                    \"fw.version\": \"22.41.1000\"",
        1,
    );
    assert_ne!(pending, devlink);
    std::fs::write(dir.path().join("devlink-info.json"), pending).unwrap();
    let captured = capture_dir(dir.path());
    assert_eq!(
        captured.status,
        SourceStatus::Complete,
        "{:?}",
        captured.error
    );
    assert_eq!(
        fact(&captured, &format!("{P1}/pause/rx")).as_deref(),
        Some("true")
    );
    assert_eq!(
        fact(&captured, &format!("{P1}/firmware/pending/fw.version")).as_deref(),
        Some("\"22.41.1000\"")
    );
    assert_eq!(
        fact(&captured, &format!("{P2}/firmware/pending/fw.version")),
        None
    );
}

/// Recordings held in memory and served as the `dir:` transport serves a folder: `FILE`,
/// with `FILE.stderr` and `FILE.exit` beside it, and `NotRecorded` for a file that is not
/// there. Lets a test capture thousands of damaged recordings without touching the disk.
struct Recorded(BTreeMap<String, Vec<u8>>);

impl CommandTransport for Recorded {
    fn target(&self) -> String {
        "recorded".to_owned()
    }

    fn run(&self, spec: &CommandSpec<'_>) -> Result<CommandOutput, TransportError> {
        let stdout = self
            .0
            .get(spec.file)
            .ok_or_else(|| TransportError::NotRecorded {
                target: self.target(),
                command: spec.display(),
                file: spec.file.to_owned(),
            })?
            .clone();
        let sibling = |suffix: &str| self.0.get(&format!("{}{suffix}", spec.file));
        Ok(CommandOutput {
            status: sibling(".exit").map_or(0, |b| {
                String::from_utf8_lossy(b)
                    .trim()
                    .parse()
                    .expect("an exit status")
            }),
            stdout,
            stderr: sibling(".stderr").cloned().unwrap_or_default(),
        })
    }
}

/// Every file of a recorded state, by name.
fn load(state: &str) -> BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(recorded(state))
        .unwrap()
        .map(|entry| {
            let entry = entry.unwrap();
            (
                entry.file_name().to_string_lossy().into_owned(),
                std::fs::read(entry.path()).unwrap(),
            )
        })
        .collect()
}

/// The example's baseline, read once.
fn example_baseline() -> &'static crate::snapshot::VerifiedSnapshot {
    static BASELINE: std::sync::OnceLock<crate::snapshot::VerifiedSnapshot> =
        std::sync::OnceLock::new();
    BASELINE.get_or_init(|| {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("examples/linux-mellanox-lldp/baseline.json");
        let text = std::fs::read_to_string(&path).unwrap();
        crate::snapshot::VerifiedSnapshot::parse(&text, &path.display().to_string()).unwrap()
    })
}

/// How `check` judges a capture against the example's baseline with the built-in policy.
fn judged(captured: &SourceCapture) -> crate::compare::Verdict {
    let baseline = example_baseline().snapshot();
    let snapshot = crate::snapshot::Snapshot {
        host: baseline.host.clone(),
        captured_at: baseline.captured_at,
        tool: baseline.tool.clone(),
        sources: vec![crate::snapshot::SourceRecord {
            name: "linux".to_owned(),
            target: "recorded".to_owned(),
            status: captured.status,
            error: captured.error_text(),
        }],
        facts: captured.facts.clone(),
    };
    let sealed = crate::snapshot::VerifiedSnapshot::parse(&snapshot.to_canonical_json(), "capture")
        .expect("a snapshot driftgate wrote reads back");
    crate::compare::judge(
        &sealed,
        Some(example_baseline()),
        &crate::compare::Policy::builtin(),
        &crate::compare::JudgeOptions::default(),
    )
    .verdict
}

/// Cuts `file` at every byte offset and captures each: (cuts, cuts that lost only trailing
/// whitespace, descriptions of the other cuts that still read as complete).
fn walk(
    intact: &BTreeMap<String, Vec<u8>>,
    whole: &SourceCapture,
    file: &str,
    bytes: &[u8],
) -> (usize, usize, Vec<String>) {
    let (mut whole_answers, mut complete_otherwise) = (0, Vec::new());
    for cut in 0..bytes.len() {
        let mut files = intact.clone();
        files.insert(file.to_owned(), bytes[..cut].to_vec());
        let captured = capture(&Recorded(files));
        if captured.status != SourceStatus::Complete {
            continue;
        }
        // Exempt by rule: a prefix that lacks only trailing whitespace (the final newline)
        // is the whole answer, so it must read exactly as the whole file does.
        if bytes[cut..].iter().all(u8::is_ascii_whitespace) {
            assert_eq!(captured.facts, whole.facts, "{file} cut at {cut}");
            whole_answers += 1;
            continue;
        }
        complete_otherwise.push(format!(
            "{file} cut at {cut} (…{:?}): {:?}",
            String::from_utf8_lossy(&bytes[cut.saturating_sub(20)..cut]),
            judged(&captured)
        ));
    }
    (bytes.len(), whole_answers, complete_otherwise)
}

/// The truncation walk of issue 9: every recording of the post-update state, cut at every
/// byte offset (the transport hands the parsers bytes, read lossily), is captured with the
/// other recordings intact. Each cut must make the source partial; the only exempt cuts are
/// those that lose nothing but trailing whitespace, whose prefix is the whole answer (they
/// must read exactly as the intact file). No other cut may read as complete, whatever its
/// verdict; the verdict is in the failure message so a regression says whether it passes.
#[test]
fn every_truncation_of_the_post_update_recordings_is_partial_or_still_blocks() {
    use crate::compare::Verdict;
    let intact = load("post-update");
    let whole = capture(&Recorded(intact.clone()));
    assert_eq!(whole.status, SourceStatus::Complete, "{:?}", whole.error);
    assert_eq!(judged(&whole), Verdict::Block);
    // One thread per file: each cut is a whole capture, and there are about 9,000 of them.
    let walks: Vec<(usize, usize, Vec<String>)> = std::thread::scope(|scope| {
        let intact = &intact;
        let whole = &whole;
        let handles: Vec<_> = intact
            .iter()
            .map(|(file, bytes)| scope.spawn(move || walk(intact, whole, file, bytes)))
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let cuts: usize = walks.iter().map(|w| w.0).sum();
    let whole_answers: usize = walks.iter().map(|w| w.1).sum();
    let complete_otherwise: Vec<String> = walks.into_iter().flat_map(|w| w.2).collect();
    assert!(cuts > 9_000, "{cuts} cuts");
    assert!(whole_answers > 0);
    assert_eq!(complete_otherwise, Vec::<String>::new(), "of {cuts} cuts");
}

/// The Linux fuzz corpus (`tests/fixtures/fuzz/linux`, see its README).
fn corpus(kind: &str) -> Vec<(String, PathBuf)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/fuzz/linux")
        .join(kind);
    let mut cases: Vec<(String, PathBuf)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| {
            let entry = entry.unwrap();
            (
                entry.file_name().to_string_lossy().into_owned(),
                entry.path(),
            )
        })
        .collect();
    cases.sort();
    cases
}

/// The post-update recordings with a corpus overlay applied: its files replace theirs, and
/// `FILE.removed` deletes `FILE`.
fn overlaid(overlay: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut files = load("post-update");
    for entry in std::fs::read_dir(overlay).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name().to_string_lossy().into_owned();
        match name.strip_suffix(".removed") {
            Some(removed) => assert!(files.remove(removed).is_some(), "{name}"),
            None => {
                files.insert(name, std::fs::read(entry.path()).unwrap());
            }
        }
    }
    files
}

#[test]
fn every_bug_of_the_corpus_is_partial_and_every_seed_complete() {
    use crate::compare::Verdict;
    let bugs = corpus("bugs");
    assert!(bugs.len() >= 12, "{bugs:?}");
    for (name, dir) in bugs {
        let captured = capture(&Recorded(overlaid(&dir)));
        assert_eq!(captured.status, SourceStatus::Partial, "{name}");
        assert!(
            captured
                .error_text()
                .is_some_and(|e| e.contains("recorded: `")),
            "{name}"
        );
    }
    for (name, dir) in corpus("seeds") {
        let captured = capture(&Recorded(overlaid(&dir)));
        assert_eq!(
            captured.status,
            SourceStatus::Complete,
            "{name}: {:?}",
            captured.error
        );
        assert_eq!(judged(&captured), Verdict::Block, "{name}");
    }
}

/// A way to damage one recording.
#[derive(Debug, Clone)]
enum Damage {
    /// Keep the bytes before the index.
    Truncate(proptest::sample::Index),
    /// Overwrite one byte.
    Replace(proptest::sample::Index, u8),
    /// Insert one byte.
    Insert(proptest::sample::Index, u8),
    /// Remove a run of up to 16 bytes.
    Delete(proptest::sample::Index, usize),
}

impl Damage {
    fn apply(&self, bytes: &[u8]) -> Vec<u8> {
        let mut out = bytes.to_vec();
        match self {
            Damage::Truncate(at) => out.truncate(at.index(bytes.len() + 1)),
            Damage::Replace(at, byte) if !bytes.is_empty() => out[at.index(bytes.len())] = *byte,
            Damage::Replace(..) => {}
            Damage::Insert(at, byte) => out.insert(at.index(bytes.len() + 1), *byte),
            Damage::Delete(at, len) => {
                let start = at.index(bytes.len() + 1);
                out.drain(start..(start + len).min(bytes.len()));
            }
        }
        out
    }
}

/// What a damage lands on: every post-update recording, and the recordings a seed adds (the
/// `pause-text` seed holds the only ethtool text-form answers), so each parser gets its share.
fn damage_targets() -> Vec<(Option<&'static str>, String)> {
    let mut targets: Vec<(Option<&'static str>, String)> =
        load("post-update").into_keys().map(|f| (None, f)).collect();
    targets.extend(
        ["ethtool-pause-ens1f0np0.txt", "ethtool-pause-ens1f1np1.txt"]
            .map(|f| (Some("pause-text"), f.to_owned())),
    );
    targets
}

fn damage() -> impl proptest::strategy::Strategy<Value = Damage> {
    use proptest::prelude::*;
    prop_oneof![
        any::<proptest::sample::Index>().prop_map(Damage::Truncate),
        (any::<proptest::sample::Index>(), any::<u8>()).prop_map(|(i, b)| Damage::Replace(i, b)),
        (any::<proptest::sample::Index>(), any::<u8>()).prop_map(|(i, b)| Damage::Insert(i, b)),
        (any::<proptest::sample::Index>(), 1..16usize).prop_map(|(i, n)| Damage::Delete(i, n)),
    ]
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]

    /// Every Linux parser sees its own recording damaged (the recordings cover all of them;
    /// the `pause-text` seed covers the ethtool text form): the capture never panics, and a
    /// damaged recording never yields a complete source that passes where the intact one
    /// BLOCKs.
    #[test]
    fn damaged_recordings_never_pass_where_the_intact_ones_block(
        target in proptest::sample::select(damage_targets()),
        damage in damage(),
    ) {
        let (seed, name) = target;
        let mut files = match seed {
            Some(seed) => overlaid(&Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/fixtures/fuzz/linux/seeds").join(seed)),
            None => load("post-update"),
        };
        let damaged = damage.apply(&files[&name]);
        files.insert(name.clone(), damaged);
        let captured = capture(&Recorded(files));
        if captured.status == SourceStatus::Complete {
            proptest::prop_assert_eq!(judged(&captured), crate::compare::Verdict::Block, "{} {:?}", name, damage);
        }
    }
}
