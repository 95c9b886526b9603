//! `driftgate mockup serve`: a multi-threaded Redfish simulator over a DMTF mockup folder,
//! with Basic and session authentication, per-request latency and fault injection, so that
//! operators can dry-run their gates and tests can exercise every failure a BMC shows.

use std::collections::HashMap;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use base64::Engine as _;
use bytes::Bytes;
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};
use tokio::net::TcpListener;

use crate::collect::redfish::fetch::MockupDir;

/// How clients must authenticate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum AuthRequirement {
    /// Everything is open; logins still get a session.
    None,
    /// HTTP Basic on every request; session logins are refused (405).
    Basic,
    /// A session token or Basic on every request; logins get a session.
    Session,
}

/// A failure to inject.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fault {
    /// The first N requests answer 503 with `Retry-After: 1`.
    Unavailable(u32),
    /// Session logins answer 503 with iDRAC's RAC0218 (maximum sessions reached).
    SessionLimit,
    /// `$expand` answers 501.
    NoExpand,
    /// The body of this URI is cut in half.
    Truncate(String),
    /// The body of this URI is padded past 32 MiB.
    Oversize(String),
    /// This URI redirects to itself.
    RedirectLoop(String),
    /// This URI never answers (a GET of it, or the session login POST when it is
    /// `/redfish/v1/SessionService/Sessions`).
    Hang(String),
    /// This URI answers this status with a Redfish error body.
    Status(u16, String),
    /// Every session is forgotten when request N arrives (a BMC reset, or its session
    /// timeout): requests with the old token answer 401.
    ExpireSessions(u32),
    /// Only the first N session logins succeed; later ones answer 401 (a locked account).
    Logins(u32),
}

impl Fault {
    /// Parses `unavailable=N`, `session-limit`, `expire-sessions=N`, `logins=N`, `no-expand`, `truncate=URI`, `oversize=URI`,
    /// `redirect-loop=URI`, `hang=URI` or `status=CODE:URI`.
    pub fn parse(text: &str) -> Result<Self, String> {
        let (kind, arg) = text
            .split_once('=')
            .map_or((text, None), |(k, a)| (k, Some(a)));
        let uri = || {
            arg.filter(|a| a.starts_with("/redfish/v1"))
                .map(|a| a.trim_end_matches('/').to_owned())
                .ok_or_else(|| format!("{text:?}: {kind} needs =/redfish/v1/…"))
        };
        match kind {
            "unavailable" => arg
                .and_then(|a| a.parse().ok())
                .map(Fault::Unavailable)
                .ok_or_else(|| format!("{text:?}: unavailable needs =COUNT")),
            "session-limit" => Ok(Fault::SessionLimit),
            "expire-sessions" => arg
                .and_then(|a| a.parse().ok())
                .map(Fault::ExpireSessions)
                .ok_or_else(|| format!("{text:?}: expire-sessions needs =REQUEST")),
            "logins" => arg
                .and_then(|a| a.parse().ok())
                .map(Fault::Logins)
                .ok_or_else(|| format!("{text:?}: logins needs =COUNT")),
            "no-expand" => Ok(Fault::NoExpand),
            "truncate" => Ok(Fault::Truncate(uri()?)),
            "oversize" => Ok(Fault::Oversize(uri()?)),
            "redirect-loop" => Ok(Fault::RedirectLoop(uri()?)),
            "hang" => Ok(Fault::Hang(uri()?)),
            "status" => {
                let (code, rest) = arg
                    .and_then(|a| a.split_once(':'))
                    .ok_or_else(|| format!("{text:?}: status needs =CODE:URI"))?;
                let code: u16 = code
                    .parse()
                    .ok()
                    .filter(|c| (400..600).contains(c))
                    .ok_or_else(|| format!("{text:?}: CODE must be 400-599"))?;
                if !rest.starts_with("/redfish/v1") {
                    return Err(format!("{text:?}: status needs =CODE:/redfish/v1/…"));
                }
                Ok(Fault::Status(code, rest.trim_end_matches('/').to_owned()))
            }
            _ => Err(format!(
                "{text:?}: unknown fault (unavailable=N, session-limit, expire-sessions=N, logins=N, no-expand, truncate=URI, oversize=URI, redirect-loop=URI, hang=URI, status=CODE:URI)"
            )),
        }
    }
}

/// What to serve and how.
#[derive(Debug, Clone)]
pub struct ServeOptions {
    /// The mockup.
    pub mockup: MockupDir,
    /// Delay before every answer.
    pub latency: Duration,
    /// Authentication required.
    pub auth: AuthRequirement,
    /// The one account (user, password) for Basic and session logins.
    pub account: Option<(String, String)>,
    /// Failures to inject.
    pub faults: Vec<Fault>,
}

struct Server {
    options: ServeOptions,
    requests: AtomicU32,
    logins: AtomicU32,
    next_session: AtomicU64,
    sessions: Mutex<HashMap<String, String>>,
}

const SESSIONS: &str = "/redfish/v1/SessionService/Sessions";

/// `GET` here answers `{"Requests": N}`, the number of requests served so far.
pub const REQUESTS: &str = "/driftgate/requests";

/// Serves `options` on `address` until the process ends; `tls`, when given, wraps every
/// connection. `ready` gets the bound address (port 0 picks a free one).
pub async fn serve(
    address: SocketAddr,
    options: ServeOptions,
    tls: Option<tokio_rustls::TlsAcceptor>,
    ready: impl FnOnce(SocketAddr),
) -> std::io::Result<()> {
    let listener = TcpListener::bind(address).await?;
    ready(listener.local_addr()?);
    let server = Arc::new(Server {
        options,
        requests: AtomicU32::new(0),
        logins: AtomicU32::new(0),
        next_session: AtomicU64::new(1),
        sessions: Mutex::new(HashMap::new()),
    });
    loop {
        let (stream, _) = listener.accept().await?;
        let server = Arc::clone(&server);
        let tls = tls.clone();
        tokio::spawn(async move {
            let service = hyper::service::service_fn(move |request| {
                let server = Arc::clone(&server);
                async move { Ok::<_, Infallible>(server.answer(request).await) }
            });
            let http = hyper::server::conn::http1::Builder::new();
            // A client that goes away mid-answer is its own business.
            let _ = match tls {
                Some(tls) => match tls.accept(stream).await {
                    Ok(stream) => http.serve_connection(TokioIo::new(stream), service).await,
                    Err(_) => return,
                },
                None => http.serve_connection(TokioIo::new(stream), service).await,
            };
        });
    }
}

fn redfish_error(status: StatusCode, message: &str, id: &str) -> Response<Full<Bytes>> {
    let body = json!({"error": {"code": "Base.1.12.GeneralError", "message": message,
        "@Message.ExtendedInfo": [{"Message": message, "MessageId": id}]}});
    respond(status, body.to_string().into_bytes())
}

fn respond(status: StatusCode, body: Vec<u8>) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(Bytes::from(body)));
    *response.status_mut() = status;
    response.headers_mut().insert(
        "Content-Type",
        "application/json".parse().expect("a valid header value"),
    );
    response
}

impl Server {
    async fn answer(&self, request: Request<Incoming>) -> Response<Full<Bytes>> {
        // As it arrives, before any latency: what a client asked for and when.
        tracing::debug!("{} {}", request.method(), request.uri());
        let path = request.uri().path().trim_end_matches('/').to_owned();
        // A BMC opens the session as it handles the login, however slow its answer: a client
        // that goes away meanwhile leaves it open. So a login's latency comes after.
        let login = *request.method() == Method::POST && path == SESSIONS;
        if !self.options.latency.is_zero() && !login {
            tokio::time::sleep(self.options.latency).await;
        }
        let query = request.uri().query().unwrap_or("").to_owned();
        // How many requests were answered, outside the Redfish tree and not counted itself:
        // lets a dry run (and the tests) see how hard a client hits the BMC.
        if path == REQUESTS {
            let body = json!({"Requests": self.requests.load(Ordering::SeqCst)});
            return respond(StatusCode::OK, body.to_string().into_bytes());
        }
        let count = self.requests.fetch_add(1, Ordering::SeqCst);
        let faults = &self.options.faults;
        if faults.contains(&Fault::ExpireSessions(count)) {
            self.sessions
                .lock()
                .expect("no panic while holding the lock")
                .clear();
        }
        if faults
            .iter()
            .any(|f| matches!(f, Fault::Unavailable(n) if count < *n))
        {
            let mut response = redfish_error(
                StatusCode::SERVICE_UNAVAILABLE,
                "The service is temporarily unavailable.",
                "Base.1.12.ServiceTemporarilyUnavailable",
            );
            response
                .headers_mut()
                .insert("Retry-After", "1".parse().expect("a valid header value"));
            return response;
        }
        if login {
            let response = self.login(request).await;
            if !self.options.latency.is_zero() {
                tokio::time::sleep(self.options.latency).await;
            }
            return response;
        }
        if path != "/redfish/v1" && path != "/redfish" && !self.authorized(&request) {
            return redfish_error(
                StatusCode::UNAUTHORIZED,
                "The authentication credentials included with this request are missing or invalid.",
                "Base.1.12.NoValidSession",
            );
        }
        if *request.method() == Method::DELETE && path.starts_with(&format!("{SESSIONS}/")) {
            if let Some(injected) = self.injected_status(&path) {
                tracing::info!("DELETE {path}: injected fault, the session stays");
                return injected;
            }
            let removed = self
                .sessions
                .lock()
                .expect("no panic while holding the lock")
                .remove(&path)
                .is_some();
            // Tests and operators read these lines to see that clients clean up.
            return if removed {
                tracing::info!("DELETE {path}: session deleted");
                respond(StatusCode::NO_CONTENT, Vec::new())
            } else {
                redfish_error(
                    StatusCode::NOT_FOUND,
                    "No such session.",
                    "Base.1.12.ResourceMissingAtURI",
                )
            };
        }
        if *request.method() != Method::GET {
            return redfish_error(
                StatusCode::METHOD_NOT_ALLOWED,
                "This simulator is read-only.",
                "Base.1.12.OperationNotAllowed",
            );
        }
        self.get(&path, &query).await
    }

    async fn get(&self, path: &str, query: &str) -> Response<Full<Bytes>> {
        let faults = &self.options.faults;
        for fault in faults {
            match fault {
                Fault::RedirectLoop(uri) if uri == path => {
                    let mut response = respond(StatusCode::FOUND, Vec::new());
                    response.headers_mut().insert(
                        "Location",
                        path.parse().expect("a request path is a valid header"),
                    );
                    return response;
                }
                Fault::Hang(uri) if uri == path => {
                    tokio::time::sleep(Duration::from_secs(3600)).await;
                }
                _ => {}
            }
        }
        if let Some(injected) = self.injected_status(path) {
            return injected;
        }
        if path == SESSIONS {
            let members: Vec<Value> = self
                .sessions
                .lock()
                .expect("no panic while holding the lock")
                .keys()
                .map(|uri| json!({"@odata.id": uri}))
                .collect();
            let body = json!({"@odata.id": SESSIONS, "Name": "Session Collection", "Members@odata.count": members.len(), "Members": members});
            return respond(StatusCode::OK, body.to_string().into_bytes());
        }
        let Some(mut body) = self.load(path) else {
            return redfish_error(
                StatusCode::NOT_FOUND,
                &format!("The resource at the URI {path} was not found."),
                "Base.1.12.ResourceMissingAtURI",
            );
        };
        if query.contains("$expand") {
            if faults.contains(&Fault::NoExpand) {
                return redfish_error(
                    StatusCode::NOT_IMPLEMENTED,
                    "The $expand query is not supported.",
                    "Base.1.12.QueryNotSupported",
                );
            }
            self.expand(&mut body);
        }
        let mut bytes = serde_json::to_vec_pretty(&body).expect("JSON values serialize");
        for fault in faults {
            match fault {
                Fault::Truncate(uri) if uri == path => bytes.truncate(bytes.len() / 2),
                Fault::Oversize(uri) if uri == path => bytes.resize(33 * 1024 * 1024, b' '),
                _ => {}
            }
        }
        respond(StatusCode::OK, bytes)
    }

    /// The answer of a `status=CODE:URI` fault on `path` (a GET, or the DELETE of a session).
    fn injected_status(&self, path: &str) -> Option<Response<Full<Bytes>>> {
        self.options.faults.iter().find_map(|fault| match fault {
            Fault::Status(code, uri) if uri == path => {
                let status =
                    StatusCode::from_u16(*code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
                Some(redfish_error(
                    status,
                    "Injected fault.",
                    "Base.1.12.InternalError",
                ))
            }
            _ => None,
        })
    }

    fn load(&self, path: &str) -> Option<Value> {
        let file = self.options.mockup.file_for(if path == "/redfish" {
            "/redfish/v1"
        } else {
            path
        })?;
        serde_json::from_slice(&std::fs::read(file).ok()?).ok()
    }

    /// `$expand=.($levels=1)`: members inline.
    fn expand(&self, collection: &mut Value) {
        if let Some(members) = collection.get_mut("Members").and_then(Value::as_array_mut) {
            for member in members.iter_mut() {
                let loaded = member["@odata.id"]
                    .as_str()
                    .and_then(|uri| self.load(uri.trim_end_matches('/')));
                if let Some(loaded) = loaded {
                    *member = loaded;
                }
            }
        }
    }

    fn basic_matches(&self, header: &str) -> bool {
        let Some(encoded) = header.strip_prefix("Basic ") else {
            return false;
        };
        let Ok(decoded) = base64::engine::general_purpose::STANDARD.decode(encoded.trim()) else {
            return false;
        };
        let decoded = String::from_utf8_lossy(&decoded);
        self.options
            .account
            .as_ref()
            .is_some_and(|(user, password)| decoded == format!("{user}:{password}"))
    }

    fn authorized(&self, request: &Request<Incoming>) -> bool {
        let header = |name: &str| request.headers().get(name).and_then(|v| v.to_str().ok());
        let basic = header("Authorization").is_some_and(|h| self.basic_matches(h));
        let token = header("X-Auth-Token").is_some_and(|t| {
            self.sessions
                .lock()
                .expect("no panic while holding the lock")
                .values()
                .any(|live| live == t)
        });
        match self.options.auth {
            AuthRequirement::None => true,
            AuthRequirement::Basic => basic,
            AuthRequirement::Session => basic || token,
        }
    }

    async fn login(&self, request: Request<Incoming>) -> Response<Full<Bytes>> {
        use http_body_util::BodyExt as _;
        if self
            .options
            .faults
            .contains(&Fault::Hang(SESSIONS.to_owned()))
        {
            tracing::info!("POST {SESSIONS}: injected fault, the login never answers");
            tokio::time::sleep(Duration::from_secs(3600)).await;
        }
        if self.options.faults.contains(&Fault::SessionLimit) {
            return redfish_error(
                StatusCode::SERVICE_UNAVAILABLE,
                "The maximum number of user sessions is reached.",
                "IDRAC.2.9.RAC0218",
            );
        }
        if self.options.auth == AuthRequirement::Basic {
            return redfish_error(
                StatusCode::METHOD_NOT_ALLOWED,
                "Sessions are disabled; use Basic authentication.",
                "Base.1.12.OperationNotAllowed",
            );
        }
        let body = match request.into_body().collect().await {
            Ok(body) => body.to_bytes(),
            Err(_) => {
                return redfish_error(
                    StatusCode::BAD_REQUEST,
                    "Unreadable body.",
                    "Base.1.12.MalformedJSON",
                );
            }
        };
        let login: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
        let given = (login["UserName"].as_str(), login["Password"].as_str());
        let locked = self
            .options
            .faults
            .iter()
            .any(|f| matches!(f, Fault::Logins(n) if self.logins.load(Ordering::SeqCst) >= *n));
        let valid = !locked
            && match &self.options.account {
                Some((user, password)) => given == (Some(user.as_str()), Some(password.as_str())),
                None => true,
            };
        if !valid {
            return redfish_error(
                StatusCode::UNAUTHORIZED,
                "Invalid user name or password.",
                "Base.1.12.InsufficientPrivilege",
            );
        }
        self.logins.fetch_add(1, Ordering::SeqCst);
        let id = self.next_session.fetch_add(1, Ordering::SeqCst);
        let uri = format!("{SESSIONS}/{id}");
        let token = format!("{:x}{:x}", rand_token(), id);
        self.sessions
            .lock()
            .expect("no panic while holding the lock")
            .insert(uri.clone(), token.clone());
        tracing::info!("POST {SESSIONS}: session {uri} created");
        let mut response = respond(
            StatusCode::CREATED,
            json!({"@odata.id": uri, "Id": id.to_string(), "UserName": given.0})
                .to_string()
                .into_bytes(),
        );
        response.headers_mut().insert(
            "X-Auth-Token",
            token.parse().expect("hex is a valid header"),
        );
        response.headers_mut().insert(
            "Location",
            uri.parse().expect("a session URI is a valid header"),
        );
        response
    }
}

/// An unguessable-enough token for a local simulator: the time hashed with a per-process
/// random key.
fn rand_token() -> u64 {
    use std::hash::{BuildHasher, RandomState};
    RandomState::new().hash_one(std::time::SystemTime::now())
}

/// A self-signed certificate for `127.0.0.1` and `localhost`: (TLS acceptor, SHA-256 pin).
pub fn self_signed() -> Result<(tokio_rustls::TlsAcceptor, String), String> {
    let certified =
        rcgen::generate_simple_self_signed(vec!["localhost".to_owned(), "127.0.0.1".to_owned()])
            .map_err(|e| format!("cannot generate a certificate: {e}"))?;
    let der = certified.cert.der().to_vec();
    let key = certified.signing_key.serialize_der();
    acceptor(vec![der], key)
}

/// An acceptor for a PEM certificate chain and key: (TLS acceptor, SHA-256 pin of the leaf).
pub fn from_pem(
    cert_pem: &[u8],
    key_pem: &[u8],
) -> Result<(tokio_rustls::TlsAcceptor, String), String> {
    use rustls::pki_types::pem::PemObject as _;
    let chain: Vec<Vec<u8>> = rustls::pki_types::CertificateDer::pem_slice_iter(cert_pem)
        .map(|c| c.map(|c| c.to_vec()))
        .collect::<Result<_, _>>()
        .map_err(|e| format!("certificate: {e}"))?;
    let key = rustls::pki_types::PrivateKeyDer::from_pem_slice(key_pem)
        .map_err(|e| format!("key: {e}"))?;
    acceptor(chain, key.secret_der().to_vec())
}

fn acceptor(
    chain: Vec<Vec<u8>>,
    key: Vec<u8>,
) -> Result<(tokio_rustls::TlsAcceptor, String), String> {
    use rustls::pki_types::{CertificateDer, PrivateKeyDer};
    let pin = chain
        .first()
        .map(|leaf| crate::collect::redfish::tls::CertificatePin::of(leaf).to_string())
        .ok_or("no certificate")?;
    let key = PrivateKeyDer::try_from(key).map_err(|e| format!("key: {e}"))?;
    let chain = chain.into_iter().map(CertificateDer::from).collect();
    let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    let mut config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| e.to_string())?
        .with_no_client_auth()
        .with_single_cert(chain, key)
        .map_err(|e| format!("certificate and key: {e}"))?;
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok((tokio_rustls::TlsAcceptor::from(Arc::new(config)), pin))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn faults_parse_and_bad_ones_say_why() {
        assert_eq!(Fault::parse("unavailable=2"), Ok(Fault::Unavailable(2)));
        assert_eq!(
            Fault::parse("expire-sessions=5"),
            Ok(Fault::ExpireSessions(5))
        );
        assert_eq!(Fault::parse("logins=1"), Ok(Fault::Logins(1)));
        assert_eq!(
            Fault::parse("status=500:/redfish/v1/Systems/"),
            Ok(Fault::Status(500, "/redfish/v1/Systems".into()))
        );
        assert_eq!(
            Fault::parse("hang=/redfish/v1/Chassis"),
            Ok(Fault::Hang("/redfish/v1/Chassis".into()))
        );
        for bad in [
            "unavailable",
            "status=200:/redfish/v1",
            "truncate=/etc",
            "explode",
        ] {
            assert!(Fault::parse(bad).is_err(), "{bad}");
        }
    }
}
