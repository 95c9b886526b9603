//! Helpers of the inventory tests: the fixtures and a driftgate that reads no inventory from
//! the environment.

use std::path::PathBuf;

use assert_cmd::Command;

/// `tests/fixtures/inventory/NAME`, relative to the crate root (where [`super::driftgate`]
/// runs), as messages print it.
pub fn fixture(name: &str) -> String {
    format!("tests/fixtures/inventory/{name}")
}

/// The absolute path of a fixture.
pub fn fixture_path(name: &str) -> PathBuf {
    super::root().join(fixture(name))
}

/// [`super::driftgate`] without an inherited `DRIFTGATE_INVENTORY`.
pub fn driftgate() -> Command {
    let mut cmd = super::driftgate();
    cmd.env_remove("DRIFTGATE_INVENTORY");
    cmd
}
