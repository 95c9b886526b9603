//! The `esxi` source: `esxcli` storage-path state (NMP path selection, SATP, perennially
//! reserved devices) and the ESXi version, over any command transport.
//!
//! Each command is tried in `--formatter=xml` form first and in text form when the host (or
//! a `dir:` recording) does not have it. Recorded files are named after the command:
//! `esxcli_storage_nmp_device_list.txt` (or `.xml` for the XML form), see [`COMMANDS`].
//!
//! Nothing is assumed complete: every answer is checked for the shape of a whole answer
//! (`check.rs`), and the answers are checked against each other; what fails makes the source
//! `partial` with the command, file and line.

mod check;
mod parse;

use std::collections::BTreeMap;

use check::{Answer, Form, device_id};
use parse::{
    FieldValue, Record, parse_device_list, parse_structure, parse_table, parse_vmware_v, parse_xml,
};

use super::transport::{CommandSpec, CommandTransport, Session};
use super::{SourceCapture, SourceError, set_fact};
use driftgate_model::Version;
use driftgate_snapshot::{FactValue, Facts, SourceStatus, path_segment};

/// One thing the source reads, in text and (where ESXi has it) XML form.
#[derive(Debug, Clone, Copy)]
pub struct Probe {
    /// File stem of its recordings in a `dir:` folder.
    pub stem: &'static str,
    /// The text-form command line.
    pub text: &'static [&'static str],
    /// The XML-form command line.
    pub xml: Option<&'static [&'static str]>,
    shape: Shape,
    /// What a whole answer looks like, beyond parsing.
    check: Option<Check>,
}

/// Checks a parsed answer is whole.
type Check = fn(&[Record], Form) -> Result<(), parse::ParseError>;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape {
    DeviceList,
    Structure,
    Table,
    VmwareV,
}

const VERSION: Probe = Probe {
    stem: "esxcli_system_version_get",
    text: &["esxcli", "system", "version", "get"],
    xml: Some(&["esxcli", "--formatter=xml", "system", "version", "get"]),
    shape: Shape::Structure,
    check: Some(check::version),
};
const VMWARE_V: Probe = Probe {
    stem: "vmware_-v",
    text: &["vmware", "-v"],
    xml: None,
    shape: Shape::VmwareV,
    check: None,
};
const NMP_DEVICES: Probe = Probe {
    stem: "esxcli_storage_nmp_device_list",
    text: &["esxcli", "storage", "nmp", "device", "list"],
    xml: Some(&[
        "esxcli",
        "--formatter=xml",
        "storage",
        "nmp",
        "device",
        "list",
    ]),
    shape: Shape::DeviceList,
    check: Some(check::nmp_devices),
};
const CORE_DEVICES: Probe = Probe {
    stem: "esxcli_storage_core_device_list",
    text: &["esxcli", "storage", "core", "device", "list"],
    xml: Some(&[
        "esxcli",
        "--formatter=xml",
        "storage",
        "core",
        "device",
        "list",
    ]),
    shape: Shape::DeviceList,
    check: Some(check::core_devices),
};
const SATP_LIST: Probe = Probe {
    stem: "esxcli_storage_nmp_satp_list",
    text: &["esxcli", "storage", "nmp", "satp", "list"],
    xml: Some(&[
        "esxcli",
        "--formatter=xml",
        "storage",
        "nmp",
        "satp",
        "list",
    ]),
    shape: Shape::Table,
    check: Some(check::satps),
};
const SATP_RULES: Probe = Probe {
    stem: "esxcli_storage_nmp_satp_rule_list",
    text: &["esxcli", "storage", "nmp", "satp", "rule", "list"],
    xml: Some(&[
        "esxcli",
        "--formatter=xml",
        "storage",
        "nmp",
        "satp",
        "rule",
        "list",
    ]),
    shape: Shape::Table,
    check: Some(check::satp_rules),
};

/// Every command the source runs, in order (`vmware -v` only when the version command fails).
pub const COMMANDS: [Probe; 6] = [
    VERSION,
    VMWARE_V,
    NMP_DEVICES,
    CORE_DEVICES,
    SATP_LIST,
    SATP_RULES,
];

/// Reads the ESXi host behind `transport`.
pub fn capture(transport: &dyn CommandTransport) -> SourceCapture {
    let mut session = Session::new(transport);
    let mut errors = Vec::new();
    let mut facts = Facts::new();
    let version = match run_probe(&mut session, &VERSION) {
        Ok(answer) => answer.records.into_iter().next(),
        // ESX 4.x has no `esxcli system`: `vmware -v` names it. An answer that was printed
        // but is broken is an error of its own, never a reason to ask something else.
        Err(ProbeError::Unavailable(version_error)) => match run_probe(&mut session, &VMWARE_V) {
            Ok(answer) => answer.records.into_iter().next(),
            Err(_) => {
                errors.push(version_error);
                None
            }
        },
        Err(ProbeError::Broken(error)) => {
            errors.push(error);
            None
        }
    };
    if let Some(version) = &version
        && let Some(unsupported) = version_facts(version, &mut facts)
    {
        let error = format!("{}: {unsupported}", transport.target());
        return SourceCapture {
            target: transport.target(),
            facts,
            status: SourceStatus::Failed,
            error: Some(SourceError::one(error)),
            notes: Vec::new(),
        };
    }
    let mut run = |probe: &Probe| {
        // Once the host stopped answering, its one error says it all.
        if session.is_unreachable() {
            return None;
        }
        run_probe(&mut session, probe)
            .map_err(|e| errors.push(e.into_message()))
            .ok()
    };
    let (nmp, core, satps, rules) = (
        run(&NMP_DEVICES),
        run(&CORE_DEVICES),
        run(&SATP_LIST),
        run(&SATP_RULES),
    );
    let read = [
        version.is_some(),
        nmp.is_some(),
        core.is_some(),
        satps.is_some(),
        rules.is_some(),
    ];
    let target = transport.target();
    if let Some(nmp) = &nmp {
        errors.extend(
            check::agree(nmp, core.as_ref(), satps.as_ref(), rules.as_ref())
                .into_iter()
                .map(|e| format!("{target}: {e}")),
        );
        let core = core.as_ref().map_or(&[][..], |c| c.records.as_slice());
        nmp_facts(&nmp.records, core, &mut facts);
    }
    if let Some(satps) = &satps {
        for satp in &satps.records {
            if let (Some(name), Some(psp)) = (satp.get("name"), satp.get("defaultpsp")) {
                set_fact(
                    &mut facts,
                    &format!("storage/satp/{}/default_psp", path_segment(&name)),
                    psp.into(),
                );
            }
        }
    }
    if let Some(rules) = &rules {
        satp_rule_facts(&rules.records, &mut facts);
    }
    let status = match (errors.is_empty(), read.iter().any(|r| *r)) {
        (true, _) => SourceStatus::Complete,
        (false, true) => SourceStatus::Partial,
        (false, false) => SourceStatus::Failed,
    };
    SourceCapture {
        facts,
        status,
        error: (!errors.is_empty()).then(|| SourceError::unread(errors)),
        notes: Vec::new(),
        target,
    }
}

/// Records the version facts; returns why the version is unsupported, if it is.
fn version_facts(version: &Record, facts: &mut Facts) -> Option<String> {
    let number = version.get("version").unwrap_or_default();
    set_fact(facts, "host/esxi/version", number.clone().into());
    let build: String = version
        .get("build")
        .unwrap_or_default()
        .chars()
        .filter(char::is_ascii_digit)
        .collect();
    if !build.is_empty() {
        set_fact(facts, "host/esxi/build", build.into());
    }
    for (key, leaf) in [("update", "host/esxi/update"), ("patch", "host/esxi/patch")] {
        if let Some(value) = version.get(key) {
            set_fact(facts, leaf, value.into());
        }
    }
    let product = version.get("product").unwrap_or_default();
    Version::parse(&number).filter(|v| *v < Version::new(&[5])).map(|_| {
        format!(
            "{product} {number} is an unsupported version: driftgate reads `esxcli storage nmp`, which ESXi 5.0 introduced (ESX 4.x has `esxcli nmp`)"
        )
    })
}

/// Why a probe gave no answer.
#[derive(Debug)]
enum ProbeError {
    /// The command could not be run, was not recorded, or exited non-zero.
    Unavailable(String),
    /// The command answered, but not with a whole answer of its format.
    Broken(String),
}

impl ProbeError {
    fn into_message(self) -> String {
        match self {
            ProbeError::Unavailable(message) | ProbeError::Broken(message) => message,
        }
    }
}

/// Runs a probe in XML form, then in text form when the host has no XML formatter; the
/// error names the command, its file and the cause. An XML answer that is cut short or
/// broken is an error: it is not retried as text, since a host that printed it has the
/// formatter and something went wrong on the way.
fn run_probe(session: &mut Session<'_>, probe: &Probe) -> Result<Answer, ProbeError> {
    let target = session.target();
    if let Some(xml) = probe.xml {
        let file = format!("{}.xml", probe.stem);
        let spec = CommandSpec {
            file: &file,
            argv: xml,
            stdin: None,
        };
        if let Ok(output) = session.run(&spec)
            && output.status == 0
            && looks_like_xml(&output.stdout)
        {
            let origin = format!("`{}` output ({file})", spec.display());
            let broken =
                |e: parse::ParseError| ProbeError::Broken(format!("{target}: {origin}: {e}"));
            let text = parse::utf8(output.stdout).map_err(broken)?;
            let records = parse_xml(&text).map_err(broken)?;
            if let Some(check) = probe.check {
                check(&records, Form::Xml).map_err(broken)?;
            }
            return Ok(Answer { records, origin });
        }
    }
    let file = format!("{}.txt", probe.stem);
    let spec = CommandSpec {
        file: &file,
        argv: probe.text,
        stdin: None,
    };
    let output = session
        .run(&spec)
        .map_err(|e| ProbeError::Unavailable(e.to_string()))?;
    let command = spec.display();
    if output.status != 0 {
        let detail = output.stderr_line();
        let detail = if detail.is_empty() {
            String::from_utf8_lossy(&output.stdout).trim().to_owned()
        } else {
            detail
        };
        return Err(ProbeError::Unavailable(format!(
            "{target}: `{command}` exited with status {}: {detail}",
            output.status
        )));
    }
    let origin = format!("`{command}` output ({file})");
    let text = parse::utf8(output.stdout)
        .map_err(|e| ProbeError::Broken(format!("{target}: {origin}: {e}")))?;
    let parsed = match probe.shape {
        Shape::DeviceList => parse_device_list(&text),
        Shape::Structure => parse_structure(&text).map(|r| vec![r]),
        Shape::Table => parse_table(&text),
        Shape::VmwareV => parse_vmware_v(&text).map(|(product, version, build)| {
            let mut record = Record::default();
            for (key, value) in [("product", product), ("version", version), ("build", build)] {
                record
                    .fields
                    .insert(key.to_owned(), FieldValue::Text(value));
            }
            vec![record]
        }),
    };
    let records = parsed
        .and_then(|records| match probe.check {
            Some(check) => check(&records, Form::Text).map(|()| records),
            None => Ok(records),
        })
        .map_err(|e| ProbeError::Broken(format!("{target}: {origin}: {e}")))?;
    Ok(Answer { records, origin })
}

/// Whether a command printed an XML document (rather than, say, "Unable to find requested
/// formatter: xml" with status 0).
fn looks_like_xml(stdout: &[u8]) -> bool {
    let text = stdout.strip_prefix("\u{feff}".as_bytes()).unwrap_or(stdout);
    text.trim_ascii_start().starts_with(b"<")
}

/// The facts of each NMP device, joined with its core device entry; both answers were
/// checked, so every device has an id.
fn nmp_facts(nmp: &[Record], core: &[Record], facts: &mut Facts) {
    let core_by_id: BTreeMap<String, &Record> = core
        .iter()
        .filter_map(|r| device_id(r).map(|id| (id, r)))
        .collect();
    for device in nmp {
        let Some(id) = device_id(device) else {
            continue;
        };
        let base = format!("storage/nmp/{}", path_segment(&id));
        let mut set =
            |leaf: &str, value: FactValue| set_fact(facts, &format!("{base}/{leaf}"), value);
        if let Some(name) = device.get("devicedisplayname") {
            set("display_name", name.into());
        }
        if let Some(satp) = device.get("storagearraytype") {
            set("satp", satp.into());
        }
        if let Some(psp) = device.get("pathselectionpolicy") {
            set("psp", psp.into());
        }
        if let Some(config) = device
            .get("pathselectionpolicydeviceconfig")
            .and_then(|c| psp_config(&c))
        {
            set("psp_config", config.into());
        }
        if let Some(paths) = device.fields.get("workingpaths") {
            set(
                "working_paths",
                i64::try_from(paths.count()).unwrap_or(i64::MAX).into(),
            );
        }
        if let Some(core) = core_by_id.get(&id) {
            for (key, leaf) in [
                ("isperenniallyreserved", "perennially_reserved"),
                ("islocal", "is_local"),
                ("issharedclusterwide", "is_shared_clusterwide"),
            ] {
                if let Some(value) = core.get(key) {
                    set(leaf, flag(&value));
                }
            }
            for key in ["vendor", "model"] {
                if let Some(value) = core.get(key) {
                    set(key, value.into());
                }
            }
        }
    }
}

fn satp_rule_facts(rules: &[Record], facts: &mut Facts) {
    // User rules take precedence over system rules for the same array, as in ESXi's claiming.
    let mut ordered: Vec<&Record> = rules.iter().collect();
    ordered.sort_by_key(|r| r.get("rulegroup").as_deref() != Some("user"));
    for rule in ordered {
        let (Some(name), Some(psp)) = (rule.get("name"), rule.get("defaultpsp")) else {
            continue;
        };
        // A device rule claims one device, whatever its vendor and model: it is no rule for
        // every array of the SATP.
        let base = match rule.get("device") {
            Some(device) => format!(
                "storage/satp_rule/{}/device/{}",
                path_segment(&name),
                path_segment(&device)
            ),
            None => {
                let vendor = rule
                    .get("vendor")
                    .map_or_else(|| "any".to_owned(), |v| path_segment(&v));
                let model = rule
                    .get("model")
                    .map_or_else(|| "any".to_owned(), |m| path_segment(&m));
                format!("storage/satp_rule/{}/{vendor}/{model}", path_segment(&name))
            }
        };
        if facts.contains_key(format!("{base}/default_psp").as_str()) {
            continue;
        }
        set_fact(facts, &format!("{base}/default_psp"), psp.into());
        if let Some(options) = rule.get("pspoptions") {
            set_fact(facts, &format!("{base}/psp_options"), options.into());
        }
    }
}

/// The configured part of `Path Selection Policy Device Config`: runtime state (current
/// path, path index, pending I/O counters) churns and is dropped.
fn psp_config(text: &str) -> Option<String> {
    let inner = text.trim().trim_start_matches('{').trim_end_matches('}');
    let kept: Vec<&str> = inner
        .split(';')
        .map(str::trim)
        .filter(|part| {
            let lower = part.to_ascii_lowercase();
            !part.is_empty()
                && !lower.starts_with("current")
                && !lower.starts_with("lastpathindex")
                && !lower.contains("numiospending")
        })
        .collect();
    (!kept.is_empty()).then(|| kept.join(";"))
}

/// `true`/`false` as booleans; anything else stays text, so an unexpected spelling shows.
fn flag(value: &str) -> FactValue {
    match value.to_ascii_lowercase().as_str() {
        "true" => true.into(),
        "false" => false.into(),
        _ => value.into(),
    }
}

#[cfg(test)]
mod tests;
