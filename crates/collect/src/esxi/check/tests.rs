use std::path::{Path, PathBuf};

use super::*;
use crate::esxi::parse::{FieldValue, parse_device_list, parse_structure, parse_table, parse_xml};

fn manifest(rel: &str) -> PathBuf {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join(rel)
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn example(state: &str, file: &str) -> String {
    read(
        &manifest("examples/esxi-mscs-psp/recorded")
            .join(state)
            .join(file),
    )
}

fn fixture(name: &str) -> String {
    read(&manifest("tests/fixtures/esxi").join(name))
}

/// The public samples in `tests/fixtures/public/os-samples/`: each `=== (X) … ===` section, without
/// the shell prompts the blog authors copied, split into one answer per device block (the
/// samples put a device's before and after states side by side).
fn shared_sample(file: &str) -> Vec<(String, String)> {
    let path = driftgate_test_data::public_data("os-samples").join(file);
    let text = read(&path);
    let mut sections: Vec<(String, Vec<String>)> = Vec::new();
    for line in text.lines() {
        if let Some(label) = line.strip_prefix("=== ") {
            sections.push((
                label.trim_end_matches(" ===").to_owned(),
                vec![String::new()],
            ));
        } else if let Some((_, blocks)) = sections.last_mut() {
            let prompt = line.contains("esxcli ") || line.contains("vmware -v");
            if line.trim().is_empty() {
                blocks.push(String::new());
            } else if !prompt {
                let block = blocks.last_mut().expect("a block");
                block.push_str(line);
                block.push('\n');
            }
        }
    }
    sections
        .into_iter()
        .flat_map(|(label, blocks)| {
            blocks
                .into_iter()
                .filter(|b| !b.is_empty())
                .map(move |b| (label.clone(), b))
        })
        .collect()
}

/// Which command an answer is of: its parser and its check.
#[derive(Debug, Clone, Copy)]
enum Kind {
    Nmp,
    Core,
    Satps,
    Rules,
    Version,
}

fn text_answer(text: &str, kind: Kind) -> Result<Vec<Record>, ParseError> {
    let records = match kind {
        Kind::Nmp | Kind::Core => parse_device_list(text)?,
        Kind::Satps | Kind::Rules => parse_table(text)?,
        Kind::Version => vec![parse_structure(text)?],
    };
    let check = match kind {
        Kind::Nmp => nmp_devices,
        Kind::Core => core_devices,
        Kind::Satps => satps,
        Kind::Rules => satp_rules,
        Kind::Version => version,
    };
    check(&records, Form::Text).map(|()| records)
}

#[test]
fn every_recorded_and_public_answer_is_whole() {
    let mut answers: Vec<(String, String, Kind)> = Vec::new();
    for state in ["healthy", "round-robin"] {
        for (file, check) in [
            ("esxcli_storage_nmp_device_list.txt", Kind::Nmp),
            ("esxcli_storage_core_device_list.txt", Kind::Core),
            ("esxcli_storage_nmp_satp_list.txt", Kind::Satps),
            ("esxcli_storage_nmp_satp_rule_list.txt", Kind::Rules),
            ("esxcli_system_version_get.txt", Kind::Version),
        ] {
            answers.push((format!("{state}/{file}"), example(state, file), check));
        }
    }
    for (file, check) in [
        ("esxi67-nmp-device-list-crlf.txt", Kind::Nmp),
        ("esxi80-core-device-list.txt", Kind::Core),
        ("esxi80-version.txt", Kind::Version),
    ] {
        answers.push((file.to_owned(), fixture(file), check));
    }
    for (label, text) in shared_sample("esxi_nmp_device_list_text.txt") {
        let check = if label.contains("satp list") {
            Kind::Satps
        } else {
            Kind::Nmp
        };
        answers.push((
            format!("esxi_nmp_device_list_text.txt {label}"),
            text,
            check,
        ));
    }
    for (label, text) in shared_sample("esxi_core_device_list_text.txt") {
        answers.push((
            format!("esxi_core_device_list_text.txt {label}"),
            text,
            Kind::Core,
        ));
    }
    for (label, text) in shared_sample("esxi_satp_rule_list_and_version.txt") {
        let fields: String = text
            .lines()
            .filter(|l| l.starts_with(' '))
            .map(|l| format!("{l}\n"))
            .collect();
        if label.contains("version get") && !fields.is_empty() {
            answers.push((
                format!("esxi_satp_rule_list_and_version.txt {label}"),
                fields,
                Kind::Version,
            ));
        }
    }
    assert!(answers.len() > 20, "{} answers", answers.len());
    for (name, text, kind) in &answers {
        text_answer(text, *kind).unwrap_or_else(|e| panic!("{name}: {e}\n{text}"));
    }
    let xml = parse_xml(&fixture("esxi70-nmp-device-list.xml")).unwrap();
    nmp_devices(&xml, Form::Xml).unwrap();
    version(
        &parse_xml(&fixture("esxi70-version.xml")).unwrap(),
        Form::Xml,
    )
    .unwrap();
}

/// (answer, its check, the error's start): each broken answer names its line.
#[test]
fn broken_answers_name_the_line_and_what_was_expected() {
    let nmp = example("round-robin", "esxcli_storage_nmp_device_list.txt");
    let core = example("round-robin", "esxcli_storage_core_device_list.txt");
    let rules = example("round-robin", "esxcli_storage_nmp_satp_rule_list.txt");
    let satp_list = example("round-robin", "esxcli_storage_nmp_satp_list.txt");
    let version_text = example("round-robin", "esxcli_system_version_get.txt");
    let cut_after = |text: &str, needle: &str| {
        let at = text.rfind(needle).expect("needle") + needle.len();
        text[..at].to_owned()
    };
    let cases: Vec<(String, Kind, &str)> = vec![
        (
            cut_after(&nmp, "Path Selection Policy: VMW_P"),
            Kind::Nmp,
            "line 21: the output ends in the middle of a line (\"Path Selection Policy: VMW_P\" has no line ending)",
        ),
        (
            cut_after(&nmp, "Path Selection Policy: VMW_PSP_RR\n"),
            Kind::Nmp,
            "line 22: device naa.60050768028081713c0000000000007d (from line 17) ends without `Path Selection Policy Device Config`, `Working Paths`",
        ),
        (
            nmp.replacen(
                "Path Selection Policy: VMW_PSP_FIXED",
                "Path Selection Policy: VMW_PSP_FIX",
                1,
            ),
            Kind::Nmp,
            "line 5: Path Selection Policy \"VMW_PSP_FIX\": expected one of VMW_PSP_FIXED, VMW_PSP_MRU, VMW_PSP_RR, VMW_PSP_FIXED_AP",
        ),
        (
            nmp.replacen(
                "Storage Array Type: VMW_SATP_LOCAL",
                "Storage Array Type: VMW SATP",
                1,
            ),
            Kind::Nmp,
            "line 3: Storage Array Type \"VMW SATP\": expected a plugin name",
        ),
        (
            nmp.replace(
                "naa.60050768028081713c0000000000007d",
                "naa.60050768028081713c0000000000007c",
            ),
            Kind::Nmp,
            "line 17: device naa.60050768028081713c0000000000007c again (first at line 9)",
        ),
        (
            nmp.replacen(
                "   Working Paths: vmhba1:C0:T0:L0\n",
                "   Working Paths: vmhba1:C0:T0:L0\n   Working Paths: x\n",
                1,
            ),
            Kind::Nmp,
            "line 8: field \"Working Paths\" again (first at line 7)",
        ),
        (
            cut_after(&core, "Is Perennially Reserved: true\n"),
            Kind::Core,
            "line 68: device naa.60050768028081713c0000000000007d (from line 49) ends without `Thin Provisioning Status`, `Attached Filters`, `VAAI Status`, `Other UIDs`",
        ),
        (
            core.replace(
                "Is Perennially Reserved: true",
                "Is Perennially Reserved: ture",
            ),
            Kind::Core,
            "line 67: Is Perennially Reserved \"ture\": expected `true` or `false`",
        ),
        (
            fixture("missing-fields-nmp-device-list.txt"),
            Kind::Nmp,
            "line 3: device naa.600000000000000000000000000000aa (from line 1) ends without `Device Display Name`, `Storage Array Type Device Config`, `Path Selection Policy`",
        ),
        (
            cut_after(&satp_list, "VMW_PSP_FI"),
            Kind::Satps,
            "line 6: the output ends in the middle of a line",
        ),
        (
            cut_after(&satp_list, "-\n"),
            Kind::Satps,
            "no SATP: ESXi always lists",
        ),
        (
            rules.replacen("user  ", "usr   ", 1),
            Kind::Rules,
            "line 3: Rule Group \"usr\": expected `system` or `user`",
        ),
        (
            rules.replacen("VMW_PSP_RR ", "VMW_PSP_RX ", 1),
            Kind::Rules,
            "line 3: Default PSP \"VMW_PSP_RX\": expected one of",
        ),
        (
            "Name  Default PSP\n----  -----------\nVMW_SATP_X  VMW_PSP_MRU\n".to_owned(),
            Kind::Satps,
            "line 3: SATP lacks `Description`: the table has no such column",
        ),
        (
            cut_after(&version_text, "Version: 5.0.0\n"),
            Kind::Version,
            "line 3: version ends without `Build`, `Update`",
        ),
        (
            version_text.replace("5.0.0", "5.0.x"),
            Kind::Version,
            "line 2: Version \"5.0.x\": expected a dotted number",
        ),
        (
            version_text.replace("Update: 0", "Update: O"),
            Kind::Version,
            "line 4: update \"O\": expected a number",
        ),
    ];
    for (input, kind, expected) in cases {
        let err = text_answer(&input, kind)
            .map(|_| ())
            .expect_err(expected)
            .to_string();
        assert!(err.starts_with(expected), "{err}\nexpected: {expected}");
    }
}

#[test]
fn broken_xml_names_the_line() {
    let xml = fixture("esxi70-nmp-device-list.xml");
    let cut = &xml[..xml.find("VMW_PSP_MRU").expect("MRU")];
    let err = parse_xml(cut).unwrap_err().to_string();
    assert!(
        err.starts_with("line 23: the XML document ends before its elements are closed"),
        "{err}"
    );
    let without_paths = xml.replacen(
        "<field name=\"Working Paths\"><list type=\"string\"><string>vmhba1:C0:T2:L20</string></list></field>",
        "",
        1,
    );
    let records = parse_xml(&without_paths).unwrap();
    let err = nmp_devices(&records, Form::Xml).unwrap_err().to_string();
    assert!(
        err.starts_with("line 20: device naa.624a9370c1a2b3c4d5e6f70800015678 (from line 20) ends without `Working Paths`"),
        "{err}"
    );
}

fn answer(file: &str, records: Vec<Record>) -> Answer {
    Answer {
        records,
        origin: format!("({file})"),
    }
}

fn recorded_answers(state: &str) -> [Answer; 4] {
    let text = |file: &str| example(state, file);
    [
        answer(
            "nmp",
            parse_device_list(&text("esxcli_storage_nmp_device_list.txt")).unwrap(),
        ),
        answer(
            "core",
            parse_device_list(&text("esxcli_storage_core_device_list.txt")).unwrap(),
        ),
        answer(
            "satps",
            parse_table(&text("esxcli_storage_nmp_satp_list.txt")).unwrap(),
        ),
        answer(
            "rules",
            parse_table(&text("esxcli_storage_nmp_satp_rule_list.txt")).unwrap(),
        ),
    ]
}

#[test]
fn the_answers_of_one_host_must_agree() {
    let [nmp, core, satps, rules] = recorded_answers("round-robin");
    assert_eq!(
        agree(&nmp, Some(&core), Some(&satps), Some(&rules)),
        Vec::<String>::new()
    );

    // The NMP list lost its last device, or the core list lost one.
    let mut short_nmp = nmp.clone();
    short_nmp.records.pop();
    assert_eq!(
        agree(&short_nmp, Some(&core), Some(&satps), Some(&rules)),
        [
            "(core): line 54: device naa.60050768028081713c0000000000007d is claimed by NMP but (nmp) does not list it: one of the two answers is cut short"
        ]
    );
    let mut short_core = core.clone();
    short_core.records.pop();
    assert_eq!(
        agree(&nmp, Some(&short_core), Some(&satps), Some(&rules)),
        [
            "(nmp): line 17: device naa.60050768028081713c0000000000007d is not in (core), which lists every device of the host: one of the two answers is cut short"
        ]
    );

    // An SATP the host does not list; a third-party PSP only when the host names it.
    let mut satps_without_svc = satps.clone();
    satps_without_svc
        .records
        .retain(|s| s.get("name").as_deref() != Some("VMW_SATP_SVC"));
    let errors = agree(&nmp, Some(&core), Some(&satps_without_svc), Some(&rules));
    assert_eq!(errors.len(), 2, "{errors:?}");
    assert!(errors[0].starts_with("(nmp): line 11: device naa.60050768028081713c0000000000007c: Storage Array Type \"VMW_SATP_SVC\" is not an SATP that (satps) lists"), "{errors:?}");
    let mut eql = nmp.clone();
    eql.records[2].fields.insert(
        "pathselectionpolicy".into(),
        FieldValue::Text("DELL_PSP_EQL_ROUTED".into()),
    );
    assert_eq!(
        agree(&eql, Some(&core), Some(&satps), Some(&rules)),
        [
            "(nmp): line 21: device naa.60050768028081713c0000000000007d: Path Selection Policy \"DELL_PSP_EQL_ROUTED\": expected one of VMW_PSP_FIXED, VMW_PSP_MRU, VMW_PSP_RR, VMW_PSP_FIXED_AP or a PSP the SATP list or claim rules name"
        ]
    );
    let mut eql_rules = rules.clone();
    eql_rules.records[0].fields.insert(
        "defaultpsp".into(),
        FieldValue::Text("DELL_PSP_EQL_ROUTED".into()),
    );
    assert_eq!(
        agree(&eql, Some(&core), Some(&satps), Some(&eql_rules)),
        Vec::<String>::new()
    );
}

#[test]
fn an_empty_core_list_is_whole_only_when_the_nmp_list_is_empty_too() {
    // A diskless host (stateless Auto Deploy, no LUN) lists no device in either list.
    let core = parse_device_list("").unwrap();
    core_devices(&core, Form::Text).unwrap();
    assert_eq!(
        agree(
            &answer("nmp", Vec::new()),
            Some(&answer("core", core.clone())),
            None,
            None
        ),
        Vec::<String>::new()
    );
    // The NMP list names devices: the empty core list lost its answer.
    let [nmp, _, satps, rules] = recorded_answers("round-robin");
    assert_eq!(
        agree(
            &nmp,
            Some(&answer("core", core)),
            Some(&satps),
            Some(&rules)
        ),
        [
            "(core): no device, though (nmp) lists 3: the core list names every device of the host, so an empty answer was lost on the way"
        ]
    );
}

/// The core list prints some fields only for some kinds of device: a disk's queue depth,
/// RAID and PI fields, not a CD-ROM's. A list whose last device is a CD-ROM after a disk is
/// whole; a CD-ROM cut short after another CD-ROM is not.
#[test]
fn a_cdrom_after_a_disk_need_not_print_the_disk_only_fields() {
    let sample = shared_sample("esxi_core_device_list_text.txt");
    let block = |prefix: &str| {
        sample
            .iter()
            .find(|(label, _)| label.starts_with(prefix))
            .map(|(_, block)| block.clone())
            .unwrap_or_else(|| panic!("sample {prefix}"))
    };
    let (disk, cdrom) = (block("(B)"), block("(C)"));
    let mixed = format!("{disk}\n{cdrom}");
    let records = parse_device_list(&mixed).unwrap();
    assert_eq!(records.len(), 2);
    assert!(
        records[0].fields.contains_key("devicemaxqueuedepth")
            && !records[1].fields.contains_key("devicemaxqueuedepth"),
        "the sample no longer shows a disk-only field"
    );
    core_devices(&records, Form::Text).unwrap();

    // Two CD-ROMs, the second cut at a line end: still found.
    let second = cdrom.replace("mpx.vmhba33:C0:T0:L0", "mpx.vmhba32:C0:T0:L0");
    let cut = &second[..second.find("   Is Shared Clusterwide").unwrap()];
    let two = format!("{disk}\n{cdrom}\n{cut}");
    let err = core_devices(&parse_device_list(&two).unwrap(), Form::Text)
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with("line 103: device mpx.vmhba32:C0:T0:L0 (from line 78) ends without")
            && err.contains("`issharedclusterwide`"),
        "{err}"
    );
}

#[test]
fn a_host_without_nmp_devices_agrees_with_its_core_list() {
    // ESXi 7/8 claims local NVMe and virtual disks with HPP: the NMP list is empty, and
    // that is a whole answer.
    let sample = shared_sample("esxi_core_device_list_text.txt");
    let (_, hpp_only) = sample
        .iter()
        .find(|(label, _)| label.starts_with("(B)"))
        .expect("sample (B)");
    let core = parse_device_list(hpp_only).unwrap();
    core_devices(&core, Form::Text).unwrap();
    assert_eq!(
        agree(
            &answer("nmp", Vec::new()),
            Some(&answer("core", core)),
            None,
            None
        ),
        Vec::<String>::new()
    );
    nmp_devices(&[], Form::Text).unwrap();
}
