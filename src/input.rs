//! Reading the inputs of a judgement: snapshot references and policy files.
//!
//! A reference is a file path or `-` for standard input. Every error names what it read.

use std::fmt;
use std::io::Read;
use std::path::{Path, PathBuf};

use crate::compare::{Policy, PolicyError};
use crate::snapshot::{SnapshotError, VerifiedSnapshot};

/// Where a snapshot comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SnapshotRef {
    /// Standard input (`-`).
    Stdin,
    /// A file.
    File(PathBuf),
}

impl SnapshotRef {
    /// Parses a command-line reference.
    pub fn parse(text: &str) -> Self {
        if text == "-" {
            SnapshotRef::Stdin
        } else {
            SnapshotRef::File(PathBuf::from(text))
        }
    }
}

impl fmt::Display for SnapshotRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SnapshotRef::Stdin => f.write_str("<stdin>"),
            SnapshotRef::File(path) => write!(f, "{}", path.display()),
        }
    }
}

/// Why an input could not be read.
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    /// The file could not be read.
    #[error("{origin}: cannot read: {error}")]
    Io {
        /// What was being read.
        origin: String,
        /// The I/O error.
        error: std::io::Error,
    },
    /// Standard input was named twice.
    #[error("standard input (`-`) can be read only once per command")]
    StdinTwice,
    /// The snapshot is malformed, of another schema, or fails its digest.
    #[error(transparent)]
    Snapshot(#[from] SnapshotError),
    /// The policy file is invalid.
    #[error(transparent)]
    Policy(#[from] PolicyError),
}

/// Reads snapshots, allowing standard input once.
#[derive(Debug, Default)]
pub struct Loader {
    stdin_used: bool,
}

impl Loader {
    /// Reads and verifies the snapshot at `reference`.
    pub fn snapshot(&mut self, reference: &SnapshotRef) -> Result<VerifiedSnapshot, InputError> {
        let origin = reference.to_string();
        let text = match reference {
            SnapshotRef::Stdin => {
                if std::mem::replace(&mut self.stdin_used, true) {
                    return Err(InputError::StdinTwice);
                }
                let mut text = String::new();
                std::io::stdin()
                    .read_to_string(&mut text)
                    .map_err(|error| InputError::Io {
                        origin: origin.clone(),
                        error,
                    })?;
                text
            }
            SnapshotRef::File(path) => read_text(path)?,
        };
        Ok(VerifiedSnapshot::parse(&text, &origin)?)
    }
}

/// The built-in policy, extended by the file at `path` when given.
pub fn policy(path: Option<&Path>) -> Result<Policy, InputError> {
    match path {
        None => Ok(Policy::builtin()),
        Some(path) => Ok(Policy::with_file(
            &read_text(path)?,
            &path.display().to_string(),
        )?),
    }
}

/// Reads a UTF-8 text file; errors name the file.
pub fn read_text(path: &Path) -> Result<String, InputError> {
    std::fs::read_to_string(path).map_err(|error| InputError::Io {
        origin: path.display().to_string(),
        error,
    })
}
