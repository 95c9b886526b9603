//! One GET on the wire: the URL of a URI on the BMC (never another origin), the request with
//! its authentication, the retries of a busy (503) service honouring `Retry-After`, the body
//! read under the size cap, and the texts of what went wrong.

use std::time::Duration;

use serde_json::Value;

use super::auth::Auth;
use super::{FetchError, HttpFetch};
use crate::redfish::fetch::Receive;

impl HttpFetch {
    /// The URL of `uri` on the BMC. A URI a response names that points at another origin
    /// (absolute, `//host/…`, `@host/…`) is refused: the credentials would follow it.
    pub(super) fn url(&self, uri: &str) -> Result<reqwest::Url, FetchError> {
        url_on(&self.base, uri)
    }

    fn request(
        &self,
        url: &reqwest::Url,
        auth: &Auth,
        connection: Connection,
    ) -> reqwest::RequestBuilder {
        let mut request = self
            .client
            .get(url.clone())
            .header("Accept", "application/json");
        if connection == Connection::Close {
            request = request.header("Connection", "close");
        }
        match auth {
            Auth::Anonymous => request,
            Auth::Basic(credentials) => {
                request.basic_auth(&credentials.username, Some(&credentials.password))
            }
            Auth::Session { token, .. } => request.header("X-Auth-Token", token),
        }
    }

    /// One GET of `uri` on a connection kept or closed after it, with the retries of a busy
    /// (503) service, its body given to `into`; `generation` is set to the login that the
    /// last attempt was sent with.
    pub(super) async fn get_once(
        &self,
        uri: &str,
        generation: &mut u64,
        into: &mut dyn Receive,
        connection: Connection,
    ) -> Result<(), FetchError> {
        let url = self.url(uri)?;
        let mut attempt = 0;
        loop {
            let response = {
                // Held until the answer's head is in: a new login waits for it, and a request
                // started meanwhile waits for the new login.
                let session = self.session.read().await;
                *generation = session.generation;
                self.request(&url, &session.auth, connection).send().await
            };
            let response = match response {
                Ok(response) => response,
                Err(e) => {
                    return Err(FetchError::Transport {
                        uri: uri.to_owned(),
                        reason: explain(&url, &e).await,
                    });
                }
            };
            let status = response.status().as_u16();
            tracing::debug!("GET {uri} → {status}");
            if status == 503 && attempt < self.options.retries {
                attempt += 1;
                let wait = retry_after(response.headers())
                    .unwrap_or(Duration::from_secs(1))
                    .min(self.options.max_retry_wait);
                tracing::info!(
                    "GET {uri}: HTTP 503, retry {attempt} of {} in {wait:?}",
                    self.options.retries
                );
                tokio::time::sleep(wait).await;
                continue;
            }
            if !(200..300).contains(&status) {
                let body = read_limited(uri, response, self.options.max_body).await?;
                return Err(FetchError::Status {
                    uri: uri.to_owned(),
                    status,
                    detail: error_detail(&body),
                });
            }
            return receive_limited(uri, response, self.options.max_body, into).await;
        }
    }
}

/// Whether the connection a GET is sent on is kept for the next ones.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Connection {
    /// Kept: most bodies are a few kilobytes.
    Keep,
    /// Closed once the body is read. A connection's read buffer grows with the bodies it
    /// reads (to 400 KB for Dell's 1.1 MB BIOS registry) and keeps that size while the
    /// connection is kept: about 70 MiB of a fleet's peak RSS with 200 hosts in flight.
    Close,
}

/// [`HttpFetch::url`] on the BMC at `base`.
pub(super) fn url_on(base: &str, uri: &str) -> Result<reqwest::Url, FetchError> {
    let refused = |reason: &str| FetchError::Transport {
        uri: uri.to_owned(),
        reason: reason.to_owned(),
    };
    let base = reqwest::Url::parse(base).map_err(|_| refused("the BMC address is not a URL"))?;
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

/// The body of `response`, refused past `limit` bytes.
pub(crate) async fn read_limited(
    uri: &str,
    response: reqwest::Response,
    limit: usize,
) -> Result<Vec<u8>, FetchError> {
    let mut body = Vec::new();
    receive_limited(uri, response, limit, &mut body).await?;
    Ok(body)
}

/// The body of `response` given to `into` as it arrives, refused past `limit` bytes.
async fn receive_limited(
    uri: &str,
    mut response: reqwest::Response,
    limit: usize,
    into: &mut dyn Receive,
) -> Result<(), FetchError> {
    let too_large = || FetchError::TooLarge {
        uri: uri.to_owned(),
        limit,
    };
    let length = response.content_length();
    if length.is_some_and(|length| length > limit as u64) {
        return Err(too_large());
    }
    into.announced(length);
    let mut received = 0;
    while let Some(chunk) = response.chunk().await.map_err(|e| FetchError::Transport {
        uri: uri.to_owned(),
        reason: describe(&e),
    })? {
        received += chunk.len();
        if received > limit {
            return Err(too_large());
        }
        into.push(&chunk);
    }
    Ok(())
}

/// `Retry-After` in seconds (an HTTP date is treated as one second: BMC clocks drift).
fn retry_after(headers: &reqwest::header::HeaderMap) -> Option<Duration> {
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

/// [`describe`]; for a certificate this client does not trust, that first (a summary that
/// cuts the line keeps it), then the certificate the BMC presents (its pin, subject, issuer
/// and validity, learnt by a handshake that sends no request and no credentials) and the two
/// ways to trust it.
pub(super) async fn explain(url: &reqwest::Url, error: &reqwest::Error) -> String {
    let Some(reason) = crate::redfish::tls::untrusted_certificate(error) else {
        return describe(error);
    };
    let origin = url.origin().ascii_serialization();
    match crate::redfish::tls::presented_certificate(url.as_str(), PROBE_TIMEOUT).await {
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

/// A reqwest error with its causes (the TLS reason, the timeout), without the URL.
pub(crate) fn describe(error: &reqwest::Error) -> String {
    let mut text = if error.is_timeout() {
        "timed out".to_owned()
    } else if error.is_redirect() {
        // The policy's own message (loop, another origin) follows as the cause.
        "redirect refused".to_owned()
    } else if error.is_connect() && refused(error) {
        // Nothing listens: the causes below only say so again.
        return "connection refused".to_owned();
    } else if error.is_connect() {
        "cannot connect".to_owned()
    } else {
        let text = error.to_string();
        match error.url() {
            Some(url) => text
                .replace(&format!(" for url ({url})"), "")
                .replace(url.as_str(), "<url>"),
            None => text,
        }
    };
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.contains(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    text
}

/// Whether an I/O error under `error` says the connection was refused (nothing listens).
fn refused(error: &reqwest::Error) -> bool {
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        if let Some(io) = cause.downcast_ref::<std::io::Error>()
            && io.kind() == std::io::ErrorKind::ConnectionRefused
        {
            return true;
        }
        source = cause.source();
    }
    false
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
                stream.write_all(head.as_bytes()).await.unwrap();
                for piece in text.as_bytes().chunks(300) {
                    if chunked {
                        let size = format!("{:x}\r\n", piece.len());
                        stream.write_all(size.as_bytes()).await.unwrap();
                    }
                    stream.write_all(piece).await.unwrap();
                    if chunked {
                        stream.write_all(b"\r\n").await.unwrap();
                    }
                    stream.flush().await.unwrap();
                    tokio::task::yield_now().await;
                }
                if chunked {
                    stream.write_all(b"0\r\n\r\n").await.unwrap();
                }
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
    async fn a_registry_is_read_on_a_connection_closed_after_it_and_resources_on_kept_ones() {
        use crate::redfish::attributes::KnownRegistries;
        use crate::redfish::fetch::Fetch as _;
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
            HttpFetch::new(&base, &super::super::TlsTrust::System, Default::default()).unwrap();
        fetch.get("/first").await.unwrap();
        fetch.get("/second").await.unwrap();
        let known = KnownRegistries::default();
        fetch.get_registry("/registry", &known).await.unwrap();
        fetch.get("/third").await.unwrap();
        let seen = seen.lock().unwrap().clone();
        let expected = [
            (1, "/first", false),
            (1, "/second", false),
            (1, "/registry", true),
            (2, "/third", false),
        ]
        .map(|(connection, path, close)| (connection, path.to_owned(), close));
        assert_eq!(seen, expected);
    }

    #[tokio::test]
    async fn a_registry_the_run_knows_is_recognised_over_http_as_its_bytes_arrive() {
        use crate::redfish::attributes::KnownRegistries;
        use crate::redfish::fetch::{Fetch as _, RegistryBody};
        let base = serve_in_pieces(|path| {
            registry(if path.ends_with("other") {
                "DcbxMods"
            } else {
                "DcbxMode"
            })
        })
        .await;
        let fetch =
            HttpFetch::new(&base, &super::super::TlsTrust::System, Default::default()).unwrap();
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
