//! Renderers of a [`driftgate_compare::Report`]: each writes to a writer and decides nothing.
//!
//! The text renderer always writes ANSI styles; the caller's stream strips them when colour is
//! off (not a terminal, `NO_COLOR`). JUnit, SARIF, Prometheus and HTML render a [`View`] (the
//! hosts of any document, one shape) with the [`Extras`] the caller read for them (baseline
//! lines, drift timelines, the textfile being replaced): renderers read nothing and have no
//! clock. What they render is [`driftgate_compare`]'s judgement and the [`document`]s of this
//! crate, which the gate, fleet and baseline operations fill: a report depends on nothing that
//! reads a store or a host.

pub mod document;
pub mod fleet;
mod format;
pub mod gate;
pub mod html;
pub mod json;
pub mod junit;
pub mod markdown;
mod port_summary;
pub mod prometheus;
pub mod sarif;
pub mod schemas;
pub mod text;
pub mod view;
mod visible;
mod why_column;
mod wording;

use std::io::{self, Write};

pub use format::{Document, Extras, Format};
pub use view::{HostView, UnreadableTime, View, ViewKind, hosts_at};
pub use visible::{Shown, visible};
pub use wording::{
    allowance_rule, allowed_by, firmware_line, firmware_line_listed, headline, origin_name,
    origin_phrase, port_of, unknown_firmware, value_text,
};

/// Writes `document` in `format`: the one entry every command that reports goes through.
/// No control character a capture sent reaches `out` raw (see [`visible`]): text, Markdown,
/// HTML and JUnit show each as `\u{1b}`, JSON and SARIF as JSON escapes (JSON keeps the exact
/// value, SARIF's messages are shown visibly), Prometheus's label values take [`visible`]
/// ones before its own escaping.
pub fn render<'a>(
    document: impl Into<Document<'a>>,
    format: Format,
    extras: &Extras,
    out: &mut dyn Write,
) -> io::Result<()> {
    let document = document.into();
    let mut shown = match format {
        Format::Json | Format::Sarif => Shown::json(out),
        // A `\u{1b}` written after the textfile's escaping would be an escape it does not know:
        // its label values are shown by the sanitiser before they are escaped.
        Format::Prometheus => return render_to(document, format, extras, out),
        Format::Text | Format::Markdown | Format::Junit | Format::Html => Shown::visible(out),
    };
    render_to(document, format, extras, &mut shown)?;
    shown.flush()
}

fn render_to(
    document: Document<'_>,
    format: Format,
    extras: &Extras,
    out: &mut dyn Write,
) -> io::Result<()> {
    match (document, format) {
        (document, Format::Junit) => junit::render(&View::of(document), out),
        (document, Format::Sarif) => sarif::render(&View::of(document), extras, out),
        (document, Format::Prometheus) => prometheus::render(&View::of(document), extras, out),
        (document, Format::Html) => html::render(&View::of(document), extras, out),
        (Document::Check(report, stories), Format::Text) => text::render(report, stories, out),
        (Document::Check(report, _), Format::Json) => json::render(report, out),
        (Document::Check(report, stories), Format::Markdown) => {
            markdown::render(report, stories, out)
        }
        (Document::Gate(report), Format::Text) => gate::text(report, out),
        (Document::Gate(report), Format::Json) => gate::json(report, out),
        (Document::Gate(report), Format::Markdown) => gate::markdown(report, out),
        (Document::Fleet(report), Format::Text) => fleet::text(report, extras.columns, out),
        (Document::Fleet(report), Format::Json) => fleet::json(report, out),
        (Document::Fleet(report), Format::Markdown) => fleet::markdown(report, out),
    }
}

#[cfg(test)]
pub(crate) mod testing;
#[cfg(test)]
mod tests;
