//! What a whole answer of each `esxcli` command looks like, and what the answers of one host
//! must agree on. A parser only knows that text is well formed; these checks know that an
//! `esxcli storage nmp device list` device always ends with its working paths, that a PSP is
//! one the host has, and that the core and NMP device lists describe the same devices. Pure
//! functions over parsed records; every error names the line and what was expected.
//!
//! The field sets are learned from real outputs of ESXi 5.0 to 8.0 (the recordings in
//! `examples/esxi-mscs-psp/recorded/`, `tests/fixtures/esxi/` and the public samples the tests
//! read): a field is required here when every version prints it for every record.

use std::collections::{BTreeMap, BTreeSet};

use super::parse::{ParseError, Record, normalize_key};

/// How an answer was printed: text blocks can be cut short at a line end and still parse;
/// an XML document cut short does not parse at all.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Form {
    /// The text formatter.
    Text,
    /// `--formatter=xml`.
    Xml,
}

/// The fields every record of a command prints, by display name.
struct Format {
    /// What one record is, for messages.
    record: &'static str,
    /// Printed for every record by every ESXi version read.
    fields: &'static [&'static str],
    /// Whether a record is a table row (one line) rather than lines of `Key: value`.
    row: bool,
    /// The field that tells kinds of device apart, when esxcli prints some fields only for
    /// some kinds: the core list prints a disk's queue depth and PI fields, not a CD-ROM's.
    kind: Option<&'static str>,
}

const NMP_DEVICE: Format = Format {
    record: "device",
    fields: &[
        "Device Display Name",
        "Storage Array Type",
        "Storage Array Type Device Config",
        "Path Selection Policy",
        "Path Selection Policy Device Config",
        "Working Paths",
    ],
    row: false,
    kind: None,
};

const CORE_DEVICE: Format = Format {
    record: "device",
    fields: &[
        "Display Name",
        "Has Settable Display Name",
        "Size",
        "Device Type",
        "Multipath Plugin",
        "Devfs Path",
        "Vendor",
        "Model",
        "Revision",
        "SCSI Level",
        "Is Pseudo",
        "Status",
        "Is RDM Capable",
        "Is Local",
        "Is Removable",
        "Is SSD",
        "Is Offline",
        "Is Perennially Reserved",
        "Thin Provisioning Status",
        "Attached Filters",
        "VAAI Status",
        "Other UIDs",
    ],
    row: false,
    kind: Some("Device Type"),
};

const SATP: Format = Format {
    record: "SATP",
    fields: &["Name", "Default PSP", "Description"],
    row: true,
    kind: None,
};

const SATP_RULE: Format = Format {
    record: "rule",
    fields: &[
        "Name",
        "Device",
        "Vendor",
        "Model",
        "Driver",
        "Transport",
        "Options",
        "Rule Group",
        "Claim Options",
        "Default PSP",
        "PSP Options",
        "Description",
    ],
    row: true,
    kind: None,
};

const VERSION: Format = Format {
    record: "version",
    fields: &["Product", "Version", "Build", "Update"],
    row: false,
    kind: None,
};

/// The path selection plugins VMware ships with NMP (`VMW_PSP_FIXED_AP` only in ESX 4.x).
/// Third-party PSPs are accepted when the host names them in its SATP list or claim rules.
pub(super) const VMWARE_PSPS: [&str; 4] = [
    "VMW_PSP_FIXED",
    "VMW_PSP_MRU",
    "VMW_PSP_RR",
    "VMW_PSP_FIXED_AP",
];

/// A device list of `esxcli storage nmp device list`.
pub(super) fn nmp_devices(records: &[Record], form: Form) -> Result<(), ParseError> {
    devices(records, form, &NMP_DEVICE)?;
    for device in records {
        for key in ["Storage Array Type", "Path Selection Policy"] {
            plugin_name(device, key, false)?;
        }
    }
    Ok(())
}

/// A device list of `esxcli storage core device list`. An empty list is a whole answer of
/// a diskless host (stateless Auto Deploy, no local disk, no LUN); [`agree`] makes it an
/// error when the NMP list names devices the host has.
pub(super) fn core_devices(records: &[Record], form: Form) -> Result<(), ParseError> {
    devices(records, form, &CORE_DEVICE)?;
    for device in records {
        for key in [
            "Is Perennially Reserved",
            "Is Local",
            "Is Shared Clusterwide",
        ] {
            flag(device, key)?;
        }
        plugin_name(device, "Multipath Plugin", false)?;
    }
    Ok(())
}

/// The table of `esxcli storage nmp satp list`.
pub(super) fn satps(records: &[Record], form: Form) -> Result<(), ParseError> {
    if records.is_empty() {
        return Err(ParseError::whole(
            "no SATP: ESXi always lists its built-in SATPs (VMW_SATP_LOCAL, VMW_SATP_DEFAULT_AA, …)",
        ));
    }
    for satp in records {
        fields(satp, &SATP, form)?;
        plugin_name(satp, "Name", false)?;
        plugin_name(satp, "Default PSP", false)?;
    }
    Ok(())
}

/// The table of `esxcli storage nmp satp rule list`.
pub(super) fn satp_rules(records: &[Record], form: Form) -> Result<(), ParseError> {
    if records.is_empty() {
        return Err(ParseError::whole(
            "no claim rule: ESXi always lists its system SATP rules",
        ));
    }
    for rule in records {
        fields(rule, &SATP_RULE, form)?;
        plugin_name(rule, "Name", false)?;
        plugin_name(rule, "Default PSP", true)?;
        let group = rule.get("rulegroup").unwrap_or_default();
        if !matches!(group.as_str(), "system" | "user") {
            return Err(ParseError::at(
                rule.line_of("rulegroup"),
                format!("Rule Group {group:?}: expected `system` or `user`"),
            ));
        }
    }
    Ok(())
}

/// The structure of `esxcli system version get`.
pub(super) fn version(records: &[Record], form: Form) -> Result<(), ParseError> {
    let [version] = records else {
        return Err(ParseError::whole(format!(
            "expected one version structure, found {}",
            records.len()
        )));
    };
    fields(version, &VERSION, form)?;
    let number = version.get("version").unwrap_or_default();
    let dotted = !number.is_empty()
        && number
            .split('.')
            .all(|part| !part.is_empty() && part.chars().all(|c| c.is_ascii_digit()));
    if !dotted {
        return Err(ParseError::at(
            version.line_of("version"),
            format!("Version {number:?}: expected a dotted number such as 5.0.0"),
        ));
    }
    let build = version.get("build").unwrap_or_default();
    if !build.chars().any(|c| c.is_ascii_digit()) {
        return Err(ParseError::at(
            version.line_of("build"),
            format!("Build {build:?}: expected a build number such as Releasebuild-469512"),
        ));
    }
    for key in ["update", "patch"] {
        if let Some(value) = version.fields.get(key).map(|v| v.text())
            && (value.is_empty() || !value.chars().all(|c| c.is_ascii_digit()))
        {
            return Err(ParseError::at(
                version.line_of(key),
                format!("{key} {value:?}: expected a number"),
            ));
        }
    }
    Ok(())
}

/// Every device has an id and the fields its format always prints. In the text form the
/// last device, the only one a cut at a line end can shorten without breaking the text, must
/// also print every field all the devices of its kind before it print: esxcli prints the
/// same fields for every device of one kind in one answer (the core list prints some fields
/// only for disks, others only for CD-ROMs or USB devices).
fn devices(records: &[Record], form: Form, format: &Format) -> Result<(), ParseError> {
    let mut seen = BTreeMap::new();
    for device in records {
        let Some(id) = device_id(device) else {
            return Err(ParseError::at(
                device.line,
                format!("{} without a device id (the `Device` field)", format.record),
            ));
        };
        if let Some(first) = seen.insert(id.clone(), device.line) {
            return Err(ParseError::at(
                device.line,
                format!("device {id} again (first at line {first}): esxcli lists each device once"),
            ));
        }
        fields(device, format, form)?;
    }
    if form == Form::Text
        && let Some((last, earlier)) = records.split_last()
        && let Some((first, rest)) = same_kind(last, earlier, format).split_first()
    {
        let mut common: BTreeSet<&String> = first.fields.keys().collect();
        for device in rest {
            common.retain(|key| device.fields.contains_key(*key));
        }
        let missing: Vec<String> = common
            .into_iter()
            .filter(|key| !last.fields.contains_key(*key))
            .map(|key| display_name(key))
            .collect();
        if !missing.is_empty() {
            return Err(cut_short(last, format, &missing, form));
        }
    }
    Ok(())
}

/// The devices of `earlier` of the same kind as `last`: all of them when the format has no
/// kinds.
fn same_kind<'a>(last: &Record, earlier: &'a [Record], format: &Format) -> Vec<&'a Record> {
    let kind = format.kind.map(normalize_key);
    let of = |record: &Record| kind.as_deref().and_then(|key| record.get(key));
    earlier
        .iter()
        .filter(|device| of(device) == of(last))
        .collect()
}

/// The record has every field of its format.
fn fields(record: &Record, format: &Format, form: Form) -> Result<(), ParseError> {
    let missing: Vec<String> = format
        .fields
        .iter()
        .filter(|name| !record.fields.contains_key(&normalize_key(name)))
        .map(|name| (*name).to_owned())
        .collect();
    if missing.is_empty() {
        Ok(())
    } else {
        Err(cut_short(record, format, &missing, form))
    }
}

/// A record that lacks fields. In text, a block's error is at the line where the first
/// missing field was expected: the one after the block's last line.
fn cut_short(record: &Record, format: &Format, missing: &[String], form: Form) -> ParseError {
    let list = missing
        .iter()
        .map(|m| format!("`{m}`"))
        .collect::<Vec<_>>()
        .join(", ");
    let them = if missing.len() == 1 { "it" } else { "them" };
    let (line, what) = match (device_id(record), format.row) {
        (_, true) => (
            record.line,
            format!(
                "{} lacks {list}: the table has no such column",
                format.record
            ),
        ),
        (Some(id), false) => (
            if form == Form::Text {
                record.end + 1
            } else {
                record.line
            },
            format!(
                "{} {id} (from line {}) ends without {list}",
                format.record, record.line
            ),
        ),
        (None, false) => (
            if form == Form::Text {
                record.end + 1
            } else {
                record.line
            },
            format!("{} ends without {list}", format.record),
        ),
    };
    ParseError::at(
        line,
        format!(
            "{what}: esxcli prints {them} for every {}, so the answer was cut short or is not esxcli's",
            format.record
        ),
    )
}

/// How a normalized key was spelled, for messages: a known display name, else the key.
fn display_name(key: &str) -> String {
    [NMP_DEVICE.fields, CORE_DEVICE.fields]
        .concat()
        .into_iter()
        .find(|name| normalize_key(name) == key)
        .map_or_else(|| key.to_owned(), str::to_owned)
}

/// A `true`/`false` field, when present.
fn flag(record: &Record, name: &str) -> Result<(), ParseError> {
    let key = normalize_key(name);
    match record.fields.get(&key).map(|v| v.text()) {
        None => Ok(()),
        Some(value) if value == "true" || value == "false" => Ok(()),
        Some(value) => Err(ParseError::at(
            record.line_of(&key),
            format!("{name} {value:?}: expected `true` or `false`"),
        )),
    }
}

/// A plugin name (`VMW_SATP_ALUA`, `VMW_PSP_RR`, a vendor's `DELL_PSP_EQL_ROUTED`, `NMP`):
/// letters, digits and underscores; a VMware PSP name must be one VMware ships.
fn plugin_name(record: &Record, name: &str, may_be_empty: bool) -> Result<(), ParseError> {
    let key = normalize_key(name);
    let value = record.get(&key).unwrap_or_default();
    let shaped = !value.is_empty() && value.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    let vmware_psp = value.starts_with("VMW_PSP_");
    if (value.is_empty() && may_be_empty)
        || (shaped && (!vmware_psp || VMWARE_PSPS.contains(&value.as_str())))
    {
        return Ok(());
    }
    let expected = if vmware_psp {
        format!("one of {}", VMWARE_PSPS.join(", "))
    } else {
        "a plugin name (letters, digits, `_`)".to_owned()
    };
    Err(ParseError::at(
        record.line_of(&key),
        format!("{name} {value:?}: expected {expected}"),
    ))
}

/// The device id: the heading of a text record, or the `Device` field of an XML one.
pub(super) fn device_id(record: &Record) -> Option<String> {
    record.id.clone().or_else(|| record.get("device"))
}

/// One parsed answer and how to name it in messages.
#[derive(Debug, Clone)]
pub(super) struct Answer {
    /// Its records.
    pub records: Vec<Record>,
    /// `` `esxcli storage nmp device list` output (esxcli_storage_nmp_device_list.txt) ``.
    pub origin: String,
}

impl Answer {
    /// `message` about line `line` of this answer.
    fn at(&self, line: usize, message: impl std::fmt::Display) -> String {
        format!("{}: line {line}: {message}", self.origin)
    }

    /// `message` about this answer as a whole.
    fn whole(&self, message: impl std::fmt::Display) -> String {
        format!("{}: {message}", self.origin)
    }
}

/// What the answers of one host must agree on; each disagreement names both answers and
/// the line. `core`, `satps` and `rules` are `None` when they could not be read (that
/// failure is reported on its own).
pub(super) fn agree(
    nmp: &Answer,
    core: Option<&Answer>,
    satps: Option<&Answer>,
    rules: Option<&Answer>,
) -> Vec<String> {
    let mut errors = Vec::new();
    if let Some(core) = core
        && core.records.is_empty()
        && !nmp.records.is_empty()
    {
        // An empty core list is whole only on a host without devices: one whose NMP list
        // names devices lost its answer on the way.
        errors.push(core.whole(format!(
            "no device, though {} lists {}: the core list names every device of the host, \
                 so an empty answer was lost on the way",
            nmp.origin,
            nmp.records.len()
        )));
    } else if let Some(core) = core {
        let nmp_ids: BTreeSet<String> = nmp.records.iter().filter_map(device_id).collect();
        let core_ids: BTreeSet<String> = core.records.iter().filter_map(device_id).collect();
        for device in &nmp.records {
            let id = device_id(device).unwrap_or_default();
            if !core_ids.contains(&id) {
                errors.push(nmp.at(device.line, format!(
                    "device {id} is not in {}, which lists every device of the host: one of the two answers is cut short",
                    core.origin
                )));
            }
        }
        for device in &core.records {
            let id = device_id(device).unwrap_or_default();
            if device.get("multipathplugin").as_deref() == Some("NMP") && !nmp_ids.contains(&id) {
                errors.push(core.at(device.line_of("multipathplugin"), format!(
                    "device {id} is claimed by NMP but {} does not list it: one of the two answers is cut short",
                    nmp.origin
                )));
            }
        }
    }
    let satp_names: Option<BTreeSet<String>> =
        satps.map(|satps| satps.records.iter().filter_map(|s| s.get("name")).collect());
    // A PSP the host names as some SATP's or claim rule's default is a plugin it has.
    let named_psps: BTreeMap<String, String> = [satps, rules]
        .into_iter()
        .flatten()
        .flat_map(|answer| {
            answer
                .records
                .iter()
                .filter_map(|r| r.get("defaultpsp").map(|psp| (psp, answer.origin.clone())))
        })
        .collect();
    for device in &nmp.records {
        let id = device_id(device).unwrap_or_default();
        if let (Some(names), Some(satp)) = (&satp_names, device.get("storagearraytype"))
            && !names.contains(&satp)
        {
            errors.push(nmp.at(
                device.line_of("storagearraytype"),
                format!(
                    "device {id}: Storage Array Type {satp:?} is not an SATP that {} lists",
                    satps.map_or("", |s| s.origin.as_str())
                ),
            ));
        }
        if let Some(psp) = device.get("pathselectionpolicy")
            && !VMWARE_PSPS.contains(&psp.as_str())
            && !named_psps.contains_key(&psp)
        {
            errors.push(nmp.at(device.line_of("pathselectionpolicy"), format!(
                "device {id}: Path Selection Policy {psp:?}: expected one of {} or a PSP the SATP list or claim rules name",
                VMWARE_PSPS.join(", ")
            )));
        }
    }
    errors
}

#[cfg(test)]
mod tests;
