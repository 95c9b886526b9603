//! What the tests of every crate read in place: the repository's own files (examples,
//! fixtures) and the public reference data trimmed into `tests/fixtures/public`, with the one
//! message every test gives when a fixture is absent (none skips). A dev-dependency only.

use std::path::{Path, PathBuf};

/// The repository's root folder (where `examples/` and `tests/fixtures/` are).
pub fn repo() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

/// `rel` in the public reference data, `tests/fixtures/public` (public captures and samples,
/// each trimmed to what the tests read, with its licence); panics with the common message
/// when it is absent, so a test whose data was trimmed away fails naming it.
pub fn public_data(rel: &str) -> PathBuf {
    let path = repo().join("tests/fixtures/public").join(rel);
    assert!(
        path.exists(),
        "{} is absent: this test reads the public reference data in tests/fixtures/public (trimmed to what the tests read; see its README.md)",
        path.display()
    );
    path
}

#[cfg(test)]
mod tests {
    #[test]
    #[should_panic(
        expected = "is absent: this test reads the public reference data in tests/fixtures/public"
    )]
    fn a_test_without_its_public_data_fails_saying_so() {
        super::public_data("no such folder");
    }

    #[test]
    fn the_public_data_is_inside_the_repository() {
        let path = super::public_data("redfish/libredfish-dell");
        let repo = super::repo().canonicalize().expect("the repository");
        assert!(
            path.canonicalize().expect("the capture").starts_with(repo),
            "{}",
            path.display()
        );
    }
}
