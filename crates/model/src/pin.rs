//! A certificate pin (`sha256:` of the end-entity certificate): what an operator writes in a
//! BMC's `?pin=` and what the simulator prints for its self-signed certificate.

use sha2::{Digest as _, Sha256};

/// A `sha256:` pin of a server certificate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CertificatePin([u8; 32]);

impl CertificatePin {
    /// Parses `sha256:HEX` (64 hex digits; `:` between bytes allowed, as `openssl x509
    /// -fingerprint` prints them).
    pub fn parse(text: &str) -> Option<Self> {
        let hex: String = text
            .strip_prefix("sha256:")?
            .chars()
            .filter(|c| *c != ':')
            .collect();
        let bytes = hex::decode(hex).ok()?;
        Some(CertificatePin(bytes.try_into().ok()?))
    }

    /// The pin of a DER certificate.
    pub fn of(certificate: &[u8]) -> Self {
        CertificatePin(Sha256::digest(certificate).into())
    }
}

impl std::fmt::Display for CertificatePin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "sha256:{}", hex::encode(self.0))
    }
}
