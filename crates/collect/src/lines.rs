//! What every parser of command output shares: errors that name the line, and lines without
//! their endings (LF or CRLF).

/// A parse failure at a line, or of the output as a whole (blank, or ending without a line
/// it must have: the message then says which).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}{message}", line_prefix(*.line))]
pub struct ParseError {
    /// The 1-based line; `None` when the output as a whole is wrong.
    pub line: Option<usize>,
    /// What is wrong.
    pub message: String,
}

/// `line N: `, or nothing for the output as a whole.
fn line_prefix(line: Option<usize>) -> String {
    line.map(|line| format!("line {line}: "))
        .unwrap_or_default()
}

impl ParseError {
    /// An error at `line` (1-based).
    pub fn at(line: usize, message: impl Into<String>) -> Self {
        ParseError::new(Some(line), message)
    }

    /// An error of the output as a whole: blank, or ending without a line it must have.
    pub fn whole(message: impl Into<String>) -> Self {
        ParseError::new(None, message)
    }

    /// An error at `line`, when one is known (a parser's position, a key found in the text).
    pub fn new(line: Option<usize>, message: impl Into<String>) -> Self {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_error_of_the_whole_output_names_no_line() {
        assert_eq!(ParseError::at(3, "bad").to_string(), "line 3: bad");
        assert_eq!(
            ParseError::whole("no `driver:` line before the end of the output").to_string(),
            "no `driver:` line before the end of the output"
        );
    }
}
