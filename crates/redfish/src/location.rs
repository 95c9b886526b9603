//! Where a BMC is: a live service (`https://bmc[:port]`, optionally pinned) or a DMTF mockup
//! folder, as `--source redfish=…` and an inventory give it.

use std::path::PathBuf;

use driftgate_model::pin::CertificatePin;

/// Where a BMC is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RedfishLocation {
    /// A live service: `https://bmc[:port]` (or `http://` for simulators), optionally pinned.
    Live {
        /// `scheme://host[:port]`.
        base: String,
        /// `?pin=sha256:HEX`.
        pin: Option<CertificatePin>,
    },
    /// `mockup:DIR`, a DMTF mockup folder.
    Mockup(PathBuf),
}

/// Why a Redfish location does not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "invalid Redfish location {text:?}: {reason} (use https://bmc[:port][?pin=sha256:HEX], http://… for simulators, or mockup:DIR)"
)]
pub struct BadRedfishLocation {
    /// What was given (credentials removed).
    pub text: String,
    /// What is wrong.
    pub reason: &'static str,
}

impl RedfishLocation {
    /// Parses a location.
    pub fn parse(text: &str) -> Result<Self, BadRedfishLocation> {
        let bad = |reason| BadRedfishLocation {
            text: driftgate_http::redact_userinfo(text),
            reason,
        };
        if let Some(dir) = text.strip_prefix("mockup:") {
            return if dir.is_empty() {
                Err(bad("empty folder"))
            } else {
                Ok(RedfishLocation::Mockup(PathBuf::from(dir)))
            };
        }
        let url = url::Url::parse(text).map_err(|_| bad("not a URL"))?;
        if !matches!(url.scheme(), "https" | "http") {
            return Err(bad("the scheme must be https (or http for a simulator)"));
        }
        if !url.username().is_empty() || url.password().is_some() {
            return Err(bad(
                "credentials do not belong in the URL; use DRIFTGATE_BMC_USERNAME/PASSWORD, a credentials file or --password-stdin",
            ));
        }
        let host = url.host_str().ok_or_else(|| bad("no host"))?;
        if !matches!(url.path(), "" | "/" | "/redfish/v1" | "/redfish/v1/") {
            return Err(bad(
                "give only the BMC address; driftgate starts at /redfish/v1",
            ));
        }
        let mut pin = None;
        for (key, value) in url.query_pairs() {
            match key.as_ref() {
                "pin" => {
                    pin = Some(
                        CertificatePin::parse(&value)
                            .ok_or_else(|| bad("pin must be sha256: and 64 hex digits"))?,
                    )
                }
                _ => return Err(bad("unknown query parameter (only pin=sha256:HEX)")),
            }
        }
        if pin.is_some() && url.scheme() != "https" {
            return Err(bad("a certificate pin needs https"));
        }
        let port = url.port().map(|p| format!(":{p}")).unwrap_or_default();
        let host = if host.contains(':') {
            format!("[{host}]")
        } else {
            host.to_owned()
        };
        Ok(RedfishLocation::Live {
            base: format!("{}://{host}{port}", url.scheme()),
            pin,
        })
    }

    /// Whether requests go unencrypted (a simulator or lab).
    pub fn is_plain_http(&self) -> bool {
        matches!(self, RedfishLocation::Live { base, .. } if base.starts_with("http://"))
    }
}

/// `https://bmc[?pin=sha256:…]` or `mockup:DIR`: what [`RedfishLocation::parse`] reads back.
impl std::fmt::Display for RedfishLocation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RedfishLocation::Live { base, pin: None } => f.write_str(base),
            RedfishLocation::Live {
                base,
                pin: Some(pin),
            } => write!(f, "{base}?pin={pin}"),
            RedfishLocation::Mockup(dir) => write!(f, "mockup:{}", dir.display()),
        }
    }
}

/// Where a capture reads from, as its record says (no pin).
pub(crate) fn describe_location(location: &RedfishLocation) -> String {
    match location {
        RedfishLocation::Live { base, .. } => base.clone(),
        RedfishLocation::Mockup(dir) => format!("mockup:{}", dir.display()),
    }
}
