//! What a look at a BMC's service root gives the capture of its host: the root as it arrived,
//! awaited by every clone of the look (see `look.rs`, which reads it).

use std::fmt;
use std::sync::Arc;

use futures::FutureExt as _;
use futures::future::{BoxFuture, Shared};

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
