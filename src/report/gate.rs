//! A gate step's report ([`GateReport`]) as text, JSON and Markdown: per host, one story per
//! port (root cause first), then the rest.

use std::io::{self, Write};

use crate::gate::GateReport;

/// Text: per host its verdict line and its stories.
pub fn text(report: &GateReport, out: &mut dyn Write) -> io::Result<()> {
    // Minimal until the compare helper's version lands.
    for host in &report.hosts {
        writeln!(out, "{}", super::headline(&host.report))?;
        super::text::render(&host.report, out)?;
    }
    writeln!(
        out,
        "gate {:?} run {}: {}",
        report.run.step,
        report.run.id,
        report.verdict.as_upper()
    )
}

/// JSON following `driftgate schema gate-report`.
pub fn json(report: &GateReport, out: &mut dyn Write) -> io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, report)?;
    out.write_all(b"\n")
}

/// Markdown for a change ticket.
pub fn markdown(report: &GateReport, out: &mut dyn Write) -> io::Result<()> {
    // Minimal until the compare helper's version lands.
    for host in &report.hosts {
        super::markdown::render(&host.report, out)?;
    }
    Ok(())
}
