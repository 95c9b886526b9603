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

/// The errors of the one host of a retrieval `answer`, and whether its device has a `psp`.
fn judged(answer: &str) -> (Vec<String>, bool) {
    let page = retrieved(answer, RETRIEVE).unwrap();
    let (facts, errors) = host_facts("esx01", &page.hosts[0]);
    let psp = facts
        .get("storage/nmp/naa.60050768028081713c0000000000007d/psp")
        .is_some();
    (errors, psp)
}

/// [`answer`] on vSphere API `api`, its device without `perenniallyReserved`.
fn unreserved(policy: &str, api: &str) -> String {
    answer(policy, "HostMultipathInfoLogicalUnitPolicy", true)
        .replace("<perenniallyReserved>true</perenniallyReserved>", "")
        .replace(
            "<build>469512</build>",
            &format!("<build>469512</build><apiVersion>{api}</apiVersion>"),
        )
}

#[test]
fn a_lun_without_perennially_reserved_on_a_host_whose_api_has_it_is_an_error() {
    for api in ["6.7.2", "7.0.3.0", "8.0.2.0"] {
        let (errors, _) = judged(&unreserved("VMW_PSP_FIXED", api));
        assert_eq!(errors.len(), 1, "{api}: {errors:?}");
        let error = &errors[0];
        assert!(
            error.starts_with(
                "host esx01: naa.60050768028081713c0000000000007d: config.storageDevice.scsiLun: no perenniallyReserved"
            ) && error.contains(api),
            "{error}"
        );
    }
    // A host that does not say its API release cannot be told to predate the property.
    let unsaid = answer("VMW_PSP_RR", "HostMultipathInfoLogicalUnitPolicy", true)
        .replace("<perenniallyReserved>true</perenniallyReserved>", "");
    let (errors, _) = judged(&unsaid);
    assert!(
        errors.len() == 1 && errors[0].contains("none given"),
        "{errors:?}"
    );
}

#[test]
fn round_robin_on_a_host_older_than_the_property_is_partial_and_names_esxcli() {
    let (errors, psp) = judged(&unreserved("VMW_PSP_RR", "5.0"));
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0].contains("host esx01: naa.60050768028081713c0000000000007d")
            && errors[0].contains("no perenniallyReserved, and the device uses VMW_PSP_RR")
            && errors[0].contains(
                "`esxcli storage core device list -d naa.60050768028081713c0000000000007d`"
            ),
        "{}",
        errors[0]
    );
    assert!(psp, "what was read is kept");
    // The invariant judges only Round Robin devices: another policy needs no flag there.
    for (policy, api) in [("VMW_PSP_MRU", "5.0"), ("VMW_PSP_FIXED", "6.7")] {
        let (errors, _) = judged(&unreserved(policy, api));
        assert!(errors.is_empty(), "{policy} on {api}: {errors:?}");
    }
}

#[test]
fn a_property_or_a_policy_given_twice_is_an_error_and_neither_is_read() {
    let whole = answer("VMW_PSP_RR", "HostMultipathInfoLogicalUnitPolicy", true);
    // The multipath property twice: Round Robin, then Most Recently Used.
    let start = whole
        .find("<propSet><name>config.storageDevice.multipathInfo")
        .unwrap();
    let end = start + whole[start..].find("</propSet>").unwrap() + "</propSet>".len();
    let mru = whole[start..end].replace("VMW_PSP_RR", "VMW_PSP_MRU");
    let twice = format!("{}{mru}{}", &whole[..end], &whole[end..]);
    let (errors, psp) = judged(&twice);
    assert_eq!(
        errors,
        [
            "host esx01: config.storageDevice.multipathInfo: given twice: which one holds cannot be told"
        ]
    );
    assert!(!psp);
    // Two policies in one logical unit.
    let policies = whole.replace(
        "<policy xsi:type=\"HostMultipathInfoLogicalUnitPolicy\"><policy>VMW_PSP_RR</policy></policy>",
        "<policy xsi:type=\"HostMultipathInfoLogicalUnitPolicy\"><policy>VMW_PSP_RR</policy></policy><policy xsi:type=\"HostMultipathInfoLogicalUnitPolicy\"><policy>VMW_PSP_MRU</policy></policy>",
    );
    let (errors, psp) = judged(&policies);
    assert_eq!(
        errors,
        [
            "host esx01: naa.60050768028081713c0000000000007d: config.storageDevice.multipathInfo: policy given twice: which one holds cannot be told"
        ]
    );
    assert!(!psp);
    // Two policy names in one policy, two flags in one SCSI LUN, two working flags on a path.
    for (from, to, says) in [
        (
            "<policy>VMW_PSP_RR</policy>",
            "<policy>VMW_PSP_RR</policy><policy>VMW_PSP_MRU</policy>",
            "multipathInfo: policy.policy given twice",
        ),
        (
            "<perenniallyReserved>true</perenniallyReserved>",
            "<perenniallyReserved>true</perenniallyReserved><perenniallyReserved>false</perenniallyReserved>",
            "scsiLun: perenniallyReserved given twice",
        ),
        (
            "<isWorkingPath>true</isWorkingPath></path>",
            "<isWorkingPath>true</isWorkingPath><isWorkingPath>false</isWorkingPath></path>",
            "multipathInfo: path vmhba2:C0:T1:L5: isWorkingPath given twice",
        ),
        (
            "<version>5.0.0</version>",
            "<version>5.0.0</version><version>8.0.3</version>",
            "config.product: version given twice",
        ),
    ] {
        let (errors, psp) = judged(&whole.replacen(from, to, 1));
        assert!(
            errors.len() == 1 && errors[0].contains(says),
            "{says}: {errors:?}"
        );
        assert!(!psp || says.contains("product"), "{says}");
    }
    // One device listed by two logical units.
    let lun = &whole[whole.find("<lun><key>").unwrap()..whole.find("</lun>\n</val>").unwrap() + 6];
    let two_units = whole.replace(
        lun,
        &format!("{lun}{}", lun.replace("VMW_PSP_RR", "VMW_PSP_MRU")),
    );
    let (errors, psp) = judged(&two_units);
    assert_eq!(
        errors,
        [
            "host esx01: naa.60050768028081713c0000000000007d: config.storageDevice.multipathInfo: a logical unit (its policy) given twice: which one holds cannot be told"
        ]
    );
    assert!(!psp);
}

proptest::proptest! {
    /// The retrieval with any of its elements given again, anywhere: an answer or an error,
    /// never a panic.
    #[test]
    fn a_retrieval_with_elements_given_again_never_panics(picks in proptest::collection::vec(0usize..200, 0..8)) {
        let whole = answer("VMW_PSP_RR", "HostMultipathInfoLogicalUnitPolicy", true);
        let starts: Vec<usize> = whole.match_indices("><").map(|(at, _)| at + 1).collect();
        let mut edited = whole.clone();
        for pick in picks {
            let from = starts[pick % starts.len()];
            let to = starts[(pick * 7 + 3) % starts.len()].max(from);
            let fragment = whole[from..to].to_owned();
            edited.insert_str(from.min(edited.len()), &fragment);
        }
        if let Ok(page) = retrieved(&edited, RETRIEVE) {
            for host in &page.hosts {
                let _ = host_facts("esx01", host);
            }
        }
    }
}

/// [`answer`] with its SCSI LUN named `first`, and a second logical unit and SCSI LUN (keys
/// `…-7e`) named `second`, claimed by a policy of `policy_type`: Most Recently Used, not
/// perennially reserved.
fn two_entries(first: &str, second: &str, policy_type: &str) -> String {
    let whole = answer("VMW_PSP_RR", "HostMultipathInfoLogicalUnitPolicy", true).replace(
        "<canonicalName>naa.60050768028081713c0000000000007d<",
        &format!("<canonicalName>{first}<"),
    );
    let lun = &whole[whole.find("<lun><key>").unwrap()..whole.find("</lun>\n</val>").unwrap() + 6];
    let second_lun = lun
        .replace("-7d<", "-7e<")
        .replace("<id>7d<", "<id>7e<")
        .replace("VMW_PSP_RR", "VMW_PSP_MRU")
        .replace("HostMultipathInfoLogicalUnitPolicy", policy_type);
    let scsi = &whole[whole.find("<ScsiLun ").unwrap()..whole.find("</ScsiLun>").unwrap() + 10];
    let second_scsi = scsi
        .replace("ScsiDisk-7d<", "ScsiDisk-7e<")
        .replace(
            &format!("<canonicalName>{first}<"),
            &format!("<canonicalName>{second}<"),
        )
        .replace("<perenniallyReserved>true", "<perenniallyReserved>false");
    whole
        .replace(lun, &format!("{lun}{second_lun}"))
        .replace(scsi, &format!("{scsi}{second_scsi}"))
}

#[test]
fn one_device_given_by_two_scsi_luns_is_an_error_and_neither_is_read() {
    let device = "naa.60050768028081713c0000000000007d";
    let keys = "the SCSI LUNs \"key-vim.host.ScsiDisk-7d\" and \"key-vim.host.ScsiDisk-7e\"";
    let nmp = "HostMultipathInfoLogicalUnitPolicy";
    let hpp = "HostMultipathInfoHppLogicalUnitPolicy";
    let (slash, underscore) = (format!("{device}/0"), format!("{device}_0"));
    for (first, second, policy_type, says) in [
        // The same canonical name, under native multipathing both times or once under HPP.
        (
            device,
            device,
            nmp,
            format!("{device}: config.storageDevice.scsiLun: {keys}"),
        ),
        (
            device,
            device,
            hpp,
            format!("{device}: config.storageDevice.scsiLun: {keys}"),
        ),
        // Two names that are one fact-path segment.
        (
            underscore.as_str(),
            slash.as_str(),
            nmp,
            format!(
                "{underscore}: config.storageDevice.scsiLun: the SCSI LUNs \"key-vim.host.ScsiDisk-7d\" ({underscore}) and \"key-vim.host.ScsiDisk-7e\" ({slash})"
            ),
        ),
    ] {
        let page = retrieved(&two_entries(first, second, policy_type), RETRIEVE).unwrap();
        let (facts, errors) = host_facts("esx01", &page.hosts[0]);
        assert_eq!(
            errors,
            [format!(
                "host esx01: {says} are one device, given twice: which one holds cannot be told"
            )],
            "{second} {policy_type}"
        );
        let written: Vec<String> = facts
            .iter()
            .map(|(path, _)| path.to_string())
            .filter(|path| path.starts_with("storage/"))
            .collect();
        assert!(written.is_empty(), "{second} {policy_type}: {written:?}");
    }
}
