//! What a BMC's certificate says about itself (subject, issuer, names, validity), read from
//! its DER for an operator deciding whether to trust it. Nothing here verifies anything: the
//! text is the BMC's own claim, shown next to the SHA-256 pin that is what trust rests on.
//! Pure: the handshake that fetches the certificate is in `tls.rs`.

use std::fmt;

use jiff::Timestamp;
use x509_parser::extensions::GeneralName;
use x509_parser::time::ASN1Time;

/// How many characters of a name the BMC supplies are shown; a longer one is cut (`…`).
const MAX_NAME: usize = 200;

/// The details of a certificate an operator checks before pinning it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CertificateDetails {
    /// Distinguished name of the subject (`CN=idrac-7XK2M3, O=Dell Inc.`).
    pub subject: String,
    /// Distinguished name of the issuer; the subject's for a self-signed certificate.
    pub issuer: String,
    /// DNS names and IP addresses of the subject-alternative-name extension.
    pub names: Vec<String>,
    /// The first moment it is valid.
    pub not_before: Moment,
    /// The last moment it is valid.
    pub not_after: Moment,
}

/// A moment of a certificate's validity: a timestamp, or the certificate's text where it lies
/// outside what a timestamp holds (years past 9999 do not exist in X.509, but a BMC may send
/// anything).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Moment {
    /// A time driftgate can compare.
    At(Timestamp),
    /// The certificate's own text of a time outside that range.
    Unrepresentable(String),
}

/// Where `now` stands in a certificate's validity.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Validity {
    /// Between not-before and not-after.
    Current,
    /// Past not-after.
    Expired,
    /// Before not-before.
    NotYetValid,
}

/// A certificate that is not X.509 DER.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("not an X.509 certificate: {0}")]
pub struct BadCertificate(String);

/// Reads the details of the DER certificate `der`.
pub fn details(der: &[u8]) -> Result<CertificateDetails, BadCertificate> {
    let (_, certificate) = x509_parser::parse_x509_certificate(der)
        .map_err(|error| BadCertificate(error.to_string()))?;
    let mut names = Vec::new();
    // A malformed extension leaves the names out; the rest still helps the operator.
    if let Ok(Some(alternative)) = certificate.subject_alternative_name() {
        for name in &alternative.value.general_names {
            match name {
                GeneralName::DNSName(dns) => names.push(printable(dns)),
                GeneralName::IPAddress(bytes) => names.extend(ip_address(bytes)),
                _ => {}
            }
        }
    }
    let validity = certificate.validity();
    Ok(CertificateDetails {
        subject: printable(&certificate.subject().to_string()),
        issuer: printable(&certificate.issuer().to_string()),
        names,
        not_before: moment(&validity.not_before),
        not_after: moment(&validity.not_after),
    })
}

impl CertificateDetails {
    /// Whether the issuer is the subject: nobody but the BMC vouches for it.
    pub fn is_self_signed(&self) -> bool {
        self.subject == self.issuer
    }

    /// Where `now` stands in its validity; a bound that cannot be compared counts as met.
    pub fn validity_at(&self, now: Timestamp) -> Validity {
        match (&self.not_before, &self.not_after) {
            (Moment::At(start), _) if now < *start => Validity::NotYetValid,
            (_, Moment::At(end)) if now > *end => Validity::Expired,
            _ => Validity::Current,
        }
    }

    /// `from … to …`, then `(expired)` or `(not yet valid)` at `now` when so.
    pub fn validity_text(&self, now: Timestamp) -> String {
        let state = match self.validity_at(now) {
            Validity::Current => "",
            Validity::Expired => " (expired)",
            Validity::NotYetValid => " (not yet valid)",
        };
        format!("from {} to {}{state}", self.not_before, self.not_after)
    }

    /// The issuer, or `the subject (self-signed)`.
    pub fn issuer_text(&self) -> String {
        if self.is_self_signed() {
            format!("{} (self-signed)", self.issuer)
        } else {
            self.issuer.clone()
        }
    }

    /// One line for an error message: `subject …, issuer …, names …, valid from … to …`.
    pub fn summary(&self, now: Timestamp) -> String {
        let names = if self.names.is_empty() {
            String::new()
        } else {
            format!("; names {}", self.names.join(", "))
        };
        format!(
            "subject {}; issuer {}{names}; valid {}",
            self.subject,
            self.issuer_text(),
            self.validity_text(now)
        )
    }
}

impl fmt::Display for Moment {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            // Seconds are what a certificate holds: no fraction to print.
            Moment::At(at) => write!(f, "{}", at.strftime("%Y-%m-%d %H:%M:%S UTC")),
            Moment::Unrepresentable(text) => f.write_str(text),
        }
    }
}

fn moment(time: &ASN1Time) -> Moment {
    Timestamp::from_second(time.timestamp()).map_or_else(
        |_| Moment::Unrepresentable(printable(&time.to_string())),
        Moment::At,
    )
}

/// An IPv4 or IPv6 address as the certificate holds it (4 or 16 bytes).
fn ip_address(bytes: &[u8]) -> Option<String> {
    let address = match bytes.len() {
        4 => std::net::IpAddr::from(<[u8; 4]>::try_from(bytes).ok()?),
        16 => std::net::IpAddr::from(<[u8; 16]>::try_from(bytes).ok()?),
        _ => return None,
    };
    Some(address.to_string())
}

/// Text the BMC chose, made safe for a terminal and a log line: control characters escaped
/// (an ESC would restyle the operator's terminal, a newline forge a line), and cut at
/// [`MAX_NAME`] characters.
fn printable(text: &str) -> String {
    let mut out = String::new();
    for (i, c) in text.chars().enumerate() {
        if i == MAX_NAME {
            out.push('…');
            break;
        }
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn certificate(configure: impl FnOnce(&mut rcgen::CertificateParams)) -> Vec<u8> {
        let key = rcgen::KeyPair::generate().unwrap();
        let mut params =
            rcgen::CertificateParams::new(vec!["bmc-node01.lab".to_owned(), "10.0.0.7".to_owned()])
                .unwrap();
        params.distinguished_name = rcgen::DistinguishedName::new();
        params
            .distinguished_name
            .push(rcgen::DnType::CommonName, "idrac-7XK2M3");
        params
            .distinguished_name
            .push(rcgen::DnType::OrganizationName, "Dell Inc.");
        params.not_before = rcgen::date_time_ymd(2024, 3, 1);
        params.not_after = rcgen::date_time_ymd(2034, 3, 1);
        configure(&mut params);
        params.self_signed(&key).unwrap().der().to_vec()
    }

    fn at(text: &str) -> Timestamp {
        text.parse().unwrap()
    }

    #[test]
    fn a_self_signed_certificate_reads_as_the_bmc_made_it() {
        let details = details(&certificate(|_| {})).unwrap();
        assert_eq!(details.subject, "CN=idrac-7XK2M3, O=Dell Inc.");
        assert!(details.is_self_signed());
        assert_eq!(
            details.issuer_text(),
            "CN=idrac-7XK2M3, O=Dell Inc. (self-signed)"
        );
        assert_eq!(details.names, ["bmc-node01.lab", "10.0.0.7"]);
        let now = at("2026-12-05T08:00:00Z");
        assert_eq!(details.validity_at(now), Validity::Current);
        assert_eq!(
            details.validity_text(now),
            "from 2024-03-01 00:00:00 UTC to 2034-03-01 00:00:00 UTC"
        );
        assert_eq!(
            details.summary(now),
            "subject CN=idrac-7XK2M3, O=Dell Inc.; issuer CN=idrac-7XK2M3, O=Dell Inc. \
             (self-signed); names bmc-node01.lab, 10.0.0.7; valid from 2024-03-01 00:00:00 UTC \
             to 2034-03-01 00:00:00 UTC"
        );
    }

    #[test]
    fn expired_and_not_yet_valid_certificates_say_so() {
        let expired = details(&certificate(|p| {
            p.not_before = rcgen::date_time_ymd(2015, 1, 1);
            p.not_after = rcgen::date_time_ymd(2020, 1, 1);
        }))
        .unwrap();
        let now = at("2026-12-05T08:00:00Z");
        assert_eq!(expired.validity_at(now), Validity::Expired);
        assert!(
            expired
                .validity_text(now)
                .ends_with("2020-01-01 00:00:00 UTC (expired)"),
            "{}",
            expired.validity_text(now)
        );
        let early = details(&certificate(|_| {})).unwrap();
        let before = at("2023-01-01T00:00:00Z");
        assert_eq!(early.validity_at(before), Validity::NotYetValid);
        assert!(early.validity_text(before).ends_with("(not yet valid)"));
        // The bounds are inclusive: the last second still counts.
        assert_eq!(
            early.validity_at(at("2034-03-01T00:00:00Z")),
            Validity::Current
        );
    }

    #[test]
    fn a_certificate_signed_by_a_ca_names_its_issuer() {
        let ca_key = rcgen::KeyPair::generate().unwrap();
        let mut ca = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
        ca.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
        ca.distinguished_name = rcgen::DistinguishedName::new();
        ca.distinguished_name
            .push(rcgen::DnType::CommonName, "Lab Issuing CA");
        let issuer = rcgen::Issuer::new(ca, ca_key);
        let key = rcgen::KeyPair::generate().unwrap();
        let mut leaf = rcgen::CertificateParams::new(vec!["bmc01".to_owned()]).unwrap();
        leaf.distinguished_name = rcgen::DistinguishedName::new();
        leaf.distinguished_name
            .push(rcgen::DnType::CommonName, "bmc01");
        let der = leaf.signed_by(&key, &issuer).unwrap().der().to_vec();
        let details = details(&der).unwrap();
        assert_eq!(details.subject, "CN=bmc01");
        assert_eq!(details.issuer, "CN=Lab Issuing CA");
        assert!(!details.is_self_signed());
        assert_eq!(details.issuer_text(), "CN=Lab Issuing CA");
    }

    #[test]
    fn names_the_bmc_chose_cannot_restyle_a_terminal_or_forge_a_line() {
        let der = certificate(|p| {
            p.distinguished_name = rcgen::DistinguishedName::new();
            p.distinguished_name
                .push(rcgen::DnType::CommonName, "bmc\u{1b}[31m\nforged");
            p.subject_alt_names = vec![rcgen::SanType::DnsName(
                format!("{}.lab", "a".repeat(300)).try_into().unwrap(),
            )];
        });
        let details = details(&der).unwrap();
        assert_eq!(details.subject, "CN=bmc\\u{1b}[31m\\nforged");
        assert_eq!(details.names[0].chars().count(), MAX_NAME + 1);
        assert!(details.names[0].ends_with('…'));
    }

    #[test]
    fn broken_der_is_refused() {
        let der = certificate(|_| {});
        for broken in [
            &b""[..],
            b"not a certificate",
            &der[..der.len() / 2],
            &der[1..],
        ] {
            assert!(details(broken).is_err(), "{broken:?}");
        }
        let error = details(b"\x30\x03\x02\x01").unwrap_err();
        assert!(
            error.to_string().starts_with("not an X.509 certificate: "),
            "{error}"
        );
    }
}
