use super::*;
use crate::testing::{edited, example, set, three_way};

fn seed_one() -> (Report, Facts) {
    let post = example("post-update.json");
    let report = three_way(
        &post,
        &example("baseline.json"),
        &example("pre-update.json"),
        Vec::new(),
    );
    (report, post.snapshot().facts.clone())
}

#[test]
fn the_seed_one_update_reads_as_one_story_per_port() {
    let (report, facts) = seed_one();
    assert_eq!(
        report.findings.len(),
        32,
        "28 blocking and 4 firmware findings"
    );
    let stories = stories(&report, &facts);
    let subjects: Vec<&str> = stories.iter().map(|s| s.subject.as_str()).collect();
    assert_eq!(subjects, ["nic/00:0a:f7:12:34:56", "nic/00:0a:f7:12:34:57"]);
    let first = &stories[0];
    assert_eq!(first.severity, Severity::Block);
    assert_eq!(
        first.label,
        r#"port "SLOT 3 Port 1" (00:0a:f7:12:34:56) on NIC.Slot.3"#
    );
    assert_eq!(
        first.headline,
        r#"NIC.Slot.3 229.0.166.0 → 229.1.123.0 changed nic/00:0a:f7:12:34:56/bmc/function/00:0a:f7:12:34:56/dcbx_mode (function NIC.Slot.3-1-1) "ieee" → "disabled""#
    );
    let total: usize = stories.iter().map(|s| s.findings.len()).sum();
    assert_eq!(
        total, 28,
        "firmware the stories name is not a story of its own"
    );
    // The NIC firmware's settings first, then what the OS shows.
    let layers: Vec<u8> = first
        .findings
        .iter()
        .map(|&i| layer(report.findings[i].path.as_str()))
        .collect();
    assert!(
        layers.is_sorted() && layers[0] == 0 && layers.contains(&1),
        "{layers:?}"
    );
}

#[test]
fn a_host_level_finding_is_its_own_story_and_pre_existing_drift_none() {
    let (baseline, pre, post) = (
        example("baseline.json"),
        example("pre-update.json"),
        example("post-update.json"),
    );
    let post = edited(&post, "post.json", |s| {
        set(s, "host/qos/traffic_class/smb_direct/bandwidth", 40.into());
        set(s, "bios/SysProfile", "Custom".into());
    });
    let pre = edited(&pre, "pre.json", |s| {
        set(s, "bios/SysProfile", "Custom".into())
    });
    let report = three_way(&post, &baseline, &pre, Vec::new());
    let stories = stories(&report, &post.snapshot().facts);
    let host = stories.iter().find(|s| s.subject == "host/qos").unwrap();
    assert_eq!(host.label, "host/qos");
    assert_eq!(host.findings.len(), 1);
    assert!(
        host.headline.starts_with(
            "host/qos/traffic_class/smb_direct/bandwidth 50 → 40 (firmware changed on this host: firmware/nic.slot.3-1-1/version 229.0.166.0 → 229.1.123.0, "
        ),
        "{}",
        host.headline
    );
    assert!(host.headline.ends_with(", +1 more)"), "{}", host.headline);
    assert!(
        stories.iter().all(|s| s.subject != "bios"),
        "pre-existing drift is not a story"
    );
    assert_eq!(stories.len(), 3);
}

#[test]
fn subjects_follow_the_fact_families() {
    for (path, subject) in [
        ("nic/00:0a:f7:12:34:56/os/name", "nic/00:0a:f7:12:34:56"),
        ("host/qos/flow_control/priority/3", "host/qos"),
        ("storage/nmp/naa.600/psp", "storage/nmp/naa.600"),
        ("bios/SysProfile", "bios"),
        ("firmware/bios.setup.1-1/version", "firmware"),
        ("host", "host"),
    ] {
        assert_eq!(super::subject(path), subject, "{path}");
    }
    assert_eq!(
        label("storage/nmp/naa.600", &Facts::new()),
        "device naa.600"
    );
    assert_eq!(label("nic/k", &Facts::new()), "port k");
}
