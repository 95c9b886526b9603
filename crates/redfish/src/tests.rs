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
    assert_eq!(driftgate_http::redact_userinfo("user:pw@host"), "…@host");
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
        "nic/02:5e:10:00:00:01/bmc/function/02:5e:10:00:00:01/mac",
        "nic/02:5e:10:00:00:01/bmc/function/02:5e:10:00:00:01/id",
        "host/name",
    ] {
        assert!(!super::is_evidence(identity), "{identity}");
    }
    for evidence in [
        "nic/02:5e:10:00:00:01/bmc/flow_control/configured",
        "nic/02:5e:10:00:00:01/bmc/firmware/version",
        "nic/02:5e:10:00:00:01/bmc/function/02:5e:10:00:00:01/dcbx_mode",
        "firmware/bmc/version",
        "bios/SriovGlobalEnable",
    ] {
        assert!(super::is_evidence(evidence), "{evidence}");
    }
}

/// The public captures of BMCs in `tests/fixtures/public/redfish`: iDRAC's and DMTF's mockups.
fn public_captures() -> [std::path::PathBuf; 4] {
    [
        "libredfish-dell",
        "libredfish-dell_multi_dpu",
        "dmtf-public-rackmount1",
        "dmtf-public-smartnic",
    ]
    .map(|name| driftgate_test_data::public_data(&format!("redfish/{name}")))
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
    let public = public_captures();
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

#[tokio::test]
async fn the_resources_held_normalize_and_check_as_the_whole_ones() {
    // A crawl holds only what is read of a firmware member (`Held::firmware`) and of a network
    // device function (`Held::function`): normalizing and checking the whole resources, as
    // the BMC answered them, must say the same.
    let public = public_captures();
    let repo = driftgate_test_data::repo();
    let mut ours = vec![repo.join("examples/azure-local-dcbx/recorded/baseline/bmc")];
    // Our fixtures: HPE, Lenovo, placeholders, PCIe links.
    for entry in std::fs::read_dir(repo.join("tests/fixtures/redfish")).unwrap() {
        ours.push(entry.unwrap().path());
    }
    // What a held function keeps of its `Oem` is what is read of it by meaning: no resource
    // it embeds (iDRAC's `DellNICPortMetrics`, `DellNICCapabilities`).
    fn embeds_resource(value: &serde_json::Value) -> bool {
        match value {
            serde_json::Value::Object(object) => object
                .values()
                .any(|inner| inner.get("@odata.id").is_some() || embeds_resource(inner)),
            serde_json::Value::Array(items) => !items.is_empty(),
            _ => false,
        }
    }
    let functions_embedding = |inventory: &crawl::Inventory| {
        inventory
            .adapters
            .iter()
            .flat_map(|a| &a.functions)
            .filter(|f| f.function.get("Oem").is_some_and(embeds_resource))
            .count()
    };
    let (mut members, mut functions, mut with_oem) = (0, 0, 0);
    for dir in public.iter().chain(&ours) {
        let mockup = MockupDir::open(dir).unwrap();
        let crawled = crawl::crawl_from(&mockup, 4, false, crawl::Registries::Whole, None).await;
        let Some(inventory) = crawled.inventory else {
            continue;
        };
        let held = inventory.parse();
        let mut whole = held.clone();
        for member in &mut whole.firmware {
            let uri = member["@odata.id"].as_str().unwrap().to_owned();
            *member = serde_json::from_slice(&mockup.get_body(&uri).await.unwrap()).unwrap();
            members += 1;
        }
        for function in whole.adapters.iter_mut().flat_map(|a| &mut a.functions) {
            let uri = function.function["@odata.id"].as_str().unwrap().to_owned();
            function.function =
                serde_json::from_slice(&mockup.get_body(&uri).await.unwrap()).unwrap();
            functions += 1;
        }
        with_oem += functions_embedding(&whole);
        let (a, b) = (normalize::normalize(&held), normalize::normalize(&whole));
        let state = dir.display();
        assert_eq!(a.facts, b.facts, "{state}");
        assert_eq!(a.notes, b.notes, "{state}");
        assert_eq!(a.problems, b.problems, "{state}");
        assert_eq!(a.placeholders, b.placeholders, "{state}");
        assert_eq!(
            format!("{:?}", shape::check(&held)),
            format!("{:?}", shape::check(&whole)),
            "{state}"
        );
        if !held.firmware.is_empty() {
            assert_ne!(
                format!("{:?}", held.firmware),
                format!("{:?}", whole.firmware),
                "{state}: nothing was left out"
            );
        }
        assert_eq!(functions_embedding(&held), 0, "{state}");
    }
    assert!(members > 50, "{members} firmware members compared");
    assert!(functions > 20, "{functions} functions compared");
    assert!(
        with_oem > 10,
        "{with_oem} functions whose Oem object embeds resources compared"
    );
    // Each property read, mistyped: the shape check names every one of them either way.
    let mistyped = [
        serde_json::json!({"@odata.id": "/redfish/v1/UpdateService/FirmwareInventory/1",
            "Id": 1, "Name": 2, "Version": 3, "SoftwareId": 4, "Status": 5,
            "Location": {"PartLocation": {"ServiceLabel": 6}}, "RelatedItem": 7,
            "Oem": {"Hpe": {"DeviceContext": 8}}}),
        serde_json::json!({"@odata.id": "/redfish/v1/UpdateService/FirmwareInventory/2",
            "Status": {"State": 9}, "RelatedItem": [{"@odata.id": 10}], "Oem": 11}),
    ];
    let whole = crawl::Inventory {
        firmware: mistyped.to_vec(),
        ..Default::default()
    };
    let held = crawl::Inventory {
        firmware: mistyped
            .into_iter()
            .map(|member| crawl::Held::firmware(member).value())
            .collect(),
        ..Default::default()
    };
    let named = shape::check(&whole);
    assert_eq!(format!("{:?}", shape::check(&held)), format!("{named:?}"));
    assert!(named.len() >= 9, "{named:?}");
    // `RelatedItem` is checked apart (normalization weighs it by the ports it may tie).
    let related = |inventory: &crawl::Inventory| -> Vec<_> {
        inventory
            .firmware
            .iter()
            .flat_map(shape::related_item)
            .collect()
    };
    assert_eq!(related(&held), related(&whole));
    assert_eq!(related(&whole).len(), 2, "{:?}", related(&whole));
}
