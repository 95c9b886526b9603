//! The `lldp` source: what each port's LLDP neighbour (the switch port, or in a switchless
//! cluster the other node's NIC) says about itself and advertises for DCB, read from the
//! host's LLDP agent over any command transport. It needs no DCB hardware: any interface an
//! agent listens on will do.
//!
//! Ports come from `ip -j -d link show`: Ethernet ports and veth pairs (how a container or a
//! lab namespace is wired; bonds, VLANs and bridges have no link of their own), keyed by
//! permanent MAC like the `linux` source's ports. The agent is Open-LLDP's lldpad when it
//! answers (`lldptool -t -n -i IF`, per port), else lldpd (`lldpcli -f json0 show neighbors
//! details`, once). Recorded files in a `dir:` folder: `ip-link.json`, `lldptool-IF.txt`, or
//! `lldpcli-neighbors.json` (with `X.exit`/`X.stderr` for a command that failed).
//!
//! "No neighbour on this port" is a fact (`peer/neighbour = false`), not a failure. No agent
//! at all, a port the agent cannot answer for, and an answer the parsers reject (cut short, an
//! unknown DCB TLV, a neighbour dropped mid-read, a TLV given twice, lldpcli output larger than
//! the LLDPDUs of the host's ports can print) make the source failed or partial, naming the
//! command, its file and the line.

pub mod parse;

use super::linux::parse::{Link, parse_ip_link};
use super::nic::port_key;
use super::peer::PeerFacts;
use super::transport::{CommandOutput, CommandSpec, CommandTransport, Session, TransportError};
use super::{SourceCapture, SourceError};
use driftgate_model::MacAddr;
use driftgate_snapshot::{Facts, SourceStatus};
use parse::Received;

/// What lldpcli's answer lists, file name in a recording.
const LLDPCLI_FILE: &str = "lldpcli-neighbors.json";
/// The most lldpcli may print per port: a neighbour's LLDPDU fits in one frame of 1500 octets,
/// which lldpcli prints in a few KiB (the lab switch's, every DCB TLV: 3 KiB). Its JSON is
/// parsed whole, at some forty times its size in memory: what no neighbour can send is refused
/// before.
const LLDPCLI_PER_PORT: usize = 256 * 1024;
const LLDPCLI: [&str; 6] = ["lldpcli", "-f", "json0", "show", "neighbors", "details"];

/// Reads the neighbours of the host behind `transport`.
pub fn capture(transport: &dyn CommandTransport) -> SourceCapture {
    let mut session = Session::new(transport);
    let target = session.target();
    let mut errors: Vec<String> = Vec::new();
    let mut facts = Facts::new();
    let ports = match ports(&mut session) {
        Ok(ports) => ports,
        Err(error) => return SourceCapture::failed(target, SourceError::one(error)),
    };
    let (first_name, _) = &ports[0];
    let first = run(
        &mut session,
        &lldptool_file(first_name),
        &lldptool(first_name),
    );
    match lldpad_answer(&first) {
        // The host, not its agent, did not answer: asking lldpd would fail the same way.
        Err(Unanswered::Transport(error)) => {
            return SourceCapture::failed(target, SourceError::one(error));
        }
        Ok(()) => lldpad_neighbours(&mut session, &ports, first, &mut facts, &mut errors),
        Err(Unanswered::NoAgent(lldpad)) => {
            if let Err(error) =
                lldpd_neighbours(&mut session, &ports, &lldpad, &mut facts, &mut errors)
            {
                return SourceCapture::failed(target, error);
            }
        }
    }
    let status = if errors.is_empty() {
        SourceStatus::Complete
    } else {
        SourceStatus::Partial
    };
    SourceCapture {
        target,
        facts,
        status,
        error: (!errors.is_empty()).then(|| SourceError::unread(errors)),
        notes: Vec::new(),
    }
}

/// The neighbours lldpad knows: `lldptool` per port, the first port's answer (`first`)
/// already read.
fn lldpad_neighbours(
    session: &mut Session<'_>,
    ports: &[(String, String)],
    first: Result<CommandOutput, TransportError>,
    facts: &mut Facts,
    errors: &mut Vec<String>,
) {
    let target = session.target();
    let mut first = Some(first);
    for (name, key) in ports {
        if session.is_unreachable() {
            break;
        }
        let output = first
            .take()
            .unwrap_or_else(|| run(session, &lldptool_file(name), &lldptool(name)));
        let command = lldptool(name).join(" ");
        let file = lldptool_file(name);
        match output {
            Ok(output) if output.status == 0 => {
                match parse::parse_lldptool(&String::from_utf8_lossy(&output.stdout)) {
                    Ok(received) => write(facts, key, received.as_ref()),
                    Err(e) => errors.push(format!("{target}: `{command}` output ({file}): {e}")),
                }
            }
            Ok(output) => errors.push(format!(
                "{target}: `{command}` exited with status {}: {}",
                output.status,
                output.stderr_line()
            )),
            Err(e) => errors.push(e.to_string()),
        }
    }
}

/// The neighbours lldpd knows: `lldpcli` once for all ports, lldpad not having answered
/// (`lldpad` says why). `Err`: why the source failed, when neither agent answers.
fn lldpd_neighbours(
    session: &mut Session<'_>,
    ports: &[(String, String)],
    lldpad: &str,
    facts: &mut Facts,
    errors: &mut Vec<String>,
) -> Result<(), SourceError> {
    let target = session.target();
    let output = run(session, LLDPCLI_FILE, &LLDPCLI.map(str::to_owned));
    let command = LLDPCLI.join(" ");
    let lldpd = match &output {
        Ok(output) if output.status == 0 => None,
        Ok(output) if output.status == 127 => Some("lldpcli is not installed".to_owned()),
        Ok(output) => Some(format!(
            "`{command}` exited with status {}: {}",
            output.status,
            output.stderr_line()
        )),
        Err(TransportError::NotRecorded { .. }) => Some(format!("no {LLDPCLI_FILE} recorded")),
        Err(e) => Some(e.to_string()),
    };
    if let Some(lldpd) = lldpd {
        return Err(SourceError::one(format!(
            "{target}: no LLDP agent answered: lldpad: {lldpad}; lldpd: {lldpd}"
        )));
    }
    let output = output.expect("answered");
    let limit = ports.len().saturating_mul(LLDPCLI_PER_PORT);
    let parsed = if output.stdout.len() > limit {
        Err(format!(
            "{target}: `{command}` output ({LLDPCLI_FILE}) is {} bytes, more than the {limit} the LLDPDUs of {} port(s) can print (256 KiB each): not read",
            output.stdout.len(),
            ports.len()
        ))
    } else {
        parse::parse_lldpcli(&String::from_utf8_lossy(&output.stdout))
            .map_err(|e| format!("{target}: `{command}` output ({LLDPCLI_FILE}): {e}"))
    };
    let mut neighbours = match parsed {
        Ok(neighbours) => neighbours,
        Err(e) => {
            errors.push(e);
            return Ok(());
        }
    };
    for (name, key) in ports {
        match neighbours.iter().position(|(n, _)| n == name) {
            Some(at) => {
                let (_, received) = neighbours.remove(at);
                write(facts, key, Some(&received));
            }
            None => write(facts, key, None),
        }
    }
    for (name, _) in neighbours {
        errors.push(format!(
            "{target}: `{command}` ({LLDPCLI_FILE}) lists a neighbour on {name:?}, which `ip -j -d link show` does not list as a port: the two reads disagree"
        ));
    }
    Ok(())
}

/// The ports to read, as (name, key): at least one.
fn ports(session: &mut Session<'_>) -> Result<Vec<(String, String)>, String> {
    let target = session.target();
    let argv = ["ip", "-j", "-d", "link", "show"].map(str::to_owned);
    let output = run(session, "ip-link.json", &argv).map_err(|e| e.to_string())?;
    let command = argv.join(" ");
    if output.status != 0 {
        return Err(format!(
            "{target}: `{command}` exited with status {}: {}",
            output.status,
            output.stderr_line()
        ));
    }
    let links = parse_ip_link(&String::from_utf8_lossy(&output.stdout))
        .map_err(|e| format!("{target}: `{command}` output (ip-link.json): {e}"))?;
    let ports: Vec<(String, String)> = links
        .iter()
        .filter(|l| l.link_type == "ether" && matches!(l.kind.as_deref(), None | Some("veth")))
        .map(|l| (l.name.clone(), key(l)))
        .collect();
    if ports.is_empty() {
        return Err(format!(
            "{target}: `{command}` lists no Ethernet port for an LLDP agent to listen on"
        ));
    }
    Ok(ports)
}

/// A port's key: its permanent MAC, as the `linux` source keys it.
fn key(link: &Link) -> String {
    let mac = link
        .permanent_address
        .as_deref()
        .or(link.address.as_deref())
        .and_then(MacAddr::parse)
        .filter(|m| !m.is_zero());
    port_key(mac, "name", &link.name)
}

/// Why lldpad gave no answer.
enum Unanswered {
    /// lldptool is missing or lldpad is not running (or not recorded): lldpd may answer.
    NoAgent(String),
    /// The transport failed (the host is unreachable, the command timed out).
    Transport(String),
}

/// `Ok` when lldpad answered (with or without a neighbour); why not otherwise.
fn lldpad_answer(output: &Result<CommandOutput, TransportError>) -> Result<(), Unanswered> {
    match output {
        Ok(output) if output.status == 127 => {
            Err(Unanswered::NoAgent("lldptool is not installed".to_owned()))
        }
        // lldptool exits 255 when it cannot reach lldpad ("Failed to connect to lldpad").
        Ok(output) if output.status == 255 => Err(Unanswered::NoAgent(format!(
            "lldptool cannot reach lldpad: {}",
            output.stderr_line()
        ))),
        // Any other answer is lldpad's: the per-port loop judges it.
        Ok(_) => Ok(()),
        Err(TransportError::NotRecorded { file, .. }) => {
            Err(Unanswered::NoAgent(format!("{file} not recorded")))
        }
        Err(e) => Err(Unanswered::Transport(e.to_string())),
    }
}

fn lldptool(interface: &str) -> [String; 5] {
    ["lldptool", "-t", "-n", "-i", interface].map(str::to_owned)
}

fn lldptool_file(interface: &str) -> String {
    format!("lldptool-{interface}.txt")
}

fn run(
    session: &mut Session<'_>,
    file: &str,
    argv: &[String],
) -> Result<CommandOutput, TransportError> {
    let argv: Vec<&str> = argv.iter().map(String::as_str).collect();
    session.run(&CommandSpec {
        file,
        argv: &argv,
        stdin: None,
    })
}

/// Writes what the agent received on the port with `key` (`None`: no neighbour).
fn write(facts: &mut Facts, key: &str, received: Option<&Received>) {
    let mut peer = PeerFacts::new(facts, key);
    match received {
        Some(received) => {
            peer.neighbour(&received.neighbour);
            peer.dcb(&received.dcb);
        }
        None => peer.none(),
    }
}

#[cfg(test)]
mod tests;
