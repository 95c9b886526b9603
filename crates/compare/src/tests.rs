use super::*;
use driftgate_snapshot::{
    FactPath, Facts, HostName, Snapshot, SourceRecord, SourceStatus, WHOLE_CAPTURE,
};

fn snapshot(pairs: &[(&str, FactValue)], status: SourceStatus) -> VerifiedSnapshot {
    let facts: Facts = pairs
        .iter()
        .map(|(p, v)| (FactPath::new(*p).unwrap(), v.clone()))
        .collect();
    let snapshot = Snapshot {
        host: HostName::new("h1").unwrap(),
        captured_at: "2026-11-30T02:00:00Z".parse().unwrap(),
        tool: "driftgate test".into(),
        sources: vec![SourceRecord {
            name: "windows".into(),
            target: "dir:/tmp/h1".into(),
            status,
            error: (status != SourceStatus::Complete)
                .then(|| "Get-NetAdapterQos: access denied".into()),
        }],
        facts,
    };
    VerifiedSnapshot::parse(&snapshot.to_canonical_json(), "test.json").unwrap()
}

fn complete(pairs: &[(&str, FactValue)]) -> VerifiedSnapshot {
    snapshot(pairs, SourceStatus::Complete)
}

fn judge_with(
    new: &VerifiedSnapshot,
    old: Option<&VerifiedSnapshot>,
    policy: &str,
    strict: bool,
) -> Report {
    let policy = Policy::with_file(policy, "p.toml").unwrap();
    judge(
        new,
        old,
        &policy,
        &JudgeOptions {
            strict,
            changes_only: false,
            ..JudgeOptions::default()
        },
    )
}

#[test]
fn verdicts_follow_the_most_severe_finding() {
    let old = complete(&[("bios/A", "x".into()), ("firmware/nic/version", "1".into())]);
    let same = complete(&[("bios/A", "x".into()), ("firmware/nic/version", "1".into())]);
    assert_eq!(
        judge_with(&same, Some(&old), "", false).verdict,
        Verdict::Pass
    );

    let info_only = complete(&[("bios/A", "x".into()), ("firmware/nic/version", "2".into())]);
    let report = judge_with(&info_only, Some(&old), "", false);
    assert_eq!((report.verdict, report.counts.info), (Verdict::Pass, 1));

    let warn = complete(&[("bios/A", "y".into()), ("firmware/nic/version", "1".into())]);
    assert_eq!(
        judge_with(&warn, Some(&old), "", false).verdict,
        Verdict::Warn
    );
    assert_eq!(
        judge_with(&warn, Some(&old), "", true).verdict,
        Verdict::Block
    );

    let block = "[[rule]]\nid = \"bios-attributes\"\non_change = \"block\"\n";
    assert_eq!(
        judge_with(&warn, Some(&old), block, false).verdict,
        Verdict::Block
    );

    let ignore = "[[rule]]\nid = \"bios-attributes\"\non_change = \"ignore\"\n";
    let report = judge_with(&warn, Some(&old), ignore, true);
    assert_eq!((report.verdict, report.findings.len()), (Verdict::Pass, 0));
}

#[test]
fn an_incomplete_source_is_incomplete_even_without_changes() {
    let old = complete(&[("bios/A", "x".into())]);
    let partial = snapshot(&[("bios/A", "x".into())], SourceStatus::Partial);
    let report = judge_with(&partial, Some(&old), "", false);
    assert_eq!(report.verdict, Verdict::Incomplete);
    assert_eq!(report.incomplete_sources.len(), 1);
    assert_eq!(report.incomplete_sources[0].role, Role::Snapshot);
    let failed_baseline = snapshot(&[("bios/A", "x".into())], SourceStatus::Failed);
    let report = judge_with(&old, Some(&failed_baseline), "", false);
    assert_eq!(report.verdict, Verdict::Incomplete);
    assert_eq!(report.incomplete_sources[0].role, Role::Baseline);
    // Incomplete wins over block, too: the pipeline must know the capture is untrustworthy.
    let broken = snapshot(
        &[
            ("storage/nmp/d/psp", "VMW_PSP_RR".into()),
            ("storage/nmp/d/perennially_reserved", true.into()),
        ],
        SourceStatus::Failed,
    );
    assert_eq!(
        judge_with(&broken, None, "", false).verdict,
        Verdict::Incomplete
    );
}

#[test]
fn changes_are_classified_with_kind_old_new_and_why() {
    let old = complete(&[
        ("nic/m/bmc/dcbx_mode", "ieee".into()),
        ("nic/m/bmc/lldp/enabled", true.into()),
    ]);
    let new = complete(&[
        ("nic/m/bmc/dcbx_mode", "disabled".into()),
        ("nic/m/bmc/npar", false.into()),
    ]);
    let report = judge_with(&new, Some(&old), "", false);
    let kinds: Vec<(FindingKind, &str, Severity)> = report
        .findings
        .iter()
        .map(|f| (f.kind, f.id.as_str(), f.severity))
        .collect();
    assert_eq!(
        kinds,
        vec![
            (FindingKind::Changed, "dcbx-mode", Severity::Block),
            // The NIC's own LLDP agent competes with the host's DCBX (issue 10): it blocks.
            (FindingKind::Removed, "bmc-lldp", Severity::Block),
            (FindingKind::Added, "bmc-npar", Severity::Warn),
        ]
    );
    let dcbx = &report.findings[0];
    assert_eq!(
        (dcbx.old.clone(), dcbx.new.clone()),
        (Some("ieee".into()), Some("disabled".into()))
    );
    assert!(dcbx.why.contains("DCBX mode"));
    assert_eq!(
        report.counts,
        Counts {
            block: 2,
            warn: 1,
            info: 0
        }
    );
}

#[test]
fn expectations_hold_without_a_baseline_and_a_literal_one_requires_its_fact() {
    let policy = "[[rule]]\nid = \"pfc-priority-3\"\npath = \"host/qos/flow_control/priority/3\"\nexpect = true\n\n\
                  [[rule]]\nid = \"mru\"\npath = \"storage/nmp/*/psp\"\nexpect = \"VMW_PSP_MRU\"\non_violation = \"warn\"\n";
    let good = complete(&[
        ("host/qos/flow_control/priority/3", true.into()),
        ("storage/nmp/a/psp", "VMW_PSP_MRU".into()),
    ]);
    assert_eq!(
        judge_with(&good, None, policy, false).verdict,
        Verdict::Pass
    );

    let off = complete(&[
        ("host/qos/flow_control/priority/3", false.into()),
        ("storage/nmp/a/psp", "VMW_PSP_RR".into()),
    ]);
    let report = judge_with(&off, None, policy, false);
    assert_eq!(report.verdict, Verdict::Block);
    let pfc = report
        .findings
        .iter()
        .find(|f| f.id == "pfc-priority-3")
        .unwrap();
    assert_eq!(
        (pfc.kind, pfc.severity),
        (FindingKind::Expectation, Severity::Block)
    );
    assert_eq!(pfc.message, "expected true, found false");
    let mru = report.findings.iter().find(|f| f.id == "mru").unwrap();
    assert_eq!(mru.severity, Severity::Warn);

    let missing = complete(&[("storage/nmp/a/psp", "VMW_PSP_MRU".into())]);
    let report = judge_with(&missing, None, policy, false);
    assert_eq!(report.findings.len(), 1);
    assert!(
        report.findings[0].message.contains("missing"),
        "{}",
        report.findings[0].message
    );
}

#[test]
fn diff_mode_judges_changes_only() {
    let old = complete(&[
        ("storage/nmp/d/psp", "VMW_PSP_RR".into()),
        ("storage/nmp/d/perennially_reserved", true.into()),
    ]);
    let policy = Policy::builtin();
    let report = judge(
        &old,
        Some(&old),
        &policy,
        &JudgeOptions {
            strict: false,
            changes_only: true,
            ..JudgeOptions::default()
        },
    );
    assert_eq!((report.verdict, report.findings.len()), (Verdict::Pass, 0));
    let report = judge(&old, None, &policy, &JudgeOptions::default());
    assert_eq!(report.verdict, Verdict::Block);
}

#[test]
fn firmware_changes_are_listed_for_attribution_even_when_ignored() {
    let old = complete(&[
        ("firmware/nic.slot.3/version", "229.0".into()),
        ("nic/m/bmc/dcbx_mode", "ieee".into()),
    ]);
    let new = complete(&[
        ("firmware/nic.slot.3/version", "229.1".into()),
        ("nic/m/bmc/dcbx_mode", "disabled".into()),
    ]);
    let ignore = "[[rule]]\nid = \"firmware-versions\"\non_change = \"ignore\"\n";
    let report = judge_with(&new, Some(&old), ignore, false);
    assert_eq!(report.firmware_changes.len(), 1);
    assert_eq!(
        report.firmware_changes[0].path.as_str(),
        "firmware/nic.slot.3/version"
    );
    assert!(
        report
            .findings
            .iter()
            .all(|f| !f.path.as_str().starts_with("firmware/"))
    );
}

#[test]
fn findings_are_ordered_most_severe_first() {
    let old = complete(&[
        ("a/x", 1.into()),
        ("bios/z", 1.into()),
        ("firmware/f/version", "1".into()),
        ("nic/m/bmc/dcbx_mode", "ieee".into()),
    ]);
    let new = complete(&[
        ("a/x", 2.into()),
        ("bios/z", 2.into()),
        ("firmware/f/version", "2".into()),
        ("nic/m/bmc/dcbx_mode", "cee".into()),
    ]);
    let report = judge_with(&new, Some(&old), "", false);
    let order: Vec<(Severity, &str)> = report
        .findings
        .iter()
        .map(|f| (f.severity, f.path.as_str()))
        .collect();
    assert_eq!(
        order,
        vec![
            (Severity::Block, "nic/m/bmc/dcbx_mode"),
            (Severity::Warn, "a/x"),
            (Severity::Warn, "bios/z"),
            (Severity::Info, "firmware/f/version"),
        ]
    );
}

#[test]
fn a_snapshot_without_sources_or_missing_a_baseline_source_is_incomplete() {
    let mut bare = Snapshot {
        host: HostName::new("h1").unwrap(),
        captured_at: "2026-11-30T02:00:00Z".parse().unwrap(),
        tool: "driftgate test".into(),
        sources: Vec::new(),
        facts: Facts::new(),
    };
    let sourceless = VerifiedSnapshot::parse(&bare.to_canonical_json(), "bare.json").unwrap();
    let report = judge_with(&sourceless, None, "", false);
    assert_eq!(report.verdict, Verdict::Incomplete);
    assert!(
        report.incomplete_sources[0]
            .error
            .as_deref()
            .unwrap()
            .contains("lists no source")
    );

    let baseline = complete(&[("bios/A", "x".into())]);
    bare.sources.push(SourceRecord {
        name: "redfish".into(),
        target: "https://bmc".into(),
        status: SourceStatus::Complete,
        error: None,
    });
    bare.facts
        .insert(FactPath::new("bios/A").unwrap(), "x".into());
    let other_source = VerifiedSnapshot::parse(&bare.to_canonical_json(), "other.json").unwrap();
    let report = judge_with(&other_source, Some(&baseline), "", false);
    assert_eq!(report.verdict, Verdict::Incomplete);
    assert!(
        report.incomplete_sources[0]
            .error
            .as_deref()
            .unwrap()
            .contains("captured with a windows source that this snapshot lacks")
    );
}

const PORT: &str = "nic/00:0a:f7:12:34:56";

#[test]
fn a_staged_flow_control_reset_blocks_and_takes_effect_at_the_next_reboot() {
    let old = complete(&[(
        &format!("{PORT}/bmc/flow_control/configured"),
        "rx_tx".into(),
    )]);
    let new = complete(&[
        (
            &format!("{PORT}/bmc/flow_control/configured"),
            "rx_tx".into(),
        ),
        (
            &format!("{PORT}/bmc/pending/flow_control/configured"),
            "none".into(),
        ),
    ]);
    let report = judge_with(&new, Some(&old), "", false);
    assert_eq!(report.verdict, Verdict::Block);
    let staged = &report.findings[0];
    assert_eq!(
        (
            staged.kind,
            staged.id.as_str(),
            staged.severity,
            staged.pending
        ),
        (
            FindingKind::Added,
            "bmc-flow-control",
            Severity::Block,
            true
        )
    );
    assert!(
        staged.message.contains("takes effect at the next reboot"),
        "{}",
        staged.message
    );
    let json = serde_json::to_value(&report).unwrap();
    assert_eq!(json["findings"][0]["pending"], true);

    // A staged value that is gone (applied or discarded) is not a risk of its own.
    let report = judge_with(&old, Some(&new), "", false);
    assert_eq!(report.verdict, Verdict::Pass, "{:?}", report.findings);
    assert_eq!(report.findings[0].severity, Severity::Info);
    assert!(report.findings[0].message.contains("no longer staged"));
    // Live findings do not carry the field.
    let live = complete(&[(
        &format!("{PORT}/bmc/flow_control/configured"),
        "none".into(),
    )]);
    let json = serde_json::to_value(judge_with(&live, Some(&old), "", false)).unwrap();
    assert!(json["findings"][0].get("pending").is_none(), "{json}");
}

#[test]
fn a_withdrawn_staged_value_is_judged_by_a_rule_that_names_pending() {
    let staged = format!("{PORT}/bmc/pending/flow_control/configured");
    let live = format!("{PORT}/bmc/flow_control/configured");
    let with = complete(&[(&live, "rx_tx".into()), (&staged, "none".into())]);
    let without = complete(&[(&live, "rx_tx".into())]);
    let policy = r#"
[[rule]]
id = "site-staged"
path = "nic/*/bmc/pending/**"
on_change = "warn"
why = "Staged NIC settings must be applied, not discarded, at the reboot window."
"#;
    let report = judge_with(&without, Some(&with), policy, false);
    let finding = &report.findings[0];
    assert_eq!(
        (finding.kind, finding.id.as_str(), finding.severity),
        (FindingKind::Removed, "site-staged", Severity::Warn),
        "{:?}",
        report.findings
    );
    assert_eq!(report.verdict, Verdict::Warn);
    // The staged reset itself still blocks through the live rule.
    let report = judge_with(&with, Some(&without), policy, false);
    assert_eq!(
        (report.findings[0].id.as_str(), report.verdict),
        ("bmc-flow-control", Verdict::Block)
    );
}

#[test]
fn every_kind_of_firmware_fact_is_recognised() {
    for path in [
        "firmware/nic.slot.3/version",
        "firmware/bios/attribute/SystemBiosVersion",
        "nic/m/bmc/firmware/version",
        "nic/m/bmc/firmware/inventory",
        "nic/m/bmc/firmware/hii/EFIVersion",
        "nic/m/bmc/function/NIC.Slot.3-1-1/firmware/hii/FamilyVersion",
        "nic/m/bmc/pending/firmware/hii/FamilyVersion",
        "nic/m/os/firmware/version",
        "nic/m/os/firmware/pending/fw_version",
    ] {
        assert!(is_firmware_version(path), "{path}");
    }
    for path in [
        "bios/SysProfile",
        "nic/m/bmc/dcbx_mode",
        "nic/m/os/firmware_lldp/dcbx",
        "nic/m/os/driver/version",
        "nic/firmware",
    ] {
        assert!(!is_firmware_version(path), "{path}");
    }
}

#[test]
fn a_finding_on_a_port_names_that_ports_firmware_first() {
    let other = "nic/00:0a:f7:12:34:99";
    let old = complete(&[
        (&format!("{PORT}/bmc/dcbx_mode"), "ieee".into()),
        (&format!("{PORT}/bmc/firmware/version"), "22.31.1014".into()),
        (&format!("{other}/bmc/firmware/version"), "14.1".into()),
        ("firmware/bios/version", "2.19.1".into()),
    ]);
    let new = complete(&[
        (&format!("{PORT}/bmc/dcbx_mode"), "disabled".into()),
        (&format!("{PORT}/bmc/firmware/version"), "22.36.1010".into()),
        (&format!("{other}/bmc/firmware/version"), "14.2".into()),
        ("firmware/bios/version", "2.20.0".into()),
    ]);
    let report = judge_with(&new, Some(&old), "", false);
    let dcbx = report
        .findings
        .iter()
        .find(|f| f.id == "dcbx-mode")
        .unwrap();
    let named: Vec<(&str, bool)> = dcbx
        .firmware
        .iter()
        .map(|f| (f.path.as_str(), f.this_port))
        .collect();
    let own = format!("{PORT}/bmc/firmware/version");
    let theirs = format!("{other}/bmc/firmware/version");
    assert_eq!(
        named,
        vec![
            (own.as_str(), true),
            ("firmware/bios/version", false),
            (theirs.as_str(), false),
        ]
    );
    assert_eq!(dcbx.firmware[0].new, Some("22.36.1010".into()));
    // The global list stays, and firmware findings carry no attribution of their own.
    assert_eq!(report.firmware_changes.len(), 3);
    assert!(
        report
            .findings
            .iter()
            .filter(|f| f.id != "dcbx-mode")
            .all(|f| f.firmware.is_empty())
    );
}

#[test]
fn a_ports_inventory_link_attributes_that_inventory_component() {
    let old = complete(&[
        (
            &format!("{PORT}/bmc/function/NIC.Slot.3-1-1/dcbx_mode"),
            "ieee".into(),
        ),
        (
            &format!("{PORT}/bmc/firmware/inventory"),
            "nic.slot.3".into(),
        ),
        ("firmware/bios/version", "2.19.1".into()),
        ("firmware/nic.slot.3/version", "229.0".into()),
    ]);
    let new = complete(&[
        (
            &format!("{PORT}/bmc/function/NIC.Slot.3-1-1/dcbx_mode"),
            "disabled".into(),
        ),
        (
            &format!("{PORT}/bmc/firmware/inventory"),
            "nic.slot.3".into(),
        ),
        ("firmware/bios/version", "2.20.0".into()),
        ("firmware/nic.slot.3/version", "229.1".into()),
    ]);
    let report = judge_with(&new, Some(&old), "", false);
    let dcbx = &report.findings[0];
    assert_eq!(dcbx.id, "dcbx-mode");
    let named: Vec<(&str, bool)> = dcbx
        .firmware
        .iter()
        .map(|f| (f.path.as_str(), f.this_port))
        .collect();
    assert_eq!(
        named,
        vec![
            ("firmware/nic.slot.3/version", true),
            ("firmware/bios/version", false)
        ]
    );
}

#[test]
fn a_baseline_of_another_host_is_refused_naming_both() {
    let h1 = complete(&[("bios/A", "x".into())]);
    assert_eq!(same_host(&h1, &h1), Ok(()));
    let other = Snapshot {
        host: HostName::new("h2").unwrap(),
        ..h1.snapshot().clone()
    };
    let h2 = VerifiedSnapshot::parse(&other.to_canonical_json(), "h2.json").unwrap();
    let error = same_host(&h1, &h2).unwrap_err().to_string();
    assert_eq!(
        error,
        "test.json is a snapshot of host h1 but baseline h2.json is of host h2; use `driftgate diff` to compare different hosts"
    );
}

#[test]
fn the_report_names_the_rules_that_applied_with_their_facts() {
    let policy = r#"
[[rule]]
id = "site-a"
path = "site/a/*"
on_change = "block"
expect = "on"

[[rule]]
id = "site-quiet"
path = "site/quiet/*"
on_change = "ignore"

[[rule]]
id = "site-elsewhere"
path = "nowhere/*"
on_change = "block"

[invariants]
pfc-not-operational = "ignore"
"#;
    let old = complete(&[
        ("site/a/1", "on".into()),
        ("site/a/gone", "on".into()),
        ("site/quiet/1", "x".into()),
    ]);
    let new = complete(&[
        ("site/a/1", "on".into()),
        ("site/a/2", "on".into()),
        ("site/quiet/1", "y".into()),
    ]);
    let report = judge_with(&new, Some(&old), policy, false);
    let of = |id: &str| -> Vec<(RuleKind, Severity, usize)> {
        report
            .rules
            .iter()
            .filter(|r| r.id == id)
            .map(|r| (r.kind, r.severity, r.facts))
            .collect()
    };
    // Two facts of the snapshot and one only the baseline has; the expectation sees the two.
    assert_eq!(
        of("site-a"),
        [
            (RuleKind::Drift, Severity::Block, 3),
            (RuleKind::Expectation, Severity::Block, 2)
        ]
    );
    // Ignored, matching nothing, or switched off: not applied.
    assert!(of("site-quiet").is_empty() && of("site-elsewhere").is_empty());
    assert!(of("pfc-not-operational").is_empty());
    assert_eq!(
        of("dcbx-capability-lost"),
        [(RuleKind::Invariant, Severity::Block, 3)]
    );
    let ids: Vec<(&str, RuleKind)> = report
        .rules
        .iter()
        .map(|r| (r.id.as_str(), r.kind))
        .collect();
    let mut sorted = ids.clone();
    sorted.sort();
    assert_eq!(ids, sorted);
    // Without a baseline no change was judged: no drift rule applied.
    let alone = judge_with(&new, None, policy, false);
    assert!(alone.rules.iter().all(|r| r.kind != RuleKind::Drift));
    // A report written before the rules were recorded still reads.
    let mut json = serde_json::to_value(&report).unwrap();
    json.as_object_mut().unwrap().remove("rules");
    let older: Report = serde_json::from_value(json).unwrap();
    assert!(older.rules.is_empty());
}

/// A snapshot of h1 read by `sources` (kind, status).
fn read_by(pairs: &[(&str, FactValue)], sources: &[(&str, SourceStatus)]) -> VerifiedSnapshot {
    let snapshot = Snapshot {
        host: HostName::new("h1").unwrap(),
        captured_at: "2026-11-30T02:00:00Z".parse().unwrap(),
        tool: "driftgate test".into(),
        sources: sources
            .iter()
            .map(|(name, status)| SourceRecord {
                name: (*name).into(),
                target: format!("{name}://h1"),
                status: *status,
                error: (*status != SourceStatus::Complete).then(|| "connection refused".into()),
            })
            .collect(),
        facts: pairs
            .iter()
            .map(|(p, v)| (FactPath::new(*p).unwrap(), v.clone()))
            .collect(),
    };
    VerifiedSnapshot::parse(&snapshot.to_canonical_json(), "test.json").unwrap()
}

/// A host read by its BMC and its OS, as a baseline.
fn both_sides() -> Vec<(&'static str, FactValue)> {
    vec![
        ("bios/SriovGlobalEnable", "Enabled".into()),
        ("firmware/nic.slot.3-1-1/version", "229.0.166.0".into()),
        ("host/qos/flow_control/priority/3", true.into()),
        ("nic/00:0a:f7:12:34:56/bmc/dcbx_mode", "ieee".into()),
        ("nic/00:0a:f7:12:34:56/os/qos_enabled", true.into()),
    ]
}

const BOTH: [(&str, SourceStatus); 2] = [
    ("redfish", SourceStatus::Complete),
    ("windows", SourceStatus::Complete),
];

#[test]
fn what_a_failed_source_did_not_read_is_not_judged_and_what_others_read_is() {
    let baseline = read_by(&both_sides(), &BOTH);
    // The BMC is down; the OS answers and its QoS was switched off.
    let os_only: Vec<_> = both_sides()
        .into_iter()
        .filter(|(p, _)| p.starts_with("host/") || p.contains("/os/"))
        .map(|(p, v)| match p {
            "nic/00:0a:f7:12:34:56/os/qos_enabled" => (p, false.into()),
            _ => (p, v),
        })
        .collect();
    let down = read_by(
        &os_only,
        &[
            ("redfish", SourceStatus::Failed),
            ("windows", SourceStatus::Complete),
        ],
    );
    let report = judge_with(&down, Some(&baseline), "", false);
    assert_eq!(report.verdict, Verdict::Incomplete);
    let paths: Vec<&str> = report.findings.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(paths, ["nic/00:0a:f7:12:34:56/os/qos_enabled"]);
    assert_eq!(report.findings[0].kind, FindingKind::Changed);
    assert!(
        report.firmware_changes.is_empty(),
        "{:?}",
        report.firmware_changes
    );
    assert_eq!(report.incomplete_sources.len(), 1);
    assert_eq!(report.incomplete_sources[0].name, "redfish");
    assert_eq!(report.incomplete_sources[0].not_judged, 3, "{report:#?}");
    // The same facts gone while the BMC answered are drift.
    let gone = read_by(&os_only, &BOTH);
    let report = judge_with(&gone, Some(&baseline), "", false);
    assert!(
        report
            .findings
            .iter()
            .any(|f| f.kind == FindingKind::Removed
                && f.path.as_str() == "nic/00:0a:f7:12:34:56/bmc/dcbx_mode")
    );
    assert!(!report.firmware_changes.is_empty());
}

#[test]
fn a_partial_source_judges_what_it_read_and_not_what_it_missed() {
    let policy = "[[rule]]\nid = \"pfc-priority-3\"\npath = \"host/qos/flow_control/priority/3\"\nexpect = true\n";
    let baseline = read_by(&both_sides(), &BOTH);
    let partial: Vec<_> = both_sides()
        .into_iter()
        .filter(|(p, _)| !p.starts_with("host/qos/"))
        .map(|(p, v)| match p {
            "bios/SriovGlobalEnable" => (p, "Disabled".into()),
            _ => (p, v),
        })
        .collect();
    let snapshot = read_by(
        &partial,
        &[
            ("redfish", SourceStatus::Complete),
            ("windows", SourceStatus::Partial),
        ],
    );
    let report = judge_with(&snapshot, Some(&baseline), policy, false);
    assert_eq!(report.verdict, Verdict::Incomplete);
    // The BIOS change is judged; the PFC fact windows did not read is neither removed nor a
    // violated expectation.
    let found: Vec<(&str, FindingKind)> = report
        .findings
        .iter()
        .map(|f| (f.path.as_str(), f.kind))
        .collect();
    assert_eq!(found, [("bios/SriovGlobalEnable", FindingKind::Changed)]);
    assert_eq!(report.incomplete_sources[0].not_judged, 2, "{report:#?}");
    // Without a baseline the expectation still does not fire on what was not read.
    let report = judge_with(&snapshot, None, policy, false);
    assert!(
        report
            .findings
            .iter()
            .all(|f| f.kind != FindingKind::Expectation)
    );
}

#[test]
fn a_failed_whole_capture_is_one_incomplete_source_and_no_finding() {
    let baseline = read_by(&both_sides(), &BOTH);
    let nothing = read_by(&[], &[(WHOLE_CAPTURE, SourceStatus::Failed)]);
    let report = judge_with(&nothing, Some(&baseline), "", false);
    assert_eq!(report.verdict, Verdict::Incomplete);
    assert!(report.findings.is_empty(), "{:#?}", report.findings);
    assert_eq!(report.counts, Counts::default());
    assert_eq!(report.incomplete_sources.len(), 1, "{report:#?}");
    assert_eq!(report.incomplete_sources[0].name, WHOLE_CAPTURE);
    assert_eq!(report.incomplete_sources[0].not_judged, both_sides().len());
}

#[test]
fn facts_a_partial_baseline_did_not_read_are_not_new() {
    let bmc_only: Vec<_> = both_sides()
        .into_iter()
        .filter(|(p, _)| !p.starts_with("host/") && !p.contains("/os/"))
        .collect();
    let baseline = read_by(
        &bmc_only,
        &[
            ("redfish", SourceStatus::Complete),
            ("windows", SourceStatus::Failed),
        ],
    );
    let now = read_by(&both_sides(), &BOTH);
    let report = judge_with(&now, Some(&baseline), "", false);
    assert_eq!(report.verdict, Verdict::Incomplete);
    assert!(
        report.findings.iter().all(|f| f.kind != FindingKind::Added),
        "{:#?}",
        report.findings
    );
    assert_eq!(report.incomplete_sources[0].role, Role::Baseline);
    assert!(report.incomplete_sources[0].not_judged > 0);
}

#[test]
fn a_dcb_capability_blocks_when_it_is_lost_and_only_then() {
    let function = "nic/m/bmc/function/NIC.Slot.7-1-1";
    let dcbx = format!("{function}/hii/capability/dcb/DCBXSupport");
    let pfc = format!("{function}/oem/capability/dcb/Acme/PfcCapable");
    let sriov = format!("{function}/hii/capability/SRIOVSupport");
    let fcoe = format!("{function}/hii/capability/dcb/FCoEOffloadSupport");
    let old = complete(&[
        (dcbx.as_str(), "Available".into()),
        (pfc.as_str(), true.into()),
        (sriov.as_str(), "Available".into()),
        (fcoe.as_str(), "Unavailable".into()),
    ]);
    let new = complete(&[
        (dcbx.as_str(), "Unavailable".into()),
        (pfc.as_str(), false.into()),
        (sriov.as_str(), "Unavailable".into()),
        (fcoe.as_str(), "Available".into()),
    ]);
    let judged = |old: &VerifiedSnapshot, new: &VerifiedSnapshot| {
        judge_with(new, Some(old), "", false)
            .findings
            .into_iter()
            .map(|f| (f.path.to_string(), f.id, f.severity, f.message))
            .collect::<Vec<_>>()
    };
    let lost = "a DCB capability lost: changed from \"Available\" to \"Unavailable\"";
    assert_eq!(
        judged(&old, &new),
        [
            (
                dcbx.clone(),
                "bmc-dcb-capability-lost".to_owned(),
                Severity::Block,
                lost.to_owned()
            ),
            (
                pfc.clone(),
                "bmc-dcb-capability-lost".to_owned(),
                Severity::Block,
                "a DCB capability lost: changed from true to false".to_owned()
            ),
            (
                sriov.clone(),
                "bmc-capability".to_owned(),
                Severity::Warn,
                "changed from \"Available\" to \"Unavailable\"".to_owned()
            ),
            (
                fcoe.clone(),
                "bmc-dcb-capability-lost".to_owned(),
                Severity::Info,
                "changed from \"Unavailable\" to \"Available\"".to_owned()
            ),
        ]
    );
    // The other way round: the DCB capabilities come back (info), FCoE offload goes.
    let back = judged(&new, &old);
    let severity_of = |path: &str| back.iter().find(|f| f.0 == path).map(|f| f.2);
    assert_eq!(severity_of(&dcbx), Some(Severity::Info));
    assert_eq!(severity_of(&pfc), Some(Severity::Info));
    assert_eq!(severity_of(&fcoe), Some(Severity::Block));
}
