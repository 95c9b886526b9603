//! How a run talks to live BMCs: the account, the trust, the client's limits, and what the run
//! shares between its BMCs (the registries read, a look at a root ahead of its host's turn).

use std::path::PathBuf;

use driftgate_http::{Credentials, TlsTrust};
use driftgate_model::pin::CertificatePin;

use crate::attributes;
use crate::client::ClientOptions;
use crate::root_look::RootLook;

/// How to talk to live BMCs.
#[derive(Debug, Clone, Default)]
pub struct RedfishOptions {
    /// The account, when the BMC needs one.
    pub credentials: Option<Credentials>,
    /// PEM bundle of the CAs to trust instead of the system's.
    pub ca_cert: Option<Vec<u8>>,
    /// Accept any certificate.
    pub insecure: bool,
    /// Client limits.
    pub client: ClientOptions,
    /// Requests in flight per BMC.
    pub concurrency: usize,
    /// Write every response read here, in the DMTF mockup layout.
    pub save_mockup: Option<PathBuf>,
    /// The attribute registries the run has read, shared by its BMCs.
    pub registries: attributes::KnownRegistries,
    /// A look at the BMC's service root before the host's turn (a run of many hosts looks
    /// ahead): the crawl starts from the root it read instead of asking again.
    pub root: Option<RootLook>,
}

impl RedfishOptions {
    /// How a server's certificate is checked: `pin` when the location gives one, else
    /// `--insecure`, else the CA bundle, else the system's roots. BMCs and vCenters alike.
    pub fn trust(&self, pin: Option<&CertificatePin>) -> TlsTrust {
        match (pin, &self.ca_cert, self.insecure) {
            (Some(pin), _, _) => TlsTrust::Pinned(pin.clone()),
            (None, _, true) => TlsTrust::Insecure,
            (None, Some(pem), false) => TlsTrust::CaBundle(pem.clone()),
            (None, None, false) => TlsTrust::System,
        }
    }
}
