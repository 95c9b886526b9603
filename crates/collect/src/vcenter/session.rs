//! One vSphere Web Services session: `RetrieveServiceContent`, `SessionManager.Login`, a
//! recursive `ContainerView` of every `HostSystem`, `RetrievePropertiesEx` and
//! `ContinueRetrievePropertiesEx` of [`PROPERTIES`], `DestroyView`, `Logout`. Every call is a
//! POST to `/sdk` under the host deadline and the body limit; the session is the
//! `vmware_soap_session` cookie, sent back to this vCenter only.

use std::sync::Mutex;
use std::time::Duration;

use driftgate_http::body;
use driftgate_http::connections::{self, ConnectionError, Connections, request_to};
use driftgate_http::tls::TlsConfigs;
use http_body_util::Full;
use hyper::body::Bytes;
use hyper::header::{self, HeaderValue};
use hyper::{Method, Request};

use super::facts::PROPERTIES;
use super::model::{Host, MoRef};
use super::soap::{self, Arg};
use super::xml::{self, AnswerError, ServiceContent};
use driftgate_http::{Credentials, TlsTrust};

/// Why a vCenter could not be read.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum VcenterError {
    /// The client could not be built (a bad CA file, a bad address).
    #[error("{0}")]
    Client(String),
    /// No answer.
    #[error("{base}: {method}: {reason}")]
    Transport {
        /// The vCenter.
        base: String,
        /// The method called.
        method: String,
        /// What went wrong.
        reason: String,
    },
    /// An answer that is a fault or cannot be read.
    #[error("{base}: {method}: {error}")]
    Answer {
        /// The vCenter.
        base: String,
        /// The method called.
        method: String,
        /// The fault, or what is wrong with the answer.
        error: AnswerError,
    },
}

/// An open session.
pub struct Session {
    connections: Connections,
    base: String,
    /// Each call's time, its answer's body too.
    timeout: Duration,
    cookie: Mutex<Option<String>>,
    content: ServiceContent,
    max_body: usize,
}

impl Session {
    /// Connects to the vCenter at `base` (`https://vc[:port]`), trusting what `trust` says, and
    /// reads its service content: no session yet.
    pub async fn connect(
        base: &str,
        trust: &TlsTrust,
        timeout: Duration,
        max_body: usize,
    ) -> Result<Self, VcenterError> {
        driftgate_http::tls::provider();
        // One vCenter per run: its connections build their own configuration. No redirect is
        // followed: the session cookie (and the login before it) go to this vCenter only.
        let connect_timeout = timeout.min(Duration::from_secs(15));
        let connections = connections::client(trust, &TlsConfigs::default(), base, connect_timeout)
            .map_err(|e| VcenterError::Client(e.to_string()))?;
        let base = base.trim_end_matches('/').to_owned();
        let answer = call(
            &connections,
            &base,
            &Mutex::new(None),
            (max_body, timeout),
            "RetrieveServiceContent",
            soap::envelope("RetrieveServiceContent", &soap::service_instance(), &[]),
        )
        .await?;
        let content = xml::service_content(&answer).map_err(|error| VcenterError::Answer {
            base: base.clone(),
            method: "RetrieveServiceContent".to_owned(),
            error,
        })?;
        Ok(Session {
            connections,
            base,
            timeout,
            cookie: Mutex::new(None),
            content,
            max_body,
        })
    }

    /// `SessionManager.Login`. Once it was sent, [`Session::logout`] is owed whatever it
    /// answered: a vCenter may have opened the session before the answer was lost.
    pub async fn login(&self, credentials: &Credentials) -> Result<(), VcenterError> {
        let login = soap::envelope(
            "Login",
            &self.content.session_manager,
            &[
                Arg::Text("userName", &credentials.username),
                Arg::Text("password", &credentials.password),
            ],
        );
        let answer = self.call("Login", login).await?;
        self.read("Login", xml::acknowledged(&answer, "Login"))
    }

    /// The vCenter.
    pub fn base(&self) -> &str {
        &self.base
    }

    fn read<T>(&self, method: &str, result: Result<T, AnswerError>) -> Result<T, VcenterError> {
        result.map_err(|error| VcenterError::Answer {
            base: self.base.clone(),
            method: method.to_owned(),
            error,
        })
    }

    async fn call(&self, method: &str, envelope: String) -> Result<String, VcenterError> {
        call(
            &self.connections,
            &self.base,
            &self.cookie,
            (self.max_body, self.timeout),
            method,
            envelope,
        )
        .await
    }

    /// Every `HostSystem` below the root folder with [`PROPERTIES`], all pages.
    pub async fn hosts(&self) -> Result<Vec<Host>, VcenterError> {
        let view_manager = self.content.view_manager.clone();
        let create = soap::envelope(
            "CreateContainerView",
            &view_manager,
            &[
                Arg::Ref("container", &self.content.root_folder),
                Arg::Text("type", "HostSystem"),
                Arg::Text("recursive", "true"),
            ],
        );
        let answer = self.call("CreateContainerView", create).await?;
        let view = self.read(
            "CreateContainerView",
            xml::returned_moref(&answer, "CreateContainerView"),
        )?;
        let read = self.read_view(&view).await;
        // The view is the session's: destroyed whatever the retrieval gave.
        let destroyed = self
            .call("DestroyView", soap::envelope("DestroyView", &view, &[]))
            .await
            .and_then(|answer| self.read("DestroyView", xml::acknowledged(&answer, "DestroyView")));
        let hosts = read?;
        destroyed?;
        Ok(hosts)
    }

    async fn read_view(&self, view: &MoRef) -> Result<Vec<Host>, VcenterError> {
        let collector = self.content.property_collector.clone();
        let answer = self
            .call(
                "RetrievePropertiesEx",
                soap::retrieve_hosts(&collector, view, &PROPERTIES),
            )
            .await?;
        let mut page = self.read(
            "RetrievePropertiesEx",
            xml::retrieved(&answer, "RetrievePropertiesEx"),
        )?;
        let mut hosts = std::mem::take(&mut page.hosts);
        while let Some(token) = page.token.take() {
            let more = soap::envelope(
                "ContinueRetrievePropertiesEx",
                &collector,
                &[Arg::Text("token", &token)],
            );
            let answer = self.call("ContinueRetrievePropertiesEx", more).await?;
            page = self.read(
                "ContinueRetrievePropertiesEx",
                xml::retrieved(&answer, "ContinueRetrievePropertiesEx"),
            )?;
            hosts.append(&mut page.hosts);
        }
        Ok(hosts)
    }

    /// Logs out.
    pub async fn logout(&self) -> Result<(), VcenterError> {
        let logout = soap::envelope("Logout", &self.content.session_manager, &[]);
        let answer = self.call("Logout", logout).await?;
        self.read("Logout", xml::acknowledged(&answer, "Logout"))
    }
}

/// POSTs one envelope to `base`'s `/sdk` and returns the answer's text, within `limits` (the
/// body's largest size, the call's time); a fault is returned as the text too (HTTP 500
/// carries it), for the method's parser to name. The session cookie a vCenter sets is kept in
/// `cookie` and sent back.
async fn call(
    connections: &Connections,
    base: &str,
    cookie: &Mutex<Option<String>>,
    (max_body, timeout): (usize, Duration),
    method: &str,
    envelope: String,
) -> Result<String, VcenterError> {
    let url = url::Url::parse(&format!("{base}/sdk"))
        .map_err(|e| VcenterError::Client(format!("{base}: not a URL ({e})")))?;
    let transport = |reason: String| VcenterError::Transport {
        base: base.to_owned(),
        method: method.to_owned(),
        reason,
    };
    let deadline = tokio::time::Instant::now() + timeout;
    let sent = cookie
        .lock()
        .expect("no panic while holding the lock")
        .clone();
    let request = soap_request(&url, envelope, sent).map_err(transport)?;
    let response = match tokio::time::timeout_at(deadline, connections.request(request)).await {
        Ok(Ok(response)) => response,
        Ok(Err(e)) => return Err(transport(explain(&url, &e).await)),
        Err(_) => return Err(transport("timed out".to_owned())),
    };
    let status = response.status().as_u16();
    if let Some(session) = response
        .headers()
        .get_all(header::SET_COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find(|v| v.starts_with("vmware_soap_session="))
    {
        let pair = session.split(';').next().unwrap_or(session).to_owned();
        *cookie.lock().expect("no panic while holding the lock") = Some(pair);
    }
    let mut body = Vec::new();
    body::receive(response, max_body, &mut body, deadline)
        .await
        .map_err(|e| transport(e.to_string()))?;
    let text =
        String::from_utf8(body).map_err(|_| transport("the answer is not UTF-8".to_owned()))?;
    if status != 200 && status != 500 {
        return Err(transport(format!("HTTP {status}")));
    }
    Ok(text)
}

/// The POST of `envelope` to `url`, with the session's `cookie` when there is one.
fn soap_request(
    url: &url::Url,
    envelope: String,
    cookie: Option<String>,
) -> Result<Request<Full<Bytes>>, String> {
    let mut request = request_to(Method::POST, url)
        .header(header::CONTENT_TYPE, "text/xml; charset=utf-8")
        .header("SOAPAction", "urn:vim25/6.5")
        .header(header::USER_AGENT, driftgate_snapshot::tool_version());
    if let Some(cookie) = cookie {
        let mut value = HeaderValue::try_from(cookie)
            .map_err(|_| "the session cookie is not a valid header value".to_owned())?;
        value.set_sensitive(true);
        request = request.header(header::COOKIE, value);
    }
    request
        .body(Full::new(Bytes::from(envelope)))
        .map_err(|e| format!("not a valid request: {e}"))
}

/// What went wrong with a call; for a certificate this client does not trust, the certificate
/// the vCenter presents (learnt by a handshake that sends nothing) and the two ways to trust it.
async fn explain(url: &url::Url, error: &ConnectionError) -> String {
    let Some(reason) = driftgate_http::tls::untrusted_certificate(error) else {
        return error.describe();
    };
    let address = url.authority();
    match driftgate_http::tls::presented_certificate(url.as_str(), Duration::from_secs(5)).await {
        Ok(presented) => format!(
            "certificate not trusted ({reason}): the vCenter presents the certificate {}; if that \
             is the vCenter's own, pin it in the source (esxi=vcenter://{address}?host=…&pin={}) \
             or trust its CA (ca_file in the inventory, --ca-cert)",
            presented.describe(jiff::Timestamp::now()),
            presented.pin
        ),
        Err(probe) => format!(
            "certificate not trusted ({reason}); its pin is unknown ({probe}): pin the vCenter's \
             certificate in the source (esxi=vcenter://{address}?host=…&pin=sha256:…) or trust \
             its CA (ca_file in the inventory, --ca-cert)"
        ),
    }
}
