//! What requests authenticate with: nothing, an account (Basic) or a session's token, and the
//! state a login replaces it in. `auth.rs` logs in; `logout.rs` deletes the session.

use std::time::Duration;

use crate::session::SessionUri;
use driftgate_http::Credentials;

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

/// Why a login failed. The BMC is named by whoever reports it (the capture's target).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LoginError {
    /// The service refused the account.
    #[error(
        "login refused (POST {uri}: HTTP {status}{detail}): check the BMC account of {account}"
    )]
    Refused {
        /// The session collection posted to.
        uri: String,
        /// HTTP status (401 or 403).
        status: u16,
        /// `: ` and the Redfish message, when the body had one.
        detail: String,
        /// Where the refused account came from ([`Credentials::origin`]).
        account: String,
    },
    /// No answer: connection, TLS, timeout, a BMC address that is no URL.
    #[error("{reason}: login POST {uri}")]
    Transport {
        /// The session collection posted to.
        uri: String,
        /// What went wrong.
        reason: String,
    },
    /// The login's task ended without an answer (it panicked, or its runtime shut down).
    #[error("the login stopped: {reason}: login POST {uri}")]
    Stopped {
        /// The session collection posted to.
        uri: String,
        /// What the runtime said.
        reason: String,
    },
    /// The host deadline passed before the login had its answer.
    #[error("no answer within the host deadline of {} s (--host-timeout): login POST {uri}", .timeout.as_secs())]
    PastDeadline {
        /// The session collection posted to.
        uri: String,
        /// The host deadline (`--host-timeout`).
        timeout: Duration,
    },
}

/// What requests are sent with.
pub(super) enum Auth {
    Anonymous,
    Basic(Credentials),
    /// `uri`: the session to delete at logout, when the login's answer named one.
    Session {
        token: String,
        uri: Option<SessionUri>,
    },
}

/// What a login task gives back.
pub(super) type LoginOutcome = Result<(Auth, AuthMode), LoginError>;

/// What requests authenticate with, and the login that replaces it. Requests hold the read
/// side while they are sent, a login the write side: a request started while logging in
/// waits for the new session instead of going without one.
pub(super) struct Session {
    pub(super) auth: Auth,
    /// Bumped once a login's `auth` is stored, so that requests refused with an older one
    /// retry instead of logging in again themselves.
    pub(super) generation: u64,
    /// Whether a 401 led to a new login already.
    pub(super) relogged: bool,
    /// A login on its way, as a task of its own: a crawl dropped part-way (a signal, the host
    /// deadline) must not drop it, or the session the BMC opens is left there. Whoever takes
    /// the write side next (the next login, `logout`) waits for it.
    pub(super) pending: Option<tokio::task::JoinHandle<LoginOutcome>>,
}

impl Session {
    /// Before any login.
    pub(super) fn anonymous() -> Self {
        Session {
            auth: Auth::Anonymous,
            generation: 0,
            relogged: false,
            pending: None,
        }
    }
}
