//! Where a write may go: a URI the BMC named, normalised exactly as this client sends it (the
//! URL parser drops tabs and newlines and resolves dot segments), refused where a BMC's web
//! server could route it elsewhere than it reads (any `%`, a `;`, a `\`, a query),
//! and only ever below a resource driftgate fetched itself: never an `@odata.id` the BMC
//! claims.

/// A path on the BMC that a PATCH or POST is sent to, exactly as it goes on the wire: only
/// made by [`WriteTarget::below`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WriteTarget(String);

/// Why a URI a BMC named is not where driftgate writes.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TargetError {
    /// It is no path on the BMC (another origin, a relative reference, no URI at all).
    #[error("{uri:?} is no absolute path on the BMC")]
    NotAPath {
        /// The URI as named.
        uri: String,
    },
    /// It holds what a web server may decode or route otherwise than it reads.
    #[error("{uri:?} holds {what}, which a BMC's web server may route elsewhere than it reads")]
    Ambiguous {
        /// The URI as named.
        uri: String,
        /// What: `a "%"`, `a ";"`, `a "\"`, `a query`….
        what: &'static str,
    },
    /// Below its system, but not the path of the action a reset is posted to.
    #[error("{uri:?} does not end in {action}: no reset is posted there")]
    NotTheAction {
        /// The URI as named.
        uri: String,
        /// How the action's path ends.
        action: &'static str,
    },
    /// Normalised as it would be sent, it is not below the resource it belongs to.
    #[error("{uri:?} is sent as {sent}, which is not below {resource} (the URI driftgate read)")]
    NotBelow {
        /// The URI as named.
        uri: String,
        /// The path it would be sent as.
        sent: String,
        /// The resource, as driftgate fetched it.
        resource: String,
    },
}

/// What every resource a write may go below starts with.
const SERVICE: &str = "/redfish/v1/";

/// Any origin: a path joined to it keeps only its own path, as on the BMC's.
const SOME_ORIGIN: &str = "http://bmc.invalid/";

/// The path `uri` is sent as by this client (tabs and newlines dropped, dot segments resolved,
/// what a URL cannot hold percent-encoded), without its trailing `/`; refused when it is no
/// absolute path on the BMC or holds what a web server could decode into another path.
pub fn sent_path(uri: &str) -> Result<String, TargetError> {
    let not_a_path = || TargetError::NotAPath {
        uri: uri.to_owned(),
    };
    let ambiguous = |what| TargetError::Ambiguous {
        uri: uri.to_owned(),
        what,
    };
    // Redfish settings objects and action targets need no escape and no path parameter; a `%`
    // anywhere (`%2F`, `%252F` decoded twice, `%c0%af`, or `%2<TAB>F`, which the URL parser
    // joins into `%2F` once it drops the tab) or a `;` (`..;/` to Tomcat and Jetty) could be
    // routed elsewhere than the path checked here.
    if uri.contains('%') {
        return Err(ambiguous(
            "a \"%\" (percent-encoding a BMC's web server may decode)",
        ));
    }
    if uri.contains(';') {
        return Err(ambiguous(
            "a \";\" (a path parameter some web servers drop)",
        ));
    }
    if uri.contains('\\') {
        return Err(ambiguous("a \"\\\" (read as \"/\" by a URL parser)"));
    }
    if uri.contains(['?', '#']) {
        return Err(ambiguous("a query or fragment"));
    }
    let base = url::Url::parse(SOME_ORIGIN).map_err(|_| not_a_path())?;
    // What the parser keeps of it: a "/\t/host" is a "//host" once the tab is dropped.
    let kept: String = uri
        .trim_matches(|c: char| c <= ' ')
        .chars()
        .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
        .collect();
    if !kept.starts_with('/') || kept.starts_with("//") {
        return Err(not_a_path());
    }
    let url = base.join(uri).map_err(|_| not_a_path())?;
    if url.origin() != base.origin() || url.query().is_some() || url.fragment().is_some() {
        return Err(not_a_path());
    }
    let path = url.path().trim_end_matches('/');
    Ok(if path.is_empty() { "/" } else { path }.to_owned())
}

impl WriteTarget {
    /// `uri` (as the BMC names it) as it is sent, when that is a path strictly below
    /// `resource`, the URI driftgate fetched (itself normalised the same way).
    pub fn below(uri: &str, resource: &str) -> Result<Self, TargetError> {
        let sent = sent_path(uri)?;
        let parent = sent_path(resource)?;
        // A resource driftgate read is a member of the service: never the root nor outside
        // `/redfish/v1/`, below which everything would count.
        if !parent.starts_with(SERVICE) {
            return Err(TargetError::NotBelow {
                uri: uri.to_owned(),
                sent,
                resource: parent,
            });
        }
        let below = sent
            .strip_prefix(parent.as_str())
            .is_some_and(|rest| rest.starts_with('/') && rest.len() > 1);
        if !below {
            return Err(TargetError::NotBelow {
                uri: uri.to_owned(),
                sent,
                resource: parent,
            });
        }
        Ok(WriteTarget(sent))
    }

    /// The path, as sent.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for WriteTarget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RESOURCE: &str = "/redfish/v1/Systems/1/Bios";

    #[test]
    fn a_target_is_what_the_client_sends_and_below_the_resource_read() {
        let below = |uri: &str| WriteTarget::below(uri, RESOURCE).map(|t| t.as_str().to_owned());
        assert_eq!(
            below(&format!("{RESOURCE}/Settings")).as_deref(),
            Ok("/redfish/v1/Systems/1/Bios/Settings")
        );
        assert_eq!(
            below(&format!("{RESOURCE}/Settings/")).as_deref(),
            Ok("/redfish/v1/Systems/1/Bios/Settings")
        );
        // The client drops tabs and newlines, then resolves what they hid.
        let hidden = format!("{RESOURCE}{}/AccountService/Accounts/2", "/.\t.".repeat(10));
        let sent = WriteTarget::below(&hidden, RESOURCE).unwrap_err();
        assert!(
            matches!(&sent, TargetError::NotBelow { sent, .. } if sent == "/AccountService/Accounts/2"),
            "{sent}"
        );
        let newline = format!("{RESOURCE}{}/AccountService/Accounts/2", "/.\n.".repeat(10));
        assert!(below(&newline).is_err());
        for refused in [
            format!(
                "{RESOURCE}/{}AccountService%2FAccounts%2F2",
                "..%2F".repeat(10)
            ),
            format!("{RESOURCE}/%2e%2E/x"),
            format!(
                "{RESOURCE}/{}AccountService%2\tFAccounts%2\nF2",
                "..%2\tF".repeat(10)
            ),
            format!("{RESOURCE}/..;/..;/AccountService"),
            format!("{RESOURCE}/Settings%20"),
            format!("{RESOURCE}/..\\x"),
            format!("{RESOURCE}/Settings?x=1"),
            format!("{RESOURCE}/../Bios2/Settings"),
            "/redfish/v1/AccountService/Accounts/2".to_owned(),
            RESOURCE.to_owned(),
            format!("{RESOURCE}/"),
            "/redfish/v1/Systems/1/Bios2/Settings".to_owned(),
            "//evil.example/x".to_owned(),
            "/\t/evil.example/redfish/v1/Systems/1/Bios/Settings".to_owned(),
            "http://evil.example/redfish/v1/Systems/1/Bios/Settings".to_owned(),
            "Settings".to_owned(),
        ] {
            assert!(below(&refused).is_err(), "{refused:?}");
        }
    }
}
