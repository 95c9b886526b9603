//! Where each fact of a baseline file is, by line: SARIF results point there.
//! STAND-IN: the SARIF helper implements this.

use std::collections::BTreeMap;

use crate::store::{Store, StoreError};

/// A baseline file in the store and the line of each fact in it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BaselineLines {
    /// The file's path in the repository (`baselines/<fleet>/<host>.json`).
    pub path: String,
    /// The commit it was read at.
    pub commit: String,
    /// Fact path → line (1-based) of its key.
    pub lines: BTreeMap<String, u32>,
}

/// The line (1-based) of each fact's key in a canonical snapshot file's text. A parser: no I/O.
pub fn fact_lines(text: &str) -> BTreeMap<String, u32> {
    let _ = text;
    BTreeMap::new()
}

/// The lines of the baseline behind each `git:<commit>:<path>` origin given as
/// `(host, origin)`; other origins (files outside the store) are skipped.
pub fn baseline_lines(
    store: &Store,
    origins: &[(&str, &str)],
) -> Result<BTreeMap<String, BaselineLines>, StoreError> {
    let _ = (store, origins);
    Ok(BTreeMap::new())
}
