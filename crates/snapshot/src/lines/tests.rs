use super::*;
use crate::VerifiedSnapshot;

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

#[test]
fn every_fact_of_a_canonical_snapshot_is_found_at_its_own_line() {
    let text = example("azure-local-dcbx/baseline.json");
    // The facts as written: this example predates functions keyed by MAC, which a parse
    // moves (`function_keys`); lines are those of the text.
    VerifiedSnapshot::parse(&text, "baseline.json").unwrap();
    let written: serde_json::Value = serde_json::from_str(&text).unwrap();
    let lines = fact_lines(&text);
    // Each function's facts are found under the path they are read at too.
    let moved = "nic/00:0a:f7:12:34:56/bmc/function/00:0a:f7:12:34:56/dcbx_mode";
    assert_eq!(
        lines[moved],
        lines["nic/00:0a:f7:12:34:56/bmc/function/NIC.Slot.3-1-1/dcbx_mode"]
    );
    let lines: BTreeMap<String, u32> = lines
        .into_iter()
        .filter(|(path, _)| !path.contains("/function/00:0a:f7:"))
        .collect();
    assert_eq!(lines.len(), written["facts"].as_object().unwrap().len());
    for (path, line) in &lines {
        let key = serde_json::to_string(path).unwrap();
        assert_eq!(*line, line_of(&text, &format!("    {key}: ")), "{path}");
    }
    // The first fact follows `{`, `captured_at`, `digest` and `"facts": {`.
    assert_eq!(lines.values().min(), Some(&5));
}

#[test]
fn keys_are_decoded_and_only_the_top_level_facts_count() {
    let text = r#"{
  "sources": [{"name": "redfish", "target": "a/b", "a/b": 1}],
  "other": {"facts": {"a/b": 2}},
  "facts": {"x": 1,
    "a\/b": {"nested": "c"},
    "\u0063/d": [1,
      2], "e\"f": "a\\"
  },
  "facts": {"late": 1}
}"#;
    let lines = fact_lines(text);
    let expected: BTreeMap<String, u32> = [("x", 4), ("a/b", 5), ("c/d", 6), ("e\"f", 7)]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v))
        .collect();
    assert_eq!(lines, expected);
}

#[test]
fn facts_on_one_line_and_an_escaped_facts_key_are_found() {
    let lines = fact_lines(r#"{"host":"h","f\u0061cts":{"a":1,"b":{"c":[true]}},"z":null}"#);
    assert_eq!(lines.get("a"), Some(&1));
    assert_eq!(lines.get("b"), Some(&1));
    assert_eq!(lines.len(), 2);
    // CRLF line ends count once per line.
    let lines = fact_lines("{\r\n\"facts\": {\r\n\"a\": 1,\r\n\"b\": 2}}\r\n");
    assert_eq!((lines["a"], lines["b"]), (3, 4));
}

#[test]
fn broken_or_factless_text_gives_no_lines() {
    let text = example("azure-local-dcbx/baseline.json");
    let truncated = &text[..text.len() / 2];
    for (what, input) in [
        ("empty", ""),
        ("not JSON", "facts: a/b"),
        ("truncated", truncated),
        ("trailing garbage", "{\"facts\": {\"a\": 1}} x"),
        ("an array", "[{\"facts\": {\"a\": 1}}]"),
        ("no facts", "{\"host\": \"h\"}"),
        ("facts not an object", "{\"facts\": [\"a\"]}"),
        ("empty facts", "{\"facts\": {}}"),
    ] {
        assert_eq!(fact_lines(input), BTreeMap::new(), "{what}");
    }
}
