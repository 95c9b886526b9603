//! The live Redfish transport: HTTPS (or HTTP for simulators) with verified TLS, a CA file
//! or a certificate pin; session login with Basic fallback; per-request timeout, response
//! size cap, redirect cap and bounded retries that honour `Retry-After`. It returns JSON and
//! never interprets it.
//!
//! [`HttpFetch`] is built here and keeps to the host's deadline; every request it sends goes
//! on the BMC's connections (`connections`): `credentials` reads a BMC account (`account_value`
//! one of its values by name: a variable or a systemd credential), `auth` logs
//! in (again, after a 401), `logout` deletes the session, `http` sends one request, a GET
//! with its retries and limits, `write` one PATCH or POST (`fix apply`), `target` where one may go.

mod auth;
mod http;
mod logout;
mod target;
mod write;

use std::sync::Mutex;
use std::time::Duration;

use super::fetch::{Fetch, FetchError, Receive};
use auth::Session;
use driftgate_http::connections;
use driftgate_http::tls::TlsConfigs;

pub use auth::{AuthMode, LoginError};
use driftgate_http::{ClientError, Credentials, TlsTrust};
pub use logout::{LogoutError, abandoned_sessions_deleted};
pub use target::{TargetError, WriteTarget, sent_path};
pub use write::{Answer, WriteMethod};

/// Limits of the client.
#[derive(Debug, Clone)]
pub struct ClientOptions {
    /// Whole-request time limit.
    pub timeout: Duration,
    /// Largest response body accepted.
    pub max_body: usize,
    /// Most redirects followed.
    pub max_redirects: usize,
    /// Retries of a 503 answer.
    pub retries: u32,
    /// Longest `Retry-After` honoured.
    pub max_retry_wait: Duration,
    /// The whole crawl of one host, on top of the per-request `timeout`: a slow BMC with a
    /// large inventory must not hold a gate for ever.
    pub host_timeout: Duration,
    /// The run's TLS configurations, shared by its clients.
    pub tls: TlsConfigs,
}

impl Default for ClientOptions {
    fn default() -> Self {
        ClientOptions {
            timeout: Duration::from_secs(60),
            max_body: 32 * 1024 * 1024,
            max_redirects: 5,
            retries: 3,
            max_retry_wait: Duration::from_secs(30),
            // A slow BMC answers in about 0.1 s; 20,000 members without `$expand` took 222 s.
            host_timeout: Duration::from_secs(300),
            tls: TlsConfigs::default(),
        }
    }
}

/// A Redfish service over HTTP(S).
pub struct HttpFetch {
    /// The login, the GETs, the writes and the logout.
    connections: connections::Connections,
    base: String,
    options: ClientOptions,
    session: tokio::sync::RwLock<Session>,
    /// The account of the last login, to log in again once after a 401.
    credentials: Mutex<Option<Credentials>>,
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
    fn stopped(&self) -> Option<String> {
        self.stopped
            .lock()
            .expect("no panic while holding the lock")
            .clone()
    }

    /// Sends no more requests, for `reason` (the first reason stays).
    fn stop(&self, reason: String) {
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
