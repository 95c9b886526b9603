//! The session a login opened, as the URI its logout deletes. Pure: no I/O.
//!
//! The DELETE at logout is the only request driftgate sends a BMC besides GETs and the login,
//! and it carries the session's token: it must name the session that login created and
//! nothing else. A `Location` header naming another resource of the same BMC (an account,
//! the session collection itself) would otherwise be deleted with our privileges, and our
//! own session left open. So the URI is the login answer's `Location` only when that is a
//! member of [`SESSIONS`], else `Sessions/<Id>` from the answer's body.

use serde_json::Value;
use url::Url;

/// Where sessions are created: the collection every session deleted is a member of.
pub const SESSIONS: &str = "/redfish/v1/SessionService/Sessions";

/// The path of one member of [`SESSIONS`] on the BMC: the only resource ever deleted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionUri(String);

impl SessionUri {
    /// The member of [`SESSIONS`] that `uri` names, resolved as a `Location` header is (a
    /// path, or a URL on the same origin, relative to `login`, the URL the login was POSTed
    /// to): one segment below the collection, of URI-unreserved characters only (so no
    /// `..`, no escaped `/`), without query or fragment.
    pub fn member(login: &Url, uri: &str) -> Option<SessionUri> {
        let url = login.join(uri).ok()?;
        let same_origin =
            url.origin() == login.origin() && url.username().is_empty() && url.password().is_none();
        if !same_origin || url.query().is_some() || url.fragment().is_some() {
            return None;
        }
        let id = url
            .path()
            .strip_prefix(SESSIONS)?
            .strip_prefix('/')?
            .trim_end_matches('/');
        SessionUri::of_id(id)
    }

    /// `Sessions/<id>`, when `id` is one path segment of URI-unreserved characters.
    pub fn of_id(id: &str) -> Option<SessionUri> {
        let unreserved =
            |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~');
        let segment = !id.is_empty() && id != "." && id != ".." && id.bytes().all(unreserved);
        segment.then(|| SessionUri(format!("{SESSIONS}/{id}")))
    }

    /// The path, `/redfish/v1/SessionService/Sessions/<id>`.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for SessionUri {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// What a login's answer says about the session it opened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Opened {
    /// The session to delete at logout; `None` when the answer names none.
    pub uri: Option<SessionUri>,
    /// The `Location` header as the BMC sent it, when it names no member of [`SESSIONS`]:
    /// never requested, and worth telling the operator.
    pub refused_location: Option<String>,
}

/// The session a login answer (its `Location` header and JSON `body`, POSTed to `login`)
/// opened: the `Location` when it is a member of [`SESSIONS`], else `Sessions/<Id>` of the
/// body.
pub fn opened(login: &Url, location: Option<&str>, body: Option<&Value>) -> Opened {
    let from_location = location.and_then(|location| SessionUri::member(login, location));
    let refused_location = match (location, &from_location) {
        (Some(location), None) => Some(location.to_owned()),
        _ => None,
    };
    let uri = from_location.or_else(|| {
        body.and_then(|body| body.get("Id"))
            .and_then(Value::as_str)
            .and_then(SessionUri::of_id)
    });
    Opened {
        uri,
        refused_location,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn login() -> Url {
        Url::parse("https://bmc.example:8443/redfish/v1/SessionService/Sessions").unwrap()
    }

    #[test]
    fn a_location_is_used_only_when_it_is_a_member_of_the_sessions_collection() {
        for (location, member) in [
            ("/redfish/v1/SessionService/Sessions/17", Some("17")),
            (
                "/redfish/v1/SessionService/Sessions/a1-B_2.x~/",
                Some("a1-B_2.x~"),
            ),
            (
                "https://bmc.example:8443/redfish/v1/SessionService/Sessions/17",
                Some("17"),
            ),
            // Relative to the collection the login was POSTed to, as HTTP resolves it.
            ("Sessions/17", Some("17")),
            ("/redfish/v1/AccountService/Accounts/2", None),
            (
                "/redfish/v1/SessionService/Sessions/../../AccountService/Accounts/2",
                None,
            ),
            (
                "/redfish/v1/SessionService/Sessions/%2e%2e/%2e%2e/AccountService",
                None,
            ),
            (
                "/redfish/v1/SessionService/Sessions/1%2F..%2F..%2FAccounts",
                None,
            ),
            ("/redfish/v1/SessionService/Sessions", None),
            ("/redfish/v1/SessionService/Sessions/", None),
            ("/redfish/v1/SessionService/Sessions/1/Accounts", None),
            ("/redfish/v1/SessionService/Sessions/1?x=1", None),
            ("/redfish/v1/SessionService/Sessions/1#x", None),
            ("/redfish/v1/SessionService/SessionsX/1", None),
            (
                "https://other.example:8443/redfish/v1/SessionService/Sessions/1",
                None,
            ),
            (
                "http://bmc.example:8443/redfish/v1/SessionService/Sessions/1",
                None,
            ),
            (
                "https://u:p@bmc.example:8443/redfish/v1/SessionService/Sessions/1",
                None,
            ),
            ("//other.example/redfish/v1/SessionService/Sessions/1", None),
            ("17", None),
            ("", None),
        ] {
            let expected = member.map(|id| format!("{SESSIONS}/{id}"));
            assert_eq!(
                SessionUri::member(&login(), location).map(|uri| uri.to_string()),
                expected,
                "{location:?}"
            );
        }
    }

    #[test]
    fn a_refused_location_falls_back_to_the_id_of_the_body_and_is_reported() {
        let body = json!({"@odata.id": "/redfish/v1/AccountService/Accounts/2", "Id": "5"});
        let session = |id: &str| Some(SessionUri(format!("{SESSIONS}/{id}")));
        let hostile = "/redfish/v1/AccountService/Accounts/2";
        assert_eq!(
            opened(&login(), Some(hostile), Some(&body)),
            Opened {
                uri: session("5"),
                refused_location: Some(hostile.to_owned()),
            }
        );
        // A good Location wins over the body.
        assert_eq!(
            opened(&login(), Some(&format!("{SESSIONS}/9")), Some(&body)),
            Opened {
                uri: session("9"),
                refused_location: None,
            }
        );
        assert_eq!(opened(&login(), None, Some(&body)).uri, session("5"));
        for id in [json!("../Accounts/2"), json!(""), json!(5), json!("a/b")] {
            let body = json!({"Id": id});
            assert_eq!(
                opened(&login(), Some(hostile), Some(&body)).uri,
                None,
                "{id}"
            );
        }
        assert_eq!(
            opened(&login(), None, None),
            Opened {
                uri: None,
                refused_location: None,
            }
        );
    }
}
