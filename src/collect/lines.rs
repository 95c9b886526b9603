//! What every parser of command output shares: errors that name the line, and lines without
//! their endings (LF or CRLF).

/// A parse failure at a line (0 when the input as a whole is wrong).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {message}")]
pub struct ParseError {
    /// 1-based line number, or 0 when the input as a whole is wrong.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

impl ParseError {
    /// An error at `line`.
    pub fn at(line: usize, message: impl Into<String>) -> Self {
        ParseError {
            line,
            message: message.into(),
        }
    }
}

/// Lines without line endings (LF or CRLF), numbered from 1.
pub fn numbered_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines()
        .enumerate()
        .map(|(i, line)| (i + 1, line.trim_end_matches('\r')))
}
