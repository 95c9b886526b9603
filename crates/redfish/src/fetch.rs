//! What the crawler reads through: a [`Fetch`] returns the body of a Redfish URI, and reads it
//! as JSON (or an attribute registry as judging reads it) the one way every fetch does. The
//! live HTTP client and an offline mockup folder implement it; the crawler cannot tell them
//! apart.

use std::future::Future;
use std::sync::Arc;

use serde_json::Value;

use super::attributes::{Arriving, ENTRY_MEMBERS, KnownRegistries, Registry};
pub use driftgate_http::body::Receive;
use driftgate_http::body::presized;
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
    /// An attribute registry read for judging: straight from its text into what judging
    /// reads ([`Fetch::get_registry`]), or, a body that cannot be, parsed with only what
    /// judging a capture reads built: of each attribute its
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
                keep_only: &[(&["RegistryEntries", "Attributes"], ENTRY_MEMBERS)],
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

/// An attribute registry's body, read for judging (see [`Fetch::get_registry`]).
#[derive(Debug)]
pub enum RegistryBody {
    /// Read straight from the text.
    Read {
        /// Its `@odata.type`, for the crawl's check of what a link led to.
        odata_type: Box<str>,
        /// What judging reads of it, shared with the other BMCs serving the same text.
        registry: Arc<Registry>,
    },
    /// A body the straight read refused (not a registry's shape, a member given twice): what
    /// judging reads of it as JSON, for the crawl to check and say what is wrong.
    Parsed(Value),
}

/// An attribute registry's body compared with the registries `known` keeps as it arrives.
struct RegistryArriving<'k> {
    known: &'k KnownRegistries,
    arriving: Option<Arriving>,
}

impl Receive for RegistryArriving<'_> {
    fn announced(&mut self, length: Option<u64>) {
        self.arriving = Some(self.known.arriving(length, presized(length)));
    }

    fn push(&mut self, chunk: &[u8]) {
        self.arriving
            .get_or_insert_with(|| self.known.arriving(None, 0))
            .push(chunk);
    }
}

/// Reads Redfish resources by URI (`/redfish/v1/...`, possibly with a query).
pub trait Fetch: Sync {
    /// Where resources come from, for messages and the snapshot's source target.
    fn target(&self) -> String;
    /// The body of `uri` as served; an error response is an error, never a body.
    fn get_body(&self, uri: &str) -> impl Future<Output = Result<Vec<u8>, FetchError>> + Send;
    /// The body of `uri` as served, given to `into` as it arrives (a transport that has it
    /// whole gives it at once); an error response is an error, and gives `into` nothing.
    fn receive(
        &self,
        uri: &str,
        into: &mut dyn Receive,
    ) -> impl Future<Output = Result<(), FetchError>> + Send {
        async move {
            let body = self.get_body(uri).await?;
            into.announced(Some(body.len() as u64));
            into.push(&body);
            Ok(())
        }
    }
    /// The JSON body of `uri`.
    fn get(&self, uri: &str) -> impl Future<Output = Result<Value, FetchError>> + Send {
        self.get_as(uri, Body::Whole)
    }
    /// The JSON body of `uri`, as much of it as `kind` says.
    fn get_as(
        &self,
        uri: &str,
        kind: Body,
    ) -> impl Future<Output = Result<Value, FetchError>> + Send {
        async move { parse_body(uri, &self.get_body(uri).await?, kind) }
    }
    /// The attribute registry at `uri`, as judging reads it; one `known` holds already is not
    /// read again, nor its body held: it is recognised as its bytes arrive.
    fn get_registry(
        &self,
        uri: &str,
        known: &KnownRegistries,
    ) -> impl Future<Output = Result<RegistryBody, FetchError>> + Send {
        async move {
            let mut arriving = RegistryArriving {
                known,
                arriving: None,
            };
            self.receive(uri, &mut arriving).await?;
            let arrived = arriving
                .arriving
                .unwrap_or_else(|| known.arriving(Some(0), 0));
            let body = match arrived.finish() {
                Ok((odata_type, registry)) => {
                    return Ok(RegistryBody::Read {
                        odata_type,
                        registry,
                    });
                }
                Err(body) => body,
            };
            Ok(match known.read(&body) {
                Some((odata_type, registry)) => RegistryBody::Read {
                    odata_type,
                    registry,
                },
                None => RegistryBody::Parsed(parse_body(uri, &body, Body::JudgedRegistry)?),
            })
        }
    }
}

impl Fetch for MockupDir {
    fn target(&self) -> String {
        format!("mockup:{}", self.given().display())
    }

    async fn get_body(&self, uri: &str) -> Result<Vec<u8>, FetchError> {
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
        Ok(bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A service that answers every URI with one body.
    struct Serves(&'static str);

    impl Fetch for Serves {
        fn target(&self) -> String {
            "test".to_owned()
        }

        async fn get_body(&self, _uri: &str) -> Result<Vec<u8>, FetchError> {
            Ok(self.0.as_bytes().to_vec())
        }
    }

    #[tokio::test]
    async fn a_registry_is_read_from_its_text_and_one_that_is_not_is_parsed_to_say_why() {
        let known = KnownRegistries::default();
        let uri = "/redfish/v1/Registries/Bios";
        let read = Serves(
            r##"{"@odata.type": "#AttributeRegistry.v1_3_0.AttributeRegistry", "Id": "Bios",
                "RegistryEntries": {"Attributes": [{"AttributeName": "DcbxMode", "Type": "Enumeration"}]}}"##,
        );
        let Ok(RegistryBody::Read { registry, .. }) = read.get_registry(uri, &known).await else {
            panic!("read straight from the text");
        };
        assert!(registry.entry("DcbxMode").is_some());
        // Not a registry's shape: the JSON, for the crawl to check.
        let shapeless = Serves(r##"{"RegistryEntries": {"Attributes": "none"}}"##);
        let Ok(RegistryBody::Parsed(value)) = shapeless.get_registry(uri, &known).await else {
            panic!("parsed");
        };
        assert_eq!(value["RegistryEntries"]["Attributes"], "none");
        // A member given twice, or no JSON: an error naming the URI, as for any body.
        let twice = Serves(
            r##"{"@odata.type": "#AttributeRegistry.v1_3_0.AttributeRegistry",
                "RegistryEntries": {"Attributes": [{"AttributeName": "A", "ReadOnly": false, "ReadOnly": true}]}}"##,
        );
        let error = twice.get_registry(uri, &known).await.unwrap_err();
        assert!(
            matches!(&error, FetchError::DuplicateKey { uri: at, .. } if at == uri),
            "{error}"
        );
        let cut =
            Serves(r##"{"@odata.type": "#AttributeRegistry.v1_3_0.AttributeRegistry", "Regi"##);
        let error = cut.get_registry(uri, &known).await.unwrap_err();
        assert!(matches!(error, FetchError::NotJson { .. }), "{error}");
    }
}
