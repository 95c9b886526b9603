//! What a URL may carry and where a request may go: credentials typed into an address are
//! never echoed, and a redirect never leaves the service's origin.

/// `scheme://user:password@host` → `scheme://…@host`: what a user typed by mistake is never
/// echoed back into a terminal or a CI log.
pub fn redact_userinfo(text: &str) -> String {
    match (text.find("://"), text.rfind('@')) {
        (Some(scheme), Some(at)) if at > scheme => {
            format!("{}…{}", &text[..scheme + 3], &text[at..])
        }
        (None, Some(at)) => format!("…{}", &text[at..]),
        _ => text.to_owned(),
    }
}

/// Why a redirect to `target` is not followed, once `visited` URLs were asked (the first one
/// too), when it is not: credentials go with every request, so never to another origin than
/// the service's (`origin`), and at most `max` redirects.
pub fn redirect_refused(
    origin: &url::Origin,
    target: &url::Url,
    visited: usize,
    max: usize,
) -> Option<String> {
    let to = target.origin();
    if to != *origin {
        Some(format!(
            "redirect to another origin ({}) refused",
            to.ascii_serialization()
        ))
    } else if visited > max {
        Some("too many redirects (a redirect loop?)".to_owned())
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn userinfo_is_redacted() {
        assert_eq!(redact_userinfo("user:pw@host"), "…@host");
        assert_eq!(
            redact_userinfo("https://user:pw@bmc:443"),
            "https://…@bmc:443"
        );
        assert_eq!(redact_userinfo("https://bmc"), "https://bmc");
    }
}
