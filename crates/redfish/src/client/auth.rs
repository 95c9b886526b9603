//! How requests authenticate, and the logins that give them a session: the first one, and
//! one more after a 401 mid-crawl. A login runs as a task of its own so that a crawl dropped
//! part-way leaves it to the logout (see [`super::logout`]) rather than losing its session.

use hyper::Method;
use hyper::body::Bytes;

use super::authorization::{Auth, AuthMode, LoginError, LoginOutcome, Session};
use super::fetcher::HttpFetch;
use super::http::{Exchange, error_detail};
use super::options::ClientOptions;
use crate::fetch::FetchError;
use crate::session::{self, SESSIONS};
use driftgate_http::Credentials;
use driftgate_http::connections::Connections;

/// Where an operator gives the account a BMC wants when none was given.
const CHECK_ACCOUNT: &str = "check the BMC account: DRIFTGATE_BMC_USERNAME and \
    DRIFTGATE_BMC_PASSWORD, --bmc-username, --credentials-file, or the host's `credentials` in \
    the inventory";

impl HttpFetch {
    /// Logs in: a session when the service grants one, Basic when sessions are refused or
    /// the session limit is reached (iDRAC answers 503 `RAC0218`). Dropping this future does
    /// not drop the login: [`HttpFetch::logout`] waits for it and deletes its session.
    pub async fn login(&self, credentials: Option<&Credentials>) -> Result<AuthMode, LoginError> {
        let Some(credentials) = credentials else {
            return Ok(AuthMode::Anonymous);
        };
        *self
            .credentials
            .lock()
            .expect("no panic while holding the lock") = Some(credentials.clone());
        let mut session = self.session.write().await;
        session.pending = Some(self.spawn_login(credentials.clone())?);
        let mode = self.settle(&mut session).await?;
        Ok(mode.expect("the login just started is pending under the write lock"))
    }

    /// Starts a login as its own task.
    fn spawn_login(
        &self,
        credentials: Credentials,
    ) -> Result<tokio::task::JoinHandle<LoginOutcome>, LoginError> {
        let url = self.url(SESSIONS).map_err(|e| LoginError::Transport {
            uri: SESSIONS.to_owned(),
            reason: match e {
                FetchError::Transport { reason, .. } => reason,
                other => other.to_string(),
            },
        })?;
        Ok(tokio::spawn(open_session(
            self.connections.clone(),
            url,
            self.base.clone(),
            credentials,
            self.options.clone(),
        )))
    }

    /// Waits for the login on its way, if any, and stores what it gave: the mode it logged in
    /// with, `None` when there was none. Cancel-safe: dropped, the login stays pending.
    pub(super) async fn settle(
        &self,
        session: &mut Session,
    ) -> Result<Option<AuthMode>, LoginError> {
        let Some(task) = session.pending.as_mut() else {
            return Ok(None);
        };
        let outcome = task.await.unwrap_or_else(|e| {
            Err(LoginError::Stopped {
                uri: SESSIONS.to_owned(),
                reason: e.to_string(),
            })
        });
        session.pending = None;
        let (auth, mode) = outcome?;
        session.auth = auth;
        // Only now: a request that reads this generation is sent with this `auth`.
        session.generation += 1;
        Ok(Some(mode))
    }

    /// After `refused` (a 401 to a request sent with login `generation`): nothing when another
    /// request logged in again meanwhile; else one new login. When that is not possible, or
    /// was done already, or fails, no further request is sent: every one would be refused,
    /// and BMCs lock accounts that fail too often.
    pub(super) async fn log_in_again(
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
            None => {
                // Not a session lost: there never was one. The operator gave no account.
                let reason = format!(
                    "the BMC wants a login ({refused} for GET {uri}) and no account was given: \
                     {CHECK_ACCOUNT}; no further requests sent"
                );
                self.stop(reason.clone());
                return Err(FetchError::Transport {
                    uri: uri.to_owned(),
                    reason,
                });
            }
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
                let login = match self.spawn_login(credentials) {
                    Ok(task) => {
                        session.pending = Some(task);
                        self.settle(&mut session).await.map(drop)
                    }
                    Err(e) => Err(e),
                };
                match login {
                    Ok(()) => return Ok(()),
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
}

/// POSTs a session login to `url` on the BMC's `connections`, within the limits of `options`
/// (a task of its own: it owns what it uses). Its connection is then the GETs' first, and the
/// logout's.
async fn open_session(
    connections: Connections,
    url: url::Url,
    base: String,
    credentials: Credentials,
    options: ClientOptions,
) -> LoginOutcome {
    let uri = SESSIONS;
    let body =
        serde_json::json!({ "UserName": credentials.username, "Password": credentials.password });
    let exchange = Exchange::starting_now(&connections, &options);
    let sent = exchange
        .send(
            Method::POST,
            &url,
            &Auth::Anonymous,
            Bytes::from(body.to_string()),
        )
        .await;
    let response = match sent {
        Ok(response) => response,
        Err(reason) => {
            return Err(LoginError::Transport {
                uri: uri.to_owned(),
                reason,
            });
        }
    };
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
    let body = exchange
        .body(uri, response, options.max_body)
        .await
        .unwrap_or_default();
    match (status, token) {
        (200..=299, Some(token)) => {
            // A body that gives `Id` twice names no session.
            let answer = driftgate_snapshot::parse_unique(&body).ok();
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
        (401 | 403, _) => Err(LoginError::Refused {
            uri: uri.to_owned(),
            status,
            detail: error_detail(&body),
            account: credentials.origin.clone(),
        }),
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

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn a_location_is_quoted_without_the_session_token() {
        assert_eq!(
            without_token("/redfish/v1/Accounts/2?t=5ec2e7", "5ec2e7"),
            "/redfish/v1/Accounts/2?t=<token>"
        );
        assert_eq!(without_token("/redfish/v1/x", ""), "/redfish/v1/x");
    }

    #[test]
    fn a_login_past_the_host_deadline_names_the_uri_and_the_limit() {
        let error = LoginError::PastDeadline {
            uri: SESSIONS.to_owned(),
            timeout: Duration::from_secs(300),
        };
        assert_eq!(
            error.to_string(),
            "no answer within the host deadline of 300 s (--host-timeout): login POST /redfish/v1/SessionService/Sessions"
        );
    }
}
