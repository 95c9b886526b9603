//! The text of a transport error: its message, then each cause it does not say already (the
//! TLS reason, the timeout), and whether it is a refused connection (nothing listens).

/// `text`, then each cause under `error` that it does not say already.
pub fn causes(mut text: String, error: &(dyn std::error::Error + 'static)) -> String {
    let mut source = error.source();
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.contains(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    text
}

/// Whether an I/O error under `error` says the connection was refused (nothing listens).
pub fn refused(error: &(dyn std::error::Error + 'static)) -> bool {
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        if let Some(io) = cause.downcast_ref::<std::io::Error>()
            && io.kind() == std::io::ErrorKind::ConnectionRefused
        {
            return true;
        }
        source = cause.source();
    }
    false
}
