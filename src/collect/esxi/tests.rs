use std::path::{Path, PathBuf};

use super::*;
use crate::collect::SourceCapture;
use crate::collect::transport::{Location, ProcessOptions, for_location};

fn recorded(state: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples/esxi-mscs-psp/recorded")
        .join(state)
}

fn capture_dir(dir: &Path) -> SourceCapture {
    let transport = for_location(
        &Location::Dir(dir.to_path_buf()),
        &ProcessOptions::default(),
    );
    capture(transport.as_ref())
}

fn fact<'a>(capture: &'a SourceCapture, path: &str) -> Option<&'a FactValue> {
    capture.facts.get(path)
}

/// A copy of a recorded state that a test may change.
fn copy_of(state: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for entry in std::fs::read_dir(recorded(state)).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), dir.path().join(entry.file_name())).unwrap();
    }
    dir
}

const RDM: &str = "storage/nmp/naa.60050768028081713c0000000000007d";

#[test]
fn the_seed_2_states_normalize_to_facts() {
    let healthy = capture_dir(&recorded("healthy"));
    assert_eq!(
        (healthy.status, healthy.error.as_deref()),
        (SourceStatus::Complete, None)
    );
    let expect = [
        ("host/esxi/version", FactValue::from("5.0.0")),
        ("host/esxi/build", "469512".into()),
        ("host/esxi/update", "0".into()),
        (&format!("{RDM}/psp"), "VMW_PSP_MRU".into()),
        (&format!("{RDM}/satp"), "VMW_SATP_SVC".into()),
        (&format!("{RDM}/perennially_reserved"), true.into()),
        (&format!("{RDM}/is_local"), false.into()),
        (&format!("{RDM}/working_paths"), 1.into()),
        (&format!("{RDM}/vendor"), "IBM".into()),
        (&format!("{RDM}/model"), "2145".into()),
        (
            "storage/satp/VMW_SATP_SVC/default_psp",
            "VMW_PSP_FIXED".into(),
        ),
        (
            "storage/nmp/mpx.vmhba1:C0:T0:L0/psp_config",
            "preferred=vmhba1:C0:T0:L0".into(),
        ),
    ];
    for (path, value) in expect {
        assert_eq!(fact(&healthy, path), Some(&value), "{path}");
    }
    // MRU's device config is runtime state only: no fact.
    assert_eq!(fact(&healthy, &format!("{RDM}/psp_config")), None);
    assert_eq!(fact(&healthy, &format!("{RDM}/patch")), None);

    let rr = capture_dir(&recorded("round-robin"));
    assert_eq!(fact(&rr, &format!("{RDM}/psp")), Some(&"VMW_PSP_RR".into()));
    // Round Robin's counters churn; only the configuration stays.
    assert_eq!(
        fact(&rr, &format!("{RDM}/psp_config")),
        Some(&"policy=rr,iops=1000,bytes=10485760,useANO=0".into())
    );
    assert_eq!(
        fact(&rr, "storage/satp_rule/VMW_SATP_SVC/IBM/2145/default_psp"),
        Some(&"VMW_PSP_RR".into())
    );
}

#[test]
fn capturing_twice_gives_identical_facts() {
    assert_eq!(
        capture_dir(&recorded("round-robin")),
        capture_dir(&recorded("round-robin"))
    );
}

#[test]
fn xml_recordings_are_preferred_to_text() {
    let dir = copy_of("healthy");
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/esxi/esxi70-version.xml"),
        dir.path().join("esxcli_system_version_get.xml"),
    )
    .unwrap();
    let captured = capture_dir(dir.path());
    assert_eq!(fact(&captured, "host/esxi/version"), Some(&"7.0.1".into()));
    assert_eq!(fact(&captured, "host/esxi/build"), Some(&"16324942".into()));
}

#[test]
fn esx_4_is_refused_as_an_unsupported_version() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("esxcli_system_version_get.txt"),
        "Error: Unknown command or namespace system version get\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("esxcli_system_version_get.txt.exit"), "1\n").unwrap();
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/esxi/esx41-vmware-v.txt"),
        dir.path().join("vmware_-v.txt"),
    )
    .unwrap();
    let captured = capture_dir(dir.path());
    assert_eq!(captured.status, SourceStatus::Failed);
    let error = captured.error.clone().unwrap();
    assert!(
        error.contains("VMware ESX 4.1.0 is an unsupported version"),
        "{error}"
    );
    assert_eq!(fact(&captured, "host/esxi/version"), Some(&"4.1.0".into()));
}

#[test]
fn a_missing_or_failing_command_makes_the_source_partial_and_says_which() {
    let dir = copy_of("healthy");
    std::fs::remove_file(dir.path().join("esxcli_storage_core_device_list.txt")).unwrap();
    std::fs::write(
        dir.path()
            .join("esxcli_storage_nmp_satp_rule_list.txt.exit"),
        "1\n",
    )
    .unwrap();
    std::fs::write(
        dir.path()
            .join("esxcli_storage_nmp_satp_rule_list.txt.stderr"),
        "Error: Connect to localhost failed\n",
    )
    .unwrap();
    let captured = capture_dir(dir.path());
    assert_eq!(captured.status, SourceStatus::Partial);
    let error = captured.error.clone().unwrap();
    assert!(
        error.contains("`esxcli storage core device list` was not recorded"),
        "{error}"
    );
    assert!(error.contains("`esxcli storage nmp satp rule list` exited with status 1: Error: Connect to localhost failed"), "{error}");
    // What was read is still there; what was not is absent, never guessed.
    assert_eq!(
        fact(&captured, &format!("{RDM}/psp")),
        Some(&"VMW_PSP_MRU".into())
    );
    assert_eq!(
        fact(&captured, &format!("{RDM}/perennially_reserved")),
        None
    );
}

#[test]
fn unparseable_output_names_the_command_and_line() {
    let dir = copy_of("healthy");
    std::fs::write(
        dir.path().join("esxcli_storage_nmp_device_list.txt"),
        "naa.1\n   Path Selection Policy: VMW_PSP_RR\n<html>oops</html>\n",
    )
    .unwrap();
    let captured = capture_dir(dir.path());
    assert_eq!(captured.status, SourceStatus::Partial);
    let error = captured.error.clone().unwrap();
    assert!(
        error.contains(
            "`esxcli storage nmp device list` output (esxcli_storage_nmp_device_list.txt): line 3:"
        ),
        "{error}"
    );
}

#[test]
fn nothing_readable_is_a_failed_source() {
    let dir = tempfile::tempdir().unwrap();
    let captured = capture_dir(dir.path());
    assert_eq!(captured.status, SourceStatus::Failed);
    assert!(captured.facts.is_empty());
}

#[test]
fn runtime_parts_of_psp_device_config_are_dropped() {
    assert_eq!(psp_config("{policy=rr,iops=1000,bytes=10485760,useANO=0; lastPathIndex=0: NumIOsPending=0,numBytesPending=0}").as_deref(), Some("policy=rr,iops=1000,bytes=10485760,useANO=0"));
    assert_eq!(
        psp_config("{preferred=vmhba2:C0:T1:L1;current=vmhba2:C0:T1:L1}").as_deref(),
        Some("preferred=vmhba2:C0:T1:L1")
    );
    assert_eq!(psp_config("Current Path=vmhba37:C1:T0:L10"), None);
    assert_eq!(psp_config(""), None);
}
