use std::path::PathBuf;

use super::*;
use crate::crawl::crawl;
use driftgate_model::mockup_dir::MockupDir;

fn recorded(state: &str) -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .join("examples/azure-local-dcbx/recorded")
        .join(state)
        .join("bmc")
}

async fn settings_of(dir: &std::path::Path) -> BmcSettings {
    let mockup = MockupDir::open(dir).unwrap();
    let crawled = crawl(&mockup, 4, false, crate::crawl::Registries::Whole).await;
    assert!(crawled.errors.is_empty(), "{:?}", crawled.errors);
    BmcSettings::new(crawled.inventory.unwrap().parse())
}

#[tokio::test]
async fn the_write_of_a_normalized_fact_is_found_by_normalizing_it() {
    let settings = settings_of(&recorded("post-update")).await;
    let path =
        FactPath::new("nic/00:0a:f7:12:34:56/bmc/function/00:0a:f7:12:34:56/dcbx_mode").unwrap();
    assert_eq!(
        settings.facts().get(path.as_str()),
        Some(&FactValue::from("disabled"))
    );
    let write = settings
        .write_for(&path, &FactValue::from("ieee"))
        .expect("a write");
    assert_eq!(write.attribute, "Broadcom_DCBX");
    assert_eq!(write.value, Value::from("Enabled_IEEE"));
    assert!(
        write
            .resource
            .uri
            .ends_with("DellNetworkAttributes/NIC.Slot.3-1-1")
    );
    assert!(
        write
            .resource
            .settings
            .as_deref()
            .unwrap()
            .ends_with("NIC.Slot.3-1-1/Settings")
    );
    assert_eq!(write.resource.apply_times, ["OnReset"]);
    // A value no attribute can give.
    assert_eq!(
        settings.write_for(&path, &FactValue::from("sideways")),
        None
    );
}

#[tokio::test]
async fn a_bios_attribute_is_written_as_itself_and_systems_can_be_reset() {
    let settings = settings_of(&recorded("post-update")).await;
    let path = FactPath::new("bios/SriovGlobalEnable").unwrap();
    let write = settings
        .write_for(&path, &FactValue::from("Disabled"))
        .expect("a write");
    assert_eq!(write.attribute, "SriovGlobalEnable");
    assert_eq!(write.resource.scope, "bios");
    assert_eq!(settings.resets.len(), 1);
    let reset = &settings.resets[0];
    assert_eq!(
        reset.target,
        "/redfish/v1/Systems/System.Embedded.1/Actions/ComputerSystem.Reset"
    );
    assert!(
        reset.allowed.iter().any(|t| t == "GracefulRestart"),
        "{reset:?}"
    );
}

#[test]
fn a_dependency_the_registry_declares_makes_an_attribute_read_only_with_the_current_values() {
    // The shape of iDRAC's NetworkAttributesRegistry dependencies
    // (`tests/fixtures/public/redfish/libredfish-dell`).
    let registry = serde_json::json!({"RegistryEntries": {
        "Attributes": [
            {"AttributeName": "VirtualizationMode", "Type": "Enumeration", "ReadOnly": false,
             "Value": [{"ValueName": "NONE"}, {"ValueName": "NPAR"}, {"ValueName": "NPARSRIOV"}]},
            {"AttributeName": "NumberVFAdvertised", "Type": "Integer", "ReadOnly": false}
        ],
        "Dependencies": [{"Type": "Map", "DependencyFor": "NumberVFAdvertised", "Dependency": {
            "MapFrom": [
                {"MapFromAttribute": "VirtualizationMode", "MapFromCondition": "EQU", "MapFromProperty": "CurrentValue", "MapFromValue": "NPAR"},
                {"MapFromAttribute": "VirtualizationMode", "MapFromCondition": "EQU", "MapFromProperty": "CurrentValue", "MapFromValue": "NPARSRIOV"}
            ],
            "MapToAttribute": "NumberVFAdvertised", "MapToProperty": "ReadOnly", "MapToValue": true}}]
    }});
    let with = |mode: &str| {
        let current = serde_json::json!({"VirtualizationMode": mode, "NumberVFAdvertised": 8});
        rules(&registry, current.as_object().unwrap())["NumberVFAdvertised"]
            .read_only_because
            .clone()
    };
    assert_eq!(with("NONE"), None);
    assert_eq!(
        with("NPAR").as_deref(),
        Some("VirtualizationMode EQU \"NPAR\"")
    );
    assert_eq!(
        with("NPARSRIOV").as_deref(),
        Some("VirtualizationMode EQU \"NPARSRIOV\"")
    );
}

#[tokio::test]
async fn writes_are_aimed_from_the_uris_read_and_the_reset_from_the_owning_system() {
    let mockup = MockupDir::open(&recorded("post-update")).unwrap();
    let crawled = crate::crawl::crawl_for_writes(&mockup, 4).await;
    assert!(crawled.errors.is_empty(), "{:?}", crawled.errors);
    let settings = BmcSettings::new(crawled.inventory.unwrap().parse());
    let system = "/redfish/v1/Systems/System.Embedded.1";
    let mut targets = 0;
    for writable in &settings.writable {
        // The BIOS by the system that links it; each NIC by its chassis, linked both ways.
        assert_eq!(writable.system.as_deref(), Ok(system), "{}", writable.uri);
        if let Some(target) = writable.target() {
            assert_eq!(
                target.unwrap().as_str(),
                format!("{}/Settings", writable.uri)
            );
            targets += 1;
        }
    }
    assert!(targets >= 2, "{:?}", settings.writable);
    let reset = settings.reset_of(system).expect("the system's reset");
    assert_eq!(
        reset.checked_target().unwrap().as_str(),
        format!("{system}/Actions/ComputerSystem.Reset")
    );
}
