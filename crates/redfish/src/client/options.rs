//! The limits of a BMC's client, set per run.

use std::time::Duration;

use driftgate_http::tls::TlsConfigs;

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
