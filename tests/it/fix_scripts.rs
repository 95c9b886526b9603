//! Data is never code, as a property: hostile strings (quotes of every kind, newlines, CR,
//! `$( )`, backticks, `;`, `#`, Unicode line separators, escapes, non-ASCII) as a BMC's
//! attribute names and values, the account, an ESXi device's naa id, SATP and policies, a Linux
//! interface's name and trust mode, and a Windows adapter's name go through the real plan code;
//! the emitted `-bmc.sh`, `-esxi.sh` and `-linux.sh` run in `sh` (dash) with recording `curl`,
//! `esxcli` and `mlnx_qos` first on `PATH`, and each value arrives byte-exact, each tool is
//! called exactly as often as the plan says, and nothing else runs (the folder the script runs
//! in stays empty). The `-windows.ps1` is read as Windows PowerShell 5.1 reads it by the
//! tokenizer of `common::powershell`. A NUL, which no command line can carry, is refused by the
//! plan, naming the value.

use proptest::prelude::*;
use serde_json::Value;

use driftgate_compare::{JudgeOptions, Policy};
use driftgate_fix::{Action, Bmc, HostPlan, Plan, host_plan, script_files};
use driftgate_snapshot::{
    FactPath, FactValue, Facts, HostName, Snapshot, SourceRecord, SourceStatus, VerifiedSnapshot,
};

use crate::common::powershell::{self, Token, literal, word};
use crate::common::scripts::{self, Recorder, StandIns};
use crate::fix::{attribute_drift_named, emit_scripts};

/// Pieces of hostile text: quotes every language honours, line ends of every kind, what a
/// shell, PowerShell or curl's configuration would take for code or an escape, and characters
/// whose UTF-8 holds a byte Windows-1252 reads as a quote (`ђ` D1 92 → `Ñ’`, `Ą` C4 84 → `Ä„`).
const PIECES: &[&str] = &[
    "'", "\"", "\u{2018}", "\u{2019}", "\u{201a}", "\u{201b}", "\u{201c}", "\u{201e}", "\n", "\r",
    "\t", "\u{b}", "$(", ")", "`", ";", "#", "\u{2028}", "\u{2029}", "\u{85}", "\\", "$", "{", "}",
    "[", "]", "*", " ", "ü", "€", "ђ", "Ą", "a", "Z", "0", "%s", "-", "!", "&", "|", "<", ">",
    "\u{1b}", "=", ":", "@", "~",
];

/// What a fact path segment can hold of them (no blank, control, non-ASCII, `/` or `\`).
const PATH_PIECES: &[&str] = &[
    "'", "\"", "$(", ")", "`", ";", "#", "$", "{", "}", "[", "]", "*", "a", "Z", "0", "%s", "-",
    "!", "&", "|", "<", ">", "=", ":", "@", "~", "^", ",",
];

fn hostile(pieces: &'static [&'static str], min: usize) -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(pieces), min..10).prop_map(|p| p.concat())
}

fn fact(path: &str) -> FactPath {
    FactPath::new(path).unwrap_or_else(|e| panic!("{path:?}: {e}"))
}

/// A sealed snapshot of `azl-node01` from `source` with `facts`.
fn snapshot(source: &str, facts: Vec<(String, FactValue)>) -> VerifiedSnapshot {
    let mut facts: Vec<(FactPath, FactValue)> =
        facts.into_iter().map(|(p, v)| (fact(&p), v)).collect();
    facts.sort_by(|a, b| a.0.as_str().cmp(b.0.as_str()));
    VerifiedSnapshot::seal(
        Snapshot {
            host: HostName::new("azl-node01").unwrap(),
            captured_at: jiff::Timestamp::UNIX_EPOCH,
            tool: "driftgate test".to_owned(),
            sources: vec![SourceRecord {
                name: source.to_owned(),
                target: "dir:recorded".to_owned(),
                status: SourceStatus::Complete,
                error: None,
            }],
            facts: facts.into_iter().collect::<Facts>(),
        },
        source,
    )
}

/// The host's plan of `current` against `baseline`, as `fix plan` makes it (no BMC).
fn plan_of(current: &VerifiedSnapshot, baseline: &VerifiedSnapshot) -> HostPlan {
    let report = driftgate_compare::judge(
        current,
        Some(baseline),
        &Policy::builtin(),
        &JudgeOptions::default(),
    );
    host_plan("azl-node01", &report, current.snapshot(), Bmc::None)
}

/// The scripts of one host's plan, written into a new folder.
fn write_scripts(host: HostPlan) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let plan = Plan {
        schema: driftgate_fix::PLAN_SCHEMA_ID.to_owned(),
        tool: "driftgate test".to_owned(),
        made_from: "a property test".to_owned(),
        hosts: vec![host],
    };
    for (name, text) in script_files(&plan) {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    dir
}

/// ESXi facts of one device whose own SATP rule gives Round Robin.
fn esxi_facts(device: &str, satp: &str, psp: &str) -> Vec<(String, FactValue)> {
    vec![
        (format!("storage/nmp/{device}/psp"), FactValue::from(psp)),
        (format!("storage/nmp/{device}/satp"), FactValue::from(satp)),
        (
            format!("storage/satp_rule/{satp}/device/{device}/default_psp"),
            FactValue::from("VMW_PSP_RR"),
        ),
    ]
}

fn args(words: &[&str]) -> Vec<Vec<u8>> {
    words.iter().map(|w| w.as_bytes().to_vec()).collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn esxi_values_reach_esxcli_byte_exact_and_nothing_else_runs(
        device in hostile(PATH_PIECES, 1),
        satp in hostile(PATH_PIECES, 1),
        psp in hostile(PIECES, 1),
    ) {
        prop_assume!(!psp.eq_ignore_ascii_case("VMW_PSP_RR"));
        let device = format!("naa.{device}");
        let current = snapshot("esxi", esxi_facts(&device, &satp, "VMW_PSP_RR"));
        let baseline = snapshot("esxi", esxi_facts(&device, &satp, &psp));
        let host = plan_of(&current, &baseline);
        prop_assert_eq!(host.steps.len(), 1, "{:#?}", host);
        let dir = write_scripts(host);
        let stand_ins = StandIns::new();
        let ran = scripts::run_script(&dir.path().join("azl-node01-esxi.sh"), &stand_ins, &[]);
        prop_assert_eq!(ran.code, 0, "{}", ran.stderr);
        prop_assert!(ran.left.is_empty(), "the script wrote {:?}", ran.left);
        let calls: Vec<Vec<Vec<u8>>> = stand_ins.calls("esxcli").into_iter().map(|c| c.args).collect();
        let keep = format!("driftgate: keep {device} on {psp}");
        prop_assert_eq!(calls, vec![
            args(&["storage", "nmp", "device", "set", "-d", &device, "-P", &psp]),
            args(&["storage", "nmp", "satp", "rule", "remove", "-s", &satp, "-d", &device, "-P", "VMW_PSP_RR"]),
            args(&["storage", "nmp", "satp", "rule", "add", "-s", &satp, "-d", &device, "-P", &psp, "-e", &keep]),
        ]);
    }

    #[test]
    fn linux_values_reach_the_tools_byte_exact_and_nothing_else_runs(
        name in hostile(PIECES, 1),
        trust in hostile(PIECES, 1),
    ) {
        prop_assume!(trust != "pcp");
        let mac = "0c:42:a1:5e:77:11";
        let facts = |trust: &str| vec![
            (format!("nic/{mac}/os/name"), FactValue::from(name.as_str())),
            (format!("nic/{mac}/os/trust"), FactValue::from(trust)),
        ];
        let host = plan_of(&snapshot("linux", facts("pcp")), &snapshot("linux", facts(&trust)));
        prop_assert_eq!(host.steps.len(), 1, "{:#?}", host);
        let dir = write_scripts(host);
        let stand_ins = StandIns::new();
        let ran = scripts::run_script(&dir.path().join("azl-node01-linux.sh"), &stand_ins, &[]);
        prop_assert_eq!(ran.code, 0, "{}", ran.stderr);
        prop_assert!(ran.left.is_empty(), "the script wrote {:?}", ran.left);
        let calls = |tool: &str| -> Vec<Vec<Vec<u8>>> {
            stand_ins.calls(tool).into_iter().map(|c| c.args).collect()
        };
        prop_assert_eq!(calls("mlnx_qos"), vec![args(&["-i", &name, "--trust", &trust])]);
    }

    #[test]
    fn a_windows_adapter_name_is_one_powershell_string(name in hostile(PIECES, 1)) {
        let mac = "00:0a:f7:12:34:56";
        let facts = |enabled: bool| vec![
            (format!("nic/{mac}/os/name"), FactValue::from(name.as_str())),
            (format!("nic/{mac}/os/qos_enabled"), FactValue::from(enabled)),
        ];
        let host = plan_of(&snapshot("windows", facts(false)), &snapshot("windows", facts(true)));
        // `-Name` takes a pattern: a name holding a wildcard is refused, never quoted.
        if name.contains(['*', '?', '[', ']']) {
            prop_assert!(host.steps.is_empty(), "{:#?}", host);
            prop_assert!(
                host.not_fixable.iter().any(|n| n.why.contains("holds a PowerShell wildcard character")),
                "{:#?}",
                host
            );
            return Ok(());
        }
        prop_assert_eq!(host.steps.len(), 1, "{:#?}", host);
        let Action::Commands(commands) = &host.steps[0].action else {
            panic!("a command step");
        };
        let expected = vec![
            vec![
                word("if"), Token::Operator('('), Token::Operator('('), word("Get-NetAdapter"),
                word("-Name"), literal(&name), Token::Operator(')'), word(".MacAddress"),
                word("-ne"), literal("00-0A-F7-12-34-56"), Token::Operator(')'),
                Token::Operator('{'), word("throw"),
                literal(&format!("adapter {name} is not the port {mac}")), Token::Operator('}'),
            ],
            vec![word("Enable-NetAdapterQos"), word("-Name"), literal(&name)],
        ];
        // What `fix apply --layer os` runs.
        let lines: Vec<Vec<Token>> = commands.lines.iter().map(|l| powershell::tokenize(l).unwrap()).collect();
        prop_assert_eq!(&lines, &expected);
        // The script: every comment one line, the commands exactly those.
        let dir = write_scripts(host);
        let text = powershell::as_windows_powershell_reads(
            &std::fs::read(dir.path().join("azl-node01-windows.ps1")).unwrap(),
        );
        let mut commands: Vec<Vec<Token>> = Vec::new();
        for line in powershell::lines(&text).unwrap() {
            match &line[..] {
                [] => {}
                [Token::Comment(comment)] => prop_assert!(!comment.contains(['\r', '\n']), "{comment:?}"),
                _ => commands.push(line),
            }
        }
        let mut all = vec![vec![word("$ErrorActionPreference"), word("="), literal("Stop")]];
        all.extend(expected);
        prop_assert_eq!(commands, all, "{}", text);
    }
}

proptest! {
    // Each case captures two mockups and plans through the binary: fewer cases.
    #![proptest_config(ProptestConfig { cases: 16, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn bmc_attribute_names_values_and_the_account_reach_the_bmc_byte_exact(
        name in hostile(PATH_PIECES, 0),
        value in hostile(PIECES, 1),
        user in hostile(PIECES, 1),
        password in hostile(PIECES, 1),
    ) {
        prop_assume!(!user.contains(':'));
        prop_assume!(!driftgate_collect::placeholder::is_placeholder(value.trim()));
        // The current value is "0": the same value would be no drift, and no plan.
        prop_assume!(value.trim() != "0");
        let name = format!("Vendor_PFC_{name}");
        let work = tempfile::tempdir().unwrap();
        let (current, baseline) = attribute_drift_named(work.path(), &name, &value);
        let dir = work.path().join("scripts");
        let plan = emit_scripts(&current, &baseline, &dir, &["--format", "json"]).expect(0).json();
        let steps = plan["hosts"][0]["steps"].as_array().unwrap();
        prop_assert_eq!(steps.len(), 1, "{:#}", plan);
        let body = &steps[0]["action"]["body"];
        let attributes = body["Attributes"].as_object().unwrap();
        prop_assert_eq!(attributes.keys().collect::<Vec<_>>(), vec![&name]);
        let recorder = Recorder::start();
        let stand_ins = StandIns::new();
        let ran = scripts::run_script(&dir.join("azl-node01-bmc.sh"), &stand_ins, &[
            ("BMC", recorder.url.as_str()),
            ("DRIFTGATE_BMC_USERNAME", user.as_str()),
            ("DRIFTGATE_BMC_PASSWORD", password.as_str()),
        ]);
        prop_assert_eq!(ran.code, 0, "{}", ran.stderr);
        prop_assert!(ran.left.is_empty(), "the script wrote {:?}", ran.left);
        prop_assert_eq!(stand_ins.calls("curl").len(), 1);
        let received = recorder.received();
        prop_assert_eq!(received.len(), 1, "{:?}", received);
        prop_assert_eq!(&received[0].method, "PATCH");
        prop_assert_eq!(&received[0].path, &format!("/{}/Settings", scripts::NIC_ATTRIBUTES));
        prop_assert_eq!(&received[0].account, &format!("{user}:{password}").into_bytes());
        let sent: Value = serde_json::from_slice(&received[0].body).unwrap();
        prop_assert_eq!(&sent, body);
        // The value the plan restores is the baseline's, as the BMC spelt it, byte for byte.
        prop_assert_eq!(&sent["Attributes"][&name], &Value::from(value.as_str()));
    }
}

#[test]
fn a_value_with_a_nul_is_refused_by_the_plan_naming_it() {
    let device = "naa.600a";
    let current = snapshot("esxi", esxi_facts(device, "VMW_SATP_ALUA", "VMW_PSP_RR"));
    let baseline = snapshot("esxi", esxi_facts(device, "VMW_SATP_ALUA", "VMW\0PSP"));
    let host = plan_of(&current, &baseline);
    assert!(host.steps.is_empty(), "{host:#?}");
    assert!(
        host.not_fixable.iter().any(|n| n
            .why
            .contains(r"VMW\u{0}PSP holds a NUL byte, which no command line can carry")),
        "{host:#?}"
    );
}
