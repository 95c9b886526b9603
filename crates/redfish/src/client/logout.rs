//! Deleting the session a login opened: at the end of every capture, and on a task of its
//! own for a client dropped before it could (so that runs which gave up do not eat the BMC's
//! session limit).

use std::sync::Mutex;
use std::time::Duration;

use hyper::Method;
use hyper::body::Bytes;

use super::authorization::Auth;
use super::fetcher::HttpFetch;
use super::http::{Exchange, error_detail, url_on};
use super::options::ClientOptions;
use crate::fetch::FetchError;
use crate::session::{SESSIONS, SessionUri};
use driftgate_http::connections::Connections;

/// Why a session could not be deleted: it stays open on the BMC and counts against its limit.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LogoutError {
    /// The login answer named no member of the session collection (see
    /// [`crate::session`]).
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

impl HttpFetch {
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
    pub(super) async fn delete_session(
        &self,
        token: &str,
        uri: Option<&SessionUri>,
    ) -> Result<(), LogoutError> {
        delete_session(&self.connections, &self.base, &self.options, token, uri).await
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
        let (connections, base) = (self.connections.clone(), self.base.clone());
        let options = self.options.clone();
        let bound = options.timeout;
        let deletion = runtime.spawn(async move {
            let mut sessions = vec![auth];
            if let Some(login) = pending
                && let Ok(Ok(Ok((auth, _)))) = tokio::time::timeout(bound, login).await
            {
                sessions.push(auth);
            }
            for auth in sessions {
                if let Auth::Session { token, uri } = auth {
                    match delete_session(&connections, &base, &options, &token, uri.as_ref()).await
                    {
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

/// `DELETE session` with `token` on the BMC at `base`, on its `connections` within the
/// request limits of `options`: only ever a member of [`SESSIONS`].
async fn delete_session(
    connections: &Connections,
    base: &str,
    options: &ClientOptions,
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
    let exchange = Exchange::starting_now(connections, options);
    let auth = Auth::Session {
        token: token.to_owned(),
        uri: None,
    };
    let response = exchange
        .send(Method::DELETE, &url, &auth, Bytes::new())
        .await
        .map_err(transport)?;
    let status = response.status().as_u16();
    // Read whole, so that the connection is kept for the next request.
    let body = exchange
        .body(location, response, options.max_body)
        .await
        .unwrap_or_default();
    if (200..300).contains(&status) {
        tracing::info!("{base}: session {location} deleted");
        Ok(())
    } else {
        Err(LogoutError::Status {
            uri: location.to_owned(),
            status,
            detail: error_detail(&body),
        })
    }
}
