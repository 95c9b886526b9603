//! Vendor attributes that are not settings. Some HII and BIOS attributes report a version
//! (`FamilyVersion`, `EFIVersion`, `…FirmwareVersion`): they change with every firmware
//! update, so they are captured as firmware, not as settings that drifted.

/// Name endings (ASCII case ignored) of attributes that hold a firmware, option ROM or driver
/// version: Dell network attributes (`FamilyVersion`, `EFIVersion`, `ControllerBIOSVersion`,
/// `LANDriverVersion`, `InfiniBandOSDriverVersion`, `FirmwareVersion`), Lenovo XCC's
/// BIOS-folded NIC attributes (`…_FirmwareVersion`, `…_EFIVersion`), and their like.
const VERSION_ENDINGS: &[&str] = &[
    "firmwareversion",
    "familyversion",
    "efiversion",
    "uefiversion",
    "biosversion",
    "optionromversion",
    "romversion",
    "driverversion",
    "firmwarepackageversion",
];

/// Whether the attribute `name` reports a version rather than a setting.
pub fn is_firmware_version(name: &str) -> bool {
    let name = name.to_ascii_lowercase().replace('_', "");
    VERSION_ENDINGS.iter().any(|ending| name.ends_with(ending))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_are_recognised_and_settings_are_not() {
        for name in [
            "FamilyVersion",
            "EFIVersion",
            "ControllerBIOSVersion",
            "LANDriverVersion",
            "Slot1_946DAE53CB9B_FirmwareVersion",
            "PCIE_SLOT_1_Port1_EFI_Version",
        ] {
            assert!(is_firmware_version(name), "{name}");
        }
        for name in [
            "iSCSIDualIPVersionSupport",
            "IpVersion",
            "Broadcom_DCBX",
            "LldpPort1",
        ] {
            assert!(!is_firmware_version(name), "{name}");
        }
    }
}
