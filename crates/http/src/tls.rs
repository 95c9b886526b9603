//! Certificate pinning for BMCs with self-signed certificates: the end-entity certificate
//! is accepted when its SHA-256 matches the pin, and handshake signatures are still verified.
//! BMC firmware updates often regenerate the certificate, so a mismatch says so plainly.

use std::sync::Arc;

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::{CryptoProvider, WebPkiSupportedAlgorithms};
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{DigitallySignedStruct, SignatureScheme};

use driftgate_model::pin::CertificatePin;

use super::certificate::{self, BadCertificate, CertificateDetails};

/// Accepts the end-entity certificate with `pin`, or any (`None`: `--insecure`), and still
/// verifies the handshake's signatures with it.
#[derive(Debug)]
struct PinVerifier {
    pin: Option<CertificatePin>,
    algorithms: WebPkiSupportedAlgorithms,
}

impl ServerCertVerifier for PinVerifier {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        let Some(pin) = &self.pin else {
            return Ok(ServerCertVerified::assertion());
        };
        let presented = CertificatePin::of(end_entity);
        if presented == *pin {
            Ok(ServerCertVerified::assertion())
        } else {
            Err(rustls::Error::General(format!(
                "certificate fingerprint changed: pinned {pin}, the BMC presented {presented} (a firmware update may have regenerated it; check it, then pin it again: driftgate inventory pin HOST --write)"
            )))
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(message, cert, dss, &self.algorithms)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(message, cert, dss, &self.algorithms)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.algorithms.supported_schemes()
    }
}

/// The cryptography of every TLS connection driftgate makes or serves: ring's, installed as
/// the process's default on first use, which is where a configuration built elsewhere (a test's
/// client) takes its own from. ring rather than aws-lc: aws-lc's constructor probed
/// the CPU and its object tables were relocated at every start, a cost each short command
/// (`baseline show`) paid without making a connection.
pub fn provider() -> Arc<CryptoProvider> {
    if let Some(installed) = CryptoProvider::get_default() {
        return Arc::clone(installed);
    }
    // Another thread may install it first: either way it is ring's.
    let _ = rustls::crypto::ring::default_provider().install_default();
    Arc::clone(CryptoProvider::get_default().expect("installed just above"))
}

/// Records the certificate a server presents and refuses it: a handshake that only learns
/// what the server would have us trust.
#[derive(Debug)]
struct Presented {
    leaf: std::sync::Mutex<Option<Vec<u8>>>,
    algorithms: WebPkiSupportedAlgorithms,
}

/// Why [`Presented`] ends every handshake it takes part in.
const ONLY_THE_CERTIFICATE: &str = "only the certificate was wanted";

impl ServerCertVerifier for Presented {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        *self
            .leaf
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(end_entity.to_vec());
        Err(rustls::Error::General(ONLY_THE_CERTIFICATE.into()))
    }

    fn verify_tls12_signature(
        &self,
        _message: &[u8],
        _cert: &CertificateDer<'_>,
        _dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        Err(rustls::Error::General(ONLY_THE_CERTIFICATE.into()))
    }

    fn verify_tls13_signature(
        &self,
        _message: &[u8],
        _cert: &CertificateDer<'_>,
        _dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        Err(rustls::Error::General(ONLY_THE_CERTIFICATE.into()))
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.algorithms.supported_schemes()
    }
}

/// The end-entity certificate a server presented, as it sent it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PresentedCertificate {
    /// The DER bytes.
    pub der: Vec<u8>,
    /// Their SHA-256: what `?pin=` trusts.
    pub pin: CertificatePin,
}

impl PresentedCertificate {
    /// What the certificate says about itself (see [`certificate::details`]).
    pub fn details(&self) -> Result<CertificateDetails, BadCertificate> {
        certificate::details(&self.der)
    }

    /// `sha256:… (subject …; issuer …; valid …)` at `now`, for a message; the pin alone when
    /// the certificate does not parse (the pin is what matters, and is still exact).
    pub fn describe(&self, now: jiff::Timestamp) -> String {
        match self.details() {
            Ok(details) => format!("{} ({})", self.pin, details.summary(now)),
            Err(error) => format!("{} ({error})", self.pin),
        }
    }
}

/// Why no certificate was learnt from a server.
#[derive(Debug, thiserror::Error)]
pub enum ProbeError {
    /// The URL names no host and port to connect to.
    #[error("{0}: no host and port to connect to")]
    NoAddress(String),
    /// The TCP connection failed (refused, no route, a name that does not resolve).
    #[error("cannot connect to {address}: {source}")]
    Connect {
        /// `host:port`.
        address: String,
        /// Why.
        source: std::io::Error,
    },
    /// Nothing (or not the certificate) arrived in time.
    #[error("no certificate from {address} within {} s", timeout.as_secs_f64())]
    TimedOut {
        /// `host:port`.
        address: String,
        /// The limit.
        timeout: std::time::Duration,
    },
    /// The server answered, but not with a TLS certificate (plain HTTP on that port, a TLS
    /// alert before the certificate).
    #[error("{address} sent no TLS certificate: {reason}")]
    NoCertificate {
        /// `host:port`.
        address: String,
        /// The TLS library's reason.
        reason: String,
    },
}

/// The certificate the server at `url` (`https://bmc[:port]…`) presents, learnt by a handshake
/// of its own that trusts nothing and sends nothing (no request, no credentials): what an
/// operator is told to pin when the certificate is not trusted, and what `inventory pin`
/// records. The whole probe (connection and handshake) takes at most `timeout`.
pub async fn presented_certificate(
    url: &str,
    timeout: std::time::Duration,
) -> Result<PresentedCertificate, ProbeError> {
    let no_address = || ProbeError::NoAddress(url.to_owned());
    let url = url::Url::parse(url).map_err(|_| no_address())?;
    let (Some(host), Some(port)) = (url.host_str(), url.port_or_known_default()) else {
        return Err(no_address());
    };
    let address = format!("{host}:{port}");
    let host = host
        .trim_start_matches('[')
        .trim_end_matches(']')
        .to_owned();
    let provider = provider();
    let presented = Arc::new(Presented {
        leaf: std::sync::Mutex::new(None),
        algorithms: provider.signature_verification_algorithms,
    });
    let no_certificate = |reason: String| ProbeError::NoCertificate {
        address: address.clone(),
        reason,
    };
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| no_certificate(e.to_string()))?
        .dangerous()
        .with_custom_certificate_verifier(Arc::clone(&presented) as Arc<dyn ServerCertVerifier>)
        .with_no_client_auth();
    let name = ServerName::try_from(host.clone()).map_err(|_| no_address())?;
    let handshake = async {
        let stream = tokio::net::TcpStream::connect((host.as_str(), port))
            .await
            .map_err(|source| ProbeError::Connect {
                address: address.clone(),
                source,
            })?;
        // The handshake fails by design once the certificate is recorded; any other failure
        // is why there is none.
        match tokio_rustls::TlsConnector::from(Arc::new(config))
            .connect(name, stream)
            .await
        {
            Ok(_) => Ok(None),
            Err(error) => Ok(Some(error.to_string())),
        }
    };
    let failure = tokio::time::timeout(timeout, handshake)
        .await
        .map_err(|_| ProbeError::TimedOut {
            address: address.clone(),
            timeout,
        })??;
    let leaf = presented
        .leaf
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .take();
    match leaf {
        Some(der) => Ok(PresentedCertificate {
            pin: CertificatePin::of(&der),
            der,
        }),
        None => {
            Err(no_certificate(failure.unwrap_or_else(|| {
                "the handshake ended without one".to_owned()
            })))
        }
    }
}

/// Why the server certificate was not trusted (`invalid peer certificate: UnknownIssuer`),
/// when that is what `error` is.
pub fn untrusted_certificate(error: &(dyn std::error::Error + 'static)) -> Option<String> {
    let mut source = Some(error);
    while let Some(cause) = source {
        // The TLS stream wraps rustls' error in `io::Error`s (nested), whose `source` skips
        // what they wrap: unwrap them by hand.
        let mut inner = cause;
        while let Some(wrapped) = inner
            .downcast_ref::<std::io::Error>()
            .and_then(std::io::Error::get_ref)
        {
            inner = wrapped;
        }
        if let Some(reason @ rustls::Error::InvalidCertificate(_)) =
            inner.downcast_ref::<rustls::Error>()
        {
            return Some(reason.to_string());
        }
        source = cause.source();
    }
    None
}

/// The TLS configurations of one run, shared by every BMC client it makes: the system's roots
/// are loaded once per run, not once per BMC (at 10,000 BMCs that was a fleet's worth of
/// certificate parsing). Cloning shares it.
#[derive(Debug, Clone, Default)]
pub struct TlsConfigs {
    system: Arc<std::sync::OnceLock<Result<rustls::ClientConfig, String>>>,
    built: Arc<std::sync::atomic::AtomicUsize>,
}

impl TlsConfigs {
    /// The configuration that trusts the system's roots (as reqwest's own does: the platform
    /// verifier), built when first asked for.
    pub fn system(&self) -> Result<rustls::ClientConfig, String> {
        self.system
            .get_or_init(|| {
                self.built
                    .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let provider = provider();
                let verifier = rustls_platform_verifier::Verifier::new(Arc::clone(&provider))
                    .map_err(|e| e.to_string())?;
                let mut config = rustls::ClientConfig::builder_with_provider(provider)
                    .with_safe_default_protocol_versions()
                    .map_err(|e| e.to_string())?
                    .dangerous()
                    .with_custom_certificate_verifier(Arc::new(verifier))
                    .with_no_client_auth();
                config.alpn_protocols = vec![b"http/1.1".to_vec()];
                Ok(config)
            })
            .clone()
    }

    /// How many configurations that load a root store this run built: one at most, however
    /// many BMCs it reads (a counter for tests).
    pub fn built(&self) -> usize {
        self.built.load(std::sync::atomic::Ordering::Relaxed)
    }
}

/// A TLS client configuration that trusts exactly the certificate with `pin`.
pub fn pinned_config(pin: CertificatePin) -> Result<rustls::ClientConfig, rustls::Error> {
    verifying_config(Some(pin))
}

/// A TLS client configuration that trusts any certificate (`--insecure`).
pub fn insecure_config() -> Result<rustls::ClientConfig, rustls::Error> {
    verifying_config(None)
}

/// A TLS client configuration that trusts only the CAs of the PEM bundle `pem`, or why not.
pub fn ca_config(pem: &[u8]) -> Result<rustls::ClientConfig, String> {
    use rustls::pki_types::pem::PemObject as _;
    let mut roots = rustls::RootCertStore::empty();
    for certificate in CertificateDer::pem_slice_iter(pem) {
        let certificate = certificate.map_err(|e| e.to_string())?;
        roots.add(certificate).map_err(|e| e.to_string())?;
    }
    if roots.is_empty() {
        return Err("no certificate in it".to_owned());
    }
    Ok(rustls::ClientConfig::builder_with_provider(provider())
        .with_safe_default_protocol_versions()
        .map_err(|e| e.to_string())?
        .with_root_certificates(roots)
        .with_no_client_auth())
}

/// [`pinned_config`] of `pin`, or [`insecure_config`] without one.
fn verifying_config(pin: Option<CertificatePin>) -> Result<rustls::ClientConfig, rustls::Error> {
    let provider = provider();
    let verifier = PinVerifier {
        pin,
        algorithms: provider.signature_verification_algorithms,
    };
    let mut config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()?
        .dangerous()
        .with_custom_certificate_verifier(Arc::new(verifier))
        .with_no_client_auth();
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(config)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};

    /// A TLS server on 127.0.0.1 presenting `der` (with `key`): its URL, and what each
    /// connection sent after the handshake (nothing, for the probe).
    async fn tls_server(der: Vec<u8>, key: Vec<u8>) -> (String, tokio::task::JoinHandle<Vec<u8>>) {
        let config = rustls::ServerConfig::builder_with_provider(provider())
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_no_client_auth()
            .with_single_cert(
                vec![CertificateDer::from(der)],
                rustls::pki_types::PrivateKeyDer::try_from(key).unwrap(),
            )
            .unwrap();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("https://{}", listener.local_addr().unwrap());
        let served = tokio::spawn(async move {
            let (stream, _) = listener.accept().await.unwrap();
            let mut received = Vec::new();
            if let Ok(mut tls) = tokio_rustls::TlsAcceptor::from(Arc::new(config))
                .accept(stream)
                .await
            {
                let _ = tls.read_to_end(&mut received).await;
            }
            received
        });
        (url, served)
    }

    #[tokio::test]
    async fn the_probe_learns_the_certificate_and_sends_nothing() {
        let certified = rcgen::generate_simple_self_signed(vec!["bmc01".to_owned()]).unwrap();
        let der = certified.cert.der().to_vec();
        let (url, served) = tls_server(der.clone(), certified.signing_key.serialize_der()).await;
        let presented = presented_certificate(&url, Duration::from_secs(5))
            .await
            .unwrap();
        assert_eq!(presented.der, der);
        assert_eq!(presented.pin, CertificatePin::of(&der));
        assert!(presented.details().unwrap().is_self_signed());
        assert!(
            presented
                .describe(jiff::Timestamp::now())
                .starts_with(&format!(
                    "{} (subject CN=rcgen self signed cert;",
                    presented.pin
                )),
            "{}",
            presented.describe(jiff::Timestamp::now())
        );
        // The handshake never completed: the server read no request.
        assert_eq!(served.await.unwrap(), b"");
    }

    #[tokio::test]
    async fn no_certificate_is_told_by_why() {
        // Nothing listens.
        let closed = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = closed.local_addr().unwrap();
        drop(closed);
        let refused = presented_certificate(&format!("https://{address}"), Duration::from_secs(5))
            .await
            .unwrap_err();
        assert!(matches!(refused, ProbeError::Connect { .. }), "{refused}");
        assert!(
            refused.to_string().contains(&address.to_string()),
            "{refused}"
        );

        // Plain HTTP on the port.
        let http = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = http.local_addr().unwrap();
        tokio::spawn(async move {
            let (mut stream, _) = http.accept().await.unwrap();
            let _ = stream
                .write_all(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")
                .await;
        });
        let plain = presented_certificate(&format!("https://{address}"), Duration::from_secs(5))
            .await
            .unwrap_err();
        assert!(matches!(plain, ProbeError::NoCertificate { .. }), "{plain}");

        // Accepts and never answers: the probe ends at its timeout.
        let silent = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = silent.local_addr().unwrap();
        let held = tokio::spawn(async move { silent.accept().await });
        let started = std::time::Instant::now();
        let hung = presented_certificate(&format!("https://{address}"), Duration::from_millis(300))
            .await
            .unwrap_err();
        assert!(matches!(hung, ProbeError::TimedOut { .. }), "{hung}");
        assert!(started.elapsed() < Duration::from_secs(3));
        drop(held);

        let nowhere = presented_certificate("mockup:bmc", Duration::from_secs(1))
            .await
            .unwrap_err();
        assert!(matches!(nowhere, ProbeError::NoAddress(_)), "{nowhere}");
    }

    #[test]
    fn one_run_builds_one_system_configuration_for_all_its_clients() {
        use crate::connections::client;
        use crate::trust::TlsTrust;
        let timeout = std::time::Duration::from_secs(15);
        let run = TlsConfigs::default();
        for n in 0..50 {
            let base = format!("https://bmc-{n}.example.com");
            // Each BMC's connections get a copy of the run's configurations, as a fleet's do.
            client(&TlsTrust::System, &run.clone(), &base, timeout).unwrap();
        }
        assert_eq!(run.built(), 1);
        // Another run builds its own.
        let other = TlsConfigs::default();
        client(
            &TlsTrust::System,
            &other,
            "https://bmc.example.com",
            timeout,
        )
        .unwrap();
        assert_eq!((run.built(), other.built()), (1, 1));
        // Pins and --insecure need no root store.
        let pinned = TlsConfigs::default();
        let pin = CertificatePin::parse(&format!("sha256:{}", "ab".repeat(32))).unwrap();
        client(
            &TlsTrust::Pinned(pin),
            &pinned,
            "https://bmc.example.com",
            timeout,
        )
        .unwrap();
        client(
            &TlsTrust::Insecure,
            &pinned,
            "https://bmc.example.com",
            timeout,
        )
        .unwrap();
        assert_eq!(pinned.built(), 0);
    }

    #[test]
    fn pins_parse_with_or_without_colons() {
        let hex = "ab".repeat(32);
        let pin = CertificatePin::parse(&format!("sha256:{hex}")).unwrap();
        assert_eq!(pin.to_string(), format!("sha256:{hex}"));
        let colons = hex
            .as_bytes()
            .chunks(2)
            .map(|c| std::str::from_utf8(c).unwrap())
            .collect::<Vec<_>>()
            .join(":");
        assert_eq!(
            CertificatePin::parse(&format!("sha256:{colons}")),
            Some(pin)
        );
        for bad in [
            "",
            "sha1:ab",
            "sha256:abc",
            &format!("md5:{hex}"),
            &format!("sha256:{}", "zz".repeat(32)),
        ] {
            assert_eq!(CertificatePin::parse(bad), None, "{bad}");
        }
    }
}
