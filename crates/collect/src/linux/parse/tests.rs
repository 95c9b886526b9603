use super::*;

/// Every fixture, for the tests that run all parsers over all of them.
const FIXTURES: [&str; 23] = [
    "dcb-dcbx-host.json",
    "dcb-dcbx-lld-managed.json",
    "dcb-ets-pretty.json",
    "dcb-ets-prio-tc-only.json",
    "dcb-ets.json",
    "dcb-pfc-statistics.json",
    "dcb-pfc.json",
    "dcb-unsupported.stderr",
    "devlink-dev-info-empty.json",
    "devlink-dev-info.json",
    "ethtool-driver-bnxt.txt",
    "ethtool-driver-mlx5.txt",
    "ethtool-pause-statistics.json",
    "ethtool-pause-statistics.txt",
    "ethtool-pause-unsupported-netlink.txt",
    "ethtool-pause-unsupported.txt",
    "ethtool-pause.json",
    "ethtool-pause.txt",
    "ip-link-detail.json",
    "mlnx-qos-firmware-controlled.txt",
    "mlnx-qos-os-controlled.txt",
    "mlxconfig-query-extended.txt",
    "mlxconfig-query.txt",
];

pub(super) fn fixture(name: &str) -> String {
    let path = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .join("tests/fixtures/linux")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Parses a fixture, and checks that its CRLF variant parses to the same value.
pub(super) fn parsed<T: PartialEq + std::fmt::Debug>(
    name: &str,
    parse: impl Fn(&str) -> Result<T, ParseError>,
) -> T {
    let text = fixture(name);
    let lf = parse(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
    let crlf = parse(&text.replace('\n', "\r\n")).unwrap_or_else(|e| panic!("{name} CRLF: {e}"));
    assert_eq!(lf, crlf, "{name}: CRLF changes the result");
    lf
}

/// A parser with its result dropped, so all of them fit one table.
type Parser = fn(&str) -> Result<(), ParseError>;

/// Every parser by name.
fn parsers() -> Vec<(&'static str, Parser)> {
    vec![
        ("ip link", |t| parse_ip_link(t).map(drop)),
        ("dcb ets", |t| parse_dcb_ets(t).map(drop)),
        ("dcb pfc", |t| parse_dcb_pfc(t).map(drop)),
        ("dcb dcbx", |t| parse_dcb_dcbx(t).map(drop)),
        ("pause json", |t| parse_ethtool_pause_json(t).map(drop)),
        ("pause text", |t| parse_ethtool_pause_text(t).map(drop)),
        ("ethtool -i", |t| parse_ethtool_driver_info(t).map(drop)),
        ("devlink", |t| parse_devlink_info(t).map(drop)),
        ("mlnx_qos", |t| parse_mlnx_qos(t).map(drop)),
        ("mlxconfig", |t| parse_mlxconfig_query(t).map(drop)),
    ]
}

fn parser(name: &str) -> Parser {
    parsers()
        .into_iter()
        .find(|(n, _)| *n == name)
        .unwrap_or_else(|| panic!("no parser {name:?}"))
        .1
}

pub(super) fn strings<const N: usize>(items: [&str; N]) -> Vec<String> {
    items.iter().map(|s| (*s).to_owned()).collect()
}

#[test]
fn unsupported_is_recognized_in_stderr() {
    let cases = [
        (fixture("dcb-unsupported.stderr"), true),
        (fixture("ethtool-pause-unsupported-netlink.txt"), true),
        ("Attribute read: No such device\n".to_owned(), false),
        ("Attribute not found: Success\n".to_owned(), false),
        (String::new(), false),
    ];
    for (stderr, expected) in cases {
        assert_eq!(dcb_unsupported(&stderr), expected, "{stderr:?}");
        assert_eq!(ethtool_unsupported(&stderr), expected, "{stderr:?}");
    }
}

#[test]
fn empty_output_is_an_error_of_the_whole_input() {
    for (name, parse) in parsers() {
        for input in ["", "\n", " \r\n\t\r\n"] {
            let err = parse(input).expect_err(name);
            assert_eq!(err.line, None, "{name} {input:?}: {err}");
            assert!(!err.to_string().contains("line"), "{name}: {err}");
            assert!(err.message.contains("empty"), "{name}: {err}");
        }
    }
}

/// Asserts that each `(parser, input, line, fragment)` fails at `line` with `fragment` in its
/// message, and that the error's text starts with the line; `line` 0 means the output as a
/// whole, whose error names no line.
pub(super) fn assert_broken(cases: &[(&str, &str, usize, &str)]) {
    for (name, input, line, fragment) in cases {
        let err = parser(name)(input).expect_err(input);
        assert_eq!(
            err.line,
            (*line > 0).then_some(*line),
            "{name} {input:?}: {err}"
        );
        assert!(err.message.contains(fragment), "{name} {input:?}: {err}");
        let text = err.to_string();
        match line {
            0 => assert!(!text.starts_with("line "), "{err}"),
            line => assert!(text.starts_with(&format!("line {line}: ")), "{err}"),
        }
    }
}

/// Asserts that the first `keep` lines of a JSON fixture fail at line `keep`.
pub(super) fn assert_truncated_json_fails_at_its_last_line(name: &str, file: &str, keep: usize) {
    let text = fixture(file);
    let cut: Vec<&str> = text.lines().take(keep).collect();
    let err = parser(name)(&cut.join("\n")).expect_err(file);
    assert_eq!(err.line, Some(keep), "{file}: {err}");
}

proptest::proptest! {
    #[test]
    fn parsers_never_panic_on_arbitrary_text(input in "\\PC{0,400}") {
        for (_, parse) in parsers() {
            let _ = parse(&input);
        }
        let _ = dcb_unsupported(&input);
    }

    #[test]
    fn parsers_never_panic_on_tool_shaped_lines(lines in proptest::collection::vec(
        "( {0,2}\\t?[A-Za-z *#'-]{0,14}: ?[a-z0-9%,(). ]{0,16}\
         |tc: [0-9a-zé]{0,3} ratelimit: [a-z0-9.]{0,5}, tsa: [a-z]{0,6}(, bw: [0-9%]{0,4})?\
         |\\t ?(priority|enabled|buffer|up|skprio):? {0,4}[0-9 ]{0,16}\
         |Configurations: {0,4}(Default|Current|Next Boot|Next| ){0,4}\
         |\\*? {0,8}[A-Z_0-9]{1,12} {1,6}[A-Za-z0-9_()]{0,8}( +[A-Za-z0-9()]{0,8}){0,3}\
         |(Device #1:|-E- x|-W- y|Pause parameters for x:|Statistics:|PFC configuration:)\
         |\\r|)",
        0..14,
    )) {
        let input = lines.join("\n");
        for (_, parse) in parsers() {
            let _ = parse(&input);
        }
    }

    #[test]
    fn parsers_never_panic_on_damaged_fixtures(
        file in proptest::sample::select(FIXTURES.to_vec()),
        cut in proptest::prelude::any::<proptest::sample::Index>(),
        inserted in proptest::prelude::any::<char>(),
    ) {
        let chars: Vec<char> = fixture(file).chars().collect();
        let at = cut.index(chars.len() + 1);
        let truncated: String = chars[..at].iter().collect();
        let damaged: String = chars[..at]
            .iter()
            .chain(std::iter::once(&inserted))
            .chain(&chars[at..])
            .collect();
        for (_, parse) in parsers() {
            let _ = parse(&truncated);
            let _ = parse(&damaged);
        }
    }
}
