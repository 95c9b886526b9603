//! The documentation a maintainer navigates: every relative link of the top-level Markdown
//! files, `docs/` and the examples' READMEs leads to a file that exists, and to a heading of
//! it when the link names one; CI runs exactly the test command the README gives, on every push
//! and pull request, and every workflow is valid against GitHub's workflow schema.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use pulldown_cmark::{Event, Parser, Tag, TagEnd};

use crate::common::root;

/// Every Markdown file of the documentation.
fn documents() -> Vec<PathBuf> {
    let root = root();
    let mut files: Vec<PathBuf> = [
        "README.md",
        "ARCHITECTURE.md",
        "CONTRIBUTING.md",
        "CHANGELOG.md",
        "BENCHMARKS.md",
    ]
    .iter()
    .map(|name| root.join(name))
    .collect();
    for folder in ["docs", "examples"] {
        for entry in std::fs::read_dir(root.join(folder)).unwrap() {
            let path = entry.unwrap().path();
            let readme = path.join("README.md");
            if path.extension().is_some_and(|e| e == "md") {
                files.push(path);
            } else if readme.is_file() {
                files.push(readme);
            }
        }
    }
    files.sort();
    files
}

/// The anchor GitHub gives a heading: lower case, spaces as `-`, punctuation other than `-`
/// and `_` dropped.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// A document's link targets and the anchors of its headings (a repeated heading's anchor
/// gets `-1`, `-2`, … as on GitHub).
fn read(file: &Path) -> (Vec<String>, BTreeSet<String>) {
    let text = std::fs::read_to_string(file).unwrap();
    let mut links = Vec::new();
    let mut anchors = BTreeSet::new();
    let mut heading: Option<String> = None;
    for event in Parser::new(&text) {
        match event {
            Event::Start(Tag::Link { dest_url, .. }) => links.push(dest_url.into_string()),
            Event::Start(Tag::Heading { .. }) => heading = Some(String::new()),
            Event::Text(t) | Event::Code(t) => {
                if let Some(h) = heading.as_mut() {
                    h.push_str(&t);
                }
            }
            Event::End(TagEnd::Heading(_)) => {
                let base = slug(&heading.take().unwrap());
                let mut anchor = base.clone();
                let mut n = 0;
                while anchors.contains(&anchor) {
                    n += 1;
                    anchor = format!("{base}-{n}");
                }
                anchors.insert(anchor);
            }
            _ => {}
        }
    }
    (links, anchors)
}

#[test]
fn every_relative_link_of_the_docs_leads_somewhere() {
    let mut broken = Vec::new();
    let documents = documents();
    assert!(documents.len() >= 15, "the docs are found: {documents:?}");
    for file in &documents {
        let (links, anchors) = read(file);
        for link in links {
            if link.contains("://") || link.starts_with("mailto:") {
                continue;
            }
            let (path, anchor) = link.split_once('#').unwrap_or((&link, ""));
            let target = if path.is_empty() {
                file.clone()
            } else {
                file.parent().unwrap().join(path)
            };
            let name = file.strip_prefix(root()).unwrap().display();
            if !target.exists() {
                broken.push(format!("{name}: {link}: no such file"));
                continue;
            }
            if anchor.is_empty() {
                continue;
            }
            let known = if target == *file {
                anchors.clone()
            } else if target.extension().is_some_and(|e| e == "md") {
                read(&target).1
            } else {
                broken.push(format!(
                    "{name}: {link}: an anchor into a file that is not Markdown"
                ));
                continue;
            };
            if !known.contains(anchor) {
                broken.push(format!("{name}: {link}: no heading #{anchor} in {known:?}"));
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn ci_runs_the_readme_test_command() {
    const COMMAND: &str = "bash scripts/test-deps.sh && cargo test --locked";
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    assert!(
        readme
            .lines()
            .any(|l| l.starts_with(&format!("{COMMAND} "))),
        "the README gives the test command {COMMAND:?}"
    );
    let ci = std::fs::read_to_string(root().join(".ci/run")).unwrap();
    assert!(
        ci.lines().any(|l| l.trim() == COMMAND),
        ".ci/run runs exactly {COMMAND:?}"
    );
}

#[test]
fn ci_runs_on_every_push_and_pull_request() {
    let path = root().join(".github/workflows/ci.yml");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let ci: serde_json::Value = yaml_serde::from_str(&text).expect("ci.yml is YAML");
    for event in ["push", "pull_request"] {
        assert!(ci["on"].get(event).is_some(), "ci.yml runs on {event}");
    }
    let runs: Vec<&str> = ci["jobs"]["ci"]["steps"]
        .as_array()
        .expect("steps")
        .iter()
        .filter_map(|step| step["run"].as_str())
        .collect();
    assert!(
        runs.contains(&"bash .ci/run"),
        "ci.yml runs `bash .ci/run`: {runs:?}"
    );
}

/// Every workflow against SchemaStore's schema of GitHub workflows (committed, with its
/// licence, in `tests/fixtures/github-workflow-schema`): a misspelt key or a wrong shape fails
/// here, not after a push.
#[test]
fn every_workflow_is_valid_against_the_github_workflow_schema() {
    let schema_path = root().join("tests/fixtures/github-workflow-schema/github-workflow.json");
    let schema: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(&schema_path)
            .unwrap_or_else(|e| panic!("{}: {e}", schema_path.display())),
    )
    .expect("the schema is JSON");
    let validator = jsonschema::validator_for(&schema).expect("the workflow schema compiles");
    let mut workflows: Vec<PathBuf> = std::fs::read_dir(root().join(".github/workflows"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "yml" || e == "yaml"))
        .collect();
    workflows.sort();
    assert!(workflows.len() >= 2, "{workflows:?}");
    for path in workflows {
        let text =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let workflow: serde_json::Value =
            yaml_serde::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let errors: Vec<String> = validator
            .iter_errors(&workflow)
            .map(|e| format!("{e} at {}", e.instance_path()))
            .collect();
        assert!(errors.is_empty(), "{}: {errors:#?}", path.display());
    }
    // A workflow the schema rejects is rejected: the check is not vacuous.
    let broken: serde_json::Value =
        yaml_serde::from_str("on: push\njobs:\n  x:\n    runs-on: ubuntu-24.04\n    step: []\n")
            .expect("YAML");
    assert!(!validator.is_valid(&broken));
}
