//! Escaping for every value a Markdown report takes from a capture (host names, BMC strings,
//! fact paths and values, error texts): a BMC controls those strings, and a pull-request
//! comment must not turn one into a link, an image, HTML, an @mention or a broken table.
//! All three Markdown renderers (check, gate, fleet) use these functions.

/// A value as plain text inside a paragraph, list item, heading or table cell. Every ASCII
/// punctuation character with an inline meaning in CommonMark or GFM is backslash-escaped
/// (links, images, emphasis, code, HTML, entities, strikethrough, tables, GitHub's `:emoji:`
/// and `$math$`, and `:` so that no `https://` autolink starts), and so is the first character
/// when it is punctuation (which could start a list, quote or heading); the rest (`-` `.` `,`
/// `/` and the like) has no meaning inside a line and stays readable. A `.` after `www` is
/// escaped against `www.` autolinks, a zero-width space follows each `@` so that GitHub sees
/// no mention and no e-mail autolink, and line breaks become spaces so the value cannot start
/// a block.
pub(crate) fn escape(text: &str) -> String {
    // Control characters shown first, so that the report's length is what is written.
    let text = &*crate::visible(text);
    let mut out = String::with_capacity(text.len() + text.len() / 4);
    for (i, c) in text.char_indices() {
        match c {
            '\n' | '\r' | '\t' => out.push(' '),
            '@' => out.push_str("@&#8203;"),
            '\\' | '`' | '*' | '_' | '[' | ']' | '(' | ')' | '!' | '<' | '>' | '&' | '|' | '~'
            | '#' | '$' | ':' | '{' | '}' | '^' => {
                out.push('\\');
                out.push(c);
            }
            '.' if i >= 3 && text.as_bytes()[i - 3..i].eq_ignore_ascii_case(b"www") => {
                out.push_str("\\.");
            }
            c if i == 0 && c.is_ascii_punctuation() => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out
}

/// A value as a code span outside tables: literal whatever it holds (no link, image, HTML or
/// mention is made inside code), fenced with one backtick more than its longest run of
/// backticks, padded when it starts or ends with a backtick or a space so that CommonMark's
/// stripping of one space each side gives the value back. Line breaks become spaces, so the
/// value cannot end the span's paragraph and start a block.
pub(crate) fn code(text: &str) -> String {
    let text: String = crate::visible(text)
        .chars()
        .map(|c| if matches!(c, '\n' | '\r') { ' ' } else { c })
        .collect();
    if text.is_empty() {
        return "` `".to_owned();
    }
    let fence = "`".repeat(longest_backtick_run(&text) + 1);
    let pad = text.starts_with('`')
        || text.ends_with('`')
        || (text.starts_with(' ') && text.ends_with(' ') && !text.trim().is_empty());
    let pad = if pad { " " } else { "" };
    format!("{fence}{pad}{text}{pad}{fence}")
}

/// A value as a code span in a GFM table cell. A pipe splits a cell even inside a code span,
/// and `\|` there cannot stand for a backslash before a pipe, so a value holding a pipe is
/// written as escaped text instead (no longer monospace, still literal).
pub(crate) fn code_cell(text: &str) -> String {
    if text.contains('|') {
        escape(text)
    } else {
        code(text)
    }
}

/// The longest run of backticks in `text`: a fence of code must be longer.
pub(crate) fn longest_backtick_run(text: &str) -> usize {
    let mut longest = 0;
    let mut run = 0;
    for c in text.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    longest
}
