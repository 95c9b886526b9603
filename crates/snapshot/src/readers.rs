//! Which source kind reads which facts: the fact families of DESIGN's table, by the source
//! that captures them. A fact a source did not read (it failed, read only part, or was not
//! asked) is unknown, not gone: the judge needs to know whose it was.

/// The source a snapshot lists when its host's capture failed as a whole (a deadline, a panic,
/// settings that could not be read): no source got to read anything, so it stands for every
/// fact.
pub const WHOLE_CAPTURE: &str = "capture";

/// Whether a source of kind `source` (`redfish`, `windows`, `linux`, `esxi`, or
/// [`WHOLE_CAPTURE`]) reads the fact at `path`. A kind this version does not know claims no fact.
///
/// ```
/// use driftgate_snapshot::reads;
/// assert!(reads("redfish", "nic/00:0a:f7:12:34:56/bmc/dcbx_mode"));
/// assert!(reads("windows", "nic/00:0a:f7:12:34:56/os/qos_enabled"));
/// assert!(!reads("redfish", "host/qos/dcbx_willing"));
/// ```
pub fn reads(source: &str, path: &str) -> bool {
    let nic_view = || {
        let mut segments = path.split('/');
        (segments.next() == Some("nic"))
            .then(|| segments.nth(1))
            .flatten()
    };
    match source {
        WHOLE_CAPTURE => true,
        "redfish" => {
            path.starts_with("bios/") || path.starts_with("firmware/") || nic_view() == Some("bmc")
        }
        "windows" | "linux" => path.starts_with("host/qos/") || nic_view() == Some("os"),
        "esxi" => path.starts_with("storage/") || path.starts_with("host/esxi/"),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_family_has_its_reader() {
        let mac = "nic/00:0a:f7:12:34:56";
        for (path, reader) in [
            ("bios/SriovGlobalEnable", "redfish"),
            ("firmware/nic.slot.3-1-1/version", "redfish"),
            (
                &format!("{mac}/bmc/function/NIC.Slot.3-1-1/dcbx_mode"),
                "redfish",
            ),
            (
                &format!("{mac}/os/flow_control/operational/priority/3"),
                "windows",
            ),
            (&format!("{mac}/os/firmware/version"), "linux"),
            ("host/qos/flow_control/priority/3", "windows"),
            ("host/qos/flow_control/priority/3", "linux"),
            ("storage/nmp/naa.600/psp", "esxi"),
            ("host/esxi/build", "esxi"),
        ] {
            assert!(reads(reader, path), "{reader} reads {path}");
            assert!(reads(WHOLE_CAPTURE, path));
            for other in ["redfish", "windows", "linux", "esxi"] {
                let same_family =
                    matches!((reader, other), ("windows", "linux") | ("linux", "windows"));
                if other != reader && !same_family {
                    assert!(!reads(other, path), "{other} does not read {path}");
                }
            }
        }
    }

    #[test]
    fn unknown_kinds_and_odd_paths_claim_nothing() {
        assert!(!reads("lldp-someday", "nic/00:0a:f7:12:34:56/bmc/x"));
        assert!(!reads("redfish", "nic"));
        assert!(!reads("redfish", "nic/00:0a:f7:12:34:56"));
        assert!(!reads("windows", "hostqos/x"));
    }
}
