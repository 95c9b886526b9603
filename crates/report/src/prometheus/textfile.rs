//! A reader of the textfile a render replaces, for the one thing a new render needs from it:
//! each host's last success time. A parser of the text exposition format's sample lines
//! (`name{label="value",…} value [timestamp]`, label values with `\\`, `\"` and `\n` escapes);
//! it does no I/O.

use std::collections::BTreeMap;

/// The metric whose samples [`last_success_times`] reads.
pub(crate) const LAST_SUCCESS: &str = "driftgate_last_success_timestamp_seconds";

/// One sample line.
#[derive(Debug, Clone, PartialEq)]
pub struct Sample {
    /// The metric name.
    pub name: String,
    /// Its labels, by name.
    pub labels: BTreeMap<String, String>,
    /// Its value.
    pub value: f64,
}

/// A line that is not a sample.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}, column {column}: {reason}")]
pub struct ParseError {
    /// The line, from 1.
    pub line: usize,
    /// The column (in characters), from 1.
    pub column: usize,
    /// What is wrong there.
    pub reason: &'static str,
}

/// Each host's last success time in `text` (Unix seconds; the latest when a host has
/// several samples). Lines that do not parse, and values that are not finite and positive,
/// are skipped: a file edited by hand costs only its broken lines, never every host's time.
pub(crate) fn last_success_times(text: &str) -> BTreeMap<String, f64> {
    let mut times: BTreeMap<String, f64> = BTreeMap::new();
    for sample in samples(text).filter_map(Result::ok) {
        let Some(host) = sample.labels.get("host") else {
            continue;
        };
        if sample.name != LAST_SUCCESS || !sample.value.is_finite() || sample.value <= 0.0 {
            continue;
        }
        let time = times.entry(host.clone()).or_insert(sample.value);
        *time = time.max(sample.value);
    }
    times
}

/// The samples of `text`, one per line that is neither blank nor a comment (`# HELP`,
/// `# TYPE`), each or where its line is broken.
pub fn samples(text: &str) -> impl Iterator<Item = Result<Sample, ParseError>> + '_ {
    text.lines().enumerate().filter_map(|(i, line)| {
        let trimmed = line.trim();
        (!trimmed.is_empty() && !trimmed.starts_with('#')).then(|| parse_sample(line, i + 1))
    })
}

/// Parses line `line` of a textfile, `text`, as a sample.
pub(crate) fn parse_sample(text: &str, line: usize) -> Result<Sample, ParseError> {
    let mut at = Cursor {
        chars: text.chars().collect(),
        pos: 0,
        line,
    };
    at.skip_blanks();
    let name = at.name(true)?;
    let mut blank = at.skip_blanks();
    let mut labels = BTreeMap::new();
    if at.eat('{') {
        loop {
            at.skip_blanks();
            if at.eat('}') {
                break;
            }
            let label = at.name(false)?;
            at.skip_blanks();
            if !at.eat('=') {
                return Err(at.error("`=` expected after a label name"));
            }
            at.skip_blanks();
            let value = at.quoted()?;
            if labels.insert(label, value).is_some() {
                return Err(at.error("a label given twice"));
            }
            at.skip_blanks();
            if at.eat(',') {
                continue;
            }
            if !at.eat('}') {
                return Err(at.error("`,` or `}` expected after a label value"));
            }
            break;
        }
        blank = at.skip_blanks();
    }
    if !blank {
        return Err(at.error("a blank expected before the value"));
    }
    let value = at.word();
    let value: f64 = match value.as_str() {
        "+Inf" => f64::INFINITY,
        "-Inf" => f64::NEG_INFINITY,
        "NaN" => f64::NAN,
        _ => value
            .parse()
            .ok()
            .filter(|_| {
                value
                    .chars()
                    .all(|c| c.is_ascii_digit() || "+-.eE".contains(c))
            })
            .ok_or_else(|| at.error("a number expected as the value"))?,
    };
    at.skip_blanks();
    let timestamp = at.word();
    if !timestamp.is_empty() && timestamp.parse::<i64>().is_err() {
        return Err(at.error("an integer timestamp expected after the value"));
    }
    at.skip_blanks();
    if at.pos < at.chars.len() {
        return Err(at.error("nothing expected after the timestamp"));
    }
    Ok(Sample {
        name,
        labels,
        value,
    })
}

/// A position in one line.
struct Cursor {
    chars: Vec<char>,
    pos: usize,
    line: usize,
}

impl Cursor {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }

    fn eat(&mut self, c: char) -> bool {
        let ate = self.peek() == Some(c);
        if ate {
            self.pos += 1;
        }
        ate
    }

    /// Skips spaces and tabs; whether there were any.
    fn skip_blanks(&mut self) -> bool {
        let from = self.pos;
        while matches!(self.peek(), Some(' ' | '\t')) {
            self.pos += 1;
        }
        self.pos > from
    }

    /// Characters up to the next blank.
    fn word(&mut self) -> String {
        let from = self.pos;
        while self.peek().is_some_and(|c| c != ' ' && c != '\t') {
            self.pos += 1;
        }
        self.chars[from..self.pos].iter().collect()
    }

    /// A metric name (`[a-zA-Z_:][a-zA-Z0-9_:]*`) or, without `colons`, a label name.
    fn name(&mut self, colons: bool) -> Result<String, ParseError> {
        let allowed = |c: char, first: bool| {
            c.is_ascii_alphabetic()
                || c == '_'
                || (colons && c == ':')
                || (!first && c.is_ascii_digit())
        };
        let from = self.pos;
        while self.peek().is_some_and(|c| allowed(c, self.pos == from)) {
            self.pos += 1;
        }
        if self.pos == from {
            return Err(self.error(if colons {
                "a metric name expected"
            } else {
                "a label name expected"
            }));
        }
        Ok(self.chars[from..self.pos].iter().collect())
    }

    /// A double-quoted label value, unescaped.
    fn quoted(&mut self) -> Result<String, ParseError> {
        if !self.eat('"') {
            return Err(self.error("a double-quoted label value expected"));
        }
        let mut value = String::new();
        loop {
            match self.peek() {
                None => return Err(self.error("the label value is not closed")),
                Some('"') => {
                    self.pos += 1;
                    return Ok(value);
                }
                Some('\\') => {
                    self.pos += 1;
                    match self.peek() {
                        Some('\\') => value.push('\\'),
                        Some('"') => value.push('"'),
                        Some('n') => value.push('\n'),
                        _ => return Err(self.error("an escape other than \\\\, \\\" or \\n")),
                    }
                    self.pos += 1;
                }
                Some(c) => {
                    value.push(c);
                    self.pos += 1;
                }
            }
        }
    }

    fn error(&self, reason: &'static str) -> ParseError {
        ParseError {
            line: self.line,
            column: self.pos + 1,
            reason,
        }
    }
}
