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
pub(crate) enum Token {
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
pub(crate) fn tokenize(text: &str) -> Result<Vec<Token>, String> {
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
pub(crate) fn lines(text: &str) -> Result<Vec<Vec<Token>>, String> {
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

/// The text Windows PowerShell 5.1 reads from a script file's `bytes`: UTF-8 after a UTF-8
/// byte order mark, else the ANSI code page (Windows-1252 here), in which the bytes 0x91, 0x92
/// and 0x82 are the quotes `‘ ’ ‚` and 0x84, 0x93, 0x94 the double quotes `„ “ ”`, bytes that
/// UTF-8 uses inside other characters (`ђ` is D1 92).
pub(crate) fn as_windows_powershell_reads(bytes: &[u8]) -> String {
    if let Some(text) = bytes.strip_prefix(b"\xef\xbb\xbf") {
        return String::from_utf8(text.to_vec()).expect("UTF-8 after its byte order mark");
    }
    const HIGH: [u32; 32] = [
        0x20ac, 0x81, 0x201a, 0x192, 0x201e, 0x2026, 0x2020, 0x2021, 0x2c6, 0x2030, 0x160, 0x2039,
        0x152, 0x8d, 0x17d, 0x8f, 0x90, 0x2018, 0x2019, 0x201c, 0x201d, 0x2022, 0x2013, 0x2014,
        0x2dc, 0x2122, 0x161, 0x203a, 0x153, 0x9d, 0x17e, 0x178,
    ];
    bytes
        .iter()
        .map(|&b| match b {
            0x80..=0x9f => char::from_u32(HIGH[usize::from(b - 0x80)]).expect("a character"),
            _ => char::from(b),
        })
        .collect()
}

/// A word token.
pub(crate) fn word(text: &str) -> Token {
    Token::Word(text.to_owned())
}

/// A literal token.
pub(crate) fn literal(text: &str) -> Token {
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
    // Without a byte order mark, Windows PowerShell 5.1 reads `ђ` (D1 92) as `Ñ’`.
    assert_eq!(
        tokenize(&as_windows_powershell_reads("'ђ; x; ђ'".as_bytes())).unwrap(),
        [
            literal("Ñ"),
            Token::Operator(';'),
            word("x"),
            Token::Operator(';'),
            word("Ñ"),
            literal("")
        ]
    );
    assert_eq!(as_windows_powershell_reads("\u{feff}'ђ'".as_bytes()), "'ђ'");
}
