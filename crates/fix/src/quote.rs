//! The one way a value from a BMC, a host, a switch or a snapshot is put into a script or a
//! command line: a POSIX shell word, a PowerShell string, a bare word, or a comment. Each keeps
//! the value data whatever it holds; what no script can carry (a NUL byte) is refused, so the
//! plan refuses the step and names the value.

use std::fmt::Write as _;

/// Why a value cannot be put into a script or a command line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Unquotable {
    /// A NUL byte: no command line (argv) and no shell script can carry one.
    #[error("{} holds a NUL byte, which no command line can carry", comment(.0))]
    Nul(String),
    /// A PowerShell wildcard character (`*`, `?`, `[`, `]`) in a name a cmdlet's `-Name` or
    /// `-InterfaceAlias` takes as a pattern: quoted, it would still select other objects.
    #[error("{} holds a PowerShell wildcard character (* ? [ ]), which -Name would match other objects with", comment(.0))]
    Wildcard(String),
    /// Not a bare word: something other than letters, digits, `_`, `.` and `-`.
    #[error("{} is not a value driftgate puts on a command line", comment(.0))]
    NotAWord(String),
}

/// The quote characters PowerShell ends a single-quoted string at: `'` and `‘ ’ ‚ ‛`
/// (U+2018–U+201B), by its language specification's `single-quote-character`.
pub(crate) const POWERSHELL_QUOTES: [char; 5] =
    ['\'', '\u{2018}', '\u{2019}', '\u{201a}', '\u{201b}'];

fn no_nul(text: &str) -> Result<(), Unquotable> {
    if text.contains('\0') {
        Err(Unquotable::Nul(text.to_owned()))
    } else {
        Ok(())
    }
}

/// `text` as one word of a POSIX shell: itself when it holds only characters no shell gives a
/// meaning (letters, digits, `._-:/=,+@`), else in single quotes, inside which nothing but `'`
/// has a meaning; a `'` is written `'\''`. Newlines, `$( )`, backticks stay data.
pub(crate) fn sh(text: &str) -> Result<String, Unquotable> {
    no_nul(text)?;
    if !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "._-:/=,+@".contains(c))
    {
        return Ok(text.to_owned());
    }
    Ok(format!("'{}'", text.replace('\'', r"'\''")))
}

/// `text` as a PowerShell single-quoted (verbatim) string: every character PowerShell takes for
/// a single quote ([`POWERSHELL_QUOTES`]) is doubled, which PowerShell reads as that one
/// character; nothing else has a meaning inside (no `$`, no backtick escapes).
pub(crate) fn powershell(text: &str) -> Result<String, Unquotable> {
    no_nul(text)?;
    let mut out = String::with_capacity(text.len() + 2);
    out.push('\'');
    for c in text.chars() {
        if POWERSHELL_QUOTES.contains(&c) {
            out.push(c);
        }
        out.push(c);
    }
    out.push('\'');
    Ok(out)
}

/// `name` as the PowerShell string a cmdlet's `-Name` or `-InterfaceAlias` takes: those
/// parameters are wildcard patterns, so a name holding `*`, `?`, `[` or `]` is refused rather
/// than quoted (it would select every adapter, policy or class it matches).
pub(crate) fn powershell_name(name: &str) -> Result<String, Unquotable> {
    if name.contains(['*', '?', '[', ']']) {
        return Err(Unquotable::Wildcard(name.to_owned()));
    }
    powershell(name)
}

/// The argument of `powershell -EncodedCommand` that runs `script`: base64 of its UTF-16LE
/// text. Letters, digits, `+`, `/` and `=` only, so it reaches PowerShell unchanged through
/// ssh, a remote POSIX shell or cmd.exe (whose `& | < > ^` and quotes differ from
/// PowerShell's), where a `-Command` line would be split and read again on the way.
pub fn powershell_encoded(script: &str) -> Result<String, Unquotable> {
    use base64::Engine as _;
    no_nul(script)?;
    let bytes: Vec<u8> = script.encode_utf16().flat_map(u16::to_le_bytes).collect();
    Ok(base64::engine::general_purpose::STANDARD.encode(bytes))
}

/// `text` when it is a bare word (letters, digits, `_`, `.` and `-`): for values a command
/// takes unquoted (a priority, an action), refused otherwise.
pub(crate) fn word(text: &str) -> Result<&str, Unquotable> {
    if !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_.-".contains(c))
    {
        Ok(text)
    } else {
        Err(Unquotable::NotAWord(text.to_owned()))
    }
}

/// Whether `c` is shown escaped in a comment: a control character (C0, DEL, C1, which holds
/// U+0085), a line or paragraph separator, or a bidirectional control that reorders what a
/// reader sees.
fn hidden(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{2028}' | '\u{2029}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}'
        )
}

/// `text` for a comment or a message of one line: every control character, line or paragraph
/// separator and bidirectional control shown as `\u{…}` (a newline is `\u{a}`), so nothing
/// ends the comment or hides what follows; everything else as it is.
pub fn comment(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if hidden(c) {
            let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
        } else {
            out.push(c);
        }
    }
    out
}

/// A POSIX shell function, `curl_account`, that writes curl's configuration line
/// `user = "<user>:<password>"` for the account in the shell variables `bmc_user` and
/// `bmc_password`, each byte as it is except what curl's double-quoted syntax escapes (`\\`,
/// `\"`, `\t`, `\n`, `\r`, `\v`). Only shell builtins touch the account: no other process
/// sees it in its arguments or environment.
pub(crate) const SH_CURL_ACCOUNT: &str = r#"# curl's configuration line of the account: inside double quotes curl reads \\ \" \t \n \r \v
# as escapes, so those are written escaped and every other byte as it is. Builtins only.
curl_quoted() {
  rest=$1
  while [ -n "$rest" ]; do
    tail=${rest#?}
    c=${rest%"$tail"}
    rest=$tail
    case $c in
      \\) printf '%s' '\\' ;;
      \") printf '%s' '\"' ;;
      "$tab") printf '%s' '\t' ;;
      "$nl") printf '%s' '\n' ;;
      "$cr") printf '%s' '\r' ;;
      "$vt") printf '%s' '\v' ;;
      *) printf '%s' "$c" ;;
    esac
  done
}
curl_account() {
  printf 'user = "'
  curl_quoted "$bmc_user"
  printf ':'
  curl_quoted "$bmc_password"
  printf '"\n'
}
nl='
'
tab=$(printf '\t') cr=$(printf '\r') vt=$(printf '\v')
"#;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shell_word_is_plain_or_single_quoted() {
        assert_eq!(sh("naa.600").unwrap(), "naa.600");
        assert_eq!(sh("a b'c").unwrap(), r"'a b'\''c'");
        assert_eq!(sh("").unwrap(), "''");
        assert_eq!(sh("$(id)\n`id`;#").unwrap(), "'$(id)\n`id`;#'");
        assert_eq!(
            sh("a\0b"),
            Err(Unquotable::Nul("a\0b".to_owned())),
            "a NUL cannot be carried"
        );
    }

    #[test]
    fn a_powershell_string_doubles_every_quote_powershell_honours() {
        assert_eq!(powershell("SLOT 3 Port 1").unwrap(), "'SLOT 3 Port 1'");
        assert_eq!(powershell("it's").unwrap(), "'it''s'");
        assert_eq!(
            powershell("SLOT 3 Port 1\u{2019}; Write-Host X; \u{2019}").unwrap(),
            "'SLOT 3 Port 1\u{2019}\u{2019}; Write-Host X; \u{2019}\u{2019}'"
        );
        assert_eq!(
            powershell("\u{2018}\u{201a}\u{201b}$x`n\"").unwrap(),
            "'\u{2018}\u{2018}\u{201a}\u{201a}\u{201b}\u{201b}$x`n\"'"
        );
        assert!(powershell("\0").is_err());
    }

    #[test]
    fn a_comment_shows_what_would_end_or_hide_it() {
        assert_eq!(comment("a\nb"), r"a\u{a}b");
        assert_eq!(
            comment("\r\u{85}\u{2028}\u{2029}\u{1b}[31m\u{7f}\u{202e}\t"),
            r"\u{d}\u{85}\u{2028}\u{2029}\u{1b}[31m\u{7f}\u{202e}\u{9}"
        );
        assert_eq!(comment("Brücke ‘x’ #1"), "Brücke ‘x’ #1");
    }

    #[test]
    fn a_name_a_cmdlet_takes_as_a_pattern_holds_no_wildcard() {
        assert_eq!(powershell_name("SLOT 3 Port 1").unwrap(), "'SLOT 3 Port 1'");
        for pattern in ["*", "SLOT?", "x[1]", "SMB]"] {
            assert_eq!(
                powershell_name(pattern),
                Err(Unquotable::Wildcard(pattern.to_owned()))
            );
        }
    }

    #[test]
    fn an_encoded_command_is_base64_of_utf16le() {
        // `powershell -EncodedCommand` of "dir ’" is base64 of 64 00 69 00 72 00 20 00 19 20.
        assert_eq!(
            powershell_encoded("dir \u{2019}").unwrap(),
            "ZABpAHIAIAAZIA=="
        );
        assert!(powershell_encoded("a\0").is_err());
    }

    #[test]
    fn a_word_is_letters_digits_and_three_marks() {
        assert_eq!(word("3").unwrap(), "3");
        assert_eq!(word("Default_1.x-y").unwrap(), "Default_1.x-y");
        for bad in ["", "3 4", "$x", "a;b", "ä"] {
            assert!(word(bad).is_err(), "{bad:?}");
        }
    }
}
