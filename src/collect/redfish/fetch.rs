//! What the crawler reads through: a [`Fetch`] returns the JSON of a Redfish URI. The live
//! HTTP client and an offline mockup folder implement it; the crawler cannot tell them apart.

use std::future::Future;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::snapshot::{DuplicateKey, UniqueKeysError, parse_unique};

/// Why a resource could not be read. An error response is an error, never data.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FetchError {
    /// The service answered with an error status.
    #[error("GET {uri}: HTTP {status}{detail}")]
    Status {
        /// The URI.
        uri: String,
        /// HTTP status.
        status: u16,
        /// `: ` and the Redfish message, when the body had one.
        detail: String,
    },
    /// No answer: connection, TLS, timeout, redirect loop.
    #[error("GET {uri}: {reason}")]
    Transport {
        /// The URI.
        uri: String,
        /// What went wrong.
        reason: String,
    },
    /// The body is not JSON (or was cut short).
    #[error("GET {uri}: the response is not valid JSON ({reason})")]
    NotJson {
        /// The URI.
        uri: String,
        /// The parser's message.
        reason: String,
    },
    /// An object of the body gives a key twice: which of the two it means cannot be told.
    #[error("GET {uri}: {duplicate}")]
    DuplicateKey {
        /// The URI.
        uri: String,
        /// The key, and the keys of the objects around it.
        duplicate: DuplicateKey,
    },
    /// A property of the wrong type for its schema: what it held cannot be read.
    #[error(transparent)]
    Shape(#[from] super::links::ShapeError),
    /// The body exceeded the size limit.
    #[error("GET {uri}: the response exceeds {limit} bytes")]
    TooLarge {
        /// The URI.
        uri: String,
        /// The limit.
        limit: usize,
    },
}

/// The JSON of a body read from `uri`, as every [`Fetch`] reads it: a body that is no JSON, or
/// whose objects give a key twice, is an error naming `uri`, never a value.
pub fn parse_body(uri: &str, body: &[u8]) -> Result<Value, FetchError> {
    parse_unique(body).map_err(|error| match error {
        UniqueKeysError::Json(error) => FetchError::NotJson {
            uri: uri.to_owned(),
            reason: error.to_string(),
        },
        UniqueKeysError::Duplicate(duplicate) => FetchError::DuplicateKey {
            uri: uri.to_owned(),
            duplicate,
        },
    })
}

impl FetchError {
    /// The HTTP status, for an error response.
    pub fn status(&self) -> Option<u16> {
        match self {
            FetchError::Status { status, .. } => Some(*status),
            _ => None,
        }
    }
}

/// Reads Redfish resources by URI (`/redfish/v1/...`, possibly with a query).
pub trait Fetch: Sync {
    /// Where resources come from, for messages and the snapshot's source target.
    fn target(&self) -> String;
    /// The JSON body of `uri`.
    fn get(&self, uri: &str) -> impl Future<Output = Result<Value, FetchError>> + Send;
}

/// A DMTF mockup folder: one `index.json` per resource URI, either below
/// `DIR/redfish/v1/` or with `DIR` itself as the `/redfish/v1` root.
#[derive(Debug, Clone)]
pub struct MockupDir {
    /// The folder that corresponds to `/redfish/v1`.
    root: PathBuf,
    given: PathBuf,
}

/// Why a folder is not a mockup.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}: not a Redfish mockup (no redfish/v1/index.json and no index.json of a service root)")]
pub struct NotAMockup(pub String);

impl MockupDir {
    /// Finds the service root in `dir` in either layout.
    pub fn open(dir: &Path) -> Result<Self, NotAMockup> {
        let nested = dir.join("redfish/v1");
        if nested.join("index.json").is_file() {
            return Ok(MockupDir {
                root: nested,
                given: dir.to_path_buf(),
            });
        }
        if dir.join("index.json").is_file() {
            return Ok(MockupDir {
                root: dir.to_path_buf(),
                given: dir.to_path_buf(),
            });
        }
        Err(NotAMockup(dir.display().to_string()))
    }

    /// The file that answers `uri`: its `index.json` below the folder of `/redfish/v1`, or
    /// `None` for one that tries to leave the folder. A path outside `/redfish/v1` on the
    /// same service (an attribute registry at `/registries/Bios.json`) is answered from the
    /// folder that holds `redfish/` (as `<path>/index.json`, or the file `<path>` itself);
    /// a folder that is itself the `/redfish/v1` root has no such place. A mockup stands
    /// for the one service it was recorded from, and has no origin to compare with: a full
    /// `http(s)://host/path` URL is answered by its path (only the live client can refuse
    /// another origin, and a folder sends no credentials anywhere).
    pub fn file_for(&self, uri: &str) -> Option<PathBuf> {
        let uri = match uri.split_once("://") {
            Some(("http" | "https", rest)) => &rest[rest.find('/').unwrap_or(rest.len())..],
            Some(_) => return None,
            None => uri,
        };
        let path = uri.split(['?', '#']).next()?.trim_end_matches('/');
        let (mut file, rest) = match path.strip_prefix("/redfish/v1") {
            Some(rest) if rest.is_empty() || rest.starts_with('/') => (self.root.clone(), rest),
            _ if self.root != self.given && path.starts_with('/') && !path.starts_with("//") => {
                (self.given.clone(), path)
            }
            _ => return None,
        };
        let inside = self.root == file;
        for segment in rest.split('/').filter(|s| !s.is_empty()) {
            if segment == "." || segment == ".." || segment.contains('\\') {
                return None;
            }
            file.push(segment);
        }
        if !inside && file.is_file() {
            return Some(file);
        }
        Some(file.join("index.json"))
    }
}

impl Fetch for MockupDir {
    fn target(&self) -> String {
        format!("mockup:{}", self.given.display())
    }

    async fn get(&self, uri: &str) -> Result<Value, FetchError> {
        // A folder answers no queries, as the DMTF mockup server does not: `$expand` falls back.
        if uri.contains('?') {
            return Err(FetchError::Status {
                uri: uri.to_owned(),
                status: 501,
                detail: ": queries are not supported".into(),
            });
        }
        let not_found = |detail: String| FetchError::Status {
            uri: uri.to_owned(),
            status: 404,
            detail,
        };
        let file = self
            .file_for(uri)
            .ok_or_else(|| not_found(": outside the mockup".into()))?;
        let bytes = match std::fs::read(&file) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(not_found(format!(
                    ": not in the mockup ({})",
                    file.display()
                )));
            }
            Err(e) => {
                return Err(FetchError::Transport {
                    uri: uri.to_owned(),
                    reason: format!("{}: {e}", file.display()),
                });
            }
        };
        parse_body(uri, &bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris_map_to_index_files_and_never_leave_the_folder() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("redfish/v1/Systems/1")).unwrap();
        std::fs::write(dir.path().join("redfish/v1/index.json"), "{}").unwrap();
        let mockup = MockupDir::open(dir.path()).unwrap();
        assert_eq!(
            mockup.file_for("/redfish/v1/Systems/1/"),
            Some(dir.path().join("redfish/v1/Systems/1/index.json"))
        );
        assert_eq!(
            mockup.file_for("/redfish/v1"),
            Some(dir.path().join("redfish/v1/index.json"))
        );
        for bad in [
            "/redfish/v1/../secret",
            "/redfish/v1/a/../../x",
            "/registries/../../x",
            "//other-host/x",
            "ftp://host/redfish/v1",
        ] {
            assert_eq!(mockup.file_for(bad), None, "{bad}");
        }
        // Outside /redfish/v1 on the same service: from the folder that holds `redfish/`.
        assert_eq!(
            mockup.file_for("/registries/BiosAttributeRegistry.json"),
            Some(
                dir.path()
                    .join("registries/BiosAttributeRegistry.json/index.json")
            )
        );
        std::fs::create_dir_all(dir.path().join("registries")).unwrap();
        std::fs::write(dir.path().join("registries/Bios.json"), "{}").unwrap();
        assert_eq!(
            mockup.file_for("/registries/Bios.json"),
            Some(dir.path().join("registries/Bios.json"))
        );
        assert_eq!(
            mockup.file_for("https://bmc.example:8443/redfish/v1/Systems/1"),
            Some(dir.path().join("redfish/v1/Systems/1/index.json"))
        );
        let flat = tempfile::tempdir().unwrap();
        std::fs::write(flat.path().join("index.json"), "{}").unwrap();
        let mockup = MockupDir::open(flat.path()).unwrap();
        assert_eq!(
            mockup.file_for("/redfish/v1/Chassis"),
            Some(flat.path().join("Chassis/index.json"))
        );
        for outside in ["/etc/passwd", "/redfish/v10", "/registries/Bios.json"] {
            assert_eq!(mockup.file_for(outside), None, "{outside}");
        }
        assert!(MockupDir::open(tempfile::tempdir().unwrap().path()).is_err());
    }
}
