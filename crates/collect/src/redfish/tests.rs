use super::*;

#[test]
fn locations_parse_and_never_keep_credentials() {
    assert_eq!(
        RedfishLocation::parse("https://bmc-azl-node01").unwrap(),
        RedfishLocation::Live {
            base: "https://bmc-azl-node01".into(),
            pin: None
        }
    );
    assert_eq!(
        RedfishLocation::parse("http://127.0.0.1:8000/redfish/v1/").unwrap(),
        RedfishLocation::Live {
            base: "http://127.0.0.1:8000".into(),
            pin: None
        }
    );
    let pinned = RedfishLocation::parse(&format!(
        "https://10.0.0.5:443?pin=sha256:{}",
        "ab".repeat(32)
    ))
    .unwrap();
    assert!(matches!(pinned, RedfishLocation::Live { pin: Some(_), .. }));
    assert_eq!(
        RedfishLocation::parse("mockup:dir").unwrap(),
        RedfishLocation::Mockup("dir".into())
    );
    let err = RedfishLocation::parse("https://root:calvin@bmc")
        .unwrap_err()
        .to_string();
    assert!(
        !err.contains("calvin") && err.contains("https://…@bmc"),
        "{err}"
    );
    for bad in [
        "ftp://bmc",
        "https://bmc/some/path",
        "https://bmc?x=1",
        "http://bmc?pin=sha256:00",
        "mockup:",
        "bmc",
    ] {
        assert!(RedfishLocation::parse(bad).is_err(), "{bad}");
    }
    assert!(
        RedfishLocation::parse("http://sim:8000")
            .unwrap()
            .is_plain_http()
    );
    assert_eq!(crate::redact_userinfo("user:pw@host"), "…@host");
}

#[test]
fn saved_mockups_drop_secrets_at_any_depth() {
    let mut body = serde_json::json!({"Attributes": {"SetupPassword": "x", "SysProfile": "Perf", "IscsiChapSecret": "y", "AdminPin": "4711"},
        "Password": "z", "Nested": [{"Token": "t", "Keep": 1}]});
    let mut filter = driftgate_secrets::SecretFilter::new();
    filter.add_registry(&serde_json::json!({"RegistryEntries": {"Attributes": [
        {"AttributeName": "AdminPin", "Type": "Password"}]}}));
    filter.remove_secrets(&mut body);
    assert_eq!(
        body,
        serde_json::json!({"Attributes": {"SysProfile": "Perf"}, "Nested": [{"Keep": 1}]})
    );
}

#[test]
fn a_port_s_identity_is_no_evidence_its_settings_are() {
    for identity in [
        "nic/02:5e:10:00:00:01/bmc/interface",
        "nic/02:5e:10:00:00:01/bmc/adapter",
        "nic/02:5e:10:00:00:01/bmc/port",
        "nic/02:5e:10:00:00:01/bmc/firmware/inventory",
        "nic/02:5e:10:00:00:01/bmc/function/NIC.Slot.1-1-1/mac",
        "host/name",
    ] {
        assert!(!super::is_evidence(identity), "{identity}");
    }
    for evidence in [
        "nic/02:5e:10:00:00:01/bmc/flow_control/configured",
        "nic/02:5e:10:00:00:01/bmc/firmware/version",
        "nic/02:5e:10:00:00:01/bmc/function/NIC.Slot.1-1-1/dcbx_mode",
        "firmware/bmc/version",
        "bios/SriovGlobalEnable",
    ] {
        assert!(super::is_evidence(evidence), "{evidence}");
    }
}

#[tokio::test]
async fn judging_reads_less_of_each_registry_and_captures_the_same_facts() {
    // Every recorded BMC (ours, and the public captures of iDRAC and DMTF's mockups): a
    // saved capture builds whole registries, a judged one only what it reads of them.
    let ours = ["baseline", "post-update"].map(|state| {
        driftgate_test_data::repo()
            .join("examples/azure-local-dcbx/recorded")
            .join(state)
            .join("bmc")
    });
    let public = [
        "libredfish-dell",
        "libredfish-dell_multi_dpu",
        "dmtf-public-rackmount1",
        "dmtf-public-smartnic",
    ]
    .map(|name| driftgate_test_data::shared_data(&format!("redfish/{name}")));
    for dir in ours.iter().chain(&public) {
        let state = dir.display();
        let mockup = MockupDir::open(dir).unwrap();
        let judged = capture_from(&mockup, 4, &RedfishOptions::default()).await;
        let saved = tempfile::tempdir().unwrap();
        let whole = capture_from(
            &mockup,
            4,
            &RedfishOptions {
                save_mockup: Some(saved.path().join("copy")),
                ..RedfishOptions::default()
            },
        )
        .await;
        assert_eq!(judged.status, whole.status, "{state}: {:?}", judged.error);
        assert_eq!(judged.facts, whole.facts, "{state}");
        assert_eq!(judged.notes, whole.notes, "{state}");
    }
}
