use super::*;

fn fixture(name: &str) -> String {
    let path = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .join("tests/fixtures/esxi")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn example(state: &str, file: &str) -> String {
    let path = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .join("examples/esxi-mscs-psp/recorded")
        .join(state)
        .join(file);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn text(record: &Record, key: &str) -> Option<String> {
    record.get(key)
}

#[test]
fn device_lists_of_every_version_and_line_ending() {
    // (input, devices, first device's PSP, first device's working paths)
    let cases = [
        (
            example("healthy", "esxcli_storage_nmp_device_list.txt"),
            3,
            "VMW_PSP_FIXED",
            1,
        ),
        (
            fixture("esxi67-nmp-device-list-crlf.txt"),
            2,
            "VMW_PSP_RR",
            4,
        ),
        // Well formed but incomplete: the parser reads it, `check` rejects it.
        (fixture("missing-fields-nmp-device-list.txt"), 2, "", 0),
    ];
    for (input, devices, psp, paths) in cases {
        let records = parse_device_list(&input).unwrap();
        assert_eq!(records.len(), devices);
        assert_eq!(
            text(&records[0], "pathselectionpolicy").unwrap_or_default(),
            psp
        );
        assert_eq!(
            records[0]
                .fields
                .get("workingpaths")
                .map_or(0, FieldValue::count),
            paths
        );
    }
    let crlf = parse_device_list(&fixture("esxi67-nmp-device-list-crlf.txt")).unwrap();
    assert_eq!(
        crlf[1].id.as_deref(),
        Some("naa.624a9370c1a2b3c4d5e6f70800015678")
    );
    assert_eq!(
        text(&crlf[1], "pathselectionpolicydeviceconfig").as_deref(),
        Some("Current Path=vmhba1:C0:T2:L20")
    );
    assert!(!text(&crlf[1], "isusb").unwrap().ends_with('\r'));
    let missing = parse_device_list(&fixture("missing-fields-nmp-device-list.txt")).unwrap();
    assert_eq!(
        missing[1].fields.get("workingpaths"),
        Some(&FieldValue::Text(String::new()))
    );
}

#[test]
fn device_ids_with_colons_are_headings_and_modern_fields_are_read() {
    let core = parse_device_list(&fixture("esxi80-core-device-list.txt")).unwrap();
    assert_eq!(core.len(), 1);
    assert_eq!(
        text(&core[0], "isperenniallyreserved").as_deref(),
        Some("true")
    );
    assert_eq!(
        text(&core[0], "issharedclusterwide").as_deref(),
        Some("true")
    );
    assert_eq!(text(&core[0], "vendor").as_deref(), Some("PURE"));
    let local =
        parse_device_list(&example("healthy", "esxcli_storage_core_device_list.txt")).unwrap();
    assert_eq!(local[0].id.as_deref(), Some("mpx.vmhba1:C0:T0:L0"));
    assert_eq!(text(&local[0], "model").as_deref(), Some("8k-l Mirror"));
}

#[test]
fn empty_outputs_are_empty_lists() {
    assert_eq!(parse_device_list("").unwrap(), vec![]);
    assert_eq!(parse_device_list("\r\n\n").unwrap(), vec![]);
    assert_eq!(parse_table("").unwrap(), vec![]);
    assert!(parse_structure("").is_err());
}

#[test]
fn malformed_text_is_an_error_naming_the_line() {
    let cases = [
        (
            "   Path Selection Policy: VMW_PSP_RR\n",
            "line 1: field \"Path Selection Policy\" before any device id",
        ),
        (
            "naa.1\n   Path Selection Policy: VMW_PSP_RR\nthis is not esxcli output\n",
            "line 3: expected a device id or `Key: value`",
        ),
    ];
    for (input, expected) in cases {
        let err = parse_device_list(input).unwrap_err().to_string();
        assert!(err.starts_with(expected), "{err}");
    }
    assert!(
        parse_structure("Version 5.0\n")
            .unwrap_err()
            .to_string()
            .starts_with("line 1:")
    );
    assert!(
        parse_table("Name  Default PSP\nVMW_SATP_ALUA VMW_PSP_MRU\n")
            .unwrap_err()
            .to_string()
            .starts_with("line 2:")
    );
}

#[test]
fn versions_from_esxcli_and_vmware_v() {
    let v80 = parse_structure(&fixture("esxi80-version.txt")).unwrap();
    assert_eq!(
        (
            text(&v80, "version"),
            text(&v80, "build"),
            text(&v80, "update"),
            text(&v80, "patch")
        ),
        (
            Some("8.0.1".into()),
            Some("Releasebuild-21495797".into()),
            Some("1".into()),
            Some("0".into())
        )
    );
    let v50 = parse_structure(&example("healthy", "esxcli_system_version_get.txt")).unwrap();
    assert_eq!(text(&v50, "version").as_deref(), Some("5.0.0"));
    assert_eq!(text(&v50, "patch"), None);
    assert_eq!(
        parse_vmware_v(&fixture("esx41-vmware-v.txt")).unwrap(),
        ("VMware ESX".into(), "4.1.0".into(), "260247".into())
    );
    assert!(parse_vmware_v("command not found\n").is_err());
}

#[test]
fn tables_are_cut_by_the_dash_line_with_multi_word_headers() {
    let rules = parse_table(&example(
        "round-robin",
        "esxcli_storage_nmp_satp_rule_list.txt",
    ))
    .unwrap();
    assert_eq!(rules.len(), 4);
    assert_eq!(text(&rules[0], "name").as_deref(), Some("VMW_SATP_SVC"));
    assert_eq!(text(&rules[0], "rulegroup").as_deref(), Some("user"));
    assert_eq!(text(&rules[0], "defaultpsp").as_deref(), Some("VMW_PSP_RR"));
    assert_eq!(text(&rules[0], "pspoptions").as_deref(), Some("iops=1000"));
    assert_eq!(
        text(&rules[0], "description").as_deref(),
        Some("Host Profile: RR for SVC")
    );
    assert_eq!(text(&rules[1], "defaultpsp"), None);
    assert_eq!(text(&rules[2], "transport").as_deref(), Some("sata"));
    let satps = parse_table(&example("healthy", "esxcli_storage_nmp_satp_list.txt")).unwrap();
    assert_eq!(
        text(&satps[1], "description").as_deref(),
        Some("Supports non-specific arrays that use the ALUA protocol")
    );
}

#[test]
fn xml_output_with_internal_or_display_names() {
    let records = parse_xml(&fixture("esxi70-nmp-device-list.xml")).unwrap();
    assert_eq!(records.len(), 2);
    assert_eq!(
        text(&records[0], "device").as_deref(),
        Some("naa.624a9370c1a2b3c4d5e6f70800011234")
    );
    assert_eq!(
        records[0].fields["workingpaths"],
        FieldValue::List(vec!["vmhba2:C0:T3:L12".into(), "vmhba1:C0:T3:L12".into()])
    );
    assert_eq!(
        text(&records[1], "pathselectionpolicy").as_deref(),
        Some("VMW_PSP_MRU")
    );
    let version = parse_xml(&fixture("esxi70-version.xml")).unwrap();
    assert_eq!(text(&version[0], "version").as_deref(), Some("7.0.1"));
    assert_eq!(text(&version[0], "update").as_deref(), Some("1"));
    let err = parse_xml("<output><root><list><structure><field><string>x</string></field></structure></list></root></output>").unwrap_err();
    assert!(err.to_string().contains("<field> without a name"), "{err}");
    assert!(parse_xml("Unable to find requested formatter: xml").is_err());
    assert!(
        parse_xml("<html/>")
            .unwrap_err()
            .to_string()
            .contains("no <root>")
    );
}

proptest::proptest! {
    #[test]
    fn text_parsers_never_panic(input in "\\PC{0,600}") {
        let _ = parse_device_list(&input);
        let _ = parse_structure(&input);
        let _ = parse_table(&input);
        let _ = parse_vmware_v(&input);
        let _ = parse_xml(&input);
    }

    #[test]
    fn table_parser_never_panics_on_ragged_rows(rows in proptest::collection::vec("[a-zA-Z_ é\\t-]{0,40}", 0..6)) {
        let input = format!("Name   Default PSP  Description\n-----  -----------  -----------\n{}", rows.join("\n"));
        let _ = parse_table(&input);
    }

    #[test]
    fn device_parser_never_panics_on_esxcli_like_lines(lines in proptest::collection::vec("( {0,3}[A-Za-z ]{1,12}: [a-z0-9,:{}= ]{0,20}|naa\\.[0-9a-f]{1,8}|\\r|)", 0..12)) {
        let _ = parse_device_list(&lines.join("\n"));
    }
}

/// A parser whose records are dropped: only whether and where it fails matters.
type Parse = fn(&str) -> Result<(), ParseError>;

#[test]
fn text_cut_in_the_middle_of_a_line_is_an_error_naming_the_line() {
    let cases: [(&str, Parse); 4] = [
        ("naa.1\n   Path Selection Policy: VMW_P", |t| {
            parse_device_list(t).map(drop)
        }),
        ("   Product: VMware ESXi\n   Version: 5.0", |t| {
            parse_structure(t).map(drop)
        }),
        (
            "Name          Default PSP\n------------  -----------\nVMW_SATP_SVC  VMW_PSP_FI",
            |t| parse_table(t).map(drop),
        ),
        ("VMware ESXi 5.5.0 build-32", |t| {
            parse_vmware_v(t).map(drop)
        }),
    ];
    for (input, parse) in cases {
        let err = parse(input).unwrap_err();
        assert_eq!(err.line, Some(input.lines().count()), "{input:?}: {err}");
        assert!(
            err.message
                .starts_with("the output ends in the middle of a line"),
            "{err}"
        );
        // A hand-copied recording that lost only its final newline is told how to mend it.
        assert!(
            err.message
                .ends_with("it was cut short (if the file is whole, add its final newline)"),
            "{err}"
        );
        // With its line ending, the same text is a whole line.
        assert!(
            parse(&format!("{input}\n"))
                .err()
                .is_none_or(|e| !e.message.contains("middle of a line"))
        );
    }
}

#[test]
fn a_field_printed_twice_is_an_error_naming_both_lines() {
    let err = parse_device_list("naa.1\n   Is Local: true\n   Is Local: false\n").unwrap_err();
    assert_eq!(
        err.to_string(),
        "line 3: field \"Is Local\" again (first at line 2): esxcli prints each field once"
    );
    let err = parse_xml("<output><root><structure><field name=\"Version\"><string>5</string></field>\n<field name=\"Version\"><string>6</string></field></structure></root></output>").unwrap_err();
    assert!(
        err.to_string()
            .starts_with("line 2: field \"Version\" again (first at line 1)"),
        "{err}"
    );
}

#[test]
fn records_know_their_lines() {
    let records = parse_device_list(&example(
        "round-robin",
        "esxcli_storage_nmp_device_list.txt",
    ))
    .unwrap();
    assert_eq!((records[2].line, records[2].end), (17, 23));
    assert_eq!(records[2].line_of("pathselectionpolicy"), 21);
    let xml = parse_xml(&fixture("esxi70-nmp-device-list.xml")).unwrap();
    assert_eq!((xml[1].line, xml[1].end), (20, 28));
}

/// Every corpus input, cut and corrupted: no parser panics.
fn corpus() -> Vec<(String, Vec<u8>)> {
    let dir = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .join("tests/fixtures/fuzz/esxi");
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| {
            let entry = entry.unwrap();
            (
                entry.file_name().into_string().unwrap(),
                std::fs::read(entry.path()).unwrap(),
            )
        })
        .filter(|(name, _)| name.starts_with("esxcli_") || name.starts_with("vmware_"))
        .collect();
    files.sort();
    assert!(
        files.len() >= 10,
        "{} corpus files in {}",
        files.len(),
        dir.display()
    );
    files
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]

    #[test]
    fn no_parser_panics_on_a_cut_or_corrupted_corpus_input(
        pick in 0usize..64,
        cut in 0usize..4096,
        at in 0usize..4096,
        byte in proptest::prelude::any::<u8>(),
        corrupt in proptest::prelude::any::<bool>(),
    ) {
        let files = corpus();
        let (_, bytes) = &files[pick % files.len()];
        let mut input = bytes[..cut % (bytes.len() + 1)].to_vec();
        if corrupt && !input.is_empty() {
            let at = at % input.len();
            input[at] = byte;
        }
        let text = String::from_utf8_lossy(&input);
        let _ = parse_device_list(&text);
        let _ = parse_structure(&text);
        let _ = parse_table(&text);
        let _ = parse_vmware_v(&text);
        let _ = parse_xml(&text);
    }
}
