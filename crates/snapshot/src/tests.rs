use super::*;
use crate::verified::parse_document;

fn sample() -> Snapshot {
    let mut facts = Facts::new();
    facts.insert(
        FactPath::new("nic/00:0a:f7:12:34:56/bmc/dcbx_mode").unwrap(),
        "ieee".into(),
    );
    facts.insert(
        FactPath::new("host/qos/flow_control/priority/3").unwrap(),
        true.into(),
    );
    facts.insert(
        FactPath::new("host/qos/traffic_class/smb/priorities").unwrap(),
        FactValue::list(vec![Scalar::Number(4.into()), Scalar::Number(3.into())]),
    );
    Snapshot {
        host: HostName::new("azl-node01").unwrap(),
        captured_at: "2026-11-30T02:00:00Z".parse().unwrap(),
        tool: "driftgate 0.1.0".into(),
        sources: vec![SourceRecord {
            name: "windows".into(),
            target: "ssh://azl-node01".into(),
            status: SourceStatus::Complete,
            error: None,
        }],
        facts,
    }
}

#[test]
fn canonical_form_is_one_fact_per_line_with_sorted_keys() {
    let text = sample().to_canonical_json();
    let expected_prefix =
        "{\n  \"captured_at\": \"2026-11-30T02:00:00Z\",\n  \"digest\": \"sha256:";
    assert!(text.starts_with(expected_prefix), "{text}");
    assert!(text.contains(
        "  \"facts\": {\n    \"host/qos/flow_control/priority/3\": true,\n    \"host/qos/traffic_class/smb/priorities\": [3,4],\n    \"nic/00:0a:f7:12:34:56/bmc/dcbx_mode\": \"ieee\"\n  },\n"
    ), "{text}");
    assert!(text.contains(
        "  \"sources\": [\n    {\"name\": \"windows\", \"status\": \"complete\", \"target\": \"ssh://azl-node01\"}\n  ],\n"
    ), "{text}");
    assert!(
        text.ends_with("  \"tool\": \"driftgate 0.1.0\"\n}\n"),
        "{text}"
    );
}

#[test]
fn canonical_form_is_stable_across_input_key_order() {
    let canonical = sample().to_canonical_json();
    let value: serde_json::Value = serde_json::from_str(&canonical).unwrap();
    let object = value.as_object().unwrap();
    // Rebuild the document with keys in reverse order and facts inserted backwards.
    let mut reversed = String::from("{");
    for (i, (key, v)) in object.iter().rev().enumerate() {
        if i > 0 {
            reversed.push(',');
        }
        if key == "facts" {
            let facts: Vec<String> = v
                .as_object()
                .unwrap()
                .iter()
                .rev()
                .map(|(k, v)| format!("{}:{v}", serde_json::to_string(k).unwrap()))
                .collect();
            reversed.push_str(&format!("\"facts\":{{{}}}", facts.join(",")));
        } else {
            reversed.push_str(&format!("{}:{v}", serde_json::to_string(key).unwrap()));
        }
    }
    reversed.push('}');
    assert_ne!(reversed, canonical);
    let read = VerifiedSnapshot::parse(&reversed, "reversed.json").unwrap();
    assert_eq!(read.snapshot().to_canonical_json(), canonical);
    assert_eq!(read.digest(), sample().digest());
}

#[test]
fn digest_matches_the_file_without_its_digest_line() {
    let text = sample().to_canonical_json();
    let without: String = text
        .lines()
        .filter(|l| !l.starts_with("  \"digest\": "))
        .map(|l| format!("{l}\n"))
        .collect();
    use sha2::Digest as _;
    let hash = format!(
        "sha256:{}",
        hex::encode(sha2::Sha256::digest(without.as_bytes()))
    );
    assert_eq!(hash, sample().digest());
}

#[test]
fn digest_detects_a_one_character_edit() {
    let text = sample().to_canonical_json();
    assert!(VerifiedSnapshot::parse(&text, "ok.json").is_ok());
    let edited = text.replace("\"ieee\"", "\"iee\"");
    assert_ne!(edited, text);
    match VerifiedSnapshot::parse(&edited, "edited.json") {
        Err(SnapshotError::DigestMismatch { origin, .. }) => assert_eq!(origin, "edited.json"),
        other => panic!("expected a digest mismatch, got {other:?}"),
    }
    let edited_host = text.replace("azl-node01\"", "azl-node02\"");
    assert!(matches!(
        VerifiedSnapshot::parse(&edited_host, "x"),
        Err(SnapshotError::DigestMismatch { .. })
    ));
}

#[test]
fn errors_name_the_origin() {
    let text = sample().to_canonical_json();
    let cases = [
        ("{not json", "not a valid driftgate snapshot"),
        (
            &*text.replace(SCHEMA_ID, "driftgate.snapshot/v9"),
            "driftgate.snapshot/v9",
        ),
        (
            &*text.replace("\"tool\"", "\"tool2\""),
            "not a valid driftgate snapshot",
        ),
        (&*text.replace("\"ieee\"", "null"), "cannot be null"),
        ("[1,2]", "not a valid driftgate snapshot"),
        ("{\"hello\": 1}", "no schema field"),
    ];
    for (bad, needle) in cases {
        let err = VerifiedSnapshot::parse(bad, "bad/file.json")
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("bad/file.json: "), "{err}");
        assert!(err.contains(needle), "{needle:?} not in {err}");
    }
}

#[test]
fn unsealed_snapshots_are_refused_unless_sealed_deliberately() {
    let text = sample().to_canonical_json();
    let unsealed: String = text
        .lines()
        .filter(|l| !l.starts_with("  \"digest\": "))
        .map(|l| format!("{l}\n"))
        .collect();
    assert!(matches!(
        VerifiedSnapshot::parse(&unsealed, "u.json"),
        Err(SnapshotError::MissingDigest { .. })
    ));
    let sealed = Snapshot::seal(&unsealed, "u.json").unwrap();
    assert_eq!(sealed.snapshot().to_canonical_json(), text);
    let tampered = text.replace("\"ieee\"", "\"cee\"");
    assert!(matches!(
        Snapshot::seal(&tampered, "t.json"),
        Err(SnapshotError::DigestMismatch { .. })
    ));
}

#[test]
fn completeness_follows_every_source() {
    let mut s = sample();
    assert!(s.is_complete());
    s.sources.push(SourceRecord {
        name: "redfish".into(),
        target: "https://bmc".into(),
        status: SourceStatus::Partial,
        error: Some("GET /redfish/v1/Systems/1/Bios: timeout".into()),
    });
    assert!(!s.is_complete());
}

#[test]
fn host_names_are_file_safe() {
    assert!(HostName::new("azl-node01.example_1").is_ok());
    for bad in ["", "../x", "a/b", "-x", "a b"] {
        assert!(HostName::new(bad).is_err(), "{bad:?}");
    }
}

proptest::proptest! {
    #[test]
    fn parsing_arbitrary_text_never_panics(text in "\\PC{0,400}") {
        let _ = VerifiedSnapshot::parse(&text, "fuzz.json");
        let _ = Snapshot::seal(&text, "fuzz.json");
    }

    #[test]
    fn parsing_mutated_snapshots_never_panics(cut in 0usize..2000, insert in "[\\[\\]{}\",:0-9a-z\\\\]{0,4}") {
        let text = sample().to_canonical_json();
        let cut = cut.min(text.len());
        let cut = (0..=cut).rev().find(|&i| text.is_char_boundary(i)).unwrap_or(0);
        let mutated = format!("{}{insert}{}", &text[..cut], &text[cut..]);
        let _ = VerifiedSnapshot::parse(&mutated, "fuzz.json");
    }
}

#[test]
fn sealing_in_memory_equals_writing_and_reading_the_canonical_text() {
    let mut partial = sample();
    partial.captured_at = "2026-11-30T02:00:00.123456789Z".parse().unwrap();
    partial.sources.push(SourceRecord {
        name: "redfish".into(),
        target: "https://bmc-azl-node01".into(),
        status: SourceStatus::Partial,
        error: Some("GET /redfish/v1/Chassis: \"timed out\"".into()),
    });
    partial.facts.insert(
        FactPath::new("nic/00:0a:f7:12:34:56/os/traffic_class/operational/0/bandwidth").unwrap(),
        serde_json::from_str::<FactValue>("50.5").unwrap(),
    );
    for snapshot in [sample(), partial] {
        let sealed = VerifiedSnapshot::seal(snapshot.clone(), "capture");
        let read = VerifiedSnapshot::parse(&snapshot.to_canonical_json(), "capture").unwrap();
        assert_eq!(sealed.digest(), read.digest());
        assert_eq!(sealed.snapshot(), read.snapshot());
        assert_eq!(sealed.origin(), read.origin());
    }
}

/// The canonical text as its definition spells it, one `serde_json::to_string` per piece: the
/// buffer-writing renderer must give the same bytes (and so the same digests) as this.
fn reference_canonical(snapshot: &Snapshot) -> String {
    let s = |text: &str| serde_json::to_string(text).unwrap();
    let mut lines = vec![
        "{".to_owned(),
        format!(
            "  \"captured_at\": {},",
            s(&snapshot.captured_at.to_string())
        ),
        format!("  \"digest\": {},", s(&snapshot.digest())),
    ];
    let facts: Vec<String> = snapshot
        .facts
        .iter()
        .map(|(p, v)| {
            format!(
                "    {}: {}",
                s(p.as_str()),
                serde_json::to_string(v).unwrap()
            )
        })
        .collect();
    if facts.is_empty() {
        lines.push("  \"facts\": {},".to_owned());
    } else {
        lines.push(format!("  \"facts\": {{\n{}\n  }},", facts.join(",\n")));
    }
    lines.push(format!("  \"host\": {},", s(snapshot.host.as_str())));
    lines.push(format!("  \"schema\": {},", s(SCHEMA_ID)));
    let sources: Vec<String> = snapshot
        .sources
        .iter()
        .map(|r| {
            let error = r.error.as_deref().map(|e| format!("\"error\": {}, ", s(e)));
            format!(
                "    {{{}\"name\": {}, \"status\": {}, \"target\": {}}}",
                error.unwrap_or_default(),
                s(&r.name),
                s(r.status.as_str()),
                s(&r.target)
            )
        })
        .collect();
    if sources.is_empty() {
        lines.push("  \"sources\": [],".to_owned());
    } else {
        lines.push(format!("  \"sources\": [\n{}\n  ],", sources.join(",\n")));
    }
    lines.push(format!("  \"tool\": {}", s(&snapshot.tool)));
    lines.push("}\n".to_owned());
    lines.join("\n")
}

#[test]
fn canonical_bytes_match_their_definition_for_awkward_values() {
    let mut awkward = sample();
    for (path, value) in [
        (
            "a/quote\"back\\slash",
            FactValue::from("line\nbreak\ttab \u{1} \u{2028} é ✓"),
        ),
        ("b/big", FactValue::Scalar(Scalar::Number(u64::MAX.into()))),
        ("b/negative", FactValue::from(-42)),
        ("b/float", serde_json::from_str::<FactValue>("0.1").unwrap()),
        (
            "b/huge",
            serde_json::from_str::<FactValue>("1e300").unwrap(),
        ),
        (
            "c/list",
            serde_json::from_str::<FactValue>(r#"[false,2.5,3,"x\"y"]"#).unwrap(),
        ),
        ("c/empty", FactValue::list(Vec::new())),
    ] {
        awkward.facts.insert(FactPath::new(path).unwrap(), value);
    }
    awkward.tool = "driftgate \"0.1\"".into();
    awkward.sources.push(SourceRecord {
        name: "redfish".into(),
        target: "https://bmc/\u{7f}".into(),
        status: SourceStatus::Partial,
        error: Some("timed out: \"Chassis\"\n".into()),
    });
    let mut empty = sample();
    empty.facts.clear();
    empty.sources.clear();
    for snapshot in [sample(), awkward, empty] {
        let text = snapshot.to_canonical_json();
        assert_eq!(text, reference_canonical(&snapshot));
        let read = VerifiedSnapshot::parse(&text, "awkward.json").unwrap();
        assert_eq!(read.snapshot(), &snapshot);
    }
}

/// A snapshot whose canonical text the strict reader takes: every kind of value it reads in
/// place (floats, the largest integers, lists, non-ASCII text, an error message) but no escape.
fn strict_readable() -> Snapshot {
    let mut snapshot = sample();
    for (path, value) in [
        ("b/big", FactValue::Scalar(Scalar::Number(u64::MAX.into()))),
        ("b/least", FactValue::from(i64::MIN)),
        ("b/negative", FactValue::from(-42)),
        ("b/zero", FactValue::from(0)),
        ("b/float", serde_json::from_str::<FactValue>("0.1").unwrap()),
        (
            "b/huge",
            serde_json::from_str::<FactValue>("1e300").unwrap(),
        ),
        ("b/off", false.into()),
        (
            "c/list",
            serde_json::from_str::<FactValue>(r#"[false,true,-1,2.5,3,"x","y"]"#).unwrap(),
        ),
        ("c/empty", FactValue::list(Vec::new())),
        ("d/text", FactValue::from("é ✓ \u{2028} \u{7f} {}[],:")),
        ("d/blank", FactValue::from("")),
    ] {
        snapshot.facts.insert(FactPath::new(path).unwrap(), value);
    }
    snapshot.captured_at = "2026-11-30T02:00:00.5Z".parse().unwrap();
    snapshot.sources.push(SourceRecord {
        name: "redfish".into(),
        target: "https://bmc-azl-node01".into(),
        status: SourceStatus::Partial,
        error: Some("GET /redfish/v1/Chassis: timed out".into()),
    });
    snapshot
}

/// What the strict reader gives for `text` must be exactly what serde's reader gives, and the
/// text must be the canonical rendering of it: that is what lets the digest be hashed in place.
/// Its check without the facts (`baseline show`) must take exactly the texts it reads, with the
/// same digests.
fn assert_strict_agrees(text: &str) -> bool {
    let checked = strict::check(text).map(|c| (c.recorded, c.computed));
    let Some(read) = strict::read(text) else {
        assert_eq!(checked, None, "checked without facts, refused with them");
        return false;
    };
    assert_eq!(
        checked,
        Some((read.recorded, read.computed.clone())),
        "the check without facts differs from the read"
    );
    assert_eq!(
        canonical::render_with_verified_digest(&read.snapshot, read.recorded),
        text
    );
    assert_eq!(read.computed, read.snapshot.digest());
    let document =
        parse_document(text, "t.json").expect("serde reads what the strict reader reads");
    assert_eq!(document.digest.as_deref(), Some(read.recorded));
    assert_eq!(Snapshot::from(document), read.snapshot);
    true
}

#[test]
fn canonical_text_is_read_in_place_and_anything_else_by_serde() {
    let mut empty = sample();
    empty.facts.clear();
    empty.sources.clear();
    for snapshot in [sample(), strict_readable(), empty] {
        let text = snapshot.to_canonical_json();
        assert!(assert_strict_agrees(&text), "{text}");
        let read = VerifiedSnapshot::parse(&text, "t.json").unwrap();
        assert_eq!(read.snapshot(), &snapshot);
        assert_eq!(read.digest(), snapshot.digest());
    }
    let text = strict_readable().to_canonical_json();
    let escaped = {
        let mut s = strict_readable();
        s.tool = "driftgate \"0.1\"".into();
        s.to_canonical_json()
    };
    let edited = text.replacen("\"b/zero\": 0", "\"b/zero\": 1", 1);
    for (text, why) in [
        (escaped.clone(), "an escaped string"),
        (text.replacen("\"b/zero\": 0", "\"b/zero\": -0", 1), "-0"),
        (text.replacen("\"b/zero\": 0", "\"b/zero\": 1e5", 1), "1e5"),
        (text.replacen(": false", ":false", 1), "a missing space"),
        (text.replacen("-1,2.5", "2.5,-1", 1), "an unsorted list"),
        (text.replacen("\"b/off\"", "\"b/least\"", 1), "a path twice"),
        (format!("{text}\n"), "a trailing newline"),
        (
            text.replacen(".5Z", ".50Z", 1),
            "another spelling of the time",
        ),
        (text.replacen("\n", "\r\n", 1), "a CRLF"),
    ] {
        assert!(!assert_strict_agrees(&text), "{why}");
    }
    // Text the strict reader leaves to serde is judged exactly as before.
    assert!(VerifiedSnapshot::parse(&escaped, "t.json").is_ok());
    let err = VerifiedSnapshot::parse(&edited, "edited.json").unwrap_err();
    assert!(matches!(err, SnapshotError::DigestMismatch { .. }), "{err}");
}

proptest::proptest! {
    #[test]
    fn the_strict_reader_takes_only_canonical_text(
        at in 0usize..2000,
        cut in 0usize..3,
        insert in "[\\[\\]{}\",:0-9a-z\\\\ .eE+-]{0,3}",
    ) {
        let text = strict_readable().to_canonical_json();
        let boundary = |i: usize| (0..=i.min(text.len())).rev().find(|&i| text.is_char_boundary(i)).unwrap_or(0);
        let (from, to) = (boundary(at), boundary(at + cut));
        let mutated = format!("{}{insert}{}", &text[..from], &text[to..]);
        assert_strict_agrees(&mutated);
        let _ = VerifiedSnapshot::parse(&mutated, "fuzz.json");
    }
}

#[test]
fn truncated_empty_and_mistyped_texts_are_left_to_serde_and_refused() {
    let text = strict_readable().to_canonical_json();
    // Without only its final newline the text is still the same JSON document, which serde
    // reads (the strict reader does not); every shorter cut is broken.
    let mut broken: Vec<String> = (0..text.len() - 1)
        .filter(|&cut| text.is_char_boundary(cut))
        .map(|cut| text[..cut].to_owned())
        .collect();
    broken.extend([
        text.replacen("\"host\": \"azl-node01\"", "\"host\": 5", 1),
        text.replacen("\"b/off\": false", "\"b/off\": null", 1),
        text.replacen("\"b/off\": false", "\"b/off\": [[1]]", 1),
        // In order, but not a fact path.
        text.replacen("\"b/off\"", "\"b/of f\"", 1),
        text.replacen("\"driftgate.snapshot/v1\"", "\"driftgate.snapshot/v2\"", 1),
        text.replacen("\"status\": \"partial\"", "\"status\": \"maybe\"", 1),
    ]);
    for text in &broken {
        assert!(!assert_strict_agrees(text), "taken in place: {text:?}");
        assert!(
            VerifiedSnapshot::parse(text, "broken.json").is_err(),
            "{text:?}"
        );
    }
}

/// `baseline show` prints `canonical_text`: what driftgate wrote comes back byte for byte,
/// any other spelling of a snapshot as its canonical rendering, and nothing unverified at all.
#[test]
fn canonical_text_is_the_rendering_of_what_was_read_and_only_of_a_verified_text() {
    let text = strict_readable().to_canonical_json();
    let canonical =
        |text: &str| VerifiedSnapshot::canonical_text(text.as_bytes().to_vec(), "t.json");
    assert_eq!(canonical(&text).unwrap(), text);
    // An escaped string and a trailing newline are left to serde, and rendered again.
    let mut escaped = strict_readable();
    escaped.tool = "driftgate \"0.1\"".into();
    let escaped = escaped.to_canonical_json();
    for other in [
        escaped.clone(),
        format!("{text}\n"),
        text.replacen(": false", ":false", 1),
    ] {
        let rendered = VerifiedSnapshot::parse(&other, "t.json")
            .unwrap()
            .to_canonical_json();
        assert_eq!(canonical(&other).unwrap(), rendered, "{other}");
    }
    assert_eq!(canonical(&format!("{escaped}\n")).unwrap(), escaped);
    let edited = text.replacen("\"b/zero\": 0", "\"b/zero\": 1", 1);
    assert!(matches!(
        canonical(&edited),
        Err(SnapshotError::DigestMismatch { .. })
    ));
    let mut not_utf8 = text.clone().into_bytes();
    not_utf8[text.find("azl").unwrap()] = 0xff;
    assert!(VerifiedSnapshot::canonical_text(not_utf8, "t.json").is_err());
    assert!(canonical(&text[..text.len() / 2]).is_err());
}

#[test]
fn an_id_keyed_snapshot_is_read_with_mac_keys_and_written_again_as_it_was() {
    let file = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/azure-local-dcbx/baseline.json"
    );
    let text = std::fs::read_to_string(file).unwrap();
    let written: serde_json::Value = serde_json::from_str(&text).unwrap();
    let read = VerifiedSnapshot::parse(&text, "baseline.json").unwrap();
    assert_eq!(
        read.digest(),
        written["digest"],
        "the digest of the text read"
    );
    let function = "nic/00:0a:f7:12:34:56/bmc/function/00:0a:f7:12:34:56";
    let facts = &read.snapshot().facts;
    assert_eq!(
        facts.get(format!("{function}/dcbx_mode").as_str()),
        Some(&"ieee".into())
    );
    assert_eq!(
        facts.get(format!("{function}/id").as_str()),
        Some(&"NIC.Slot.3-1-1".into())
    );
    // Written again (a promote), it is the text it was read from.
    assert_eq!(read.to_canonical_json(), text);
}
