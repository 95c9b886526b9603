//! A gate step's report ([`GateReport`]) as text, JSON and Markdown: per host, one story per
//! port (root cause first), then the rest.

use std::io::{self, Write};

use crate::gate::GateReport;

/// Text: per host its verdict line and its stories.
pub fn text(_report: &GateReport, _out: &mut dyn Write) -> io::Result<()> {
    todo!("issue 11: compare helper")
}

/// JSON following `driftgate schema gate-report`.
pub fn json(report: &GateReport, out: &mut dyn Write) -> io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, report)?;
    out.write_all(b"\n")
}

/// Markdown for a change ticket.
pub fn markdown(_report: &GateReport, _out: &mut dyn Write) -> io::Result<()> {
    todo!("issue 11: compare helper")
}
