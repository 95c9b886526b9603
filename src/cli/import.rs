//! `driftgate import`.

use std::path::PathBuf;

use anyhow::Context as _;
use driftgate_collect::encoding::decode_text;
use driftgate_collect::{unjoined_notes, windows};
use driftgate_fs::{WriteOptions, write_output};
use driftgate_snapshot::{HostName, Snapshot, SourceRecord, SourceStatus};

use super::common::Context;
use crate::exit::Outcome;

/// Import subcommands.
#[derive(Debug, clap::Subcommand)]
pub(crate) enum Command {
    /// Turn `Get-NetAdapterQos` text (as pasted into a ticket; UTF-8 or the UTF-16 that
    /// PowerShell's `>` writes) into a snapshot. A `Get-NetQosFlowControl` table in the same
    /// file adds the host's PFC priorities. Unparseable input, or a paste cut short (an
    /// adapter, table or command output that stops before its end), is an error naming the
    /// line; a paste that ends after a whole adapter is whole.
    #[command(after_help = "Examples:\n  \
        # on the Windows host: Get-NetAdapterQos > qos.txt; Get-NetQosFlowControl >> qos.txt\n  \
        driftgate import windows-qos qos.txt --host azl-node01 --out azl-node01.json\n  \
        driftgate check --snapshot azl-node01.json --baseline baseline:azl-node01")]
    WindowsQos {
        /// The text file.
        file: PathBuf,
        /// Host name recorded in the snapshot.
        #[arg(long)]
        host: HostName,
        /// Write the snapshot here instead of standard output: a file atomically, a device,
        /// FIFO or socket as a stream (never replaced), a symbolic link followed.
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
    },
}

pub(super) fn run(command: Command, ctx: &Context<'_>) -> anyhow::Result<Outcome> {
    let Command::WindowsQos { file, host, out } = command;
    if let Some(out) = &out {
        super::common::check_out("--out", out)?;
    }
    let origin = file.display().to_string();
    let bytes = std::fs::read(&file).with_context(|| format!("{origin}: cannot read"))?;
    let text = decode_text(&bytes).with_context(|| format!("{origin}: cannot decode"))?;
    let (facts, names) = windows::text::parse(&text)
        .with_context(|| format!("{origin}: not Get-NetAdapterQos output"))?;
    let snapshot = Snapshot {
        host,
        captured_at: jiff::Timestamp::now()
            .round(jiff::Unit::Second)
            .unwrap_or_else(|_| jiff::Timestamp::now()),
        tool: driftgate_snapshot::tool_version(),
        sources: vec![SourceRecord {
            name: "windows".into(),
            target: format!("import:{origin}"),
            status: SourceStatus::Complete,
            error: None,
        }],
        facts,
    };
    for note in unjoined_notes(&names) {
        ctx.printer.warn(&note);
    }
    let json = snapshot.to_canonical_json();
    match out {
        Some(out) => write_output(&out, json.as_bytes(), WriteOptions::PRIVATE)
            .with_context(|| format!("{}: cannot write", out.display()))?,
        None => ctx.printer.stdout_raw(|w| w.write_all(json.as_bytes()))?,
    }
    Ok(Outcome::Done)
}
