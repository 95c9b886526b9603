//! An answer's body read under a size cap and a deadline, its bytes handed on as they arrive:
//! a service that announces or sends more than the cap, or stalls, costs no more than that.

use http_body_util::BodyExt as _;
use hyper::Response;
use hyper::body::Body as _;
use tokio::time::Instant;

use crate::causes::causes;
use crate::connections::Leased;

/// Where a body goes as its bytes arrive.
pub trait Receive: Send {
    /// The length the answer announces, before its first byte; a body begins again here.
    fn announced(&mut self, length: Option<u64>);
    /// The next bytes of the body.
    fn push(&mut self, chunk: &[u8]);
}

impl Receive for Vec<u8> {
    fn announced(&mut self, length: Option<u64>) {
        self.clear();
        self.reserve(presized(length));
    }

    fn push(&mut self, chunk: &[u8]) {
        self.extend_from_slice(chunk);
    }
}

/// What is reserved for a body of the announced `length`: all of it, so that a registry of a
/// megabyte is not copied as its buffer doubles; at most 4 MiB, so that a length claimed and
/// never sent costs nothing until its bytes come.
pub fn presized(length: Option<u64>) -> usize {
    const PRESIZED: u64 = 4 << 20;
    usize::try_from(length.map_or(0, |length| length.min(PRESIZED))).unwrap_or(0)
}

/// Why a body was not read whole.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BodyError {
    /// It announced or sent more than the cap.
    #[error("the answer exceeds {limit} bytes")]
    TooLarge {
        /// The cap.
        limit: usize,
    },
    /// It was not all in by the deadline.
    #[error("timed out reading the body")]
    TimedOut,
    /// The connection failed while it came.
    #[error("{0}")]
    Failed(String),
}

/// The body of `response` given to `into` as it arrives, refused past `limit` bytes or when
/// it is not all in by `deadline`.
pub async fn receive(
    response: Response<Leased>,
    limit: usize,
    into: &mut dyn Receive,
    deadline: Instant,
) -> Result<(), BodyError> {
    let mut body = response.into_body();
    let length = body.size_hint().exact();
    if length.is_some_and(|length| length > limit as u64) {
        return Err(BodyError::TooLarge { limit });
    }
    into.announced(length);
    let mut received = 0;
    loop {
        let frame = tokio::time::timeout_at(deadline, body.frame())
            .await
            .map_err(|_| BodyError::TimedOut)?;
        let Some(frame) = frame else {
            return Ok(());
        };
        let frame = frame.map_err(|e| BodyError::Failed(causes(e.to_string(), &e)))?;
        if let Ok(chunk) = frame.into_data() {
            received += chunk.len();
            if received > limit {
                return Err(BodyError::TooLarge { limit });
            }
            into.push(&chunk);
        }
    }
}
