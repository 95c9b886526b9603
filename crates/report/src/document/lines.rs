//! A baseline file in the store and the line of each fact in it: where SARIF results point.

use std::collections::BTreeMap;

/// A baseline file in the store and the line of each fact in it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BaselineLines {
    /// The file's path in the repository (`baselines/<fleet>/<host>.json`).
    pub path: String,
    /// The commit it was read at (full hex id).
    pub commit: String,
    /// Fact path → line (1-based) of its key.
    pub lines: BTreeMap<String, u32>,
    /// The store's work tree (its repository folder when bare), as a path: the root `path`
    /// is relative to. Empty when unknown.
    pub repository: String,
}
