//! One request on the wire: the URL of a URI on the BMC (never another origin), the request
//! with its authentication, the redirects a GET follows (on the BMC's origin only), the retries
//! of a busy (503) service honouring `Retry-After`, the body read under the size cap, all
//! within the request's time limit, and the texts of what went wrong.

use std::time::Duration;

use base64::Engine as _;
use http_body_util::Full;
use hyper::body::Bytes;
use hyper::header::{self, HeaderValue};
use hyper::{Method, Request, Response};
use serde_json::Value;
use tokio::time::Instant;

use super::authorization::Auth;
use super::fetcher::HttpFetch;
use super::options::ClientOptions;
use crate::fetch::{FetchError, Receive};
use driftgate_http::body::{self, BodyError};
use driftgate_http::connections::{ConnectionError, Connections, Leased, request_to};
use driftgate_http::uri::redirect_refused;

impl HttpFetch {
    /// The URL of `uri` on the BMC. A URI a response names that points at another origin
    /// (absolute, `//host/…`, `@host/…`) is refused: the credentials would follow it.
    pub(super) fn url(&self, uri: &str) -> Result<url::Url, FetchError> {
        url_on(&self.base, uri)
    }

    /// One GET of `uri`, with the retries of a busy (503) service, its body given to `into`;
    /// `generation` is set to the login that the last attempt was sent with.
    pub(super) async fn get_once(
        &self,
        uri: &str,
        generation: &mut u64,
        into: &mut dyn Receive,
    ) -> Result<(), FetchError> {
        let url = self.url(uri)?;
        let mut attempt = 0;
        loop {
            // The request's time limit counts its redirects and its body.
            let exchange = Exchange::starting_now(&self.connections, &self.options);
            let response = {
                // Held until the answer's head is in: a new login waits for it, and a request
                // started meanwhile waits for the new login.
                let session = self.session.read().await;
                *generation = session.generation;
                exchange
                    .send(Method::GET, &url, &session.auth, Bytes::new())
                    .await
            };
            let response = response.map_err(|reason| FetchError::Transport {
                uri: uri.to_owned(),
                reason,
            })?;
            let status = response.status().as_u16();
            tracing::debug!("GET {uri} → {status}");
            if status == 503 && attempt < self.options.retries {
                attempt += 1;
                let wait = retry_after(response.headers())
                    .unwrap_or(Duration::from_secs(1))
                    .min(self.options.max_retry_wait);
                // Read, so that its connection is kept: a busy BMC is spared a handshake.
                let _ = exchange.body(uri, response, self.options.max_body).await;
                tracing::info!(
                    "GET {uri}: HTTP 503, retry {attempt} of {} in {wait:?}",
                    self.options.retries
                );
                tokio::time::sleep(wait).await;
                continue;
            }
            let limit = self.options.max_body;
            if !(200..300).contains(&status) {
                let mut body = Vec::new();
                receive_incoming(uri, response, limit, &mut body, exchange.deadline).await?;
                return Err(FetchError::Status {
                    uri: uri.to_owned(),
                    status,
                    detail: error_detail(&body),
                });
            }
            return receive_incoming(uri, response, limit, into, exchange.deadline).await;
        }
    }
}

/// One request's way to a BMC: its connections, how many redirects it follows and when its
/// time is up.
pub(super) struct Exchange<'a> {
    /// The BMC's connections.
    connections: &'a Connections,
    /// Redirects followed at most (`ClientOptions::max_redirects`).
    max_redirects: usize,
    /// When the request, its redirects and its body are due.
    deadline: Instant,
}

impl<'a> Exchange<'a> {
    /// A request on `connections` within the limits of `options`, its time counted from now.
    pub(super) fn starting_now(connections: &'a Connections, options: &ClientOptions) -> Self {
        Exchange {
            connections,
            max_redirects: options.max_redirects,
            deadline: Instant::now() + options.timeout,
        }
    }

    /// The answer to `method` of `url` with `body`, sent with `auth`, following the redirects
    /// the BMC answers on its own origin to a GET (never to a login or a write: its 3xx is
    /// the answer); or why there is none.
    pub(super) async fn send(
        &self,
        method: Method,
        url: &url::Url,
        auth: &Auth,
        body: Bytes,
    ) -> Result<Response<Leased>, String> {
        let origin = url.origin();
        let mut url = url.clone();
        // The URLs asked, the first one too.
        let mut visited = 1;
        loop {
            let request = request(method.clone(), &url, auth, body.clone())?;
            let response =
                tokio::time::timeout_at(self.deadline, self.connections.request(request))
                    .await
                    .map_err(|_| "timed out".to_owned())?;
            let response = match response {
                Ok(response) => response,
                Err(e) => return Err(explain_hyper(&url, &e).await),
            };
            let status = response.status();
            // A login or write is never sent again elsewhere: a 307 of a PATCH of a settings
            // object to an account would write the account.
            let follows = method == Method::GET;
            let location = (status.is_redirection() && follows)
                .then(|| response.headers().get(header::LOCATION))
                .flatten()
                .and_then(|location| location.to_str().ok())
                .and_then(|location| url.join(location).ok());
            let Some(next) = location else {
                return Ok(response);
            };
            if let Some(reason) = redirect_refused(&origin, &next, visited, self.max_redirects) {
                return Err(format!("redirect refused: {reason}"));
            }
            visited += 1;
            url = next;
        }
    }

    /// The whole body of `response` to a request of `uri`, refused past `limit` bytes or when
    /// it is not all in by the deadline.
    pub(super) async fn body(
        &self,
        uri: &str,
        response: Response<Leased>,
        limit: usize,
    ) -> Result<Vec<u8>, FetchError> {
        let mut body = Vec::new();
        receive_incoming(uri, response, limit, &mut body, self.deadline).await?;
        Ok(body)
    }
}

/// The request `method` of `url` with `body` (JSON; empty: none) and its authentication, or
/// why it cannot be sent.
fn request(
    method: Method,
    url: &url::Url,
    auth: &Auth,
    body: Bytes,
) -> Result<Request<Full<Bytes>>, String> {
    let mut request = request_to(method, url)
        .header(header::ACCEPT, "application/json")
        .header(header::USER_AGENT, driftgate_snapshot::tool_version());
    if !body.is_empty() {
        request = request.header(header::CONTENT_TYPE, "application/json");
    }
    let secret = |name, value: String| {
        let mut value = HeaderValue::try_from(value)
            .map_err(|_| format!("{name} is not a valid header value"))?;
        value.set_sensitive(true);
        Ok::<_, String>(value)
    };
    match auth {
        Auth::Anonymous => {}
        Auth::Basic(credentials) => {
            let pair = format!("{}:{}", credentials.username, credentials.password);
            let basic = format!(
                "Basic {}",
                base64::engine::general_purpose::STANDARD.encode(pair)
            );
            request = request.header(header::AUTHORIZATION, secret("the account", basic)?);
        }
        Auth::Session { token, .. } => {
            request = request.header("X-Auth-Token", secret("the session token", token.clone())?);
        }
    }
    request
        .body(Full::new(body))
        .map_err(|e| format!("not a valid request: {e}"))
}

/// [`HttpFetch::url`] on the BMC at `base`.
pub(super) fn url_on(base: &str, uri: &str) -> Result<url::Url, FetchError> {
    let refused = |reason: &str| FetchError::Transport {
        uri: uri.to_owned(),
        reason: reason.to_owned(),
    };
    let base = url::Url::parse(base).map_err(|_| refused("the BMC address is not a URL"))?;
    if !(uri.starts_with('/') || uri.starts_with("http://") || uri.starts_with("https://")) {
        return Err(refused("not an absolute path on the BMC; refused"));
    }
    let url = base.join(uri).map_err(|_| refused("not a valid URI"))?;
    if url.origin() != base.origin() || url.username() != "" || url.password().is_some() {
        return Err(refused(
            "points to another origin than the BMC; refused, the credentials would follow it",
        ));
    }
    Ok(url)
}

/// The body of a GET's `response` given to `into` as it arrives, refused past `limit` bytes or
/// when it is not all in by `deadline`.
async fn receive_incoming(
    uri: &str,
    response: Response<Leased>,
    limit: usize,
    into: &mut dyn Receive,
    deadline: Instant,
) -> Result<(), FetchError> {
    body::receive(response, limit, into, deadline)
        .await
        .map_err(|error| match error {
            BodyError::TooLarge { limit } => FetchError::TooLarge {
                uri: uri.to_owned(),
                limit,
            },
            other => FetchError::Transport {
                uri: uri.to_owned(),
                reason: other.to_string(),
            },
        })
}

/// `Retry-After` in seconds (an HTTP date is treated as one second: BMC clocks drift).
fn retry_after(headers: &header::HeaderMap) -> Option<Duration> {
    let value = headers.get("Retry-After")?.to_str().ok()?;
    Some(Duration::from_secs(value.trim().parse().unwrap_or(1)))
}

/// `: message (MessageId)` from a Redfish error body, or nothing.
pub(super) fn error_detail(body: &[u8]) -> String {
    let Ok(value) = serde_json::from_slice::<Value>(body) else {
        return String::new();
    };
    let error = &value["error"];
    let extended = &error["@Message.ExtendedInfo"][0];
    let message = extended["Message"]
        .as_str()
        .or_else(|| error["message"].as_str());
    let id = extended["MessageId"]
        .as_str()
        .or_else(|| error["code"].as_str());
    match (message, id) {
        (Some(message), Some(id)) => format!(": {message} ({id})"),
        (Some(message), None) => format!(": {message}"),
        (None, Some(id)) => format!(": {id}"),
        (None, None) => String::new(),
    }
}

/// How long the handshake that learns an untrusted certificate may take.
const PROBE_TIMEOUT: Duration = Duration::from_secs(5);

/// What went wrong with a request of `url`: [`ConnectionError::describe`]; for a certificate this client
/// does not trust, that first (a summary that cuts the line keeps it), then the certificate the
/// BMC presents (its pin, subject, issuer and validity, learnt by a handshake that sends no
/// request and no credentials) and the two ways to trust it.
async fn explain_hyper(url: &url::Url, error: &ConnectionError) -> String {
    let Some(reason) = driftgate_http::tls::untrusted_certificate(error) else {
        return error.describe();
    };
    let origin = url.origin().ascii_serialization();
    match driftgate_http::tls::presented_certificate(url.as_str(), PROBE_TIMEOUT).await {
        Ok(presented) => format!(
            "certificate not trusted ({reason}): the BMC presents the certificate {}; if that is \
             the BMC's own, pin it in the source (redfish={origin}?pin={}, or `driftgate \
             inventory pin HOST --write`) or trust its CA (ca_file in the inventory, --ca-cert)",
            presented.describe(jiff::Timestamp::now()),
            presented.pin
        ),
        Err(probe) => format!(
            "certificate not trusted ({reason}); its pin is unknown ({probe}): pin the BMC's \
             certificate in the source (redfish={origin}?pin=sha256:…, or `driftgate inventory \
             pin HOST --write`) or trust its CA (ca_file in the inventory, --ca-cert)"
        ),
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;

    #[test]
    fn error_bodies_give_the_redfish_message() {
        let body = br#"{"error":{"code":"Base.1.12.GeneralError","message":"A general error has occurred.","@Message.ExtendedInfo":[{"Message":"The maximum number of user sessions is reached.","MessageId":"IDRAC.2.9.RAC0218"}]}}"#;
        assert_eq!(
            error_detail(body),
            ": The maximum number of user sessions is reached. (IDRAC.2.9.RAC0218)"
        );
        assert_eq!(error_detail(b"<html>503</html>"), "");
    }

    /// An HTTP server on 127.0.0.1 answering each GET with `body(path)` written in pieces of a
    /// few hundred bytes, with its length announced, or without it (`/chunked…`) in chunked
    /// encoding; its base URL.
    async fn serve_in_pieces(body: fn(&str) -> String) -> String {
        use tokio::io::AsyncWriteExt as _;
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(async move {
            while let Ok((mut stream, _)) = listener.accept().await {
                // A client that stops reading (a body past its cap) closes early.
                let served = async {
                    let request = crate::test_support::request_head(&mut stream).await;
                    let request = String::from_utf8_lossy(&request);
                    let path = request.split(' ').nth(1).unwrap_or("/").to_owned();
                    let text = body(&path);
                    let chunked = path.starts_with("/chunked");
                    let head = if chunked {
                        "Transfer-Encoding: chunked".to_owned()
                    } else {
                        format!("Content-Length: {}", text.len())
                    };
                    let head = format!(
                        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n{head}\r\n\r\n"
                    );
                    stream.write_all(head.as_bytes()).await?;
                    for piece in text.as_bytes().chunks(300) {
                        if chunked {
                            let size = format!("{:x}\r\n", piece.len());
                            stream.write_all(size.as_bytes()).await?;
                        }
                        stream.write_all(piece).await?;
                        if chunked {
                            stream.write_all(b"\r\n").await?;
                        }
                        stream.flush().await?;
                        tokio::task::yield_now().await;
                    }
                    if chunked {
                        stream.write_all(b"0\r\n\r\n").await?;
                    }
                    Ok::<_, std::io::Error>(())
                };
                let _ = served.await;
            }
        });
        base
    }

    /// An attribute registry of 100 attributes, the last one named `last`.
    fn registry(last: &str) -> String {
        let mut attributes: Vec<String> = (0..99)
            .map(|n| format!(r#"{{"AttributeName": "Attribute{n:02}", "Type": "String"}}"#))
            .collect();
        attributes.push(format!(
            r#"{{"AttributeName": "{last}", "Type": "String"}}"#
        ));
        format!(
            r##"{{"@odata.type": "#AttributeRegistry.v1_3_0.AttributeRegistry", "Id": "R",
                "RegistryEntries": {{"Attributes": [{}]}}}}"##,
            attributes.join(", ")
        )
    }

    #[tokio::test]
    async fn a_registry_is_read_on_a_kept_connection_like_a_resource() {
        use crate::attributes::KnownRegistries;
        use crate::fetch::Fetch as _;
        use tokio::io::AsyncWriteExt as _;
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        // Each request as the server saw it: its connection, its path, whether it asked that
        // its connection be closed. The server keeps every connection the client does.
        let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
        let log = Arc::clone(&seen);
        tokio::spawn(async move {
            let mut connection = 0;
            while let Ok((mut stream, _)) = listener.accept().await {
                connection += 1;
                let log = Arc::clone(&log);
                tokio::spawn(async move {
                    loop {
                        let head = crate::test_support::request_head(&mut stream).await;
                        let head = String::from_utf8_lossy(&head).to_ascii_lowercase();
                        let Some(path) = head.split(' ').nth(1).map(str::to_owned) else {
                            break;
                        };
                        let close = head.contains("\r\nconnection: close\r\n");
                        log.lock().unwrap().push((connection, path.clone(), close));
                        let body = match path.as_str() {
                            "/registry" => registry("DcbxMode"),
                            _ => r#"{"Id": "R"}"#.to_owned(),
                        };
                        let head = format!(
                            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
                            body.len()
                        );
                        stream.write_all(head.as_bytes()).await.unwrap();
                        stream.write_all(body.as_bytes()).await.unwrap();
                    }
                });
            }
        });
        let fetch =
            HttpFetch::new(&base, &driftgate_http::TlsTrust::System, Default::default()).unwrap();
        fetch.get("/first").await.unwrap();
        fetch.get("/second").await.unwrap();
        let known = KnownRegistries::default();
        fetch.get_registry("/registry", &known).await.unwrap();
        fetch.get("/third").await.unwrap();
        let seen = seen.lock().unwrap().clone();
        // The read buffer has an exact size (`connections.rs`): a registry no more grows it
        // than a resource does, and costs no connection (and, over TLS, no handshake) of its
        // own.
        let expected = [
            (1, "/first", false),
            (1, "/second", false),
            (1, "/registry", false),
            (1, "/third", false),
        ]
        .map(|(connection, path, close)| (connection, path.to_owned(), close));
        assert_eq!(seen, expected);
    }

    #[tokio::test]
    async fn a_connection_the_bmc_closed_while_idle_is_not_used_again() {
        use crate::fetch::Fetch as _;
        use tokio::io::AsyncWriteExt as _;
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let accepted = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let count = Arc::clone(&accepted);
        // A BMC that answers one request per connection without saying so (no
        // `Connection: close`), then closes it: the client keeps it, idle.
        tokio::spawn(async move {
            while let Ok((mut stream, _)) = listener.accept().await {
                count.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                crate::test_support::request_head(&mut stream).await;
                let body = r#"{"Id": "R"}"#;
                let head = format!(
                    "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
                    body.len()
                );
                stream.write_all(head.as_bytes()).await.unwrap();
                stream.write_all(body.as_bytes()).await.unwrap();
            }
        });
        let fetch =
            HttpFetch::new(&base, &driftgate_http::TlsTrust::System, Default::default()).unwrap();
        for path in ["/first", "/second", "/third"] {
            assert_eq!(fetch.get(path).await.unwrap()["Id"], "R", "{path}");
            // The close reaches the client while the connection waits.
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
        assert_eq!(accepted.load(std::sync::atomic::Ordering::SeqCst), 3);
    }

    #[tokio::test]
    async fn a_get_follows_redirects_on_the_bmc_s_origin_only_and_not_in_a_loop() {
        use crate::fetch::Fetch as _;
        use tokio::io::AsyncWriteExt as _;
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let base = format!("http://127.0.0.1:{port}");
        let paths = Arc::new(std::sync::Mutex::new(Vec::new()));
        let log = Arc::clone(&paths);
        tokio::spawn(async move {
            while let Ok((mut stream, _)) = listener.accept().await {
                let head = crate::test_support::request_head(&mut stream).await;
                let head = String::from_utf8_lossy(&head).into_owned();
                let path = head.split(' ').nth(1).unwrap_or("/").to_owned();
                log.lock().unwrap().push(path.clone());
                let (status, location) = match path.as_str() {
                    "/moved" => ("301 Moved Permanently", "/redfish/v1/Here".to_owned()),
                    // The same BMC by another name is another origin: never followed.
                    "/away" => ("302 Found", format!("http://localhost:{port}/x")),
                    "/loop" => ("307 Temporary Redirect", "/loop".to_owned()),
                    _ => ("200 OK", String::new()),
                };
                let body = r#"{"Id": "Here"}"#;
                let answer = format!(
                    "HTTP/1.1 {status}\r\nLocation: {location}\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: {}\r\n\r\n{body}",
                    body.len()
                );
                let _ = stream.write_all(answer.as_bytes()).await;
            }
        });
        let options = super::super::ClientOptions::default();
        let fetch =
            HttpFetch::new(&base, &driftgate_http::TlsTrust::System, options.clone()).unwrap();
        assert_eq!(fetch.get("/moved").await.unwrap()["Id"], "Here");
        let away = fetch.get("/away").await.unwrap_err().to_string();
        assert!(
            away.contains(&format!(
                "redirect refused: redirect to another origin (http://localhost:{port}) refused"
            )),
            "{away}"
        );
        let looped = fetch.get("/loop").await.unwrap_err().to_string();
        assert!(
            looped.contains("redirect refused: too many redirects (a redirect loop?)"),
            "{looped}"
        );
        let paths = paths.lock().unwrap().clone();
        let mut expected = vec!["/moved", "/redfish/v1/Here", "/away"];
        expected.extend(std::iter::repeat_n("/loop", options.max_redirects + 1));
        assert_eq!(paths, expected);
    }

    #[tokio::test]
    async fn a_get_s_body_past_the_size_cap_is_refused_announced_or_not() {
        use crate::fetch::Fetch as _;
        let base = serve_in_pieces(|_| format!(r#"{{"Id": "{}"}}"#, "x".repeat(5000))).await;
        let options = super::super::ClientOptions {
            max_body: 1000,
            ..Default::default()
        };
        let fetch = HttpFetch::new(&base, &driftgate_http::TlsTrust::System, options).unwrap();
        // Its length announced (refused before reading), or chunked (refused as it arrives).
        for uri in ["/whole", "/chunked"] {
            let error = fetch.get_body(uri).await.unwrap_err();
            assert!(
                matches!(error, FetchError::TooLarge { limit: 1000, .. }),
                "{uri}: {error}"
            );
        }
    }

    #[tokio::test]
    async fn a_registry_the_run_knows_is_recognised_over_http_as_its_bytes_arrive() {
        use crate::attributes::KnownRegistries;
        use crate::fetch::{Fetch as _, RegistryBody};
        let base = serve_in_pieces(|path| {
            registry(if path.ends_with("other") {
                "DcbxMods"
            } else {
                "DcbxMode"
            })
        })
        .await;
        let fetch =
            HttpFetch::new(&base, &driftgate_http::TlsTrust::System, Default::default()).unwrap();
        let known = KnownRegistries::default();
        let read = |uri: &'static str| {
            let (fetch, known) = (&fetch, &known);
            async move {
                match fetch.get_registry(uri, known).await {
                    Ok(RegistryBody::Read { registry, .. }) => registry,
                    other => panic!("{uri}: {other:?}"),
                }
            }
        };
        let first = read("/registry").await;
        assert!(first.entry("DcbxMode").is_some());
        // The same text, its length announced or not: the registry the run read.
        for uri in ["/registry", "/chunked"] {
            assert!(Arc::ptr_eq(&read(uri).await, &first), "{uri}");
        }
        assert_eq!(known.read_count(), 1);
        // The same length, its last attribute another: read on its own, announced or not.
        for uri in ["/other", "/chunked-other"] {
            let other = read(uri).await;
            assert!(other.entry("DcbxMods").is_some() && other.entry("DcbxMode").is_none());
        }
        assert_eq!(known.read_count(), 2);
    }
}
