//! A write on the wire: one PATCH or POST of a JSON body to a [`WriteTarget`], authenticated
//! like every GET, never retried (a BMC that took a write and answered late must not take it
//! twice) and never redirected (a 3xx is returned, its `Location` not asked), its answer
//! returned as it came (status, `Location`, body) for the caller to judge.

use hyper::Method;
use hyper::body::Bytes;
use serde_json::Value;

use super::fetcher::HttpFetch;
use super::http::Exchange;
use super::target::WriteTarget;
use crate::fetch::{Body, FetchError, parse_body};

/// The method of a write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WriteMethod {
    /// `PATCH`: stage or set properties of a resource.
    Patch,
    /// `POST`: invoke an action.
    Post,
}

impl WriteMethod {
    /// `PATCH` or `POST`.
    pub fn as_str(self) -> &'static str {
        match self {
            WriteMethod::Patch => "PATCH",
            WriteMethod::Post => "POST",
        }
    }

    fn method(self) -> Method {
        match self {
            WriteMethod::Patch => Method::PATCH,
            WriteMethod::Post => Method::POST,
        }
    }
}

/// What a BMC answered to a write.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    /// The HTTP status.
    pub status: u16,
    /// The `Location` header (a task or job the write started), when given.
    pub location: Option<String>,
    /// The body, when it was JSON; `Null` for none (a 204).
    pub body: Value,
}

impl Answer {
    /// Whether the status is 2xx.
    pub fn accepted(&self) -> bool {
        (200..300).contains(&self.status)
    }

    /// Where a 3xx answer sends the write (never followed), when it is one.
    pub fn redirected_to(&self) -> Option<&str> {
        (300..400)
            .contains(&self.status)
            .then(|| self.location.as_deref().unwrap_or("(no Location)"))
    }

    /// The Redfish messages of the body (`error.@Message.ExtendedInfo[]`, else
    /// `@Message.ExtendedInfo[]`, else `error.message`), each `MessageId: Message`.
    pub fn messages(&self) -> Vec<String> {
        let info = self.body["error"]["@Message.ExtendedInfo"]
            .as_array()
            .or_else(|| self.body["@Message.ExtendedInfo"].as_array());
        let mut messages: Vec<String> = info
            .into_iter()
            .flatten()
            .map(|m| {
                let id = m["MessageId"].as_str().unwrap_or("");
                let text = m["Message"].as_str().unwrap_or("");
                match (id.is_empty(), text.is_empty()) {
                    (false, false) => format!("{id}: {text}"),
                    (false, true) => id.to_owned(),
                    _ => text.to_owned(),
                }
            })
            .filter(|m| !m.is_empty())
            .collect();
        if messages.is_empty()
            && let Some(message) = self.body["error"]["message"].as_str()
        {
            messages.push(message.to_owned());
        }
        messages
    }
}

impl HttpFetch {
    /// Sends `method` of `body` to `target` on the BMC, within the host deadline; after a 401
    /// logs in again once and sends it again (the BMC refused it, so it did not take it).
    /// Any answer is returned, an error status and a redirect too (never followed): only no
    /// answer is an error.
    pub async fn write(
        &self,
        method: WriteMethod,
        target: &WriteTarget,
        body: &Value,
    ) -> Result<Answer, FetchError> {
        let uri = target.as_str();
        let deadline = self.deadline();
        let send = async {
            loop {
                if let Some(reason) = self.stopped() {
                    return Err(FetchError::Transport {
                        uri: uri.to_owned(),
                        reason: format!("not requested: {reason}"),
                    });
                }
                let (answer, generation) = self.write_once(method, uri, body).await?;
                if answer.status == 401 {
                    let refused = FetchError::Status {
                        uri: uri.to_owned(),
                        status: 401,
                        detail: String::new(),
                    };
                    self.log_in_again(uri, generation, &refused).await?;
                    continue;
                }
                return Ok(answer);
            }
        };
        tokio::time::timeout_at(deadline, send)
            .await
            .unwrap_or_else(|_| {
                Err(FetchError::Transport {
                    uri: uri.to_owned(),
                    reason: format!(
                        "no answer within the host deadline of {} s (--host-timeout)",
                        self.options.host_timeout.as_secs()
                    ),
                })
            })
    }

    async fn write_once(
        &self,
        method: WriteMethod,
        uri: &str,
        body: &Value,
    ) -> Result<(Answer, u64), FetchError> {
        let url = self.url(uri)?;
        let exchange = Exchange::starting_now(&self.connections, &self.options);
        let (response, generation) = {
            let session = self.session.read().await;
            let sent = exchange
                .send(
                    method.method(),
                    &url,
                    &session.auth,
                    Bytes::from(body.to_string()),
                )
                .await;
            (sent, session.generation)
        };
        let response = response.map_err(|reason| FetchError::Transport {
            uri: uri.to_owned(),
            reason: format!("{} got no answer: {reason}", method.as_str()),
        })?;
        let status = response.status().as_u16();
        let location = response
            .headers()
            .get("Location")
            .and_then(|l| l.to_str().ok())
            .map(str::to_owned);
        tracing::info!("{} {uri} → {status}", method.as_str());
        let bytes = exchange.body(uri, response, self.options.max_body).await?;
        let body = if bytes.iter().all(u8::is_ascii_whitespace) {
            Value::Null
        } else {
            parse_body(uri, &bytes, Body::Whole).unwrap_or(Value::Null)
        };
        Ok((
            Answer {
                status,
                location,
                body,
            },
            generation,
        ))
    }
}
