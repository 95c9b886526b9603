//! Damaged Redfish bodies never pass where the intact service blocks.
//!
//! The seed-1 post-update mockup (which BLOCKs against the seed-1 baseline mockup under the
//! built-in policy) is served from memory; one or more of its bodies are cut short or have
//! bytes replaced, or any value gets one of another type, and the whole capture (crawl,
//! normalization, shape check) is judged. A result that is `complete` and PASSes would be a
//! broken capture looking healthy. The mutations of `tests/fixtures/fuzz/redfish/shapes.json`
//! are replayed here too.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use proptest::prelude::*;
use proptest::sample::Index;
use serde_json::Value;

use driftgate_collect::SourceCapture;
use driftgate_compare::{JudgeOptions, Policy, Verdict};
use driftgate_redfish::crawl::Registries;
use driftgate_redfish::fetch::{Fetch, FetchError};
use driftgate_redfish::{RedfishOptions, capture_from};
use driftgate_snapshot::{HostName, Snapshot, SourceRecord, SourceStatus, VerifiedSnapshot};

/// A mockup held in memory: URI → body bytes, served as a BMC without `$expand` would.
#[derive(Clone)]
pub(crate) struct Memory {
    pub(crate) bodies: BTreeMap<String, Vec<u8>>,
}

fn recorded(state: &str) -> PathBuf {
    crate::common::root()
        .join("examples/azure-local-dcbx/recorded")
        .join(state)
        .join("bmc/redfish/v1")
}

fn index_files(dir: &Path, found: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("the recorded mockup is readable") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            index_files(&path, found);
        } else if path.file_name().is_some_and(|n| n == "index.json") {
            found.push(path);
        }
    }
}

impl Memory {
    fn load(root: &Path) -> Memory {
        let mut files = Vec::new();
        index_files(root, &mut files);
        let bodies = files
            .into_iter()
            .map(|file| {
                let folder = file.parent().expect("index.json is in a folder");
                let relative = folder.strip_prefix(root).expect("below the root");
                let uri = format!("/redfish/v1/{}", relative.display());
                let body = std::fs::read(&file).expect("a recorded body");
                (uri.trim_end_matches('/').to_owned(), body)
            })
            .collect();
        Memory { bodies }
    }
}

impl Fetch for Memory {
    fn target(&self) -> String {
        "memory:seed-1".to_owned()
    }

    async fn get_body(&self, uri: &str) -> Result<Vec<u8>, FetchError> {
        let status = |status| FetchError::Status {
            uri: uri.to_owned(),
            status,
            detail: String::new(),
        };
        if uri.contains('?') {
            return Err(status(501));
        }
        self.bodies
            .get(uri.trim_end_matches('/'))
            .cloned()
            .ok_or_else(|| status(404))
    }
}

fn capture(memory: &Memory) -> SourceCapture {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("a runtime")
        .block_on(capture_from(memory, 4, &RedfishOptions::default()))
}

pub(crate) fn sealed(capture: &SourceCapture) -> VerifiedSnapshot {
    let snapshot = Snapshot {
        host: HostName::new("azl-node01").expect("a valid host name"),
        captured_at: jiff::Timestamp::UNIX_EPOCH,
        tool: driftgate_snapshot::tool_version(),
        sources: vec![SourceRecord {
            name: "redfish".to_owned(),
            target: capture.target.clone(),
            status: capture.status,
            error: capture.error_text(),
        }],
        facts: capture.facts.clone(),
    };
    Snapshot::seal(&snapshot.to_canonical_json(), "fuzz").expect("a capture seals")
}

pub(crate) struct Seed {
    pub(crate) intact: Memory,
    pub(crate) baseline: VerifiedSnapshot,
    pub(crate) policy: Policy,
}

impl Seed {
    fn verdict(&self, capture: &SourceCapture) -> Verdict {
        self.verdict_against(capture, Some(&self.baseline))
    }

    fn verdict_against(
        &self,
        capture: &SourceCapture,
        baseline: Option<&VerifiedSnapshot>,
    ) -> Verdict {
        driftgate_compare::judge(
            &sealed(capture),
            baseline,
            &self.policy,
            &JudgeOptions::default(),
        )
        .verdict
    }
}

/// Captured once per test binary: every case compares with it.
pub(crate) fn seed() -> &'static Seed {
    static SEED: std::sync::OnceLock<Seed> = std::sync::OnceLock::new();
    SEED.get_or_init(load_seed)
}

fn load_seed() -> Seed {
    let baseline = capture(&Memory::load(&recorded("baseline")));
    assert_eq!(
        baseline.status,
        SourceStatus::Complete,
        "{:?}",
        baseline.error
    );
    let seed = Seed {
        intact: Memory::load(&recorded("post-update")),
        baseline: sealed(&baseline),
        policy: Policy::builtin(),
    };
    let intact = capture(&seed.intact);
    assert_eq!(intact.status, SourceStatus::Complete, "{:?}", intact.error);
    assert_eq!(seed.verdict(&intact), Verdict::Block);
    seed
}

/// The property: not complete, or still BLOCK.
fn assert_fails_closed(seed: &Seed, captured: &SourceCapture, what: &str) {
    let verdict = seed.verdict(captured);
    assert!(
        captured.status != SourceStatus::Complete || verdict == Verdict::Block,
        "{what}: {:?} and {verdict:?}",
        captured.status
    );
}

/// The part of a body that is a whole answer: JSON may end in whitespace.
fn whole(body: &[u8]) -> &[u8] {
    body.trim_ascii_end()
}

#[test]
fn every_prefix_of_every_body_is_refused_unless_it_is_the_whole_body() {
    // Exempt by rule: a prefix that only drops trailing whitespace is the whole document.
    let memory = Memory::load(&recorded("post-update"));
    for (uri, body) in &memory.bodies {
        for cut in 0..body.len() {
            let prefix = &body[..cut];
            let parsed = serde_json::from_slice::<Value>(prefix);
            assert_eq!(
                parsed.is_ok(),
                whole(prefix) == whole(body),
                "{uri} cut at byte {cut}"
            );
        }
    }
}

#[test]
fn truncated_bodies_make_the_capture_partial() {
    // Every body the crawl reads, cut every 61 bytes (the parse layer above covers every
    // offset). The attribute registry and the files that lead to it included: a listed
    // registry that cannot be read would leave secrets to names alone.
    let seed = seed();
    let read = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("a runtime")
        .block_on(driftgate_redfish::crawl::crawl(
            &seed.intact,
            4,
            true,
            Registries::Whole,
        ))
        .fetched;
    for (uri, body) in &seed.intact.bodies {
        for cut in (0..whole(body).len()).step_by(61) {
            let mut damaged = seed.intact.clone();
            damaged.bodies.insert(uri.clone(), body[..cut].to_vec());
            let captured = capture(&damaged);
            if read.contains_key(uri) {
                assert_ne!(
                    captured.status,
                    SourceStatus::Complete,
                    "{uri} cut at {cut}"
                );
            }
            assert_fails_closed(seed, &captured, &format!("{uri} cut at {cut}"));
        }
    }
}

#[test]
fn the_shape_fixtures_are_partial_in_memory_too() {
    let file = crate::common::root().join("tests/fixtures/fuzz/redfish/shapes.json");
    let cases: Value =
        serde_json::from_slice(&std::fs::read(file).expect("the fixture")).expect("JSON");
    let seed = seed();
    for (kind, complete) in [("partial", false), ("complete", true)] {
        for case in cases[kind].as_array().expect("a list") {
            let mut damaged = seed.intact.clone();
            for edit in case["edits"].as_array().expect("edits") {
                let uri = format!(
                    "/redfish/v1/{}",
                    edit["file"]
                        .as_str()
                        .expect("file")
                        .trim_end_matches("index.json")
                );
                let uri = uri.trim_end_matches('/').to_owned();
                let mut body: Value =
                    serde_json::from_slice(&damaged.bodies[&uri]).expect("a recorded body");
                let pointer = edit["pointer"].as_str().expect("pointer");
                let (parent, key) = pointer.rsplit_once('/').unwrap_or(("", ""));
                match (edit.get("value"), body.pointer_mut(pointer)) {
                    (Some(value), Some(old)) => *old = value.clone(),
                    (Some(value), None) => {
                        body.pointer_mut(parent)
                            .and_then(Value::as_object_mut)
                            .expect("an object")
                            .insert(key.to_owned(), value.clone());
                    }
                    (None, _) => match body.pointer_mut(parent).expect("the parent") {
                        Value::Object(map) => {
                            map.remove(key);
                        }
                        Value::Array(items) => {
                            items.remove(key.parse::<usize>().expect("an index"));
                        }
                        _ => panic!("{pointer}"),
                    },
                }
                damaged
                    .bodies
                    .insert(uri, serde_json::to_vec(&body).expect("serializes"));
            }
            let captured = capture(&damaged);
            let name = case["name"].as_str().unwrap_or("?");
            assert_eq!(
                captured.status == SourceStatus::Complete,
                complete,
                "{name}: {:?}",
                captured.error
            );
            if let Some(expect) = case["expect"].as_str() {
                let error = captured.error_text().unwrap_or_default();
                assert!(error.contains(expect), "{name}: {error}");
            }
            assert_fails_closed(seed, &captured, name);
        }
    }
}

/// How a body is damaged.
#[derive(Debug, Clone)]
enum Damage {
    /// Cut at this point.
    Truncate(Index),
    /// These bytes replaced.
    Replace(Vec<(Index, u8)>),
    /// A byte dropped.
    Drop(Index),
}

fn damage() -> impl Strategy<Value = Damage> {
    // Bytes that JSON gives meaning to, and any byte.
    let byte = prop_oneof![
        prop::sample::select(b"{}[]\":,0123456789.-tfnul \\aeE".to_vec()),
        any::<u8>(),
    ];
    prop_oneof![
        any::<Index>().prop_map(Damage::Truncate),
        prop::collection::vec((any::<Index>(), byte), 1..4).prop_map(Damage::Replace),
        any::<Index>().prop_map(Damage::Drop),
    ]
}

/// 256 cases, failures kept in the Redfish corpus (`tests/fixtures/fuzz/redfish/`).
fn config() -> ProptestConfig {
    ProptestConfig {
        failure_persistence: Some(Box::new(
            proptest::test_runner::FileFailurePersistence::Direct(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/tests/fixtures/fuzz/redfish/proptest-regressions.txt"
            )),
        )),
        ..ProptestConfig::with_cases(256)
    }
}

fn apply(body: &[u8], damage: &Damage) -> Vec<u8> {
    let mut body = body.to_vec();
    match damage {
        Damage::Truncate(at) => body.truncate(at.index(body.len())),
        Damage::Replace(edits) => {
            for (at, byte) in edits {
                let at = at.index(body.len());
                body[at] = *byte;
            }
        }
        Damage::Drop(at) => {
            body.remove(at.index(body.len()));
        }
    }
    body
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn damaged_bodies_never_pass_where_the_intact_mockup_blocks(
        file in any::<Index>(),
        damages in prop::collection::vec(damage(), 1..3),
    ) {
        let seed = seed();
        let uris: Vec<&String> = seed.intact.bodies.keys().collect();
        let uri = uris[file.index(uris.len())].clone();
        let mut damaged = seed.intact.clone();
        let mut body = damaged.bodies[&uri].clone();
        for damage in &damages {
            if !body.is_empty() {
                body = apply(&body, damage);
            }
        }
        damaged.bodies.insert(uri.clone(), body);
        assert_fails_closed(seed, &capture(&damaged), &format!("{uri} {damages:?}"));
    }
}

/// Every value inside `body` (not the body itself), by JSON pointer, in document order.
fn pointers(value: &Value, at: &str, found: &mut Vec<String>) {
    let escape = |key: &str| key.replace('~', "~0").replace('/', "~1");
    match value {
        Value::Object(map) => {
            for (key, child) in map {
                let pointer = format!("{at}/{}", escape(key));
                found.push(pointer.clone());
                pointers(child, &pointer, found);
            }
        }
        Value::Array(items) => {
            for (index, child) in items.iter().enumerate() {
                let pointer = format!("{at}/{index}");
                found.push(pointer.clone());
                pointers(child, &pointer, found);
            }
        }
        _ => {}
    }
}

/// A value of each JSON type but null (null is "no value" in Redfish, not a wrong type).
fn retyped(original: &Value, choice: usize) -> Value {
    let candidates = [
        Value::from("x"),
        Value::from(7),
        Value::from(true),
        Value::Object(serde_json::Map::new()),
        Value::Array(Vec::new()),
    ];
    let same = |v: &Value| std::mem::discriminant(v) == std::mem::discriminant(original);
    let others: Vec<&Value> = candidates.iter().filter(|v| !same(v)).collect();
    others[choice % others.len()].clone()
}

proptest! {
    #![proptest_config(config())]

    /// A value of another type anywhere in a body the crawl reads: complete only if the
    /// verdict still BLOCKs, with the baseline and without one (invariants alone).
    #[test]
    fn a_value_of_another_type_never_passes_with_or_without_a_baseline(
        file in any::<Index>(),
        node in any::<Index>(),
        choice in 0usize..4,
    ) {
        let seed = seed();
        let uris: Vec<&String> = seed.intact.bodies.keys().collect();
        let uri = uris[file.index(uris.len())].clone();
        let mut body: Value = serde_json::from_slice(&seed.intact.bodies[&uri]).expect("JSON");
        let mut all = Vec::new();
        pointers(&body, "", &mut all);
        prop_assume!(!all.is_empty());
        let pointer = all[node.index(all.len())].clone();
        let slot = body.pointer_mut(&pointer).expect("a pointer just listed");
        *slot = retyped(slot, choice);
        let mut damaged = seed.intact.clone();
        damaged.bodies.insert(uri.clone(), serde_json::to_vec(&body).expect("serializes"));
        let captured = capture(&damaged);
        if captured.status == SourceStatus::Complete {
            for baseline in [Some(&seed.baseline), None] {
                let verdict = seed.verdict_against(&captured, baseline);
                prop_assert_eq!(
                    verdict,
                    Verdict::Block,
                    "{} {} retyped; baseline {}",
                    uri,
                    pointer,
                    baseline.is_some()
                );
            }
        }
    }
}
