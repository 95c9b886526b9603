use super::*;
use crate::collect::encoding::decode_text;
use crate::snapshot::FactValue;

fn fixture(name: &str) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/windows")
        .join(name);
    decode_text(&std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
        .unwrap()
}

fn fact(facts: &Facts, path: &str) -> Option<String> {
    facts.get(path).map(FactValue::to_string)
}

const P1: &str = "nic/name-slot_3_port_1/os";
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
    assert_eq!(
        fact(&facts, &format!("{P1}/flow_control/remote/priority/3")).as_deref(),
        Some("true")
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
    let strict = "Name : A\nOperationalTrafficClasses : TC TSA Bandwidth Priorities\n -- --- --------- ----------\n 0 ETS 100% 0-6\n 7 Strict 7\n\nOperationalFlowControl : All Priorities Enabled\n";
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
    assert_eq!(err.line, 10, "{err}");
    let cases = [
        ("", 0),
        ("Enabled : True\n", 1),
        ("Name : A\nEnabled : Maybe\n", 2),
        ("Name : A\nOperationalFlowControl : Priority 9 Enabled\n", 2),
        (
            "Name : A\nCapabilities : Hardware Current\n DcbxSupport : IEEE\n",
            3,
        ),
        ("Name : A\nsomething else entirely\n", 2),
        (
            "Name : A\nCapabilities : Hardware Current\n NumTCs(Max/ETS/PFC) : 8/8 0/0/0\n",
            3,
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
