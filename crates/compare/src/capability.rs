//! Which way a DCB capability changed. Capture puts what a NIC reports it can do, when its
//! words say DCB (`DCBXSupport`, `PriorityFlowControl: "Available"`, an OEM `RoceCapable`), at
//! `nic/<key>/bmc/**/{hii,oem}/capability/dcb/<name>`; its rule (`bmc-dcb-capability-lost`)
//! judges a loss — `Available` → `Unavailable`, `Supported` → `NotSupported`, `true` → `false`
//! — and only a loss: a capability gained, or one that appears, is at most info, any other
//! change (a value outside that vocabulary, one no longer reported) at most a warning.

use driftgate_model::Availability;
use driftgate_snapshot::FactValue;

use super::severity::Severity;

/// What a change of a DCB capability is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CapabilityChange {
    /// The device could do it and no longer can.
    Lost,
    /// It can do it now, or says so for the first time.
    Gained,
    /// Anything else: another spelling, a value no longer reported.
    Other,
}

impl CapabilityChange {
    /// The change of the fact `path` from `old` to `new`, when `path` is a DCB capability.
    pub(crate) fn of(
        path: &str,
        old: Option<&FactValue>,
        new: Option<&FactValue>,
    ) -> Option<CapabilityChange> {
        let dcb = ["/hii/capability/dcb/", "/oem/capability/dcb/"]
            .iter()
            .any(|home| path.contains(home));
        if !dcb {
            return None;
        }
        Some(match (old.and_then(available), new.and_then(available)) {
            (Some(true), Some(false)) => CapabilityChange::Lost,
            (Some(false) | None, Some(true)) => CapabilityChange::Gained,
            _ => CapabilityChange::Other,
        })
    }

    /// The most a change of this kind may weigh, whatever its rule says.
    pub(crate) fn cap(self) -> Severity {
        match self {
            CapabilityChange::Lost => Severity::Block,
            CapabilityChange::Gained => Severity::Info,
            CapabilityChange::Other => Severity::Warn,
        }
    }
}

/// Whether a capability's value says the device can do it (`Some(true)`), cannot
/// (`Some(false)`), or neither.
fn available(value: &FactValue) -> Option<bool> {
    if let Some(flag) = value.as_bool() {
        return Some(flag);
    }
    match Availability::parse(value.as_text()?) {
        Availability::Available => Some(true),
        Availability::Unavailable => Some(false),
        Availability::Other(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PATH: &str =
        "nic/00:0a:f7:12:34:56/bmc/function/NIC.Slot.3-1-1/hii/capability/dcb/DCBXSupport";

    fn change(path: &str, old: Option<&str>, new: Option<&str>) -> Option<CapabilityChange> {
        let (old, new) = (old.map(FactValue::from), new.map(FactValue::from));
        CapabilityChange::of(path, old.as_ref(), new.as_ref())
    }

    #[test]
    fn only_a_dcb_capability_that_goes_away_is_lost() {
        use CapabilityChange::*;
        assert_eq!(
            change(PATH, Some("Available"), Some("Unavailable")),
            Some(Lost)
        );
        assert_eq!(
            change(PATH, Some("Supported"), Some("NotSupported")),
            Some(Lost)
        );
        assert_eq!(
            change(PATH, Some("Unavailable"), Some("Available")),
            Some(Gained)
        );
        assert_eq!(change(PATH, None, Some("Available")), Some(Gained));
        assert_eq!(change(PATH, Some("Available"), None), Some(Other));
        assert_eq!(
            change(PATH, Some("Available"), Some("Partial")),
            Some(Other)
        );
        let flag = |old: bool, new: bool| {
            CapabilityChange::of(
                "nic/k/bmc/oem/capability/dcb/Acme/RoceCapable",
                Some(&old.into()),
                Some(&new.into()),
            )
        };
        assert_eq!(flag(true, false), Some(Lost));
        assert_eq!(flag(false, true), Some(Gained));
        for other in [
            "nic/k/bmc/function/f/hii/capability/SRIOVSupport",
            "nic/k/bmc/function/f/hii/DCBXSupport",
            "nic/k/bmc/function/f/hii/dcb/Vendor_PfcMode",
        ] {
            assert_eq!(change(other, Some("Available"), Some("Unavailable")), None);
        }
        assert_eq!(Lost.cap(), Severity::Block);
        assert_eq!(Gained.cap(), Severity::Info);
        assert_eq!(Other.cap(), Severity::Warn);
    }
}
