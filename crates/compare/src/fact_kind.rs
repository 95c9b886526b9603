//! What kind of fact a path names: a firmware version, a port's, the other end of its link.

use crate::peer;

/// Whether `path` is a fact about the other end of a port's link (`nic/<key>/peer/…`), whose
/// findings' messages name both ends.
pub fn is_peer_fact(path: &str) -> bool {
    peer::split(path).is_some()
}

/// Whether `path` is a firmware fact: the firmware inventory and the BIOS's version attributes
/// (`firmware/**`), a NIC's firmware as the BMC reports it for the port or one of its functions
/// (`nic/<key>/bmc/**/firmware/**`: package version, inventory link, version attributes, staged
/// ones too), and the NIC firmware the OS reports (`nic/<key>/os/firmware/version`, and
/// `nic/<key>/os/firmware/pending/…` for an image flashed but not running yet).
pub fn is_firmware_version(path: &str) -> bool {
    if path.starts_with("firmware/") {
        return true;
    }
    let mut segments = path.split('/');
    if segments.next() != Some("nic") || segments.next().is_none() {
        return false;
    }
    let rest: Vec<&str> = segments.collect();
    match rest.split_first() {
        Some((&"bmc", leaf)) => leaf.contains(&"firmware"),
        Some((&"os", leaf)) => leaf.first() == Some(&"firmware"),
        _ => false,
    }
}

/// The `<key>` of a NIC port fact `nic/<key>/…`.
pub(crate) fn port_key(path: &str) -> Option<&str> {
    let rest = path.strip_prefix("nic/")?;
    rest.split_once('/').map(|(key, _)| key)
}
