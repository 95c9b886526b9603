//! Where each fact of a baseline file is, by line: SARIF results point there.
//!
//! [`baseline_lines`] reads the baseline blobs behind judged origins through the [`Store`] and
//! finds each fact's line with [`fact_lines`].

use std::collections::BTreeMap;

use driftgate_report::document::BaselineLines;
use driftgate_snapshot::fact_lines;
use driftgate_store::{Store, StoreError};

/// The lines of the baseline behind each origin given as `(host, origin)`: `git:<rev>:<path>`
/// (as [`Store::read_baseline`] makes them) and `baseline:<host>@<rev>` (a `check
/// --baseline baseline:HOST` reference), read through the store at the commit `rev` names.
/// Other origins (files outside the store, standard input) are skipped. A blob that cannot
/// be read is an error naming its revision and path.
pub fn baseline_lines(
    store: &Store,
    origins: &[(&str, &str)],
) -> Result<BTreeMap<String, BaselineLines>, StoreError> {
    let mut out = BTreeMap::new();
    for (host, origin) in origins {
        let Some((rev, path)) = stored_file(store, origin)? else {
            continue;
        };
        let commit = store.resolve(&rev)?.to_string();
        let bytes = store.read(&commit, &path)?;
        let lines = fact_lines(&String::from_utf8_lossy(&bytes));
        out.insert(
            (*host).to_owned(),
            BaselineLines {
                path,
                commit,
                lines,
                repository: store.location().display().to_string(),
            },
        );
    }
    Ok(out)
}

/// The revision and path in the store of an origin, or `None` for one outside it.
fn stored_file(store: &Store, origin: &str) -> Result<Option<(String, String)>, StoreError> {
    if let Some(rest) = origin.strip_prefix("git:") {
        return Ok(rest
            .split_once(':')
            .filter(|(rev, path)| !rev.is_empty() && !path.is_empty())
            .map(|(rev, path)| (rev.to_owned(), path.to_owned())));
    }
    let Some(rest) = origin.strip_prefix("baseline:") else {
        return Ok(None);
    };
    let (host, rev) = rest.split_once('@').unwrap_or((rest, "HEAD"));
    match store.host_file(rev, host)? {
        Some(file) => Ok(Some((rev.to_owned(), file.path))),
        None => Err(StoreError::UnknownPath {
            repo: store.location().display().to_string(),
            rev: rev.to_owned(),
            path: format!("baselines/*/{host}.json"),
        }),
    }
}

#[cfg(test)]
mod tests;
