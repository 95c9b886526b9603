//! A fleet check's report: the one-screen summary (text), the fleet result (JSON, following
//! `driftgate schema fleet-report`) and Markdown for a ticket.

use std::io::{self, Write};

use crate::fleet::FleetReport;

/// The one-screen summary: the headline, hosts by verdict, top findings by rule, cluster and
/// stale findings, hosts that failed to capture with why, the slowest BMCs. At most 24 lines
/// whatever the number of hosts; the rest is counted.
pub fn text(report: &FleetReport, out: &mut dyn Write) -> io::Result<()> {
    let _ = (report, out);
    todo!("issue 12: fleet summary")
}

/// The fleet result as pretty JSON.
pub fn json(report: &FleetReport, out: &mut dyn Write) -> io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, report)?;
    writeln!(out)
}

/// The summary as Markdown, under 65,536 characters.
pub fn markdown(report: &FleetReport, out: &mut dyn Write) -> io::Result<()> {
    let _ = (report, out);
    todo!("issue 12: fleet markdown")
}
