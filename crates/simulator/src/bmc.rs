//! One simulated BMC: its own sessions, request and login counters, faults and written state,
//! answering Redfish requests from a shared [`Mockup`] with its own writes and patches laid
//! over it.

use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
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

use super::account::AuthRequirement;
use super::duplicate_keys;
use super::fault::Fault;
use super::overlay::Overlay;
use super::refusal::{Problem, error_body};
use super::tree::{Mockup, Patch, canonical_uri};
use super::writes::{self, Done, Refused};

/// `GET` here answers `{"Requests": N, "Connections": C, "LoginOnlyConnections": L, "Sent":
/// […]}`: the number of requests this BMC was sent so far, of the connections that carried
/// them, of those that carried a session login and no GET, and every request other than a GET
/// as `METHOD target`, as it arrived (itself not counted; it answers on a hanging BMC too).
pub const REQUESTS: &str = "/driftgate/requests";

const SESSIONS: &str = "/redfish/v1/SessionService/Sessions";

/// What every BMC of one simulator shares: how slow it is and whom it lets in.
#[derive(Debug, Clone)]
pub struct Service {
    /// Delay before every answer, each request on its own.
    pub latency: Duration,
    /// Authentication required.
    pub auth: AuthRequirement,
    /// The one account (user, password) for Basic and session logins.
    pub account: Option<(String, String)>,
}

/// One BMC's state.
pub(super) struct Bmc {
    service: Arc<Service>,
    mockup: Arc<Mockup>,
    faults: Vec<Fault>,
    patches: Vec<Patch>,
    requests: AtomicU32,
    /// Connections that carried a request counted in `requests`.
    connections: AtomicU32,
    /// Of them, those that carried a session login and, so far, no GET: a client's connection
    /// kept for its login and logout only.
    login_only: AtomicU32,
    logins: AtomicU32,
    next_session: AtomicU64,
    sessions: Mutex<HashMap<String, String>>,
    /// What clients wrote, laid over the shared mockup (under the `--bmc-set` patches).
    written: Mutex<Overlay>,
    /// Every request other than a GET, `METHOD target` as it arrived (the login, each write
    /// and logout): what a client sent, in its own words, for [`REQUESTS`].
    sent: Mutex<Vec<String>>,
}

/// Accepts connections on `listener` for `bmc` until the process ends; `tls`, when given,
/// wraps every connection. A failed accept (out of file descriptors under a burst of
/// connections) is waited out, never the end of the BMC.
pub(super) async fn serve(
    listener: TcpListener,
    bmc: Arc<Bmc>,
    tls: Option<tokio_rustls::TlsAcceptor>,
) {
    loop {
        let stream = match listener.accept().await {
            Ok((stream, _)) => stream,
            Err(e) => {
                tracing::warn!("cannot accept a connection: {e}");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let bmc = Arc::clone(&bmc);
        let tls = tls.clone();
        tokio::spawn(async move {
            let connection = Connection::default();
            let service = hyper::service::service_fn(move |request: Request<Incoming>| {
                let bmc = Arc::clone(&bmc);
                connection.carries(&bmc, &request);
                async move { Ok::<_, Infallible>(bmc.answer(request).await) }
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

/// What one connection carried so far, for the counters of [`REQUESTS`].
#[derive(Default)]
struct Connection {
    counted: AtomicBool,
    login: AtomicBool,
    get: AtomicBool,
}

impl Connection {
    /// Counts `request`, about to be answered on this connection, in `bmc`'s counters.
    fn carries(&self, bmc: &Bmc, request: &Request<Incoming>) {
        let path = request.uri().path();
        if path == REQUESTS {
            return;
        }
        if !self.counted.swap(true, Ordering::SeqCst) {
            bmc.connections.fetch_add(1, Ordering::SeqCst);
        }
        let method = request.method();
        if *method == Method::POST && path.trim_end_matches('/') == SESSIONS {
            if !self.login.swap(true, Ordering::SeqCst) && !self.get.load(Ordering::SeqCst) {
                bmc.login_only.fetch_add(1, Ordering::SeqCst);
            }
        } else if *method == Method::GET
            && !self.get.swap(true, Ordering::SeqCst)
            && self.login.load(Ordering::SeqCst)
        {
            bmc.login_only.fetch_sub(1, Ordering::SeqCst);
        }
    }
}

fn redfish_error(status: StatusCode, message: &str, id: &str) -> Response<Full<Bytes>> {
    let body = json!({"error": {"code": "Base.1.12.GeneralError", "message": message,
        "@Message.ExtendedInfo": [{"Message": message, "MessageId": id}]}});
    respond(status, body.to_string().into_bytes())
}

fn refused(status: StatusCode, problems: &[Problem]) -> Response<Full<Bytes>> {
    respond(status, error_body(problems).to_string().into_bytes())
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

/// An answer that never comes.
async fn never() -> ! {
    std::future::pending().await
}

impl Bmc {
    /// A BMC serving `mockup` with `patches` over it; the patches were checked against it.
    pub(super) fn new(
        service: Arc<Service>,
        mockup: Arc<Mockup>,
        faults: Vec<Fault>,
        patches: Vec<Patch>,
    ) -> Self {
        Bmc {
            service,
            mockup,
            faults,
            patches,
            requests: AtomicU32::new(0),
            connections: AtomicU32::new(0),
            login_only: AtomicU32::new(0),
            logins: AtomicU32::new(0),
            next_session: AtomicU64::new(1),
            sessions: Mutex::new(HashMap::new()),
            written: Mutex::new(Overlay::new()),
            sent: Mutex::new(Vec::new()),
        }
    }

    /// The folder it serves.
    #[cfg(test)]
    pub(super) fn mockup(&self) -> &Arc<Mockup> {
        &self.mockup
    }

    async fn answer(&self, request: Request<Incoming>) -> Response<Full<Bytes>> {
        // As it arrives, before any latency: what a client asked for and when.
        tracing::debug!("{} {}", request.method(), request.uri());
        let path = if self.faults.contains(&Fault::DecodePaths) {
            decoded(request.uri().path())
        } else {
            request.uri().path().to_owned()
        };
        let path = path.trim_end_matches('/').to_owned();
        if *request.method() != Method::GET && path != REQUESTS {
            self.sent
                .lock()
                .expect("no panic while holding the lock")
                .push(format!("{} {}", request.method(), request.uri()));
        }
        let latency = self.latency();
        // A BMC opens the session as it handles the login, however slow its answer: a client
        // that goes away meanwhile leaves it open. So a login's latency comes after.
        let login = *request.method() == Method::POST && path == SESSIONS;
        if !latency.is_zero() && !login {
            tokio::time::sleep(latency).await;
        }
        let query = request.uri().query().unwrap_or("").to_owned();
        // How many requests were answered, outside the Redfish tree and not counted itself:
        // lets a dry run (and the tests) see how hard a client hits the BMC.
        if path == REQUESTS {
            return self.requests_answered();
        }
        let count = self.requests.fetch_add(1, Ordering::SeqCst);
        if let Some(response) = self.injected_before(count).await {
            return response;
        }
        if login {
            let response = self.login(request).await;
            if !latency.is_zero() {
                tokio::time::sleep(latency).await;
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
            return self.delete_session(&path);
        }
        let method = request.method().clone();
        if method == Method::PATCH || method == Method::POST {
            return self.answer_write(&method, &path, request).await;
        }
        if method != Method::GET {
            return redfish_error(
                StatusCode::METHOD_NOT_ALLOWED,
                "This simulator is read-only.",
                "Base.1.12.OperationNotAllowed",
            );
        }
        self.get(&path, &query).await
    }

    /// How long each answer waits: a `latency` fault's, else the service's.
    fn latency(&self) -> Duration {
        self.faults
            .iter()
            .find_map(|f| match f {
                Fault::Latency(ms) => Some(Duration::from_millis(*ms)),
                _ => None,
            })
            .unwrap_or(self.service.latency)
    }

    /// The answer of [`REQUESTS`].
    fn requests_answered(&self) -> Response<Full<Bytes>> {
        let body = json!({
            "Requests": self.requests.load(Ordering::SeqCst),
            "Connections": self.connections.load(Ordering::SeqCst),
            "LoginOnlyConnections": self.login_only.load(Ordering::SeqCst),
            "Sent": *self.sent.lock().expect("no panic while holding the lock"),
        });
        respond(StatusCode::OK, body.to_string().into_bytes())
    }

    /// The faults that come before any answer to request number `count`: a hang, sessions
    /// expired, the service unavailable (then its answer).
    async fn injected_before(&self, count: u32) -> Option<Response<Full<Bytes>>> {
        let faults = &self.faults;
        if faults.contains(&Fault::HangAll) {
            never().await;
        }
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
            return Some(response);
        }
        None
    }

    /// A logout: the session at `path` deleted (unless a fault keeps it).
    fn delete_session(&self, path: &str) -> Response<Full<Bytes>> {
        if let Some(injected) = self.injected_status(path) {
            tracing::info!("DELETE {path}: injected fault, the session stays");
            return injected;
        }
        let removed = self
            .sessions
            .lock()
            .expect("no panic while holding the lock")
            .remove(path)
            .is_some();
        // Tests and operators read these lines to see that clients clean up.
        if removed {
            tracing::info!("DELETE {path}: session deleted");
            respond(StatusCode::NO_CONTENT, Vec::new())
        } else {
            redfish_error(
                StatusCode::NOT_FOUND,
                "No such session.",
                "Base.1.12.ResourceMissingAtURI",
            )
        }
    }

    /// A PATCH or POST: redirected or slowed as the faults say, else taken.
    async fn answer_write(
        &self,
        method: &Method,
        path: &str,
        request: Request<Incoming>,
    ) -> Response<Full<Bytes>> {
        let redirect = self.faults.iter().find_map(|fault| match fault {
            Fault::RedirectWrite(uri, location) if *uri == path => Some(location),
            _ => None,
        });
        if let Some(location) = redirect {
            tracing::info!("{method} {path}: injected fault, redirected to {location}");
            let mut response = respond(StatusCode::TEMPORARY_REDIRECT, Vec::new());
            match location.parse() {
                Ok(location) => {
                    response.headers_mut().insert("Location", location);
                }
                Err(_) => tracing::warn!("redirect-write: {location:?} is no valid header"),
            }
            return response;
        }
        let answer = self.write(method, path, request).await;
        if let Some(ms) = self.faults.iter().find_map(|f| match f {
            Fault::SlowWrite(ms) => Some(*ms),
            _ => None,
        }) {
            // Taken already: a client that stops waiting does not undo it.
            tracing::info!("{method} {path}: taken; answered in {ms} ms");
            tokio::time::sleep(Duration::from_millis(ms)).await;
        }
        answer
    }

    async fn get(&self, path: &str, query: &str) -> Response<Full<Bytes>> {
        let faults = &self.faults;
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
                Fault::Hang(uri) if uri == path => never().await,
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
        let uri = canonical_uri(path);
        let Some(shared) = self.resource(uri) else {
            return redfish_error(
                StatusCode::NOT_FOUND,
                &format!("The resource at the URI {path} was not found."),
                "Base.1.12.ResourceMissingAtURI",
            );
        };
        // The shared resource is copied only when this BMC changes it.
        let mut own = self.patched(uri, &shared);
        if query.contains("$expand") {
            if faults.contains(&Fault::NoExpand) {
                return redfish_error(
                    StatusCode::NOT_IMPLEMENTED,
                    "The $expand query is not supported.",
                    "Base.1.12.QueryNotSupported",
                );
            }
            self.expand(own.get_or_insert_with(|| Value::clone(&shared)));
        }
        let body = own.as_ref().unwrap_or(&shared);
        let twice = faults.iter().find_map(|fault| match fault {
            Fault::DuplicateKey(patch) if patch.uri == uri => Some(patch),
            _ => None,
        });
        let mut bytes = match twice {
            Some(patch) => duplicate_keys::with_key_twice(body, &patch.pointer, &patch.value)
                .unwrap_or_else(|| {
                    tracing::warn!(
                        "{uri}: duplicate-key: no key at {} to give twice",
                        patch.pointer
                    );
                    serde_json::to_vec_pretty(body).expect("JSON values serialize")
                }),
            None => serde_json::to_vec_pretty(body).expect("JSON values serialize"),
        };
        for fault in faults {
            match fault {
                Fault::Truncate(uri) if uri == path => bytes.truncate(bytes.len() / 2),
                Fault::Oversize(uri) if uri == path => bytes.resize(33 * 1024 * 1024, b' '),
                _ => {}
            }
        }
        respond(StatusCode::OK, bytes)
    }

    /// The resource at `uri` (canonical) as this BMC has it, before its patches: what clients
    /// wrote, else the shared one.
    fn resource(&self, uri: &str) -> Option<Arc<Value>> {
        self.written
            .lock()
            .expect("no panic while holding the lock")
            .resource(&self.mockup, uri)
    }

    /// A PATCH or POST of `path`: the writes [`writes`] takes, or a refusal.
    async fn write(
        &self,
        method: &Method,
        path: &str,
        request: Request<Incoming>,
    ) -> Response<Full<Bytes>> {
        use http_body_util::BodyExt as _;
        let Ok(body) = request.into_body().collect().await.map(|b| b.to_bytes()) else {
            return refused(StatusCode::BAD_REQUEST, &[Problem::malformed_json()]);
        };
        let mut written = self
            .written
            .lock()
            .expect("no panic while holding the lock");
        let done = if *method == Method::PATCH {
            writes::patch(&mut written, &self.mockup, path, &body)
        } else {
            writes::post(&mut written, &self.mockup, path, &body)
        };
        match done {
            Ok(Done::NoContent) => {
                let mut response = Response::new(Full::new(Bytes::new()));
                *response.status_mut() = StatusCode::NO_CONTENT;
                response
            }
            Ok(Done::Job(job)) => {
                let success = json!({"@Message.ExtendedInfo": [{"MessageId": "Base.1.12.Success",
                    "Message": "The request completed successfully.", "MessageArgs": [],
                    "RelatedProperties": []}]});
                let mut response = respond(StatusCode::ACCEPTED, success.to_string().into_bytes());
                match job.parse() {
                    Ok(location) => {
                        response.headers_mut().insert("Location", location);
                    }
                    Err(_) => tracing::warn!("{job:?} is no valid header"),
                }
                response
            }
            Err(Refused::NotAllowed(problem)) => {
                refused(StatusCode::METHOD_NOT_ALLOWED, &[problem])
            }
            Err(Refused::Invalid(problems)) => refused(StatusCode::BAD_REQUEST, &problems),
        }
    }

    /// This BMC's copy of the resource at `uri` when a patch changes it, else `None`.
    fn patched(&self, uri: &str, shared: &Value) -> Option<Value> {
        let mut own: Option<Value> = None;
        for patch in self.patches.iter().filter(|p| p.uri == uri) {
            let resource = own.get_or_insert_with(|| shared.clone());
            // Each patch was applied to this very resource when the fleet was planned.
            if let Err(e) = patch.apply(resource) {
                tracing::warn!("{e}");
            }
        }
        own
    }

    /// The answer of a `status=CODE:URI` fault on `path` (a GET, or the DELETE of a session).
    fn injected_status(&self, path: &str) -> Option<Response<Full<Bytes>>> {
        self.faults.iter().find_map(|fault| match fault {
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

    /// `$expand=.($levels=1)`: members inline, each as this BMC serves it.
    fn expand(&self, collection: &mut Value) {
        if let Some(members) = collection.get_mut("Members").and_then(Value::as_array_mut) {
            for member in members.iter_mut() {
                let Some(uri) = member["@odata.id"].as_str().map(canonical_uri) else {
                    continue;
                };
                if let Some(shared) = self.resource(uri) {
                    *member = self
                        .patched(uri, &shared)
                        .unwrap_or_else(|| Value::clone(&shared));
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
        self.service
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
        match self.service.auth {
            AuthRequirement::None => true,
            AuthRequirement::Basic => basic,
            AuthRequirement::Session => basic || token,
        }
    }

    async fn login(&self, request: Request<Incoming>) -> Response<Full<Bytes>> {
        use http_body_util::BodyExt as _;
        if self.faults.contains(&Fault::Hang(SESSIONS.to_owned())) {
            tracing::info!("POST {SESSIONS}: injected fault, the login never answers");
            never().await;
        }
        if self.faults.contains(&Fault::SessionLimit) {
            return redfish_error(
                StatusCode::SERVICE_UNAVAILABLE,
                "The maximum number of user sessions is reached.",
                "IDRAC.2.9.RAC0218",
            );
        }
        if self.service.auth == AuthRequirement::Basic {
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
            .faults
            .iter()
            .any(|f| matches!(f, Fault::Logins(n) if self.logins.load(Ordering::SeqCst) >= *n));
        let valid = !locked
            && match &self.service.account {
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
        for fault in &self.faults {
            if let Fault::SlowLogin(seconds) = fault {
                tracing::info!("POST {SESSIONS}: injected fault, answered in {seconds} s");
                tokio::time::sleep(std::time::Duration::from_secs(*seconds)).await;
            }
        }
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
        let location = self
            .faults
            .iter()
            .find_map(|fault| match fault {
                Fault::SessionLocation(other) => Some(other.as_str()),
                _ => None,
            })
            .unwrap_or(&uri);
        match location.parse() {
            Ok(location) => {
                response.headers_mut().insert("Location", location);
            }
            Err(_) => tracing::warn!("session-location: {location:?} is no valid header"),
        }
        response
    }
}

/// `path` percent-decoded (every byte, `%2F` too) with its dot segments resolved: how a
/// careless BMC web server routes a request.
fn decoded(path: &str) -> String {
    let bytes = path.as_bytes();
    let mut plain = Vec::with_capacity(bytes.len());
    let mut at = 0;
    while at < bytes.len() {
        let hex = bytes
            .get(at + 1..at + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[at], hex) {
            (b'%', Some(byte)) => {
                plain.push(byte);
                at += 3;
            }
            (byte, _) => {
                plain.push(byte);
                at += 1;
            }
        }
    }
    let mut segments: Vec<&str> = Vec::new();
    let plain = String::from_utf8_lossy(&plain);
    for segment in plain.split('/').skip(1) {
        match segment {
            "." => {}
            ".." => {
                segments.pop();
            }
            other => segments.push(other),
        }
    }
    format!("/{}", segments.join("/"))
}

/// An unguessable-enough token for a local simulator: the time hashed with a per-process
/// random key.
fn rand_token() -> u64 {
    use std::hash::{BuildHasher, RandomState};
    RandomState::new().hash_one(std::time::SystemTime::now())
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_careless_bmc_decodes_a_path_before_it_resolves_its_dots() {
        assert_eq!(
            super::decoded("/redfish/v1/a/b/..%2F..%2FAccountService%2FAccounts%2F2"),
            "/redfish/v1/AccountService/Accounts/2"
        );
        assert_eq!(super::decoded("/redfish/v1/a/./%2e%2E/b"), "/redfish/v1/b");
        assert_eq!(super::decoded("/redfish/v1/100%"), "/redfish/v1/100%");
    }
}
