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
    let said_twice = |property: &str| host.repeated.iter().any(|r| r == property);
    let missing = |property: &str| format!("host {host_name}: the vCenter gave no {property}");
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
            set_fact(
                &mut facts,
                "host/esxi/version",
                product.version.as_str().into(),
            );
            let build: String = product.build.chars().filter(char::is_ascii_digit).collect();
            if !build.is_empty() {
                set_fact(&mut facts, "host/esxi/build", build.into());
            }
        }
        _ if said_twice("config.product") => {}
        _ => errors.push(missing("config.product (version)")),
    }
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
            if absent && !said_twice(property) && !said_twice("config.storageDevice") {
                errors.push(missing(property));
            }
        }
        return (facts, errors);
    };
    let api = host.product.as_ref().and_then(|p| p.api_version.as_deref());
    let mut by_key: BTreeMap<&str, Vec<&ScsiLun>> = BTreeMap::new();
    for scsi in scsi_luns {
        by_key.entry(scsi.key.as_str()).or_default().push(scsi);
    }
    let mut units: BTreeMap<&str, usize> = BTreeMap::new();
    for lun in luns {
        *units.entry(lun.scsi_lun.as_str()).or_default() += 1;
    }
    let devices = by_device(luns, &by_key);
    let mut ambiguous: BTreeSet<&str> = BTreeSet::new();
    let mut ambiguous_devices: BTreeSet<String> = BTreeSet::new();
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
        // One error per device, however many logical units name it.
        if listed.len() > 1 {
            if ambiguous.insert(lun.scsi_lun.as_str()) {
                errors.push(told(
                    "scsiLun",
                    &format!("the SCSI LUN {:?} {TWICE}", lun.scsi_lun),
                ));
            }
            continue;
        }
        if units[lun.scsi_lun.as_str()] > 1 {
            if ambiguous.insert(lun.scsi_lun.as_str()) {
                errors.push(told(
                    "multipathInfo",
                    &format!("a logical unit (its policy) {TWICE}"),
                ));
            }
            continue;
        }
        // Facts are written by device, not by key: a second SCSI LUN for the device would
        // overwrite the first's facts, or mix them, so neither is read.
        let segment = path_segment(&scsi.canonical_name);
        if let Some(named) = devices.get(&segment).filter(|named| named.len() > 1) {
            if ambiguous_devices.insert(segment) {
                errors.push(told(
                    "scsiLun",
                    &format!("{} are one device, {TWICE}", scsi_luns_named(named)),
                ));
            }
            continue;
        }
        if !lun.repeated.is_empty() || !scsi.repeated.is_empty() {
            for element in &lun.repeated {
                errors.push(told("multipathInfo", &format!("{element} {TWICE}")));
            }
            for element in &scsi.repeated {
                errors.push(told("scsiLun", &format!("{element} {TWICE}")));
            }
            continue;
        }
        if scsi.canonical_name.is_empty() || lun.policy.is_empty() {
            errors.push(format!(
                "host {host_name}: the logical unit {:?} has no canonical name or no path selection policy",
                lun.id
            ));
            continue;
        }
        if lun.policy_type != HPP_POLICY && !NMP_POLICIES.contains(&lun.policy_type.as_str()) {
            errors.push(format!(
                "host {host_name}: the logical unit {} has a policy of type {:?}, which names neither native multipathing nor the High Performance Plugin",
                scsi.canonical_name, lun.policy_type
            ));
            continue;
        }
        if !scsi.reserved_given
            && let Some(why) = unreserved(api, lun, device)
        {
            errors.push(told("scsiLun", &why));
        }
        lun_facts(lun, scsi, &mut facts);
    }
    (facts, errors)
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
