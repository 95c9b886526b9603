//! A look at a BMC before its turn in a run of many hosts: its service root, read without a
//! login (Redfish serves it to anyone) and timed. A first night learns from it which BMCs are
//! slow while they still wait, so they can start first; the capture then starts its crawl
//! from that root instead of asking for it again, so the look costs the BMC no request.

use std::sync::Arc;

use crate::client::{ClientOptions, HttpFetch};
use crate::crawl;
use crate::fetch::Fetch as _;
use crate::location::RedfishLocation;
use crate::options::RedfishOptions;
pub use crate::root_look::{LookedRoot, RootLook};

/// The largest service root a look keeps: real ones are a few KiB, and a run holds each look's
/// until its host starts (up to 16 × `--concurrency` of them). A larger one is read again by
/// the capture, under the capture's own limit.
pub const ROOT_LARGEST: usize = 64 * 1024;

/// Reads the service root of `location` without a login, with a client of its own built from
/// `options` (trust, time limits; at most [`ROOT_LARGEST`] of body). A mockup folder is not
/// looked at: `None`.
pub async fn look_at_root(
    location: &RedfishLocation,
    options: &RedfishOptions,
) -> Option<LookedRoot> {
    let RedfishLocation::Live { base, pin } = location else {
        return None;
    };
    let trust = options.trust(pin.as_ref());
    let client = ClientOptions {
        max_body: ROOT_LARGEST,
        ..options.client.clone()
    };
    let body = match HttpFetch::new(base, &trust, client) {
        // No account is given: a BMC that wants a login for its root gets none, and no second
        // request.
        Ok(http) => match http.get_body(crawl::ROOT).await {
            Ok(body) => Some(Arc::from(body)),
            Err(error) => {
                tracing::debug!("{base}: the service root without a login: {error}");
                None
            }
        },
        Err(error) => {
            tracing::debug!("{base}: {error}");
            None
        }
    };
    Some(LookedRoot {
        base: base.trim_end_matches('/').to_owned(),
        body,
    })
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use tokio::io::AsyncWriteExt as _;

    use super::*;
    use driftgate_http::Credentials;

    /// An HTTP server on 127.0.0.1 answering every request with `status` and `body`; its base
    /// URL, and the head of every request it read.
    async fn serve(status: &'static str, body: Vec<u8>) -> (String, Arc<Mutex<Vec<String>>>) {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let heads = Arc::new(Mutex::new(Vec::new()));
        let seen = Arc::clone(&heads);
        tokio::spawn(async move {
            while let Ok((mut stream, _)) = listener.accept().await {
                let head = crate::test_support::request_head(&mut stream).await;
                seen.lock()
                    .unwrap()
                    .push(String::from_utf8_lossy(&head).to_ascii_lowercase());
                let answer = format!(
                    "HTTP/1.1 {status}\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: {}\r\n\r\n",
                    body.len()
                );
                let _ = stream.write_all(answer.as_bytes()).await;
                let _ = stream.write_all(&body).await;
            }
        });
        (base, heads)
    }

    #[tokio::test]
    async fn a_look_reads_the_root_without_the_account_and_keeps_only_a_root_of_a_success() {
        // An account is given: the look never sends it.
        let options = RedfishOptions {
            credentials: Some(Credentials {
                username: "root".into(),
                password: "calvin-look".into(),
                origin: "a test".into(),
            }),
            ..RedfishOptions::default()
        };
        let root =
            br#"{"@odata.id": "/redfish/v1", "Systems": {"@odata.id": "/redfish/v1/Systems"}}"#;
        let refused = br#"{"error": {"message": "login first"}}"#;
        let large = vec![b' '; ROOT_LARGEST + 1];
        let mut every_head = Vec::new();
        for (status, body, kept) in [
            ("200 OK", root.to_vec(), Some(root.to_vec())),
            ("401 Unauthorized", refused.to_vec(), None),
            ("200 OK", large, None),
        ] {
            let (base, heads) = serve(status, body).await;
            let location = RedfishLocation::parse(&base).unwrap();
            let looked = look_at_root(&location, &options).await.unwrap();
            assert_eq!(looked.body.as_deref(), kept.as_deref(), "{status}");
            // The capture of this BMC gets it; one of another BMC does not.
            let look = RootLook::new(async move { Some(looked) });
            assert_eq!(
                look.body_for(&format!("{base}/")).await.as_deref(),
                kept.as_deref()
            );
            assert_eq!(look.body_for("http://127.0.0.1:1").await, None);
            assert!(look.read_a_bmc().await);
            every_head.extend(heads.lock().unwrap().drain(..));
        }
        // One GET of the root each (a 401 is not answered by logging in), and no credential.
        assert_eq!(every_head.len(), 3, "{every_head:?}");
        for head in &every_head {
            assert!(head.starts_with("get /redfish/v1 "), "{head}");
            assert!(
                !head.contains("authorization") && !head.contains("x-auth-token"),
                "{head}"
            );
        }
        // A mockup folder is not looked at.
        let mockup = RedfishLocation::parse("mockup:/nowhere").unwrap();
        assert!(look_at_root(&mockup, &options).await.is_none());
    }
}
