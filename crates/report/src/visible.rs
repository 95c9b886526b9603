//! The one way a report shows what it did not write itself. Host, peer and BMC names, fact
//! values and error texts come from machines driftgate does not control; a control character
//! among them (an ESC starting a terminal sequence, an OSC-8 link, a BEL, a CR that rewinds
//! the line, a C1 control) would act in the terminal, the CI log or the `cat` that shows the
//! report, instead of being read. [`visible`] writes each as its code point (`\u{1b}`), so the
//! reader sees that it was sent and nothing acts on it.
//!
//! Every text format goes through it, and escapes for its own syntax on top: the text report,
//! Markdown, HTML and JUnit are written through a [`Shown`] writer (`\u{1b}` in the output,
//! the text renderers' own ANSI styles excepted, see [`Paint`]); Markdown's escaping, SARIF's
//! messages, JUnit's values and Prometheus's label values take [`visible`] strings before
//! their own escaping (a `\` of `\u{1b}` is then escaped as the format needs). JSON keeps the
//! exact value: a JSON `\u001b` escape for every control character ([`Shown::json`]), which
//! serde_json writes for C0 only.

use std::borrow::Cow;
use std::cell::Cell;
use std::fmt::{self, Write as _};
use std::io::{self, Write};

use anstyle::Style;

/// Whether `c` is shown as its code point: every control character (C0, DEL, C1) but the line
/// feed and the tab, which reports lay out with.
fn hidden(c: char) -> bool {
    c.is_control() && !matches!(c, '\n' | '\t')
}

/// `text` with every control character but line feed and tab written as its code point,
/// `\u{1b}` (see the module's documentation); borrowed when there is none.
pub fn visible(text: &str) -> Cow<'_, str> {
    if !text.chars().any(hidden) {
        return Cow::Borrowed(text);
    }
    let mut shown = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if hidden(c) {
            let _ = write!(shown, "\\u{{{:x}}}", u32::from(c));
        } else {
            shown.push(c);
        }
    }
    Cow::Owned(shown)
}

thread_local! {
    /// Set while a [`Paint`] writes its style: the only bytes a [`Shown`] writer passes raw.
    static PAINTING: Cell<bool> = const { Cell::new(false) };
}

/// An ANSI style of the text renderers (`{BOLD}…{BOLD:#}`), written as anstyle writes it and
/// passed raw by the [`Shown`] writer while everything else written with it is made visible:
/// the renderer's styles and a BMC's escape sequences arrive through the same `write!`, and
/// only the one writing them knows which is which. Written straight into the writer: a `Paint`
/// formatted into a `String` first is text by the time it is written, and is shown as such.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Paint(Style);

impl Paint {
    /// `style`, to be written raw.
    pub(crate) const fn new(style: Style) -> Paint {
        Paint(style)
    }
}

impl fmt::Display for Paint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        PAINTING.set(true);
        let written = if f.alternate() {
            write!(f, "{:#}", self.0)
        } else {
            write!(f, "{}", self.0)
        };
        PAINTING.set(false);
        written
    }
}

/// How a [`Shown`] writer writes a control character.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Form {
    /// `\u{1b}`, as [`visible`] does.
    Visible,
    /// `\u001b`, a JSON string's escape: in a JSON document a control character can only be
    /// inside a string (serde_json escapes C0 there itself; DEL and C1 it writes raw).
    Json,
}

/// A writer that writes every control character but line feed and tab passing through it as
/// its code point (as `\u{1b}`, or a JSON escape inside JSON), except the report's own styles.
/// The one place a whole rendered document is made safe to show.
pub struct Shown<'a> {
    out: &'a mut dyn Write,
    form: Form,
    /// The lead byte 0xC2 of a C1 control (U+0080–U+009F) split from its second byte by the
    /// end of a write.
    lead: bool,
}

impl<'a> Shown<'a> {
    /// Control characters written as [`visible`] writes them: text, Markdown, HTML, JUnit.
    pub fn visible(out: &'a mut dyn Write) -> Shown<'a> {
        Shown {
            out,
            form: Form::Visible,
            lead: false,
        }
    }

    /// Control characters written as JSON escapes, for a JSON document: the value stays exact.
    pub fn json(out: &'a mut dyn Write) -> Shown<'a> {
        Shown {
            out,
            form: Form::Json,
            lead: false,
        }
    }

    fn code(&mut self, code: u8) -> io::Result<()> {
        match self.form {
            Form::Visible => write!(self.out, "\\u{{{code:x}}}"),
            Form::Json => write!(self.out, "\\u{code:04x}"),
        }
    }

    /// A held lead byte written as it came (it was not one of a C1 control).
    fn release(&mut self) -> io::Result<()> {
        if std::mem::take(&mut self.lead) {
            self.out.write_all(&[0xc2])?;
        }
        Ok(())
    }
}

/// Whether `b` is the second byte of a C1 control after 0xC2.
fn c1(b: u8) -> bool {
    (0x80..=0x9f).contains(&b)
}

impl Write for Shown<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if PAINTING.get() {
            self.release()?;
            self.out.write_all(buf)?;
            return Ok(buf.len());
        }
        let mut i = 0;
        if std::mem::take(&mut self.lead) {
            match buf.first() {
                Some(&b) if c1(b) => {
                    self.code(b)?;
                    i = 1;
                }
                _ => self.out.write_all(&[0xc2])?,
            }
        }
        let mut start = i;
        while i < buf.len() {
            let b = buf[i];
            let (code, len) = match b {
                b'\n' | b'\t' => (None, 1),
                0x00..=0x1f | 0x7f => (Some(b), 1),
                0xc2 => match buf.get(i + 1) {
                    Some(&next) if c1(next) => (Some(next), 2),
                    Some(_) => (None, 1),
                    None => {
                        self.out.write_all(&buf[start..i])?;
                        self.lead = true;
                        return Ok(buf.len());
                    }
                },
                _ => (None, 1),
            };
            if let Some(code) = code {
                self.out.write_all(&buf[start..i])?;
                self.code(code)?;
                start = i + len;
            }
            i += len;
        }
        self.out.write_all(&buf[start..])?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.release()?;
        self.out.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a hostile BMC or peer names itself: an OSC-8 link ended by ESC \ and by BEL, a CSI
    /// colour, a CR that rewinds the line, a DEL, C1 controls (CSI U+009B, NEL U+0085).
    const HOSTILE: &str = "sw\u{1b}]8;;https://evil\u{1b}\\click\u{1b}]8;;\u{7}\u{1b}[31mred\rX\u{7f}\u{9b}2J\u{85}é\n\tend";

    #[test]
    fn every_control_character_but_line_feed_and_tab_is_shown_by_its_code_point() {
        let shown = visible(HOSTILE);
        assert_eq!(
            shown,
            "sw\\u{1b}]8;;https://evil\\u{1b}\\click\\u{1b}]8;;\\u{7}\\u{1b}[31mred\\u{d}X\\u{7f}\\u{9b}2J\\u{85}é\n\tend"
        );
        assert!(!shown.chars().any(hidden));
        assert!(matches!(visible("plain é → ✓"), Cow::Borrowed(_)));
        // Shown twice, it is the same: nothing is left to show.
        assert_eq!(visible(&shown), shown);
    }

    /// `text` through a [`Shown`] writer in pieces of `size` bytes.
    fn through(text: &str, size: usize, json: bool) -> String {
        let mut out = Vec::new();
        {
            let mut shown = if json {
                Shown::json(&mut out)
            } else {
                Shown::visible(&mut out)
            };
            for piece in text.as_bytes().chunks(size) {
                shown.write_all(piece).unwrap();
            }
            shown.flush().unwrap();
        }
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn the_writer_shows_what_visible_shows_however_the_bytes_are_cut() {
        for size in [1, 2, 3, 7, 1000] {
            assert_eq!(through(HOSTILE, size, false), visible(HOSTILE), "{size}");
        }
    }

    #[test]
    fn in_json_a_control_character_is_a_json_escape_and_the_value_stays_exact() {
        let value = serde_json::json!({ "name": HOSTILE });
        let json = through(&serde_json::to_string_pretty(&value).unwrap(), 5, true);
        assert!(!json.chars().any(hidden), "{json}");
        assert!(json.contains("\\u007f\\u009b2J\\u0085"), "{json}");
        let back: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(back, value);
    }

    #[test]
    fn a_paint_passes_raw_and_nothing_else_does() {
        const RED: Paint = Paint::new(Style::new().bold());
        let mut out = Vec::new();
        {
            let mut shown = Shown::visible(&mut out);
            let sent = "\u{1b}[31m";
            write!(shown, "{RED}{sent}{RED:#} \u{1b}[1m").unwrap();
        }
        let text = String::from_utf8(out).unwrap();
        assert_eq!(text, "\u{1b}[1m\\u{1b}[31m\u{1b}[0m \\u{1b}[1m");
    }
}
