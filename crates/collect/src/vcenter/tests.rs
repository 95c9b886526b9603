use super::*;

const RETRIEVE: &str = "RetrievePropertiesEx";

/// The shape of a vCenter's `RetrievePropertiesExResponse` for one host (the element names and
/// types of the vSphere API's `HostMultipathInfo` and `HostScsiDisk`).
fn answer(policy: &str, policy_type: &str, reserved: bool) -> String {
    format!(
        r#"<?xml version="1.0" encoding="UTF-8"?>
<soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
<soapenv:Body>
<RetrievePropertiesExResponse xmlns="urn:vim25"><returnval><token>2</token>
<objects><obj type="HostSystem">host-21</obj>
<propSet><name>name</name><val xsi:type="xsd:string">esx01</val></propSet>
<propSet><name>config.product</name><val xsi:type="AboutInfo"><name>VMware ESXi</name><version>5.0.0</version><build>469512</build></val></propSet>
<propSet><name>config.storageDevice.multipathInfo</name><val xsi:type="HostMultipathInfo">
<lun><key>key-vim.host.MultipathInfo.LogicalUnit-7d</key><id>7d</id><lun>key-vim.host.ScsiDisk-7d</lun>
<path><key>p1</key><name>vmhba2:C0:T1:L5</name><pathState>active</pathState><isWorkingPath>true</isWorkingPath></path>
<path><key>p2</key><name>vmhba2:C0:T0:L5</name><pathState>active</pathState><isWorkingPath>true</isWorkingPath></path>
<policy xsi:type="{policy_type}"><policy>{policy}</policy></policy>
<storageArrayTypePolicy><policy>VMW_SATP_SVC</policy></storageArrayTypePolicy></lun>
</val></propSet>
<propSet><name>config.storageDevice.scsiLun</name><val xsi:type="ArrayOfScsiLun">
<ScsiLun xsi:type="HostScsiDisk"><key>key-vim.host.ScsiDisk-7d</key><canonicalName>naa.60050768028081713c0000000000007d</canonicalName><displayName>IBM Fibre Channel Disk (naa.60050768028081713c0000000000007d)</displayName><vendor>IBM     </vendor><model>2145            </model><perenniallyReserved>{reserved}</perenniallyReserved><localDisk>false</localDisk></ScsiLun>
</val></propSet>
</objects></returnval></RetrievePropertiesExResponse>
</soapenv:Body></soapenv:Envelope>"#
    )
}

fn fact(facts: &driftgate_snapshot::Facts, path: &str) -> Option<String> {
    facts.get(path).map(ToString::to_string)
}

#[test]
fn a_host_of_a_retrieval_becomes_the_esxcli_facts() {
    let page = retrieved(
        &answer("VMW_PSP_RR", "HostMultipathInfoLogicalUnitPolicy", true),
        RETRIEVE,
    )
    .unwrap();
    assert_eq!(page.token.as_deref(), Some("2"));
    let host = &page.hosts[0];
    assert_eq!(host.name.as_deref(), Some("esx01"));
    let (facts, errors) = host_facts("esx01", host);
    assert!(errors.is_empty(), "{errors:?}");
    let device = "storage/nmp/naa.60050768028081713c0000000000007d";
    assert_eq!(
        fact(&facts, "host/esxi/version").as_deref(),
        Some("\"5.0.0\"")
    );
    assert_eq!(
        fact(&facts, "host/esxi/build").as_deref(),
        Some("\"469512\"")
    );
    assert_eq!(
        fact(&facts, &format!("{device}/psp")).as_deref(),
        Some("\"VMW_PSP_RR\"")
    );
    assert_eq!(
        fact(&facts, &format!("{device}/satp")).as_deref(),
        Some("\"VMW_SATP_SVC\"")
    );
    assert_eq!(
        fact(&facts, &format!("{device}/perennially_reserved")).as_deref(),
        Some("true")
    );
    assert_eq!(
        fact(&facts, &format!("{device}/working_paths")).as_deref(),
        Some("2")
    );
    assert_eq!(
        fact(&facts, &format!("{device}/vendor")).as_deref(),
        Some("\"IBM\"")
    );
    assert_eq!(
        fact(&facts, &format!("{device}/model")).as_deref(),
        Some("\"2145\"")
    );
    assert_eq!(
        fact(&facts, &format!("{device}/is_local")).as_deref(),
        Some("false")
    );
}

#[test]
fn a_device_the_high_performance_plugin_claims_is_no_nmp_device() {
    let page = retrieved(
        &answer("FIXED", "HostMultipathInfoHppLogicalUnitPolicy", false),
        RETRIEVE,
    )
    .unwrap();
    let (facts, errors) = host_facts("esx01", &page.hosts[0]);
    assert!(errors.is_empty(), "{errors:?}");
    let device = "naa.60050768028081713c0000000000007d";
    assert_eq!(
        fact(&facts, &format!("storage/hpp/{device}/pss")).as_deref(),
        Some("\"FIXED\"")
    );
    assert_eq!(fact(&facts, &format!("storage/nmp/{device}/psp")), None);
}

#[test]
fn faults_missing_properties_and_cut_answers_are_errors() {
    let fault = r#"<?xml version="1.0"?><soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><soapenv:Body><soapenv:Fault><faultcode>ServerFaultCode</faultcode><faultstring>Cannot complete login due to an incorrect user name or password.</faultstring><detail><InvalidLoginFault xmlns="urn:vim25" xsi:type="InvalidLogin"></InvalidLoginFault></detail></soapenv:Fault></soapenv:Body></soapenv:Envelope>"#;
    assert_eq!(
        acknowledged(fault, "Login"),
        Err(AnswerError::Fault(Fault {
            kind: "InvalidLogin".into(),
            message: "Cannot complete login due to an incorrect user name or password.".into()
        }))
    );
    let whole = answer("VMW_PSP_RR", "HostMultipathInfoLogicalUnitPolicy", true);
    for cut in [whole.len() / 3, whole.len() / 2, whole.len() - 20] {
        assert!(
            matches!(
                retrieved(&whole[..cut], RETRIEVE),
                Err(AnswerError::Malformed(_))
            ),
            "cut at {cut}"
        );
    }
    // A host whose storage the vCenter did not give.
    let without = whole.replace("config.storageDevice.scsiLun", "config.other");
    let page = retrieved(&without, RETRIEVE).unwrap();
    let (_, errors) = host_facts("esx01", &page.hosts[0]);
    assert_eq!(
        errors,
        ["host esx01: the vCenter gave no config.storageDevice.scsiLun"]
    );
    // A mistyped boolean is said, not read as "not said".
    let mistyped = whole.replace("<perenniallyReserved>true", "<perenniallyReserved>maybe");
    let (_, errors) = host_facts("esx01", &retrieved(&mistyped, RETRIEVE).unwrap().hosts[0]);
    assert_eq!(
        errors,
        ["host esx01: config.storageDevice: perenniallyReserved is \"maybe\", not a boolean"]
    );
    // Another answer than the one asked for, an object of another type, a value of another
    // type, a continued page without its objects: errors, never fewer devices.
    assert!(matches!(
        retrieved(&whole, "ContinueRetrievePropertiesEx"),
        Err(AnswerError::Malformed(_))
    ));
    let datastore = whole.replace("<obj type=\"HostSystem\">", "<obj type=\"Datastore\">");
    assert!(
        matches!(retrieved(&datastore, RETRIEVE), Err(AnswerError::Malformed(m)) if m.contains("no HostSystem"))
    );
    let mistyped_val = whole.replace("xsi:type=\"ArrayOfScsiLun\"", "xsi:type=\"ArrayOfString\"");
    assert!(
        matches!(retrieved(&mistyped_val, RETRIEVE), Err(AnswerError::Malformed(m)) if m.contains("ArrayOfScsiLun"))
    );
    let empty_continued = whole.replace(
        "RetrievePropertiesExResponse",
        "ContinueRetrievePropertiesExResponse",
    );
    let empty_continued = empty_continued
        .split("<returnval>")
        .next()
        .unwrap()
        .to_owned()
        + "</ContinueRetrievePropertiesExResponse></soapenv:Body></soapenv:Envelope>";
    assert!(
        matches!(retrieved(&empty_continued, "ContinueRetrievePropertiesEx"), Err(AnswerError::Malformed(m)) if m.contains("promised more"))
    );
    // A policy type that names no plugin.
    let odd = whole.replace(
        "HostMultipathInfoLogicalUnitPolicy",
        "HostMultipathInfoOddPolicy",
    );
    let (_, errors) = host_facts("esx01", &retrieved(&odd, RETRIEVE).unwrap().hosts[0]);
    assert!(
        errors[0].contains("HostMultipathInfoOddPolicy"),
        "{errors:?}"
    );
    // A logical unit naming a SCSI LUN that is not listed.
    let dangling = whole.replace(
        "<lun>key-vim.host.ScsiDisk-7d</lun>",
        "<lun>key-vim.host.ScsiDisk-99</lun>",
    );
    let (_, errors) = host_facts("esx01", &retrieved(&dangling, RETRIEVE).unwrap().hosts[0]);
    assert!(errors[0].contains("ScsiDisk-99"), "{errors:?}");
}
