//! What the tests of every crate read in place: the repository's own files (examples,
//! fixtures) and the public reference data in `../shared/data` beside the repository, with the
//! one message every test gives when that is absent (none skips). A dev-dependency only.

use std::path::{Path, PathBuf};

/// The repository's root folder (where `examples/` and `tests/fixtures/` are).
pub fn repo() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

/// `rel` in `../shared/data`; panics with the common message when it is absent.
pub fn shared_data(rel: &str) -> PathBuf {
    let path = repo().join("../shared/data").join(rel);
    assert!(
        path.exists(),
        "{} is absent: this test reads the public reference data in ../shared/data, beside the repository; check the project out with its shared/ folder beside it",
        path.display()
    );
    path
}

#[cfg(test)]
mod tests {
    #[test]
    #[should_panic(
        expected = "is absent: this test reads the public reference data in ../shared/data"
    )]
    fn a_test_without_the_shared_data_fails_saying_so() {
        super::shared_data("no such folder");
    }
}
