//! What the crawler reads through: a [`Fetch`] returns the JSON of a Redfish URI. The live
//! HTTP client and an offline mockup folder implement it; the crawler cannot tell them apart.

use std::future::Future;

use serde_json::Value;

use driftgate_model::mockup_dir::MockupDir;
use driftgate_snapshot::{DuplicateKey, Pruned, UniqueKeysError, parse_unique_pruned};

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
    #[error("{reason}: GET {uri}")]
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

/// How much of a body is built.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Body {
    /// All of it.
    Whole,
    /// An attribute registry with only what judging a capture reads: of each attribute its
    /// `AttributeName`, `DisplayName`, `HelpText`, `ReadOnly`, `WriteOnly` and `Type`, and
    /// none of its `Dependencies` and `Menus` (together most of Dell's 1 MB BIOS registry:
    /// each enumeration's `Value` list, menu paths, defaults, bounds). A write (`fix`) and a
    /// saved mockup need the whole registry.
    JudgedRegistry,
}

impl Body {
    /// What [`parse_unique_pruned`] does not build.
    fn pruned(self) -> Pruned<'static> {
        match self {
            Body::Whole => Pruned::default(),
            Body::JudgedRegistry => Pruned {
                skip: &[
                    &["RegistryEntries", "Dependencies"],
                    &["RegistryEntries", "Menus"],
                ],
                keep_only: &[(
                    &["RegistryEntries", "Attributes"],
                    &[
                        "AttributeName",
                        "DisplayName",
                        "HelpText",
                        "ReadOnly",
                        "WriteOnly",
                        "Type",
                    ],
                )],
            },
        }
    }
}

/// The JSON of a body read from `uri`, as every [`Fetch`] reads it: a body that is no JSON, or
/// whose objects give a key twice, is an error naming `uri`, never a value. `kind` says how
/// much of it is built.
pub fn parse_body(uri: &str, body: &[u8], kind: Body) -> Result<Value, FetchError> {
    parse_unique_pruned(body, &kind.pruned()).map_err(|error| match error {
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
    fn get(&self, uri: &str) -> impl Future<Output = Result<Value, FetchError>> + Send {
        self.get_as(uri, Body::Whole)
    }
    /// The JSON body of `uri`, as much of it as `kind` says.
    fn get_as(
        &self,
        uri: &str,
        kind: Body,
    ) -> impl Future<Output = Result<Value, FetchError>> + Send;
}

impl Fetch for MockupDir {
    fn target(&self) -> String {
        format!("mockup:{}", self.given().display())
    }

    async fn get_as(&self, uri: &str, kind: Body) -> Result<Value, FetchError> {
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
        parse_body(uri, &bytes, kind)
    }
}
