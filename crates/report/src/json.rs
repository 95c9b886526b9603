//! JSON report, following `schemas/report.schema.json`.

use std::io::{self, Write};

use driftgate_compare::Report;

/// Writes the report as pretty-printed JSON with a trailing newline.
pub fn render(report: &Report, out: &mut dyn Write) -> io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, report)?;
    writeln!(out)
}
