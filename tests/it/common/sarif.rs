//! SARIF checks for the end-to-end tests: the SARIF 2.1.0 schema committed under
//! `tests/fixtures/reports/sarif/` (formats checked too), and where a fact's key is in a
//! canonical snapshot file.

use serde_json::Value;

use super::root;

/// The SARIF 2.1.0 schema's validator, with `format` (uri, uri-reference, date-time) checked.
pub(crate) fn validator() -> jsonschema::Validator {
    let path = root().join("tests/fixtures/reports/sarif/sarif-schema-2.1.0.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let schema: Value = serde_json::from_str(&text).expect("the schema is JSON");
    jsonschema::options()
        .should_validate_formats(true)
        .build(&schema)
        .expect("the SARIF schema compiles")
}

/// Parses a SARIF file and asserts it is valid SARIF 2.1.0.
#[track_caller]
pub(crate) fn read_valid(path: &std::path::Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let log: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
    let errors: Vec<String> = validator()
        .iter_errors(&log)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{}: {errors:#?}", path.display());
    log
}

/// The results of the log's run.
pub(crate) fn results(log: &Value) -> &Vec<Value> {
    log["runs"][0]["results"].as_array().expect("results")
}

/// The first result of `rule` about `host` (and `path`, when given).
#[track_caller]
pub(crate) fn result<'a>(log: &'a Value, host: &str, rule: &str, path: Option<&str>) -> &'a Value {
    results(log)
        .iter()
        .find(|r| {
            r["ruleId"] == rule
                && (r["properties"]["host"] == host
                    || r["properties"]["hosts"]
                        .as_array()
                        .is_some_and(|h| h.first().is_some_and(|f| f == host)))
                && path.is_none_or(|p| r["properties"]["path"] == p)
        })
        .unwrap_or_else(|| panic!("no {rule} result for {host} {path:?} in {log:#}"))
}

/// A result's file and line.
pub(crate) fn location(result: &Value) -> (String, u64) {
    let physical = &result["locations"][0]["physicalLocation"];
    (
        physical["artifactLocation"]["uri"]
            .as_str()
            .expect("a uri")
            .to_owned(),
        physical["region"]["startLine"].as_u64().expect("a line"),
    )
}

/// The 1-based line of `fact`'s key in a canonical snapshot file (`    "<fact>": …`).
#[track_caller]
pub(crate) fn key_line(text: &str, fact: &str) -> u64 {
    let key = format!("    {}: ", serde_json::to_string(fact).expect("a string"));
    let index = text
        .lines()
        .position(|l| l.starts_with(&key))
        .unwrap_or_else(|| panic!("{fact} is not a fact of {text}"));
    u64::try_from(index + 1).expect("a small file")
}
