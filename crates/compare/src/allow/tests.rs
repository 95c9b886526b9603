use super::*;

fn path(p: &str) -> FactPath {
    FactPath::new(p).unwrap()
}

fn date(text: &str) -> jiff::civil::Date {
    text.parse().unwrap()
}

#[test]
fn an_argument_value_is_json_when_it_parses_as_a_fact_value_else_a_string() {
    for (arg, value) in [
        ("a/b=true", FactValue::from(true)),
        ("a/b=3", FactValue::from(3)),
        ("a/b=\"x\"", FactValue::from("x")),
        ("a/b=disabled", FactValue::from("disabled")),
        ("a/b=", FactValue::from("")),
        ("a/b=x=y", FactValue::from("x=y")),
    ] {
        let allowance = Allowance::parse_arg(arg).unwrap();
        assert_eq!(allowance.path, "a/b", "{arg}");
        assert_eq!(allowance.value, Some(value), "{arg}");
        assert_eq!(allowance.given_at, "--allow", "{arg}");
    }
    let any = Allowance::parse_arg("nic/*/bmc/dcbx_mode").unwrap();
    assert_eq!(any.value, None);
    assert!(any.matches(&path("nic/k/bmc/dcbx_mode"), Some(&"cee".into())));
    assert!(any.matches(&path("nic/k/bmc/dcbx_mode"), None));
}

#[test]
fn a_bad_argument_names_allow() {
    let error = Allowance::parse_arg("nic/[/x=1").unwrap_err();
    assert_eq!(error.given_at, "--allow");
    assert!(
        error.to_string().starts_with("--allow: invalid path glob"),
        "{error}"
    );
    let error = Allowance::parse_arg("=1").unwrap_err();
    assert!(error.to_string().starts_with("--allow: "), "{error}");
}

#[test]
fn globs_match_like_policy_rules_and_values_must_be_equal() {
    let one = Allowance::parse_arg("nic/*/bmc/dcbx_mode=disabled").unwrap();
    assert!(one.matches(&path("nic/k/bmc/dcbx_mode"), Some(&"disabled".into())));
    assert!(!one.matches(&path("nic/k/bmc/dcbx_mode"), Some(&"ieee".into())));
    assert!(
        !one.matches(&path("nic/k/bmc/dcbx_mode"), None),
        "a removed fact has no value"
    );
    assert!(
        !one.matches(
            &path("nic/k/bmc/function/f/dcbx_mode"),
            Some(&"disabled".into())
        ),
        "`*` never crosses `/`"
    );
    let deep = Allowance::parse_arg("nic/**/dcbx_mode=disabled").unwrap();
    assert!(deep.matches(
        &path("nic/k/bmc/function/f/dcbx_mode"),
        Some(&"disabled".into())
    ));
    let number = Allowance::parse_arg("host/qos/x=3").unwrap();
    assert!(number.matches(&path("host/qos/x"), Some(&3.into())));
    assert!(
        !number.matches(&path("host/qos/x"), Some(&"3".into())),
        "3 is not \"3\""
    );
}

#[test]
fn an_allow_set_finds_the_first_matching_allowance() {
    let list = vec![
        Allowance::parse_arg("a/*=1").unwrap(),
        Allowance::parse_arg("a/b").unwrap(),
    ];
    let set = AllowSet::new(&list);
    assert_eq!(set.find(&path("a/b"), Some(&1.into())), Some(&list[0]));
    assert_eq!(set.find(&path("a/b"), Some(&2.into())), Some(&list[1]));
    assert_eq!(set.find(&path("a/c"), Some(&2.into())), None);
    assert_eq!(AllowSet::new(&[]).find(&path("a/b"), None), None);
}

const FILE: &str = r#"# waivers for change CHG-1
[[allow]]
path = "nic/*/bmc/function/*/dcbx_mode"
value = "disabled"
reason = "switch ports moved to static DCB"
ticket = "CHG-1"
expires = "2026-12-31"

[[allow]]
path = "bios/**"
expires = 2026-11-30
"#;

#[test]
fn an_allow_file_reads_every_key_and_names_its_lines() {
    let list = parse_allow_file(FILE, "allow.toml").unwrap();
    assert_eq!(list.len(), 2);
    assert_eq!(
        list[0],
        Allowance {
            path: "nic/*/bmc/function/*/dcbx_mode".into(),
            value: Some("disabled".into()),
            reason: Some("switch ports moved to static DCB".into()),
            ticket: Some("CHG-1".into()),
            expires: Some(date("2026-12-31")),
            given_at: "allow.toml:3".into(),
        }
    );
    assert_eq!(list[1].value, None, "no value: any value");
    assert_eq!(list[1].expires, Some(date("2026-11-30")));
    assert_eq!(list[1].given_at, "allow.toml:10");
    assert_eq!(parse_allow_file("", "empty.toml").unwrap(), Vec::new());
}

#[test]
fn broken_allow_files_are_refused_naming_file_and_line() {
    for (text, line, says) in [
        ("[[allow]]\npath = \"a\"\nvalu = 1\n", 3, "unknown field"),
        ("[[allow]]\nreason = \"x\"\n", 1, "missing field `path`"),
        (
            "[[allow]]\npath = \"a\"\nexpires = \"31.12.2026\"\n",
            3,
            "YYYY-MM-DD",
        ),
        (
            "[[allow]]\npath = \"a\"\nexpires = \"2026-02-30\"\n",
            3,
            "YYYY-MM-DD",
        ),
        (
            "[[allow]]\npath = \"a\"\nexpires = 2026-12-31T00:00:00Z\n",
            3,
            "YYYY-MM-DD",
        ),
        (
            "[[allow]]\npath = \"a\"\n\n[[allow]]\npath = \"b/[\"\n",
            5,
            "invalid path glob",
        ),
        ("[[allow]]\npath = \"a\"\nvalue = { x = 1 }\n", 3, ""),
        ("[[allowance]]\npath = \"a\"\n", 1, "unknown field"),
        ("allow = 3\n", 1, "array of tables"),
        ("allow = [1]\n", 1, "must be a table"),
        ("[[allow]]\npath = 3\n", 2, "must be a string"),
        (
            "[[allow]]\npath = \"a\"\nticket = 1\n",
            3,
            "must be a string",
        ),
        ("[[allow]]\npath = \"a\n", 2, ""),
    ] {
        let error = parse_allow_file(text, "allow.toml").unwrap_err();
        assert_eq!(
            error.given_at,
            format!("allow.toml:{line}"),
            "{text}: {error}"
        );
        assert!(error.reason.contains(says), "{text}: {error}");
    }
}

#[test]
fn expired_allowances_are_split_off_the_day_after_their_last_day() {
    let list = parse_allow_file(FILE, "allow.toml").unwrap();
    let (in_force, expired) = split_expired(list.clone(), date("2026-11-30"));
    assert_eq!(
        (in_force.len(), expired.len()),
        (2, 0),
        "the last day is inclusive"
    );
    let (in_force, expired) = split_expired(list, date("2026-12-01"));
    assert_eq!(in_force[0].ticket.as_deref(), Some("CHG-1"));
    assert_eq!(expired[0].path, "bios/**");
}

#[test]
fn an_allowance_survives_a_json_round_trip() {
    let list = parse_allow_file(FILE, "allow.toml").unwrap();
    let json = serde_json::to_string(&list).unwrap();
    let back: Vec<Allowance> = serde_json::from_str(&json).unwrap();
    assert_eq!(back, list);
}

#[test]
fn every_problem_of_an_allow_file_is_reported_each_with_its_line() {
    let text = r#"[[allow]]
path = "a"
expires = "31.12.2026"

[[allow]]
path = "b/["
valu = 1

[[allow]]
reason = "no path"
"#;
    let error = parse_allow_file(text, "allow.toml").unwrap_err();
    assert_eq!(error.given_at, "allow.toml:3", "the first problem: {error}");
    let lines: Vec<String> = error.to_string().lines().map(str::to_owned).collect();
    assert_eq!(lines.len(), 4, "{error}");
    for (line, (at, says)) in lines.iter().zip([
        ("allow.toml:3: ", "YYYY-MM-DD"),
        ("allow.toml:6: ", "invalid path glob"),
        ("allow.toml:7: ", "unknown field `valu`"),
        ("allow.toml:9: ", "missing field `path`"),
    ]) {
        assert!(
            line.starts_with(at) && line.contains(says),
            "{line}: {error}"
        );
    }
}
