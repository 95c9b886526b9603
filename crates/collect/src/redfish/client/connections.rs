//! A BMC's connections: hyper-util's client, over the run's rustls configuration, with a read
//! buffer of an exact size. Every request to the BMC goes on them: the session's login and
//! logout, the GETs, a write. A login on a connection of its own (as reqwest's client of its
//! own gave it) kept that connection idle for the whole crawl, for the logout: 7 MiB of a
//! fleet's RSS with 200 hosts in flight, and one more TLS handshake per BMC. hyper's read
//! buffer, unset, grows with the bodies a connection reads (to 16–32 KB after a BIOS or a
//! system resource) and keeps that size while the connection is kept: 28 MiB of the same
//! fleet's peak. It follows no redirect: `http.rs` does, on the BMC's origin only.

use std::time::Duration;

use http_body_util::Full;
use hyper::body::Bytes;
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::{TokioExecutor, TokioTimer};

use super::{ClientError, TlsTrust};
use crate::redfish::tls::{TlsConfigs, ca_config, insecure_config, pinned_config};

/// How much of a response each read takes: a Redfish resource is a few KB, and a registry
/// (1.1 MB for Dell's BIOS) is read in pieces of this size, for no more CPU (measured).
const READ_BUFFER: usize = 8 * 1024;

/// A BMC's connections; a request's body is whole before it is sent (a login's, a write's;
/// none for a GET or a DELETE).
pub(super) type Connections = Client<hyper_rustls::HttpsConnector<HttpConnector>, Full<Bytes>>;

/// A client for the service at `base` (named in errors) that trusts what `trust` says,
/// connecting within `connect_timeout`.
pub(super) fn client(
    trust: &TlsTrust,
    configs: &TlsConfigs,
    base: &str,
    connect_timeout: Duration,
) -> Result<Connections, ClientError> {
    let tls = |reason: String| ClientError::Tls {
        base: base.to_owned(),
        reason,
    };
    let mut config = match trust {
        TlsTrust::System => configs.system().map_err(tls)?,
        TlsTrust::CaBundle(pem) => ca_config(pem).map_err(|reason| ClientError::CaFile {
            base: base.to_owned(),
            reason,
        })?,
        TlsTrust::Pinned(pin) => pinned_config(pin.clone()).map_err(|e| tls(e.to_string()))?,
        TlsTrust::Insecure => insecure_config().map_err(|e| tls(e.to_string()))?,
    };
    // The connector offers what it speaks (HTTP/1.1, and ALPN says nothing of it then).
    config.alpn_protocols.clear();
    let mut http = HttpConnector::new();
    // `https://` goes through rustls below; `http://` (a simulator) as it is.
    http.enforce_http(false);
    http.set_nodelay(true);
    http.set_connect_timeout(Some(connect_timeout));
    let connector = hyper_rustls::HttpsConnectorBuilder::new()
        .with_tls_config(config)
        .https_or_http()
        .enable_http1()
        .wrap_connector(http);
    Ok(Client::builder(TokioExecutor::new())
        .http1_read_buf_exact_size(READ_BUFFER)
        .timer(TokioTimer::new())
        .pool_timer(TokioTimer::new())
        .build(connector))
}
