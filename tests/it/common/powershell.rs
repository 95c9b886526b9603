//! A tokenizer of the part of PowerShell the emitted `-windows.ps1` scripts use, written from
//! the language specification (Windows PowerShell Language Specification 3.0, §2 and §B.1)
//! for tests only: there is no PowerShell here to run them. It follows the rules that decide
//! where data ends and code starts:
//!
//! - a line ends at CR, LF or CR LF (`new-line-character`; nothing else, not U+2028 or U+0085);
//! - `#` at the start of a token comments out the rest of the line; `<#` opens a block comment;
//! - a verbatim (single-quoted) string opens and closes at any `single-quote-character`:
//!   `'` U+0027, `‘` U+2018, `’` U+2019, `‚` U+201A, `‛` U+201B; two of them in a row are one
//!   literal quote (the second, as PowerShell's tokenizer keeps it), and a newline inside is
//!   part of the string;
//! - an expandable string opens at `"`, `“` U+201C, `”` U+201D or `„` U+201E, inside which
//!   `$` and the backtick have meanings;
//! - `; { } ( ) | , &` are tokens of their own; anything else up to white space is a bare word.

/// One token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Token {
    /// A single-quoted string: its value.
    Literal(String),
    /// A double-quoted string, as written between its quotes: `$` and backticks expand.
    Expandable(String),
    /// A bare word (a command, a parameter, a variable, `.Member`).
    Word(String),
    /// `; { } ( ) | , &`.
    Operator(char),
    /// A `#` comment, without the `#`.
    Comment(String),
    /// The end of a line.
    NewLine,
}

const SINGLE: [char; 5] = ['\'', '\u{2018}', '\u{2019}', '\u{201a}', '\u{201b}'];
const DOUBLE: [char; 4] = ['"', '\u{201c}', '\u{201d}', '\u{201e}'];
const OPERATORS: [char; 8] = [';', '{', '}', '(', ')', '|', ',', '&'];

/// The tokens of `text`; an error for what the scripts never hold (an unterminated string, a
/// block comment).
pub fn tokenize(text: &str) -> Result<Vec<Token>, String> {
    let chars: Vec<char> = text.chars().collect();
    let mut tokens = Vec::new();
    let mut at = 0;
    while at < chars.len() {
        let c = chars[at];
        match c {
            '\r' | '\n' => {
                at += if c == '\r' && chars.get(at + 1) == Some(&'\n') {
                    2
                } else {
                    1
                };
                tokens.push(Token::NewLine);
            }
            ' ' | '\t' | '\u{b}' | '\u{c}' | '\u{a0}' => at += 1,
            '#' => {
                let end = (at..chars.len())
                    .find(|&i| matches!(chars[i], '\r' | '\n'))
                    .unwrap_or(chars.len());
                tokens.push(Token::Comment(chars[at + 1..end].iter().collect()));
                at = end;
            }
            '<' if chars.get(at + 1) == Some(&'#') => {
                return Err(format!("a block comment at character {at}"));
            }
            q if SINGLE.contains(&q) => {
                let mut value = String::new();
                at += 1;
                loop {
                    let Some(&c) = chars.get(at) else {
                        return Err("a single-quoted string is not closed".to_owned());
                    };
                    if SINGLE.contains(&c) {
                        match chars.get(at + 1) {
                            Some(&next) if SINGLE.contains(&next) => {
                                value.push(next);
                                at += 2;
                            }
                            _ => {
                                at += 1;
                                break;
                            }
                        }
                    } else {
                        value.push(c);
                        at += 1;
                    }
                }
                tokens.push(Token::Literal(value));
            }
            q if DOUBLE.contains(&q) => {
                let mut value = String::new();
                at += 1;
                loop {
                    let Some(&c) = chars.get(at) else {
                        return Err("a double-quoted string is not closed".to_owned());
                    };
                    if c == '`' {
                        value.push(c);
                        if let Some(&next) = chars.get(at + 1) {
                            value.push(next);
                        }
                        at += 2;
                    } else if DOUBLE.contains(&c) {
                        if chars.get(at + 1).is_some_and(|n| DOUBLE.contains(n)) {
                            value.push(c);
                            at += 2;
                        } else {
                            at += 1;
                            break;
                        }
                    } else {
                        value.push(c);
                        at += 1;
                    }
                }
                tokens.push(Token::Expandable(value));
            }
            o if OPERATORS.contains(&o) => {
                tokens.push(Token::Operator(o));
                at += 1;
            }
            _ => {
                let start = at;
                while at < chars.len() {
                    let c = chars[at];
                    if matches!(c, ' ' | '\t' | '\u{b}' | '\u{c}' | '\u{a0}' | '\r' | '\n')
                        || SINGLE.contains(&c)
                        || DOUBLE.contains(&c)
                        || OPERATORS.contains(&c)
                    {
                        break;
                    }
                    // A backtick escapes the next character of a bare word.
                    at += if c == '`' { 2 } else { 1 };
                }
                let at_end = at.min(chars.len());
                tokens.push(Token::Word(chars[start..at_end].iter().collect()));
                at = at_end;
            }
        }
    }
    Ok(tokens)
}

/// `text` as a script's lines of tokens (a string spanning lines stays in the line it opened).
pub fn lines(text: &str) -> Result<Vec<Vec<Token>>, String> {
    let mut lines = vec![Vec::new()];
    for token in tokenize(text)? {
        if token == Token::NewLine {
            lines.push(Vec::new());
        } else {
            lines.last_mut().expect("one line at least").push(token);
        }
    }
    if lines.last().is_some_and(Vec::is_empty) {
        lines.pop();
    }
    Ok(lines)
}

/// A word token.
pub fn word(text: &str) -> Token {
    Token::Word(text.to_owned())
}

/// A literal token.
pub fn literal(text: &str) -> Token {
    Token::Literal(text.to_owned())
}

#[test]
fn the_tokenizer_follows_the_quoting_rules() {
    assert_eq!(
        tokenize("Enable-NetAdapterQos -Name 'it''s ‘‘x’’ y' # c'\n").unwrap(),
        [
            word("Enable-NetAdapterQos"),
            word("-Name"),
            literal("it's ‘x’ y"),
            Token::Comment(" c'".to_owned()),
            Token::NewLine
        ]
    );
    // The attack: an ASCII-only doubling leaves the typographic quote to end the string.
    assert_eq!(
        tokenize("X -Name 'a’; Write-Host X; ’'").unwrap(),
        [
            word("X"),
            word("-Name"),
            literal("a"),
            Token::Operator(';'),
            word("Write-Host"),
            word("X"),
            Token::Operator(';'),
            literal("")
        ]
    );
    assert_eq!(
        tokenize("# a\u{2028}b\r\nx").unwrap(),
        [
            Token::Comment(" a\u{2028}b".to_owned()),
            Token::NewLine,
            word("x")
        ]
    );
    assert_eq!(
        tokenize("'a\nb'").unwrap(),
        [literal("a\nb")],
        "a newline inside a string is data"
    );
    assert!(tokenize("'open").is_err());
}
