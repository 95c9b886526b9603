//! A host's properties as facts, the same facts the `esxcli` capture gives where both read
//! the same thing: `host/esxi/{version,build}`, `storage/nmp/<device>/{psp,satp,
//! perennially_reserved,working_paths,vendor,model,display_name,is_local}`. A device claimed
//! by the High Performance Plugin (vSphere 7+) is `storage/hpp/<device>/…` with its path
//! selection scheme as `pss`: it is no NMP device. What the vCenter did not give is an error
//! naming the host and the property (fail closed), never a smaller snapshot.

use std::collections::BTreeMap;

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
    let missing = |property: &str| format!("host {host_name}: the vCenter gave no {property}");
    match &host.product {
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
        _ => errors.push(missing("config.product (version)")),
    }
    let (Some(luns), Some(scsi_luns)) = (&host.luns, &host.scsi_luns) else {
        if host.luns.is_none() {
            errors.push(missing("config.storageDevice.multipathInfo"));
        }
        if host.scsi_luns.is_none() {
            errors.push(missing("config.storageDevice.scsiLun"));
        }
        return (facts, errors);
    };
    let by_key: BTreeMap<&str, &ScsiLun> = scsi_luns.iter().map(|l| (l.key.as_str(), l)).collect();
    for lun in luns {
        let Some(scsi) = by_key.get(lun.scsi_lun.as_str()) else {
            errors.push(format!(
                "host {host_name}: config.storageDevice.multipathInfo names the SCSI LUN {:?}, which config.storageDevice.scsiLun does not list",
                lun.scsi_lun
            ));
            continue;
        };
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
        lun_facts(lun, scsi, &mut facts);
    }
    (facts, errors)
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
