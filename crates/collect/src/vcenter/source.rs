//! The vCenter source of one host: the hosts of its vCenter read once per run (one session,
//! shared by every host of the run on that vCenter, logged out when read), the host found by
//! its exact name, its properties turned into facts.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use tokio::sync::OnceCell;

use super::facts::host_facts;
use super::location::VcenterLocation;
use super::model::Host;
use super::session::{Session, VcenterError};
use crate::redfish::{LOGOUT_GRACE, RedfishOptions};
use crate::{Cancel, SourceCapture, SourceError};
use driftgate_http::{Credentials, TlsTrust};
use driftgate_snapshot::SourceStatus;

/// What reading one vCenter gave: its hosts, or why it could not be read.
type Read = Result<Arc<Vec<Host>>, String>;

/// The hosts each vCenter of a run gave, read once: every host of the run on one vCenter
/// shares its one session. Cloned with the capture options; the clones share the cache.
#[derive(Clone, Default)]
pub struct VcenterReads {
    reads: Arc<Mutex<HashMap<u64, Arc<OnceCell<Read>>>>>,
}

/// The keys are digests of accounts: never printed.
impl std::fmt::Debug for VcenterReads {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let count = self.reads.lock().map(|r| r.len()).unwrap_or(0);
        write!(f, "VcenterReads({count} vCenters)")
    }
}

impl VcenterReads {
    /// The read of the vCenter `key` (its address, account and trust), made by `read` the first
    /// time it is asked for.
    async fn get<F>(&self, key: u64, read: F) -> Read
    where
        F: std::future::Future<Output = Read>,
    {
        let cell = Arc::clone(
            self.reads
                .lock()
                .expect("no panic while holding the lock")
                .entry(key)
                .or_default(),
        );
        cell.get_or_init(|| read).await.clone()
    }
}

/// What one shared read stands for: the vCenter, the account (its password too: two accounts
/// of one user name are two sessions) and the trust. Hashed, so that the cache holds no
/// secret.
fn read_key(location: &VcenterLocation, credentials: &Credentials, trust: &TlsTrust) -> u64 {
    use std::hash::{Hash as _, Hasher as _};
    let mut hasher = std::hash::DefaultHasher::new();
    location.base.hash(&mut hasher);
    credentials.username.hash(&mut hasher);
    credentials.password.hash(&mut hasher);
    match trust {
        TlsTrust::Pinned(pin) => pin.to_string().hash(&mut hasher),
        TlsTrust::CaBundle(pem) => pem.hash(&mut hasher),
        TlsTrust::Insecure => "insecure".hash(&mut hasher),
        TlsTrust::System => "system".hash(&mut hasher),
    }
    hasher.finish()
}

/// Reads host `location.host` through its vCenter, with the account and trust of `options`
/// (a user named in the location replaces the account's user name).
pub async fn capture(
    location: &VcenterLocation,
    options: &RedfishOptions,
    reads: &VcenterReads,
    cancel: &Cancel,
) -> SourceCapture {
    let target = location.to_string();
    let failed = |error: SourceError| SourceCapture::failed(target.clone(), error);
    if cancel.is_cancelled() {
        return failed(SourceError::Interrupted);
    }
    let Some(mut credentials) = options.credentials.clone() else {
        return failed(SourceError::one(format!(
            "{}: no account for the vCenter: DRIFTGATE_BMC_USERNAME and DRIFTGATE_BMC_PASSWORD, --bmc-username, --credentials-file, or the host's `credentials` in the inventory",
            location.base
        )));
    };
    if let Some(user) = &location.user {
        credentials.username = user.clone();
    }
    let trust = options.trust(location.pin.as_ref());
    let key = read_key(location, &credentials, &trust);
    let read = reads.get(key, read_all(location, trust, credentials, options, cancel));
    let hosts = match read.await {
        Ok(hosts) => hosts,
        Err(why) if cancel.is_cancelled() => {
            tracing::info!("{why}");
            return failed(SourceError::Interrupted);
        }
        Err(why) => return failed(SourceError::one(why)),
    };
    let named: Vec<&Host> = hosts
        .iter()
        .filter(|h| h.name.as_deref() == Some(&location.host))
        .collect();
    if named.len() > 1 {
        return failed(SourceError::one(format!(
            "{}: the vCenter has {} hosts named {:?}: which one is meant cannot be told",
            location.base,
            named.len(),
            location.host
        )));
    }
    let Some(host) = named.first() else {
        let mut names: Vec<&str> = hosts.iter().filter_map(|h| h.name.as_deref()).collect();
        names.sort_unstable();
        return failed(SourceError::one(format!(
            "{}: the vCenter knows no host named {:?} (matched exactly; it has {})",
            location.base,
            location.host,
            if names.is_empty() {
                "none".to_owned()
            } else {
                names.join(", ")
            }
        )));
    };
    let (facts, errors) = host_facts(&location.host, host);
    let errors: Vec<String> = errors
        .into_iter()
        .map(|e| format!("{}: {e}", location.base))
        .collect();
    SourceCapture {
        status: match (errors.is_empty(), facts.is_empty()) {
            (true, _) => SourceStatus::Complete,
            (false, false) => SourceStatus::Partial,
            (false, true) => SourceStatus::Failed,
        },
        error: (!errors.is_empty()).then(|| SourceError::unread(errors)),
        facts,
        notes: Vec::new(),
        target,
    }
}

/// Opens a session, reads every host, logs out: within the host deadline, and on a stop (or
/// the deadline) logs out within [`LOGOUT_GRACE`] before giving up.
async fn read_all(
    location: &VcenterLocation,
    trust: TlsTrust,
    credentials: Credentials,
    options: &RedfishOptions,
    cancel: &Cancel,
) -> Read {
    let deadline = tokio::time::Instant::now() + options.client.host_timeout;
    let past = || {
        format!(
            "{}: no answer within the host deadline of {} s (--host-timeout)",
            location.base,
            options.client.host_timeout.as_secs()
        )
    };
    let connect = Session::connect(
        &location.base,
        &trust,
        options.client.timeout,
        options.client.max_body,
    );
    // No session exists until the login is sent: a stop before it leaves nothing behind.
    let session = tokio::select! {
        biased;
        () = cancel.cancelled() => return Err(format!("{}: stopped before the login", location.base)),
        connected = tokio::time::timeout_at(deadline, connect) => connected.map_err(|_| past())?.map_err(|e| e.to_string())?,
    };
    let read = async {
        session.login(&credentials).await?;
        session.hosts().await
    };
    let read = tokio::select! {
        biased;
        () = cancel.cancelled() => Err(format!("{}: stopped while reading the hosts", location.base)),
        read = tokio::time::timeout_at(deadline, read) => read.map_err(|_| past()).and_then(|r| r.map_err(|e: VcenterError| e.to_string())),
    };
    // Once the login was sent a session may exist, whatever came back: it is logged out (a
    // vCenter limits sessions too), also after a stop or the deadline, within the grace.
    match tokio::time::timeout(LOGOUT_GRACE, session.logout()).await {
        Ok(Ok(())) => tracing::info!("{}: logged out", location.base),
        Ok(Err(e)) => tracing::warn!("{}: could not log out: {e}", location.base),
        Err(_) => tracing::warn!(
            "{}: the logout got no answer within {LOGOUT_GRACE:?}",
            location.base
        ),
    }
    read.map(Arc::new)
}
