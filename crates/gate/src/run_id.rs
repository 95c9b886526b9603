//! A run's id: the name of its run directory.

use sha2::{Digest as _, Sha256};

use driftgate_snapshot::file_names::{self, BadName, NameKind};

/// A run id: the caller's (a pipeline's build id, a change number) or generated
/// (`20261201T140502Z-3fa9c1`). It names a folder, so it is spelled like a host name and is at
/// most a file name long ([`file_names`]).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RunId(String);

/// Why a string is not a run id: its spelling, or its run directory's name would be too long.
#[derive(Debug, Clone, thiserror::Error)]
#[error(transparent)]
pub struct BadRunId(#[from] BadName);

impl RunId {
    /// Validates a run id.
    pub fn new(id: impl Into<String>) -> Result<Self, BadRunId> {
        let id = id.into();
        file_names::check(NameKind::RunId, &id)?;
        Ok(RunId(id))
    }

    /// A fresh id: the UTC time to the second and 6 hex digits that differ between two runs
    /// started in the same second (hashed from the clock's nanoseconds and the process id).
    pub fn generate(now: jiff::Timestamp) -> Self {
        let seed = format!("{}-{}", now.as_nanosecond(), std::process::id());
        let hash = hex::encode(Sha256::digest(seed.as_bytes()));
        let time = now.strftime("%Y%m%dT%H%M%SZ");
        RunId(format!("{time}-{}", &hash[..6]))
    }

    /// The id as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::str::FromStr for RunId {
    type Err = BadRunId;
    fn from_str(s: &str) -> Result<Self, BadRunId> {
        Self::new(s)
    }
}

impl std::fmt::Display for RunId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_ids_are_spelled_like_host_names_and_generated_ones_sort_by_time() {
        assert!(RunId::new("CHG-4711").is_ok());
        assert!(RunId::new("build.20261201_7").is_ok());
        for bad in ["", "../x", "a/b", "-x", "run id"] {
            assert!(RunId::new(bad).is_err(), "{bad:?}");
        }
        let now: jiff::Timestamp = "2026-12-01T14:05:02.5Z".parse().unwrap();
        let id = RunId::generate(now);
        assert!(id.as_str().starts_with("20261201T140502Z-"), "{id}");
        assert_eq!(id.as_str().len(), "20261201T140502Z-".len() + 6);
        assert!(RunId::new(id.as_str()).is_ok());
    }
}
