//! [`HttpFetch`]: a BMC's client, built here and kept to the host's deadline; the requests it
//! sends are in `http.rs`, its logins in `auth.rs`, its logout in `logout.rs`.

use std::sync::Mutex;
use std::time::Duration;

use super::authorization::Session;
use super::options::ClientOptions;
use crate::fetch::{Fetch, FetchError, Receive};
use driftgate_http::connections::{self, Connections};
use driftgate_http::{ClientError, Credentials, TlsTrust};

/// A Redfish service over HTTP(S).
pub struct HttpFetch {
    /// The login, the GETs, the writes and the logout.
    pub(super) connections: Connections,
    pub(super) base: String,
    pub(super) options: ClientOptions,
    pub(super) session: tokio::sync::RwLock<Session>,
    /// The account of the last login, to log in again once after a 401.
    pub(super) credentials: Mutex<Option<Credentials>>,
    /// Why no more requests are sent (authentication lost, host deadline passed).
    stopped: Mutex<Option<String>>,
    /// When the host's time (`host_timeout`) is up.
    deadline: tokio::time::Instant,
}

impl HttpFetch {
    /// When the host's time (`host_timeout`, counted from [`HttpFetch::new`]) is up.
    pub fn deadline(&self) -> tokio::time::Instant {
        self.deadline
    }

    /// A client for the service at `base` (`https://bmc[:port]`).
    pub fn new(base: &str, trust: &TlsTrust, options: ClientOptions) -> Result<Self, ClientError> {
        url::Url::parse(base).map_err(|e| ClientError::NotAUrl {
            base: base.to_owned(),
            reason: e.to_string(),
        })?;
        // The run's configurations are built with the process's default provider.
        driftgate_http::tls::provider();
        let connect_timeout = options.timeout.min(Duration::from_secs(15));
        let connections = connections::client(trust, &options.tls, base, connect_timeout)?;
        Ok(HttpFetch {
            connections,
            base: base.trim_end_matches('/').to_owned(),
            deadline: tokio::time::Instant::now() + options.host_timeout,
            options,
            session: tokio::sync::RwLock::new(Session::anonymous()),
            credentials: Mutex::new(None),
            stopped: Mutex::new(None),
        })
    }

    /// Why requests are no longer sent, once they are not.
    pub(super) fn stopped(&self) -> Option<String> {
        self.stopped
            .lock()
            .expect("no panic while holding the lock")
            .clone()
    }

    /// Sends no more requests, for `reason` (the first reason stays).
    pub(super) fn stop(&self, reason: String) {
        self.stopped
            .lock()
            .expect("no panic while holding the lock")
            .get_or_insert(reason);
    }

    /// GETs `uri` into `into`; after a 401 logs in again once (for every request in flight)
    /// and retries.
    async fn get_authenticated(&self, uri: &str, into: &mut dyn Receive) -> Result<(), FetchError> {
        loop {
            if let Some(reason) = self.stopped() {
                return Err(FetchError::Transport {
                    uri: uri.to_owned(),
                    reason: format!("not requested: {reason}"),
                });
            }
            let mut generation = 0;
            match self.get_once(uri, &mut generation, into).await {
                Err(refused @ FetchError::Status { status: 401, .. }) => {
                    self.log_in_again(uri, generation, &refused).await?;
                }
                other => return other,
            }
        }
    }
}

impl Fetch for HttpFetch {
    fn target(&self) -> String {
        self.base.clone()
    }

    async fn get_body(&self, uri: &str) -> Result<Vec<u8>, FetchError> {
        let mut body = Vec::new();
        self.receive(uri, &mut body).await?;
        Ok(body)
    }

    /// Within the host's deadline.
    async fn receive(&self, uri: &str, into: &mut dyn Receive) -> Result<(), FetchError> {
        let deadline = || {
            format!(
                "no answer within the host deadline of {} s (--host-timeout)",
                self.options.host_timeout.as_secs()
            )
        };
        // Checked before sending: a timeout polls its future once even when already expired.
        if tokio::time::Instant::now() >= self.deadline {
            self.stop(deadline());
            return Err(FetchError::Transport {
                uri: uri.to_owned(),
                reason: deadline(),
            });
        }
        let get = self.get_authenticated(uri, into);
        match tokio::time::timeout_at(self.deadline, get).await {
            Ok(result) => result,
            Err(_) => {
                self.stop(deadline());
                Err(FetchError::Transport {
                    uri: uri.to_owned(),
                    reason: deadline(),
                })
            }
        }
    }
}
