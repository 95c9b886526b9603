use super::compiled::*;
use super::render::toml_string;
use crate::glob::compile_glob;
use crate::invariants::INVARIANTS;
use crate::severity::Severity;
use driftgate_snapshot::FactPath;
use driftgate_snapshot::FactValue;

fn path(p: &str) -> FactPath {
    FactPath::new(p).unwrap()
}

fn classify(policy: &Policy, p: &str) -> (String, Severity) {
    let c = policy.classify_change(&path(p));
    (c.id.to_owned(), c.severity)
}

#[test]
fn builtin_policy_parses_and_covers_the_required_families() {
    let policy = Policy::builtin();
    let cases = [
        (
            "nic/00:0a:f7:12:34:56/bmc/dcbx_mode",
            "dcbx-mode",
            Severity::Block,
        ),
        (
            "nic/00:0a:f7:12:34:56/bmc/dcb_capable",
            "dcb-capable",
            Severity::Block,
        ),
        (
            "nic/00:0a:f7:12:34:56/bmc/flow_control/configured",
            "bmc-flow-control",
            Severity::Block,
        ),
        (
            "nic/00:0a:f7:12:34:56/bmc/flow_control/status",
            "bmc-flow-control",
            Severity::Block,
        ),
        (
            "host/qos/flow_control/priority/3",
            "host-pfc",
            Severity::Block,
        ),
        (
            "host/qos/traffic_class/smb_direct/bandwidth",
            "host-traffic-classes",
            Severity::Block,
        ),
        (
            "nic/00:0a:f7:12:34:56/os/num_tcs/current/pfc",
            "os-num-tcs-current",
            Severity::Block,
        ),
        (
            "nic/00:0a:f7:12:34:56/os/num_tcs/hardware/pfc",
            "os-num-tcs-hardware",
            Severity::Warn,
        ),
        ("host/qos/dcbx_willing", "dcbx-willing", Severity::Block),
        (
            "nic/00:0a:f7:12:34:56/os/dcbx_willing",
            "dcbx-willing",
            Severity::Block,
        ),
        (
            "nic/00:0a:f7:12:34:56/bmc/lldp/enabled",
            "bmc-lldp",
            Severity::Block,
        ),
        (
            "nic/00:0a:f7:12:34:56/os/rdma_enabled",
            "os-rdma",
            Severity::Block,
        ),
        ("storage/nmp/naa.600/psp", "esxi-psp", Severity::Block),
        ("storage/nmp/naa.600/satp", "esxi-satp", Severity::Warn),
        (
            "storage/nmp/naa.600/perennially_reserved",
            "perennially-reserved",
            Severity::Block,
        ),
        (
            "firmware/nic.slot.3/version",
            "firmware-versions",
            Severity::Info,
        ),
        ("bios/SriovGlobalEnable", "bios-attributes", Severity::Warn),
        (
            "nic/00:0a:f7:12:34:56/os/driver/version",
            "os-adapter-identity",
            Severity::Info,
        ),
        ("something/else", UNMATCHED_ID, Severity::Warn),
    ];
    for (p, id, severity) in cases {
        assert_eq!(classify(&policy, p), (id.to_owned(), severity), "{p}");
    }
    assert_eq!(policy.invariants().len(), INVARIANTS.len());
}

#[test]
fn single_star_stays_within_a_segment_and_double_star_crosses() {
    let text = r#"
[[rule]]
id = "one"
path = "a/*/c"
on_change = "block"

[[rule]]
id = "many"
path = "x/**"
on_change = "info"
"#;
    let policy = Policy::with_file(text, "p.toml").unwrap();
    assert_eq!(classify(&policy, "a/b/c").0, "one");
    assert_eq!(classify(&policy, "a/b/b/c").0, UNMATCHED_ID);
    assert_eq!(classify(&policy, "x/y").0, "many");
    assert_eq!(classify(&policy, "x/y/z/w").0, "many");
}

#[test]
fn the_most_specific_rule_wins_regardless_of_order() {
    let text = r#"
[[rule]]
id = "exact"
path = "host/qos/flow_control/priority/3"
on_change = "info"

[[rule]]
id = "segment"
path = "host/qos/flow_control/priority/*"
on_change = "warn"

[[rule]]
id = "broad"
path = "host/**"
on_change = "ignore"
"#;
    let policy = Policy::with_file(text, "p.toml").unwrap();
    assert_eq!(
        classify(&policy, "host/qos/flow_control/priority/3"),
        ("exact".into(), Severity::Info)
    );
    assert_eq!(
        classify(&policy, "host/qos/flow_control/priority/4"),
        ("segment".into(), Severity::Warn)
    );
    // The built-in host-pfc (`host/qos/flow_control/**`) is more specific than `host/**`.
    assert_eq!(
        classify(&policy, "host/qos/flow_control/other"),
        ("host-pfc".into(), Severity::Block)
    );
    assert_eq!(
        classify(&policy, "host/esxi/version"),
        ("esxi-version".into(), Severity::Info)
    );
    assert_eq!(
        classify(&policy, "host/other"),
        ("broad".into(), Severity::Ignore)
    );
}

#[test]
fn equal_specificity_goes_to_the_rule_defined_last() {
    let text = r#"
[[rule]]
id = "first"
path = "a/*"
on_change = "info"

[[rule]]
id = "second"
path = "*/b"
on_change = "block"
"#;
    let policy = Policy::with_file(text, "p.toml").unwrap();
    assert_eq!(classify(&policy, "a/b").0, "second");
}

#[test]
fn a_user_rule_overrides_a_builtin_by_id_and_keeps_unset_fields() {
    let text = r#"
[[rule]]
id = "bios-attributes"
on_change = "block"

[[rule]]
id = "firmware-versions"
path = "firmware/*/version"
on_change = "ignore"

[invariants]
dcbx-capability-lost = "warn"
"#;
    let policy = Policy::with_file(text, "fleet.toml").unwrap();
    let bios = policy
        .rules()
        .iter()
        .find(|r| r.id == "bios-attributes")
        .unwrap();
    assert_eq!(bios.path, "bios/**");
    assert_eq!(bios.on_change, Some(Severity::Block));
    assert!(bios.why.contains("BIOS"));
    assert_eq!(bios.origin, "fleet.toml:3");
    assert_eq!(
        classify(&policy, "firmware/nic.slot.3/version"),
        ("firmware-versions".into(), Severity::Ignore)
    );
    assert_eq!(
        classify(&policy, "firmware/nic.slot.3/build").0,
        UNMATCHED_ID
    );
    let severity = policy
        .invariants()
        .iter()
        .find(|(i, _)| i.id == "dcbx-capability-lost")
        .unwrap()
        .1;
    assert_eq!(severity, Severity::Warn);
    assert_eq!(
        policy
            .rules()
            .iter()
            .filter(|r| r.id == "bios-attributes")
            .count(),
        1
    );
}

#[test]
fn expectations_pick_the_most_specific_rule() {
    let text = r#"
[[rule]]
id = "mru-everywhere"
path = "storage/nmp/*/psp"
expect = "VMW_PSP_MRU"

[[rule]]
id = "datastore-rr"
path = "storage/nmp/naa.600a/psp"
expect = "VMW_PSP_RR"
on_violation = "warn"
"#;
    let policy = Policy::with_file(text, "p.toml").unwrap();
    let rule = policy
        .expectation_for(&path("storage/nmp/naa.600b/psp"))
        .unwrap();
    assert_eq!(
        (rule.id.as_str(), rule.on_violation),
        ("mru-everywhere", Severity::Block)
    );
    let rule = policy
        .expectation_for(&path("storage/nmp/naa.600a/psp"))
        .unwrap();
    assert_eq!(
        (rule.id.as_str(), rule.on_violation),
        ("datastore-rr", Severity::Warn)
    );
    assert_eq!(rule.expect, Some(FactValue::from("VMW_PSP_RR")));
    let literal: Vec<&str> = policy
        .literal_expectations()
        .map(|r| r.id.as_str())
        .collect();
    assert_eq!(literal, vec!["datastore-rr"]);
    // An expectation-only rule does not classify changes.
    assert_eq!(classify(&policy, "storage/nmp/naa.600b/psp").0, "esxi-psp");
}

#[test]
fn errors_name_the_file_and_line() {
    let cases: &[(&str, &str)] = &[
        (
            "[[rule]]\nid = \"x\"\npath = \"a\"\non_change = \"block\"\nseverity = \"warn\"\n",
            "p.toml:5:1: unknown field `severity`",
        ),
        (
            "[[rule]]\nid = \"x\"\npath = \"a\"\non_change = \"fatal\"\n",
            "p.toml:4:13: unknown variant `fatal`",
        ),
        (
            "\n\n[[rule]]\nid = \"x\"\npath = \"a/[b\"\non_change = \"warn\"\n",
            "p.toml:5: rule \"x\": invalid path glob \"a/[b\"",
        ),
        (
            "[invariants]\nno-such-check = \"block\"\n",
            "p.toml:2: unknown invariant \"no-such-check\"",
        ),
        (
            "[[rule]]\nid = \"x\"\non_change = \"warn\"\n",
            "p.toml:2: rule \"x\": a new rule needs `path`",
        ),
        (
            "[[rule]]\nid = \"x\"\npath = \"a\"\n",
            "p.toml:2: rule \"x\": give `on_change`, `expect`, or both",
        ),
        (
            "[[rule]]\nid = \"x\"\npath = \"a\"\non_change = \"warn\"\non_violation = \"warn\"\n",
            "p.toml:2: rule \"x\": `on_violation` needs `expect`",
        ),
        (
            "[[rule]]\nid = \"x\"\npath = \"a\"\non_change = \"warn\"\n[[rule]]\nid = \"x\"\npath = \"b\"\non_change = \"warn\"\n",
            "p.toml:6: duplicate rule id \"x\" (first defined on line 2)",
        ),
        ("[rules]\n", "p.toml:1:2: unknown field `rules`"),
        ("[[rule]\n", "p.toml:1:"),
        (
            "[[rule]]\nid = \"x\"\npath = \"a\"\nexpect = { a = 1 }\n",
            "p.toml:4:",
        ),
    ];
    for (text, expected) in cases {
        let err = Policy::with_file(text, "p.toml").unwrap_err().to_string();
        assert!(
            err.starts_with(expected),
            "expected {expected:?}, got {err:?}"
        );
    }
}

#[test]
fn policy_show_round_trips() {
    let text = "[[rule]]\nid = \"pfc-priority-3\"\npath = \"host/qos/flow_control/priority/3\"\nexpect = true\n";
    let policy = Policy::with_file(text, "fleet.toml").unwrap();
    let shown = policy.to_toml();
    assert!(
        shown.contains("# from fleet.toml:2\n[[rule]]\nid = \"pfc-priority-3\""),
        "{shown}"
    );
    assert!(
        shown.contains("expect = true\non_violation = \"block\""),
        "{shown}"
    );
    let reparsed = Policy::with_file(&shown, "shown.toml").unwrap();
    assert_eq!(reparsed.rules().len(), policy.rules().len());
    for (a, b) in reparsed.rules().iter().zip(policy.rules()) {
        assert_eq!(
            (&a.id, &a.path, a.on_change, &a.expect, &a.why),
            (&b.id, &b.path, b.on_change, &b.expect, &b.why)
        );
    }
}

proptest::proptest! {
    #[test]
    fn loading_arbitrary_policy_text_never_panics(text in "\\PC{0,300}") {
        let _ = Policy::with_file(&text, "fuzz.toml");
    }

    #[test]
    fn arbitrary_globs_never_panic(pattern in "[a-z*?\\[\\]{},/\\\\!-]{0,20}") {
        let text = format!("[[rule]]\nid = \"g\"\npath = {}\non_change = \"warn\"\n", toml_string(&pattern));
        if let Ok(policy) = Policy::with_file(&text, "fuzz.toml") {
            let _ = policy.classify_change(&path("a/b/c"));
        }
    }
}

#[test]
fn bmc_rules_read_every_function_of_a_port_too() {
    // `bmc/**/` matches zero segments as well as `function/<id>/`.
    let policy = Policy::builtin();
    let port = "nic/00:0a:f7:12:34:56/bmc";
    for (leaf, id, severity) in [
        ("dcbx_mode", "dcbx-mode", Severity::Block),
        ("dcb_capable", "dcb-capable", Severity::Block),
        ("rdma_protocol", "bmc-rdma", Severity::Block),
        ("rdma_enabled", "bmc-rdma", Severity::Block),
        ("npar", "bmc-npar", Severity::Warn),
        ("dcbx_willing", "dcbx-willing", Severity::Block),
        ("flow_control/setting", "bmc-flow-control", Severity::Block),
        (
            "flow_control/configured",
            "bmc-flow-control",
            Severity::Block,
        ),
        ("lldp/enabled", "bmc-lldp", Severity::Block),
        ("lldp/nic_agent", "bmc-lldp", Severity::Block),
        ("lldp/nic_agent_mode/transmit", "bmc-lldp", Severity::Block),
        ("lldp/nic_agent/transmit", "bmc-lldp", Severity::Block),
        ("lldp/transmit/PortId", "bmc-lldp-transmit", Severity::Info),
        ("lldp/receive/ChassisId", "bmc-lldp-receive", Severity::Warn),
        (
            "lldp/receive/SystemName",
            "bmc-lldp-receive",
            Severity::Warn,
        ),
        ("hii/VLanMode", "bmc-hii-attributes", Severity::Warn),
        ("hii/status/LinkStatus", "bmc-hii-status", Severity::Ignore),
        (
            "hii/dcb/Vendor_QosAgentMode",
            "bmc-hii-dcb",
            Severity::Block,
        ),
        (
            "firmware/hii/Broadcom_NCSI",
            "bmc-nic-firmware",
            Severity::Info,
        ),
        ("peer/pfc/enabled", "bmc-peer-dcbx", Severity::Warn),
        (
            "hii/capability/SRIOVSupport",
            "bmc-capability",
            Severity::Warn,
        ),
        (
            "hii/capability/dcb/DCBXSupport",
            "bmc-dcb-capability-lost",
            Severity::Block,
        ),
        (
            "oem/capability/dcb/Acme/NicConfig/PfcSupport",
            "bmc-dcb-capability-lost",
            Severity::Block,
        ),
        (
            "oem/Acme/NicConfig/BootRetries",
            "bmc-oem-properties",
            Severity::Warn,
        ),
        (
            "oem/status/Acme/LinkStatus",
            "bmc-oem-status",
            Severity::Ignore,
        ),
        (
            "oem/dcb/Acme/NicConfig/LldpAgentEnabled",
            "bmc-oem-dcb",
            Severity::Block,
        ),
        (
            "firmware/oem/Acme/NicConfig/FirmwareVersion",
            "bmc-nic-firmware",
            Severity::Info,
        ),
    ] {
        for scope in ["", "function/NIC.Integrated.1-1-1/", "function/a/b/"] {
            let p = format!("{port}/{scope}{leaf}");
            assert_eq!(classify(&policy, &p), (id.to_owned(), severity), "{p}");
        }
    }
    assert_eq!(
        classify(
            &policy,
            &format!("{port}/function/NIC.Integrated.1-1-1/mac")
        ),
        ("bmc-function-identity".to_owned(), Severity::Info)
    );
}

#[test]
fn a_staged_value_is_judged_by_the_rule_of_its_live_path() {
    let policy = Policy::builtin();
    let n = "nic/00:0a:f7:12:34:56";
    for (p, id, severity) in [
        (
            format!("{n}/bmc/pending/flow_control/configured"),
            "bmc-flow-control",
            Severity::Block,
        ),
        (
            format!("{n}/bmc/pending/dcbx_mode"),
            "dcbx-mode",
            Severity::Block,
        ),
        (
            format!("{n}/bmc/function/NIC.Slot.3-1-1/pending/dcbx_mode"),
            "dcbx-mode",
            Severity::Block,
        ),
        (
            format!("{n}/bmc/function/NIC.Slot.3-1-1/pending/rdma_protocol"),
            "bmc-rdma",
            Severity::Block,
        ),
        (
            format!("{n}/bmc/pending/lldp/enabled"),
            "bmc-lldp",
            Severity::Block,
        ),
        (
            format!("{n}/bmc/pending/hii/VLanMode"),
            "bmc-hii-attributes",
            Severity::Warn,
        ),
        (
            format!("{n}/bmc/pending/firmware/hii/FamilyVersion"),
            "bmc-nic-firmware",
            Severity::Info,
        ),
        // A flashed but not yet running NIC image is firmware, like the running one.
        (
            format!("{n}/os/firmware/pending/fw_version_psid"),
            "os-nic-firmware",
            Severity::Info,
        ),
        (
            "bios/pending/SysProfile".to_owned(),
            "bios-attributes",
            Severity::Warn,
        ),
        (
            "bios/pending/DateTime".to_owned(),
            "bios-volatile",
            Severity::Ignore,
        ),
    ] {
        let c = policy.classify_change(&path(&p));
        assert_eq!((c.id, c.severity, c.pending), (id, severity, true), "{p}");
    }
    let live = policy.classify_change(&path(&format!("{n}/bmc/flow_control/configured")));
    assert!(!live.pending);
    // The removed generic rules are gone for good.
    for gone in [
        "bmc-pending",
        "bmc-pending-dcbx-mode",
        "bmc-pending-hii-attributes",
    ] {
        assert!(policy.rules().iter().all(|r| r.id != gone), "{gone}");
    }
}

#[test]
fn a_rule_that_names_pending_makes_a_staged_value_stricter_and_lowers_it_only_by_literal_path() {
    let n = "nic/00:0a:f7:12:34:56";
    // Issue 10 (1c): the old default rule, kept in a site policy, turned a staged flow-control
    // reset from BLOCK into WARN.
    let old_default = r#"
[[rule]]
id = "bmc-pending"
path = "nic/*/bmc/pending/**"
on_change = "warn"
why = "Staged NIC settings are reviewed at the reboot window."
"#;
    let policy = Policy::with_file(old_default, "p.toml").unwrap();
    for leaf in ["flow_control/configured", "dcbx_mode", "lldp/enabled"] {
        let staged = policy.classify_change(&path(&format!("{n}/bmc/pending/{leaf}")));
        assert_eq!(staged.severity, Severity::Block, "{leaf}: {}", staged.id);
        assert!(staged.pending);
        assert_eq!(
            staged.staged_rule.map(|r| r.id.as_str()),
            Some("bmc-pending")
        );
    }
    // Where it is stricter than the live rule, it applies.
    assert_eq!(
        classify(&policy, &format!("{n}/bmc/pending/adapter")),
        ("bmc-pending".to_owned(), Severity::Warn)
    );
    // It does not reach the live values.
    assert_eq!(
        classify(&policy, &format!("{n}/bmc/dcbx_mode")),
        ("dcbx-mode".to_owned(), Severity::Block)
    );
    // A literal staged path may lower its one fact; a glob as specific as it may not.
    let literal = r#"
[[rule]]
id = "site-staged-dcbx"
path = "nic/00:0a:f7:12:34:56/bmc/pending/dcbx_mode"
on_change = "info"
why = "This port's DCBX mode is being migrated at the next reboot window."

[[rule]]
id = "site-staged-fc"
path = "nic/00:0a:f7:12:34:56/bmc/pending/flow_control/*"
on_change = "info"
"#;
    let policy = Policy::with_file(literal, "p.toml").unwrap();
    assert_eq!(
        classify(&policy, &format!("{n}/bmc/pending/dcbx_mode")),
        ("site-staged-dcbx".to_owned(), Severity::Info)
    );
    assert_eq!(
        classify(&policy, &format!("{n}/bmc/pending/flow_control/configured")),
        ("bmc-flow-control".to_owned(), Severity::Block)
    );
    assert!(policy.to_toml().contains(
        "a rule whose path names `pending` can make that stricter, and lower it only when its path has no wildcard"
    ));
}

#[test]
fn a_site_rule_with_a_retired_builtin_id_warns_once_naming_what_replaces_it() {
    let text = r#"
[[rule]]
id = "bmc-pending"
path = "nic/*/bmc/pending/**"
on_change = "warn"

[[rule]]
id = "os-firmware-pending"
path = "nic/*/os/firmware/pending/**"
on_change = "info"

[[rule]]
id = "dcbx-mode"
on_change = "warn"
"#;
    let policy = Policy::layered(&[(text, "driftgate.toml"), (text, "site.toml")]).unwrap();
    let warnings = policy.warnings();
    assert_eq!(warnings.len(), 2, "{warnings:?}");
    assert!(
        warnings[0].starts_with("driftgate.toml:3: rule id \"bmc-pending\" is retired"),
        "{warnings:?}"
    );
    assert!(
        warnings[0].contains("rule of the live path"),
        "{warnings:?}"
    );
    assert!(
        warnings[1].contains("\"os-firmware-pending\""),
        "{warnings:?}"
    );
    assert!(warnings[1].contains("os-nic-firmware"), "{warnings:?}");
    assert!(Policy::builtin().warnings().is_empty());
}

#[test]
fn lldp_blocks_only_who_runs_it_and_the_switchs_data_warns() {
    // Issue 10 (2d): `lldp/**` blocked the switch's data too, so a re-cabled switch port
    // (a new ChassisId / PortId / SystemName received) blocked a rollout.
    let policy = Policy::builtin();
    let n = "nic/00:0a:f7:12:34:56/bmc";
    for leaf in ["ChassisId", "PortId", "SystemName"] {
        assert_eq!(
            classify(&policy, &format!("{n}/lldp/receive/{leaf}")),
            ("bmc-lldp-receive".to_owned(), Severity::Warn)
        );
        assert_eq!(
            classify(&policy, &format!("{n}/lldp/transmit/{leaf}")),
            ("bmc-lldp-transmit".to_owned(), Severity::Info)
        );
    }
    let receive = policy
        .rules()
        .iter()
        .find(|r| r.id == "bmc-lldp-receive")
        .unwrap();
    assert!(receive.why.contains("re-cabled"), "{}", receive.why);
    // Anything else under lldp/ is no longer blocked by a catch-all; without a rule it warns.
    assert_eq!(
        classify(&policy, &format!("{n}/lldp/something_new")),
        (UNMATCHED_ID.to_owned(), Severity::Warn)
    );
}

#[test]
fn the_identity_rule_names_only_leaves_that_exist() {
    // Issue 10 (4): functions are the sub-tree `function/<id>/...`, never a leaf.
    let policy = Policy::builtin();
    let identity = policy
        .rules()
        .iter()
        .find(|r| r.id == "bmc-identity")
        .unwrap();
    assert_eq!(identity.path, "nic/*/bmc/{adapter,port,interface}");
    assert!(!identity.why.contains("function"), "{}", identity.why);
}

#[test]
fn raw_hii_attributes_warn_status_is_ignored_and_unknown_dcb_settings_block() {
    // Issue 10 (5): a firmware update resetting a NIC setting driftgate does not normalize
    // passed silently under --strict (`info`). Issue 38: what changes by itself is ignored
    // whatever the vendor, a DCB setting recognised by its registry text fails safe.
    let policy = Policy::builtin();
    let n = "nic/00:0a:f7:12:34:56/bmc";
    for (p, id, severity) in [
        (
            format!("{n}/hii/WakeOnLan"),
            "bmc-hii-attributes",
            Severity::Warn,
        ),
        (
            format!("{n}/function/NIC.Integrated.1-1-1/hii/VirtualizationMode"),
            "bmc-hii-attributes",
            Severity::Warn,
        ),
        (
            format!("{n}/function/NIC.Integrated.1-1-1/pending/hii/VirtualizationMode"),
            "bmc-hii-attributes",
            Severity::Warn,
        ),
        (
            format!("{n}/hii/DCBXSupport"),
            "bmc-hii-attributes",
            Severity::Warn,
        ),
        (
            format!("{n}/hii/status/LinkStatus"),
            "bmc-hii-status",
            Severity::Ignore,
        ),
        (
            format!("{n}/function/NIC.Slot.5-1/hii/status/LinkStatus"),
            "bmc-hii-status",
            Severity::Ignore,
        ),
        (
            format!("{n}/function/NIC.Slot.5-1/pending/hii/status/LinkStatus"),
            "bmc-hii-status",
            Severity::Ignore,
        ),
        (
            format!("{n}/hii/status/PCIE_SLOT_1_Port1_CurrentLinkSpeed"),
            "bmc-hii-status",
            Severity::Ignore,
        ),
        (
            format!("{n}/hii/dcb/PCIE_SLOT_1_Port1_LLDPNearestBridge"),
            "bmc-hii-dcb",
            Severity::Block,
        ),
        (
            format!("{n}/function/NIC.Slot.4-1-1/pending/hii/dcb/Vendor_QosAgentMode"),
            "bmc-hii-dcb",
            Severity::Block,
        ),
        (
            "bios/status/SysMemSpeed".to_owned(),
            "bios-status",
            Severity::Ignore,
        ),
        (
            "bios/pending/status/SysMemSpeed".to_owned(),
            "bios-status",
            Severity::Ignore,
        ),
        (
            "bios/dcb/LanFlowCtl".to_owned(),
            "bios-dcb",
            Severity::Block,
        ),
        (
            "bios/pending/dcb/LanFlowCtl".to_owned(),
            "bios-dcb",
            Severity::Block,
        ),
        (
            "firmware/bios/attribute/Proc1Microcode".to_owned(),
            "firmware-versions",
            Severity::Info,
        ),
    ] {
        assert_eq!(classify(&policy, &p), (id.to_owned(), severity), "{p}");
    }
}

#[test]
fn lldp_blocks_volatile_bios_attributes_are_ignored_and_firmware_is_info() {
    let policy = Policy::builtin();
    let n = "nic/00:0a:f7:12:34:56";
    let lldp = policy.rules().iter().find(|r| r.id == "bmc-lldp").unwrap();
    assert!(
        lldp.why.contains("competes with the host's DCBX"),
        "{}",
        lldp.why
    );
    for attribute in [
        "DateTime",
        "PowerCycleRequest",
        "OneTimeBootMode",
        "OneTimeUefiBootSeqDev",
    ] {
        assert_eq!(
            classify(&policy, &format!("bios/{attribute}")),
            ("bios-volatile".to_owned(), Severity::Ignore)
        );
    }
    for (p, id) in [
        (
            "firmware/nic.slot.3/version".to_owned(),
            "firmware-versions",
        ),
        (
            "firmware/bios/attribute/SystemBiosVersion".to_owned(),
            "firmware-versions",
        ),
        (format!("{n}/bmc/firmware/version"), "bmc-nic-firmware"),
        (format!("{n}/bmc/firmware/inventory"), "bmc-nic-firmware"),
        (
            format!("{n}/bmc/firmware/hii/EFIVersion"),
            "bmc-nic-firmware",
        ),
        (
            format!("{n}/bmc/function/NIC.Slot.3-1-1/firmware/hii/FamilyVersion"),
            "bmc-nic-firmware",
        ),
        (format!("{n}/os/firmware/version"), "os-nic-firmware"),
    ] {
        assert_eq!(
            classify(&policy, &p),
            (id.to_owned(), Severity::Info),
            "{p}"
        );
    }
}

proptest::proptest! {
    /// Under the built-in policy (no rule names `pending`), a staged path is classified exactly
    /// like its live path, wherever the `pending` segment sits.
    #[test]
    fn a_pending_segment_anywhere_is_judged_like_the_live_path(
        segments in proptest::collection::vec("[a-z_]{1,8}", 1..6),
        at in 0usize..6,
        root in proptest::sample::select(vec!["nic/m/bmc", "nic/m/bmc/function/f1", "bios", "firmware/nic", "nic/m/os"]),
    ) {
        let policy = Policy::builtin();
        let mut live: Vec<String> = root.split('/').map(str::to_owned).collect();
        live.extend(segments.into_iter().filter(|s| s != "pending"));
        let mut staged = live.clone();
        staged.insert(at.clamp(1, live.len()), "pending".to_owned());
        let (live, staged) = (live.join("/"), staged.join("/"));
        let (a, b) = (policy.classify_change(&path(&live)), policy.classify_change(&path(&staged)));
        proptest::prop_assert_eq!((a.id, a.severity, a.pending), (b.id, b.severity, !b.pending), "{} / {}", live, staged);
    }
}

/// The expectation a judgement without a baseline looks up alone is the one the full lookup
/// of every rule gives, for live and staged paths, with expectations and (the built-in
/// policy) without any.
#[test]
fn the_expectation_alone_is_the_governing_one() {
    let site = r#"
[[rule]]
id = "mru-everywhere"
path = "storage/nmp/*/psp"
expect = "VMW_PSP_MRU"
on_change = "warn"
[[rule]]
id = "datastore-rr"
path = "storage/nmp/naa.600a/psp"
expect = "VMW_PSP_RR"
[[rule]]
id = "anywhere-willing"
path = "**/dcbx/willing"
expect = false
"#;
    let paths = [
        "storage/nmp/naa.600a/psp",
        "storage/nmp/naa.600b/psp",
        "storage/nmp/pending/naa.600a/psp",
        "nic/00:0a:f7:12:34:56/os/dcbx/willing",
        "nic/00:0a:f7:12:34:56/pending/os/dcbx/willing",
        "bios/ProcVirtualization",
    ];
    let with = Policy::with_file(site, "site.toml").unwrap();
    let found: Vec<Option<usize>> = paths
        .iter()
        .map(|p| with.governor().expectation_index(&path(p)))
        .collect();
    for (p, index) in paths.iter().zip(&found) {
        assert_eq!(*index, with.governor().governing(&path(p)).expect, "{p}");
    }
    assert_eq!(found.iter().filter(|i| i.is_some()).count(), 4, "{found:?}");
    let builtin = Policy::builtin();
    for p in paths {
        assert_eq!(builtin.governor().expectation_index(&path(p)), None, "{p}");
        assert_eq!(builtin.governor().governing(&path(p)).expect, None, "{p}");
    }
}

/// Matching only the globs of a path's first segment (and those that start with a wildcard)
/// finds what matching every glob finds.
#[test]
fn first_segment_groups_match_what_every_glob_matches() {
    let site = r#"
[[rule]]
id = "any-willing"
path = "**/lldp/**"
on_change = "info"
[[rule]]
id = "braced-first"
path = "{bios,firmware}/x/*"
on_change = "block"
[[rule]]
id = "starred-first"
path = "n*c/*/os/trust"
on_change = "info"
[[rule]]
id = "escaped"
path = "bi\\os/**"
on_change = "info"
[[rule]]
id = "bare"
path = "host"
on_change = "info"
"#;
    let policy = Policy::with_file(site, "site.toml").unwrap();
    let every: Vec<globset::GlobMatcher> = policy
        .rules()
        .iter()
        .map(|r| compile_glob(&r.path).unwrap().compile_matcher())
        .collect();
    // One governor for all of them, as a judgement's pass uses it: each path resumes from
    // the one before in its group.
    let mut governor = policy.governor();
    for p in [
        "nic/00:0a:f7:12:34:56/bmc/dcbx_mode",
        "nic/00:0a:f7:12:34:56/bmc/lldp/receive/x",
        "nic/00:0a:f7:12:34:56/os/trust",
        "bios/x/y",
        "bios/Attr",
        "firmware/x/y",
        "storage/nmp/naa.1/psp",
        "host",
        "host/qos/flow_control/priority/3",
        "other/lldp/a",
        "nxc/k/os/trust",
    ] {
        let brute = every
            .iter()
            .enumerate()
            .filter(|(_, m)| m.is_match(p))
            .map(|(i, _)| i)
            .max_by_key(|&i| (policy.rules()[i].specificity, i));
        assert_eq!(governor.governing(&path(p)).change, brute, "{p}");
    }
}

/// A site policy of `rules` rules of every shape the matcher treats apart: a glob family
/// under one first segment, globs with a first segment of their own, globs whose first
/// segment is a wildcard, literal paths and expectations; then a second layer overriding every
/// other rule by id.
fn generated_layers(rules: usize) -> (String, String) {
    let mut site = String::new();
    let mut overrides = String::new();
    for i in 0..rules {
        let body = match i % 5 {
            0 => format!("path = \"nic/*/bmc/attr{i}\"\non_change = \"block\""),
            1 => format!("path = \"site{i}/**/x\"\non_change = \"warn\""),
            2 => format!("path = \"**/leaf{i}\"\non_change = \"info\""),
            3 => format!("path = \"bios/Attr{i}\"\non_change = \"warn\""),
            _ => format!("path = \"firmware/none{i}/**\"\nexpect = \"x\""),
        };
        site.push_str(&format!("[[rule]]\nid = \"rule-{i}\"\n{body}\n\n"));
        if i % 2 == 0 {
            overrides.push_str(&format!("[[rule]]\nid = \"rule-{i}\"\nwhy = \"site\"\n\n"));
        }
    }
    (site, overrides)
}

/// The findings, as (id, severity, path), of judging the Azure Local example's update under
/// `policy`.
fn example_findings(policy: &Policy) -> Vec<(String, Severity, String)> {
    let read = |file: &str| {
        let path = format!(
            "{}/examples/azure-local-dcbx/{file}",
            concat!(env!("CARGO_MANIFEST_DIR"), "/../..")
        );
        driftgate_snapshot::VerifiedSnapshot::parse(&std::fs::read_to_string(&path).unwrap(), file)
            .unwrap()
    };
    let (baseline, post) = (read("baseline.json"), read("post-update.json"));
    let report = crate::judge(
        &post,
        Some(&baseline),
        policy,
        &crate::JudgeOptions::default(),
    );
    report
        .findings
        .iter()
        .map(|f| (f.id.clone(), f.severity, f.path.as_str().to_owned()))
        .collect()
}

/// Thousands of generated rules in two layers load with every override applied, and judging
/// under them finds what the built-in policy finds: none of them matches the example's facts.
#[test]
fn a_policy_of_thousands_of_rules_loads_and_judges_as_its_rules_say() {
    let (site, overrides) = generated_layers(4_000);
    let policy = Policy::layered(&[(&site, "site.toml"), (&overrides, "overrides.toml")]).unwrap();
    let builtin = Policy::builtin();
    assert_eq!(policy.rules().len(), builtin.rules().len() + 4_000);
    assert_eq!(
        policy.rules().iter().filter(|r| r.why == "site").count(),
        2_000
    );
    assert_eq!(
        classify(&policy, "nic/k/bmc/attr40"),
        ("rule-40".to_owned(), Severity::Block)
    );
    assert_eq!(
        classify(&policy, "a/b/leaf42"),
        ("rule-42".to_owned(), Severity::Info)
    );
    let findings = example_findings(&policy);
    assert!(!findings.is_empty());
    assert_eq!(findings, example_findings(&builtin));
}

#[test]
fn function_types_and_link_technologies_block_and_capabilities_inform() {
    let policy = Policy::builtin();
    let port = "nic/02:c6:00:00:02:01/bmc";
    for (leaf, id, severity) in [
        ("function_type", "bmc-function-type", Severity::Block),
        ("link_technology", "bmc-link-technology", Severity::Block),
        (
            "capabilities/function_types",
            "bmc-capabilities",
            Severity::Info,
        ),
    ] {
        for scope in ["", "function/02:c6:00:00:02:01/", "pending/"] {
            let p = format!("{port}/{scope}{leaf}");
            assert_eq!(classify(&policy, &p), (id.to_owned(), severity), "{p}");
        }
    }
}

#[test]
fn cisco_vic_settings_are_judged_by_their_risk_to_the_lossless_path() {
    let policy = Policy::builtin();
    let port = "nic/70:0f:6a:5c:10:02/bmc";
    let vnic = format!("{port}/function/eth0");
    for (path, rule, severity) in [
        (
            format!("{port}/lldp/nic_agent"),
            "bmc-lldp",
            Severity::Block,
        ),
        (
            format!("{port}/qos/azure_stack_host"),
            "bmc-adapter-qos",
            Severity::Block,
        ),
        (format!("{port}/fcoe/fip"), "bmc-fcoe-fip", Severity::Block),
        (
            format!("{port}/uplink/port_channel"),
            "bmc-uplink-mode",
            Severity::Block,
        ),
        (
            format!("{port}/uplink/physical_nic_mode"),
            "bmc-uplink-mode",
            Severity::Block,
        ),
        (
            format!("{port}/uplink/niv"),
            "bmc-uplink-niv",
            Severity::Warn,
        ),
        (
            format!("{port}/settings_pending"),
            "bmc-settings-pending",
            Severity::Warn,
        ),
        (format!("{vnic}/trusted_cos"), "bmc-cos", Severity::Block),
        (format!("{vnic}/cos"), "bmc-cos", Severity::Block),
        (format!("{vnic}/rdma/cos"), "bmc-cos", Severity::Block),
        (
            format!("{vnic}/vlan_mode"),
            "bmc-vlan-mode",
            Severity::Block,
        ),
        (format!("{vnic}/rdma_enabled"), "bmc-rdma", Severity::Block),
        (
            format!("{vnic}/rdma/queue_pairs"),
            "bmc-rdma-resources",
            Severity::Warn,
        ),
        (
            format!("{vnic}/uplink_port"),
            "bmc-uplink-port",
            Severity::Warn,
        ),
    ] {
        assert_eq!(
            classify(&policy, &path),
            (rule.to_owned(), severity),
            "{path}"
        );
    }
}
