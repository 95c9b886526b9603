//! A gate step's report ([`GateReport`]) as text, JSON and Markdown: a headline for the run,
//! then per host its verdict line and one story per port (root cause first), then what is
//! not the update's: pre-existing drift, allowed findings, expected firmware changes; then
//! warnings and what `--promote` did. What both human formats say is in `parts.rs`; each format
//! lays it out in its own module.

mod markdown;
mod parts;
mod text;

use std::io::{self, Write};

use crate::document::GateReport;

pub use markdown::MARKDOWN_LIMIT;
pub use parts::gate_headline;

/// Text: the run's headline, then per host its verdict line and its stories (ANSI styles, as
/// [`super::text`] writes them).
pub fn text(report: &GateReport, out: &mut dyn Write) -> io::Result<()> {
    text::render(report, out)
}

/// JSON following `driftgate schema gate-report`.
pub fn json(report: &GateReport, out: &mut dyn Write) -> io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, report)?;
    out.write_all(b"\n")
}

/// Markdown for a change ticket: the run's headline, a table of hosts, then per host its
/// stories as lists. Kept under [`MARKDOWN_LIMIT`]: past it stories lose their finding
/// lists, then hosts are left out, saying so.
pub fn markdown(report: &GateReport, out: &mut dyn Write) -> io::Result<()> {
    markdown::render(report, out)
}

#[cfg(test)]
mod tests;
