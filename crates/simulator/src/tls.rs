//! The simulator's HTTPS identity: a fresh self-signed certificate or a given PEM pair, and
//! the SHA-256 pin clients (and written inventories) use to trust it.

use std::sync::Arc;

/// A self-signed certificate for `127.0.0.1` and `localhost`: (TLS acceptor, SHA-256 pin).
/// Every BMC of a fleet presents it; a pinned client checks the fingerprint, not the name.
pub fn self_signed() -> Result<(tokio_rustls::TlsAcceptor, String), String> {
    let certified =
        rcgen::generate_simple_self_signed(vec!["localhost".to_owned(), "127.0.0.1".to_owned()])
            .map_err(|e| format!("cannot generate a certificate: {e}"))?;
    let der = certified.cert.der().to_vec();
    let key = certified.signing_key.serialize_der();
    acceptor(vec![der], key)
}

/// An acceptor for a PEM certificate chain and key: (TLS acceptor, SHA-256 pin of the leaf).
pub fn from_pem(
    cert_pem: &[u8],
    key_pem: &[u8],
) -> Result<(tokio_rustls::TlsAcceptor, String), String> {
    use rustls::pki_types::pem::PemObject as _;
    let chain: Vec<Vec<u8>> = rustls::pki_types::CertificateDer::pem_slice_iter(cert_pem)
        .map(|c| c.map(|c| c.to_vec()))
        .collect::<Result<_, _>>()
        .map_err(|e| format!("certificate: {e}"))?;
    let key = rustls::pki_types::PrivateKeyDer::from_pem_slice(key_pem)
        .map_err(|e| format!("key: {e}"))?;
    acceptor(chain, key.secret_der().to_vec())
}

fn acceptor(
    chain: Vec<Vec<u8>>,
    key: Vec<u8>,
) -> Result<(tokio_rustls::TlsAcceptor, String), String> {
    use rustls::pki_types::{CertificateDer, PrivateKeyDer};
    let pin = chain
        .first()
        .map(|leaf| driftgate_model::pin::CertificatePin::of(leaf).to_string())
        .ok_or("no certificate")?;
    let key = PrivateKeyDer::try_from(key).map_err(|e| format!("key: {e}"))?;
    let chain = chain.into_iter().map(CertificateDer::from).collect();
    // A server needs no process-wide default provider: it is given its own.
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| e.to_string())?
        .with_no_client_auth()
        .with_single_cert(chain, key)
        .map_err(|e| format!("certificate and key: {e}"))?;
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok((tokio_rustls::TlsAcceptor::from(Arc::new(config)), pin))
}
