//! JUnit reports checked the way CI systems read them: `xmllint --schema` against the Jenkins
//! xunit plugin's `junit-10.xsd` (the whole document) and the Ant schema `JUnit.xsd` (below
//! the root, whose attributes only Jenkins' schema has), both committed under
//! `tests/fixtures/reports/junit/`.

use std::path::{Path, PathBuf};
use std::process::Command;

use super::root;

/// A file of `tests/fixtures/reports/junit/`.
pub(crate) fn fixture(name: &str) -> PathBuf {
    root().join("tests/fixtures/reports/junit").join(name)
}

/// `xmllint --noout --schema SCHEMA FILE`: `Err` with what xmllint said.
pub(crate) fn xmllint(schema: &str, file: &Path) -> Result<(), String> {
    let out = Command::new("xmllint")
        .arg("--noout")
        .arg("--schema")
        .arg(fixture(schema))
        .arg(file)
        .output()
        .unwrap_or_else(|e| {
            panic!("xmllint (libxml2-utils) is needed: run `bash scripts/test-deps.sh` ({e})")
        });
    if out.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

/// Panics unless `file` is valid for Jenkins (`junit-10.xsd`) and, below its root, for Ant
/// (`JUnit.xsd`); returns its text.
pub(crate) fn assert_valid(file: &Path) -> String {
    let xml = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    xmllint("junit-10.xsd", file).unwrap_or_else(|e| panic!("junit-10.xsd: {e}\n{xml}"));
    let start = xml.find("<testsuites ").expect("a testsuites element");
    let end = start + xml[start..].find('>').expect("its start tag ends");
    let ant = file.with_extension("ant.xml");
    std::fs::write(
        &ant,
        format!("{}<testsuites>{}", &xml[..start], &xml[end + 1..]),
    )
    .expect("the report's folder is writable");
    xmllint("JUnit.xsd", &ant).unwrap_or_else(|e| panic!("JUnit.xsd: {e}\n{xml}"));
    xml
}

/// Each `<testsuite name>` with its `verdict` property (the fleet's suite has none).
pub(crate) fn verdicts(xml: &str) -> Vec<(String, String)> {
    let doc = roxmltree::Document::parse(xml).expect("well-formed XML");
    doc.descendants()
        .filter(|n| n.has_tag_name("testsuite"))
        .filter_map(|suite| {
            let verdict = suite
                .descendants()
                .find(|p| p.has_tag_name("property") && p.attribute("name") == Some("verdict"))?
                .attribute("value")?;
            Some((suite.attribute("name")?.to_owned(), verdict.to_owned()))
        })
        .collect()
}
