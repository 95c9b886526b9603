//! A BMC's connections: every request to the BMC (login, GETs, a write, logout) goes on them,
//! over the run's rustls configuration, each reading into a buffer of an exact size.
//!
//! Kept instead of hyper-util's pooled client: a connection goes back the moment its body ends,
//! so a BMC never has more connections than requests in flight (5 per Dell host, not 6–8): a
//! 10,000-BMC night at 200 in flight, 146 → 132 MiB (CHANGELOG, "Performance history").
//! No redirect is followed here (`http.rs` does, on the BMC's origin only), and no proxy of the
//! environment is used: an `HTTPS_PROXY` set for the internet would see the BMC's credentials.

use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use http_body_util::Full;
use hyper::body::{Body, Bytes, Frame, Incoming, SizeHint};
use hyper::client::conn::http1::{self, SendRequest};
use hyper::{Request, Response, Uri};
use hyper_util::client::legacy::connect::HttpConnector;
use tower_service::Service as _;

use crate::causes::{causes, refused};
use crate::tls::{TlsConfigs, ca_config, insecure_config, pinned_config};
use crate::trust::{ClientError, TlsTrust};

/// How much of a response each read takes: a Redfish resource is a few KB, and a registry
/// (1.1 MB for Dell's BIOS) is read in pieces of this size, for no more CPU (measured).
const READ_BUFFER: usize = 8 * 1024;

type Connector = hyper_rustls::HttpsConnector<HttpConnector>;
type Sender = SendRequest<Full<Bytes>>;

/// A BMC's connections; a request's body is whole before it is sent (a login's, a write's;
/// none for a GET or a DELETE). Cloned, the clones share them.
#[derive(Clone)]
pub struct Connections(Arc<Shared>);

struct Shared {
    connector: Connector,
    /// The BMC's origin, which a new connection is made to.
    origin: Uri,
    /// The connections no request holds, the last given back last.
    idle: Mutex<Vec<Sender>>,
}

/// Why a request got no answer.
#[derive(Debug, thiserror::Error)]
pub enum ConnectionError {
    /// No connection could be made (TCP or TLS).
    #[error("cannot connect")]
    Connect(#[source] Box<dyn std::error::Error + Send + Sync>),
    /// The connection failed while sending the request or reading the answer's head.
    #[error(transparent)]
    Http(#[from] hyper::Error),
}

impl ConnectionError {
    /// Whether no connection could be made.
    pub fn is_connect(&self) -> bool {
        matches!(self, ConnectionError::Connect(_))
    }

    /// What went wrong, with its causes: "connection refused" when nothing listens.
    pub fn describe(&self) -> String {
        if self.is_connect() && refused(self) {
            "connection refused".to_owned()
        } else if self.is_connect() {
            causes("cannot connect".to_owned(), self)
        } else {
            causes(self.to_string(), self)
        }
    }
}

/// Connections to the service at `base` (named in errors) that trust what `trust` says,
/// connecting within `connect_timeout`.
pub fn client(
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
    let origin = base.parse::<Uri>().map_err(|e| ClientError::NotAUrl {
        base: base.to_owned(),
        reason: e.to_string(),
    })?;
    Ok(Connections(Arc::new(Shared {
        connector,
        origin,
        idle: Mutex::new(Vec::new()),
    })))
}

/// A request of `method` for `url` as these connections send it: the path and query on the
/// service's own connection, and the host they are asked of.
pub fn request_to(method: hyper::Method, url: &url::Url) -> hyper::http::request::Builder {
    let target = match url.query() {
        Some(query) => format!("{}?{query}", url.path()),
        None => url.path().to_owned(),
    };
    let host = match url.port() {
        Some(port) => format!("{}:{port}", url.host_str().unwrap_or_default()),
        None => url.host_str().unwrap_or_default().to_owned(),
    };
    Request::builder()
        .method(method)
        .uri(target)
        .header(hyper::header::HOST, host)
}

impl Connections {
    /// The answer to `request` (origin-form, with its `Host`), on a connection given back or a
    /// new one. A request that a connection given back could not take (the BMC closed it
    /// meanwhile) is sent on another; one a new connection failed is not sent again.
    pub async fn request(
        &self,
        mut request: Request<Full<Bytes>>,
    ) -> Result<Response<Leased>, ConnectionError> {
        loop {
            let (mut sender, reused) = match self.given_back().await {
                Some(sender) => (sender, true),
                None => (self.connect().await?, false),
            };
            match sender.try_send_request(request).await {
                Ok(response) => {
                    let lease = Lease {
                        sender: Some(sender),
                        connections: self.clone(),
                    };
                    return Ok(response.map(|body| Leased { body, lease }));
                }
                Err(mut error) => match error.take_message() {
                    Some(unsent) if reused => request = unsent,
                    _ => return Err(error.into_error().into()),
                },
            }
        }
    }

    /// The connection given back last that is still open, once it can take a request.
    async fn given_back(&self) -> Option<Sender> {
        loop {
            let mut sender = self
                .0
                .idle
                .lock()
                .expect("no panic while holding the lock")
                .pop()?;
            // Given back as its answer's body ended: ready once hyper has read that end.
            if sender.ready().await.is_ok() {
                return Some(sender);
            }
        }
    }

    /// A new connection to the BMC, driven by a task of its own until it closes.
    async fn connect(&self) -> Result<Sender, ConnectionError> {
        let mut connector = self.0.connector.clone();
        std::future::poll_fn(|cx| connector.poll_ready(cx))
            .await
            .map_err(ConnectionError::Connect)?;
        let stream = connector
            .call(self.0.origin.clone())
            .await
            .map_err(ConnectionError::Connect)?;
        let (sender, connection) = http1::Builder::new()
            .read_buf_exact_size(Some(READ_BUFFER))
            .handshake(stream)
            .await?;
        tokio::spawn(async move {
            if let Err(e) = connection.await {
                tracing::trace!("connection closed: {e}");
            }
        });
        Ok(sender)
    }
}

/// A connection a request holds until its answer's body ends.
struct Lease {
    sender: Option<Sender>,
    connections: Connections,
}

impl Lease {
    /// Gives the connection back: its answer was read to the end.
    fn give_back(&mut self) {
        if let Some(sender) = self.sender.take() {
            self.connections
                .0
                .idle
                .lock()
                .expect("no panic while holding the lock")
                .push(sender);
        }
    }
}

/// An answer's body, holding its connection until it ends. One dropped before its end closes
/// the connection (what is left of the answer is never read).
pub struct Leased {
    body: Incoming,
    lease: Lease,
}

impl Body for Leased {
    type Data = Bytes;
    type Error = hyper::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, hyper::Error>>> {
        let frame = std::task::ready!(Pin::new(&mut self.body).poll_frame(cx));
        if frame.is_none() {
            self.lease.give_back();
        }
        Poll::Ready(frame)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}
