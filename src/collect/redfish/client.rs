//! The live Redfish transport: HTTPS (or HTTP for simulators) with verified TLS, a CA file
//! or a certificate pin; session login with Basic fallback; per-request timeout, response
//! size cap, redirect cap and bounded retries that honour `Retry-After`. It returns JSON and
//! never interprets it.

use std::sync::Mutex;
use std::time::Duration;

use serde_json::Value;

use super::fetch::{Fetch, FetchError, parse_body};
use super::session::{self, SESSIONS, SessionUri};
use super::tls::{CertificatePin, pinned_config};

/// A BMC account. The password never appears in `Debug` output, logs or errors.
#[derive(Clone)]
pub struct Credentials {
    /// User name.
    pub username: String,
    /// Password.
    pub password: String,
}

impl std::fmt::Debug for Credentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Credentials")
            .field("username", &self.username)
            .field("password", &"<redacted>")
            .finish()
    }
}

/// Why a credentials file was refused.
#[derive(Debug, thiserror::Error)]
pub enum CredentialsError {
    /// Readable by others: a password there is not a secret.
    #[error("{file}: readable by group or others (mode {mode:o}); run chmod 600 {file}")]
    TooOpen {
        /// The file.
        file: String,
        /// Its permission bits.
        mode: u32,
    },
    /// Unreadable or malformed; the message never quotes the content.
    #[error("{file}: {reason}")]
    Invalid {
        /// The file.
        file: String,
        /// What is wrong.
        reason: String,
    },
}

impl Credentials {
    /// Reads `username = "…"` and `password = "…"` (TOML) from a file that only its owner
    /// can read.
    pub fn from_file(path: &std::path::Path) -> Result<Self, CredentialsError> {
        use std::os::unix::fs::PermissionsExt;
        let file = path.display().to_string();
        let invalid = |reason: String| CredentialsError::Invalid {
            file: file.clone(),
            reason,
        };
        let mode = std::fs::metadata(path)
            .map_err(|e| invalid(e.to_string()))?
            .permissions()
            .mode()
            & 0o777;
        if mode & 0o077 != 0 {
            return Err(CredentialsError::TooOpen { file, mode });
        }
        #[derive(serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        struct File {
            username: String,
            password: String,
        }
        let text = std::fs::read_to_string(path).map_err(|e| invalid(e.to_string()))?;
        // toml's messages quote the offending line, which may hold the password: say only where.
        let parsed: File = toml::from_str(&text).map_err(|e| {
            let line = e.span().map_or(1, |span| {
                text[..span.start.min(text.len())].matches('\n').count() + 1
            });
            invalid(format!(
                "line {line}: expected username = \"…\" and password = \"…\""
            ))
        })?;
        Ok(Credentials {
            username: parsed.username,
            password: parsed.password,
        })
    }
}

/// Why a session could not be deleted: it stays open on the BMC and counts against its limit.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LogoutError {
    /// The login answer named no member of the session collection (see [`session`]).
    #[error("the login's answer named no session of {SESSIONS} to delete")]
    NoSessionUri,
    /// No answer: connection, TLS, timeout, a URI on another origin.
    #[error("DELETE {uri}: {reason}")]
    Transport {
        /// The session URI.
        uri: String,
        /// What went wrong.
        reason: String,
    },
    /// The service answered with an error status.
    #[error("DELETE {uri}: HTTP {status}{detail}")]
    Status {
        /// The session URI.
        uri: String,
        /// HTTP status.
        status: u16,
        /// `: ` and the Redfish message, when the body had one.
        detail: String,
    },
    /// The capture was being stopped and the BMC did not answer in time.
    #[error("no answer to DELETE within {0:?} while the capture was being stopped")]
    TimedOut(Duration),
    /// The capture was stopped while logging in and the login had no answer in time: a
    /// session the BMC opens for it afterwards is deleted once it answers (within
    /// `--bmc-timeout`, while driftgate still runs).
    #[error(
        "no answer to the login within {0:?} while the capture was being stopped; a session it opens stays open unless it answers while driftgate still runs"
    )]
    LoginUnanswered(Duration),
    /// The host deadline had passed and the BMC did not answer the login or the DELETE within
    /// the grace given for it: a session it opened may stay open (a login answering later
    /// has its session deleted then, within `--bmc-timeout`, while driftgate still runs).
    #[error(
        "no answer to the login or DELETE within {0:?} after the host deadline passed; a session it opened may stay open"
    )]
    PastDeadline(Duration),
}

/// How the server's certificate is checked.
#[derive(Debug, Clone)]
pub enum TlsTrust {
    /// The system's trusted roots.
    System,
    /// Only the CAs of a PEM bundle.
    CaBundle(Vec<u8>),
    /// Exactly the certificate with this SHA-256.
    Pinned(CertificatePin),
    /// Nothing (`--insecure`).
    Insecure,
}

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
        }
    }
}

/// How requests authenticate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AuthMode {
    /// No credentials were given.
    Anonymous,
    /// A Redfish session (`X-Auth-Token`).
    Session,
    /// HTTP Basic, after the session service refused or was full.
    Basic,
}

enum Auth {
    Anonymous,
    Basic(Credentials),
    /// `uri`: the session to delete at logout, when the login's answer named one.
    Session {
        token: String,
        uri: Option<SessionUri>,
    },
}

/// What a login task gives back.
type LoginOutcome = Result<(Auth, AuthMode), String>;

/// What requests authenticate with, and the login that replaces it. Requests hold the read
/// side while they are sent, a login the write side: a request started while logging in
/// waits for the new session instead of going without one.
struct Session {
    auth: Auth,
    /// Bumped once a login's `auth` is stored, so that requests refused with an older one
    /// retry instead of logging in again themselves.
    generation: u64,
    /// Whether a 401 led to a new login already.
    relogged: bool,
    /// A login on its way, as a task of its own: a crawl dropped part-way (a signal, the host
    /// deadline) must not drop it, or the session the BMC opens is left there. Whoever takes
    /// the write side next (the next login, `logout`) waits for it.
    pending: Option<tokio::task::JoinHandle<LoginOutcome>>,
}

/// A Redfish service over HTTP(S).
pub struct HttpFetch {
    client: reqwest::Client,
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
    pub fn new(base: &str, trust: &TlsTrust, options: ClientOptions) -> Result<Self, String> {
        let origin = reqwest::Url::parse(base)
            .map_err(|e| format!("{base}: {e}"))?
            .origin();
        let max_redirects = options.max_redirects;
        // Credentials go with every request (Basic or X-Auth-Token): never to another origin.
        let redirects = reqwest::redirect::Policy::custom(move |attempt| {
            let target = attempt.url().origin();
            if target != origin {
                let message = format!(
                    "redirect to another origin ({}) refused",
                    target.ascii_serialization()
                );
                attempt.error(message)
            } else if attempt.previous().len() > max_redirects {
                attempt.error("too many redirects (a redirect loop?)")
            } else {
                attempt.follow()
            }
        });
        // reqwest takes the process's default provider, which this installs.
        super::tls::provider();
        let mut builder = reqwest::Client::builder()
            .timeout(options.timeout)
            .connect_timeout(options.timeout.min(Duration::from_secs(15)))
            .redirect(redirects)
            .user_agent(crate::tool_version());
        builder = match trust {
            TlsTrust::System => builder,
            TlsTrust::CaBundle(pem) => {
                let certificates = reqwest::Certificate::from_pem_bundle(pem)
                    .map_err(|e| format!("CA file: {}", describe(&e)))?;
                if certificates.is_empty() {
                    return Err("CA file: no certificate in it".to_owned());
                }
                builder.tls_certs_only(certificates)
            }
            TlsTrust::Pinned(pin) => builder.tls_backend_preconfigured(
                pinned_config(pin.clone()).map_err(|e| format!("TLS configuration: {e}"))?,
            ),
            TlsTrust::Insecure => builder.tls_danger_accept_invalid_certs(true),
        };
        let client = builder
            .build()
            .map_err(|e| format!("HTTP client: {}", describe(&e)))?;
        Ok(HttpFetch {
            client,
            base: base.trim_end_matches('/').to_owned(),
            deadline: tokio::time::Instant::now() + options.host_timeout,
            options,
            session: tokio::sync::RwLock::new(Session {
                auth: Auth::Anonymous,
                generation: 0,
                relogged: false,
                pending: None,
            }),
            credentials: Mutex::new(None),
            stopped: Mutex::new(None),
        })
    }

    /// The URL of `uri` on the BMC. A URI a response names that points at another origin
    /// (absolute, `//host/…`, `@host/…`) is refused: the credentials would follow it.
    fn url(&self, uri: &str) -> Result<reqwest::Url, FetchError> {
        url_on(&self.base, uri)
    }

    /// Logs in: a session when the service grants one, Basic when sessions are refused or
    /// the session limit is reached (iDRAC answers 503 `RAC0218`). Dropping this future does
    /// not drop the login: [`HttpFetch::logout`] waits for it and deletes its session.
    pub async fn login(&self, credentials: Option<&Credentials>) -> Result<AuthMode, String> {
        let Some(credentials) = credentials else {
            return Ok(AuthMode::Anonymous);
        };
        *self
            .credentials
            .lock()
            .expect("no panic while holding the lock") = Some(credentials.clone());
        let mut session = self.session.write().await;
        session.pending = Some(self.spawn_login(credentials.clone())?);
        self.settle(&mut session)
            .await?
            .ok_or_else(|| "no login was sent".to_owned())
    }

    /// Starts a login as its own task.
    fn spawn_login(
        &self,
        credentials: Credentials,
    ) -> Result<tokio::task::JoinHandle<LoginOutcome>, String> {
        let url = self.url(SESSIONS).map_err(|e| e.to_string())?;
        Ok(tokio::spawn(open_session(
            self.client.clone(),
            url,
            self.base.clone(),
            credentials,
            self.options.max_body,
        )))
    }

    /// Waits for the login on its way, if any, and stores what it gave: the mode it logged in
    /// with, `None` when there was none. Cancel-safe: dropped, the login stays pending.
    async fn settle(&self, session: &mut Session) -> Result<Option<AuthMode>, String> {
        let Some(task) = session.pending.as_mut() else {
            return Ok(None);
        };
        let outcome = task
            .await
            .unwrap_or_else(|e| Err(format!("POST {SESSIONS}: the login stopped: {e}")));
        session.pending = None;
        let (auth, mode) = outcome?;
        session.auth = auth;
        // Only now: a request that reads this generation is sent with this `auth`.
        session.generation += 1;
        Ok(Some(mode))
    }

    /// Deletes the session, if one was opened, after waiting for a login on its way. Called
    /// on every exit path of a capture.
    pub async fn logout(&self) -> Result<(), LogoutError> {
        let auth = {
            let mut session = self.session.write().await;
            // A failed login opened nothing; a successful one is deleted below.
            let _ = self.settle(&mut session).await;
            std::mem::replace(&mut session.auth, Auth::Anonymous)
        };
        let Auth::Session { token, uri } = auth else {
            return Ok(());
        };
        self.delete_session(&token, uri.as_ref()).await
    }

    /// `DELETE uri` with `token`.
    async fn delete_session(
        &self,
        token: &str,
        uri: Option<&SessionUri>,
    ) -> Result<(), LogoutError> {
        delete_session(&self.client, &self.base, self.options.max_body, token, uri).await
    }

    async fn read_body(
        &self,
        uri: &str,
        response: reqwest::Response,
    ) -> Result<Vec<u8>, FetchError> {
        read_limited(uri, response, self.options.max_body).await
    }

    fn request(&self, url: &reqwest::Url, auth: &Auth) -> reqwest::RequestBuilder {
        let request = self
            .client
            .get(url.clone())
            .header("Accept", "application/json");
        match auth {
            Auth::Anonymous => request,
            Auth::Basic(credentials) => {
                request.basic_auth(&credentials.username, Some(&credentials.password))
            }
            Auth::Session { token, .. } => request.header("X-Auth-Token", token),
        }
    }
}

/// A client dropped with a login still on its way (the login answered after the grace the
/// logout gave it, or the capture was abandoned) or a session not deleted: the session is
/// deleted on a task of its own, so that runs which gave up do not eat the BMC's session
/// limit. Bounded: at most `--bmc-timeout` more for the login's answer, and the client's
/// timeout for the DELETE.
impl Drop for HttpFetch {
    fn drop(&mut self) {
        let session = self.session.get_mut();
        let pending = session.pending.take();
        let auth = std::mem::replace(&mut session.auth, Auth::Anonymous);
        if pending.is_none() && !matches!(auth, Auth::Session { .. }) {
            return;
        }
        // Outside a runtime (it is shutting down) nothing can be sent any more.
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let (client, base) = (self.client.clone(), self.base.clone());
        let (bound, max_body) = (self.options.timeout, self.options.max_body);
        let deletion = runtime.spawn(async move {
            let mut sessions = vec![auth];
            if let Some(login) = pending
                && let Ok(Ok(Ok((auth, _)))) = tokio::time::timeout(bound, login).await
            {
                sessions.push(auth);
            }
            for auth in sessions {
                if let Auth::Session { token, uri } = auth {
                    match delete_session(&client, &base, max_body, &token, uri.as_ref()).await {
                        Ok(()) => tracing::info!("{base}: the abandoned session was deleted"),
                        Err(e) => {
                            tracing::warn!("{base}: could not delete the abandoned session: {e}")
                        }
                    }
                }
            }
        });
        let mut deletions = DELETIONS.lock().unwrap_or_else(|e| e.into_inner());
        deletions.retain(|task| !task.is_finished());
        deletions.push(deletion);
    }
}

/// The session deletions of dropped clients still on their way.
static DELETIONS: Mutex<Vec<tokio::task::JoinHandle<()>>> = Mutex::new(Vec::new());

/// Waits for the sessions of abandoned captures to be deleted (each is bounded, see
/// [`HttpFetch`]'s `Drop`): a process about to exit calls it (the fleet, within a grace),
/// else its runtime's shutdown drops them and the sessions stay open on the BMC.
pub async fn abandoned_sessions_deleted() {
    loop {
        let next = DELETIONS.lock().unwrap_or_else(|e| e.into_inner()).pop();
        match next {
            // A deletion of a runtime gone already ends at once (cancelled).
            Some(deletion) => {
                let _ = deletion.await;
            }
            None => return,
        }
    }
}

/// [`HttpFetch::url`] on the BMC at `base`.
fn url_on(base: &str, uri: &str) -> Result<reqwest::Url, FetchError> {
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

/// `DELETE session` with `token` on the BMC at `base`: only ever a member of [`SESSIONS`].
async fn delete_session(
    client: &reqwest::Client,
    base: &str,
    max_body: usize,
    token: &str,
    session: Option<&SessionUri>,
) -> Result<(), LogoutError> {
    let location = session.ok_or(LogoutError::NoSessionUri)?.as_str();
    let transport = |reason: String| LogoutError::Transport {
        uri: location.to_owned(),
        reason,
    };
    let url = url_on(base, location).map_err(|e| match e {
        FetchError::Transport { reason, .. } => transport(reason),
        other => transport(other.to_string()),
    })?;
    let response = client
        .delete(url)
        .header("X-Auth-Token", token)
        .send()
        .await
        .map_err(|e| transport(describe(&e)))?;
    let status = response.status().as_u16();
    if (200..300).contains(&status) {
        tracing::info!("{base}: session {location} deleted");
        Ok(())
    } else {
        let body = read_limited(location, response, max_body)
            .await
            .unwrap_or_default();
        Err(LogoutError::Status {
            uri: location.to_owned(),
            status,
            detail: error_detail(&body),
        })
    }
}

/// POSTs a session login to `url` (a task of its own: it owns what it uses).
async fn open_session(
    client: reqwest::Client,
    url: reqwest::Url,
    base: String,
    credentials: Credentials,
    max_body: usize,
) -> LoginOutcome {
    let uri = SESSIONS;
    let body =
        serde_json::json!({ "UserName": credentials.username, "Password": credentials.password });
    let response = client
        .post(url.clone())
        .header("Content-Type", "application/json")
        .body(body.to_string())
        .send()
        .await
        .map_err(|e| format!("POST {uri}: {}", describe(&e)))?;
    let status = response.status().as_u16();
    let token = response
        .headers()
        .get("X-Auth-Token")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let location = response
        .headers()
        .get("Location")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let body = read_limited(uri, response, max_body)
        .await
        .unwrap_or_default();
    match (status, token) {
        (200..=299, Some(token)) => {
            // A body that gives `Id` twice names no session.
            let answer = crate::snapshot::parse_unique(&body).ok();
            let opened = session::opened(&url, location.as_deref(), answer.as_ref());
            if let Some(sent) = &opened.refused_location {
                let sent = without_token(sent, &token);
                let instead = opened.uri.as_ref().map_or_else(
                    || "no session URI is left to delete it by".to_owned(),
                    |uri| format!("the session is deleted as {uri}"),
                );
                tracing::warn!(
                    "{base}: the login's Location header {sent:?} names no session of {SESSIONS}; it is never requested, {instead}"
                );
            }
            tracing::info!("{base}: logged in with a session");
            let uri = opened.uri;
            Ok((Auth::Session { token, uri }, AuthMode::Session))
        }
        (401 | 403, _) => Err(format!("POST {uri}: HTTP {status}{}", error_detail(&body))),
        _ => {
            tracing::info!(
                "{base}: session login answered HTTP {status}{}; using Basic authentication",
                error_detail(&body)
            );
            Ok((Auth::Basic(credentials), AuthMode::Basic))
        }
    }
}

/// `text` (something the BMC sent, to be quoted in a log) with `token` in it replaced: a
/// session token is never logged, wherever the BMC put it.
fn without_token(text: &str, token: &str) -> String {
    match token {
        "" => text.to_owned(),
        token => text.replace(token, "<token>"),
    }
}

/// The body of `response`, refused past `limit` bytes.
async fn read_limited(
    uri: &str,
    mut response: reqwest::Response,
    limit: usize,
) -> Result<Vec<u8>, FetchError> {
    if response
        .content_length()
        .is_some_and(|length| length > limit as u64)
    {
        return Err(FetchError::TooLarge {
            uri: uri.to_owned(),
            limit,
        });
    }
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(|e| FetchError::Transport {
        uri: uri.to_owned(),
        reason: describe(&e),
    })? {
        if body.len() + chunk.len() > limit {
            return Err(FetchError::TooLarge {
                uri: uri.to_owned(),
                limit,
            });
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

impl Fetch for HttpFetch {
    fn target(&self) -> String {
        self.base.clone()
    }

    async fn get(&self, uri: &str) -> Result<Value, FetchError> {
        let deadline = || {
            format!(
                "the host deadline of {} s (--host-timeout) passed",
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
        match tokio::time::timeout_at(self.deadline, self.get_authenticated(uri)).await {
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

impl HttpFetch {
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

    /// GETs `uri`; after a 401 logs in again once (for every request in flight) and retries.
    async fn get_authenticated(&self, uri: &str) -> Result<Value, FetchError> {
        loop {
            if let Some(reason) = self.stopped() {
                return Err(FetchError::Transport {
                    uri: uri.to_owned(),
                    reason: format!("not requested: {reason}"),
                });
            }
            let mut generation = 0;
            match self.get_once(uri, &mut generation).await {
                Err(refused @ FetchError::Status { status: 401, .. }) => {
                    self.log_in_again(uri, generation, &refused).await?;
                }
                other => return other,
            }
        }
    }

    /// After `refused` (a 401 to a request sent with login `generation`): nothing when another
    /// request logged in again meanwhile; else one new login. When that is not possible, or
    /// was done already, or fails, no further request is sent: every one would be refused,
    /// and BMCs lock accounts that fail too often.
    async fn log_in_again(
        &self,
        uri: &str,
        generation: u64,
        refused: &FetchError,
    ) -> Result<(), FetchError> {
        let mut session = self.session.write().await;
        // A login left pending by a request dropped part-way counts as logging in again.
        let _ = self.settle(&mut session).await;
        if session.generation != generation {
            return Ok(());
        }
        let refused = match refused {
            FetchError::Status { status, detail, .. } => format!("HTTP {status}{detail}"),
            other => other.to_string(),
        };
        let credentials = self
            .credentials
            .lock()
            .expect("no panic while holding the lock")
            .clone();
        let reason = match credentials {
            None => format!("{refused}, and there are no credentials to log in with"),
            Some(_) if session.relogged => format!("{refused} again after logging in again"),
            Some(credentials) => {
                session.relogged = true;
                tracing::info!("{}: GET {uri}: {refused}; logging in again", self.base);
                // Some BMCs answer 401 for one resource while the session lives: delete it
                // first, or each new login takes one of their few session slots. A session
                // the service forgot answers 401 or 404; either way there is none left.
                if let Auth::Session {
                    token,
                    uri: Some(uri),
                } = &session.auth
                    && let Err(e) = self.delete_session(token, Some(uri)).await
                {
                    tracing::debug!("{}: the old session: {e}", self.base);
                }
                session.auth = Auth::Anonymous;
                match self.spawn_login(credentials) {
                    Ok(task) => {
                        session.pending = Some(task);
                        match self.settle(&mut session).await {
                            Ok(_) => return Ok(()),
                            Err(e) => format!("{refused}, and logging in again failed: {e}"),
                        }
                    }
                    Err(e) => format!("{refused}, and logging in again failed: {e}"),
                }
            }
        };
        let reason = format!("authentication lost mid-crawl ({reason}); no further requests sent");
        self.stop(reason.clone());
        Err(FetchError::Transport {
            uri: uri.to_owned(),
            reason,
        })
    }

    /// One GET of `uri`, with the retries of a busy (503) service; `generation` is set to
    /// the login that the last attempt was sent with.
    async fn get_once(&self, uri: &str, generation: &mut u64) -> Result<Value, FetchError> {
        let url = self.url(uri)?;
        let mut attempt = 0;
        loop {
            let response = {
                // Held until the answer's head is in: a new login waits for it, and a request
                // started meanwhile waits for the new login.
                let session = self.session.read().await;
                *generation = session.generation;
                self.request(&url, &session.auth).send().await
            };
            let response = response.map_err(|e| FetchError::Transport {
                uri: uri.to_owned(),
                reason: describe(&e),
            })?;
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
            let body = self.read_body(uri, response).await?;
            if !(200..300).contains(&status) {
                return Err(FetchError::Status {
                    uri: uri.to_owned(),
                    status,
                    detail: error_detail(&body),
                });
            }
            return parse_body(uri, &body);
        }
    }
}

/// `Retry-After` in seconds (an HTTP date is treated as one second: BMC clocks drift).
fn retry_after(headers: &reqwest::header::HeaderMap) -> Option<Duration> {
    let value = headers.get("Retry-After")?.to_str().ok()?;
    Some(Duration::from_secs(value.trim().parse().unwrap_or(1)))
}

/// `: message (MessageId)` from a Redfish error body, or nothing.
pub fn error_detail(body: &[u8]) -> String {
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

/// A reqwest error with its causes (the TLS reason, the timeout), without the URL.
fn describe(error: &reqwest::Error) -> String {
    let mut text = if error.is_timeout() {
        "timed out".to_owned()
    } else if error.is_redirect() {
        // The policy's own message (loop, another origin) follows as the cause.
        "redirect refused".to_owned()
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

#[cfg(test)]
mod tests {
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

    #[test]
    fn credentials_files_must_be_private_and_errors_never_quote_them() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("bmc.toml");
        std::fs::write(&file, "username = \"root\"\npassword = \"calvin-s3cret\"\n").unwrap();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
        let err = Credentials::from_file(&file).unwrap_err().to_string();
        assert!(
            err.contains("readable by group or others (mode 644)"),
            "{err}"
        );
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
        let credentials = Credentials::from_file(&file).unwrap();
        assert_eq!(
            (credentials.username.as_str(), credentials.password.as_str()),
            ("root", "calvin-s3cret")
        );
        std::fs::write(&file, "username = \"root\"\npassword = calvin-s3cret\n").unwrap();
        let err = Credentials::from_file(&file).unwrap_err().to_string();
        assert!(
            err.contains("line 2") && !err.contains("calvin-s3cret"),
            "{err}"
        );
    }

    #[test]
    fn a_location_is_quoted_without_the_session_token() {
        assert_eq!(
            without_token("/redfish/v1/Accounts/2?t=5ec2e7", "5ec2e7"),
            "/redfish/v1/Accounts/2?t=<token>"
        );
        assert_eq!(without_token("/redfish/v1/x", ""), "/redfish/v1/x");
    }

    #[test]
    fn credentials_never_print_the_password() {
        let credentials = Credentials {
            username: "root".into(),
            password: "calvin-s3cret".into(),
        };
        assert!(!format!("{credentials:?}").contains("calvin-s3cret"));
    }
}
