//! Damaged Linux recordings never pass where the intact ones block: every truncation of the
//! post-update recordings, the fuzz corpus (`tests/fixtures/fuzz/linux`) and generated damage,
//! each captured whole (from memory) and judged against the example's baseline as `check`
//! judges it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use driftgate_collect::SourceCapture;
use driftgate_collect::linux::capture;
use driftgate_collect::transport::{CommandOutput, CommandSpec, CommandTransport, TransportError};
use driftgate_snapshot::SourceStatus;

fn recorded(state: &str) -> PathBuf {
    crate::common::root()
        .join("examples/linux-mellanox-lldp/recorded")
        .join(state)
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
fn example_baseline() -> &'static driftgate_snapshot::VerifiedSnapshot {
    static BASELINE: std::sync::OnceLock<driftgate_snapshot::VerifiedSnapshot> =
        std::sync::OnceLock::new();
    BASELINE.get_or_init(|| {
        let path = crate::common::root().join("examples/linux-mellanox-lldp/baseline.json");
        let text = std::fs::read_to_string(&path).unwrap();
        driftgate_snapshot::VerifiedSnapshot::parse(&text, &path.display().to_string()).unwrap()
    })
}

/// How `check` judges a capture against the example's baseline with the built-in policy.
fn judged(captured: &SourceCapture) -> driftgate_compare::Verdict {
    let baseline = example_baseline().snapshot();
    let snapshot = driftgate_snapshot::Snapshot {
        host: baseline.host.clone(),
        captured_at: baseline.captured_at,
        tool: baseline.tool.clone(),
        sources: vec![driftgate_snapshot::SourceRecord {
            name: "linux".to_owned(),
            target: "recorded".to_owned(),
            status: captured.status,
            error: captured.error_text(),
        }],
        facts: captured.facts.clone(),
    };
    let sealed =
        driftgate_snapshot::VerifiedSnapshot::parse(&snapshot.to_canonical_json(), "capture")
            .expect("a snapshot driftgate wrote reads back");
    driftgate_compare::judge(
        &sealed,
        Some(example_baseline()),
        &driftgate_compare::Policy::builtin(),
        &driftgate_compare::JudgeOptions::default(),
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
    use driftgate_compare::Verdict;
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
    let dir = crate::common::root()
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
    use driftgate_compare::Verdict;
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
            Some(seed) => overlaid(&crate::common::root()
                .join("tests/fixtures/fuzz/linux/seeds").join(seed)),
            None => load("post-update"),
        };
        let damaged = damage.apply(&files[&name]);
        files.insert(name.clone(), damaged);
        let captured = capture(&Recorded(files));
        if captured.status == SourceStatus::Complete {
            proptest::prop_assert_eq!(judged(&captured), driftgate_compare::Verdict::Block, "{} {:?}", name, damage);
        }
    }
}
