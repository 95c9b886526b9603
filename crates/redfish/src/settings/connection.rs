//! A BMC opened for `fix`: logged in once, read, written, logged out. A mockup folder can be
//! read (a plan) but never written.

use serde_json::Value;

use super::BmcSettings;
use crate::client::{Answer, HttpFetch, LoginError, WriteMethod, WriteTarget};
use crate::crawl::crawl_for_writes;
use crate::fetch::{Fetch, FetchError};
use crate::{RedfishLocation, RedfishOptions, describe_location};
use driftgate_model::mockup_dir::MockupDir;

/// Why a BMC could not be read or written.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ConnectionError {
    /// It could not be reached or logged into.
    #[error("{target}: {reason}")]
    Open {
        /// The BMC.
        target: String,
        /// Why.
        reason: String,
    },
    /// Part of it could not be read: a plan needs all of it.
    #[error("{target}: could not read {}: {}", .errors.len(), .errors.iter().map(ToString::to_string).collect::<Vec<_>>().join("; "))]
    Incomplete {
        /// The BMC.
        target: String,
        /// What could not be read.
        errors: Vec<FetchError>,
    },
    /// A write got no answer.
    #[error("{target}: {error}")]
    Write {
        /// The BMC.
        target: String,
        /// What went wrong.
        error: FetchError,
    },
    /// A mockup folder is only read.
    #[error(
        "{target}: a mockup folder is read, never written; serve it with `driftgate mockup serve` to try a fix"
    )]
    ReadOnly {
        /// The folder.
        target: String,
    },
}

enum Link {
    Live(Box<HttpFetch>),
    Mockup(MockupDir),
}

/// An open BMC.
pub struct Connection {
    link: Link,
    target: String,
}

impl Connection {
    /// Opens the BMC at `location`: a live one is logged into with `options`' account.
    pub async fn open(
        location: &RedfishLocation,
        options: &RedfishOptions,
    ) -> Result<Self, ConnectionError> {
        let target = describe_location(location);
        let open = |reason: String| ConnectionError::Open {
            target: target.clone(),
            reason,
        };
        let link = match location {
            RedfishLocation::Mockup(dir) => {
                Link::Mockup(MockupDir::open(dir).map_err(|e| open(e.to_string()))?)
            }
            RedfishLocation::Live { base, pin } => {
                let trust = options.trust(pin.as_ref());
                let http = HttpFetch::new(base, &trust, options.client.clone())
                    .map_err(|e| open(e.to_string()))?;
                let login = tokio::time::timeout_at(
                    http.deadline(),
                    http.login(options.credentials.as_ref()),
                )
                .await
                .unwrap_or_else(|_| {
                    Err(LoginError::PastDeadline {
                        uri: crate::session::SESSIONS.to_owned(),
                        timeout: options.client.host_timeout,
                    })
                });
                if let Err(e) = login {
                    return Err(open(format!("login failed: {e}")));
                }
                Link::Live(Box::new(http))
            }
        };
        Ok(Connection { link, target })
    }

    /// The BMC, as reports name it.
    pub fn target(&self) -> &str {
        &self.target
    }

    /// Reads its settings: every resource a capture reads, all of it or an error.
    pub async fn read(&self) -> Result<BmcSettings, ConnectionError> {
        let crawled = match &self.link {
            // A write is checked against the registry's dependencies (the whole registry) and
            // aimed from the URIs read (each resource on its own).
            Link::Live(http) => crawl_for_writes(http.as_ref(), 4).await,
            Link::Mockup(dir) => crawl_for_writes(dir, 4).await,
        };
        match crawled.inventory {
            Some(inventory) if crawled.errors.is_empty() => Ok(BmcSettings::new(inventory.parse())),
            _ => Err(ConnectionError::Incomplete {
                target: self.target.clone(),
                errors: crawled.errors,
            }),
        }
    }

    /// GETs one resource.
    pub async fn get(&self, uri: &str) -> Result<Value, FetchError> {
        match &self.link {
            Link::Live(http) => http.get(uri).await,
            Link::Mockup(dir) => dir.get(uri).await,
        }
    }

    /// Sends one write to `target`; any answer is returned (an error status and a redirect
    /// too, never followed).
    pub async fn write(
        &self,
        method: WriteMethod,
        target: &WriteTarget,
        body: &Value,
    ) -> Result<Answer, ConnectionError> {
        match &self.link {
            Link::Live(http) => {
                http.write(method, target, body)
                    .await
                    .map_err(|error| ConnectionError::Write {
                        target: self.target.clone(),
                        error,
                    })
            }
            Link::Mockup(_) => Err(ConnectionError::ReadOnly {
                target: self.target.clone(),
            }),
        }
    }

    /// Logs out (deletes the session), within the grace a capture's logout has.
    pub async fn close(self) -> Result<(), String> {
        match self.link {
            Link::Live(http) => tokio::time::timeout(crate::LOGOUT_GRACE * 2, http.logout())
                .await
                .map_err(|_| "the logout got no answer".to_owned())?
                .map_err(|e| e.to_string()),
            Link::Mockup(_) => Ok(()),
        }
    }
}
