//! `vcenter://[user@]VCENTER[:PORT]?host=ESXI[&pin=sha256:HEX]`: which vCenter, and which of
//! its hosts is this source's.

use driftgate_model::pin::CertificatePin;

/// Where an ESXi host is read through vCenter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VcenterLocation {
    /// `https://vcenter[:port]`.
    pub base: String,
    /// The account named in the location (the password comes from the credentials).
    pub user: Option<String>,
    /// The host's name as the vCenter knows it (`name` of its `HostSystem`), matched exactly.
    pub host: String,
    /// `pin=sha256:HEX`.
    pub pin: Option<CertificatePin>,
}

/// Why a vCenter location does not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "invalid vCenter location {text:?}: {reason} (use vcenter://[user@]vcenter[:port]?host=ESXI[&pin=sha256:HEX])"
)]
pub struct BadVcenterLocation {
    /// The text given, without a password.
    pub text: String,
    /// What is wrong.
    pub reason: &'static str,
}

impl VcenterLocation {
    /// Parses an inventory's `vcenter = "vcenter://[user@]VC[:PORT][?pin=…]"`: the vCenter of a
    /// group of hosts, each of which is then read as the host of its own name
    /// ([`VcenterLocation::for_host`]). A `host=` there is refused: it names one host.
    pub fn parse_group(text: &str) -> Result<Self, BadVcenterLocation> {
        let bad = |reason| BadVcenterLocation {
            text: crate::redact_userinfo(text),
            reason,
        };
        if !text.starts_with("vcenter://") {
            return Err(bad("not a vcenter:// location"));
        }
        let (base, query) = text.split_once('?').unwrap_or((text, ""));
        if query.split('&').any(|pair| pair.starts_with("host=")) {
            return Err(bad(
                "a group's vCenter names no host= (each host is read by its own name)",
            ));
        }
        let sep = if query.is_empty() { "" } else { "&" };
        let placeholder = format!("{base}?host=-{sep}{query}");
        match VcenterLocation::parse(&placeholder) {
            Some(Ok(location)) => Ok(location),
            Some(Err(e)) => Err(bad(e.reason)),
            None => Err(bad("not a vcenter:// location")),
        }
    }

    /// This vCenter, reading host `name`.
    pub fn for_host(&self, name: &str) -> Self {
        VcenterLocation {
            host: name.to_owned(),
            ..self.clone()
        }
    }

    /// Parses a location; `None` when it is not a `vcenter://` one.
    pub fn parse(text: &str) -> Option<Result<Self, BadVcenterLocation>> {
        let rest = text.strip_prefix("vcenter://")?;
        let bad = |reason| BadVcenterLocation {
            text: crate::redact_userinfo(text),
            reason,
        };
        Some((|| {
            let (authority, query) = rest.split_once('?').ok_or_else(|| bad("no ?host=ESXI"))?;
            let (user, address) = match authority.rsplit_once('@') {
                Some((user, _)) if user.contains(':') => {
                    return Err(bad(
                        "a password in the location; give it with the credentials",
                    ));
                }
                Some((user, address)) => (Some(user.to_owned()), address),
                None => (None, authority),
            };
            if address.is_empty() || address.contains(['/', ' ']) {
                return Err(bad("no vCenter address"));
            }
            let mut host = None;
            let mut pin = None;
            for pair in query.split('&') {
                match pair.split_once('=') {
                    Some(("host", _)) | Some(("pin", _))
                        if (pair.starts_with("host=") && host.is_some())
                            || (pair.starts_with("pin=") && pin.is_some()) =>
                    {
                        return Err(bad("host= or pin= given twice"));
                    }
                    Some(("host", name)) if !name.is_empty() => host = Some(name.to_owned()),
                    Some(("pin", value)) => {
                        pin = Some(
                            CertificatePin::parse(value)
                                .ok_or_else(|| bad("pin is not sha256:<64 hex digits>"))?,
                        );
                    }
                    _ => return Err(bad("only host= and pin= are understood")),
                }
            }
            Ok(VcenterLocation {
                base: format!("https://{address}"),
                user: user.filter(|u| !u.is_empty()),
                host: host.ok_or_else(|| bad("no ?host=ESXI"))?,
                pin,
            })
        })())
    }
}

impl std::fmt::Display for VcenterLocation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let address = self.base.trim_start_matches("https://");
        let user = self
            .user
            .as_deref()
            .map(|u| format!("{u}@"))
            .unwrap_or_default();
        write!(f, "vcenter://{user}{address}?host={}", self.host)?;
        if let Some(pin) = &self.pin {
            write!(f, "&pin={pin}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locations_name_the_vcenter_the_host_and_maybe_a_user_and_pin() {
        let pin = format!("sha256:{}", "ab".repeat(32));
        let location = VcenterLocation::parse(&format!(
            "vcenter://ops@vc01.example.com:8443?host=esx01.example.com&pin={pin}"
        ))
        .unwrap()
        .unwrap();
        assert_eq!(location.base, "https://vc01.example.com:8443");
        assert_eq!(location.user.as_deref(), Some("ops"));
        assert_eq!(location.host, "esx01.example.com");
        assert_eq!(
            location.to_string(),
            format!("vcenter://ops@vc01.example.com:8443?host=esx01.example.com&pin={pin}")
        );
        assert_eq!(VcenterLocation::parse("ssh://esx01"), None);
        let group =
            VcenterLocation::parse_group(&format!("vcenter://ops@vc01.example.com?pin={pin}"))
                .unwrap();
        assert_eq!(
            group.for_host("esx02").to_string(),
            format!("vcenter://ops@vc01.example.com?host=esx02&pin={pin}")
        );
        assert!(VcenterLocation::parse_group("vcenter://vc01?host=esx01").is_err());
        assert!(VcenterLocation::parse_group("https://vc01").is_err());
        for (bad, says) in [
            ("vcenter://vc01", "no ?host=ESXI"),
            ("vcenter://vc01?host=", "only host= and pin="),
            (
                "vcenter://ops:secret@vc01?host=esx01",
                "a password in the location",
            ),
            ("vcenter://?host=esx01", "no vCenter address"),
            ("vcenter://vc01?host=esx01&pin=md5:00", "pin is not"),
            ("vcenter://vc01?host=esx01&host=esx02", "given twice"),
        ] {
            let error = VcenterLocation::parse(bad).unwrap().unwrap_err();
            assert!(error.to_string().contains(says), "{bad}: {error}");
            assert!(!error.to_string().contains("secret"), "{error}");
        }
    }
}
