use super::*;
use crate::encoding::decode_text;
use crate::nic::port_key;
use driftgate_snapshot::FactValue;

fn fixture(name: &str) -> String {
    let path = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .join("tests/fixtures/windows")
        .join(name);
    decode_text(&std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
        .unwrap()
}

fn fact(facts: &Facts, path: &str) -> Option<String> {
    facts.get(path).map(FactValue::to_string)
}

const P1: &str = "nic/name-slot_3_port_1/os";

/// A whole adapter record without Operational or Remote lines (how an adapter without
/// operational DCB prints).
fn record(name: &str) -> String {
    format!(
        "Name                       : {name}
Enabled                    : True
Capabilities               :                       Hardware     Current
                                                   --------     -------
                             MacSecBypass        : NotSupported NotSupported
                             DcbxSupport         : IEEE         IEEE
                             NumTCs(Max/ETS/PFC) : 8/8/8        8/8/8
"
    )
}
const P2: &str = "nic/name-slot_3_port_2/os";

#[test]
fn the_seed_1_paste_gives_capabilities_and_host_pfc() {
    let (facts, names) = parse(&fixture("get-netadapterqos-seed1.txt")).unwrap();
    assert_eq!(names, vec!["SLOT 3 Port 1", "SLOT 3 Port 2"]);
    for port in [P1, P2] {
        assert_eq!(
            fact(&facts, &format!("{port}/qos_enabled")).as_deref(),
            Some("true")
        );
        assert_eq!(
            fact(&facts, &format!("{port}/dcbx_support/hardware")).as_deref(),
            Some("\"ieee\"")
        );
        assert_eq!(
            fact(&facts, &format!("{port}/dcbx_support/current")).as_deref(),
            Some("\"none\"")
        );
        assert_eq!(
            fact(&facts, &format!("{port}/num_tcs/current/pfc")).as_deref(),
            Some("0")
        );
        assert_eq!(
            fact(&facts, &format!("{port}/num_tcs/hardware/max")).as_deref(),
            Some("3")
        );
        assert_eq!(
            fact(
                &facts,
                &format!("{port}/flow_control/operational/priority/3")
            ),
            None,
            "Not Available is absent"
        );
    }
    assert_eq!(
        fact(&facts, "host/qos/flow_control/priority/3").as_deref(),
        Some("true")
    );
    assert_eq!(
        fact(&facts, "host/qos/flow_control/priority/4").as_deref(),
        Some("false")
    );
}

#[test]
fn healthy_text_gives_operational_and_remote_tables_in_every_encoding() {
    let utf8 = parse(&fixture("get-netadapterqos-healthy.txt")).unwrap();
    let utf16 = parse(&fixture("get-netadapterqos-healthy-crlf-utf16.txt")).unwrap();
    assert_eq!(utf8, utf16, "CRLF and UTF-16 read the same");
    let facts = utf8.0;
    assert_eq!(
        fact(&facts, &format!("{P1}/flow_control/operational/priority/3")).as_deref(),
        Some("true")
    );
    assert_eq!(
        fact(&facts, &format!("{P1}/flow_control/operational/priority/4")).as_deref(),
        Some("false")
    );
    assert_eq!(
        fact(
            &facts,
            &format!("{P1}/traffic_class/operational/1/priorities")
        )
        .as_deref(),
        Some("[3]")
    );
    assert_eq!(
        fact(
            &facts,
            &format!("{P1}/traffic_class/operational/0/priorities")
        )
        .as_deref(),
        Some("[0, 1, 2, 4, 5, 6, 7]")
    );
    assert_eq!(
        fact(
            &facts,
            &format!("{P1}/traffic_class/operational/1/bandwidth")
        )
        .as_deref(),
        Some("50")
    );
    // The Remote lines are what the link partner advertised: the peer's facts.
    let peer = "nic/name-slot_3_port_1/peer";
    for (leaf, value) in [
        ("pfc/enabled", "[3]"),
        ("traffic_class/configuration/1/priorities", "[3]"),
        ("traffic_class/configuration/0/bandwidth", "50"),
        ("app/netdirect/445", "[3]"),
    ] {
        assert_eq!(
            fact(&facts, &format!("{peer}/{leaf}")).as_deref(),
            Some(value),
            "{leaf}"
        );
    }
    assert!(
        facts.keys().all(|k| !k.as_str().contains("remote")),
        "no host-side remote facts"
    );
    assert_eq!(
        facts
            .keys()
            .filter(|k| k.as_str().contains("/peer/"))
            .count(),
        8,
        "port 2 has no Remote lines, port 1 no APP entry but SMB Direct's"
    );
    assert_eq!(
        fact(&facts, &format!("{P2}/dcbx_support/current")).as_deref(),
        Some("\"ieee+cee\"")
    );
    assert_eq!(
        fact(&facts, &format!("{P2}/flow_control/operational/priority/4")).as_deref(),
        Some("true")
    );
    assert_eq!(
        fact(
            &facts,
            &format!("{P2}/traffic_class/operational/1/priorities")
        )
        .as_deref(),
        Some("[3, 4]")
    );
}

#[test]
fn the_flattened_docs_sample_and_odd_values_parse() {
    let (facts, _) = parse(&fixture("get-netadapterqos-psdocs-flat.txt")).unwrap();
    let port = "nic/name-dcbadapter1/os";
    assert_eq!(
        fact(
            &facts,
            &format!("{port}/traffic_class/operational/1/bandwidth")
        )
        .as_deref(),
        Some("60")
    );
    assert_eq!(
        fact(
            &facts,
            &format!("{port}/flow_control/operational/priority/4")
        )
        .as_deref(),
        Some("true")
    );
    let strict = format!(
        "{}OperationalTrafficClasses : TC TSA Bandwidth Priorities\n -- --- --------- ----------\n 0 ETS 100% 0-6\n 7 Strict 7\n\nOperationalFlowControl : All Priorities Enabled\nOperationalClassifications : Not Available\n",
        record("A")
    );
    let strict = strict.as_str();
    let (facts, _) = parse(strict).unwrap();
    assert_eq!(
        fact(
            &facts,
            "nic/name-a/os/traffic_class/operational/7/algorithm"
        )
        .as_deref(),
        Some("\"strict\"")
    );
    assert_eq!(
        fact(
            &facts,
            "nic/name-a/os/traffic_class/operational/7/bandwidth"
        ),
        None
    );
    assert_eq!(
        fact(&facts, "nic/name-a/os/flow_control/operational/priority/0").as_deref(),
        Some("true")
    );
}

#[test]
fn unparseable_text_names_the_line() {
    let err = parse(&fixture("get-netadapterqos-unparseable.txt")).unwrap_err();
    assert_eq!(err.line, Some(11), "{err}");
    let cases = [
        ("", None),
        ("Enabled : True\n", Some(1)),
        ("Name : A\nEnabled : Maybe\n", Some(2)),
        (
            "Name : A\nOperationalFlowControl : Priority 9 Enabled\n",
            Some(2),
        ),
        (
            "Name : A\nCapabilities : Hardware Current\n ---- ----\n MacSecBypass : NotSupported NotSupported\n DcbxSupport : IEEE\n",
            Some(5),
        ),
        ("Name : A\nsomething else entirely\n", Some(2)),
        (
            "Name : A\nCapabilities : Hardware Current\n ---- ----\n MacSecBypass : NotSupported NotSupported\n DcbxSupport : IEEE IEEE\n NumTCs(Max/ETS/PFC) : 8/8 0/0/0\n",
            Some(6),
        ),
    ];
    for (text, line) in cases {
        let err = parse(text).unwrap_err();
        assert_eq!(err.line, line, "{text:?}: {err}");
    }
}

proptest::proptest! {
    #[test]
    fn arbitrary_text_never_panics(text in "\\PC{0,500}") {
        let _ = parse(&text);
    }

    #[test]
    fn netadapterqos_like_lines_never_panic(lines in proptest::collection::vec(
        "(Name : [A-Z ]{1,8}|Enabled : (True|False)|Capabilities : Hardware Current| DcbxSupport : [A-Z, ]{0,12}| NumTCs\\(Max/ETS/PFC\\) : [0-9/ ]{0,12}|OperationalTrafficClasses : TC TSA Bandwidth Priorities| [0-9] (ETS|Strict) [0-9%]{0,4} [0-9,-]{0,8}|OperationalFlowControl : [A-Za-z0-9 ,-]{0,24}|)", 0..16)) {
        let _ = parse(&lines.join("\n"));
    }
}

/// The sections of a `tests/fixtures/public/os-samples` file (after its header, between `---` lines).
fn shared_sample(name: &str) -> Vec<String> {
    let path = driftgate_test_data::public_data("os-samples").join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut sections: Vec<String> = vec![String::new()];
    for line in text.lines() {
        if line.trim() == "---" {
            sections.push(String::new());
        } else {
            let last = sections.last_mut().expect("one section");
            last.push_str(line);
            last.push('\n');
        }
    }
    sections.remove(0);
    sections
}

#[test]
fn the_documentation_samples_are_whole_answers_including_adapters_without_dcb() {
    let mut disabled = 0;
    for name in [
        "win_Get-NetAdapterQos_enabled_FL_docs.txt",
        "win_Get-NetAdapterQos_IEEE-vs-None_psdocs.txt",
    ] {
        let sections = shared_sample(name);
        assert_eq!(sections.len(), 2, "{name}");
        for section in sections {
            let (facts, names) =
                parse(&section).unwrap_or_else(|e| panic!("{name}: {e}\n{section}"));
            let port = port_key(None, "name", &names[0]);
            let enabled = fact(&facts, &format!("nic/{port}/os/qos_enabled"));
            if enabled.as_deref() == Some("false") {
                // QoS disabled: no Operational lines at all, and that is a whole record.
                disabled += 1;
                assert_eq!(
                    fact(&facts, &format!("nic/{port}/os/num_tcs/current/max")).as_deref(),
                    Some("0")
                );
                assert!(!facts.keys().any(|k| k.as_str().contains("/operational/")));
            } else {
                assert!(
                    facts
                        .keys()
                        .any(|k| k.as_str().contains("/flow_control/operational/"))
                );
            }
        }
    }
    assert_eq!(disabled, 2);
}

#[test]
fn a_paste_that_ends_after_a_whole_adapter_is_whole() {
    for text in [
        record("A"),
        format!("{}\n\n", record("A")),
        format!("PS C:\\> Get-NetAdapterQos\n\n{}\n\nPS C:\\>", record("A")),
        format!("{}\n{}", record("A"), record("B")),
        format!(
            "PS C:\\> Enable-NetAdapterQos A\nPS C:\\> Get-NetAdapterQos A\n{}",
            record("A")
        ),
    ] {
        let (_, names) = parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        assert_eq!(names[0], "A");
    }
}

/// `(text, line, words the message must contain)`: each is cut or broken where the line says.
fn broken_inputs() -> Vec<(String, usize, &'static str)> {
    let seed = fixture("get-netadapterqos-seed1.txt");
    let healthy = fixture("get-netadapterqos-healthy.txt");
    let upto = |text: &str, needle: &str| -> String {
        let at = text.find(needle).unwrap_or_else(|| panic!("{needle:?}"));
        text[..at + needle.len()].to_owned()
    };
    vec![
        // Issue 9: cut after `Name :`.
        (
            upto(&seed, "Name                       :"),
            3,
            "Name is empty",
        ),
        (upto(&seed, "SLOT 3 Port 1\n"), 3, "without its \"Enabled"),
        (
            upto(&seed, "Enabled                    : True\n"),
            4,
            "without its Capabilities",
        ),
        // Issue 9: cut inside the Capabilities table.
        (
            upto(&seed, "Hardware     Current\n"),
            5,
            "before its -------- row",
        ),
        (
            upto(&seed, "--------     -------\n"),
            6,
            "before its MacSecBypass row",
        ),
        (
            upto(&seed, "NotSupported NotSupported\n"),
            7,
            "before its DcbxSupport row",
        ),
        (
            upto(&seed, "IEEE         None\n"),
            8,
            "before its NumTCs(Max/ETS/PFC) row",
        ),
        (
            upto(&seed, "IEEE         N"),
            8,
            "DcbxSupport: expected None, CEE, IEEE",
        ),
        (
            upto(&seed, "IEEE         "),
            8,
            "a Hardware and a Current value",
        ),
        (upto(&seed, "3/3/3        0/0/"), 9, "NumTCs: expected"),
        (upto(&seed, "3/3/3        0"), 9, "NumTCs: expected"),
        (
            upto(&seed, "NotSupported NotSup"),
            7,
            "MacSecBypass: expected",
        ),
        // Cut inside the Operational group.
        (
            upto(&seed, "OperationalTrafficClasses  : Not Available\n"),
            20,
            "without its OperationalFlowControl",
        ),
        (
            upto(&seed, "OperationalFlowControl     : Not Available\n"),
            21,
            "without its OperationalClassifications",
        ),
        (
            upto(&seed, "OperationalClassifications : Not Av"),
            22,
            "Not Available, found \"Not Av\"",
        ),
        (
            upto(&healthy, "0 ETS    50%       0-2,4-7\n"),
            11,
            "priorities [0, 1, 2, 4, 5, 6, 7]",
        ),
        (
            upto(
                &healthy,
                "0 ETS    50%       0-2,4-7\n                              1 ETS    50%       3\n",
            ),
            12,
            "without its OperationalFlowControl",
        ),
        (
            upto(&healthy, "Priority 3 Enab"),
            14,
            "unrecognised flow control",
        ),
        (
            upto(&healthy, "NetDirect 445"),
            18,
            "expected a classification row",
        ),
        (
            upto(
                &healthy,
                "Default             0\n                             NetDirect 4",
            ),
            18,
            "expected a classification row",
        ),
        (
            upto(
                &healthy,
                "OperationalClassifications : Protocol  Port/Type Priority\n",
            ),
            15,
            "without a row",
        ),
        (
            upto(
                &healthy,
                "RemoteTrafficClasses       : TC TSA    Bandwidth Prio",
            ),
            20,
            "expected a \"TC TSA Bandwidth Priorities\" table",
        ),
        // The Get-NetQosFlowControl part.
        (
            upto(&seed, "PS C:\\> Get-NetQosFlowControl\n"),
            24,
            "printed nothing",
        ),
        (upto(&seed, "PS C:\\> Get-NetQ"), 24, "printed nothing"),
        (
            upto(&seed, "Not Available\n\nPS C:"),
            24,
            "not Get-NetAdapterQos output",
        ),
        (upto(&seed, "IfIndex IfAlias\n"), 26, "without a row"),
        (
            upto(&seed, "3          True       Global\n"),
            31,
            "priorities [0, 1, 2, 3] of Global",
        ),
        (
            upto(&seed, "3          True       Glo"),
            31,
            "expected a Get-NetQosFlowControl row",
        ),
        // Values outside what the format prints.
        (
            seed.replace("IEEE         None", "IEEE         Auto"),
            8,
            "found \"Auto\"",
        ),
        (
            seed.replace(
                "0          False      Global",
                "0          False      Global\n0          True       Global",
            ),
            29,
            "priority 0 listed twice",
        ),
        (
            format!("{}{}", record("A"), record("A")),
            8,
            "appears twice",
        ),
        // A garbled `Name` key would fold the next adapter into this one.
        (
            seed.replace(
                "Name                       : SLOT 3 Port 2",
                "Nme                        : SLOT 3 Port 2",
            ),
            13,
            "a second Enabled line",
        ),
    ]
}

#[test]
fn truncated_and_broken_pastes_name_the_line_and_what_was_expected() {
    for (text, line, words) in broken_inputs() {
        let err = parse(&text).expect_err(&text);
        assert_eq!(err.line, Some(line), "{err}\n---\n{text}");
        assert!(
            err.message.contains(words),
            "{err} lacks {words:?}\n---\n{text}"
        );
    }
}

const X722: &str = "nic/name-embedded_nic_1/os";

#[test]
fn an_adapter_without_dcb_capability_prints_a_blank_table_and_reads_as_not_reported() {
    // Issue 10: the blank Capabilities table of an Intel X722 (Format-List -Property *) was
    // refused as not Get-NetAdapterQos output.
    let (facts, names) = parse(&fixture("get-netadapterqos-fl-x722.txt")).unwrap();
    assert_eq!(names, vec!["SLOT 2 Port 1", "Embedded NIC 1"]);
    assert_eq!(
        fact(&facts, &format!("{X722}/dcb_reported")).as_deref(),
        Some("false")
    );
    assert_eq!(
        fact(&facts, &format!("{X722}/qos_enabled")).as_deref(),
        Some("true")
    );
    let x722: Vec<&str> = facts
        .keys()
        .map(|k| k.as_str())
        .filter(|k| k.starts_with(X722))
        .collect();
    assert_eq!(
        x722,
        [
            "nic/name-embedded_nic_1/os/dcb_reported",
            "nic/name-embedded_nic_1/os/name",
            "nic/name-embedded_nic_1/os/qos_enabled"
        ]
    );
    let mellanox = "nic/name-slot_2_port_1/os";
    assert_eq!(fact(&facts, &format!("{mellanox}/dcb_reported")), None);
    assert_eq!(
        fact(&facts, &format!("{mellanox}/dcbx_support/hardware")).as_deref(),
        Some("\"ieee\"")
    );
    assert_eq!(
        fact(
            &facts,
            &format!("{mellanox}/flow_control/operational/priority/3")
        )
        .as_deref(),
        Some("true")
    );
    assert_eq!(
        fact(&facts, "host/qos/flow_control/priority/3").as_deref(),
        Some("true")
    );
}

#[test]
fn the_default_view_of_an_adapter_without_dcb_is_name_and_enabled_when_output_follows() {
    // The default view hides the Capabilities item when the capabilities are null.
    let bare = "Name    : Embedded NIC 1\nEnabled : True\n";
    for text in [
        format!("PS C:\\> Get-NetAdapterQos\n\n{bare}\n{}", record("A")),
        format!(
            "PS C:\\> Get-NetAdapterQos\n\n{}\n{bare}\nPS C:\\>",
            record("A")
        ),
        format!(
            "PS C:\\> Get-NetAdapterQos -Name \"Embedded NIC 1\" | Format-List\n{bare}\nPS C:\\> Get-NetQosFlowControl\n\nPriority   Enabled    PolicySet        IfIndex IfAlias\n--------   -------    ---------        ------- -------\n0 False Global\n1 False Global\n2 False Global\n3 True Global\n4 False Global\n5 False Global\n6 False Global\n7 False Global\n"
        ),
    ] {
        let (facts, _) = parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        assert_eq!(
            fact(&facts, &format!("{X722}/dcb_reported")).as_deref(),
            Some("false"),
            "{text}"
        );
        assert!(
            !facts
                .keys()
                .any(|k| k.as_str().starts_with(X722) && k.as_str().contains("dcbx_support"))
        );
    }
    // At the end of a paste it cannot be told from a paste cut after Enabled.
    let err = parse(&format!("{}\n{bare}", record("A"))).unwrap_err();
    assert_eq!(err.line, Some(10), "{err}");
    assert!(
        err.message.contains("without its Capabilities table"),
        "{err}"
    );
    // Anything after Enabled (Format-List -Property * lines) means the table is missing.
    let err = parse(&format!(
        "{bare}ifAlias : Embedded NIC 1\n\n{}",
        record("A")
    ))
    .unwrap_err();
    assert_eq!(err.line, Some(3), "{err}");
}

const FLOW_CONTROL_TABLE: &str = "PS C:\\> Get-NetQosFlowControl\n\nPriority   Enabled    PolicySet        IfIndex IfAlias\n--------   -------    ---------        ------- -------\n0 False Global\n1 False Global\n2 False Global\n3 True Global\n4 False Global\n5 False Global\n6 False Global\n7 False Global\n";

#[test]
fn name_and_enabled_alone_mean_no_dcb_only_under_the_default_view_prompt() {
    let bare =
        "Name    : SLOT 3 Port 1\nEnabled : True\n\nName    : SLOT 3 Port 2\nEnabled : True\n";
    // Issue 10 (1a): a property list prints Name and Enabled for adapters WITH DCB; this paste
    // imported complete with both adapters `dcb_reported = false`.
    for (prompt, words) in [
        (
            "PS C:\\> Get-NetAdapterQos | Format-List Name,Enabled\n",
            "the paste selects properties",
        ),
        (
            "PS C:\\> Get-NetAdapterQos | Select-Object Name,Enabled | Format-List\n",
            "the paste selects properties",
        ),
        (
            "PS C:\\> Get-NetAdapterQos | Format-List -Property Name,Enabled\n",
            "the paste selects properties",
        ),
        ("", "no prompt shows which command printed it"),
    ] {
        let text = format!("{prompt}\n{bare}\n{FLOW_CONTROL_TABLE}");
        let err = parse(&text).unwrap_err();
        let name_line = if prompt.is_empty() { 2 } else { 3 };
        assert_eq!(err.line, Some(name_line), "{err}\n{text}");
        assert!(err.message.contains(words), "{err}");
        assert!(
            err.message
                .contains("Get-NetAdapterQos | Format-List -Property *"),
            "{err}"
        );
    }
    // The bare default view, with or without adapter names, is whole: QoS enabled on an
    // adapter without DCB capability is what the real X722 answer shows.
    for prompt in [
        "PS C:\\> Get-NetAdapterQos\n",
        "PS C:\\> get-netadapterqos -Name \"SLOT 3 Port 1\",\"SLOT 3 Port 2\"\n",
        "PS C:\\> Get-NetAdapterQos -IncludeHidden | fl\n",
    ] {
        let text = format!("{prompt}\n{bare}\n{FLOW_CONTROL_TABLE}");
        let (facts, _) = parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        for port in [P1, P2] {
            assert_eq!(
                fact(&facts, &format!("{port}/dcb_reported")).as_deref(),
                Some("false")
            );
            assert_eq!(
                fact(&facts, &format!("{port}/qos_enabled")).as_deref(),
                Some("true")
            );
        }
    }
}

/// `(text, line, words the message must contain)`: the X722 paste made into answers the
/// cmdlet never prints.
fn broken_blank_tables() -> Vec<(String, usize, &'static str)> {
    let x722 = fixture("get-netadapterqos-fl-x722.txt");
    let blank_dcbx = "                             DcbxSupport         :\n";
    let blank_numtcs = "                             NumTCs(Max/ETS/PFC) :\n";
    let upto = |needle: &str, nth: usize| -> String {
        let mut end = 0;
        for _ in 0..nth {
            end += x722[end..]
                .find(needle)
                .unwrap_or_else(|| panic!("{needle:?}"))
                + needle.len();
        }
        x722[..end].to_owned()
    };
    vec![
        // Hardware blank, Current filled.
        (
            x722.replace(
                blank_dcbx,
                "                             DcbxSupport         :              IEEE\n",
            ),
            51,
            "a Hardware and a Current value, or neither",
        ),
        // One row blank, the others filled.
        (
            x722.replace(
                blank_numtcs,
                "                             NumTCs(Max/ETS/PFC) : 8/8/8        8/8/8\n",
            ),
            50,
            "blank on this row but not on every row",
        ),
        (
            x722.replace(
                "                             MacSecBypass        : NotSupported NotSupported\n",
                "                             MacSecBypass        :\n",
            ),
            8,
            "blank on this row but not on every row",
        ),
        // Garbage where a blank value was.
        (
            x722.replace(
                blank_dcbx,
                "                             DcbxSupport         : ?? ??\n",
            ),
            51,
            "DcbxSupport: expected None, CEE, IEEE",
        ),
        // Cut inside the blank table.
        (
            upto(blank_dcbx, 1),
            51,
            "before its NumTCs(Max/ETS/PFC) row",
        ),
        (
            upto("                             MacSecBypass        :\n", 1),
            50,
            "before its DcbxSupport row",
        ),
        // A blank table beside operational DCB settings.
        (
            x722.replacen(
                "OperationalFlowControl     : Not Available",
                "OperationalFlowControl     : Priority 3 Enabled",
                1,
            ),
            57,
            "reports no DCB capability, yet it shows Operational DCB settings",
        ),
    ]
}

#[test]
fn blank_tables_the_cmdlet_never_prints_are_refused_naming_the_line() {
    for (text, line, words) in broken_blank_tables() {
        let err = parse(&text).expect_err(&text);
        assert_eq!(err.line, Some(line), "{err}\n---\n{text}");
        assert!(
            err.message.contains(words),
            "{err} lacks {words:?}\n---\n{text}"
        );
    }
}

#[test]
fn microsofts_documented_examples_parse_verbatim_to_what_the_adapter_runs() {
    // Example 1 (flattened tables): DCBX IEEE/None, NumTCs 8/8/8, PFC operational on 4.
    let (facts, _) = parse(&fixture("microsoft-docs/get-netadapterqos-example-1.txt")).unwrap();
    let port = "nic/name-dcbadapter1/os";
    for (leaf, value) in [
        ("qos_enabled", "true"),
        ("dcbx_support/hardware", "\"ieee\""),
        ("dcbx_support/current", "\"none\""),
        ("num_tcs/current/max", "8"),
        ("num_tcs/current/pfc", "8"),
        ("flow_control/operational/priority/4", "true"),
        ("flow_control/operational/priority/3", "false"),
        ("traffic_class/operational/1/priorities", "[4]"),
    ] {
        assert_eq!(
            fact(&facts, &format!("{port}/{leaf}")).as_deref(),
            Some(value),
            "{leaf}"
        );
    }
    // The healthy adapter of the DCB guide: DCBX None/None, ETS 70/30, no PFC.
    let (facts, _) = parse(&fixture(
        "microsoft-docs/dcb-manage-enable-netadapterqos.txt",
    ))
    .unwrap();
    let port = "nic/name-m1/os";
    for (leaf, value) in [
        ("dcbx_support/hardware", "\"none\""),
        ("dcbx_support/current", "\"none\""),
        ("num_tcs/current/ets", "8"),
        ("traffic_class/operational/0/bandwidth", "70"),
        ("traffic_class/operational/1/bandwidth", "30"),
        ("flow_control/operational/priority/4", "false"),
    ] {
        assert_eq!(
            fact(&facts, &format!("{port}/{leaf}")).as_deref(),
            Some(value),
            "{leaf}"
        );
    }
    assert!(!facts.keys().any(|p| p.as_str().starts_with("host/")));
    // Followed by its PFC page (a paste of PFC alone names no adapter and is refused): the
    // host enables PFC on priority 4 in the global policy set.
    let (facts, _) = parse(&format!(
        "{}{}",
        fixture("microsoft-docs/dcb-manage-enable-netadapterqos.txt"),
        fixture("microsoft-docs/dcb-manage-enable-netqosflowcontrol.txt")
    ))
    .unwrap();
    assert_eq!(
        fact(&facts, "host/qos/flow_control/priority/4").as_deref(),
        Some("true")
    );
    assert_eq!(
        fact(&facts, "host/qos/flow_control/priority/3").as_deref(),
        Some("false")
    );
    // DCB disabled: no operational lines, current NumTCs 0/0/0.
    for name in [
        "microsoft-docs/get-netadapterqos-example-2.txt",
        "microsoft-docs/dcb-manage-disable-netadapterqos.txt",
    ] {
        let (facts, names) = parse(&fixture(name)).unwrap();
        let port = format!("nic/{}/os", port_key_of(&names));
        assert_eq!(
            fact(&facts, &format!("{port}/qos_enabled")).as_deref(),
            Some("false"),
            "{name}"
        );
        assert_eq!(
            fact(&facts, &format!("{port}/num_tcs/current/max")).as_deref(),
            Some("0"),
            "{name}"
        );
    }
}

/// The key of the one adapter a paste names.
fn port_key_of(names: &[String]) -> String {
    assert_eq!(names.len(), 1, "{names:?}");
    format!("name-{}", names[0].to_ascii_lowercase())
}
