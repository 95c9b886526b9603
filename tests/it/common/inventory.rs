//! Helpers of the inventory tests: the fixtures.

use std::path::PathBuf;

/// `tests/fixtures/inventory/NAME`, relative to the crate root (where [`super::driftgate`]
/// runs), as messages print it.
pub(crate) fn fixture(name: &str) -> String {
    format!("tests/fixtures/inventory/{name}")
}

/// The absolute path of a fixture.
pub(crate) fn fixture_path(name: &str) -> PathBuf {
    super::root().join(fixture(name))
}
