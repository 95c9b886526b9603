use std::sync::OnceLock;

use super::*;

/// A registry entry, as iDRAC's and XCC's registries give them.
fn entry(display: &str, help: Option<&str>, read_only: bool, kind: &str) -> Entry {
    Entry {
        display_name: Some(display.into()),
        help_text: help.map(Into::into),
        read_only,
        kind: Some(match kind {
            "String" => AttributeType::String,
            "Enumeration" => AttributeType::Enumeration,
            "Integer" => AttributeType::Integer,
            other => AttributeType::Other(other.into()),
        }),
        class: OnceLock::new(),
    }
}

#[test]
fn versions_by_their_registry_entry_are_firmware_and_writable_ones_are_not() {
    // Entries of the iDRAC 9 registries in tests/fixtures/public/redfish/libredfish-dell.
    for (name, display) in [
        ("FamilyVersion", "Family Firmware Version"),
        ("Broadcom_CCMVersion", "CCM"),
        ("Broadcom_MBAVersion", "MBA"),
        ("Broadcom_NCSI", "APE FW"),
        ("Broadcom_RDMAVersion", "RDMA FW"),
        ("TpmFirmware", "    TPM Firmware   "),
        ("Proc1Microcode", "Microcode"),
        ("UefiComplianceVersion", "UEFI Compliance Version"),
        ("Vendor_BootCode", "Boot Code"),
        ("Vendor_NCSI", "NC-SI"),
        ("Vendor_Image", "Option ROM"),
    ] {
        let read_only = entry(display, None, true, "String");
        assert_eq!(classify(name, Some(&read_only)), Class::Firmware, "{name}");
        let writable = entry(display, None, false, "String");
        assert_ne!(
            classify(name, Some(&writable)),
            Class::Firmware,
            "{name} writable"
        );
        let enumeration = entry(display, None, true, "Enumeration");
        assert_ne!(
            classify(name, Some(&enumeration)),
            Class::Firmware,
            "{name} enumeration"
        );
    }
    for (name, display) in [
        ("iSCSIDualIPVersionSupport", "iSCSI Dual IP Version Support"),
        ("PXEBootSupport", "PXE Boot Support"),
        ("OneTimeUefiBootPath", "One Time Uefi Boot Path"),
        ("Proc1Id", "Family-Model-Stepping"),
        (
            "HttpDev1Uri",
            "URI (will obtain from DHCP server if not specified)",
        ),
        ("AcPwrRcvryUserDelay", "User Defined Delay (120s to 600s)"),
    ] {
        let read_only = entry(display, None, true, "String");
        assert_ne!(classify(name, Some(&read_only)), Class::Firmware, "{name}");
    }
}

#[test]
fn without_a_registry_only_a_version_of_a_named_image_is_firmware() {
    for name in [
        "FamilyVersion",
        "EFIVersion",
        "ControllerBIOSVersion",
        "LANDriverVersion",
        "InfiniBandOSDriverVersion",
        "Slot1_FirmwareVersion",
        "PCIE_SLOT_1_Port1_EFI_Version",
        "PCIE_SLOT_1_Port1_UEFIVersion",
        "Vendor_BootCodeVersion",
        "Vendor_NCSIVersion",
        "FirmwarePackageVersion",
    ] {
        assert_eq!(classify(name, None), Class::Firmware, "{name}");
    }
    for name in [
        "IpVersion",
        "iSCSIDualIPVersionSupport",
        "Broadcom_RDMAVersion",
        "TLSVersion",
        "Broadcom_NCSI",
        "LldpPort1",
    ] {
        assert_ne!(classify(name, None), Class::Firmware, "{name}");
    }
}

#[test]
fn values_that_change_by_themselves_are_status_whatever_the_vendor_prefix() {
    for name in [
        "LinkStatus",
        "Broadcom_LinkStatus",
        "PCIE_SLOT_1_Port1_LinkStatus",
        "PCIE_SLOT_1_Port1_CurrentLinkSpeed",
        "Vendor_NegotiatedLinkSpeed",
        "PortTemperature",
        "LastBootTime",
        "DateTime",
        "Vendor_Uptime",
        "RxPfcCounters",
    ] {
        assert_eq!(classify(name, None), Class::Status, "{name}");
    }
    // Read-only entries whose name or display name says status, state, speed, time…
    for (name, display) in [
        ("LnkSpeed", "Link Speed"),
        ("OneTimeBootMode", "One-Time Boot Device List"),
        ("Vendor_FecCount", "Corrected FEC Blocks"),
    ] {
        let read_only = entry(display, None, true, "Enumeration");
        assert_eq!(classify(name, Some(&read_only)), Class::Status, "{name}");
        // The same words on a writable attribute are a setting: the link speed to use.
        let writable = entry(display, None, false, "Enumeration");
        assert_eq!(classify(name, Some(&writable)), Class::Setting, "{name}");
    }
    // A read-only state that mirrors a setting made elsewhere stays in view.
    for (name, display) in [
        ("SysMemSpeed", "System Memory Speed"),
        ("TpmStatus", "    TPM Status"),
        ("PasswordStatus", "Password Status"),
        ("CpuInterconnectBusSpeed", "CPU Interconnect Bus Speed"),
        (
            "CurrentEmbVideoState",
            "Current State of Embedded Video Controller",
        ),
    ] {
        let read_only = entry(display, None, true, "Enumeration");
        assert_eq!(classify(name, Some(&read_only)), Class::Setting, "{name}");
    }
    // Names that only look like it.
    for name in [
        "LinkSpeed",
        "BootRetryCnt",
        "OsWatchdogTimer",
        "BannerMessageTimeout",
    ] {
        assert_eq!(classify(name, None), Class::Setting, "{name}");
    }
}

#[test]
fn dcb_settings_no_spelling_names_are_recognised_by_their_registry_text() {
    let qos = entry("DCBX Protocol", None, false, "Enumeration");
    let Class::Dcb(recognised) = classify("Vendor_QosAgentMode", Some(&qos)) else {
        panic!("not recognised");
    };
    assert_eq!(
        recognised,
        Recognised {
            field: Field::DisplayName,
            text: "DCBX Protocol",
            term: "DCBX"
        }
    );
    assert_eq!(
        recognised.to_string(),
        "its registry DisplayName \"DCBX Protocol\" says DCBX"
    );
    let help = entry(
        "Lossless Traffic",
        Some("Enables priority flow control on the priority that carries RoCE traffic."),
        false,
        "Enumeration",
    );
    assert!(matches!(
        classify("Vendor_LosslessTraffic", Some(&help)),
        Class::Dcb(Recognised {
            field: Field::HelpText,
            term: "priority flow control",
            ..
        })
    ));
    for (name, term) in [
        ("PCIE_SLOT_1_Port1_LLDPNearestBridge", "LLDP"),
        ("PCIE_SLOT_1_PORT1_DCBXMODE", "DCBX"),
        ("Vendor_PFCPriorities", "PFC"),
        ("Vendor_ETSBandwidth", "ETS"),
        ("Vendor_DCBXVersion", "DCBX"),
        ("RoCECongestionMode", "RoCE congestion"),
        ("OnboardLANFlowControl", "flow control"),
        ("Vendor_RoCEMode", "RoCE"),
        ("Rocev2Enabled", "RoCEv2"),
        ("RDMANICModeOnPartition", "RDMA"),
        ("TrustedClassOfServiceEnabled", "class of service"),
        ("Vendor_TrustedQoS", "trusted QoS"),
        ("FipEnabled", "FIP"),
        ("FCoEFabricDiscoveryRetryCnt", "FCoE"),
    ] {
        assert!(
            matches!(classify(name, None), Class::Dcb(r) if r.term == term && r.field == Field::Name),
            "{name}: {:?}",
            classify(name, None)
        );
    }
}

#[test]
fn capabilities_read_only_reports_and_other_words_are_not_dcb_settings() {
    for name in [
        "DCBXSupport",
        "Vendor_PFCSupport",
        "PCIE_SLOT_1_Port1_DCBXVersionSupport",
        "Vendor_EtsCapable",
        "RDMASupport",
        "FCoEOffloadSupport",
    ] {
        assert!(
            matches!(classify(name, None), Class::Capability(Some(r)) if r.field == Field::Name),
            "{name}: a DCB capability"
        );
    }
    for name in ["SRIOVSupport", "iSCSIBootSupport", "NumberVFSupported"] {
        assert_eq!(classify(name, None), Class::Capability(None), "{name}");
    }
    // A writable one is a switch: judged by what it switches.
    let switch = entry("PFC Support", None, false, "Enumeration");
    assert!(matches!(
        classify("Vendor_PFCSupport", Some(&switch)),
        Class::Dcb(_)
    ));
    // A read-only DCB report is no DCB setting; by its name alone it is a setting (a read-only
    // `DCBXMode` says the mode set elsewhere), by an `Available` value a DCB capability.
    let available = entry("Priority Flow Control", None, true, "String");
    assert_eq!(
        classify("PriorityFlowControl", Some(&available)),
        Class::Setting
    );
    let coalescing = entry(
        "Interrupt Moderation",
        Some("Sets how many received packets the adapter coalesces before it raises an interrupt."),
        false,
        "Integer",
    );
    assert_eq!(
        classify("Vendor_InterruptModeration", Some(&coalescing)),
        Class::Setting
    );
    for name in [
        "Broadcom_FlowOffload",
        "SgxQos",
        "PmCRQoS",
        "NumberOfPxeDevices",
    ] {
        assert_eq!(classify(name, None), Class::Setting, "{name}");
    }
}

#[test]
fn each_class_has_its_home_under_a_port_and_in_the_bios() {
    let recognised = Recognised {
        field: Field::Name,
        text: "x",
        term: "DCBX",
    };
    assert_eq!(Class::Setting.hii_leaf("A"), "hii/A");
    assert_eq!(Class::Firmware.hii_leaf("A"), "firmware/hii/A");
    assert_eq!(Class::Status.hii_leaf("A"), "hii/status/A");
    assert_eq!(Class::Dcb(recognised).hii_leaf("A"), "hii/dcb/A");
    assert_eq!(Class::Setting.bios_prefix(), "bios");
    assert_eq!(Class::Firmware.bios_prefix(), "firmware/bios/attribute");
    assert_eq!(Class::Status.bios_prefix(), "bios/status");
    assert_eq!(Class::Dcb(recognised).bios_prefix(), "bios/dcb");
    assert_eq!(Class::Capability(None).hii_leaf("A"), "hii/capability/A");
    let dcb_capability = Class::Capability(Some(recognised));
    assert_eq!(dcb_capability.hii_leaf("A"), "hii/capability/dcb/A");
    assert_eq!(Class::Capability(None).bios_prefix(), "bios");
    assert_eq!(dcb_capability.bios_prefix(), "bios");
    assert_eq!(
        Class::Dcb(recognised).oem_leaf("Acme/NicConfig/LldpAgentEnabled"),
        "oem/dcb/Acme/NicConfig/LldpAgentEnabled"
    );
    assert_eq!(
        Class::Firmware.oem_leaf("Acme/FwVersion"),
        "firmware/oem/Acme/FwVersion"
    );
}

#[test]
fn an_available_or_unavailable_flag_is_a_capability_unless_a_registry_says_it_is_set() {
    use serde_json::json;
    let of = |registry: Option<&Registry>, name, value| match classify_value(registry, name, &value)
    {
        Class::Capability(dcb) => Some(dcb.map(|r| r.term)),
        _ => None,
    };
    // iDRAC without its registry: `PriorityFlowControl: "Available"` was a DCB setting noted
    // as unknown; it is what the NIC can do.
    assert_eq!(
        of(None, "PriorityFlowControl", json!("Available")),
        Some(Some("priority flow control"))
    );
    assert_eq!(
        of(None, "EnhancedTransmissionSelection", json!("Unavailable")),
        Some(Some("enhanced transmission selection"))
    );
    assert_eq!(
        of(None, "CongestionNotification", json!("NotSupported")),
        Some(Some("congestion notification"))
    );
    assert_eq!(of(None, "VPISupport", json!("NotAvailable")), Some(None));
    assert_eq!(
        of(None, "OnChipThermalSensor", json!("Supported")),
        Some(None)
    );
    // Other values are settings: a DCB one still a DCB setting.
    assert_eq!(of(None, "PriorityFlowControl", json!("Enabled")), None);
    assert!(matches!(
        classify_value(None, "PriorityFlowControl", &json!("Enabled")),
        Class::Dcb(_)
    ));
    // A writable entry is set, whatever it says.
    let registry = Registry::new(
        json!({"RegistryEntries": {"Attributes": [
            {"AttributeName": "Vendor_PfcMode", "DisplayName": "PFC", "ReadOnly": false, "Type": "Enumeration"},
            {"AttributeName": "PriorityFlowControl", "DisplayName": "Priority Flow Control", "ReadOnly": true, "Type": "String"}
        ]}}),
        false,
    );
    assert_eq!(
        of(Some(&registry), "Vendor_PfcMode", json!("Available")),
        None
    );
    assert_eq!(
        of(Some(&registry), "PriorityFlowControl", json!("Available")),
        Some(Some("priority flow control"))
    );
}
