//! The `redfish` source: a BMC over HTTPS (on [`driftgate_http`]), or an offline mockup folder,
//! crawled into normalized NIC, firmware and BIOS facts. Live and offline share one crawler;
//! only the [`fetch::Fetch`] differs.

pub mod attributes;
pub mod client;
pub mod crawl;
pub mod fetch;
pub mod links;
pub mod location;
pub mod look;
pub mod normalize;
pub mod odata_type;
pub mod options;
mod protocols;
mod root_look;
pub mod session;
pub mod settings;
pub mod shape;
#[cfg(test)]
mod test_support;
mod vendors;

use std::path::Path;
use std::time::Duration;

use serde_json::Value;

use client::{HttpFetch, LoginError};
use driftgate_fs::{Folder, WriteOptions};
use driftgate_http::cancel::Cancel;
use driftgate_model::mockup_dir::MockupDir;
use driftgate_snapshot::SourceStatus;
use driftgate_snapshot::source::{SourceCapture, SourceError};
use fetch::Fetch;
use location::describe_location;
pub use location::{BadRedfishLocation, RedfishLocation};
pub use options::RedfishOptions;

/// Reads the BMC at `location`, on the caller's runtime. Once `cancel` is requested no new
/// request starts, the session (if one was opened) is deleted and the capture fails as
/// interrupted. A BMC that hangs costs at most its host deadline
/// (`options.client.host_timeout`) and [`LOGOUT_GRACE`] to delete the session.
pub async fn capture(
    location: &RedfishLocation,
    options: &RedfishOptions,
    cancel: &Cancel,
) -> SourceCapture {
    let failed = SourceCapture::failed;
    if cancel.is_cancelled() {
        return failed(describe_location(location), SourceError::Interrupted);
    }
    let concurrency = if options.concurrency == 0 {
        4
    } else {
        options.concurrency
    };
    match location {
        RedfishLocation::Mockup(dir) => match MockupDir::open(dir) {
            Ok(mockup) => tokio::select! {
                // A stop already requested wins: no request is started at all.
                biased;
                () = cancel.cancelled() => failed(mockup.target(), SourceError::Interrupted),
                capture = capture_from(&mockup, concurrency, options) => capture,
            },
            Err(e) => failed(describe_location(location), SourceError::one(e.to_string())),
        },
        RedfishLocation::Live { base, pin } => {
            let trust = options.trust(pin.as_ref());
            let http = match HttpFetch::new(base, &trust, options.client.clone()) {
                Ok(http) => http,
                Err(e) => return failed(base.clone(), SourceError::one(e.to_string())),
            };
            let deadline = http.deadline();
            // The root a look read before the host's turn is this capture's first answer: the
            // same request, made earlier. One still on its way is waited for, as the GET would be.
            let root = match &options.root {
                Some(look) => tokio::select! {
                    biased;
                    () = cancel.cancelled() => return failed(base.clone(), SourceError::Interrupted),
                    root = tokio::time::timeout_at(deadline, look.body_for(base)) => root.ok().flatten(),
                },
                None => None,
            };
            // A login hangs as long as --bmc-timeout (and its retries): neither a stop nor the
            // host deadline waits for it. The login goes on as a task of its own, whose session
            // the logout waits for (within its grace) and deletes.
            let login = tokio::select! {
                // A stop already requested wins: no request is started at all.
                biased;
                () = cancel.cancelled() => None,
                login = tokio::time::timeout_at(deadline, http.login(options.credentials.as_ref())) => Some(login),
            };
            let logged_in = matches!(login, Some(Ok(_)));
            let error = match login {
                Some(Ok(Ok(_))) => None,
                Some(Ok(Err(error))) => {
                    return failed(
                        base.clone(),
                        SourceError::Login {
                            target: base.clone(),
                            reason: error.to_string(),
                        },
                    );
                }
                Some(Err(_)) => Some(SourceError::Login {
                    target: base.clone(),
                    reason: LoginError::PastDeadline {
                        uri: session::SESSIONS.to_owned(),
                        timeout: options.client.host_timeout,
                    }
                    .to_string(),
                }),
                None => Some(SourceError::Interrupted),
            };
            let mut capture = match error {
                Some(error) => failed(base.clone(), error),
                // On cancel the crawl is dropped: requests in flight are abandoned, none starts.
                None => tokio::select! {
                    // A stop already requested wins: no request is started at all.
                    biased;
                    () = cancel.cancelled() => failed(base.clone(), SourceError::Interrupted),
                    capture = capture_from_root(&http, concurrency, options, root.as_deref()) => capture,
                },
            };
            // The session is deleted whatever the crawl found. Failing to says nothing about the
            // facts, but an open session counts against the BMC's limit: say so.
            if let Err(e) = logout(&http, cancel, deadline, logged_in).await {
                capture
                    .notes
                    .push(format!("{base}: could not delete the session: {e}"));
            }
            capture
        }
    }
}

/// How long deleting the session may take once the capture is being stopped or its host
/// deadline passed: whoever stops it (a pipeline's timeout, an operator, the fleet's
/// schedule) is waiting. A deletion that needs longer (a login still on its way, a slow
/// DELETE) goes on in the background while the run lasts (see `client::logout`); the host's
/// result does not wait for it.
pub const LOGOUT_GRACE: Duration = Duration::from_secs(2);

/// Deletes the session (after the login on its way, if any), within the host deadline and
/// [`LOGOUT_GRACE`], or only the grace once the capture is being stopped; `logged_in` says
/// whether the login had its answer (else the wait is for it).
async fn logout(
    http: &HttpFetch,
    cancel: &Cancel,
    deadline: tokio::time::Instant,
    logged_in: bool,
) -> Result<(), client::LogoutError> {
    let now = tokio::time::Instant::now();
    let (until, unanswered) = if cancel.is_cancelled() {
        let unanswered = if !logged_in {
            client::LogoutError::LoginUnanswered(LOGOUT_GRACE)
        } else {
            client::LogoutError::TimedOut(LOGOUT_GRACE)
        };
        (now + LOGOUT_GRACE, unanswered)
    } else {
        (
            deadline.max(now) + LOGOUT_GRACE,
            client::LogoutError::PastDeadline(LOGOUT_GRACE),
        )
    };
    tokio::time::timeout_at(until, http.logout())
        .await
        .unwrap_or(Err(unanswered))
}

/// A whole Redfish capture (crawl, optional saved copy, normalization, shape check) through
/// any [`Fetch`]: the live client, a mockup folder, or a test's service held in memory all run
/// this one path.
pub async fn capture_from<F: Fetch>(
    fetch: &F,
    concurrency: usize,
    options: &RedfishOptions,
) -> SourceCapture {
    capture_from_root(fetch, concurrency, options, None).await
}

/// [`capture_from`], starting from the service root `root` already read without a login (see
/// [`look`]) when it is given and whole.
pub async fn capture_from_root<F: Fetch>(
    fetch: &F,
    concurrency: usize,
    options: &RedfishOptions,
    root: Option<&[u8]>,
) -> SourceCapture {
    let target = fetch.target();
    let keep = options.save_mockup.is_some();
    // A saved mockup is the BMC's answers as they were; judging reads less of a registry.
    let registries = if keep {
        crawl::Registries::Whole
    } else {
        crawl::Registries::Judged(&options.registries)
    };
    let crawled = crawl::crawl_from(fetch, concurrency, keep, registries, root).await;
    let mut errors: Vec<String> = crawled
        .errors
        .iter()
        .map(|e| format!("{target}: {e}"))
        .collect();
    if let Some(dir) = &options.save_mockup
        && let Err(e) = save_mockup(dir, &crawled.fetched)
    {
        errors.push(format!("--save-mockup {}: {e}", dir.display()));
    }
    let Some(held) = &crawled.inventory else {
        return SourceCapture::failed(target, summarize(errors));
    };
    // Parsed again here, with no await until it is dropped: a runtime thread normalizes one
    // host at a time, so at most one host per thread holds its values.
    let inventory = &held.parse();
    let normalize::Normalized {
        facts,
        mut notes,
        problems,
        withheld,
        placeholders,
    } = normalize::normalize(inventory);
    // A service answering mostly `"N/A"` is not a host with few settings: say so.
    if placeholders.outnumber(facts.len()) {
        notes.push(format!(
            "most of what this service answered says nothing: {placeholders}, against {} facts kept",
            facts.len()
        ));
    }
    notes.extend(crawled.notes.iter().cloned());
    notes.extend(
        shape::check_pcie(inventory).iter().map(|problem| {
            format!("{problem} (a PCIe resource read only to name a port's firmware)")
        }),
    );
    notes.extend(
        shape::check_unjudged(inventory)
            .iter()
            .map(|problem| format!("{problem} (read for no fact: no judged fact depends on it)")),
    );
    for resource in &withheld {
        tracing::info!("{target}: withheld as secrets (no value kept): {resource}");
    }
    errors.extend(
        problems
            .iter()
            .map(|problem| format!("{target}: {problem}")),
    );
    errors.extend(
        shape::check(inventory)
            .iter()
            .map(|problem| format!("{target}: {problem}")),
    );
    // A service that yields nothing a gate could compare (no NIC setting, firmware version or
    // BIOS attribute; a port's identity alone is no evidence) is no evidence that nothing
    // changed: failed, with or without errors (which then say why it is empty).
    let nothing = !facts.keys().any(|path| is_evidence(path.as_str()));
    if nothing {
        errors.insert(
            0,
            format!("nothing found at {target}: {}", looked_at(inventory)),
        );
    }
    let status = if nothing {
        SourceStatus::Failed
    } else if errors.is_empty() {
        SourceStatus::Complete
    } else {
        SourceStatus::Partial
    };
    SourceCapture {
        notes: notes
            .iter()
            .map(|note| format!("{target}: {note}"))
            .collect(),
        target,
        facts,
        status,
        error: (!errors.is_empty()).then(|| summarize(errors)),
    }
}

/// Whether a fact says something a gate can compare: a NIC, firmware or BIOS fact other than
/// a port's identity (`nic/<key>/bmc/interface`, `adapter`, `port`, `function/<key>/mac`,
/// `function/<key>/id`, `firmware/inventory`), which only names what was found.
fn is_evidence(path: &str) -> bool {
    if let Some(rest) = path.strip_prefix("nic/") {
        let leaf = rest.split_once("/bmc/").map_or(rest, |(_, leaf)| leaf);
        let function_identity = leaf
            .strip_prefix("function/")
            .and_then(|f| f.split_once('/'))
            .is_some_and(|(_, leaf)| leaf == "mac" || leaf == "id");
        return !function_identity
            && !["interface", "adapter", "port", "firmware/inventory"].contains(&leaf);
    }
    path.starts_with("firmware/") || path.starts_with("bios/")
}

/// What a crawl looked at, for "nothing found at …": the collections and how many of each
/// resource they gave.
fn looked_at(inventory: &crawl::Inventory) -> String {
    let link = |name: &str| {
        crawl::link(&inventory.root, &[name]).map_or_else(
            || format!("no {name} in the service root"),
            |uri| uri.to_owned(),
        )
    };
    let interfaces: usize = inventory.systems.iter().map(|s| s.interfaces.len()).sum();
    let bios = inventory
        .systems
        .iter()
        .filter(|s| s.bios.is_some())
        .count();
    let ports: usize = inventory
        .adapters
        .iter()
        .map(|a| a.ports.len() + a.network_ports.len())
        .sum();
    let functions: usize = inventory.adapters.iter().map(|a| a.functions.len()).sum();
    format!(
        "no NIC, firmware or BIOS fact in {} systems ({interfaces} Ethernet interfaces, {bios} BIOS \
         resources) under {}, {} network adapters ({ports} ports, {functions} device functions) \
         under {}, {} firmware inventory entries under {}",
        inventory.systems.len(),
        link("Systems"),
        inventory.adapters.len(),
        link("Chassis"),
        inventory.firmware.len(),
        link("UpdateService"),
    )
}

/// The first errors, and how many more there were.
fn summarize(errors: Vec<String>) -> SourceError {
    const SHOWN: usize = 5;
    SourceError::first(errors, SHOWN)
}

/// Writes the responses as a DMTF mockup (`DIR/redfish/v1/…/index.json`), secrets removed.
/// A symbolic link where one of its folders belongs is refused.
pub fn save_mockup(
    dir: &Path,
    fetched: &std::collections::BTreeMap<String, Value>,
) -> std::io::Result<()> {
    // Every registry read types attributes, whatever their names say.
    let mut filter = driftgate_secrets::SecretFilter::new();
    fetched.values().for_each(|body| filter.add_registry(body));
    for (uri, body) in fetched {
        // A same-origin resource outside /redfish/v1 (an attribute registry) is saved too,
        // by its path: the mockup folder stands for the service's origin.
        let path = match uri.split_once("://") {
            Some((_, rest)) => &rest[rest.find('/').unwrap_or(rest.len())..],
            None => uri.as_str(),
        };
        let relative = path.trim_start_matches('/');
        let outside = relative.is_empty()
            || relative
                .split('/')
                .any(|s| s == ".." || s == "." || s.is_empty() || s.contains('\\'));
        if outside {
            continue;
        }
        // Each folder below `dir` is driftgate's: never entered through a link.
        let mut folder = Folder::create_at(dir)?;
        for segment in relative.split('/') {
            folder = folder.create_child(segment)?;
        }
        let mut body = body.clone();
        filter.remove_secrets(&mut body);
        let text = serde_json::to_string_pretty(&body).map_err(std::io::Error::other)?;
        folder.write_atomic(
            "index.json",
            format!("{text}\n").as_bytes(),
            WriteOptions::PRIVATE,
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests;
