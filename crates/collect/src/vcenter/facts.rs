//! A host's properties as facts, the same facts the `esxcli` capture gives where both read
//! the same thing: `host/esxi/{version,build}`, `storage/nmp/<device>/{psp,satp,
//! perennially_reserved,working_paths,vendor,model,display_name,is_local}`. A device claimed
//! by the High Performance Plugin (vSphere 7+) is `storage/hpp/<device>/…` with its path
//! selection scheme as `pss`: it is no NMP device. What the vCenter did not give is an error
//! naming the host and the property (fail closed), never a smaller snapshot; so is what it gave
//! twice (a property, a logical unit's policy, a device under two SCSI LUNs: neither is
//! read), and a device without
//! `perenniallyReserved` where the `psp-rr-on-reserved-device` invariant needs it.

use std::collections::{BTreeMap, BTreeSet};

use super::model::{Host, LogicalUnit, ScsiLun};
use crate::set_fact;
use driftgate_snapshot::{FactValue, Facts, path_segment};

/// The properties driftgate reads of each host.
pub const PROPERTIES: [&str; 4] = [
    "name",
    "config.product",
    "config.storageDevice.multipathInfo",
    "config.storageDevice.scsiLun",
];

/// The policy type of a logical unit the High Performance Plugin claims.
const HPP_POLICY: &str = "HostMultipathInfoHppLogicalUnitPolicy";
/// The policy types of a logical unit native multipathing claims (the base type, and Fixed's
/// with its preferred path).
const NMP_POLICIES: [&str; 2] = [
    "HostMultipathInfoLogicalUnitPolicy",
    "HostMultipathInfoFixedLogicalUnitPolicy",
];

/// The facts of `host`, and what is missing or inconsistent, each naming `host_name` and the
/// property.
pub fn host_facts(host_name: &str, host: &Host) -> (Facts, Vec<String>) {
    let mut facts = Facts::new();
    let mut errors = answer_errors(host_name, host);
    product_facts(host_name, host, &mut facts, &mut errors);
    let (Some(luns), Some(scsi_luns)) = (&host.luns, &host.scsi_luns) else {
        for property in [
            "config.storageDevice.multipathInfo",
            "config.storageDevice.scsiLun",
        ] {
            let absent = if property.ends_with("multipathInfo") {
                host.luns.is_none()
            } else {
                host.scsi_luns.is_none()
            };
            if absent && !said_twice(host, property) && !said_twice(host, "config.storageDevice") {
                errors.push(missing(host_name, property));
            }
        }
        return (facts, errors);
    };
    let api = host.product.as_ref().and_then(|p| p.api_version.as_deref());
    storage_facts(host_name, api, luns, scsi_luns, &mut facts, &mut errors);
    (facts, errors)
}

/// What the vCenter's answer says it could not read, gave malformed or gave twice.
fn answer_errors(host_name: &str, host: &Host) -> Vec<String> {
    let mut errors: Vec<String> = host
        .missing
        .iter()
        .map(|(property, fault)| {
            format!("host {host_name}: {property}: the vCenter could not read it ({fault})")
        })
        .collect();
    errors.extend(
        host.malformed
            .iter()
            .map(|wrong| format!("host {host_name}: config.storageDevice: {wrong}")),
    );
    errors.extend(
        host.repeated
            .iter()
            .map(|property| format!("host {host_name}: {property}: {TWICE}")),
    );
    errors
}

/// Whether the vCenter gave `property` of `host` more than once (an error said already).
fn said_twice(host: &Host, property: &str) -> bool {
    host.repeated.iter().any(|r| r == property)
}

/// That the vCenter gave no `property` of host `host_name`.
fn missing(host_name: &str, property: &str) -> String {
    format!("host {host_name}: the vCenter gave no {property}")
}

/// `config.product`: the host's ESXi version and build.
fn product_facts(host_name: &str, host: &Host, facts: &mut Facts, errors: &mut Vec<String>) {
    match &host.product {
        Some(product) if !product.repeated.is_empty() => {
            errors.extend(
                product
                    .repeated
                    .iter()
                    .map(|element| format!("host {host_name}: config.product: {element} {TWICE}")),
            );
        }
        Some(product) if !product.version.is_empty() => {
            set_fact(facts, "host/esxi/version", product.version.as_str().into());
            let build: String = product.build.chars().filter(char::is_ascii_digit).collect();
            if !build.is_empty() {
                set_fact(facts, "host/esxi/build", build.into());
            }
        }
        _ if said_twice(host, "config.product") => {}
        _ => errors.push(missing(host_name, "config.product (version)")),
    }
}

/// The facts of each logical unit of `luns` with its SCSI LUN of `scsi_luns`, on a host of
/// vSphere API `api`; a unit whose SCSI LUN or device is ambiguous, or which is incomplete,
/// is not read.
fn storage_facts(
    host_name: &str,
    api: Option<&str>,
    luns: &[LogicalUnit],
    scsi_luns: &[ScsiLun],
    facts: &mut Facts,
    errors: &mut Vec<String>,
) {
    let mut by_key: BTreeMap<&str, Vec<&ScsiLun>> = BTreeMap::new();
    for scsi in scsi_luns {
        by_key.entry(scsi.key.as_str()).or_default().push(scsi);
    }
    let mut shared = Shared {
        units: BTreeMap::new(),
        devices: by_device(luns, &by_key),
        ambiguous: BTreeSet::new(),
        ambiguous_devices: BTreeSet::new(),
    };
    for lun in luns {
        *shared.units.entry(lun.scsi_lun.as_str()).or_default() += 1;
    }
    for lun in luns {
        let Some(listed) = by_key.get(lun.scsi_lun.as_str()) else {
            errors.push(format!(
                "host {host_name}: config.storageDevice.multipathInfo names the SCSI LUN {:?}, which config.storageDevice.scsiLun does not list",
                lun.scsi_lun
            ));
            continue;
        };
        let scsi = listed[0];
        let device = if scsi.canonical_name.is_empty() {
            &lun.id
        } else {
            &scsi.canonical_name
        };
        let told = |property: &str, what: &str| {
            format!("host {host_name}: {device}: config.storageDevice.{property}: {what}")
        };
        if let Some(error) = shared.check(lun, listed) {
            errors.extend(error.map(|(property, what)| told(property, &what)));
            continue;
        }
        let unreadable = unreadable(host_name, lun, scsi, told);
        if !unreadable.is_empty() {
            errors.extend(unreadable);
            continue;
        }
        if !scsi.reserved_given
            && let Some(why) = unreserved(api, lun, device)
        {
            errors.push(told("scsiLun", &why));
        }
        lun_facts(lun, scsi, facts);
    }
}

/// What makes a logical unit one of several for its SCSI LUN or device: none of them is read.
struct Shared<'a> {
    /// How many logical units name each SCSI LUN.
    units: BTreeMap<&'a str, usize>,
    /// The SCSI LUNs of each device ([`by_device`]).
    devices: BTreeMap<String, BTreeMap<&'a str, &'a str>>,
    /// The SCSI LUNs already said to be ambiguous.
    ambiguous: BTreeSet<&'a str>,
    /// The devices already said to be ambiguous.
    ambiguous_devices: BTreeSet<String>,
}

impl<'a> Shared<'a> {
    /// `None` when `lun`, whose SCSI LUN is `listed` (first), is the one of its SCSI LUN and
    /// device; else `Some`, with the property and what is wrong the first time its SCSI
    /// LUN or device is found (one error per device, however many logical units name it).
    fn check(
        &mut self,
        lun: &'a LogicalUnit,
        listed: &[&ScsiLun],
    ) -> Option<Option<(&'static str, String)>> {
        let key = lun.scsi_lun.as_str();
        if listed.len() > 1 {
            let first = self.ambiguous.insert(key);
            return Some(first.then(|| ("scsiLun", format!("the SCSI LUN {key:?} {TWICE}"))));
        }
        if self.units[key] > 1 {
            let first = self.ambiguous.insert(key);
            return Some(first.then(|| {
                (
                    "multipathInfo",
                    format!("a logical unit (its policy) {TWICE}"),
                )
            }));
        }
        // Facts are written by device, not by key: a second SCSI LUN for the device would
        // overwrite the first's facts, or mix them, so neither is read.
        let segment = path_segment(&listed[0].canonical_name);
        let named = self.devices.get(&segment).filter(|named| named.len() > 1)?;
        let error = format!("{} are one device, {TWICE}", scsi_luns_named(named));
        Some(
            self.ambiguous_devices
                .insert(segment)
                .then_some(("scsiLun", error)),
        )
    }
}

/// Why a logical unit and its SCSI LUN cannot be read: an element given twice, no canonical
/// name or policy, a policy of neither NMP nor HPP. Empty: they can.
fn unreadable(
    host_name: &str,
    lun: &LogicalUnit,
    scsi: &ScsiLun,
    told: impl Fn(&str, &str) -> String,
) -> Vec<String> {
    if !lun.repeated.is_empty() || !scsi.repeated.is_empty() {
        let units = lun
            .repeated
            .iter()
            .map(|element| told("multipathInfo", &format!("{element} {TWICE}")));
        let scsi = scsi
            .repeated
            .iter()
            .map(|element| told("scsiLun", &format!("{element} {TWICE}")));
        return units.chain(scsi).collect();
    }
    if scsi.canonical_name.is_empty() || lun.policy.is_empty() {
        return vec![format!(
            "host {host_name}: the logical unit {:?} has no canonical name or no path selection policy",
            lun.id
        )];
    }
    if lun.policy_type != HPP_POLICY && !NMP_POLICIES.contains(&lun.policy_type.as_str()) {
        return vec![format!(
            "host {host_name}: the logical unit {} has a policy of type {:?}, which names neither native multipathing nor the High Performance Plugin",
            scsi.canonical_name, lun.policy_type
        )];
    }
    Vec::new()
}

/// The SCSI LUNs the logical units name, key to canonical name, by the fact-path segment of
/// their device (the `<device>` of `storage/{nmp,hpp}/<device>`): two names that are one
/// segment are one device to the snapshot.
fn by_device<'a>(
    luns: &[LogicalUnit],
    by_key: &BTreeMap<&str, Vec<&'a ScsiLun>>,
) -> BTreeMap<String, BTreeMap<&'a str, &'a str>> {
    let mut devices: BTreeMap<String, BTreeMap<&str, &str>> = BTreeMap::new();
    let named = luns
        .iter()
        .filter_map(|lun| by_key.get(lun.scsi_lun.as_str()))
        .flatten()
        .filter(|scsi| !scsi.canonical_name.is_empty());
    for scsi in named {
        devices
            .entry(path_segment(&scsi.canonical_name))
            .or_default()
            .insert(scsi.key.as_str(), scsi.canonical_name.as_str());
    }
    devices
}

/// `the SCSI LUNs "k1" and "k2"`, each with its canonical name where the names differ.
fn scsi_luns_named(named: &BTreeMap<&str, &str>) -> String {
    let one_name = named.values().collect::<BTreeSet<_>>().len() == 1;
    let each: Vec<String> = named
        .iter()
        .map(|(key, name)| {
            if one_name {
                format!("{key:?}")
            } else {
                format!("{key:?} ({name})")
            }
        })
        .collect();
    match each.split_last() {
        Some((last, rest)) if !rest.is_empty() => {
            format!("the SCSI LUNs {} and {last}", rest.join(", "))
        }
        _ => format!("the SCSI LUN {}", each.concat()),
    }
}

/// What is said of a property given more than once.
const TWICE: &str = "given twice: which one holds cannot be told";

/// The vSphere API release that added `ScsiLun.perenniallyReserved` (`vim.version.version14`).
const RESERVED_SINCE: [u32; 3] = [6, 7, 2];

/// Why a logical unit without `perenniallyReserved` cannot be judged on a host of API `api`,
/// or `None` where it need not be: the `psp-rr-on-reserved-device` invariant needs the flag of
/// every Round Robin device. A host whose API has the property gives it for every SCSI LUN
/// (a real vCenter 8.0 does), so its absence there is a broken answer; a host whose API
/// predates it cannot give it, and only `esxcli` reads it there.
fn unreserved(api: Option<&str>, lun: &LogicalUnit, device: &str) -> Option<String> {
    let release: Option<Vec<u32>> =
        api.and_then(|api| api.split('.').map(|part| part.parse().ok()).collect());
    match release {
        Some(release) if release.as_slice() < RESERVED_SINCE.as_slice() => {
            let round_robin = matches!(lun.policy.as_str(), "VMW_PSP_RR" | "LB-RR");
            round_robin.then(|| {
                format!(
                    "no perenniallyReserved, and the device uses {}: the host's vSphere API {} predates the property (6.7.2), so whether it is perennially reserved (an MSCS RDM, where Round Robin breaks SCSI-3 reservations) is not known; read it with `esxcli storage core device list -d {device}` (an esxi=ssh:// or esxi=dir: source)",
                    lun.policy,
                    api.unwrap_or_default()
                )
            })
        }
        Some(_) => Some(format!(
            "no perenniallyReserved, which a host of vSphere API {} gives for every SCSI LUN (since 6.7.2): whether the device is perennially reserved (an MSCS RDM) is not known",
            api.unwrap_or_default()
        )),
        None => Some(format!(
            "no perenniallyReserved, and the host's vSphere API release ({}) does not say whether it can give it: whether the device is perennially reserved (an MSCS RDM) is not known",
            api.map_or_else(|| "none given".to_owned(), |a| format!("{a:?}"))
        )),
    }
}

fn lun_facts(lun: &LogicalUnit, scsi: &ScsiLun, facts: &mut Facts) {
    let hpp = lun.policy_type == HPP_POLICY;
    let base = format!(
        "storage/{}/{}",
        if hpp { "hpp" } else { "nmp" },
        path_segment(&scsi.canonical_name)
    );
    let mut set = |leaf: &str, value: FactValue| set_fact(facts, &format!("{base}/{leaf}"), value);
    set(if hpp { "pss" } else { "psp" }, lun.policy.as_str().into());
    if let Some(satp) = &lun.satp {
        set("satp", satp.as_str().into());
    }
    // esxcli's "Working Paths": the paths I/O goes over now, which only `isWorkingPath` says
    // (an `active` path of a Fixed or MRU device may carry none); a vCenter that does not say
    // it for every path gives no count rather than a wrong one.
    if lun.paths.iter().all(|p| p.working.is_some()) {
        let working = lun.paths.iter().filter(|p| p.working == Some(true)).count();
        set(
            "working_paths",
            i64::try_from(working).unwrap_or(i64::MAX).into(),
        );
    }
    if let Some(reserved) = scsi.perennially_reserved {
        set("perennially_reserved", reserved.into());
    }
    if let Some(local) = scsi.local {
        set("is_local", local.into());
    }
    for (leaf, value) in [
        ("vendor", &scsi.vendor),
        ("model", &scsi.model),
        ("display_name", &scsi.display_name),
    ] {
        if let Some(value) = value.as_deref().filter(|v| !v.is_empty()) {
            set(leaf, value.into());
        }
    }
}
