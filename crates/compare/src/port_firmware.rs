//! Whether a NIC port's own firmware is known to the snapshots of a window, and if not why:
//! what lets a report say "the BMC does not link this port to a firmware inventory entry"
//! instead of the untrue "no firmware change of this port".

use std::ops::Bound;

use driftgate_snapshot::{Facts, VerifiedSnapshot};

use super::fact_kind::is_firmware_version;
use super::verdict::FirmwareUnknown;

/// Why the firmware of the port keyed `key` is unknown in both snapshots of `sides`: known
/// when either holds a firmware fact under `nic/<key>/` (a version the BMC or the OS reports
/// for the port or one of its functions, or the inventory component its
/// `bmc/firmware/inventory` names), else [`FirmwareUnknown::NotLinked`] when a BMC reports the
/// port, [`FirmwareUnknown::NoSource`] when only an operating system does.
pub(crate) fn unknown(key: &str, sides: [&VerifiedSnapshot; 2]) -> Option<FirmwareUnknown> {
    let facts = sides.map(|side| &side.snapshot().facts);
    if facts
        .iter()
        .any(|facts| of_port(facts, key).any(is_firmware_version))
    {
        return None;
    }
    let bmc = format!("nic/{key}/bmc/");
    Some(
        if facts
            .iter()
            .any(|facts| of_port(facts, key).any(|path| path.starts_with(&bmc)))
        {
            FirmwareUnknown::NotLinked
        } else {
            FirmwareUnknown::NoSource
        },
    )
}

/// The paths of the facts under `nic/<key>/`, found by range (the facts are sorted).
fn of_port<'f>(facts: &'f Facts, key: &str) -> impl Iterator<Item = &'f str> {
    // `0` follows `/`: every path below `nic/<key>/` sorts before `nic/<key>0`.
    let (start, end) = (format!("nic/{key}/"), format!("nic/{key}0"));
    facts
        .range::<str, _>((
            Bound::Included(start.as_str()),
            Bound::Excluded(end.as_str()),
        ))
        .map(|(path, _)| path.as_str())
}
