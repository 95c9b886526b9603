//! Which certificates a client accepts, and why a client could not be built.

use driftgate_model::pin::CertificatePin;

/// How the server's certificate is checked.
#[derive(Debug, Clone)]
pub enum TlsTrust {
    /// The system's trusted roots.
    System,
    /// Only the CAs of a PEM bundle.
    CaBundle(Vec<u8>),
    /// Exactly the certificate with this SHA-256.
    Pinned(CertificatePin),
    /// Nothing (`--insecure`).
    Insecure,
}

/// Why a client for a BMC (or a vCenter) could not be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ClientError {
    /// The address is not a URL.
    #[error("{base}: not a URL ({reason})")]
    NotAUrl {
        /// The address.
        base: String,
        /// The URL parser's message.
        reason: String,
    },
    /// The CA file (`--ca-cert`, the inventory's `ca_cert`) is not a PEM bundle.
    #[error("{base}: CA file: {reason}")]
    CaFile {
        /// The service the CA file was given for.
        base: String,
        /// Why it could not be read.
        reason: String,
    },
    /// The TLS configuration for a pinned certificate could not be built.
    #[error("{base}: TLS configuration: {reason}")]
    Tls {
        /// The service.
        base: String,
        /// Why.
        reason: String,
    },
}
