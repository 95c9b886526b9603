//! The live Redfish client, on driftgate-http's connections, TLS and pins: session login with
//! Basic fallback, per-request timeout, response size cap, redirect cap and bounded retries
//! that honour `Retry-After`. It returns JSON and never interprets it.
//!
//! [`HttpFetch`] (`fetcher.rs`) keeps to the host's deadline; `authorization` is what its
//! requests authenticate with, `auth` logs in (again, after a 401), `logout` deletes the
//! session, `http` sends one request, a GET with its retries and limits, `write` one PATCH or
//! POST (`fix apply`), `target` where one may go, `options` the client's limits.

mod auth;
mod authorization;
mod fetcher;
mod http;
mod logout;
mod options;
mod target;
mod write;

pub use authorization::{AuthMode, LoginError};
pub use fetcher::HttpFetch;
pub use logout::{LogoutError, abandoned_sessions_deleted};
pub use options::ClientOptions;
pub use target::{TargetError, WriteTarget, sent_path};
pub use write::{Answer, WriteMethod};
