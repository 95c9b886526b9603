//! A look at a BMC before its turn in a run of many hosts: its service root, read without a
//! login (Redfish serves it to anyone) and timed. A first night learns from it which BMCs are
//! slow while they still wait, so they can start first; the capture then starts its crawl
//! from that root instead of asking for it again, so the look costs the BMC no request.

use std::fmt;
use std::sync::Arc;

use futures::FutureExt as _;
use futures::future::{BoxFuture, Shared};

use super::client::HttpFetch;
use super::fetch::Fetch as _;
use super::{RedfishLocation, RedfishOptions, crawl};

/// The service root a look read of one BMC, as it arrived.
#[derive(Debug, Clone)]
pub struct LookedRoot {
    /// The BMC (`https://bmc[:port]`) it was read from.
    pub base: String,
    /// The body, when the BMC answered it with a success; `None` when it wanted a login,
    /// failed, or could not be reached.
    pub body: Option<Arc<[u8]>>,
}

/// A look at a BMC's service root, on its way or ended; cloned, every clone waits for the same
/// answer. The capture of its host awaits it instead of asking for the root itself.
#[derive(Clone)]
pub struct RootLook(Shared<BoxFuture<'static, Option<LookedRoot>>>);

impl RootLook {
    /// A look that is the answer of `look` (`None`: the host has no BMC to look at).
    pub fn new(look: impl Future<Output = Option<LookedRoot>> + Send + 'static) -> Self {
        RootLook(look.boxed().shared())
    }

    /// The body the look read of the BMC at `base`, once it has ended; `None` when it read
    /// none or looked at another BMC.
    pub async fn body_for(&self, base: &str) -> Option<Arc<[u8]>> {
        let looked = self.0.clone().await?;
        (looked.base == base.trim_end_matches('/'))
            .then_some(looked.body)
            .flatten()
    }

    /// Waits for the look to end; whether it looked at a BMC at all.
    pub async fn read_a_bmc(&self) -> bool {
        self.0.clone().await.is_some()
    }
}

impl fmt::Debug for RootLook {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = match self.0.peek() {
            Some(Some(looked)) => format!("read {}", looked.base),
            Some(None) => "nothing to look at".to_owned(),
            None => "on its way".to_owned(),
        };
        f.debug_tuple("RootLook").field(&state).finish()
    }
}

/// Reads the service root of `location` without a login, with a client of its own built from
/// `options` (trust, time limits). A mockup folder is not looked at: `None`.
pub async fn look_at_root(
    location: &RedfishLocation,
    options: &RedfishOptions,
) -> Option<LookedRoot> {
    let RedfishLocation::Live { base, pin } = location else {
        return None;
    };
    let trust = options.trust(pin.as_ref());
    let body = match HttpFetch::new(base, &trust, options.client.clone()) {
        // No account is given: a BMC that wants one for its root is refused nothing more.
        Ok(http) => match http.get_body(crawl::ROOT).await {
            Ok(body) => Some(Arc::from(body)),
            Err(error) => {
                tracing::debug!("{base}: the service root without a login: {error}");
                None
            }
        },
        Err(error) => {
            tracing::debug!("{base}: {error}");
            None
        }
    };
    Some(LookedRoot {
        base: base.trim_end_matches('/').to_owned(),
        body,
    })
}
