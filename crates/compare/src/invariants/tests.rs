use super::*;
use driftgate_snapshot::FactPath;
use driftgate_snapshot::Scalar;

const MAC: &str = "00:0a:f7:12:34:56";

fn facts(pairs: &[(&str, FactValue)]) -> Facts {
    pairs
        .iter()
        .map(|(p, v)| (FactPath::new(*p).unwrap(), v.clone()))
        .collect()
}

fn run(id: &str, facts: &Facts) -> Vec<Violation> {
    INVARIANTS.iter().find(|i| i.id == id).unwrap().check(facts)
}

/// A healthy seed-1 adapter: PFC on priority 3, enforced.
fn healthy_adapter() -> Vec<(String, FactValue)> {
    let n = format!("nic/{MAC}");
    let mut v: Vec<(String, FactValue)> = vec![
        ("host/qos/flow_control/priority/3".into(), true.into()),
        ("host/qos/flow_control/priority/4".into(), false.into()),
        (format!("{n}/os/name"), "SLOT 3 Port 1".into()),
        (format!("{n}/os/qos_enabled"), true.into()),
        (format!("{n}/os/rdma_enabled"), true.into()),
        (format!("{n}/os/dcbx_support/hardware"), "ieee".into()),
        (format!("{n}/os/dcbx_support/current"), "ieee".into()),
        (
            format!("{n}/os/flow_control/operational/priority/3"),
            true.into(),
        ),
        (
            format!("{n}/os/flow_control/operational/priority/4"),
            false.into(),
        ),
        (format!("{n}/bmc/dcbx_mode"), "ieee".into()),
        (format!("{n}/bmc/rdma_protocol"), "roce".into()),
    ];
    for k in ["max", "ets", "pfc"] {
        v.push((format!("{n}/os/num_tcs/current/{k}"), 3.into()));
    }
    v
}

fn with(overrides: &[(&str, FactValue)]) -> Facts {
    let mut all: Facts = healthy_adapter()
        .into_iter()
        .map(|(p, v)| (FactPath::new(p).unwrap(), v))
        .collect();
    for (p, v) in overrides {
        all.insert(
            FactPath::new(p.replace("{n}", &format!("nic/{MAC}"))).unwrap(),
            v.clone(),
        );
    }
    all
}

#[test]
fn every_invariant_is_silent_on_a_healthy_host() {
    let healthy = with(&[]);
    for invariant in INVARIANTS {
        assert_eq!(invariant.check(&healthy), vec![], "{}", invariant.id);
    }
}

#[test]
fn pfc_not_operational_fires_on_each_cause() {
    type Case<'a> = (&'a [(&'a str, FactValue)], &'a [&'a str], &'a str, &'a str);
    let two_host_classes: [(&str, FactValue); 2] = [
        ("host/qos/traffic_class/default/algorithm", "ets".into()),
        ("host/qos/traffic_class/smb_direct/algorithm", "ets".into()),
    ];
    let single_class = [
        two_host_classes[0].clone(),
        two_host_classes[1].clone(),
        (
            "{n}/os/traffic_class/operational/0/priorities",
            FactValue::list((0..8u64).map(|p| Scalar::Number(p.into())).collect()),
        ),
    ];
    let cases: [Case; 4] = [
        (
            &[
                ("{n}/os/num_tcs/current/max", 0.into()),
                ("{n}/os/num_tcs/current/ets", 0.into()),
                ("{n}/os/num_tcs/current/pfc", 0.into()),
            ],
            &[],
            "os/num_tcs/current/max",
            "NumTCs(Max/ETS/PFC) is 0/0/0",
        ),
        (
            &[("{n}/os/flow_control/operational/priority/3", false.into())],
            &[],
            "os/flow_control/operational/priority/3",
            "operational flow control is off on priority 3",
        ),
        (
            &[],
            &["os/flow_control/operational/"],
            "os/qos_enabled",
            "reports no operational flow control",
        ),
        (
            &single_class,
            &[],
            "os/traffic_class/operational/0/priorities",
            "a single traffic class (TC 0) where the host configures 2",
        ),
    ];
    for (overrides, removed, leaf, cause) in cases {
        let mut f = with(overrides);
        f.retain(|p, _| {
            !removed
                .iter()
                .any(|r| p.as_str().starts_with(&format!("nic/{MAC}/{r}")))
        });
        let found = run("pfc-not-operational", &f);
        assert_eq!(found.len(), 1, "{cause}");
        assert_eq!(found[0].path.as_str(), format!("nic/{MAC}/{leaf}"));
        assert!(found[0].message.contains(cause), "{}", found[0].message);
        assert!(
            found[0]
                .message
                .contains("not enforcing the OS PFC configuration"),
            "{}",
            found[0].message
        );
        assert!(
            found[0].message.contains("\"SLOT 3 Port 1\""),
            "{}",
            found[0].message
        );
    }
}

#[test]
fn pfc_not_operational_never_fires_on_dcbx_support_none_alone() {
    // The adapter runs the host's PFC on priority 3 with DCBX off (Microsoft's examples show
    // exactly this): DcbxSupport None is no sign that it ignores the OS.
    for hardware in ["none", "ieee"] {
        let none = with(&[
            ("{n}/os/dcbx_support/hardware", hardware.into()),
            ("{n}/os/dcbx_support/current", "none".into()),
        ]);
        assert_eq!(run("pfc-not-operational", &none), vec![], "{hardware}");
    }
    // Hardware IEEE, current None stays dcbx-capability-lost's.
    let lost = with(&[("{n}/os/dcbx_support/current", "none".into())]);
    let found = run("dcbx-capability-lost", &lost);
    assert_eq!(found.len(), 1);
    // Its message says that PFC still runs, so the finding is not read as PFC lost.
    assert!(
        found[0]
            .message
            .ends_with("(it still runs PFC on priority 3)"),
        "{}",
        found[0].message
    );
    // Beside a real cause it is named first, the finding on its fact (seed 1's DCBX reset).
    let seed_1 = with(&[
        ("{n}/os/dcbx_support/current", "none".into()),
        ("{n}/os/flow_control/operational/priority/3", false.into()),
    ]);
    let found = run("pfc-not-operational", &seed_1);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(
        found[0].path.as_str(),
        format!("nic/{MAC}/os/dcbx_support/current")
    );
    assert!(
        found[0].message.contains(
            "its current DCBX support is None, and operational flow control is off on priority 3"
        ),
        "{}",
        found[0].message
    );
    // An adapter that never had DCBX (hardware None) lost nothing: the cause is named alone.
    let never_had = with(&[
        ("{n}/os/dcbx_support/hardware", "none".into()),
        ("{n}/os/dcbx_support/current", "none".into()),
        ("{n}/os/flow_control/operational/priority/3", false.into()),
    ]);
    let found = run("pfc-not-operational", &never_had);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(
        found[0].path.as_str(),
        format!("nic/{MAC}/os/flow_control/operational/priority/3")
    );
    assert!(!found[0].message.contains("DCBX"), "{}", found[0].message);
}

#[test]
fn pfc_not_operational_needs_host_pfc_and_qos_enabled() {
    let broken = [("{n}/os/dcbx_support/current", FactValue::from("none"))];
    let mut no_pfc = with(&broken);
    no_pfc.insert(
        FactPath::new("host/qos/flow_control/priority/3").unwrap(),
        false.into(),
    );
    assert!(run("pfc-not-operational", &no_pfc).is_empty());
    let qos_off = with(&[broken[0].clone(), ("{n}/os/qos_enabled", false.into())]);
    assert!(run("pfc-not-operational", &qos_off).is_empty());
    // Partial NumTCs (only PFC 0) is not the 0/0/0 signature.
    let partial = with(&[("{n}/os/num_tcs/current/pfc", 0.into())]);
    assert!(run("pfc-not-operational", &partial).is_empty());
}

#[test]
fn dcbx_capability_lost_fires_only_when_hardware_is_capable() {
    let lost = run(
        "dcbx-capability-lost",
        &with(&[("{n}/os/dcbx_support/current", "none".into())]),
    );
    assert_eq!(lost.len(), 1);
    assert!(
        lost[0].message.contains("hardware supports IEEE DCBX"),
        "{}",
        lost[0].message
    );
    let never_had = with(&[
        ("{n}/os/dcbx_support/hardware", "none".into()),
        ("{n}/os/dcbx_support/current", "none".into()),
    ]);
    assert!(run("dcbx-capability-lost", &never_had).is_empty());
}

#[test]
fn bmc_dcbx_disabled_with_rdma_reads_bmc_or_os_rdma() {
    let found = run(
        "bmc-dcbx-disabled-with-rdma",
        &with(&[("{n}/bmc/dcbx_mode", "disabled".into())]),
    );
    assert_eq!(found.len(), 1);
    assert!(
        found[0].message.contains("RDMA (roce)"),
        "{}",
        found[0].message
    );
    let os_only = with(&[
        ("{n}/bmc/dcbx_mode", "disabled".into()),
        ("{n}/bmc/rdma_protocol", "none".into()),
    ]);
    let found = run("bmc-dcbx-disabled-with-rdma", &os_only);
    assert!(
        found[0].message.contains("in the OS: rdma_enabled true"),
        "{}",
        found[0].message
    );
    let no_rdma = facts(&[
        (&format!("nic/{MAC}/bmc/dcbx_mode"), "disabled".into()),
        (&format!("nic/{MAC}/bmc/rdma_protocol"), "None".into()),
    ]);
    assert!(run("bmc-dcbx-disabled-with-rdma", &no_rdma).is_empty());
}

#[test]
fn psp_rr_on_reserved_device_depends_on_version_and_reservation() {
    let dev = "naa.60050768028081713c0000000000007d";
    let esx = |version: Option<&str>, psp: &str, reserved: bool| {
        let mut f = facts(&[
            (&format!("storage/nmp/{dev}/psp"), psp.into()),
            (
                &format!("storage/nmp/{dev}/perennially_reserved"),
                reserved.into(),
            ),
            ("storage/nmp/naa.6000000000000001/psp", "VMW_PSP_RR".into()),
        ]);
        if let Some(v) = version {
            f.insert(FactPath::new("host/esxi/version").unwrap(), v.into());
        }
        f
    };
    let found = run(
        "psp-rr-on-reserved-device",
        &esx(Some("5.0.0"), "VMW_PSP_RR", true),
    );
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].path.as_str(), format!("storage/nmp/{dev}/psp"));
    for needle in [
        dev,
        "VMW_PSP_RR",
        "ESXi 5.0.0",
        "SCSI-3 reservations",
        "-P VMW_PSP_MRU",
    ] {
        assert!(
            found[0].message.contains(needle),
            "{needle}: {}",
            found[0].message
        );
    }
    assert!(
        run(
            "psp-rr-on-reserved-device",
            &esx(Some("5.0.0"), "VMW_PSP_MRU", true)
        )
        .is_empty()
    );
    assert!(
        run(
            "psp-rr-on-reserved-device",
            &esx(Some("5.0.0"), "VMW_PSP_RR", false)
        )
        .is_empty()
    );
    assert!(
        run(
            "psp-rr-on-reserved-device",
            &esx(Some("5.5.0"), "VMW_PSP_RR", true)
        )
        .is_empty()
    );
    assert!(
        run(
            "psp-rr-on-reserved-device",
            &esx(Some("6.7.0"), "VMW_PSP_RR", true)
        )
        .is_empty()
    );
    let unknown = run("psp-rr-on-reserved-device", &esx(None, "VMW_PSP_RR", true));
    assert!(
        unknown[0].message.contains("unknown version"),
        "{}",
        unknown[0].message
    );
}

#[test]
fn ports_are_found_by_identity_segment() {
    let f = facts(&[
        ("nic/aa/os/x", 1.into()),
        ("nic/aa-b/os/x", 1.into()),
        ("nic/aa/os/y", 1.into()),
        ("nic/ab/os/x", 1.into()),
        ("nicx/zz", 1.into()),
    ]);
    let found: Vec<&str> = ports(&f).collect();
    assert_eq!(found, vec!["aa-b", "aa", "ab"]);
}

#[test]
fn pfc_not_operational_without_captured_host_pfc_still_sees_an_rdma_adapter_ignoring_the_os() {
    let mut f = with(&[
        ("{n}/os/num_tcs/current/max", 0.into()),
        ("{n}/os/num_tcs/current/ets", 0.into()),
        ("{n}/os/num_tcs/current/pfc", 0.into()),
    ]);
    f.retain(|p, _| !p.as_str().starts_with("host/"));
    let found = run("pfc-not-operational", &f);
    assert_eq!(found.len(), 1);
    assert!(
        found[0].message.contains(
            "the host's PFC priorities were not captured; RDMA is enabled on the adapter, os/rdma_enabled true"
        ),
        "{}",
        found[0].message
    );
    // Neither host PFC nor RDMA: nothing says the adapter should run lossless classes.
    f.insert(
        FactPath::new(format!("nic/{MAC}/os/rdma_enabled")).unwrap(),
        false.into(),
    );
    assert_eq!(run("pfc-not-operational", &f), vec![]);
}

#[test]
fn pfc_priority_mismatch_covers_rdma_adapters_without_a_qos_verdict() {
    // QoS disabled on an RDMA adapter.
    let found = run(
        "pfc-priority-mismatch",
        &with(&[("{n}/os/qos_enabled", false.into())]),
    );
    assert_eq!(found.len(), 1);
    assert!(
        found[0].message.contains("QoS (DCB) disabled"),
        "{}",
        found[0].message
    );
    // No QoS flag (Linux): operational PFC off on the configured priority.
    let mut linux = with(&[("{n}/os/flow_control/operational/priority/3", false.into())]);
    linux.remove(format!("nic/{MAC}/os/qos_enabled").as_str());
    let found = run("pfc-priority-mismatch", &linux);
    assert_eq!(found.len(), 1);
    assert!(
        found[0].message.contains("without PFC on priority 3"),
        "{}",
        found[0].message
    );
    // QoS-enabled adapters are left to pfc-not-operational.
    assert!(
        run(
            "pfc-priority-mismatch",
            &with(&[("{n}/os/flow_control/operational/priority/3", false.into())])
        )
        .is_empty()
    );
}

#[test]
fn dcbx_willing_fires_for_host_and_adapter() {
    let found = run(
        "dcbx-willing",
        &with(&[
            ("host/qos/dcbx_willing", true.into()),
            ("{n}/os/dcbx_willing", true.into()),
        ]),
    );
    assert_eq!(found.len(), 2);
    assert!(
        run(
            "dcbx-willing",
            &with(&[("host/qos/dcbx_willing", false.into())])
        )
        .is_empty()
    );
}

#[test]
fn firmware_lldp_agent_active_needs_a_non_willing_host() {
    let agent = [
        ("{n}/os/firmware_lldp/dcbx", FactValue::from(true)),
        ("{n}/os/dcbx_willing", false.into()),
    ];
    let found = run("firmware-lldp-agent-active", &with(&agent));
    assert_eq!(found.len(), 1);
    assert!(
        found[0].message.contains("LLDP DCBX agent is enabled"),
        "{}",
        found[0].message
    );
    let controlled = [
        ("{n}/os/dcbx_control", FactValue::from("firmware")),
        ("host/qos/dcbx_willing", false.into()),
    ];
    assert_eq!(
        run("firmware-lldp-agent-active", &with(&controlled)).len(),
        1
    );
    let willing = [
        ("{n}/os/firmware_lldp/dcbx", FactValue::from(true)),
        ("{n}/os/dcbx_willing", true.into()),
    ];
    assert!(run("firmware-lldp-agent-active", &with(&willing)).is_empty());
    let os_controlled = [
        ("{n}/os/dcbx_control", FactValue::from("os")),
        ("{n}/os/dcbx_willing", false.into()),
    ];
    assert!(run("firmware-lldp-agent-active", &with(&os_controlled)).is_empty());
}

const FUNCTION: &str = "NIC.Slot.3-1-1";

#[test]
fn bmc_dcbx_disabled_with_rdma_treats_each_function_as_a_scope_of_its_port() {
    let n = format!("nic/{MAC}");
    let f = format!("{n}/bmc/function/{FUNCTION}");
    let check = |pairs: &[(String, FactValue)]| {
        let pairs: Vec<(&str, FactValue)> =
            pairs.iter().map(|(p, v)| (p.as_str(), v.clone())).collect();
        run("bmc-dcbx-disabled-with-rdma", &facts(&pairs))
    };
    // DCBX disabled on the function, RDMA reported for the port.
    let found = check(&[
        (format!("{f}/dcbx_mode"), "disabled".into()),
        (format!("{n}/bmc/rdma_protocol"), "roce".into()),
    ]);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].path.as_str(), format!("{f}/dcbx_mode"));
    for needle in [
        MAC,
        FUNCTION,
        "set on the function",
        "RDMA (roce)",
        "on the port",
    ] {
        assert!(
            found[0].message.contains(needle),
            "{needle}: {}",
            found[0].message
        );
    }
    // DCBX disabled on the port, standard RDMA (any vendor) reported on the function.
    let found = check(&[
        (format!("{n}/bmc/dcbx_mode"), "disabled".into()),
        (format!("{f}/rdma_enabled"), true.into()),
        (format!("{f}/rdma_protocol"), "RoCEv2".into()),
    ]);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].path.as_str(), format!("{n}/bmc/dcbx_mode"));
    for needle in [
        FUNCTION,
        "inherited from the port",
        "RDMA (RoCEv2)",
        "on the function",
    ] {
        assert!(
            found[0].message.contains(needle),
            "{needle}: {}",
            found[0].message
        );
    }
    // Both at function level, RDMA only as a flag.
    let found = check(&[
        (format!("{f}/dcbx_mode"), "disabled".into()),
        (format!("{f}/rdma_enabled"), true.into()),
    ]);
    assert_eq!(found.len(), 1, "{found:?}");
    // RDMA off on the function (its own value wins over the port's): silent.
    assert!(
        check(&[
            (format!("{n}/bmc/dcbx_mode"), "disabled".into()),
            (format!("{f}/rdma_enabled"), false.into()),
            (format!("{f}/rdma_protocol"), "none".into()),
        ])
        .is_empty()
    );
    // A function with DCBX on of its own: only the port fires.
    assert!(
        check(&[
            (format!("{n}/bmc/dcbx_mode"), "disabled".into()),
            (format!("{n}/bmc/rdma_protocol"), "roce".into()),
            (format!("{f}/dcbx_mode"), "ieee".into()),
        ])
        .len()
            == 1,
        "the port itself still fires"
    );
    // A port finding is not repeated for a function that only inherits the port's mode.
    let found = check(&[
        (format!("{n}/bmc/dcbx_mode"), "disabled".into()),
        (format!("{n}/bmc/rdma_protocol"), "roce".into()),
        (format!("{f}/rdma_enabled"), true.into()),
        (
            format!("{n}/bmc/function/NIC.Slot.3-1-2/mac"),
            "00:0a:f7:12:34:58".into(),
        ),
    ]);
    assert_eq!(found.len(), 1, "{found:?}");
}

#[test]
fn an_adapter_that_reports_no_dcb_is_an_adapter_without_dcb() {
    // Windows prints blank capability columns: `dcb_reported = false`, no dcbx_support or
    // num_tcs facts, and operational flow control off everywhere.
    let n = format!("nic/{MAC}");
    let no_dcb = |rdma: bool, host_pfc: bool| {
        let pairs: Vec<(String, FactValue)> = vec![
            ("host/qos/flow_control/priority/3".into(), host_pfc.into()),
            (format!("{n}/os/name"), "Intel X722 #1".into()),
            (format!("{n}/os/dcb_reported"), false.into()),
            (format!("{n}/os/qos_enabled"), true.into()),
            (format!("{n}/os/rdma_enabled"), rdma.into()),
            (
                format!("{n}/os/flow_control/operational/priority/3"),
                false.into(),
            ),
        ];
        let pairs: Vec<(&str, FactValue)> =
            pairs.iter().map(|(p, v)| (p.as_str(), v.clone())).collect();
        facts(&pairs)
    };
    for (rdma, host_pfc) in [(false, true), (true, false), (false, false)] {
        for id in [
            "pfc-not-operational",
            "dcbx-capability-lost",
            "pfc-priority-mismatch",
        ] {
            assert_eq!(
                run(id, &no_dcb(rdma, host_pfc)),
                vec![],
                "{id}, rdma {rdma}, host PFC {host_pfc}"
            );
        }
    }
    // RDMA on it and PFC configured by the host: that is a block, and it says why.
    let both = no_dcb(true, true);
    assert!(run("pfc-not-operational", &both).is_empty());
    assert!(run("dcbx-capability-lost", &both).is_empty());
    let found = run("pfc-priority-mismatch", &both);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].path.as_str(), format!("{n}/os/dcb_reported"));
    assert!(
        found[0].message.contains("reports no DCB") && found[0].message.contains("priority 3"),
        "{}",
        found[0].message
    );
    // Without the fact, the same adapter still blocks as before.
    let mut reported = both.clone();
    reported.remove(format!("{n}/os/dcb_reported").as_str());
    assert_eq!(run("pfc-not-operational", &reported).len(), 1);
}

#[test]
fn children_segments_are_every_first_segment_once_per_run_in_order() {
    let paths = [
        "nic/a",
        "nic/a-1/x",
        "nic/a/x",
        "nic/a/y/z",
        "nic/a0/z",
        "nic/a0/zz",
        "nic/b",
        "nic/b/q",
        "nic/c:d/e",
        "nicx/f",
        "o/g",
    ];
    let facts = facts(&paths.map(|p| (p, FactValue::from(true))));
    // What a walk over every fact gives: first segments, consecutive repeats dropped.
    let mut walked: Vec<&str> = Vec::new();
    for path in facts.keys() {
        if let Some(rest) = path.as_str().strip_prefix("nic/") {
            let segment = rest.split('/').next().unwrap();
            if walked.last() != Some(&segment) {
                walked.push(segment);
            }
        }
    }
    assert_eq!(walked, ["a", "a-1", "a", "a0", "b", "c:d"]);
    assert_eq!(
        children_segments(&facts, "nic/").collect::<Vec<_>>(),
        walked
    );
    assert_eq!(
        children_segments(&facts, "nic/a/").collect::<Vec<_>>(),
        ["x", "y"]
    );
    assert_eq!(children_segments(&facts, "none/").count(), 0);
}

#[test]
fn hpp_round_robin_on_a_reserved_device_is_judged_like_nmps() {
    let dev = "naa.60050768028081713c0000000000007d";
    let host = |version: Option<&str>, pss: &str| {
        let mut f = facts(&[
            (&format!("storage/hpp/{dev}/pss"), pss.into()),
            (
                &format!("storage/hpp/{dev}/perennially_reserved"),
                true.into(),
            ),
        ]);
        if let Some(v) = version {
            f.insert(FactPath::new("host/esxi/version").unwrap(), v.into());
        }
        f
    };
    // A host of unknown version is treated as older than 5.5, as for NMP.
    let found = run("psp-rr-on-reserved-device", &host(None, "LB-RR"));
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].path.as_str(), format!("storage/hpp/{dev}/pss"));
    assert!(
        found[0].message.contains("esxcli storage hpp device set"),
        "{}",
        found[0].message
    );
    assert!(run("psp-rr-on-reserved-device", &host(None, "FIXED")).is_empty());
    assert!(run("psp-rr-on-reserved-device", &host(Some("7.0.3"), "LB-RR")).is_empty());
}

/// A Dell function as iDRAC reports it: `Broadcom_DCBX`, `RDMANICModeOnPort`,
/// `RDMAProtocolSupport` normalized.
fn dell_function(dcbx: &str, rdma_enabled: bool, os_rdma: Option<bool>) -> Facts {
    let n = format!("nic/{MAC}");
    let f = format!("{n}/bmc/function/{FUNCTION}");
    let mut pairs: Vec<(String, FactValue)> = vec![
        (format!("{n}/bmc/port"), "NIC.Integrated.1-1".into()),
        (format!("{f}/dcbx_mode"), dcbx.into()),
        (format!("{f}/rdma_enabled"), rdma_enabled.into()),
        (format!("{f}/rdma_protocol"), "roce".into()),
    ];
    if let Some(on) = os_rdma {
        pairs.push((format!("{n}/os/rdma_enabled"), on.into()));
    }
    let pairs: Vec<(&str, FactValue)> =
        pairs.iter().map(|(p, v)| (p.as_str(), v.clone())).collect();
    facts(&pairs)
}

#[test]
fn dcbx_disabled_beside_rdma_switched_off_is_a_warning_quoting_its_facts() {
    let off = dell_function("disabled", false, None);
    assert_eq!(run("bmc-dcbx-disabled-with-rdma", &off), vec![]);
    let found = run("bmc-dcbx-disabled-rdma-off", &off);
    assert_eq!(found.len(), 1, "{found:?}");
    let f = format!("bmc/function/{FUNCTION}");
    assert_eq!(found[0].path.as_str(), format!("nic/{MAC}/{f}/dcbx_mode"));
    for needle in [
        format!("function {FUNCTION}"),
        "set on the function: dcbx_mode \"disabled\"".to_owned(),
        "on the function: rdma_enabled false, rdma_protocol \"roce\"".to_owned(),
        "one setting away from RoCE without flow control".to_owned(),
    ] {
        assert!(
            found[0].message.contains(&needle),
            "{needle}: {}",
            found[0].message
        );
    }
    let warning = INVARIANTS
        .iter()
        .find(|i| i.id == "bmc-dcbx-disabled-rdma-off")
        .unwrap();
    assert_eq!(warning.default_severity, Severity::Warn);
    // The OS running RDMA on the port is RDMA in use, whatever the BMC flag says.
    let os_on = dell_function("disabled", false, Some(true));
    assert_eq!(run("bmc-dcbx-disabled-rdma-off", &os_on), vec![]);
    let found = run("bmc-dcbx-disabled-with-rdma", &os_on);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0]
            .message
            .contains("RDMA is enabled (in the OS: rdma_enabled true)"),
        "{}",
        found[0].message
    );
    // RDMA off in the OS too: still only the warning.
    let os_off = dell_function("disabled", false, Some(false));
    assert_eq!(run("bmc-dcbx-disabled-with-rdma", &os_off), vec![]);
    assert_eq!(run("bmc-dcbx-disabled-rdma-off", &os_off).len(), 1);
    // DCBX on: neither.
    let ieee = dell_function("ieee", false, None);
    assert_eq!(run("bmc-dcbx-disabled-rdma-off", &ieee), vec![]);
}

#[test]
fn dcbx_disabled_beside_rdma_enabled_blocks_quoting_its_facts() {
    // Seed 1: RDMANICModeOnPort Enabled, RDMAProtocolSupport RoCE, Broadcom_DCBX Disabled.
    let on = dell_function("disabled", true, Some(true));
    assert_eq!(run("bmc-dcbx-disabled-rdma-off", &on), vec![]);
    let found = run("bmc-dcbx-disabled-with-rdma", &on);
    assert_eq!(found.len(), 1, "{found:?}");
    for needle in [
        "disabled (set on the function: dcbx_mode \"disabled\")",
        "RDMA (roce) is enabled (on the function: rdma_enabled true, rdma_protocol \"roce\")",
    ] {
        assert!(
            found[0].message.contains(needle),
            "{needle}: {}",
            found[0].message
        );
    }
    // A protocol with no enable flag beside it is RDMA in use.
    let n = format!("nic/{MAC}");
    let found = run(
        "bmc-dcbx-disabled-with-rdma",
        &facts(&[
            (&format!("{n}/bmc/dcbx_mode"), "disabled".into()),
            (&format!("{n}/bmc/rdma_protocol"), "rocev2".into()),
        ]),
    );
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0]
            .message
            .contains("on the port: rdma_protocol \"rocev2\", no enable flag reported"),
        "{}",
        found[0].message
    );
}

#[test]
fn a_function_with_rdma_on_under_a_port_with_rdma_off_blocks_on_its_own() {
    let n = format!("nic/{MAC}");
    let f = format!("{n}/bmc/function/{FUNCTION}");
    let pairs = [
        (format!("{n}/bmc/dcbx_mode"), FactValue::from("disabled")),
        (format!("{n}/bmc/rdma_enabled"), false.into()),
        (format!("{n}/bmc/rdma_protocol"), "roce".into()),
        (format!("{f}/rdma_enabled"), true.into()),
        (
            format!("{n}/bmc/function/NIC.Slot.3-1-2/mac"),
            "00:0a:f7:12:34:58".into(),
        ),
    ];
    let pairs: Vec<(&str, FactValue)> =
        pairs.iter().map(|(p, v)| (p.as_str(), v.clone())).collect();
    let all = facts(&pairs);
    let warned = run("bmc-dcbx-disabled-rdma-off", &all);
    assert_eq!(warned.len(), 1, "the port, once: {warned:?}");
    assert!(
        warned[0].message.starts_with("port "),
        "{}",
        warned[0].message
    );
    let blocked = run("bmc-dcbx-disabled-with-rdma", &all);
    assert_eq!(blocked.len(), 1, "{blocked:?}");
    assert!(
        blocked[0].message.contains(&format!("function {FUNCTION}"))
            && blocked[0].message.contains("inherited from the port"),
        "{}",
        blocked[0].message
    );
}
