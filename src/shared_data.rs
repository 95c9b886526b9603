//! The public reference data the unit tests read in place (`../shared/data`, beside the
//! repository), with the one message every test gives when it is absent: none skips.

use std::path::PathBuf;

/// `rel` in `../shared/data`; panics with the common message when it is absent.
pub(crate) fn shared_data(rel: &str) -> PathBuf {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/data")
        .join(rel);
    assert!(
        path.exists(),
        "{} is absent: this test reads the public reference data in ../shared/data, beside the repository; check the project out with its shared/ folder beside it",
        path.display()
    );
    path
}

#[test]
#[should_panic(expected = "is absent: this test reads the public reference data in ../shared/data")]
fn a_test_without_the_shared_data_fails_saying_so() {
    shared_data("no such folder");
}
