//! Reading the inputs of a judgement: snapshot references and policy files.
//!
//! A reference is a file path, `-` for standard input, `git:REV:PATH` (a file at a revision
//! of the baseline store), or `baseline:HOST[@REV]` (a host's baseline in the store, at HEAD
//! unless a revision is given). Every error names what it read.

use std::fmt;
use std::io::Read;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use driftgate_compare::{Policy, PolicyError};
use driftgate_snapshot::{BadHostName, HostName, SnapshotError, VerifiedSnapshot};
use driftgate_store::{POLICY_FILE, Store, StoreError};

/// Where a snapshot comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SnapshotRef {
    /// Standard input (`-`).
    Stdin,
    /// A file.
    File(PathBuf),
    /// `git:REV:PATH`: a file at a revision of the baseline store.
    Git {
        /// Revision (`HEAD`, a branch, a tag, a commit id, `HEAD~2`, …).
        rev: String,
        /// Path inside the repository.
        path: String,
    },
    /// `baseline:HOST[@REV]`: a host's baseline in the store.
    Baseline {
        /// The host.
        host: HostName,
        /// Revision, `HEAD` when not given.
        rev: String,
    },
}

/// Why a reference does not parse.
#[derive(Debug, thiserror::Error)]
pub enum BadRef {
    /// `git:` without `REV:PATH`.
    #[error("{0:?}: expected git:REV:PATH, e.g. git:HEAD~1:baselines/fleet/host.json")]
    Git(String),
    /// `baseline:` with a bad host name.
    #[error("{text:?}: {error}")]
    Host {
        /// The reference.
        text: String,
        /// What is wrong with the host.
        error: BadHostName,
    },
    /// Empty text.
    #[error("empty snapshot reference")]
    Empty,
}

impl SnapshotRef {
    /// Parses a command-line reference.
    pub fn parse(text: &str) -> Result<Self, BadRef> {
        if text.is_empty() {
            return Err(BadRef::Empty);
        }
        if text == "-" {
            return Ok(SnapshotRef::Stdin);
        }
        if let Some(rest) = text.strip_prefix("git:") {
            return match rest.split_once(':') {
                Some((rev, path)) if !rev.is_empty() && !path.is_empty() => Ok(SnapshotRef::Git {
                    rev: rev.to_owned(),
                    path: path.to_owned(),
                }),
                _ => Err(BadRef::Git(text.to_owned())),
            };
        }
        if let Some(rest) = text.strip_prefix("baseline:") {
            let (host, rev) = match rest.split_once('@') {
                Some((host, rev)) if !rev.is_empty() => (host, rev),
                _ => (rest, "HEAD"),
            };
            let host = HostName::new(host).map_err(|error| BadRef::Host {
                text: text.to_owned(),
                error,
            })?;
            return Ok(SnapshotRef::Baseline {
                host,
                rev: rev.to_owned(),
            });
        }
        Ok(SnapshotRef::File(PathBuf::from(text)))
    }

    /// Whether reading it needs the baseline store.
    pub fn uses_store(&self) -> bool {
        matches!(self, SnapshotRef::Git { .. } | SnapshotRef::Baseline { .. })
    }
}

impl fmt::Display for SnapshotRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SnapshotRef::Stdin => f.write_str("<stdin>"),
            SnapshotRef::File(path) => write!(f, "{}", path.display()),
            SnapshotRef::Git { rev, path } => write!(f, "git:{rev}:{path}"),
            SnapshotRef::Baseline { host, rev } => write!(f, "baseline:{host}@{rev}"),
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
    /// A host has no baseline in the store.
    #[error("{origin}: host {host} has no baseline at {rev:?} in {repo}")]
    NoBaseline {
        /// The reference.
        origin: String,
        /// The host.
        host: HostName,
        /// The revision.
        rev: String,
        /// The store.
        repo: String,
    },
    /// The baseline store could not be opened or read.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The snapshot is malformed, of another schema, or fails its digest.
    #[error(transparent)]
    Snapshot(#[from] SnapshotError),
    /// The policy file is invalid.
    #[error(transparent)]
    Policy(#[from] PolicyError),
}

/// How many snapshots [`Loader::snapshots`] holds the bytes of at once: many per core.
const VERIFIED_AT_ONCE: usize = 256;

/// Reads snapshots, allowing standard input once and opening the baseline store on first use.
pub struct Loader {
    stdin_used: bool,
    repo: Option<PathBuf>,
    store: Option<Store>,
}

impl Loader {
    /// A loader whose store is the repository containing `repo`, or the current directory.
    pub fn new(repo: Option<PathBuf>) -> Self {
        Loader {
            stdin_used: false,
            repo,
            store: None,
        }
    }

    /// The baseline store, opened on first use.
    pub fn store(&mut self) -> Result<&Store, InputError> {
        if self.store.is_none() {
            let dir = self.repo.clone().unwrap_or_else(|| PathBuf::from("."));
            self.store = Some(Store::discover(&dir)?);
        }
        Ok(self.store.as_ref().expect("opened just above"))
    }

    /// Whether a reference has needed the store so far.
    pub fn store_in_use(&self) -> bool {
        self.store.is_some()
    }

    /// Reads and verifies the snapshot at `reference`.
    pub fn snapshot(&mut self, reference: &SnapshotRef) -> Result<VerifiedSnapshot, InputError> {
        let bytes = self.bytes(reference)?;
        verify(&reference.to_string(), &bytes)
    }

    /// Reads and verifies the snapshot at `reference` and returns its canonical JSON text:
    /// what [`Loader::snapshot`] would render, without rendering a text that already is.
    pub fn canonical_text(&mut self, reference: &SnapshotRef) -> Result<String, InputError> {
        let bytes = self.bytes(reference)?;
        Ok(VerifiedSnapshot::canonical_text(
            bytes,
            &reference.to_string(),
        )?)
    }

    /// Reads and verifies the snapshots at `references`, in order: read one by one, verified
    /// on every core, a run of them at a time so that only that run's bytes are held (all of
    /// 10,000 hosts' were 580 MB more at the peak of a promote).
    pub fn snapshots(
        &mut self,
        references: &[SnapshotRef],
    ) -> Result<Vec<VerifiedSnapshot>, InputError> {
        let mut snapshots = Vec::with_capacity(references.len());
        for run in references.chunks(VERIFIED_AT_ONCE) {
            let read = run
                .iter()
                .map(|reference| Ok((reference.to_string(), self.bytes(reference)?)))
                .collect::<Result<Vec<_>, InputError>>()?;
            let verified: Vec<_> = read
                .par_iter()
                .map(|(origin, bytes)| verify(origin, bytes))
                .collect();
            for verified in verified {
                snapshots.push(verified?);
            }
        }
        Ok(snapshots)
    }

    /// The bytes at `reference`.
    fn bytes(&mut self, reference: &SnapshotRef) -> Result<Vec<u8>, InputError> {
        let origin = reference.to_string();
        Ok(match reference {
            SnapshotRef::Stdin => {
                if std::mem::replace(&mut self.stdin_used, true) {
                    return Err(InputError::StdinTwice);
                }
                let mut bytes = Vec::new();
                std::io::stdin()
                    .read_to_end(&mut bytes)
                    .map_err(|error| InputError::Io {
                        origin: origin.clone(),
                        error,
                    })?;
                bytes
            }
            SnapshotRef::File(path) => std::fs::read(path).map_err(|error| InputError::Io {
                origin: origin.clone(),
                error,
            })?,
            SnapshotRef::Git { rev, path } => self.store()?.read(rev, path)?,
            SnapshotRef::Baseline { host, rev } => {
                let store = self.store()?;
                let file =
                    store
                        .host_file(rev, host.as_str())?
                        .ok_or_else(|| InputError::NoBaseline {
                            origin: origin.clone(),
                            host: host.clone(),
                            rev: rev.clone(),
                            repo: store.location().display().to_string(),
                        })?;
                store.read_file(&file)?
            }
        })
    }
}

/// The snapshot in `bytes`, read from `origin`, verified.
fn verify(origin: &str, bytes: &[u8]) -> Result<VerifiedSnapshot, InputError> {
    let text = std::str::from_utf8(bytes).map_err(|e| InputError::Io {
        origin: origin.to_owned(),
        error: std::io::Error::new(std::io::ErrorKind::InvalidData, e),
    })?;
    Ok(VerifiedSnapshot::parse(text, origin)?)
}

/// The effective policy: built-in, then the store's committed `driftgate.toml` (when a store
/// is given and has one), then the file at `path`.
pub fn policy(store: Option<&Store>, path: Option<&Path>) -> Result<Policy, InputError> {
    match store {
        Some(store) if store.has_commits() => policy_at(Some(store), Some("HEAD"), path),
        _ => policy_at(None, None, path),
    }
}

/// [`policy`] with the store's layer read at `rev` (none when `rev` is `None`: a store without
/// a commit): the policy a run judged under, read again.
pub fn policy_at(
    store: Option<&Store>,
    rev: Option<&str>,
    path: Option<&Path>,
) -> Result<Policy, InputError> {
    let store_layer = match (store, rev) {
        (Some(store), Some(rev)) => match store.read(rev, POLICY_FILE) {
            Ok(bytes) => Some(bytes),
            Err(StoreError::UnknownPath { .. }) => None,
            Err(e) => return Err(e.into()),
        }
        .map(|bytes| {
            let origin = format!("{}:{POLICY_FILE}", store.location().display());
            String::from_utf8(bytes)
                .map(|text| (text, origin.clone()))
                .map_err(|e| InputError::Io {
                    origin,
                    error: std::io::Error::new(std::io::ErrorKind::InvalidData, e.utf8_error()),
                })
        })
        .transpose()?,
        _ => None,
    };
    let file_layer = path
        .map(|p| read_text(p).map(|text| (text, p.display().to_string())))
        .transpose()?;
    let layers: Vec<(&str, &str)> = store_layer
        .iter()
        .chain(file_layer.iter())
        .map(|(text, origin)| (text.as_str(), origin.as_str()))
        .collect();
    Ok(Policy::layered(&layers)?)
}

/// Reads a UTF-8 text file; errors name the file.
pub fn read_text(path: &Path) -> Result<String, InputError> {
    std::fs::read_to_string(path).map_err(|error| InputError::Io {
        origin: path.display().to_string(),
        error,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_reference_form() {
        assert_eq!(SnapshotRef::parse("-").unwrap(), SnapshotRef::Stdin);
        assert_eq!(
            SnapshotRef::parse("a/b.json").unwrap(),
            SnapshotRef::File("a/b.json".into())
        );
        assert_eq!(
            SnapshotRef::parse("git:HEAD~1:baselines/f/h.json").unwrap(),
            SnapshotRef::Git {
                rev: "HEAD~1".into(),
                path: "baselines/f/h.json".into()
            }
        );
        let host = HostName::new("azl-node01").unwrap();
        assert_eq!(
            SnapshotRef::parse("baseline:azl-node01").unwrap(),
            SnapshotRef::Baseline {
                host: host.clone(),
                rev: "HEAD".into()
            }
        );
        assert_eq!(
            SnapshotRef::parse("baseline:azl-node01@v1.2").unwrap(),
            SnapshotRef::Baseline {
                host,
                rev: "v1.2".into()
            }
        );
        for bad in [
            "",
            "git:",
            "git:HEAD",
            "git::x",
            "git:HEAD:",
            "baseline:",
            "baseline:../x",
        ] {
            assert!(SnapshotRef::parse(bad).is_err(), "{bad:?}");
        }
    }
}
