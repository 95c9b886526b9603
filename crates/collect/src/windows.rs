//! The `windows` source: NIC QoS/DCB state of a Windows or Azure Local host, read by one
//! PowerShell collector (embedded here, shipped as `examples/collectors/windows-qos.ps1`)
//! that prints a JSON document; plus the import of `Get-NetAdapterQos` text from tickets.
//! Both write the host's own view of its ports (`nic/<key>/os/…`, `host/qos/…`) and what each
//! port's link partner advertised over DCBX (`nic/<key>/peer/…`, [`crate::peer`]).

pub mod json;
mod remote;
pub mod text;

use base64::Engine as _;

use super::encoding::decode_text;
use super::transport::{CommandSpec, CommandTransport};
use super::{SourceCapture, SourceError, unjoined_notes};
use driftgate_snapshot::SourceStatus;

/// The collector script.
pub const COLLECTOR: &str = include_str!("../../../examples/collectors/windows-qos.ps1");

/// Runs the script that arrives on standard input as one block (not line by line, as
/// `-Command -` would).
const BOOTSTRAP: &str =
    "$ErrorActionPreference='Stop'; Invoke-Expression ([Console]::In.ReadToEnd())";

/// File name of the collector's output in a `dir:` folder.
pub const RECORDING: &str = "windows-qos.json";

/// The command that runs the collector, which it reads from standard input.
///
/// The collector is too long for a command line (cmd.exe, Windows OpenSSH's default shell,
/// stops at 8191 characters), so a short encoded bootstrap reads it from standard input;
/// `-EncodedCommand` needs no quoting through ssh and cmd.exe.
pub fn collector_argv() -> Vec<String> {
    let bootstrap: Vec<u8> = BOOTSTRAP
        .encode_utf16()
        .flat_map(u16::to_le_bytes)
        .collect();
    let encoded = base64::engine::general_purpose::STANDARD.encode(bootstrap);
    [
        "powershell",
        "-NoProfile",
        "-NonInteractive",
        "-ExecutionPolicy",
        "Bypass",
        "-EncodedCommand",
        &encoded,
    ]
    .map(str::to_owned)
    .to_vec()
}

/// Runs the collector through `transport` and parses its output. Failed when the output is
/// not the collector's document, partial when the document lacks sections, adapters or
/// properties the collector always writes; adapters keyed by name because no MAC was reported
/// for them are noted.
pub fn capture(transport: &dyn CommandTransport) -> SourceCapture {
    let target = transport.target();
    let failed = |error: String| SourceCapture::failed(target.clone(), SourceError::one(error));
    let argv = collector_argv();
    let argv: Vec<&str> = argv.iter().map(String::as_str).collect();
    let spec = CommandSpec {
        file: RECORDING,
        argv: &argv,
        stdin: Some(COLLECTOR.as_bytes()),
    };
    let output = match transport.run(&spec) {
        Ok(output) => output,
        Err(e) => return failed(e.to_string()),
    };
    if output.status != 0 {
        return failed(format!(
            "{target}: the PowerShell collector exited with status {}: {}",
            output.status,
            output.stderr_line()
        ));
    }
    let text = match decode_text(&output.stdout) {
        Ok(text) => text,
        Err(e) => return failed(format!("{target}: collector output ({RECORDING}): {e}")),
    };
    match json::parse(&text) {
        Ok(parsed) => {
            let (status, error) = if parsed.gaps.is_empty() {
                (SourceStatus::Complete, None)
            } else {
                let gaps: Vec<String> = parsed.gaps.iter().map(ToString::to_string).collect();
                (
                    SourceStatus::Partial,
                    Some(SourceError::one(format!(
                        "{target}: collector output ({RECORDING}) is incomplete: {}",
                        gaps.join("; ")
                    ))),
                )
            };
            SourceCapture {
                facts: parsed.facts,
                status,
                error,
                notes: unjoined_notes(&parsed.unjoined),
                target,
            }
        }
        Err(e) => failed(format!("{target}: collector output ({RECORDING}): {e}")),
    }
}

#[cfg(test)]
mod tests;
